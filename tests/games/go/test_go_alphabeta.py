"""Go's rules as the alpha-beta contract (banmen.games.go.kernels_ab): the kernels against
the board (its legal moves, the position after each move, its count) on seeded random
games of every size and rule set, the root's superko ban, and the generic alpha-beta and
perfect players on Go: a whole 9x9 arena game against random, a capture that wins, and
nearly finished 5x5 positions solved as an exhaustive search over the board's own API
(written here) solves them."""

from __future__ import annotations

import random
from collections.abc import Iterator

import numpy as np
import pytest

from banmen.games.go import BLACK, PASS, WHITE, Board, Game, GoEngine, parse_vertex
from banmen.games.go import kernels as K
from banmen.games.go import kernels_ab as A
from banmen.games.registry import get_game, kinds, make_engine
from banmen.search.limits import Limit

GO = get_game("go")

# --------------------------------------------------------------------------- helpers


def diagram(text: str, rules: str = "chinese", turn: int = BLACK, komi: float = 0.5) -> Game:
    """A game record from rows of ``X`` (black), ``O`` (white) and ``.``, top row first."""
    rows = [line.replace(" ", "") for line in text.strip().splitlines()]
    n = len(rows)
    board = Board(n, rules, komi)
    black, white = [], []
    for i, row in enumerate(rows):
        for c, ch in enumerate(row):
            p = (n - i) * (n + 2) + c + 1
            if ch == "X":
                black.append(p)
            elif ch == "O":
                white.append(p)
    board.setup(black, white, turn=turn)
    return Game(board)


def random_positions(size: int, rules: str, seed: int, plies: int) -> Iterator[Board]:
    """The positions of a seeded random game (the board itself, moved on after each
    yield): a pass one move in thirty, so boards fill up and stones are taken."""
    rng = random.Random(seed)
    board = Board(size, rules)
    for _ in range(plies):
        yield board
        legal = board.legal_moves
        if not legal:
            return
        points = [m for m in legal if m != PASS]
        board.push(rng.choice(points) if points and rng.random() > 1 / 30 else PASS)
    yield board


def mover_margin(board: Board) -> int:
    """The board's count (every stone alive) for the side to move, in half points."""
    s = board.score()
    margin = s.black - s.white
    two = 2 * margin if board.turn == BLACK else -2 * margin
    assert two == round(two)
    return int(round(two))


SIZES_AND_RULES = [
    (5, "chinese"),
    (5, "tromp-taylor"),
    (6, "new-zealand"),
    (7, "japanese"),
    (9, "aga"),
    (9, "tromp-taylor"),
    (13, "chinese"),
    (19, "new-zealand"),
]


# --------------------------------------------------------------------------- the rules


def test_the_kernels_moves_are_the_boards_legal_moves_on_random_games() -> None:
    """Every position of seeded random games (sizes 5 to 19, every ko and suicide rule):
    the search's root moves are the board's legal moves (the kernels' own, before the
    root's ban, differ by superko's refusals only); and the games held what the rules
    must get right — captures, a ko point, suicides and ko retakes refused, legal
    multi-stone suicides. (A move only superko refuses: the test of its own below.)"""
    seen = {"captures": 0, "ko": 0, "suicide": 0, "illegal": 0}
    for size, rules in SIZES_AND_RULES:
        for seed in range(3 if size <= 9 else 1):
            plies = 4 * size * size if size <= 9 else size * size
            before = None
            for board in random_positions(size, rules, seed, plies):
                legal = board.legal_moves
                moves = A.search_moves(board)
                assert len(moves) == len(set(moves))
                assert sorted(moves) == sorted(legal), (size, rules, board.to_dict())
                stones = len(board.stones(BLACK)) + len(board.stones(WHITE))
                if before is not None and board.move_stack[-1] != PASS and stones <= before:
                    seen["captures"] += 1
                before = stones
                if board.ko_point is not None:
                    seen["ko"] += 1
                ctx, st = A.context(board), A.state_of(board)
                unbanned = set(A._kernel_moves(ctx, st))
                assert unbanned >= set(legal)
                assert all(board.why_illegal(m) == "superko" for m in unbanned - set(legal))
                if board.is_game_over():
                    continue
                for p in board.points:
                    why = board.why_illegal(p)
                    if why in ("suicide", "ko"):
                        seen["illegal"] += 1
                    if board.rules.suicide and why is None and board.color_at(p) == 0:
                        after = board.copy()
                        after.push(p)
                        if after.color_at(p) == 0:
                            seen["suicide"] += 1
    assert all(seen[k] > 0 for k in ("captures", "ko", "suicide", "illegal")), seen


def test_play_gives_the_state_of_the_board_after_the_move() -> None:
    """For every legal move of positions along random games, the compiled ``play`` gives
    the state the board has after it: the stones (captures and suicides taken off), the
    ko point, the passes, the side to move and the hash."""
    for size, rules in SIZES_AND_RULES[:6]:
        for i, board in enumerate(random_positions(size, rules, 11, 3 * size * size)):
            if i % 7 or board.is_game_over():
                continue
            ctx, st = A.context(board), A.state_of(board)
            for m in board.legal_moves:
                after = board.copy()
                after.push(m)
                assert A.play_state(ctx, st, m) == A.state_of(after), (rules, board.move_name(m))


def test_the_state_is_the_same_tuple_type_for_every_size() -> None:
    """One compiled search serves every board size: twelve uint64 words, four int64."""
    for n in (5, 9, 19):
        st = A.state_of(Board(n))
        assert [type(x) for x in st] == [np.uint64] * 12 + [np.int64] * 4
    b = Board(19)
    b.push(b.parse_move("T19"))
    ctx, st = A.search_position(b)
    assert A.play_state(ctx, st, b.parse_move("A1")) == A.state_of(_pushed(b, "A1"))


def _pushed(board: Board, name: str) -> Board:
    after = board.copy()
    after.push_name(name)
    return after


def test_final_is_the_boards_count_of_finished_games() -> None:
    """Random games ended by two passes: ``final`` (plus ``score_offset``: territory
    scoring's prisoners) is the board's count with every stone alive, for the side to
    move, in half points — area and territory scoring, komi and the handicap bonus."""
    cases = [
        (5, "chinese", 7.5, 0),
        (7, "tromp-taylor", 0.0, 0),
        (9, "aga", 6.5, 3),
        (9, "scoring=territory,tax=none,komi=6.5", None, 0),
        (9, "japanese", None, 0),
        (13, "chinese", -3.5, 4),
    ]
    checked = 0
    for size, rules, komi, handicap in cases:
        for seed in range(4):
            rng = random.Random(seed)
            plies = rng.randrange(size * size // 2, 3 * size * size)
            board = Board(size, rules, komi)
            if handicap:
                board.set_free_handicap(board.points[:: len(board.points) // handicap][:handicap])
            for _ in range(plies):
                points = [m for m in board.legal_moves if m != PASS]
                if not points:
                    break
                board.push(rng.choice(points))
            for _ in range(2):
                board.push(PASS)
            assert board.is_game_over() and A.search_moves(board) == []
            expected = mover_margin(board)
            if board.rules.tax == "seki" and board.score().seki:
                continue  # the seki tax: the search counts that territory (module doc)
            assert A.final_value(board) + A.score_offset(board) == expected, (rules, seed)
            checked += 1
    assert checked >= 20


def test_evaluate_counts_in_the_units_of_final() -> None:
    """The estimate is the count where the count is plain: the empty board (komi for the
    side to move), and a settled position whose empty points each touch one colour."""
    for turn in (BLACK, WHITE):
        empty = Game(Board(9, komi=7.5))
        if turn == WHITE:
            empty.push(PASS)
        assert A.evaluate_value(empty) == (15 if turn == WHITE else -15)
        settled = diagram(
            """
            XXOOO
            .XOO.
            XXOOO
            .XOO.
            XXOOO
            """,
            turn=turn,
        )
        assert A.evaluate_value(settled) == A.final_value(settled) == mover_margin(settled.board)


# --------------------------------------------------------------------------- superko


def _superko_position(rules: str) -> tuple[Game, int]:
    """Black to move, and a capture (``C2``) that brings back the board of two moves
    ago: white took black's stone there (a ko), then passed out of turn, which lifts
    the ko point. Superko refuses the capture; simple ko does not. The rest is settled
    (each side's eyes): the ko is the game."""
    game = diagram(
        """
        XXOOO
        .XO.O
        XXOOO
        X.XO.
        .XOOO
        """,
        rules,
        turn=WHITE,
    )
    game.push(parse_vertex("B2", 5))  # white takes C2: a ko
    game.play(PASS, WHITE)  # white again, out of turn: black to move, no ko point
    return game, parse_vertex("C2", 5)


def test_a_move_only_superko_refuses_is_banned_at_the_root_and_never_played() -> None:
    """Under simple ko every depth retakes the ko; under superko (positional or
    situational) the retake is banned at the root — the search never sees it there —
    and every engine over the kernels plays a move the board takes."""
    game, c2 = _superko_position("chinese")
    assert c2 in game.legal_moves and c2 in A.search_moves(game)
    for depth in (1, 2, 3):
        assert make_engine(GO, f"alphabeta:depth={depth}").think(game).move == "C2"
    for rules in ("tromp-taylor", "aga", "new-zealand"):
        game, c2 = _superko_position(rules)
        board = game.board
        assert board.turn == BLACK and board.ko_point is None
        assert board.why_illegal(c2) == "superko"
        assert c2 in A._kernel_moves(A.context(board), A.state_of(board))
        assert c2 not in A.search_moves(game)
        assert sorted(A.search_moves(game)) == sorted(game.legal_moves)
        for spec in ("alphabeta:depth=1", "alphabeta:depth=3", "perfect:nodes=20000"):
            r = make_engine(GO, spec).think(game)
            assert r.move is not None and game.parse_move(r.move) in game.legal_moves, spec


# --------------------------------------------------------------------------- players


def test_go_offers_alphabeta_and_perfect_and_keeps_its_own_mcts() -> None:
    offered = kinds(GO)
    assert {"alphabeta", "perfect", "mcts", "random", "gtp"} <= set(offered)
    assert offered["mcts"] is GO.engines["mcts"]  # the game's own engine wins
    assert isinstance(make_engine(GO, "mcts:playouts=10"), GoEngine)
    assert GO.kernel_set("alphabeta") is not None and GO.kernel_set("search") is not None
    assert GO.default_engine == "mcts"


def test_alphabeta_plays_a_whole_9x9_arena_game_against_random() -> None:
    """``alphabeta:depth=2`` against ``random`` in the arena, with each colour: every
    move (the cleanup's too) legal — the arena raises on an illegal move of banmen's own
    engines — the game ended by the rules, and won."""
    from banmen.arena.play import EngineCache, play_game
    from banmen.arena.schedule import Job

    specs = {"ab": "alphabeta:depth=2", "rnd": "random"}
    cache = EngineCache()
    for seed, swapped in ((0, False), (1, True)):
        first, second = ("rnd", "ab") if swapped else ("ab", "rnd")
        record = play_game("go", 9, Job(0, seed, swapped, first, second, seed), specs, cache)
        assert record.outcome is not None and record.outcome.winner == (2 if swapped else 1)
        assert record.outcome.termination.value == "rules"
        replay = Board(9)
        for name in record.moves:  # (the cleanup plays on after the two passes)
            m = parse_vertex(name, 9)
            assert replay.why_illegal(m) is None, name
            replay._push(m, replay.turn)
        assert len(record.moves) > 20


def test_alphabeta_captures_the_stones_in_atari_that_win() -> None:
    """White's two stones in the middle have one liberty: taking them wins the game for
    black (the count after it: B+3.5); leaving them lets white out and win (W+2.5).
    Every depth takes them, and expects to win."""
    game = diagram(
        """
        .....
        .XOX.
        .XOX.
        ..X..
        OO.OO
        """,
    )
    taken, escaped = game.board.copy(), game.board.copy()
    for b, moves in ((taken, "C5 pass pass"), (escaped, "pass C5 pass pass")):
        for name in moves.split():
            b.push_name(name)
    assert taken.score().result == "B+3.5" and escaped.score().result == "W+2.5"
    for depth in (1, 2, 3, 4):
        r = make_engine(GO, f"alphabeta:depth={depth}").think(game, Limit(depth=depth))
        assert r.move == "C5", (depth, r)
        assert r.score is not None and r.score > 0, (depth, r)
    game.push_name("C5")
    assert game.board.stones(WHITE) == [parse_vertex(v, 5) for v in ("A1", "B1", "D1", "E1")]


# --------------------------------------------------------------------------- perfect


def exhaustive(board: Board, alpha: int, beta: int, ply: int = 0) -> int:
    """The game's value for the side to move in half points, every line played to its
    end by the board's own rules and count (no evaluation, no table): negamax with
    alpha-beta cut-offs, the pass tried first. A line longer than 60 plies fails the
    test (the positions below end much sooner)."""
    if board.is_game_over():
        return mover_margin(board)
    assert ply < 60, "an exhaustive line too long: choose a smaller position"
    best = -(10**9)
    moves = board.legal_moves
    for m in [PASS] + [m for m in moves if m != PASS]:
        board.push(m)
        v = -exhaustive(board, -beta, -alpha, ply + 1)
        board.pop()
        if v > best:
            best = v
            alpha = max(alpha, v)
            if alpha >= beta:
                break
    return best


#: 5x5 positions near the end, small enough for the exhaustive search above (the
#: lines where a side fills its own eyes and gets taken open the board again: a position
#: with more room is a whole game of 5x5 Go)
NEARLY_FINISHED = [
    "XXOOO .XOO. XXOOO .XOO. XXOOO",  # two living groups, nothing to gain
    "XXOOO .XOO. XXOOO .XOO. XX.OO",  # a dame, which either side fills
    "XXOOO .XXO. XXXOO .XOO. XX.OO",  # a dame, black's area larger
    "XXO.O .XOO. XXOOO .XOO. XXO.O",  # white with three eyes
    "XXOOO .XOO. XXOOO .XXO. XXXOO",  # settled, with the sides' areas near even
]


@pytest.mark.parametrize("text", NEARLY_FINISHED)
@pytest.mark.parametrize("turn", [BLACK, WHITE])
def test_perfect_agrees_with_an_exhaustive_search_over_the_board(text: str, turn: int) -> None:
    for rules in ("chinese", "scoring=territory,tax=none,komi=0.5"):
        game = diagram("\n".join(text.split()), rules, turn=turn)
        r = make_engine(GO, "perfect:time=60").think(game)
        assert r.exact and r.stopped_by == "exact", r
        board = game.board.copy()
        value = exhaustive(board, -(10**9), 10**9)
        assert r.score == value, (rules, r)
        assert r.move is not None
        board.push(game.parse_move(r.move))  # the move perfect plays reaches that value
        assert -exhaustive(board, -(10**9), 10**9) == value


def test_without_superko_ctx_is_the_one_array_of_the_rules() -> None:
    """Simple ko: ``ctx`` is the one array of the rules (the table carries over from one
    move to the next), whatever the position."""
    game = Game(Board(9))
    ctx0, _ = A.search_position(game)
    for name in ("E5", "E4", "D4", "pass"):
        game.push_name(name)
        assert A.search_position(game)[0] is ctx0
    assert K.PASS == PASS == 0

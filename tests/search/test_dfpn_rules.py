"""Df-pn over any game's rules (search/dfpn_rules.py): win, draw or loss for the side to
move, checked against the truth — brute force on the toy of no known length, the exact
alpha-beta (``perfect``) on Connect Four and Mattix (points banked by moves), Othello's
exact endgame solver — with the move it proves and the line it reads back played out on
the game's own board; limits (nodes, time, a stop request, the depth cap) give
``unknown`` (or a ``no win`` that is true), never a false claim."""

from __future__ import annotations

import random
from functools import cache
from typing import Any

import pytest
import toy_unbounded as toy
from hypothesis import given, settings
from hypothesis import strategies as st

from banmen.games import GameDef
from banmen.games.registry import GAME_NAMES, get_game
from banmen.search.alphabeta import AlphaBeta
from banmen.search.dfpn_rules import ProofAnswer, RulesProof, prove
from banmen.search.limits import Limit, StopFlag


def _game(name: str) -> GameDef[Any]:
    if name not in GAME_NAMES:  # the example package, when it is not installed
        pytest.skip(f"{name} is not installed")
    return get_game(name)


def _word(value: int) -> str:
    return "win" if value > 0 else "draw" if value == 0 else "loss"


# --------------------------------------------------------------------------- the toy


@cache
def _toy_value(stones: int) -> int:
    """Brute force: +1 if the side to move wins with ``stones`` left, -1 if it loses."""
    if stones == 0:
        return -1
    return max(-_toy_value(stones - m) for m in (1, 2, 3) if m <= stones)


@settings(max_examples=40)
@given(st.integers(0, 60))
def test_a_game_of_no_known_length_is_proved_by_brute_force(stones: int) -> None:
    """The toy's kernels give no bound (``horizon`` -1): df-pn needs none. The winning
    move leaves a multiple of 4; the line read back is legal and ends with the prover
    taking the last stone."""
    ctx, state = toy.search_position(toy.Board(stones))
    assert toy.KERNELS.horizon(ctx, state) == -1
    a = prove(toy.KERNELS, ctx, state)
    assert a.answer == _word(_toy_value(stones)), stones
    if stones == 0:
        assert a.move is None  # the game is over: no move
        return
    assert a.move is not None and a.move in toy.Board(stones).legal_moves
    if a.answer == "win":
        assert _toy_value(stones - a.move) < 0
        board = toy.Board(stones)
        for m in a.line:
            board.push(m)
        assert a.line[0] == a.move and board.is_game_over() and board.winner() == 1
        assert a.asked == ["win"]
    else:
        assert a.line == [] and a.asked == ["win", "draw"]


# --------------------------------------------------------------------------- the exact values


@cache
def _search(name: str) -> AlphaBeta:
    g = get_game(name)
    assert g.kernels is not None
    return AlphaBeta(g.kernels, tt_bits=18)


def _exact(game: GameDef[Any], board: Any) -> int:
    """The game's value for the side to move (``perfect``): the exact alpha-beta's, with
    the points banked so far."""
    assert game.search_position is not None
    ab = _search(game.name)
    ab.clear()
    r = ab.search(*game.search_position(board), Limit())
    assert r.exact
    return r.score + int(game.score_offset(board))


def _prove(game: GameDef[Any], board: Any, limit: Limit | None = None, **kw: Any) -> ProofAnswer:
    assert game.search_position is not None and game.kernels is not None
    ctx, state = game.search_position(board)
    kw.setdefault("horizon", int(game.kernels.horizon(ctx, state)))
    return prove(game.kernels, ctx, state, int(game.score_offset(board)), limit, **kw)


def _check(game: GameDef[Any], board: Any, a: ProofAnswer, truth: int) -> None:
    """``a`` is the truth, its move keeps it and its line is legal and ends as proved."""
    assert a.answer == _word(truth), (board.to_dict(), truth, a)
    assert a.move is not None and a.move in board.legal_moves
    if a.answer == "loss":
        assert a.line == []
        return
    board.push(a.move)
    after = -_exact(game, board)
    board.pop()
    assert _word(after) == a.answer, (board.to_dict(), a.move)
    assert a.line and a.line[0] == a.move and a.length is not None
    mover = board.turn
    replay = board.copy()
    for m in a.line:
        assert m in replay.legal_moves
        replay.push(m)
    if replay.is_game_over():  # (the line stops early only if the table let an entry go)
        winner = replay.winner()
        assert winner == mover if a.answer == "win" else winner != 3 - mover


def _random_board(game: GameDef[Any], seed: int, plies: int, size: int | None = None) -> Any:
    """The game's start (or deal ``seed``) and ``plies`` seeded random moves that do not
    end it; ``None`` if the game ended anyway."""
    rng = random.Random(seed)
    board = game.new_board(seed, size) if game.new_board is not None else game.sample()
    for _ in range(plies):
        moves = list(board.legal_moves)
        rng.shuffle(moves)
        for m in moves:
            board.push(m)
            if not board.is_game_over():
                break
            board.pop()
        else:
            return None
    return board


def _boards(game: GameDef[Any], plies: int, count: int, size: int | None = None) -> list[Any]:
    out = []
    seed = 0
    while len(out) < count:
        b = _random_board(game, seed, plies, size)
        seed += 1
        if b is not None:
            out.append(b)
    return out


def _balanced(game: GameDef[Any], seed: int, plies: int) -> Any:
    """The game's seeded start and ``plies`` moves, each alpha-beta's at depth 4, or (four
    times in ten) a random one: positions of every result, not only of the tactics random
    play leaves; ``None`` if the game ended first."""
    assert game.new_board is not None and game.search_position is not None
    rng = random.Random(seed)
    board = game.new_board(seed, None)
    ab = _search(game.name)
    while len(board.move_stack) < plies:
        if rng.random() < 0.4:
            m = rng.choice(list(board.legal_moves))
        else:
            ab.clear()
            m = ab.search(*game.search_position(board), Limit(depth=4)).move
        board.push(m)
        if board.is_game_over():
            return None
    return board


@cache
def _c4_boards(plies: int, count: int = 5) -> list[Any]:
    game = _game("connect-four")
    out: list[Any] = []
    seed = 0
    while len(out) < count:
        b = _balanced(game, seed, plies)
        seed += 1
        if b is not None:
            out.append(b)
    return out


@pytest.mark.parametrize("plies", [16, 20, 24, 28])
def test_connect_four_positions_against_the_exact_alpha_beta(plies: int) -> None:
    game = _game("connect-four")
    for board in _c4_boards(plies):
        _check(game, board, _prove(game, board), _exact(game, board))


def test_connect_four_draws_wins_and_losses_all_occur() -> None:
    """The comparisons above are only worth something if every answer occurs in them."""
    game = _game("connect-four")
    seen = {_word(_exact(game, b)) for p in (16, 20, 24, 28) for b in _c4_boards(p)}
    assert seen == {"win", "draw", "loss"}


#: Connect Four: red wins at once in column 1; red's 6 makes two threats at once (every
#: other move loses); after it, yellow loses whatever it plays
C4_WIN_IN_ONE = "121212"
C4_DOUBLE_THREAT = "2535413647776164"


def test_connect_four_forced_lines() -> None:
    game = _game("connect-four")
    assert game.board_from_text is not None
    a = _prove(game, game.board_from_text(C4_WIN_IN_ONE))
    assert (a.answer, a.move, a.line, a.length) == ("win", 0, [0], 1)
    board = game.board_from_text(C4_DOUBLE_THREAT)
    a = _prove(game, board)
    assert a.answer == "win" and board.move_name(a.move) == "6"
    board.push_name("6")
    assert _prove(game, board).answer == "loss"


#: Othello, 12 empties, black to move: h1 wins by 2 discs, each of the nine other moves
#: loses by 8 discs or more (tests/games/test_mcts_engines.py checks it by alpha-beta)
OTHELLO_ONLY_WIN = "XXX-XOX--O--OOOOOOOOXOOO-OXXOOXX-O-OO-XX-OOXOOXXXXXXXOX--XXXXXXO X"


@cache
def _endgame() -> Any:
    from banmen.games.othello.endgame import EndgameSolver

    return EndgameSolver(tt_bits=18)


def _othello_exact(board: Any) -> int:
    """The exact final disc difference for the side to move (Othello's ``perfect``)."""
    solver = _endgame()
    solver.clear()
    p, o = (board.black, board.white) if board.turn == 1 else (board.white, board.black)
    s = solver.solve(p, o)
    assert s.status == "solved" and s.score is not None
    return int(s.score)


def _othello_check(game: GameDef[Any], board: Any) -> ProofAnswer:
    a = _prove(game, board)
    truth = _othello_exact(board)
    assert a.answer == _word(truth), (board.to_string(), truth, a)
    assert a.move is not None and a.move in board.legal_moves
    if a.answer != "loss":
        board.push(a.move)
        assert _word(-_othello_exact(board)) == a.answer
        board.pop()
        replay = board.copy()
        for m in a.line:
            replay.push(m)
        if replay.is_game_over():  # (the line stops early only if the table let one go)
            winner = replay.winner()
            assert winner == board.turn if a.answer == "win" else winner != 3 - board.turn
    return a


@pytest.mark.parametrize("seed", range(8))
def test_othello_positions_against_the_exact_solver(seed: int) -> None:
    from banmen.games.othello import Board

    game = _game("othello")
    rng = random.Random(seed)
    board = Board()
    while board.empties() > 10 + seed % 5 and not board.is_game_over():
        board.push(rng.choice(board.legal_moves))
    if board.is_game_over():
        pytest.skip("the random game ended early")
    _othello_check(game, board)


def test_othello_only_winning_move_and_passes() -> None:
    from banmen.games.othello import PASS, Board

    game = _game("othello")
    a = _othello_check(game, Board.from_string(OTHELLO_ONLY_WIN))
    assert a.answer == "win" and Board.from_string(OTHELLO_ONLY_WIN).move_name(a.move) == "h1"
    # positions where the side to move must pass: the pass is a move like any other
    found = 0
    for seed in range(200):
        rng = random.Random(10_000 + seed)
        b = Board()
        while not b.is_game_over():
            if b.legal_moves == [PASS] and b.empties() <= 14:
                a = _othello_check(game, b)
                assert a.move == PASS
                found += 1
                break
            b.push(rng.choice(b.legal_moves))
        if found == 3:
            break
    assert found == 3


@settings(max_examples=30)
@given(st.integers(0, 10_000), st.integers(0, 8))
def test_mattix_with_points_banked_against_the_exact_alpha_beta(seed: int, plies: int) -> None:
    """Mattix banks every point as a move's gain: the question is the final margin, the
    points banked before the root (``score_offset``) counted in."""
    game = _game("mattix")
    board = _random_board(game, seed, plies, 4)
    if board is None:
        return
    a = _prove(game, board)
    _check(game, board, a, _exact(game, board))


def test_mattix_six_by_six_near_the_end_and_a_draw() -> None:
    game = _game("mattix")
    for board in _boards(game, 22, 3, 6):
        _check(game, board, _prove(game, board), _exact(game, board))
    draws = 0
    for seed in range(60):
        board = _random_board(game, seed, 2, 4)
        if board is not None and _exact(game, board) == 0:
            _check(game, board, _prove(game, board), 0)
            draws += 1
    assert draws > 0


def test_the_same_state_with_other_points_banked_is_another_question() -> None:
    """A position's answer depends on what was banked before it: the same Mattix state
    proved with the margin moved by its whole value flips the answer."""
    game = _game("mattix")
    assert game.search_position is not None and game.kernels is not None
    board = next(b for b in _boards(game, 3, 20, 4) if _exact(game, b) != 0)
    truth = _exact(game, board)
    ctx, state = game.search_position(board)
    rest = truth - int(game.score_offset(board))  # what the rest of the game is worth
    for banked, want in ((-rest, "draw"), (-rest + 1, "win"), (-rest - 1, "loss")):
        assert prove(game.kernels, ctx, state, banked).answer == want


# --------------------------------------------------------------------------- limits


@cache
def _hard() -> tuple[Any, int]:
    """Of the Connect Four positions above that the side to move does not win (so that
    "a win?" is disproved and "at least a draw?" asked), the one whose proofs take the
    most nodes, and its exact value."""
    game = _game("connect-four")
    boards = [b for p in (16, 20, 24, 28) for b in _c4_boards(p) if _exact(game, b) <= 0]
    board = max(boards, key=lambda b: _prove(game, b).nodes)
    return board, _exact(game, board)


@settings(max_examples=25)
@given(st.integers(1, 19_000))
def test_a_node_limit_never_makes_a_false_claim(nodes: int) -> None:
    game = _game("connect-four")
    board, truth = _hard()
    a = _prove(game, board, Limit(nodes=nodes))
    assert a.move is not None and a.move in board.legal_moves
    if a.answer == "unknown":
        assert a.reason == "node_limit" and a.line == [] and a.asked == []
    elif a.answer == "no win":
        assert truth <= 0 and a.reason == "node_limit" and a.asked == ["win"]
    else:
        assert a.answer == _word(truth) and a.reason is None


def test_time_and_stop_requests_give_unknown() -> None:
    game = _game("connect-four")
    board, truth = _hard()
    a = _prove(game, board, Limit(time=0.001))
    assert a.answer in ("unknown", "no win", _word(truth))
    if a.answer != _word(truth):
        assert a.reason == "timeout"
    flag = StopFlag()
    flag.set()
    a = _prove(game, board, stop=flag)
    assert a.answer == "unknown" and a.reason == "stopped" and a.move in board.legal_moves


def test_the_depth_cap_is_a_memory_stop_not_an_answer() -> None:
    """A line deeper than the solver may search (here: a horizon said too short) stops
    it with ``memory``; nothing is claimed."""
    game = _game("connect-four")
    board, _ = _hard()
    a = _prove(game, board, horizon=3)
    assert a.answer == "unknown" and a.reason == "memory"


def test_a_finished_game_is_answered_without_a_move() -> None:
    game = _game("connect-four")
    assert game.board_from_text is not None
    board = game.board_from_text("1212121")
    assert board.is_game_over()
    a = _prove(game, board)
    assert (a.answer, a.move) == ("loss", None)  # the side to move has lost


def test_the_states_keep_each_members_type() -> None:
    st_ = RulesProof.state((1, 2), banked=5, plies=4)
    assert [m.shape for m in st_[0]] == [(5,), (5,)] and st_[1][1] == 5

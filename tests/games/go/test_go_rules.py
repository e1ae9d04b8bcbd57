"""Go rules: vertices, push/pop, ko, suicide, superko, handicap, rules presets, JSON,
scoring (area, territory, seki, dead stones), Benson, playouts, and random games against a
slow reference written here (plain flood fills, the whole history of boards for
superko)."""

from __future__ import annotations

import doctest
import importlib
import json
import random

import numpy as np
import pytest

from banmen.games.go import (
    AGA,
    BLACK,
    CHINESE,
    EMPTY,
    JAPANESE,
    NEW_ZEALAND,
    PASS,
    PRESETS,
    TROMP_TAYLOR,
    WHITE,
    Board,
    Game,
    GoError,
    HandicapError,
    IllegalMoveError,
    InvalidBoardError,
    InvalidMoveError,
    Rules,
    RulesError,
    ScoringError,
    benson,
    estimate_dead,
    handicap_points,
    parse_rules,
    parse_vertex,
    pass_alive,
    vertex_name,
)
from banmen.games.go import kernels as K
from banmen.games.go.estimate import ownership
from banmen.games.go.scoring import result_string

# --------------------------------------------------------------------------- helpers


def diagram(
    text: str, rules: Rules | str = "chinese", turn: int = BLACK, komi: float | None = None
) -> Board:
    """A board from rows of ``X`` (black), ``O`` (white) and ``.``, top row first."""
    rows = [line.replace(" ", "") for line in text.strip().splitlines()]
    n = len(rows)
    board = Board(n, rules, komi)
    black, white = [], []
    for i, row in enumerate(rows):
        assert len(row) == n, row
        for c, ch in enumerate(row):
            p = (n - i) * (n + 2) + c + 1
            if ch == "X":
                black.append(p)
            elif ch == "O":
                white.append(p)
    board.setup(black, white, turn=turn)
    return board


def v(board: Board, name: str) -> int:
    return parse_vertex(name, board.size)


def play(board: Board, *names: str) -> None:
    for name in names:
        board.push(board.parse_move(name))


def state(board: Board) -> tuple[object, ...]:
    pos = board.position
    return (
        pos.board.tobytes(),
        pos.meta.tobytes(),
        tuple(board.move_stack),
        tuple(board.colors),
        json.dumps(board.to_dict()),
    )


# --------------------------------------------------------------------------- the reference

Grid = tuple[int, ...]  # size*size colours, row 0 = the first line (bottom), 0/1/2


def neighbours(i: int, n: int) -> list[int]:
    r, c = divmod(i, n)
    out = []
    if c > 0:
        out.append(i - 1)
    if c < n - 1:
        out.append(i + 1)
    if r > 0:
        out.append(i - n)
    if r < n - 1:
        out.append(i + n)
    return out


def group(grid: Grid | list[int], n: int, i: int) -> tuple[set[int], set[int]]:
    color = grid[i]
    stones, libs, todo = {i}, set(), [i]
    while todo:
        q = todo.pop()
        for r in neighbours(q, n):
            if grid[r] == color and r not in stones:
                stones.add(r)
                todo.append(r)
            elif grid[r] == 0:
                libs.add(r)
    return stones, libs


def place(grid: Grid, n: int, i: int, color: int, suicide_ok: bool) -> tuple[Grid, int] | str:
    """The grid after ``color`` plays ``i`` and the stones captured (negative: own stones
    lost to suicide), or the reason it is illegal ("occupied"/"suicide")."""
    if grid[i]:
        return "occupied"
    g = list(grid)
    g[i] = color
    captured = 0
    for q in neighbours(i, n):
        if g[q] == 3 - color:
            stones, libs = group(g, n, q)
            if not libs:
                captured += len(stones)
                for s in stones:
                    g[s] = 0
    stones, libs = group(g, n, i)
    if not libs:
        if len(stones) == 1 or not suicide_ok:
            return "suicide"
        for s in stones:
            g[s] = 0
        return tuple(g), -len(stones)
    return tuple(g), captured


class RefGame:
    """Positions as grids; ``ko`` is "simple", "positional" or "situational"."""

    def __init__(self, n: int, ko: str, suicide_ok: bool) -> None:
        self.n = n
        self.ko = ko
        self.suicide_ok = suicide_ok
        self.grid: Grid = (0,) * (n * n)
        self.turn = 1
        self.before_last: Grid | None = None  # the grid before the last move
        self.history: list[tuple[Grid, int]] = [(self.grid, self.turn)]
        self.caps = [0, 0]
        self.passes = 0

    def reason(self, i: int) -> str | None:
        res = place(self.grid, self.n, i, self.turn, self.suicide_ok)
        if isinstance(res, str):
            return res
        new, _ = res
        if new == self.before_last:
            return "ko"
        if self.ko == "positional" and any(new == g for g, _ in self.history):
            return "superko"
        if self.ko == "situational" and (new, 3 - self.turn) in self.history:
            return "superko"
        return None

    def legal(self) -> set[int]:
        return {i for i in range(self.n * self.n) if self.reason(i) is None}

    def play(self, i: int | None) -> None:
        """A legal move, or ``None`` to pass."""
        before = self.grid
        if i is None:
            self.passes += 1
        else:
            res = place(self.grid, self.n, i, self.turn, self.suicide_ok)
            assert not isinstance(res, str)
            self.grid, captured = res
            if captured >= 0:
                self.caps[self.turn - 1] += captured
            else:
                self.caps[2 - self.turn] -= captured
            self.passes = 0
        self.before_last = before if i is not None else None
        self.turn = 3 - self.turn
        self.history.append((self.grid, self.turn))


def _ref_index(p: int, n: int) -> int:
    r, c = divmod(p, n + 2)
    return (r - 1) * n + (c - 1)


def _our_point(i: int, n: int) -> int:
    r, c = divmod(i, n)
    return (r + 1) * (n + 2) + c + 1


RULE_VARIANTS = [
    Rules(ko="simple", suicide=False),
    Rules(ko="simple", suicide=True),
    Rules(ko="positional", suicide=True),
    Rules(ko="situational", suicide=False),
    Rules(ko="situational", suicide=True),
]


@pytest.mark.parametrize("rules", RULE_VARIANTS, ids=lambda r: f"{r.ko}-{int(r.suicide)}")
def test_random_games_match_the_reference(rules: Rules) -> None:
    """Legal moves with their reasons, stones and captures agree at every ply of random
    games on small boards (passes are frequent so superko cycles and positional/situational
    differences come up)."""
    seen: dict[str, int] = {}
    for seed in range(40):
        rng = random.Random(seed)
        n = 5 if seed % 2 else 6
        board = Board(n, rules)
        ref = RefGame(n, rules.ko, rules.suicide)
        for _ in range(120):
            if board.is_game_over():
                break
            codes = {i: ref.reason(i) for i in range(n * n)}
            for i, why in codes.items():
                assert board.why_illegal(_our_point(i, n)) == why, (seed, board.ply, i)
                if why is not None:
                    seen[why] = seen.get(why, 0) + 1
            legal = [_our_point(i, n) for i, why in codes.items() if why is None]
            assert board.legal_moves == sorted(legal) + [PASS]
            move = PASS if not legal or rng.random() < 0.15 else rng.choice(legal)
            board.push(move)
            ref.play(None if move == PASS else _ref_index(move, n))
            assert tuple(board.color_at(_our_point(i, n)) for i in range(n * n)) == ref.grid
            assert list(board.prisoners) == ref.caps
    for why in ("occupied", "suicide", "ko"):
        assert seen.get(why, 0) > 0, seen
    if rules.ko != "simple":
        assert seen.get("superko", 0) > 0, seen


def test_incremental_groups_match_a_rebuild() -> None:
    """After every move of random games, the kernel's incremental group data (pseudo-
    liberties, sizes, liberty sums, the empty-point list, the hash) equals a rebuild from
    the stones."""
    for seed in range(6):
        rng = random.Random(seed)
        board = Board(9 if seed % 2 else 13, TROMP_TAYLOR)
        npts = len(board.position.board)
        for _ in range(200):
            legal = board.legal_moves
            if not legal:
                break
            board.push(rng.choice(legal[:-1]) if len(legal) > 1 else PASS)
            pos = board.position
            fresh = pos.copy()
            K.rebuild(fresh.board, fresh.grp, fresh.meta)
            assert pos.meta[K.M_HASH] == fresh.meta[K.M_HASH]
            ne = int(pos.meta[K.M_NEMPTY])
            assert ne == fresh.meta[K.M_NEMPTY]
            el = K.G_ELIST * npts
            assert sorted(pos.grp[el : el + ne]) == sorted(fresh.grp[el : el + ne])
            for p in board.points:
                if pos.board[p] in (BLACK, WHITE):
                    a, b = pos.grp[p], fresh.grp[p]
                    for sec in (K.G_LIBS, K.G_SIZE, K.G_LSUM, K.G_LSUM2):
                        assert pos.grp[sec * npts + a] == fresh.grp[sec * npts + b]
                else:
                    assert pos.grp[K.G_EPOS * npts + p] >= 0


# --------------------------------------------------------------------------- vertices


@pytest.mark.parametrize("size", [5, 9, 13, 19])
def test_vertices_round_trip(size: int) -> None:
    board = Board(size)
    names = [vertex_name(p, size) for p in board.points]
    assert len(set(names)) == size * size
    assert "I1" not in names
    for p, name in zip(board.points, names, strict=True):
        assert parse_vertex(name, size) == p
        assert parse_vertex(name.lower(), size) == p
        assert parse_vertex(f"  {name} ", size) == p
    assert parse_vertex("pass", size) == PASS
    assert parse_vertex("PASS", size) == PASS
    assert vertex_name(PASS, size) == "pass"


def test_vertex_layout() -> None:
    assert parse_vertex("A1", 9) == 1 * 11 + 1
    assert parse_vertex("J9", 9) == 9 * 11 + 9
    assert vertex_name(parse_vertex("T19", 19), 19) == "T19"
    assert [vertex_name(p, 5) for p in Board(5).points[:6]] == ["A1", "B1", "C1", "D1", "E1", "A2"]


@pytest.mark.parametrize(
    ("text", "size", "fragment"),
    [
        ("I5", 9, "there is no column I in Go notation (columns A-J, skipping I)"),
        ("i5", 19, "there is no column I"),
        ("Z9", 9, "column Z is off the 9x9 board (columns A-J, skipping I)"),
        ("K5", 9, "column K is off the 9x9 board"),
        ("F3", 5, "columns A-E"),
        ("A0", 9, "row 0 is off the 9x9 board (rows 1-9)"),
        ("A20", 19, "row 20 is off the 19x19 board (rows 1-19)"),
        ("A10", 9, "row 10 is off the 9x9 board"),
        ("", 9, "expected a column letter (A-J, skipping I) and a row number 1-9"),
        ("D", 9, "like 'D4', or 'pass'"),
        ("4D", 9, "expected a column letter"),
        ("D-4", 9, "expected a column letter"),
        ("resign", 19, "expected a column letter"),
    ],
)
def test_bad_vertices(text: str, size: int, fragment: str) -> None:
    with pytest.raises(InvalidMoveError) as e:
        parse_vertex(text, size)
    msg = str(e.value)
    assert fragment in msg and "\n" not in msg
    assert repr(text.strip()) in msg


def test_bad_move_numbers() -> None:
    board = Board(9)
    for bad in (-1, 1, 11, 200, 1.5, "D4", None, True):
        assert not board.is_legal(bad)  # type: ignore[arg-type]
        with pytest.raises(InvalidMoveError):
            board.push(bad)  # type: ignore[arg-type]
    with pytest.raises(InvalidMoveError):
        board.why_illegal(0.5)  # type: ignore[arg-type]


# --------------------------------------------------------------------------- moves


def test_push_pop_restore_everything() -> None:
    rng = random.Random(7)
    board = Board(9, TROMP_TAYLOR)
    states = [state(board)]
    while not board.is_game_over() and board.ply < 150:
        legal = board.legal_moves
        board.push(rng.choice(legal[:-1]) if len(legal) > 1 else PASS)
        states.append(state(board))
    assert sum(board.prisoners) > 0
    while board.move_stack:
        states.pop()
        copy = board.copy()
        board.pop()
        assert state(board) == states[-1]
        assert copy.ply == board.ply + 1  # copies are independent
    with pytest.raises(IndexError):
        board.pop()


def test_illegal_moves_leave_the_board_unchanged() -> None:
    board = diagram(
        """
        . X O . .
        X O . O .
        . X O . .
        . . . . .
        . . . . .
        """
    )
    play(board, "C4")  # black takes the ko
    before = state(board)
    for name, reason in (("B4", "ko"), ("C4", "occupied"), ("A5", "suicide")):
        with pytest.raises(IllegalMoveError) as e:
            board.push(v(board, name))
        assert e.value.reason == reason
        assert "\n" not in str(e.value) and name in str(e.value)
        assert state(board) == before
        with pytest.raises(IllegalMoveError):
            board.parse_move(name)
        assert state(board) == before


def test_simple_ko_capture_and_retake() -> None:
    board = diagram(
        """
        . X O . .
        X O . O .
        . X O . .
        . . . . .
        . . . . .
        """
    )
    assert board.ko_point is None
    play(board, "C4")  # captures B4
    assert board.prisoners == (1, 0)
    assert board.ko_point == v(board, "B4")
    assert board.why_illegal(v(board, "B4")) == "ko"
    assert v(board, "B4") not in board.legal_moves
    # the ko point binds only the side to move
    assert board.why_illegal(v(board, "B4"), BLACK) is None
    play(board, "E1", "D1")  # threats elsewhere
    assert board.why_illegal(v(board, "B4")) is None
    play(board, "B4")  # white retakes
    assert board.prisoners == (1, 1)
    assert board.ko_point == v(board, "C4")
    assert board.why_illegal(v(board, "C4")) == "ko"
    board.push(PASS)  # a pass ends the ko ban
    assert board.ko_point is None


def test_a_single_capture_by_a_stone_with_liberties_is_no_ko() -> None:
    board = diagram(
        """
        . . . . .
        . . . . .
        . . . . .
        O X O . .
        . O . . .
        """,
        turn=WHITE,
    )
    play(board, "B3")
    assert board.prisoners == (0, 1) and board.ko_point is None
    assert board.why_illegal(v(board, "B2")) == "suicide"


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_suicide_under_each_preset(name: str) -> None:
    rules = PRESETS[name]
    board = diagram(
        """
        . . . O .
        . . . . O
        . . . . .
        O O O . .
        X X . O .
        """,
        rules,
    )
    single = v(board, "E5")
    assert board.why_illegal(single) == "suicide"  # single-stone suicide: never
    multi = v(board, "C1")
    if rules.suicide:
        assert name in ("tromp-taylor", "new-zealand")
        assert board.why_illegal(multi) is None
        board.push(multi)
        assert board.stones(BLACK) == []
        assert board.prisoners == (0, 3)  # white gains the three stones
        assert board.ko_point is None
        board.pop()
        assert len(board.stones(BLACK)) == 2
    else:
        assert name in ("chinese", "japanese", "aga")
        assert board.why_illegal(multi) == "suicide"
        assert multi not in board.legal_moves


def test_a_move_that_captures_is_not_suicide() -> None:
    board = diagram(
        """
        . . . . .
        . . . . .
        . . . . .
        X O . . .
        . X O . .
        """,
        turn=WHITE,
    )
    assert board.why_illegal(v(board, "A1")) is None
    play(board, "A1")  # fills its own last liberty but captures B1 first
    assert board.color_at(v(board, "B1")) == EMPTY
    assert board.prisoners == (0, 1)


# Three kos at once: B takes ko 1, W ko 2, B ko 3, W retakes ko 1, B ko 2, and W's retake
# of ko 3 would bring back the starting board with black to move.
THREE_KOS = """
    . X O . . . . . .
    X O . O . . . . .
    . X O . . . . . .
    . . . . . . X O .
    . . . . . X O . O
    . . . . . . X O .
    . X O . . . . . .
    X . X O . . . . .
    . X O . . . . . .
"""
THREE_KO_CYCLE = ["C8", "B2", "H5", "B8", "C2", "G5"]


@pytest.mark.parametrize("ko", ["simple", "positional", "situational"])
def test_a_cycle_through_three_kos(ko: str) -> None:
    board = diagram(THREE_KOS, Rules(ko=ko))  # type: ignore[arg-type]
    start = board.grid()
    play(board, *THREE_KO_CYCLE[:-1])
    last = v(board, THREE_KO_CYCLE[-1])
    assert board.ko_point != last  # a plain ko recapture, not the simple-ko point
    if ko == "simple":
        assert board.why_illegal(last) is None
        board.push(last)
        assert np.array_equal(board.grid(), start) and board.turn == BLACK
        assert board.prisoners == (3, 3)
        play(board, THREE_KO_CYCLE[0])  # and round again: simple ko allows it forever
    else:
        assert board.why_illegal(last) == "superko"
        assert last not in board.legal_moves
        with pytest.raises(IllegalMoveError, match="superko .it would repeat an earlier"):
            board.push(last)


# Sending two, returning one: B C1 gives two stones, W A1 takes them, B B1 takes one back
# and the board is the starting one with white to move.
SEND_TWO = """
    . . . . . . .
    . . . . . . .
    . . . . . . .
    . X O . . . .
    X X O . . . .
    X O O O . . .
    . X . O . . .
"""


@pytest.mark.parametrize("ko", ["simple", "positional", "situational"])
def test_sending_two_returning_one(ko: str) -> None:
    board = diagram(SEND_TWO, Rules(ko=ko))  # type: ignore[arg-type]
    start = board.grid()
    play(board, "C1", "A1")
    assert board.prisoners == (0, 2)
    back = v(board, "B1")
    if ko == "positional":
        assert board.why_illegal(back) == "superko"
        return
    assert board.why_illegal(back) is None
    play(board, "B1")
    assert np.array_equal(board.grid(), start) and board.turn == WHITE
    board.push(PASS)  # now the starting position exactly, black to move
    again = v(board, "C1")
    if ko == "situational":
        # C1 would give the board after the first C1 with white to move again
        assert board.why_illegal(again) == "superko"
    else:
        assert board.why_illegal(again) is None


def test_situational_superko_distinguishes_the_side_to_move() -> None:
    # The same board with the other side to move is not a repetition under situational
    # superko but is one under positional superko.
    for ko, expected in (("positional", "superko"), ("situational", None)):
        board = diagram(SEND_TWO, Rules(ko=ko))  # type: ignore[arg-type]
        play(board, "C1", "A1")
        assert board.why_illegal(v(board, "B1")) == expected


def test_two_passes_end_the_game_and_resignation() -> None:
    board = Board(9, komi=7.5)
    play(board, "E5", "pass")
    assert not board.is_game_over()
    board.push(PASS)
    assert board.is_game_over() and board.legal_moves == []
    assert not board.is_legal(v(board, "A1"))
    with pytest.raises(IllegalMoveError, match="the game is over") as e:
        board.push(v(board, "A1"))
    assert e.value.reason == "game over"
    assert board.result() == "B+73.5"
    board.pop()
    assert not board.is_game_over() and board.result() == "*"
    game = Game(board)  # the game record holds a resignation
    game.resign()
    assert game.result() == "W+R" and game.is_game_over()
    with pytest.raises(IllegalMoveError):
        game.resign()
    game.pop()  # undoes the resignation with the last move
    assert game.resigned is None
    game.resign(WHITE)
    assert game.result() == "B+R"


def test_moves_out_of_turn() -> None:
    board = Board(9)
    board.push(v(board, "D4"), BLACK)
    board.push(v(board, "E4"), BLACK)  # GTP-style: black again
    assert board.colors == [BLACK, BLACK] and board.turn == WHITE
    board.pop()
    assert board.turn == WHITE and board.colors == [BLACK]
    assert board.why_illegal(v(board, "D4"), "white") == "occupied"


def test_group_and_liberties() -> None:
    board = diagram(
        """
        . . . . .
        . X X . .
        . X O . .
        . . . . .
        . . . . .
        """
    )
    stones, libs = board.group(v(board, "B3"))
    assert [vertex_name(p, 5) for p in stones] == ["B3", "B4", "C4"]
    assert board.liberties(v(board, "B3")) == 6
    assert board.liberties(v(board, "C3")) == 2
    assert board.group(v(board, "A1")) == ([], [])


def test_setup_errors() -> None:
    board = Board(5)
    a1, b1, a2 = v(board, "A1"), v(board, "B1"), v(board, "A2")
    with pytest.raises(InvalidBoardError, match="would have no liberty"):
        board.setup(black=[a1], white=[b1, a2])
    with pytest.raises(InvalidBoardError, match="set up twice"):
        board.setup(black=[a1], white=[a1])
    with pytest.raises(InvalidMoveError):
        board.setup(black=[0])
    board.push(a1)
    with pytest.raises(InvalidBoardError, match="before the first move"):
        board.setup(black=[b1])


@pytest.mark.parametrize("size", [4, 20, 0, "9", 9.0, True])
def test_bad_sizes(size: object) -> None:
    with pytest.raises(InvalidBoardError) as e:
        Board(size)  # type: ignore[arg-type]
    assert "\n" not in str(e.value)


def test_ascii_board() -> None:
    board = Board(9, "japanese")
    play(board, "C3", "G7")
    text = str(board)
    lines = text.splitlines()
    assert lines[0] == "   A B C D E F G H J"
    assert lines[3] == " 7 . . . . . . o . . 7"  # the last move in lower case
    assert lines[7] == " 3 . . X . . . . . . 3"
    assert "black to move" in lines[-1] and "komi 6.5 (japanese)" in lines[-1]
    assert "9x9" in repr(board)


# --------------------------------------------------------------------------- rules


def test_presets_follow_katago() -> None:
    # https://lightvector.github.io/KataGo/rules.html and KataGo's named rule sets
    table = {
        "chinese": ("simple", False, "area", "none", "N", 7.5),
        "japanese": ("simple", False, "territory", "seki", "0", 6.5),
        "tromp-taylor": ("positional", True, "area", "none", "0", 7.5),
        "aga": ("situational", False, "area", "none", "N-1", 7.5),
        "new-zealand": ("situational", True, "area", "none", "0", 7.5),
    }
    for name, row in table.items():
        r = parse_rules(name)
        assert (r.ko, r.suicide, r.scoring, r.tax, r.white_handicap_bonus, r.komi) == row
        assert r.name == name and r.preset_name() == name
        assert parse_rules(r.describe()).same_rules(r)
        assert Rules.from_dict(r.to_dict()) == r
    assert (JAPANESE.handicap, CHINESE.handicap) == ("fixed", "free")
    assert parse_rules("Korean") is JAPANESE
    assert parse_rules("NZ") is NEW_ZEALAND
    assert parse_rules("Tromp_Taylor") is TROMP_TAYLOR
    assert parse_rules(" AGA ") is AGA


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("ing", "unknown rules 'ing': expected one of aga, chinese, japanese, new-zealand, "),
        ("", "unknown rules ''"),
        ("ko=super", "bad ko 'super': expected one of simple, positional, situational"),
        ("ko=simple,colour=red", "bad rules item 'colour=red'"),
        ("suicide=maybe", "bad suicide 'maybe'"),
        ("komi=lots", "bad komi 'lots'"),
        ("komi=nan", "bad komi 'nan'"),
        ("scoring=stones", "bad scoring 'stones'"),
    ],
)
def test_bad_rules(text: str, fragment: str) -> None:
    with pytest.raises(RulesError) as e:
        parse_rules(text)
    assert fragment in str(e.value) and "\n" not in str(e.value)


def test_custom_rules_and_komi() -> None:
    r = parse_rules("ko=positional, scoring=territory, suicide=1, komi=0.5")
    assert (r.ko, r.scoring, r.tax, r.suicide, r.komi, r.name) == (
        "positional",
        "territory",
        "seki",
        True,
        0.5,
        "custom",
    )
    assert r.preset_name() is None
    board = Board(9, "japanese", komi=0)
    assert board.komi == 0.0 and board.rules.name == "japanese"
    with pytest.raises(RulesError):
        Board(9, komi=float("inf"))
    assert CHINESE.handicap_bonus(4) == 4 and AGA.handicap_bonus(4) == 3
    assert JAPANESE.handicap_bonus(4) == 0 and CHINESE.handicap_bonus(1) == 0


# --------------------------------------------------------------------------- handicap


def test_fixed_handicap_layout() -> None:
    names = lambda n, size: sorted(vertex_name(p, size) for p in handicap_points(n, size))  # noqa: E731
    assert names(9, 19) == sorted("D4 K4 Q4 D10 K10 Q10 D16 K16 Q16".split())
    assert names(2, 19) == ["D4", "Q16"]
    assert names(3, 19) == ["D16", "D4", "Q16"]
    assert names(5, 13) == sorted("D4 K4 D10 K10 G7".split())
    assert names(6, 9) == sorted("C3 G3 C5 G5 C7 G7".split())
    assert names(8, 9) == sorted("C3 E3 G3 C5 G5 C7 E7 G7".split())
    assert names(4, 7) == sorted("C3 E3 C5 E5".split())
    assert names(4, 12) == sorted("D4 J4 D9 J9".split())


@pytest.mark.parametrize(
    ("n", "size", "fragment"),
    [
        (2, 5, "fixed handicap is not defined on 5x5: the GTP layout needs 7x7 or larger"),
        (10, 19, "fixed handicap of 10 stones is not defined on 19x19: expected 2 to 9"),
        (5, 8, "fixed handicap of 5 stones is not defined on 8x8: expected 2 to 4"),
        (5, 7, "expected 2 to 4"),
        (1, 19, "expected 2 to 9"),
        (0, 9, "expected 2 to 9"),
    ],
)
def test_bad_fixed_handicaps(n: int, size: int, fragment: str) -> None:
    with pytest.raises(HandicapError) as e:
        Board(size).fixed_handicap(n)
    assert fragment in str(e.value) and "\n" not in str(e.value)


def test_handicap_placement_and_bonus() -> None:
    board = Board(9, "chinese", komi=0.5)
    pts = board.fixed_handicap(4)
    assert board.stones(BLACK) == sorted(pts) and board.turn == WHITE
    assert board.handicap == 4 and board.ply == 0
    with pytest.raises(HandicapError, match="empty board"):
        board.fixed_handicap(2)
    board.push(PASS)
    board.push(PASS)
    s = board.score()
    assert (s.black, s.white, s.handicap_bonus) == (81.0, 4.5, 4)
    aga = Board(9, "aga", komi=0.5)
    aga.set_free_handicap([v(aga, "A1"), v(aga, "B2"), v(aga, "C3")])
    assert aga.score().handicap_bonus == 2 and aga.handicap == 3
    for bad, fragment in (
        ([v(aga, "A1")], "expected 2 to 80"),
        ([v(aga, "A1"), v(aga, "A1")], "listed twice"),
        ([v(aga, "A1"), 0], "not a point"),
    ):
        with pytest.raises(HandicapError, match=fragment):
            Board(9).set_free_handicap(bad)


# --------------------------------------------------------------------------- JSON


def test_json_round_trip() -> None:
    rng = random.Random(3)
    board = Board(9, "ko=situational,scoring=territory,suicide=1", komi=3.5)
    board.fixed_handicap(2)
    while board.ply < 60:
        legal = board.legal_moves
        board.push(rng.choice(legal[:-1]))
    board.push(v(board, "A1") if board.is_legal(v(board, "A1")) else PASS, board.turn)
    back = Board.from_json(board.to_json())
    assert back == board and back.move_stack == board.move_stack and back.colors == board.colors
    assert back.rules == board.rules and back.handicap == 2 and back.prisoners == board.prisoners
    d = board.to_dict()
    assert d["game"] == "go" and d["size"] == 9 and d["komi"] == 3.5
    assert d["setup"]["turn"] == "white" and len(d["board"]) == 9
    game = Game(board)
    game.resign()
    assert Game.from_dict(game.to_dict()).result() in ("B+R", "W+R")
    plain = Board.from_dict({"size": 9, "moves": ["D4", "pass", "E5"]})
    assert [plain.move_name(m) for m in plain.move_stack] == ["D4", "pass", "E5"]


@pytest.mark.parametrize(
    ("record", "fragment"),
    [
        ("[]", "must be a JSON object"),
        ('{"game": "chess"}', "not 'go'"),
        ('{"size": 30}', "board size 30 is not supported"),
        ('{"rules": "ing"}', "unknown rules 'ing'"),
        (
            '{"moves": ["D4", "D4"]}',
            "move 2 ('D4'): D4 is illegal for white: the point is occupied",
        ),
        ('{"moves": ["Z4"]}', "move 1 ('Z4'): bad vertex 'Z4'"),
        ('{"moves": [7]}', "is not a move"),
        ('{"setup": {"black": "A1"}}', "setup 'black' must be a list"),
        ('{"handicap": -1}', "'handicap' must be a count"),
        ("{", "not valid JSON"),
    ],
)
def test_bad_json(record: str, fragment: str) -> None:
    with pytest.raises(InvalidBoardError) as e:
        Board.from_json(record)
    assert fragment in str(e.value) and "\n" not in str(e.value)


# --------------------------------------------------------------------------- scoring

WALLS = """
    . . . X O . . . .
    . . . X O . . . .
    . . . X O . . . .
    . O . X O . . . .
    . . . X O . . . .
    . . . X O . . X .
    . . . X O . . . .
    . . . X O . . . .
    . . . X O . . . .
"""


def test_area_and_territory_with_dead_stones() -> None:
    area = diagram(WALLS, "chinese")
    dead = [v(area, "B6"), v(area, "H4")]
    s = area.score(dead)
    # black: 9 stones + 27 points (B6 is black's once removed); white: 9 + 36 + 7.5
    assert (s.black, s.white, s.result) == (36.0, 52.5, "W+16.5")
    assert s.dead == frozenset(dead) and len(s.black_territory) == 27 and not s.dame
    terr = diagram(WALLS, "japanese")
    s = terr.score(dead)
    # black: 27 points + 1 prisoner; white: 36 + 1 + 6.5
    assert (s.black, s.white, s.result) == (28.0, 43.5, "W+15.5")
    assert s.prisoners == (1, 1)
    # without dead stones the lone stones spoil the regions they sit in
    s = terr.score()
    assert len(s.black_territory) == 0 and len(s.white_territory) == 0


def test_territory_counts_captures_and_area_does_not() -> None:
    # white fills four points of its area to capture H4: area scoring does not mind,
    # territory scoring counts the prisoner and not the filled points
    for rules, expected in (("chinese", (36.0, 52.5)), ("japanese", (27.0, 39.5))):
        board = diagram(WALLS.replace(". O . X", ". . . X"), rules, turn=WHITE)
        for name in ("H5", "pass", "H3", "pass", "J4", "pass", "G4", "pass", "pass"):
            board.push(board.parse_move(name))
        s = board.score()
        assert (s.black, s.white) == expected, rules
        assert board.prisoners == (0, 1)


SEKI = """
    . . O X . . . . .
    . . O X . . . . .
    . . O X . . . . .
    . . O X . . . . .
    . . O X . . . . .
    . . O X . . . . .
    O O O X X X X . .
    X X X O O O X . .
    . X . O . O X . .
"""


def test_seki_eyes_count_under_area_but_not_territory() -> None:
    area = diagram(SEKI, "chinese", komi=0)
    s = area.score()
    assert (s.black, s.white) == (53.0, 27.0) and s.dame == {v(area, "C1")}
    assert not s.seki  # tax "none": no seki analysis needed
    terr = diagram(SEKI, "japanese", komi=0)
    s = terr.score()
    assert (s.black, s.white, s.result) == (36.0, 12.0, "B+24")
    names = lambda pts: sorted(vertex_name(p, 9) for p in pts)  # noqa: E731
    assert names(s.seki) == ["A2", "B1", "B2", "C2", "D1", "D2", "E2", "F1", "F2"]
    assert names(s.dame) == ["A1", "C1", "E1"]
    # the same shape counted with the seki tax under area scoring
    taxed = diagram(SEKI, "ko=simple,scoring=area,tax=seki,komi=0")
    assert taxed.score().black == 52.0


def test_plain_dame_is_not_seki() -> None:
    board = diagram(
        """
        . X . O .
        . X . O .
        . X . O .
        . X . O .
        . X . O .
        """,
        "japanese",
        komi=0,
    )
    s = board.score()
    assert (s.black, s.white, len(s.dame), s.seki) == (5.0, 5.0, 5, frozenset())
    assert s.result == "0" and s.winner is None


def test_result_strings() -> None:
    assert [result_string(x) for x in (3.5, -0.5, 0, 12.0)] == ["B+3.5", "W+0.5", "0", "B+12"]


def test_dead_stone_errors() -> None:
    board = diagram(WALLS, "japanese")
    with pytest.raises(ScoringError, match="no stone on A1 to mark dead"):
        board.score([v(board, "A1")])
    with pytest.raises(ScoringError, match="is not a point"):
        board.score(["B6"])  # type: ignore[list-item]
    alive = diagram(
        """
        . . . . .
        . . . . .
        X X X X X
        X . X . X
        . X . X .
        """
    )
    with pytest.raises(ScoringError, match="pass-alive: they cannot be dead"):
        alive.score([v(alive, "C3")])


def test_marking_one_stone_marks_its_chain() -> None:
    board = diagram(WALLS.replace(". O . X", "O O . X"), "japanese")
    s = board.score([v(board, "A6")])
    assert s.dead == {v(board, "A6"), v(board, "B6")}


# --------------------------------------------------------------------------- Benson


def test_benson_two_eyes() -> None:
    board = diagram(
        """
        . . . . .
        . . . . .
        X X X X X
        X . X . X
        . X . X .
        """
    )
    stones, territory = pass_alive(board, BLACK)
    assert len(stones) == 10
    assert sorted(vertex_name(p, 5) for p in territory) == ["A1", "B2", "C1", "D2", "E1"]
    assert pass_alive(board, WHITE) == (frozenset(), frozenset())


def test_benson_one_eye_is_not_enough() -> None:
    board = diagram(
        """
        . . . . .
        . . . . .
        X X X X X
        X X X . X
        X X X X X
        """
    )
    assert pass_alive(board, BLACK) == (frozenset(), frozenset())


def test_benson_dead_stones_inside_pass_alive_territory() -> None:
    board = diagram(
        """
        . . . . . . .
        . . . . . . .
        X X X X X X X
        X . . X . . X
        X . O X . . X
        X X X X X X X
        . . . . . . .
        """
    )
    stones, territory = pass_alive(board, BLACK)
    assert len(stones) == 20
    assert v(board, "C3") in territory and v(board, "B4") in territory
    assert v(board, "A7") not in territory  # the open areas are not enclosed
    assert benson(board.grid().tolist(), 7, WHITE) == (frozenset(), frozenset())


def test_benson_region_with_a_point_away_from_the_chain() -> None:
    # a 3x3 hole: its centre is no liberty, so the hole is not vital
    board = diagram(
        """
        X X X X X .
        X . . . X .
        X . . . X .
        X . . . X .
        X X X X X .
        . . . . . .
        """
    )
    assert pass_alive(board, BLACK) == (frozenset(), frozenset())


# --------------------------------------------------------------------------- playouts


def test_random_playout_speed_and_sanity() -> None:
    board = Board(9)
    pos = board.position.copy()
    pos.meta[K.M_RNG] = 12345
    score = K.random_playout(pos.board, pos.grp, pos.meta, 1000)
    assert pos.meta[K.M_PASSES] >= 2 and 60 < pos.meta[K.M_PLY] < 400
    assert abs(score) <= 81
    # every empty point left is an eye of one side (or a shared point)
    for p in board.points:
        if pos.board[p] == EMPTY:
            near = {pos.board[q] for q in (p - 1, p + 1, p - 11, p + 11)} - {K.BORDER}
            assert near, p
    assert K.playout_score(pos.board, pos.meta) == score


def test_run_playouts_is_deterministic_and_leaves_the_position() -> None:
    board = Board(9)
    play(board, "E5", "C3")
    pos = board.position
    before = state(board)
    results = []
    for _ in range(2):
        scores = np.zeros(50, dtype=np.int64)
        own = np.zeros(len(pos.board), dtype=np.int64)
        K.run_playouts(pos.board, pos.grp, pos.meta, 50, 9, 400, scores, own)
        results.append((scores.copy(), own.copy()))
    assert state(board) == before
    assert np.array_equal(results[0][0], results[1][0])
    assert np.array_equal(results[0][1], results[1][1])
    assert len(set(results[0][0].tolist())) > 5  # the playouts differ from each other
    assert np.abs(results[0][1]).max() <= 50


END = """
    X . X X O O . O .
    . X X X O . O O O
    X X . X O O O . O
    X O X X O O O O O
    X . X X O O . O O
    X X X X O O O X O
    . X . X O . O . O
    X X X X O O O O O
    X . X X O . O O .
"""


def test_ownership_and_dead_stone_estimate() -> None:
    board = diagram(END, "japanese")
    own = ownership(board, 128, seed=1)
    assert all(-1.0 <= x <= 1.0 for x in own.values())
    assert own[v(board, "A9")] > 0.9 and own[v(board, "J1")] < -0.9
    dead = estimate_dead(board, 128, seed=1)
    assert dead == {v(board, "B6"), v(board, "H4")}
    s = board.score(dead)
    assert (s.black, s.white, s.result) == (9.0, 17.5, "W+8.5")
    assert board.copy().score(dead) == s
    alive = diagram(
        """
        . . . . .
        . . . . .
        X X X X X
        X . X . X
        . X . X .
        """,
        turn=WHITE,
    )
    assert estimate_dead(alive, 64) == frozenset()  # pass-alive stones are never dead


def test_stones_in_pass_alive_territory_are_dead() -> None:
    board = diagram(
        """
        . . . . . . .
        . . . . . . .
        X X X X X X X
        X . . X . . X
        X . O X . . X
        X X X X X X X
        . . . . . . .
        """
    )
    assert estimate_dead(board, 1) == {v(board, "C3")}


# --------------------------------------------------------------------------- docs


@pytest.mark.parametrize("module", ["rules", "board", "scoring", "game", "formats"])
def test_module_doctests(module: str) -> None:
    result = doctest.testmod(importlib.import_module(f"banmen.games.go.{module}"))
    assert result.attempted > 0 and result.failed == 0


def test_errors_are_value_errors() -> None:
    for cls in (RulesError, InvalidBoardError, InvalidMoveError, IllegalMoveError, HandicapError):
        assert issubclass(cls, GoError) and issubclass(cls, ValueError)


def test_gen_moves_matches_the_board() -> None:
    rng = random.Random(5)
    board = Board(9, JAPANESE)
    out = np.zeros(81, dtype=np.int64)
    for _ in range(80):
        pos = board.position
        n = K.gen_moves(pos.board, pos.grp, pos.meta, board.turn, False, out)
        assert out[:n].tolist() == board.legal_moves[:-1]
        board.push(rng.choice(board.legal_moves[:-1]))


def test_zobrist_keys() -> None:
    a = Board(9)
    play(a, "D4", "E5", "F6")
    b = Board(9)
    play(b, "F6", "E5", "D4")
    assert a.zobrist() == b.zobrist() and a == b
    b.push(PASS)
    assert a.zobrist() == b.zobrist() and a.zobrist(True) != b.zobrist(True)
    assert a != b  # the side to move differs

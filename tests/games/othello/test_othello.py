"""Othello: perft, flips against a slow reference, notation round trips, the exact solver
against plain minimax, FFO #40, the engine, NBoard, the CLI, bad input."""

from __future__ import annotations

import csv
import io
import json
import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numba import njit
from typer.testing import CliRunner

from banmen.cli import app
from banmen.games.othello import (
    BLACK,
    PASS,
    WHITE,
    Board,
    IllegalMoveError,
    InvalidBoardError,
    InvalidMoveError,
    square_name,
)
from banmen.games.othello.endgame import EndgameSolver
from banmen.games.othello.formats import parse_ggf
from banmen.games.othello.kernels import U, flips, moves, perft
from banmen.games.registry import make_engine
from banmen.protocols.nboard import NBoardSession

runner = CliRunner()


def _perft_table() -> tuple[dict[int, int], dict[int, int]]:
    """Bik's "Perft for Reversi" (OEIS A124004) and the pass-free variant (Egaroucid's
    perft mode 2), from the reference data shipped with banmen."""
    import banmen.bench

    path = Path(banmen.bench.__file__).parent / "data" / "othello" / "perft.csv"
    with path.open(newline="") as fh:
        rows = list(csv.DictReader(fh))
    return (
        {int(r["depth"]): int(r["leaves_pass_counts_as_ply"]) for r in rows},
        {int(r["depth"]): int(r["leaves_pass_free"]) for r in rows if r["leaves_pass_free"]},
    )


PERFT, PERFT_PASS_FREE = _perft_table()
# FFO #40 (fforum-40-59): black to move, 20 empties, best a2 for +38.
FFO40 = "O--OOOOX-OOOOOOXOOXXOOOXOOXOOOXXOOOOOOXX---OOOOX----O--X-------- X"


# --------------------------------------------------------------------------- rules


@pytest.mark.parametrize("depth", range(1, 10))
def test_perft(depth: int) -> None:
    b = Board()
    leaves, made = perft(U(b.black), U(b.white), depth, False, False)
    assert int(leaves) == PERFT[depth]
    # No game ends before ply 9 and none needs a pass that early: every node but the
    # root is a move made.
    assert int(made) == sum(PERFT[d] for d in range(1, depth + 1))
    leaves, _ = perft(U(b.black), U(b.white), depth, False, True)
    assert int(leaves) == PERFT_PASS_FREE[depth]


@pytest.mark.parametrize("pass_free", [False, True])
def test_bulk_perft_counts_what_making_every_move_counts(pass_free: bool) -> None:
    """Counting the last ply from the move mask gives the leaves of making every move,
    past the first passes (depth 10: 24,571,284 and 24,571,420, from the perft table)."""
    from banmen.games.othello.kernels import perft_bulk

    b = Board()
    table = PERFT_PASS_FREE if pass_free else PERFT
    for depth in range(1, 10):
        assert int(perft_bulk(U(b.black), U(b.white), depth, False, pass_free)) == table[depth]
    want = 24_571_420 if pass_free else 24_571_284
    assert int(perft_bulk(U(b.black), U(b.white), 10, False, pass_free)) == want
    # a position where passes and finished games come before the last ply
    p = Board.from_string(FFO40)
    mover, other = U(p.black), U(p.white)
    for depth in range(1, 7):
        made, _ = perft(mover, other, depth, False, pass_free)
        assert int(perft_bulk(mover, other, depth, False, pass_free)) == int(made)


def _slow_flips(black: int, white: int, turn: int, sq: int) -> int:
    """Discs a move turns over, walking the eight directions on a 2-D grid."""
    me, them = (black, white) if turn == BLACK else (white, black)
    if (black | white) >> sq & 1:
        return 0
    r0, c0 = divmod(sq, 8)
    out = 0
    for dr, dc in ((-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)):
        r, c = r0 + dr, c0 + dc
        run = 0
        while 0 <= r < 8 and 0 <= c < 8 and them >> (r * 8 + c) & 1:
            run |= 1 << (r * 8 + c)
            r, c = r + dr, c + dc
        if run and 0 <= r < 8 and 0 <= c < 8 and me >> (r * 8 + c) & 1:
            out |= run
    return out


@st.composite
def positions(draw: st.DrawFn) -> Board:
    """A position reached by random legal moves from the start."""
    b = Board()
    for _ in range(draw(st.integers(0, 60))):
        legal = b.legal_moves
        if not legal:
            break
        b.push(draw(st.sampled_from(legal)))
    return b


@settings(max_examples=150)
@given(positions())
def test_moves_and_flips_match_a_slow_reference(b: Board) -> None:
    slow = {sq: _slow_flips(b.black, b.white, b.turn, sq) for sq in range(64)}
    legal = [sq for sq, f in slow.items() if f]
    me, them = (b.black, b.white) if b.turn == BLACK else (b.white, b.black)
    assert int(moves(U(me), U(them))) == sum(1 << sq for sq in legal)
    for sq in legal:
        assert int(flips(U(me), U(them), sq)) == slow[sq]
        assert b.flips(sq) == slow[sq]
    assert b.flip_counts() == {sq: slow[sq].bit_count() for sq in legal}
    if legal:
        assert b.legal_moves == legal
    elif not b.is_game_over():
        assert b.legal_moves == [PASS]


@given(positions())
def test_push_pop_and_notation_round_trips(b: Board) -> None:
    assert Board.from_string(b.to_string()) == b
    again = Board.from_transcript(b.transcript())
    forced = b.copy()
    if forced.legal_moves == [PASS]:
        forced.push(PASS)  # a transcript's position is after any forced pass
    assert again == forced and again.transcript() == b.transcript()
    assert Board.from_json(b.to_json()) == b
    assert Board.from_ggf(parse_ggf(b.to_ggf())) == b
    before = (b.black, b.white, b.turn, list(b.move_stack))
    if b.legal_moves:
        b.push(b.legal_moves[0])
        b.pop()
    assert (b.black, b.white, b.turn, b.move_stack) == before


def test_start_and_a_known_line() -> None:
    b = Board()
    assert b.discs() == (2, 2) and b.turn == BLACK
    assert [square_name(m) for m in b.legal_moves] == ["d3", "c4", "f5", "e6"]
    b.push_name("f5")
    assert b.discs() == (4, 1) and b.turn == WHITE
    assert b.to_string()[:64].count("X") == 4


def test_passes_are_moves_and_transcripts_leave_them_out() -> None:
    # A shortest game: nine moves, and white has no disc left (found by search).
    b = Board.from_transcript("d3c3b3d2e1d6d7e3f4")
    assert b.is_game_over() and b.discs() == (13, 0) and b.result() == "1-0"
    assert b.final_margin(BLACK) == 64 and b.legal_moves == []
    # White (one disc on g8) cannot move; black can take h8 by flanking it.
    p = Board.from_string("X" * 62 + "O-" + " O")
    assert p.legal_moves == [PASS]
    p.push(PASS)
    assert p.turn == BLACK and p.legal_moves == [63]


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("", "board string has 0 characters"),
        ("X" * 64, "board string has 64 characters"),
        ("Q" + "-" * 63 + " X", "bad square 'Q' at a1"),
        ("-" * 64 + " Z", "side to move must be X (black) or O (white)"),
    ],
)
def test_bad_board_strings(text: str, fragment: str) -> None:
    with pytest.raises(InvalidBoardError) as e:
        Board.from_string(text)
    assert fragment in str(e.value) and "\n" not in str(e.value)


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("f5d6c3z9", "move 4 ('z9') of the transcript: bad move 'z9'"),
        ("f5f5", "move 2 ('f5') of the transcript: f5 is not legal for white (occupied)"),
        ("a1", "move 1 ('a1') of the transcript: a1 is not legal for black"),
        ("f5d", "move 2 ('d') of the transcript"),
    ],
)
def test_bad_transcripts(text: str, fragment: str) -> None:
    with pytest.raises(InvalidBoardError) as e:
        Board.from_transcript(text)
    assert fragment in str(e.value) and "\n" not in str(e.value)


def test_illegal_moves_leave_the_board_unchanged() -> None:
    b = Board()
    before = b.to_string()
    cases = [("a1", IllegalMoveError), ("pass", IllegalMoveError), ("i9", InvalidMoveError),
             ("", InvalidMoveError)]  # fmt: skip
    for text, exc in cases:
        with pytest.raises(exc):
            b.push_name(text)
        assert b.to_string() == before and b.move_stack == []


def test_ggf_reading() -> None:
    text = (
        "(;GM[Othello]PC[NBoard]DT[2014-02-21]PB[a]PW[b]RE[?]TI[15:00]TY[8]BO[8 "
        "---------------------------O*------*O--------------------------- *]"
        "B[F5]W[F6]B[D3]W[C5]B[E6//1.2]W[F7/-0.5/3.1]B[E7]W[F4];)"
    )
    game = parse_ggf(text)
    assert game.tags["PB"] == "a" and Board.from_ggf(game).transcript() == "f5f6d3c5e6f7e7f4"
    with pytest.raises(InvalidBoardError, match="not Othello"):
        parse_ggf("(;GM[Chess];)")
    with pytest.raises(InvalidBoardError, match="GGF move 2"):
        Board.from_ggf("(;GM[Othello]B[F5]W[A1];)")


# --------------------------------------------------------------------------- the solver


@njit(cache=True)
def _minimax(P, O, passed, keys, vals):  # type: ignore[no-untyped-def]  # noqa: N803
    """Plain negamax to the end of the game, no pruning, with a memo of exact values
    (transpositions make 12-empties trees small enough): the reference for the solver."""
    h = P * U(0x9E3779B97F4A7C15) + O * U(0xC2B2AE3D27D4EB4F) + U(passed)
    h ^= h >> U(31)
    h *= U(0xBF58476D1CE4E5B9)
    h ^= h >> U(29)
    i = np.int64(h & U(keys.shape[0] - 1))
    while keys[i, 0] != U(0) or keys[i, 1] != U(0):
        if keys[i, 0] == P and keys[i, 1] == O and vals[i, 1] == passed:
            return vals[i, 0]
        i = (i + 1) & (keys.shape[0] - 1)
    mv = moves(P, O)
    if mv == U(0):
        if passed:
            p = np.int64(0)
            o = np.int64(0)
            for k in range(64):
                p += np.int64((P >> U(k)) & U(1))
                o += np.int64((O >> U(k)) & U(1))
            d = p - o
            e = 64 - p - o
            best = d + e if d > 0 else (d - e if d < 0 else d)
        else:
            best = -_minimax(O, P, passed + 1, keys, vals)
    else:
        best = np.int64(-1000)
        for sq in range(64):
            if (mv >> U(sq)) & U(1):
                f = flips(P, O, sq)
                v = -_minimax(O ^ f, P ^ f ^ (U(1) << U(sq)), passed * 0, keys, vals)
                if v > best:
                    best = v
    # (re-probe: the recursion may have filled slots since the first probe)
    i = np.int64(h & U(keys.shape[0] - 1))
    while keys[i, 0] != U(0) or keys[i, 1] != U(0):
        i = (i + 1) & (keys.shape[0] - 1)
    keys[i, 0] = P
    keys[i, 1] = O
    vals[i, 0] = best
    vals[i, 1] = passed
    return best


class Memo:
    """The reference's table of exact values; share it between a position and its
    children (the children's values are in it once the parent is solved)."""

    def __init__(self, bits: int = 23) -> None:
        self.keys = np.zeros((1 << bits, 2), dtype=np.uint64)
        self.vals = np.zeros((1 << bits, 2), dtype=np.int64)

    def value(self, p: int, o: int, passed: bool = False) -> int:
        v = int(_minimax(U(p), U(o), np.int64(passed), self.keys, self.vals))
        used = int(np.count_nonzero(self.keys.any(axis=1)))
        assert used < 0.7 * len(self.keys), "reference table too full: use a bigger one"
        return v


def _random_position(rng: random.Random, empties: int) -> Board:
    while True:
        b = Board()
        while b.empties() > empties and not b.is_game_over():
            b.push(rng.choice(b.legal_moves))
        if not b.is_game_over():
            return b


@pytest.fixture(scope="module")
def solver() -> EndgameSolver:
    return EndgameSolver(tt_bits=18)


@pytest.mark.slow
def test_solver_matches_minimax_on_random_endgames(solver: EndgameSolver) -> None:
    rng = random.Random(7)
    for empties in [1, 2, 3, 4, 5, 6, 7, 8, 9, 10] * 3 + [11, 12]:
        b = _random_position(rng, empties)
        p, o = (b.black, b.white) if b.turn == BLACK else (b.white, b.black)
        memo = Memo()
        expected = memo.value(p, o)
        sol = solver.solve(p, o, all_best=True)
        assert sol.status == "solved" and sol.score == expected, b.to_string()
        # Every listed best move reaches the score; no other move does.
        for sq in b.legal_moves:
            child = b.copy()
            child.push(sq)
            cp, co = ((child.black, child.white) if child.turn == BLACK
                      else (child.white, child.black))  # fmt: skip
            v = -memo.value(cp, co, sq == PASS)
            assert (v == expected) == (sq in sol.best_moves), (b.to_string(), sq)


def test_ffo_40(solver: EndgameSolver) -> None:
    b = Board.from_string(FFO40)
    sol = solver.solve(b.black, b.white, all_best=True)
    assert sol.status == "solved" and sol.score == 38
    assert [square_name(m) for m in sol.best_moves] == ["a2"]


@pytest.mark.slow
def test_the_learned_order_changes_the_work_not_the_values() -> None:
    """From 14 empties up the evaluation orders the solver's moves (from 18 up after a
    shallow search). Any order must give the same exact values: the shipped weights, none,
    and a table of noise; on FFO #40 the shipped weights need fewer nodes than mobility
    alone, and the noise far more (so the order is really in use)."""
    from banmen.games.othello.patterns import N_FEATURES, PHASES, Weights

    noise = np.random.default_rng(3).integers(-3000, 3000, (PHASES, N_FEATURES))
    solvers = {
        "mobility": EndgameSolver(tt_bits=18, eval_order=False),
        "learned": EndgameSolver(tt_bits=18),
        "noise": EndgameSolver(tt_bits=18, weights=Weights(noise.astype(np.int32))),
    }
    rng = random.Random(11)
    for empties in [15, 16, 17, 18, 18]:
        b = _random_position(rng, empties)
        p, o = (b.black, b.white) if b.turn == BLACK else (b.white, b.black)
        scores = set()
        for s in solvers.values():
            s.clear()
            sol = s.solve(p, o)
            assert sol.status == "solved", b.to_string()
            scores.add(sol.score)
        assert len(scores) == 1, (b.to_string(), scores)
    b = Board.from_string(FFO40)
    nodes = {}
    for name, s in solvers.items():
        s.clear()
        sol = s.solve(b.black, b.white)
        assert sol.score == 38 and [square_name(m) for m in sol.best_moves] == ["a2"], name
        nodes[name] = sol.nodes
    assert nodes["learned"] < nodes["mobility"] < nodes["noise"], nodes


@njit(cache=True)
def _always_theirs(P, O, p_moves):  # type: ignore[no-untyped-def]  # noqa: N803
    """The discs of one side (P's when ``p_moves`` is 1, else O's) that are still theirs in
    every position legal play can reach from here, passes included: brute force."""
    mine = P if p_moves else O
    mv = moves(P, O)
    if mv == U(0):
        if moves(O, P) == U(0):
            return mine
        return mine & _always_theirs(O, P, 1 - p_moves)
    out = mine
    for sq in range(64):
        if (mv >> U(sq)) & U(1):
            f = flips(P, O, sq)
            out &= _always_theirs(O ^ f, P ^ f ^ (U(1) << U(sq)), 1 - p_moves)
    return out


def test_stable_discs_never_flip() -> None:
    """What the solver's stability cut-off counts as stable (:func:`stable_full`) is never
    flipped by any line of play to the end, for either side; it contains the cheaper
    :func:`stable_discs`, and finds more of them in many positions (so the edge table and
    the growth from stable neighbours are really checked here)."""
    from banmen.games.othello.endgame import stable_discs, stable_full

    rng = random.Random(5)
    more = 0
    positions = 0
    for empties in [8, 9, 10] * 40:
        b = _random_position(rng, empties)
        P, O = (U(b.black), U(b.white)) if b.turn == BLACK else (U(b.white), U(b.black))
        for me, them, to_move in ((P, O, 1), (O, P, 0)):
            st = stable_full(me, them)
            cheap = stable_discs(me, them)
            kept = _always_theirs(P, O, np.int64(to_move))
            assert st & ~kept == U(0), (b.to_string(), to_move, hex(st & ~kept))
            assert cheap & ~st == U(0), b.to_string()
            more += st != cheap
            positions += 1
    assert more > positions // 4, (more, positions)


def _lopsided_position(rng: random.Random, empties: int) -> Board:
    """A position from a game where one side grabs the most discs each move and the other
    plays at random: scores near a wipe-out, for the solver's hunting."""
    while True:
        b = Board()
        greedy = rng.choice((BLACK, WHITE))
        while b.empties() > empties and not b.is_game_over():
            ms = b.legal_moves
            if b.turn == greedy and ms != [PASS]:
                own = b.black if b.turn == BLACK else b.white
                other = b.white if b.turn == BLACK else b.black
                b.push(max(ms, key=lambda m: int(flips(U(own), U(other), m)).bit_count()))
            else:
                b.push(rng.choice(ms))
        if not b.is_game_over():
            return b


@pytest.mark.slow
def test_solver_is_exact_near_wipe_outs(solver: EndgameSolver) -> None:
    """Where the winner takes (nearly) everything, the windows the solver tests ask for
    more discs than the opponent holds, and it hunts (``HUNT_MARGIN``: another move
    order): the values still equal the reference's."""
    from banmen.games.othello.endgame import HUNT_MARGIN

    rng = random.Random(13)
    hunted = 0
    for _ in range(60):
        b = _lopsided_position(rng, rng.choice((9, 10, 11, 12)))
        p, o = (b.black, b.white) if b.turn == BLACK else (b.white, b.black)
        expected = Memo().value(p, o)
        solver.clear()
        sol = solver.solve(p, o)
        assert sol.status == "solved" and sol.score == expected, b.to_string()
        # the last window tested reached the hunting range at the root
        hunted += expected - 2 >= 64 - 2 * int(o).bit_count() + HUNT_MARGIN
    assert hunted >= 10, hunted


def test_ffo_59_a_wipe_out_is_found_soon() -> None:
    """FFO #59 (34 empties): e8, g8 and h4 take all 64 discs. Ordered by the learned
    evaluation, and with the table's move of a lower window first, the solver did not
    finish in 1.6 G nodes; hunting by mobility proves it in about 3.5 M."""
    from banmen.bench.othello import ffo_positions

    pos = ffo_positions()[59]
    b = Board.from_string(pos["board"])
    s = EndgameSolver(tt_bits=20)
    sol = s.solve(b.black if b.turn == BLACK else b.white,
                  b.white if b.turn == BLACK else b.black, node_limit=40_000_000)  # fmt: skip
    assert sol.status == "solved" and sol.score == 64 == pos["score"], sol
    assert square_name(sol.best_moves[0]) in pos["moves"]


def test_a_time_limit_is_not_a_result(solver: EndgameSolver) -> None:
    b = Board.from_transcript("f5d6c3d3c4f4f6f3e6e7d7c5b6")  # 47 empties: hopeless
    sol = solver.solve(b.black if b.turn == BLACK else b.white,
                       b.white if b.turn == BLACK else b.black, time_limit=0.2)  # fmt: skip
    assert sol.status == "unknown" and sol.score is None and sol.stopped_by == "time"


# --------------------------------------------------------------------------- engine, NBoard, CLI


def test_engine_plays_legal_moves_and_is_exact_at_the_end() -> None:
    engine = make_engine("othello", "alphabeta:depth=2")
    rng = random.Random(3)
    b = Board()
    while not b.is_game_over():
        r = engine.think(b)
        assert r.move is not None and b.parse_move(r.move) in b.legal_moves
        b.push_name(r.move if rng.random() < 0.8 else square_name(rng.choice(b.legal_moves)))
        if b.empties() <= 6 and not b.is_game_over() and b.legal_moves != [PASS]:
            exact = engine.think(b)
            assert exact.exact and exact.stopped_by == "exact"
    timed = make_engine("othello", "alphabeta:time=0.2").think(Board())
    assert timed.move in ("d3", "c4", "f5", "e6") and not timed.exact


def test_nboard_session() -> None:
    out = io.StringIO()
    s = NBoardSession(out, depth=2)
    for line in [
        "nboard 2",
        "set depth 3",
        "set game (;GM[Othello]PC[NBoard]TY[8]BO[8 ---------------------------O*------*O"
        "--------------------------- *]B[F5]W[F6]B[D3]W[C5];)",
        "ping 1",
        "go",
        "hint 2",
        "move z9",
        "set game nonsense",
        "frobnicate",
        "move e6",
        "ping 2",
    ]:
        assert s.handle(line)
    lines = out.getvalue().splitlines()
    assert lines[0] == "set myname banmen"
    assert "pong 1" in lines and lines[-1] == "pong 2"
    move_line = next(ln for ln in lines if ln.startswith("=== "))
    move = move_line.split()[1].split("/")[0]
    game = Board.from_transcript("f5f6d3c5")
    assert game.parse_move(move) in game.legal_moves
    hints = [ln for ln in lines if ln.startswith("search ")]
    assert len(hints) == 2
    errors = [ln for ln in lines if ln.startswith("status error:")]
    assert len(errors) == 3  # z9, nonsense GGF, unknown command: one line each
    assert s.board.transcript() == "f5f6d3c5e6"  # the bad commands changed nothing
    assert not s.handle("quit")


def test_cli_perft_and_solve_json() -> None:
    res = runner.invoke(app, ["perft", "6", "--json"])
    rec = json.loads(res.output)
    assert rec["leaves"] == 8200 and rec["nodes"] == 9912 and rec["seconds"] > 0
    res = runner.invoke(app, ["solve", "othello", FFO40, "--json", "--all"])
    rec = json.loads(res.output)
    assert rec["score"] == 38 and rec["best_moves"] == ["a2"] and rec["status"] == "solved"
    assert rec["nodes"] > 0 and rec["seconds"] > 0
    res = runner.invoke(app, ["solve", "othello", "XO X"])
    assert res.exit_code == 2 and res.output.startswith("error: board string has 3 characters")


# --------------------------------------------------------------------------- external engines


def test_an_nboard_engine_plays_a_whole_game() -> None:
    import sys

    from banmen.clients.nboard import NBoardEngine
    from banmen.games.registry import make_engine

    engine = make_engine("othello", f"nboard:depth=2 {sys.executable} -m banmen nboard")
    assert isinstance(engine, NBoardEngine) and engine.depth == 2
    try:
        b = Board.from_transcript("f5d6c3d3c4")
        while not b.is_game_over():
            r = engine.think(b)
            assert r.move is not None
            b.push(b.parse_move(r.move))  # raises if the engine's move were illegal
        assert engine.engine_name == "banmen" and len(b.move_stack) >= 60 - 4
    finally:
        engine.close()


_FAKE_NBOARD = """
import sys
for line in sys.stdin:
    words = line.split()
    if words[:1] == ["ping"]:
        print("pong", words[1], flush=True)
    elif words[:1] == ["go"]:
        print("status thinking", flush=True)
        print("=== " + sys.argv[1], flush=True)
    elif words[:1] == ["quit"]:
        break
"""


@pytest.mark.parametrize(
    ("answer", "score"),
    [("f5 -3.00 0.0", -3), ("f5/-3.00/0.0", -3), ("F5", None), ("f5 2.4", 2)],
)
def test_the_nboard_client_reads_both_answer_forms(answer: str, score: int | None) -> None:
    """Edax (and the protocol's example session) answer ``=== f5 -3.00 0.0``; the
    protocol's text gives ``=== f5/-3.00/0.0``; the move alone is allowed."""
    import sys

    from banmen.clients.nboard import NBoardEngine

    engine = NBoardEngine([sys.executable, "-c", _FAKE_NBOARD, answer], timeout=30)
    try:
        r = engine.think(Board())
        assert r.move == "f5" and r.score == score
    finally:
        engine.close()


@pytest.mark.parametrize(
    ("spec", "game", "fragment"),
    [
        ("nboard:", "othello", "names no command"),
        ("nboard:depth=x edax", "othello", "bad depth"),
        ("nboard:edax -nboard", "mattix", "NBoard engines play Othello"),
    ],
)
def test_bad_nboard_specs(spec: str, game: str, fragment: str) -> None:
    from banmen.engine import SpecError
    from banmen.games.registry import make_engine

    with pytest.raises(SpecError, match=fragment) as e:
        make_engine(game, spec)
    assert "\n" not in str(e.value)


def test_a_missing_nboard_program_is_a_one_line_error() -> None:
    from banmen.clients.nboard import NBoardError
    from banmen.games.registry import make_engine

    engine = make_engine("othello", "nboard:/nonexistent/engine")
    with pytest.raises(NBoardError, match="cannot start") as e:
        engine.think(Board())
    assert "\n" not in str(e.value)


def test_a_silent_nboard_program_times_out_and_is_stopped() -> None:
    import sys

    from banmen.clients.nboard import NBoardEngine, NBoardError

    engine = NBoardEngine([sys.executable, "-c", "import time; time.sleep(60)"], timeout=0.5)
    with pytest.raises(NBoardError, match=r"no pong 1 in 0\.5 s") as e:
        engine.think(Board())
    assert "\n" not in str(e.value)
    assert engine._proc is None  # killed: its state is unknown


def test_warm_up_hands_the_endgame_solver_to_a_helper_before_compiling_the_search(
    monkeypatch: Any,
) -> None:
    """The endgame solver goes to a helper process first (banmen.warm.beside, while the
    learned search is cold), then the search is ensured, then the solver."""
    import banmen.games.othello.engine as E
    from banmen.games.othello.sets import ENDGAME, SEARCH

    calls: list[tuple[str, ...]] = []
    monkeypatch.setattr(E, "beside", lambda *sets, while_: calls.append(
        ("beside", *(s.id for s in sets), while_.id)) or False)  # fmt: skip
    monkeypatch.setattr(E, "ensure", lambda ks: calls.append(("ensure", ks.id)) or False)
    E.OthelloEngine().warm_up()
    assert calls == [("beside", ENDGAME.id, SEARCH.id), ("ensure", SEARCH.id),
                     ("ensure", ENDGAME.id)]  # fmt: skip

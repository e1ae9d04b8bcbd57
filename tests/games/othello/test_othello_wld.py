"""Othello win/loss/draw by the compiled df-pn, against the exact endgame solver."""

from __future__ import annotations

import random
import time

import pytest

from banmen.games.othello import PASS, WHITE, Board, InvalidBoardError
from banmen.games.othello.endgame import EndgameSolver
from banmen.games.othello.wld import MAX_LEAF_EMPTIES, prove_wld
from banmen.search.limits import Limit, StopFlag


@pytest.fixture(scope="module")
def exact() -> EndgameSolver:
    return EndgameSolver(tt_bits=18)


def _sides(b: Board) -> tuple[int, int]:
    return (b.black, b.white) if b.turn == 1 else (b.white, b.black)


def _expected(solver: EndgameSolver, b: Board) -> str:
    solver.clear()
    s = solver.solve(*_sides(b))
    assert s.status == "solved" and s.score is not None
    return "win" if s.score > 0 else ("draw" if s.score == 0 else "loss")


def _random_position(seed: int, empties: int) -> Board:
    """A seeded random game from the start, stopped at ``empties`` empty squares."""
    rng = random.Random(seed)
    b = Board()
    while b.empties() > empties and not b.is_game_over():
        b.push(rng.choice(b.legal_moves))
    return b


def _must_pass_positions(count: int, max_empties: int) -> list[Board]:
    """Positions where the side to move has to pass, from seeded random games."""
    found: list[Board] = []
    seed = 0
    while len(found) < count:
        rng = random.Random(10_000 + seed)
        seed += 1
        b = Board()
        while not b.is_game_over():
            if b.legal_moves == [PASS] and b.empties() <= max_empties:
                found.append(b.copy())
                break
            b.push(rng.choice(b.legal_moves))
    return found


@pytest.mark.parametrize("seed", range(12))
def test_result_is_the_sign_of_the_exact_score(exact: EndgameSolver, seed: int) -> None:
    b = _random_position(seed, 8 + seed % 9)
    r = prove_wld(b)
    assert r.reason is None
    assert r.result == _expected(exact, b), (b.transcript(), r)


@pytest.mark.parametrize("seed", range(6))
def test_without_leaf_searches_every_leaf_is_a_finished_game(
    exact: EndgameSolver, seed: int
) -> None:
    b = _random_position(100 + seed, 8 + seed % 4)
    r = prove_wld(b, leaf_empties=0)
    assert r.result == _expected(exact, b), (b.transcript(), r)


def test_a_forced_pass_is_searched_through(exact: EndgameSolver) -> None:
    for b in _must_pass_positions(4, 14):
        r = prove_wld(b)
        assert r.result == _expected(exact, b), (b.transcript(), r)
        after = b.copy()
        after.push(PASS)
        opposite = {"win": "loss", "loss": "win", "draw": "draw"}[r.result]
        assert prove_wld(after).result == opposite
        # the same without leaf searches: the pass is a df-pn ply of its own
        assert prove_wld(b, leaf_empties=0).result == r.result


def test_finished_games() -> None:
    # discs on ranks 1-2 and 8 only: nobody can move
    rank8 = 0xFF << 56
    assert prove_wld((0x00FF, rank8)).result == "draw"
    assert prove_wld((0xFFFF, rank8)).result == "win"
    assert prove_wld((rank8, 0xFFFF)).result == "loss"
    assert prove_wld((0xFFFF, rank8), leaf_empties=0).result == "win"
    assert prove_wld((0xFFFFFFFF, 0xFFFFFFFF << 32)).result == "draw"
    # a wipe-out: one side has no discs, the other wins with the empties
    assert prove_wld((0, 1 << 27)).result == "loss"
    b = Board(black=(1 << 64) - 1 - 0xF, white=0xF, turn=WHITE)
    assert b.is_game_over()
    assert prove_wld(b).result == "loss"
    assert prove_wld(b, leaf_empties=0).result == "loss"


def test_board_and_bitboards_agree() -> None:
    b = _random_position(7, 12)
    assert prove_wld(b).result == prove_wld(_sides(b)).result


def test_a_set_stop_flag_gives_unknown() -> None:
    stop = StopFlag()
    stop.set()
    r = prove_wld(_random_position(3, 20), stop=stop)
    assert (r.result, r.reason) == ("unknown", "stopped")


def test_a_node_limit_gives_unknown_never_a_wrong_answer(exact: EndgameSolver) -> None:
    r = prove_wld(_random_position(4, 22), limit=Limit(nodes=300))
    assert (r.result, r.reason) == ("unknown", "node_limit")
    b = _random_position(5, 14)
    expected = _expected(exact, b)
    for nodes in (1, 50, 500, 5000):
        r = prove_wld(b, limit=Limit(nodes=nodes))
        assert r.result in ("unknown", expected)
        assert (r.reason == "node_limit") == (r.result == "unknown")


def test_a_time_limit_stops_the_first_proof() -> None:
    t0 = time.perf_counter()
    r = prove_wld(_random_position(6, 24), limit=Limit(time=0.05))
    assert (r.result, r.reason) == ("unknown", "timeout")
    assert time.perf_counter() - t0 < 2.0


def test_bad_input_is_rejected() -> None:
    with pytest.raises(InvalidBoardError):
        prove_wld((3, 1))
    with pytest.raises(ValueError):
        prove_wld((0xFFFF, 0xFF << 56), leaf_empties=MAX_LEAF_EMPTIES + 1)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(40))
def test_slow_agreement_up_to_18_empties(exact: EndgameSolver, seed: int) -> None:
    b = _random_position(1000 + seed, 10 + seed % 9)
    assert prove_wld(b).result == _expected(exact, b)
    if b.empties() <= 13:
        assert prove_wld(b, leaf_empties=0).result == _expected(exact, b)

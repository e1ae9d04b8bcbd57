"""The exact Mattix solver against plain (memoised) minimax, and its PV."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mattix_reference import exact_value, parse

from banmen.games.engines import AlphaBetaEngine
from banmen.games.mattix import Board
from banmen.games.registry import get_game
from banmen.search.limits import Limit

GAME = get_game("mattix")


@pytest.fixture(scope="module")
def engine() -> AlphaBetaEngine:
    e = AlphaBetaEngine(GAME, Limit())
    e.warm_up()
    return e


def check_pv(board: Board, pv: list[str], value: int) -> None:
    """The PV is a legal line to the end of the game that scores exactly ``value``."""
    b = board.copy()
    mover = b.turn
    for name in pv:
        b.push_name(name)
    assert b.is_game_over(), "an exact PV runs to the end of the game"
    assert b.margin(mover) == value


@pytest.mark.slow
def test_every_4x4_deal_tried_matches_minimax(engine: AlphaBetaEngine) -> None:
    # One engine (one transposition table) across all deals: salting keeps them apart.
    for seed in range(300):
        board = Board.from_seed(seed, 4)
        r = engine.think(board)
        expected = exact_value(parse(board.layout()))
        assert r.exact and r.stopped_by == "exact"
        assert r.score == expected, f"seed {seed}"
        check_pv(board, r.pv, r.score)


@st.composite
def small_layouts(draw: st.DrawFn) -> str:
    n = draw(st.integers(2, 4))
    values = draw(st.lists(st.integers(-9, 12), min_size=n * n, max_size=n * n))
    cells = [str(v) if draw(st.integers(0, 9)) else "." for v in values]
    cells[draw(st.integers(0, n * n - 1))] = "X"
    side = draw(st.sampled_from(["", " 2"]))
    return "/".join(",".join(cells[r * n : r * n + n]) for r in range(n)) + side


@settings(max_examples=200)
@given(small_layouts())
def test_random_small_layouts_match_minimax(layout: str) -> None:
    board = Board.from_layout(layout)
    engine = AlphaBetaEngine(GAME, Limit())
    r = engine.think(board)
    assert r.exact
    assert r.score == exact_value(parse(layout))
    if board.is_game_over():
        assert r.move is None and r.stopped_by == "game_over"
    else:
        check_pv(board, r.pv, r.score)


def endgames(count: int, pieces: int, seed: int) -> list[Board]:
    rng = random.Random(seed)
    out = []
    s = 0
    while len(out) < count:
        board = Board.from_seed(s, 6)
        s += 1
        while board.pieces_left() > pieces and not board.is_game_over():
            board.push(rng.choice(board.legal_moves))
        if not board.is_game_over():
            out.append(board)
    return out


def test_6x6_positions_with_14_pieces_match_minimax(engine: AlphaBetaEngine) -> None:
    for board in endgames(12, 14, seed=1):
        # The engine reports the final margin: the current one plus the rest of the game.
        layout = board.layout()
        rest = exact_value(parse(layout))
        r = engine.think(board)
        assert r.exact
        assert r.score == board.margin() + rest, layout
        check_pv(board, r.pv, r.score)
        # The same position given as a bare layout (scores unknown, so 0 : 0).
        assert engine.think(Board.from_layout(layout)).score == rest


def test_depth_limited_scores_are_not_called_exact(engine: AlphaBetaEngine) -> None:
    board = Board.from_seed(3, 6)
    r = engine.think(board, Limit(depth=3))
    assert r.depth == 3 and not r.exact and r.stopped_by == "depth"
    assert len(r.pv) == 3
    # Depth 1 is the write-up's "normal" level: the greedy move, the biggest piece in reach.
    r1 = engine.think(board, Limit(depth=1))
    values = {board.move_name(s): board.cells[s] for s in board.legal_moves}
    assert r1.move is not None and values[r1.move] == max(values.values())
    assert r1.score == max(values.values())


def test_exact_solve_of_a_full_6x6_deal(engine: AlphaBetaEngine) -> None:
    board = Board.from_seed(0, 6)
    r = engine.think(board)
    assert r.exact and r.depth == 35
    check_pv(board, r.pv, r.score)
    # No first move does better than the proved value, and the best one reaches it.
    outcomes = []
    for sq in board.legal_moves:
        child = board.copy()
        child.push(sq)
        outcomes.append(-engine.think(child).score)
    assert max(outcomes) == r.score

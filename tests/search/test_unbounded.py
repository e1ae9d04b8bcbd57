"""A game of no known length plays with alpha-beta and ``perfect`` (issue 37): a value is
exact when every line below it ended the game — not only when the depth reached a
horizon — and ``perfect`` deepens until it is. The toy is ``subtract``
(tests/toy_unbounded.py): take 1-3 stones, the last to take wins; the mover loses exactly
on a multiple of 4 — the brute-force truth every answer here is checked against."""

from __future__ import annotations

import os
import subprocess
import sys
from functools import cache
from pathlib import Path

import paths
import pytest
import toy_unbounded as toy

from banmen.search.alphabeta import AlphaBeta
from banmen.search.limits import Limit


@cache
def _value(stones: int) -> int:
    """Brute force: +1 if the side to move wins with ``stones`` left, -1 if it loses."""
    if stones == 0:
        return -1
    return max(-_value(stones - m) for m in (1, 2, 3) if m <= stones)


@pytest.mark.parametrize("stones", [1, 2, 3, 4, 5, 8, 13, 20, 21, 30])
def test_perfect_solves_a_game_of_no_known_length(stones: int) -> None:
    ab = AlphaBeta(toy.KERNELS, tt_bits=10)
    ctx, state = toy.search_position(toy.Board(stones))
    r = ab.search(ctx, state, Limit())
    assert r.exact and r.stopped_by == "exact"
    assert r.score == _value(stones)
    if _value(stones) > 0:
        assert r.move is not None and _value(stones - r.move) < 0  # a winning move


def test_a_depth_limit_is_exact_only_where_every_line_ended() -> None:
    ab = AlphaBeta(toy.KERNELS, tt_bits=10)
    short = ab.search(*toy.search_position(toy.Board(3)), Limit(depth=3))
    assert short.exact and short.score == 1  # every line of a 3-stone heap ends in 3 plies
    ab.clear()
    long = ab.search(*toy.search_position(toy.Board(21)), Limit(depth=3))
    assert not long.exact and long.stopped_by == "depth"  # cut short: an estimate


def test_the_arena_plays_it_with_alphabeta_mcts_puct_and_perfect(tmp_path: Path) -> None:
    where = toy.write_package(tmp_path)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(where), str(paths.TESTS),
                                         env.get("PYTHONPATH", "")])  # fmt: skip
    p = subprocess.run(
        [sys.executable, "-m", "banmen", "arena", "run", "subtract", "--games", "8",
         "--seed", "3", "--workers", "1", "--db", str(tmp_path / "a.db"),
         "-p", "ab=alphabeta:depth=4", "-p", "perfect=perfect", "-p", "random=random:seed=1",
         "-p", "mcts=mcts:playouts=400,seed=2", "-p", "puct=puct:playouts=400,seed=3", "--json"],
        capture_output=True, text=True, env=env, timeout=600,
    )  # fmt: skip
    assert p.returncode == 0, p.stdout + p.stderr
    from banmen.arena.store import ArenaStore

    with ArenaStore(tmp_path / "a.db", readonly=True) as store:
        (run,) = store.run_ids()
        games = store.games(run)
    assert len(games) == 80 and not any("forfeit" in g.extra for g in games)
    for g in games:  # perfect wins every game whose deal it can win, as first or second
        if "perfect" in (g.first, g.second):
            stones = 17 + g.deal_seed % 8
            perfect_first = g.first == "perfect"
            should_win = (_value(stones) > 0) == perfect_first
            if should_win:
                won = g.result == ("1-0" if perfect_first else "0-1")
                assert won, (g.first, g.second, stones, g.moves, g.result)
    for tree in ("mcts", "puct"):  # the tree searches play it (their playouts end) and well
        vs_random = [g for g in games if {g.first, g.second} == {tree, "random"}]
        won = sum(g.result == ("1-0" if g.first == tree else "0-1") for g in vs_random)
        assert len(vs_random) == 8 and won >= 6, (tree, won)

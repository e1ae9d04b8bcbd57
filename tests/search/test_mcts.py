"""The generic Monte-Carlo tree search: a toy game's kernels (to show it is generic), limits,
stop flag, progress reports, tree reuse; PUCT, its priors and a value kernel of the
game's own."""

from __future__ import annotations

import time
from typing import Any

import numpy as np
import pytest

from banmen._jit import kernel
from banmen.search.limits import Limit, StopFlag
from banmen.search.mcts import MCTS, PRIOR_TEMPERATURE, MctsInfo, MctsKernels, visit_priors

# --------------------------------------------------------------------------- a toy game
#
# Subtraction game: a heap of stones, each turn take 1, 2 or 3; whoever takes the last
# stone wins. The winning move leaves a multiple of 4. State: int64 [stones, to move,
# random state]; move m takes m stones.


@kernel
def nim_copy(ctx: Any, src: Any, dst: Any) -> None:
    dst[0] = src[0]
    dst[1] = src[1]


@kernel
def nim_to_move(ctx: Any, st: Any) -> int:
    return st[1]


@kernel
def nim_expand(ctx: Any, st: Any, moves: Any, pn: Any, pw: Any) -> int:
    n = 0
    for m in range(1, 4):
        if m <= st[0]:
            moves[n] = m
            pn[n] = 1.0
            pw[n] = 0.5
            n += 1
    return n


@kernel
def nim_play(ctx: Any, st: Any, m: int) -> None:
    st[0] -= m
    st[1] = 3 - st[1]


@kernel
def nim_playout(ctx: Any, st: Any, seq: Any, seqc: Any) -> tuple[float, int]:
    n = 0
    while st[0] > 0:
        st[2] = (st[2] * 6364136223846793005 + 1442695040888963407) & 0x7FFFFFFFFFFFFFFF
        m = min(1 + (st[2] >> 33) % 3, st[0])
        seq[n] = m
        seqc[n] = st[1]
        n += 1
        st[0] -= m
        st[1] = 3 - st[1]
    # the player who just moved took the last stone
    return (1.0 if st[1] == 2 else 0.0), n


@kernel
def nim_evaluate(ctx: Any, st: Any) -> float:
    return 1.0 if st[1] == 2 else 0.0


NIM = MctsKernels(nim_copy, nim_to_move, nim_expand, nim_play, nim_playout, nim_evaluate,
                  max_moves=4, max_playout=64)  # fmt: skip
CTX = np.zeros(1, dtype=np.int64)


def nim(stones: int, turn: int = 1) -> Any:
    return np.array([stones, turn, 12345], dtype=np.int64)


@pytest.mark.parametrize(("stones", "best"), [(5, 1), (6, 2), (7, 3), (10, 2), (15, 3)])
def test_finds_the_winning_move_in_a_toy_game(stones: int, best: int) -> None:
    m = MCTS(NIM, capacity=1 << 16, explore=0.5)
    r = m.search(CTX, nim(stones), nim(stones), Limit(nodes=3000))
    assert r.move == best
    assert r.winrate > 0.75
    assert r.playouts == 3000 and r.stopped_by == "nodes"
    assert m.pv()[0] == best


def test_a_lost_position_has_a_low_win_rate() -> None:
    m = MCTS(NIM, capacity=1 << 16, explore=0.5)
    r = m.search(CTX, nim(8), nim(8), Limit(nodes=3000))
    assert r.winrate < 0.2


def test_a_finished_game_has_no_move() -> None:
    m = MCTS(NIM, capacity=1 << 10)
    r = m.search(CTX, nim(0), nim(0), Limit(nodes=10))
    assert r.move is None and r.stopped_by == "game_over"


def test_time_limit_stop_flag_and_info() -> None:
    m = MCTS(NIM, capacity=1 << 20, explore=0.5)
    infos: list[MctsInfo] = []
    t0 = time.perf_counter()
    r = m.search(CTX, nim(30), nim(30), Limit(time=0.4), on_info=infos.append)
    assert time.perf_counter() - t0 < 60  # a hang guard; `banmen bench time-limits` measures
    assert r.stopped_by == "time" and r.playouts > 0 and r.move in (1, 2, 3)
    assert infos and infos[-1].playouts == r.playouts
    assert [i.playouts for i in infos] == sorted(i.playouts for i in infos)
    flag = StopFlag()
    flag.set()
    m.clear()
    r = m.search(CTX, nim(30), nim(30), Limit(time=10), stop=flag, min_playouts=16)
    assert r.stopped_by == "stop" and 16 <= r.playouts < 64 and r.move is not None
    assert flag.is_set()  # the caller's request is left for the caller


def test_the_early_stop_waits_for_min_seconds() -> None:
    """One legal move leads at once: the search would stop about halfway through its
    second (the lead past what the time left could bring); with ``min_seconds`` it goes on
    until then at least (a clock-driven Go search: half its target)."""
    m = MCTS(NIM, capacity=1 << 16, explore=0.5)
    r = m.search(CTX, nim(1), nim(1), Limit(time=2.0), min_seconds=1.6)
    assert r.stopped_by == "time" and r.move == 1
    assert r.seconds >= 1.6


def test_tree_reuse_keeps_the_subtree() -> None:
    m = MCTS(NIM, capacity=1 << 16, explore=0.5)
    m.search(CTX, nim(12), nim(12), Limit(nodes=2000))
    child = {c.move: c for c in m.children()}[1]
    grandchild = {c.move: c for c in m.children(m._child(0, 1) or 0)}[3]
    assert m.advance([1, 3])
    assert m.root_visits == grandchild.visits > 0
    assert child.visits >= grandchild.visits
    before = m.root_visits
    r = m.search(CTX, nim(8), nim(8), Limit(nodes=500))
    assert m.root_visits == before + 500 and r.playouts == 500
    # a line the tree does not hold clears it
    assert not m.advance([3, 3, 3, 3])
    assert m.root_visits == 0 and m.nodes == 1


def test_restricted_root_and_tiny_capacity() -> None:
    m = MCTS(NIM, capacity=16)  # room for a few expansions only: then playouts from leaves
    r = m.search(CTX, nim(9), nim(9), Limit(nodes=500), allowed={2, 3})
    assert r.move in (2, 3) and r.playouts == 500
    assert m.nodes <= 16
    with pytest.raises(ValueError, match="too small"):
        MCTS(NIM, capacity=4)


# --------------------------------------------------------------------------- PUCT


@kernel
def nim_value(ctx: Any, st: Any, seq: Any, seqc: Any) -> tuple[float, int]:
    """The exact value: the mover wins unless the heap is a multiple of 4 (player 1's)."""
    mover_wins = st[0] % 4 != 0
    return (1.0 if mover_wins == (st[1] == 1) else 0.0), 0


@pytest.mark.parametrize(("stones", "best"), [(5, 1), (6, 2), (7, 3), (10, 2), (15, 3)])
def test_puct_with_playouts_finds_the_winning_move(stones: int, best: int) -> None:
    m = MCTS(NIM, capacity=1 << 16, puct=True)
    r = m.search(CTX, nim(stones), nim(stones), Limit(nodes=3000))
    assert r.move == best and r.winrate > 0.7 and r.playouts == 3000
    kids = m.children()
    assert [c.prior for c in kids] == pytest.approx([1 / 3] * 3)  # uniform: equal priors
    assert all(c.amaf_visits == 0 for c in kids)  # PUCT gathers no AMAF


def test_puct_with_a_value_of_the_games_own() -> None:
    """The leaf evaluation is a kernel of the bundle: an exact one needs few simulations,
    and PUCT's tree is what it values (no playout: nothing reaches AMAF either)."""
    exact = NIM._replace(value=nim_value)
    for stones, best in [(5, 1), (6, 2), (7, 3), (21, 1)]:
        m = MCTS(exact, capacity=1 << 12, puct=True)
        r = m.search(CTX, nim(stones), nim(stones), Limit(nodes=60))
        assert r.move == best and r.winrate > (0.9 if stones < 8 else 0.5)
    for stones in (8, 12):  # lost: the means (exploration included) say so
        m = MCTS(exact, capacity=1 << 12, puct=True)
        assert m.search(CTX, nim(stones), nim(stones), Limit(nodes=60)).winrate < 0.5


def test_visit_priors_read_win_rates_back_as_probabilities() -> None:
    pn = np.array([10.0, 10.0, 30.0, 30.0, 30.0])
    pw = np.array([5.0, 5.0, 15.0, 0.0, 30.0])  # even, even, even, all losses, all wins
    p = np.zeros(5)
    visit_priors(CTX, nim(3), np.arange(5), 3, pn, pw, p)
    assert p[:3] == pytest.approx([1 / 3] * 3)
    visit_priors(CTX, nim(3), np.arange(5), 5, pn, pw, p)
    assert p.sum() == pytest.approx(1.0) and p[4] > p[0] > p[3] > 0
    # a win rate sigmoid(t log(share x n)) (Go's learned priors) reads back as the share
    share = np.array([0.5, 0.3, 0.15, 0.05])
    q = 1 / (1 + np.exp(-PRIOR_TEMPERATURE * np.log(share * 4)))
    visit_priors(CTX, nim(3), np.arange(4), 4, np.ones(4), q, p)
    assert p[:4] == pytest.approx(share)


def test_puct_with_threads_keeps_the_playout_count() -> None:
    m = MCTS(NIM, capacity=1 << 16, puct=True, threads=2)
    r = m.search(CTX, nim(10), [nim(10), nim(10)], Limit(nodes=2000))
    assert r.playouts == 2000 and m.root_visits == 2000 and r.move == 2


def _fresh_nim(**kw: Any) -> MctsKernels:
    """NIM's kernels as new dispatchers (nothing compiled in this process yet)."""
    fns = (nim_copy, nim_to_move, nim_expand, nim_play, nim_playout, nim_evaluate)
    return MctsKernels(*(kernel(f.py_func) for f in fns), max_moves=4, max_playout=64, **kw)


@pytest.mark.parametrize("puct", [False, True])
def test_kernels_called_through_pointers_search_the_same(puct: bool) -> None:
    """A bundle with ``pointers``: the loop compiles from the kernels' types alone (no
    kernel compiled by it), and then searches exactly as the bundle whose code the loop
    links (the same tree, visit for visit)."""
    k = _fresh_nim(pointers=True)
    m = MCTS(k, capacity=1 << 16, explore=0.5, puct=puct)
    m.compile_loop(CTX, nim(10), nim(10))
    assert not any(f.overloads for f in k[:6])  # the loop alone
    r = m.search(CTX, nim(10), nim(10), Limit(nodes=3000))
    assert all(f.overloads for f in k[:6])
    linked = MCTS(NIM, capacity=1 << 16, explore=0.5, puct=puct)
    r2 = linked.search(CTX, nim(10), nim(10), Limit(nodes=3000))
    assert r.move == r2.move == 2 and r.playouts == r2.playouts == 3000
    used = m.nodes
    assert used == linked.nodes > 10
    assert np.array_equal(m._ist[:used], linked._ist[:used])
    assert np.array_equal(m._fs[:used], linked._fs[:used])


@kernel
def nim_to_move_float(ctx: Any, st: Any) -> float:
    return float(st[1])


def test_a_pointer_kernel_of_another_type_is_refused() -> None:
    """A kernel whose compiled return type is not the contract's would be called wrongly
    through its pointer: the search refuses it, naming it, before anything runs."""
    k = _fresh_nim(pointers=True)._replace(to_move=nim_to_move_float)
    m = MCTS(k, capacity=1 << 10)
    with pytest.raises(TypeError, match="the to_move kernel returns float64"):
        m.search(CTX, nim(5), nim(5), Limit(nodes=10))


@kernel
def nim_play_refusing(ctx: Any, st: Any, m: int) -> None:
    if st[0] < 3:
        raise ValueError("a heap of fewer than three stones")
    st[0] -= m
    st[1] = 3 - st[1]


def test_a_kernels_exception_through_a_pointer_reaches_the_caller() -> None:
    """The loop calls a pointer bundle's kernel through its own entry (not a C wrapper
    that would print the exception and go on with garbage): the search raises it."""
    k = _fresh_nim(pointers=True)._replace(play=nim_play_refusing)
    m = MCTS(k, capacity=1 << 12)
    with pytest.raises(ValueError, match="fewer than three stones"):
        m.search(CTX, nim(6), nim(6), Limit(nodes=200))

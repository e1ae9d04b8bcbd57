"""df-pn on random game graphs with cycles, against a brute-force retrograde oracle.

The graphs are small AND/OR graphs: the attacker moves at OR nodes, the defender at AND
nodes; an AND node with no move is a win for the attacker (mate), an OR node with no move a
loss; a position repeated on the path is a loss for the attacker. The oracle computes, by a
fixed point, which nodes the attacker can force to a win in finitely many moves and the
minimax length of the shortest such win — exactly what ``DfPn.prove`` must answer, whatever
the path it first met a node on (graph-history interaction).
"""

from __future__ import annotations

import random

import pytest
from dfpn_reference import INF, DfPn, Unknown, no_cyclic_gc
from hypothesis import given, settings
from hypothesis import strategies as st

from banmen.search.limits import Limit, StopFlag


class Graph:
    """A position walking a fixed graph: ``children[n]``; OR nodes are even, AND odd."""

    def __init__(self, children: dict[int, list[int]], start: int) -> None:
        self.children = children
        self.stack = [start]

    def key(self) -> int:
        return self.stack[-1]

    def attacker_moves(self) -> list[int]:
        return self.children[self.stack[-1]]

    def defender_moves(self) -> list[int]:
        return self.children[self.stack[-1]]

    def play(self, move: int) -> None:
        self.stack.append(move)

    def undo(self) -> None:
        self.stack.pop()

    def quick_win(self) -> int | None:
        return None

    def group(self, move: int) -> int | None:
        return None

    def futile_test(self, move: int) -> list[Graph]:
        return []

    def material(self) -> int:
        return 0


def random_graph(rng: random.Random, n_or: int, n_and: int, degree: int) -> dict[int, list[int]]:
    ors = [2 * i for i in range(n_or)]
    ands = [2 * i + 1 for i in range(n_and)]
    children: dict[int, list[int]] = {}
    for n in ors:
        k = rng.randint(0, degree)
        children[n] = rng.sample(ands, min(k, len(ands)))
    for n in ands:
        k = rng.choice([0, 0, 1, 1, 2, 3]) if degree > 1 else rng.randint(0, 1)
        children[n] = rng.sample(ors, min(k, len(ors)))
    return children


def oracle(children: dict[int, list[int]]) -> dict[int, int]:
    """Shortest forced win length for every node the attacker wins (least fixed point)."""
    win: dict[int, int] = {n: 0 for n, c in children.items() if n % 2 == 1 and not c}
    changed = True
    while changed:
        changed = False
        for n, c in children.items():
            if n % 2 == 0:
                lengths = [win[x] for x in c if x in win]
                if lengths:
                    v = 1 + min(lengths)
                    if win.get(n) != v:
                        win[n] = v
                        changed = True
            elif c and all(x in win for x in c):
                v = 1 + max(win[x] for x in c)
                if win.get(n) != v:
                    win[n] = v
                    changed = True
    return win


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(2, 9), st.integers(2, 9), st.integers(1, 3))
def test_prove_matches_the_oracle_on_cyclic_graphs(
    seed: int, n_or: int, n_and: int, degree: int
) -> None:
    rng = random.Random(seed)
    children = random_graph(rng, n_or, n_and, degree)
    truth = oracle(children)
    solver: DfPn[int] = DfPn()
    # One solver, every OR node as a root in turn: entries from earlier proofs (reached on
    # other paths) must not leak a path-dependent answer into later ones.
    for root in sorted(n for n in children if n % 2 == 0):
        res = solver.prove(Graph(children, root))
        if root in truth:
            assert res.status == "proved", (children, root)
            assert res.length is not None and res.length >= truth[root]
        else:
            assert res.status == "disproved", (children, root)


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(2, 8), st.integers(2, 8))
def test_bounded_proofs_find_the_shortest_win(seed: int, n_or: int, n_and: int) -> None:
    rng = random.Random(seed)
    children = random_graph(rng, n_or, n_and, 3)
    truth = oracle(children)
    solver: DfPn[int] = DfPn()
    for root in sorted(n for n in children if n % 2 == 0):
        pos = Graph(children, root)
        for r in (1, 3, 5, 7, 9):
            res = solver.prove(pos, r)
            won = root in truth and truth[root] <= r
            assert res.status == ("proved" if won else "disproved"), (children, root, r)
            if won:
                assert res.length is not None and truth[root] <= res.length <= r


def test_path_dependent_disproof_is_not_reused() -> None:
    # R -> A (AND) -> C (OR) -> D (AND) -> X (OR) -> K (AND) -> C   (C repeated on path 1)
    # R -> B (AND) -> X; and C also has a way out: C -> W (AND, no reply: mate).
    # On path 1, X's only move returns to C, an ancestor: a loss *on that path*. Reached
    # through B, X -> K -> C -> W wins. A solver that stored X as disproved answers wrongly.
    R, C, X = 0, 2, 4
    A, B, D, K, W = 1, 3, 5, 7, 9
    children = {R: [A, B], A: [C], C: [D, W], D: [X], X: [K], K: [C], B: [X], W: []}
    truth = oracle(children)
    assert truth[X] == 3 and truth[R] == 3  # R -> A -> C -> W
    solver: DfPn[int] = DfPn()
    assert solver.prove(Graph(children, R)).status == "proved"
    assert solver.prove(Graph(children, X)).status == "proved"


def test_perpetual_check_is_not_a_win() -> None:
    # the attacker can only keep checking round a cycle: no win, and the search ends
    children = {0: [1], 1: [2], 2: [3], 3: [0]}
    assert DfPn().prove(Graph(children, 0)).status == "disproved"


def test_limits_give_unknown_never_an_answer() -> None:
    rng = random.Random(7)
    children = random_graph(rng, 400, 400, 3)
    res = DfPn(limit=Limit(nodes=5)).prove(Graph(children, 0))
    # a tiny node budget: either solved at once or "unknown" with the reason
    assert res.status in ("proved", "disproved", "unknown")
    flag = StopFlag()
    flag.set()
    stopped = DfPn(stop=flag).prove(Graph(children, 0))
    assert stopped.status == "unknown" and stopped.reason == "stopped"


def test_memory_bound_collects_garbage_or_says_memory() -> None:
    solver: DfPn[int] = DfPn(hash_mb=0)
    solver.max_entries = 150
    for i in range(200):
        solver.store_open(i, 1, 1, 1 + i)
    solver.collect_garbage()
    assert len(solver.tt) <= 150 and solver.gc_runs == 1
    # the entries that cost the most to recompute stay, the cheap ones go
    assert 199 in solver.tt and 0 not in solver.tt
    # filling up again at once means the problem does not fit: unknown(memory)
    with pytest.raises(Unknown) as info:
        solver.collect_garbage()
    assert info.value.reason == "memory"
    # and through prove(): a table of a few entries on a graph that needs many
    rng = random.Random(3)
    children = random_graph(rng, 3000, 3000, 3)
    small: DfPn[int] = DfPn()
    small.max_entries = 8
    res = small.prove(Graph(children, 0))
    assert res.status in ("proved", "disproved") or res.reason == "memory"


def test_lookup_respects_bounds() -> None:
    solver: DfPn[int] = DfPn()
    solver.store_proof(1, 7, 1)
    assert solver.lookup(1, 7)[0] == 0
    assert solver.lookup(1, 5)[:2] != (0, INF)  # a 7-ply win is no win within 5
    solver.store_disproof(1, 5, 1)
    assert solver.lookup(1, 5)[1] == 0
    assert solver.lookup(1, 9)[0] == 0


class Grouped(Graph):
    """A graph whose moves to nodes >= 100 share a group by their tens (like drops of
    different pieces on one square)."""

    def group(self, move: int) -> int | None:
        return move // 10 if move >= 100 else None


def test_new_defender_node_counts_each_group_of_replies_once() -> None:
    # AND node 1: two plain replies, four replies in group 10 and three in group 11
    children = {1: [2, 4, 100, 102, 104, 106, 110, 112, 114]}
    for c in children[1]:
        children[c] = [1001]  # any attacker move: their numbers do not matter here
    solver: DfPn[int] = DfPn()
    pos = Grouped(children, 1)
    solver._seed(pos, 1, child_is_or=False)
    pn, dn, _, _ = solver.lookup(1, INF)
    assert (pn, dn) == (2 + 2, 1)  # two plain replies + two groups, not nine replies
    # with no groups every reply counts
    solver2: DfPn[int] = DfPn()
    solver2._seed(Graph(children, 1), 1, child_is_or=False)
    assert solver2.lookup(1, INF)[:2] == (9, 1)


def test_a_collection_that_would_outlast_the_time_limit_is_not_started() -> None:
    """A collection cannot be interrupted, so the solver stops ("timeout") instead of
    starting one it cannot finish before the deadline."""
    solver: DfPn[int] = DfPn(limit=Limit(time=3600))
    solver.max_entries = 150
    for i in range(200):
        solver.store_open(i, 1, 1, 1 + i)
    solver._gc_seconds_per_entry = 3600.0  # as if each entry took an hour to sort out
    with pytest.raises(Unknown) as info:
        solver._tick()
    assert info.value.reason == "timeout" and len(solver.tt) == 200 and solver.gc_runs == 0
    solver._gc_seconds_per_entry = 1e-9  # quick: it collects and goes on
    solver._tick()
    assert solver.gc_runs == 1 and len(solver.tt) <= 150
    # without a time limit there is nothing to keep: it always collects
    free: DfPn[int] = DfPn()
    free.max_entries = 150
    for i in range(200):
        free.store_open(i, 1, 1, 1 + i)
    free._gc_seconds_per_entry = 3600.0
    free._tick()
    assert free.gc_runs == 1


def test_the_cyclic_collector_is_off_while_proving_and_restored_after() -> None:
    """Full collections walk every table entry (pauses that grew past a time limit's
    margin); the solver makes no cycles, so it runs with the collector off."""
    import gc

    seen: list[bool] = []
    rng = random.Random(5)
    children = random_graph(rng, 300, 300, 3)
    solver: DfPn[int] = DfPn(progress=lambda info: seen.append(gc.isenabled()))
    solver._next_report = 0.0  # report at the first look at the clock
    assert gc.isenabled()
    solver.prove(Graph(children, 0))
    assert seen and not any(seen) and gc.isenabled()
    # nested blocks: the last one out restores it; a collector already off stays off
    with no_cyclic_gc():
        with no_cyclic_gc():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()
    gc.disable()
    try:
        with no_cyclic_gc():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()

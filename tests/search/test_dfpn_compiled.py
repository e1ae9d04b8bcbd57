"""The compiled df-pn (search/dfpn.py) on random AND/OR graphs with cycles, against the same
brute-force retrograde oracle as the reference solver's tests, plus its table, hands and
limits."""

from __future__ import annotations

import functools
import random
import threading
from collections.abc import Callable

import numpy as np
import pytest
from dfpn_graph import GRAPH, graph_ctx, graph_state
from hypothesis import example, given, settings
from hypothesis import strategies as st
from test_dfpn import oracle, random_graph

from banmen._jit import kernel
from banmen.search import dfpn
from banmen.search.dfpn import INF, DfPn, hand_ge
from banmen.search.limits import Limit, StopFlag


def solver(
    children: dict[int, list[int]],
    grouped: bool = False,
    answers: bool = False,
    quick: bool = False,
    **kw: object,
) -> DfPn:
    kw.setdefault("hash_mb", 1)
    kw.setdefault("workspace", 1 << 14)
    ctx = graph_ctx(children, grouped, answers, quick)
    return DfPn(GRAPH, ctx, **kw)  # type: ignore[arg-type]


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(2, 9), st.integers(2, 9), st.integers(1, 3))
def test_prove_matches_the_oracle_on_cyclic_graphs(
    seed: int, n_or: int, n_and: int, degree: int
) -> None:
    rng = random.Random(seed)
    children = random_graph(rng, n_or, n_and, degree)
    truth = oracle(children)
    s = solver(children)
    # one solver, every OR node as a root in turn: path-dependent answers must not leak
    for root in sorted(n for n in children if n % 2 == 0):
        res = s.prove(graph_state(root))
        if root in truth:
            assert res.status == "proved", (children, root)
            assert res.length is not None and res.length >= truth[root]
        else:
            assert res.status == "disproved", (children, root)


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(2, 8), st.integers(2, 8), st.booleans())
def test_bounded_proofs_find_the_shortest_win(
    seed: int, n_or: int, n_and: int, quick: bool
) -> None:
    """``quick``: a quick_win that also answers -2 (nothing wins within two plies), which
    lets the search settle the nodes at a bound's horizon without expanding them."""
    rng = random.Random(seed)
    children = random_graph(rng, n_or, n_and, 3)
    truth = oracle(children)
    s = solver(children, quick=quick)
    for root in sorted(n for n in children if n % 2 == 0):
        for r in (1, 3, 5, 7, 9):
            res = s.prove(graph_state(root), r)
            won = root in truth and truth[root] <= r
            assert res.status == ("proved" if won else "disproved"), (children, root, r)
            if won:
                assert res.length is not None and truth[root] <= res.length <= r


def test_path_dependent_disproof_is_not_reused() -> None:
    # the reference solver's case: X loses on the path through C (a repetition), wins via B
    R, C, X = 0, 2, 4
    A, B, D, K, W = 1, 3, 5, 7, 9
    children = {R: [A, B], A: [C], C: [D, W], D: [X], X: [K], K: [C], B: [X], W: []}
    assert oracle(children)[X] == 3
    s = solver(children)
    assert s.prove(graph_state(R)).status == "proved"
    assert s.prove(graph_state(X)).status == "proved"


def test_perpetual_check_is_not_a_win() -> None:
    children = {0: [1], 1: [2], 2: [3], 3: [0]}
    assert solver(children).prove(graph_state(0)).status == "disproved"


def test_defender_node_counts_each_group_of_replies_once() -> None:
    # AND node 1: two plain replies, four replies in group 10 and three in group 11; each
    # leads to an OR node with one move to an AND node with no reply (a mate)
    replies = [2, 4, 100, 102, 104, 106, 110, 112, 114]
    children: dict[int, list[int]] = {1: replies, 1001: []}
    for c in replies:
        children[c] = [1001]
    grouped = solver(children, grouped=True)
    plain = solver(children)
    k = 1 * 1000003 + 17
    for s in (grouped, plain):
        g = GRAPH
        seeded = dfpn._seed(
            g.or_moves, g.and_moves, g.outcome, g.group, g.and_need, s.ctx, graph_state(1),
            s.tt, s.ctl, s.mvs, s.gscr, k, 0, False,
        )  # fmt: skip
        assert seeded[:2] == s.lookup(k, 0, INF)[:2]
    assert grouped.lookup(k, 0, INF)[:2] == (2 + 2, 1)  # not nine
    assert plain.lookup(k, 0, INF)[:2] == (9, 1)
    # and without the node limit both prove it, with the same length
    a = solver(children, grouped=True).prove(graph_state(1), or_node=False)
    b = solver(children).prove(graph_state(1), or_node=False)
    assert a.status == b.status == "proved" and a.length == b.length == 2


def test_limits_give_unknown_never_an_answer() -> None:
    children = random_graph(random.Random(7), 3000, 3000, 3)
    s = solver(children, limit=Limit(nodes=300))
    res = s.prove(graph_state(0))
    assert res.status in ("proved", "disproved") or res.reason == "node_limit"
    # the budget is polled every 256 nodes: it is never overrun by more
    assert s.nodes <= 300 + 256
    flag = StopFlag()
    flag.set()
    stopped = solver(children, stop=flag).prove(graph_state(0))
    assert stopped.status == "unknown" and stopped.reason == "stopped"


def test_a_stop_request_from_another_thread_stops_the_search() -> None:
    # a graph too big to finish: the request is seen within 256 nodes of being set
    children = random_graph(random.Random(11), 200_000, 200_000, 3)
    flag = StopFlag()
    seen: list[int] = []

    def progress(info: dict[str, object]) -> None:
        seen.append(int(info["nodes"]))  # type: ignore[call-overload]
        if len(seen) == 2:
            threading.Thread(target=flag.set).start()

    s = solver(children, stop=flag, progress=progress, hash_mb=4)
    res = s.prove(graph_state(0))
    if res.status == "unknown":  # (a graph that happened to be solved stops by itself)
        assert res.reason == "stopped"
        assert len(seen) >= 2


def test_a_tiny_table_collects_garbage_and_stays_right() -> None:
    rng = random.Random(3)
    sweeps = 0
    for _ in range(4):
        children = random_graph(rng, 600, 600, 3)
        truth = oracle(children)
        big = solver(children)
        tiny = solver(children, tt_buckets=2)  # 16 entries
        assert tiny.tt.shape[0] == 16
        for root in sorted(n for n in children if n % 2 == 0):
            a = big.prove(graph_state(root))
            b = tiny.prove(graph_state(root))
            want = "proved" if root in truth else "disproved"
            assert a.status == want
            assert b.status in (want, "unknown"), (children, root)
        sweeps += tiny.gc_runs
    assert sweeps > 0


def test_the_sweep_keeps_the_costly_entries() -> None:
    s = solver({0: []}, hash_mb=1)
    upsert = dfpn._slot
    for i in range(4000):
        j = upsert(s.tt, s.ctl, i * 7919 + 1, 0)
        dfpn._set_field(s.tt, j, dfpn._WORK, 1 + i)
    used = s.entries
    dfpn._sweep(s.tt, s.ctl)
    assert s.gc_runs == 1 and s.entries < used * 0.75
    alive = [
        dfpn._field(s.tt, i, dfpn._WORK)
        for i in range(s.tt.shape[0])
        if dfpn._field(s.tt, i, dfpn._KEY) != 0
    ]
    assert min(alive) > 1000  # the cheap half went first


def test_the_table_grows_and_keeps_its_entries() -> None:
    """A table starts on its first buckets and doubles when 7/8 full: every entry it held
    is found after, with its numbers."""
    s = solver({0: []}, hash_mb=8)  # 16,384 buckets, of which it starts on 8,192
    assert s.ctl[dfpn._TT_MASK] + 1 == dfpn._FIRST_BUCKETS < s.ctl[dfpn._TT_MAX_MASK] + 1
    keys = [i * 7919 + 1 for i in range(50_000)]  # more than 7/8 of the first 65,536 entries
    for i, k in enumerate(keys):
        dfpn._store_open(s.tt, s.ctl, k, 0x0101, 2 + i, 3, 1)
    before = {k: s.lookup(k, 0x0101, 9) for k in keys}
    used = s.entries
    dfpn._grow(s.tt, s.ctl)
    assert s.ctl[dfpn._TT_MASK] + 1 == 2 * dfpn._FIRST_BUCKETS
    assert {k: s.lookup(k, 0x0101, 9) for k in keys} == before
    assert sum(v[0] != 1 for v in before.values()) == used  # (the entries found are all)
    assert s.entries == used


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.integers(0, 20), min_size=7, max_size=7),
    st.lists(st.integers(0, 20), min_size=7, max_size=7),
)
def test_hand_arithmetic_is_per_piece(a: list[int], b: list[int]) -> None:
    ha = sum(x << (8 * i) for i, x in enumerate(a))
    hb = sum(x << (8 * i) for i, x in enumerate(b))
    assert hand_ge(ha, hb) == all(x >= y for x, y in zip(a, b, strict=True))
    assert dfpn._hmax(ha, hb) == sum(
        max(x, y) << (8 * i) for i, (x, y) in enumerate(zip(a, b, strict=True))
    )
    assert dfpn._hmin(ha, hb) == sum(
        min(x, y) << (8 * i) for i, (x, y) in enumerate(zip(a, b, strict=True))
    )
    assert dfpn._hsub(ha, hb) == sum(
        max(0, x - y) << (8 * i) for i, (x, y) in enumerate(zip(a, b, strict=True))
    )
    zero = dfpn._zero_bytes(ha)
    assert zero == sum(0xFF << (8 * i) for i, x in enumerate(a) if x == 0)
    assert dfpn._nonzero_bytes(ha) == sum(0xFF << (8 * i) for i, x in enumerate(a) if x != 0)


def test_dominance_in_the_table() -> None:
    """A proof holds for every larger attacker hand, a disproof for every smaller one."""
    s = solver({0: []})
    small, large = 0x0000000000000101, 0x0000000000000302
    dfpn._store_proof(s.tt, s.ctl, 42, small, 5, 1)
    assert s.lookup(42, large, 9)[0] == 0  # more pieces: still a mate within 9
    assert s.lookup(42, small, 4)[0] != 0  # a 5-ply mate is none within 4
    assert s.lookup(42, 0x0000000000000100, 9)[0] != 0  # fewer pieces: nothing known
    dfpn._store_disproof(s.tt, s.ctl, 7, large, INF, 1)
    assert s.lookup(7, small, 9)[1] == 0
    assert s.lookup(7, 0x0000000000000303, 9)[1] != 0
    np.testing.assert_equal(s.ctl[dfpn._TT_USED], 2)


# ------------------------------------------------------------ futile interpositions, bounds


def layered_graph_with_drops(rng: random.Random, levels: int) -> dict[int, list[int]]:
    """An acyclic AND/OR graph in levels from OR node 0, whose defender nodes also have
    "drops": replies to OR nodes >= 100, grouped by their tens, each with answers (its
    children 1 modulo 4) for the futility rule."""
    children: dict[int, list[int]] = {0: []}
    next_or, next_and, next_group = 2, 1, 10
    current = [0]
    for level in range(levels):
        if level % 2 == 0:  # OR nodes -> AND nodes
            ands = [next_and + 2 * i for i in range(rng.randint(2, 4))]
            next_and += 2 * len(ands)
            for a in ands:
                children[a] = []
            for n in current:
                children[n] = rng.sample(ands, rng.randint(1, min(3, len(ands))))
            if rng.random() < 0.7:
                # a defender node with no reply (mated), 1 modulo 4: an answer to a drop
                # that mates at once
                mated = next_and if next_and % 4 == 1 else next_and + 2
                next_and = mated + 2
                children[mated] = []
                for n in current:
                    if n >= 100 and rng.random() < 0.5:
                        children[n].append(mated)
            current = ands
        else:  # AND nodes -> OR nodes and drops
            ors = [next_or + 2 * i for i in range(rng.randint(2, 3))]
            next_or += 2 * len(ors)
            for o in ors:
                children[o] = []
            drops: list[int] = []
            for n in current:
                cs = rng.sample(ors, rng.randint(0, 2))
                if rng.random() < 0.8:
                    # its own drops (as in shogi, where a drop's position names its parent)
                    g = next_group
                    next_group += 1
                    grp = [10 * g + 2 * i for i in range(rng.randint(1, 3))]
                    for d in grp:
                        children[d] = []
                    cs += grp
                    drops += grp
                children[n] = cs
            current = ors + drops
    return children


def bounded_truth(children: dict[int, list[int]]) -> Callable[[int, int], bool]:
    """Whether the attacker wins from ``node`` within ``r`` plies under the counting rules
    of a bounded search (by brute force, the graph being acyclic): a defender's drop (a reply
    with a group) is futile at bound r when an answer to it leaves the defender mated at once,
    or wins within r while a reply that always counts holds out beyond r - 3 (or r < 4); a
    futile drop is not counted."""

    @functools.cache
    def win(n: int, r: int) -> bool:
        cs = children.get(n, [])
        if n % 2 == 0:
            return r >= 1 and any(win(c, r - 1) for c in cs)
        return all(win(c, r - 1) for c in cs if not (c >= 100 and futile(n, c, r)))

    @functools.cache
    def futile(n: int, drop: int, r: int) -> bool:
        need_hold = False
        for a in (c for c in children.get(drop, []) if c % 4 == 1):
            if win(a, 0):
                return True
            if r >= 2 and win(a, r):
                need_hold = True
        if not need_hold:
            return False
        return any(r - 3 < 1 or not win(c, r - 3) for c in children[n] if c < 100)

    return win


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(5, 9), st.booleans())
@example(19116, 7, False)  # a false disproof at 5 after the bounds 1-4, before the mend
def test_bounds_in_any_order_agree_with_the_futility_rule(
    seed: int, levels: int, quick: bool
) -> None:
    """One table through a shortening's sequence of bounds (first unbounded, then falling),
    and again rising: each answer is the brute force's. Whether a drop is futile depends on
    the bound, so an answer found at one bound must not be reused at another where the rule
    says otherwise (a false "no mate within r" made a shortest claim false, issue 40)."""
    rng = random.Random(seed)
    children = layered_graph_with_drops(rng, levels)
    win = bounded_truth(children)
    shuffled = list(range(1, 14))
    rng.shuffle(shuffled)
    for bounds in ((INF, 13, 11, 9, 7, 5, 3, 1), tuple(range(1, 14)), (INF, *shuffled)):
        s = solver(children, grouped=True, answers=True, quick=quick)
        for r in bounds:
            res = s.prove(graph_state(0), r)
            if r == INF:
                continue  # unbounded: every drop counts (no futility test there)
            assert res.status == ("proved" if win(0, r) else "disproved"), (children, bounds, r)


# ---------------------------------------------------------------- kernels through pointers

_ALL = tuple(dfpn.KERNEL_SIGNATURES)


def _fresh_graph(**kw: object) -> dfpn.Kernels:
    """GRAPH's kernels as new dispatchers (nothing compiled in this process yet)."""
    fresh: dict[int, object] = {}
    fns = [fresh.setdefault(id(f), kernel(_nrt=False)(f.py_func)) for f in GRAPH[:12]]
    return dfpn.Kernels(*fns, max_moves=GRAPH.max_moves, **kw)  # type: ignore[arg-type]


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(2, 8), st.integers(2, 8))
def test_kernels_through_pointers_prove_the_same(seed: int, n_or: int, n_and: int) -> None:
    """Every kernel called through a pointer (``Kernels.pointers``): the same answers, the
    same lengths, node for node, as the node function that links them."""
    children = random_graph(random.Random(seed), n_or, n_and, 2)
    ctx = graph_ctx(children, True, True, True)
    linked = DfPn(GRAPH, ctx, hash_mb=1, workspace=1 << 14)
    pointed = DfPn(GRAPH._replace(pointers=_ALL), ctx, hash_mb=1, workspace=1 << 14)
    for root in sorted(n for n in children if n % 2 == 0):
        a, b = linked.prove(graph_state(root)), pointed.prove(graph_state(root))
        assert (a.status, a.length) == (b.status, b.length), (children, root)
        assert linked.nodes == pointed.nodes


def test_the_node_function_compiles_without_its_pointer_kernels() -> None:
    k = _fresh_graph(pointers=_ALL)
    s = DfPn(k, graph_ctx({0: [1], 1: []}), hash_mb=1, workspace=1 << 14)
    s.compile_node(graph_state(0))
    assert not any(f.overloads for f in k[:12])  # type: ignore[attr-defined]
    assert s.prove(graph_state(0)).status == "proved"  # OR 0 -> AND 1, which has no reply
    assert all(f.overloads for f in k[:12])  # type: ignore[attr-defined]


@kernel(_nrt=False)
def _and_need_float(ctx, st):  # type: ignore[no-untyped-def]
    return 0.0


def test_a_pointer_kernel_of_another_type_is_refused() -> None:
    """A kernel whose return type is not the contract's would be called wrongly through
    its pointer: refused, naming it, before anything runs."""
    k = _fresh_graph(pointers=_ALL)._replace(and_need=_and_need_float)
    s = DfPn(k, graph_ctx({0: [1], 1: []}), hash_mb=1, workspace=1 << 14)
    with pytest.raises(TypeError, match="the and_need kernel returns float64"):
        s.prove(graph_state(0))

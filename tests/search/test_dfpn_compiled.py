"""The compiled df-pn (search/dfpn.py) on random AND/OR graphs with cycles, against the same
brute-force retrograde oracle as the reference solver's tests, plus its table, hands and
limits."""

from __future__ import annotations

import random
import threading

import numpy as np
from dfpn_graph import GRAPH, graph_ctx, graph_state
from hypothesis import given, settings
from hypothesis import strategies as st
from test_dfpn import oracle, random_graph

from banmen.search import dfpn
from banmen.search.dfpn import INF, DfPn, hand_ge
from banmen.search.limits import Limit, StopFlag


def solver(children: dict[int, list[int]], grouped: bool = False, **kw: object) -> DfPn:
    kw.setdefault("hash_mb", 1)
    kw.setdefault("workspace", 1 << 14)
    return DfPn(GRAPH, graph_ctx(children, grouped), **kw)  # type: ignore[arg-type]


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
@given(st.integers(0, 2**32 - 1), st.integers(2, 8), st.integers(2, 8))
def test_bounded_proofs_find_the_shortest_win(seed: int, n_or: int, n_and: int) -> None:
    rng = random.Random(seed)
    children = random_graph(rng, n_or, n_and, 3)
    truth = oracle(children)
    s = solver(children)
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

"""A df-pn kernel bundle walking a fixed AND/OR graph (shared by the compiled df-pn tests).

``ctx``: [flags, n_nodes, offsets (n_nodes + 1), children...]; OR nodes are even, AND odd.
``st``: [depth, node at depth 0, node at depth 1, ...]. A move is the child's node number.
flags bit 0: moves to nodes >= 100 share a group by their tens (like drops on one square).
flags bit 1: after a move to a node >= 100 (a "drop"), the attacker's answers to it (a
capture of the dropped piece, for the futility rule) are that node's children that are 1
modulo 4.
flags bit 2: ``quick_win`` answers as a game may: a move to a defender node with no reply
(mated), else -2 when after every move the defender has a reply without a group, else -1
(without it: always -1).
"""

from __future__ import annotations

import numpy as np

from banmen._jit import kernel
from banmen.search.dfpn import Kernels


def graph_ctx(
    children: dict[int, list[int]],
    grouped: bool = False,
    answers: bool = False,
    quick: bool = False,
) -> np.ndarray:
    n = max(max(children), max((c for cs in children.values() for c in cs), default=0)) + 1
    offsets = [0]
    flat: list[int] = []
    for node in range(n):
        flat.extend(children.get(node, []))
        offsets.append(len(flat))
    flags = (1 if grouped else 0) | (2 if answers else 0) | (4 if quick else 0)
    return np.array([flags, n, *offsets, *flat], dtype=np.int64)


def graph_state(root: int) -> np.ndarray:
    st = np.zeros(4096, dtype=np.int64)
    st[0] = 0
    st[1] = root
    return st


@kernel(_nrt=False)
def _moves(ctx, st, buf):  # type: ignore[no-untyped-def]
    node = st[1 + st[0]]
    n = ctx[1]
    a = ctx[2 + node]
    b = ctx[3 + node]
    for i in range(b - a):
        buf[i] = ctx[2 + n + 1 + a + i]
    return b - a


@kernel(_nrt=False)
def _play(ctx, st, m):  # type: ignore[no-untyped-def]
    st[0] += 1
    st[1 + st[0]] = m


@kernel(_nrt=False)
def _undo(ctx, st):  # type: ignore[no-untyped-def]
    st[0] -= 1


@kernel(_nrt=False)
def _key(ctx, st):  # type: ignore[no-untyped-def]
    return st[1 + st[0]] * 1000003 + 17


@kernel(_nrt=False)
def _hand(ctx, st):  # type: ignore[no-untyped-def]
    return 0


@kernel(_nrt=False)
def _outcome(ctx, st):  # type: ignore[no-untyped-def]
    return 1 if st[1 + st[0]] % 2 == 1 else 0


@kernel(_nrt=False)
def _quick_win(ctx, st, buf, n):  # type: ignore[no-untyped-def]
    if ctx[0] & 4 == 0:
        return -1
    nn = ctx[1]
    hope = False
    for i in range(n):
        c = buf[i]
        a = ctx[2 + c]
        b = ctx[3 + c]
        if a == b:
            return c  # a defender node with no reply: mated
        counted = False
        for j in range(a, b):
            if not (ctx[0] & 1 and ctx[2 + nn + 1 + j] >= 100):
                counted = True
        if not counted:
            hope = True
    return -1 if hope else -2


@kernel(_nrt=False)
def _group(ctx, st, m):  # type: ignore[no-untyped-def]
    if ctx[0] & 1 and m >= 100:
        return m // 10
    return -1


@kernel(_nrt=False)
def _futile_replies(ctx, st, buf):  # type: ignore[no-untyped-def]
    node = st[1 + st[0]]
    if ctx[0] & 2 == 0 or node < 100:
        return 0
    n = ctx[1]
    a = ctx[2 + node]
    b = ctx[3 + node]
    k = 0
    for i in range(b - a):
        c = ctx[2 + n + 1 + a + i]
        if c % 4 == 1:
            buf[k] = c
            k += 1
    return k


@kernel(_nrt=False)
def _hand_delta(ctx, st, m):  # type: ignore[no-untyped-def]
    return 0, 0


@kernel(_nrt=False)
def _and_need(ctx, st):  # type: ignore[no-untyped-def]
    return 0


GRAPH = Kernels(
    _moves, _moves, _play, _undo, _key, _hand, _outcome, _quick_win, _group,
    _futile_replies, _hand_delta, _and_need, max_moves=64,
)  # fmt: skip

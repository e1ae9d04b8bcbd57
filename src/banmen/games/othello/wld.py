# (numba types the kernels; pyproject.toml's override list for compiled modules does the same)
"""Othello win/loss/draw proofs with the compiled df-pn (:mod:`banmen.search.dfpn`).

An exact solver (:mod:`banmen.games.othello.endgame`) finds the final disc difference; a
win/loss/draw answer needs less: whether the side to move can finish ahead, and if not,
level. Each question is a df-pn proof for a fixed threshold ``t``: the *attacker* (the
side to move at the root) wins if its final disc difference — empty squares to the winner,
as the endgame solver counts — is greater than ``t``. ``t = 0`` asks "win?"; if that is
disproved, ``t = -1`` asks "at least a draw?". Df-pn searches the few moves that decide a
proof, guided by the mobility of each side (a new node's numbers are its move count).

The kernels (the df-pn contract, see :mod:`banmen.search.dfpn`): the state ``st`` is one
``int64`` array holding the ply and an undo stack of ``(P, O)`` pairs, the discs of the side
to move and of its opponent, one pair per ply. A pass is a move (:data:`PASS`), generated
only when the mover has no move and the opponent has one, so a side has nothing to play
exactly when the game is over. Df-pn alternates OR and AND nodes every ply, and a pass is a
ply, so the attacker is the side to move exactly at even plies. Othello has no hands, no
drops and no repetitions: the hand is 0, no reply has a group, none is futile.

>>> prove_wld((0xFFFF, 0xFF << 56)).result  # a finished game: ranks 1-2 against rank 8
'win'
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from banmen._bits import ctz64, mix64, popcnt64
from banmen._jit import kernel
from banmen.games.othello.board import Board
from banmen.games.othello.endgame import _solve_small
from banmen.games.othello.errors import InvalidBoardError
from banmen.games.othello.formats import PASS
from banmen.games.othello.kernels import U, flips, moves
from banmen.search.dfpn import DfPn, Kernels
from banmen.search.limits import Limit, StopFlag

__all__ = [
    "WLDResult",
    "prove_wld",
    "DFPN_KERNELS",
    "new_state",
    "LEAF_EMPTIES",
    "MAX_LEAF_EMPTIES",
]

# st[_LEAF_NODES] counts the leaf solver's nodes (it is handed ``st`` as its counter array,
# whose slot 0 it increments)
_LEAF_NODES = 0
_PLY = 1
_BASE = 2  # the (P, O) of ply p are st[_BASE + 2p] and st[_BASE + 2p + 1]
# A move fills a square and a pass is only generated when the opponent then moves, so a
# line has at most 2 * 62 + 1 plies (two discs at least: one per side, or the game is over).
_MAX_PLIES = 130
_STATE_SIZE = _BASE + 2 * (_MAX_PLIES + 1)
# Move buffers: 33 is the most moves a reachable position has, but any (P, O) is accepted.
_MAX_MOVES = 64
# ctx slots
_THRESHOLD = 0  # the attacker wins if its final disc difference is greater
_LEAF = 1  # positions with at most this many empties are solved at once (the endgame solver)
_CTX_SIZE = 2
#: the most empties a leaf may have (the endgame solver's code without move lists)
MAX_LEAF_EMPTIES = 7
#: the default: measured fastest (see docs/DESIGN.md)
LEAF_EMPTIES = 7
_SALT = 0x632BE59BD9B4E019
_GOLD = -7046029254386353131  # 0x9E3779B97F4A7C15 as int64


@kernel(_nrt=False)
def _moves(ctx: Any, st: Any, buf: Any) -> int:
    b = _BASE + 2 * st[_PLY]
    P = U(st[b])
    O = U(st[b + 1])
    if np.int64(popcnt64(~(P | O))) <= ctx[_LEAF]:
        return 0  # a leaf: outcome solves it
    mv = moves(P, O)
    if mv == U(0):
        if moves(O, P) == U(0):
            return 0  # the game is over: outcome decides
        buf[0] = PASS
        return 1
    n = 0
    while mv != U(0):
        buf[n] = np.int64(ctz64(mv))
        mv &= mv - U(1)
        n += 1
    return n


@kernel(_nrt=False)
def _play(ctx: Any, st: Any, m: int) -> None:
    p = st[_PLY]
    b = _BASE + 2 * p
    P = U(st[b])
    O = U(st[b + 1])
    if m == PASS:
        st[b + 2] = np.int64(O)
        st[b + 3] = np.int64(P)
    else:
        f = flips(P, O, U(m))
        st[b + 2] = np.int64(O ^ f)
        st[b + 3] = np.int64(P ^ f ^ (U(1) << U(m)))
    st[_PLY] = p + 1


@kernel(_nrt=False)
def _undo(ctx: Any, st: Any) -> None:
    st[_PLY] -= 1


@kernel(_nrt=False)
def _key(ctx: Any, st: Any) -> int:
    # The same discs with the same side to move can be reached at plies of both parities
    # (passes), once as an OR node and once as an AND node, so the parity (who the
    # attacker is) is part of the key; so is the threshold, which changes between proofs
    # sharing one table.
    p = st[_PLY]
    b = _BASE + 2 * p
    tag = ((p & 1) << 8) | (ctx[_THRESHOLD] & 0xFF)
    return mix64(st[b] ^ mix64(st[b + 1] + _SALT + tag * _GOLD))


@kernel(_nrt=False)
def _outcome(ctx: Any, st: Any) -> int:
    # A finished game, or a leaf: the endgame solver's null-window test on the threshold
    # (its final scores count the empties as the endgame solver does).
    p = st[_PLY]
    b = _BASE + 2 * p
    P = U(st[b])
    O = U(st[b + 1])
    n = np.int64(popcnt64(~(P | O)))
    t = ctx[_THRESHOLD]
    if p & 1 == 0:
        return 1 if _solve_small(P, O, t, t + 1, n, np.int64(0), st) > t else 0
    # the defender is to move: the attacker wins if the defender ends at -t - 1 or below
    return 1 if _solve_small(P, O, -t - 1, -t, n, np.int64(0), st) < -t else 0


@kernel(_nrt=False)
def _zero(ctx: Any, st: Any) -> int:
    return 0


@kernel(_nrt=False)
def _no_move(ctx: Any, st: Any, buf: Any, n: int) -> int:
    return -1


@kernel(_nrt=False)
def _no_group(ctx: Any, st: Any, m: int) -> int:
    return -1


@kernel(_nrt=False)
def _no_replies(ctx: Any, st: Any, buf: Any) -> int:
    return 0


@kernel(_nrt=False)
def _no_hand_delta(ctx: Any, st: Any, m: int) -> tuple[int, int]:
    return 0, 0


DFPN_KERNELS = Kernels(
    or_moves=_moves,
    and_moves=_moves,
    play=_play,
    undo=_undo,
    key=_key,
    hand=_zero,
    outcome=_outcome,
    quick_win=_no_move,
    group=_no_group,
    futile_replies=_no_replies,
    hand_delta=_no_hand_delta,
    and_need=_zero,
    max_moves=_MAX_MOVES,
)


def _i64(x: int) -> int:
    """A 64-bit board as the int64 with the same bits."""
    x &= (1 << 64) - 1
    return x - (1 << 64) if x >> 63 else x


def new_state(player: int, opponent: int) -> npt.NDArray[np.int64]:
    """The df-pn state of a position: ``player`` (to move) and ``opponent`` bitboards."""
    if player & opponent:
        raise InvalidBoardError("a square holds discs of both sides")
    st = np.zeros(_STATE_SIZE, dtype=np.int64)
    st[_BASE] = _i64(player)
    st[_BASE + 1] = _i64(opponent)
    return st


@dataclass
class WLDResult:
    """The game-theoretic result for the side to move: ``"win"``, ``"draw"``, ``"loss"``,
    or ``"unknown"`` when a limit stopped the proof (``reason``: ``"stopped"``,
    ``"timeout"``, ``"node_limit"`` or ``"memory"``); never a guess."""

    result: Literal["win", "draw", "loss", "unknown"]
    nodes: int  #: df-pn's nodes (what a node limit bounds)
    seconds: float
    reason: str | None = None
    leaf_nodes: int = 0  #: the nodes of the endgame solver's searches at the leaves


def prove_wld(
    position: Board | tuple[int, int],
    limit: Limit | None = None,
    stop: StopFlag | None = None,
    hash_mb: int = 64,
    progress: Callable[[dict[str, Any]], None] | None = None,
    leaf_empties: int = LEAF_EMPTIES,
) -> WLDResult:
    """Win, draw or loss for the side to move of ``position`` (a :class:`Board`, or the
    bitboards ``(player, opponent)`` of the side to move and its opponent), proved by
    df-pn. ``limit`` (time and df-pn's nodes; not depth) and ``stop`` bound both proofs
    together. Positions
    with at most ``leaf_empties`` empty squares (0 to :data:`MAX_LEAF_EMPTIES`) are leaves
    of the proof tree, decided by the endgame solver's null-window search; 0 makes every
    leaf a finished game."""
    if not 0 <= leaf_empties <= MAX_LEAF_EMPTIES:
        raise ValueError(f"leaf_empties must be 0 to {MAX_LEAF_EMPTIES}, got {leaf_empties}")
    t0 = time.perf_counter()
    if isinstance(position, Board):
        b = position
        player, opponent = b.pieces()
    else:
        player, opponent = position
    st = new_state(player, opponent)
    ctx = np.zeros(_CTX_SIZE, dtype=np.int64)
    ctx[_LEAF] = leaf_empties
    solver = DfPn(
        DFPN_KERNELS, ctx, limit=limit, stop=stop, progress=progress, hash_mb=hash_mb,
        workspace=1 << 14,  # a line is at most ~125 plies of at most 64 moves
    )  # fmt: skip
    # both proofs in one search session: one thread, one deadline
    result, reason = solver.session(lambda: _decide(solver, ctx, st))
    seconds = time.perf_counter() - t0
    return WLDResult(result, solver.nodes, seconds, reason, int(st[_LEAF_NODES]))


def _decide(
    solver: DfPn, ctx: npt.NDArray[np.int64], st: npt.NDArray[np.int64]
) -> tuple[Literal["win", "draw", "loss", "unknown"], str | None]:
    """ "Win?" (final difference > 0), then, if not, "at least a draw?" (> -1)."""
    ctx[_THRESHOLD] = 0
    res = solver.prove(st)
    if res.status != "disproved":
        return ("win", None) if res.status == "proved" else ("unknown", res.reason)
    ctx[_THRESHOLD] = -1
    res = solver.prove(st)
    if res.status != "unknown":
        return ("draw" if res.status == "proved" else "loss"), None
    return "unknown", res.reason

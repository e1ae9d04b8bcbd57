"""Df-pn for every two-player game with alpha-beta kernels: the generic adapter.

The compiled df-pn (:mod:`.dfpn`) proves a win for an *attacker* over its own kernel
contract (:class:`~.dfpn.Kernels`: a mutable position played and taken back in place, the
attacker's and the defender's moves, a hash, the outcome of a node with no move). A game
with alpha-beta kernels (:class:`~.alphabeta.Kernels`: immutable tuple states, values from
the side to move's view, gains banked by moves, every move handing the turn over) gets that
contract here, written once, and :func:`prove` asks it the questions a player needs:

* **the question**: "does the side to move at the root — the attacker — finish with a
  total greater than ``t``?", where the total is the alpha-beta's value of a whole line:
  the gains each side banked along it (the attacker's minus the defender's, the points
  banked before the root included) plus ``final`` of the finished game, from the
  attacker's view. ``t = 0`` asks "a win?" (a draw is not one); ``t = -1`` asks "at least
  a draw?". Every move hands the turn over, so the attacker is to move at even plies from
  the root: df-pn's OR and AND nodes alternate as the game's sides do.
* **the state**: the game's tuple kept as a stack, one array per member (so each keeps its
  dtype) with one slot per ply, and ``meta`` (int64): the ply, then the points banked so
  far from the view of the side to move at each ply: ``st = (members, meta)``. ``play``
  reads the tuple at the ply, writes the game's ``play`` of it one slot up (with the
  move's ``gain`` banked) and steps the ply; ``undo`` steps back.
* **the context**: ``ctx = (rules, game_ctx, params)`` — the game's kernels as a
  :class:`Rules` tuple (handed over as *data*: a closure over them would break numba's
  on-disk cache), the game's own ``ctx``, and ``params`` (int64: the threshold ``t``).
* **the hash**: the game's ``key``, the parity of the ply (whose turn the attacker's is:
  a state may not say who is to move) and what the attacker still needs,
  ``t - banked``: a position reached with other gains banked asks another question,
  and one reached with the same need shares its answer, across thresholds too.
* **the outcome** of a node with no move (the game is over): 1 when the attacker's total
  is greater than ``t``.
* no hands, no groups, no futile replies, no quick win: a game's rules have none of
  tsume-shogi's; df-pn's first numbers at a new node are its move counts (df-pn+ style,
  as everywhere).

Repetitions cannot occur (every line of a game with these kernels ends, so no state comes
back on a line); a game whose length has no known bound (``horizon`` -1) is proved the
same way — df-pn never needed a bound: its proofs end at finished games. A line deeper
than df-pn's depth cap (:data:`~.dfpn.MAX_DEPTH`) is a ``memory`` stop, not an answer.

:func:`prove` answers ``win`` (with the winning move and a line the proof holds for),
``draw`` (the first question disproved, the second proved: a move that keeps the draw),
``loss`` (both disproved), ``no win`` (the first disproved, the second not asked, or
stopped by a limit) or ``unknown`` (a limit stopped the first question): a limit is never
an answer. Unproved, it still names a move: the most proving child of the root for the
question it was stopped on (the least proof number), or the game's first move.
"""

# numba types the compiled functions; mypy sees numba's untyped decorators.
# mypy: disable-error-code="misc, no-any-return, untyped-decorator, no-untyped-call"

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple

import numpy as np
import numpy.typing as npt
from numba import types
from numba.core.errors import TypingError
from numba.extending import overload

from banmen._bits import mix64
from banmen._jit import kernel, njit
from banmen.search.alphabeta import Kernels as RulesKernels
from banmen.search.dfpn import MAX_DEPTH, DfPn
from banmen.search.dfpn import Kernels as DfPnKernels
from banmen.search.limits import Limit, StopFlag
from banmen.search.proof import INF

__all__ = [
    "Rules",
    "RulesProof",
    "ProofAnswer",
    "Answer",
    "prove",
    "rules_dfpn_kernels",
    "WIN",
    "AT_LEAST_DRAW",
]

#: the threshold of "a win?": the attacker's total greater than 0
WIN = 0
#: the threshold of "at least a draw?": greater than -1
AT_LEAST_DRAW = -1

# meta[] slots: the ply, then the points banked (side to move's view) at each ply
M_PLY = 0
M_BANKED = 1

# params[] slots
P_THRESHOLD = 0
P_LEN = 1

_SALT = 0x3C6EF372FE94F82B
_GOLDEN = -7046029254386353131  # 0x9E3779B97F4A7C15 as int64

Answer = Literal["win", "draw", "loss", "no win", "unknown"]


class Rules(NamedTuple):
    """The game's kernels the adapter calls, handed to it as data in ``ctx``."""

    gen_moves: Any
    play: Any
    gain: Any
    final: Any
    key: Any


# --------------------------------------------------------------------------- the stack
#
# A game's state is a tuple of any length and of any member types; the two helpers below
# are written for each length when numba first types a call with it.


def _state_at(members: Any, i: int) -> Any:
    """The game's tuple state kept at slot ``i`` of its member arrays (compiled only)."""
    raise NotImplementedError


def _put_state(members: Any, i: int, s: Any) -> None:
    """The game's tuple state ``s`` written at slot ``i`` (compiled only; each member is
    cast to its array's dtype)."""
    raise NotImplementedError


def _written(name: str, params: tuple[str, ...], body: str) -> Callable[..., Any]:
    """A function of ``params`` (each annotated ``Any``: numba matches an overload's
    implementation to its declaration, annotations included) with the one-line ``body``."""
    namespace: dict[str, Any] = {"Any": Any}
    head = ", ".join(f"{p}: Any" for p in params)
    exec(f"def {name}({head}):\n    {body}\n", namespace)  # noqa: S102 - text made here
    fn: Callable[..., Any] = namespace[name]
    return fn


def _length(members: Any) -> int:
    if not isinstance(members, types.BaseTuple) or not all(
        isinstance(t, types.Array) and t.ndim == 1 for t in getattr(members, "types", ())
    ):
        raise TypingError("a df-pn state's members must be a tuple of 1-d arrays")
    return len(members)


@overload(_state_at)
def _ov_state_at(members: Any, i: Any) -> Any:
    n = _length(members)
    items = "".join(f"members[{k}][i], " for k in range(n))
    return _written("state_at", ("members", "i"), f"return ({items})")


@overload(_put_state)
def _ov_put_state(members: Any, i: Any, s: Any) -> Any:
    n = _length(members)
    if not isinstance(s, types.BaseTuple) or len(s) != n:
        raise TypingError(f"the game's play returned {s}, not a tuple of {n} members")
    body = "; ".join(f"members[{k}][i] = s[{k}]" for k in range(n)) if n else "pass"
    return _written("put_state", ("members", "i", "s"), body)


# --------------------------------------------------------------------------- the kernels


@kernel
def rules_moves(ctx: Any, st: Any, buf: Any) -> int:
    """Both sides' moves: the game's ``gen_moves`` at the ply (0: the game is over)."""
    p = st[1][M_PLY]
    return ctx[0].gen_moves(ctx[1], _state_at(st[0], p), buf)


@kernel
def rules_play(ctx: Any, st: Any, m: int) -> None:
    rules, gctx = ctx[0], ctx[1]
    members, meta = st
    p = meta[M_PLY]
    s = _state_at(members, p)
    g = rules.gain(gctx, s, m)
    _put_state(members, p + 1, rules.play(gctx, s, m))
    # the points banked, from the view of the side to move next: its opponent's are the
    # mover's, and the mover's grew by the move's gain
    meta[M_BANKED + p + 1] = -(meta[M_BANKED + p] + g)
    meta[M_PLY] = p + 1


@kernel
def rules_undo(ctx: Any, st: Any) -> None:
    st[1][M_PLY] -= 1


@njit(cache=True, inline="always")
def _attacker_banked(meta: Any) -> int:
    """The points banked so far, the attacker's minus the defender's."""
    p = meta[M_PLY]
    v = meta[M_BANKED + p]
    return v if (p & 1) == 0 else -v


@kernel
def rules_key(ctx: Any, st: Any) -> int:
    """The game's key, the ply's parity and the attacker's need (see the module doc)."""
    p = st[1][M_PLY]
    k = np.int64(ctx[0].key(ctx[1], _state_at(st[0], p)))
    need = ctx[2][P_THRESHOLD] - _attacker_banked(st[1])
    return mix64(k ^ mix64((need << 1 | (p & 1)) * _GOLDEN + _SALT))


@kernel
def rules_outcome(ctx: Any, st: Any) -> int:
    """A finished game: 1 when the attacker's total is greater than the threshold."""
    members, meta = st
    p = meta[M_PLY]
    mover = ctx[0].final(ctx[1], _state_at(members, p)) + meta[M_BANKED + p]
    total = mover if (p & 1) == 0 else -mover
    return 1 if total > ctx[2][P_THRESHOLD] else 0


@kernel
def _zero(ctx: Any, st: Any) -> int:
    return 0


@kernel
def _no_quick_win(ctx: Any, st: Any, buf: Any, n: int) -> int:
    return -1


@kernel
def _no_group(ctx: Any, st: Any, m: int) -> int:
    return -1


@kernel
def _no_futile_replies(ctx: Any, st: Any, buf: Any) -> int:
    return 0


@kernel
def _no_hand_delta(ctx: Any, st: Any, m: int) -> tuple[int, int]:
    return 0, 0


def rules_dfpn_kernels(rules: RulesKernels) -> DfPnKernels:
    """The df-pn kernels (:class:`~.dfpn.Kernels`) of a game with alpha-beta kernels
    ``rules`` (the functions are the same for every game; ``max_moves`` is the game's)."""
    return DfPnKernels(
        or_moves=rules_moves, and_moves=rules_moves, play=rules_play, undo=rules_undo,
        key=rules_key, hand=_zero, outcome=rules_outcome, quick_win=_no_quick_win,
        group=_no_group, futile_replies=_no_futile_replies, hand_delta=_no_hand_delta,
        and_need=_zero, max_moves=rules.max_moves,
    )  # fmt: skip


@njit(cache=True)
def _children(ctx: Any, st: Any, buf: Any, keys: Any) -> int:
    """The moves at ``st``'s ply into ``buf`` and each child's key into ``keys``."""
    n = rules_moves(ctx, st, buf)
    for i in range(n):
        rules_play(ctx, st, buf[i])
        keys[i] = rules_key(ctx, st)
        rules_undo(ctx, st)
    return n


@njit(cache=True)
def _step(ctx: Any, st: Any, m: int, forward: bool) -> None:
    """Play ``m`` (``forward``) or take the last move back."""
    if forward:
        rules_play(ctx, st, m)
    else:
        rules_undo(ctx, st)


# --------------------------------------------------------------------------- the prover


@dataclass
class ProofAnswer:
    """What :func:`prove` established for the side to move (see the module doc).

    ``move``: the winning move (``win``), a move that keeps the draw (``draw``), else the
    move it would play (``loss``, ``no win``, ``unknown``: a guess, nothing proved of it);
    ``None`` only when the game is over. ``line``: moves a proof holds for, from the root —
    the attacker's proved moves and, at the defender's turns, the reply that holds out
    longest in the proof (empty unless ``win`` or ``draw``). ``length``: plies of that line
    as df-pn counted them. ``reason``: the limit that stopped a question (``timeout``,
    ``node_limit``, ``stopped``, ``memory``), ``None`` if none did. ``asked``: the
    questions settled, in order (``"win"``, ``"draw"``)."""

    answer: Answer
    move: int | None
    line: list[int] = field(default_factory=list)
    length: int | None = None
    reason: str | None = None
    nodes: int = 0
    seconds: float = 0.0
    asked: list[str] = field(default_factory=list)
    #: the root's proof and disproof numbers for the question a limit stopped, from its
    #: children's entries in the table (:data:`~.proof.INF`: infinite)
    pn: int | None = None
    dn: int | None = None


class RulesProof:
    """A game's alpha-beta kernels as df-pn kernels, with the states to search them:
    :attr:`kernels` for :class:`~.dfpn.DfPn`, :meth:`context` for its ``ctx``,
    :meth:`state` for the position it proves."""

    def __init__(self, rules: RulesKernels) -> None:
        self.rules = rules
        self.kernels = rules_dfpn_kernels(rules)
        self._calls = Rules(rules.gen_moves, rules.play, rules.gain, rules.final, rules.key)

    def context(self, game_ctx: Any, threshold: int = WIN) -> tuple[Rules, Any, Any]:
        """The df-pn's ``ctx`` for the game's own ``ctx`` (``params`` holds the question's
        threshold; change it between proofs with :meth:`ask`)."""
        params = np.zeros(P_LEN, dtype=np.int64)
        params[P_THRESHOLD] = threshold
        return (self._calls, game_ctx, params)

    @staticmethod
    def ask(ctx: tuple[Any, ...], threshold: int) -> None:
        """Make ``threshold`` the question the next proof with ``ctx`` answers."""
        ctx[2][P_THRESHOLD] = threshold

    @staticmethod
    def state(game_state: tuple[Any, ...], banked: int = 0, plies: int = 1024) -> tuple[Any, Any]:
        """A df-pn state: the game's tuple ``game_state`` at ply 0, ``banked`` points
        banked so far (the side to move's minus its opponent's), room for ``plies``
        plies below it."""
        members = tuple(np.zeros(plies + 1, dtype=np.asarray(x).dtype) for x in game_state)
        for a, x in zip(members, game_state, strict=True):
            a[0] = x
        meta = np.zeros(M_BANKED + plies + 1, dtype=np.int64)
        meta[M_BANKED] = banked
        return members, meta


def prove(
    rules: RulesKernels | RulesProof,
    game_ctx: Any,
    game_state: tuple[Any, ...],
    banked: int = 0,
    limit: Limit | None = None,
    *,
    stop: StopFlag | None = None,
    progress: Callable[[dict[str, Any]], None] | None = None,
    hash_mb: int = 64,
    draw: bool = True,
    horizon: int = -1,
) -> ProofAnswer:
    """Win, draw or loss for the side to move of ``game_state`` (the game's ``ctx``
    ``game_ctx``; ``banked``: the points it has banked beyond its opponent's), proved by
    df-pn: "a win?", and, if not and ``draw``, "at least a draw?" (module doc). ``limit``
    (time and df-pn's nodes; not depth) and ``stop`` bound both questions together;
    ``progress`` gets the solver's report (with ``phase`` ``"win"`` or ``"draw"``) every
    0.1 s. ``horizon``: the game's bound on the plies left (-1: none known) sizes the
    search's stacks."""
    t0 = time.perf_counter()
    rp = rules if isinstance(rules, RulesProof) else RulesProof(rules)
    max_moves = max(1, rp.rules.max_moves)
    # a line of ``depth`` plies at most (the game's bound, or df-pn's cap), the state's
    # stack with room for it and a few more, the move stack with room for two more frames
    depth = MAX_DEPTH if horizon < 0 else max(1, min(MAX_DEPTH, horizon + 1))
    plies = depth + 4
    workspace = max(1 << 12, min(1 << 20, (depth + 4) * max_moves))
    ctx = rp.context(game_ctx)
    st = rp.state(game_state, banked, plies)
    solver = DfPn(
        rp.kernels, ctx, limit=limit, stop=stop, progress=progress,  # type: ignore[arg-type]
        hash_mb=hash_mb, workspace=workspace, max_depth=depth,
    )  # fmt: skip
    try:
        answer = solver.session(lambda: _decide(solver, rp, ctx, st, draw))
    finally:
        nodes = solver.nodes
        solver.release()
    answer.nodes = nodes
    answer.seconds = time.perf_counter() - t0
    return answer


def _decide(
    solver: DfPn, rp: RulesProof, ctx: tuple[Any, ...], st: tuple[Any, Any], draw: bool
) -> ProofAnswer:
    """ "A win?", then, if not, "at least a draw?"; the move and line of the answer."""
    buf = np.zeros(max(1, rp.rules.max_moves), dtype=np.int64)
    keys = np.zeros_like(buf)
    n = int(_children(ctx, st, buf, keys))
    if n == 0:
        return ProofAnswer(_finished(ctx, st), None)
    first = int(buf[0])
    rp.ask(ctx, WIN)
    solver.phase = "win"
    res = solver.prove(st)  # type: ignore[arg-type]
    if res.status == "proved":
        line = _line(solver, ctx, st, buf, keys)
        return ProofAnswer("win", line[0] if line else first, line, res.length, asked=["win"])
    if res.status == "unknown":
        return _unproved("unknown", solver, ctx, st, res.reason, first, [])
    if not draw:
        return ProofAnswer("no win", first, asked=["win"])
    rp.ask(ctx, AT_LEAST_DRAW)
    solver.phase = "draw"
    res = solver.prove(st)  # type: ignore[arg-type]
    if res.status == "proved":
        line = _line(solver, ctx, st, buf, keys)
        return ProofAnswer("draw", line[0] if line else first, line, res.length,
                           asked=["win", "draw"])  # fmt: skip
    if res.status == "disproved":
        return ProofAnswer("loss", first, asked=["win", "draw"])
    return _unproved("no win", solver, ctx, st, res.reason, first, ["win"])


def _finished(ctx: tuple[Any, ...], st: tuple[Any, Any]) -> Answer:
    """The answer at a finished game: its total, as the questions would read it."""
    old = int(ctx[2][P_THRESHOLD])
    try:
        ctx[2][P_THRESHOLD] = WIN
        if rules_outcome(ctx, st):
            return "win"
        ctx[2][P_THRESHOLD] = AT_LEAST_DRAW
        return "draw" if rules_outcome(ctx, st) else "loss"
    finally:
        ctx[2][P_THRESHOLD] = old


def _unproved(
    answer: Answer,
    solver: DfPn,
    ctx: tuple[Any, ...],
    st: tuple[Any, Any],
    reason: str | None,
    first: int,
    asked: list[str],
) -> ProofAnswer:
    """Stopped by a limit: the root's most proving child for the question asked (the least
    proof number, then the greatest disproof number), or the first move if none is known."""
    buf = np.zeros(max(1, solver.kernels.max_moves), dtype=np.int64)
    keys = np.zeros_like(buf)
    n = int(_children(ctx, st, buf, keys))
    best, best_nums = first, (INF + 1, 0)
    # the root's numbers for this question, as the table holds its children's: the least
    # proof number, the sum of the disproof numbers
    pn_root, dn_root = INF, 0
    for i in range(n):
        # (a child the table does not hold reads as (1, 1): as good as any unexamined one)
        pn, dn, _, _ = solver.lookup(int(keys[i]), 0, INF)
        pn_root, dn_root = min(pn_root, pn), min(INF, dn_root + dn)
        if (pn, -dn) < best_nums:
            best, best_nums = int(buf[i]), (pn, -dn)
    return ProofAnswer(answer, best, reason=reason, asked=asked, pn=pn_root, dn=dn_root)


def _line(
    solver: DfPn,
    ctx: tuple[Any, ...],
    st: tuple[Any, Any],
    buf: npt.NDArray[np.int64],
    keys: npt.NDArray[np.int64],
) -> list[int]:
    """The line the proof just made holds for, read back from the table: at the
    attacker's turns its proved move of the shortest proof, at the defender's the reply
    whose proof is longest; it ends at a finished game, or where the table has let an
    entry go. ``st`` is left as it was."""
    line: list[int] = []
    played = 0
    cap = int(st[1].shape[0]) - M_BANKED - 2 - int(st[1][M_PLY])
    try:
        while played < cap:
            n = int(_children(ctx, st, buf, keys))
            if n == 0:
                break
            attacker = played % 2 == 0
            pick, pick_len = -1, 0
            for i in range(n):
                pn, _, length, _ = solver.lookup(int(keys[i]), 0, INF)
                if pn != 0:
                    if not attacker:
                        pick = -1  # a reply not proved: the table lost it
                        break
                    continue
                if pick < 0 or (length < pick_len if attacker else length > pick_len):
                    pick, pick_len = i, length
            if pick < 0:
                break
            m = int(buf[pick])
            line.append(m)
            _step(ctx, st, m, True)
            played += 1
    finally:
        for _ in range(played):
            _step(ctx, st, 0, False)
    return line

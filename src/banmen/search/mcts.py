"""Monte-Carlo tree search, written once and compiled for every game that supplies kernels.

A game hands the search a bundle of compiled kernels (:class:`MctsKernels`) over a
*mutable* state — a tuple of arrays the kernels change in place — and a read-only ``ctx``
(per-game constants). Numba specialises the search loop for each bundle, as for the
alpha-beta search (DESIGN.md). A game with only the alpha-beta rules (immutable tuple
states, :class:`banmen.search.alphabeta.Kernels`) gets this bundle from the generic adapter
:mod:`banmen.search.mcts_rules`; Go keeps kernels of its own (a mutable board, its playout
policy and priors: :mod:`banmen.games.go.policy`), an adapter of the same contract.

The kernel contract (all compiled, with :func:`banmen._jit.kernel`):

``copy(ctx, src, dst)``
    Make ``dst`` the position ``src`` (a game may keep ``dst``'s random-number state: the
    search copies the root into one scratch state before every playout).
``to_move(ctx, st) -> int``
    The player to move, 1 or 2.
``expand(ctx, st, moves, prior_n, prior_w) -> n``
    The legal moves to search (``moves[:n]``, each ``0 <= m < move_limit``) with their
    prior knowledge as virtual visits ``prior_n`` (> 0) and virtual wins ``prior_w`` for
    the mover (floats). ``n == 0`` means the game is over. ``st`` is not changed.
``play(ctx, st, move)``
    Play ``move`` in place.
``playout(ctx, st, seq, seqc) -> (reward, length)``
    Play the game to its end by the game's playout policy, writing the moves to
    ``seq[:length]`` and their players to ``seqc``; ``reward`` is player 1's result in
    [0, 1] (1 a win, 0 a loss). ``st`` is a scratch state: it may be left anywhere.
``evaluate(ctx, st) -> reward``
    Player 1's result of a finished game.

and, for PUCT (below; both optional):

``prior(ctx, st, moves, n, prior_n, prior_w, p)``
    The prior probabilities ``p[:n]`` (summing to 1) of ``expand``'s moves, given its
    virtual visits and wins. Default :func:`visit_priors`: the virtual win rates read
    back as log-odds, ``p ∝ exp(logit(w / n) / PRIOR_TEMPERATURE)`` — uniform when every
    move has the same prior.
``value(ctx, st, seq, seqc) -> (reward, length)``
    Player 1's expected result of the position ``st`` (a scratch state, which it may
    change), as ``playout`` answers it: the leaf evaluation. Default: ``playout`` itself
    (one playout values the leaf).

What else a bundle says: ``max_moves`` (the most moves ``expand`` gives), ``max_playout``,
``move_limit`` (moves are below it: the size of the AMAF tables; 0: ``max_moves``),
``amaf`` (a move means the same thing wherever it is played, so AMAF statistics apply;
off: none are gathered), ``amaf_skip`` (a move that gets none, a pass) and ``keep_first``
(``expand``'s first moves, which progressive widening keeps first and always searches:
Go's pass).

The tree lives in preallocated arrays: per node ``fstat`` (float32: visits and wins
including the prior's virtual ones, AMAF visits and wins, real wins) and ``istat`` (int32:
move, first child, number of children, real visits, flags: the player who made the move,
pruned). A node's children are contiguous.

Each iteration copies the root into a scratch state and descends by **UCT-RAVE**: a child's
value is ``(1 - b) Q + b Q_amaf`` with ``b = n_amaf / (n_amaf + n + n_amaf n / K)`` (the
"equivalence parameter" ``K``, :attr:`MCTS.rave_equiv`; after Gelly and Silver,
"Monte-Carlo tree search and rapid action value estimation in computer Go", AIJ 2011),
plus ``c sqrt(ln N / (n + 1))`` (:attr:`MCTS.explore`; 0 by default, as the priors and
AMAF already spread the search). ``Q`` counts the prior's virtual visits, so a fresh child
is valued at its prior. A leaf visited :attr:`MCTS.expand_threshold` times is expanded (four
times as many once the tree is half full) and the playout runs from the new node. Backup
adds the reward to every node on the path and, for AMAF, to every sibling whose move its
player played first later in the same simulation (tree part and playout). The move played
is the most visited one.

**PUCT** (``MCTS(puct=True)``; AlphaZero's selection, Silver et al., "A general
reinforcement learning algorithm that masters chess, shogi and Go through self-play",
Science 2018): the same loop with another selection rule and leaf evaluator. A child is
chosen by ``Q + c_puct P sqrt(N) / (1 + n)`` (``P`` its prior probability from the
``prior`` kernel, ``N`` the parent's visits, :attr:`MCTS.c_puct`); a child not yet
visited has the parent's ``Q`` for its mover less :attr:`MCTS.fpu` ("first play
urgency"). Every leaf reached is expanded at once and valued by the ``value`` kernel (no
playout unless ``value`` is one); no prior visits, no AMAF, no widening. In this mode a
node's AMAF wins column holds its prior probability (``F_PRIOR``).

**Progressive widening** (:attr:`MCTS.widen` = ``W`` > 0; after Coulom, "Computing Elo
ratings of move patterns in the game of Go", ICGA Journal 2007, and Chaslot et al.'s
progressive unpruning): a node's children are sorted by prior value when they are made
(the kernels' first ``keep_first`` moves stay first), and selection looks only at those
and the ``W`` best, one more each time the node's visits grow by a factor of 1.4 past
40. AMAF statistics still reach every child, so a move that enters late starts with what
the playouts saw of it.

**Threads** (``MCTS(threads=T)``, tree parallelism): T threads run the compiled loop
(:func:`_run`, ``nogil``; a lone search is its one thread) on the one tree, each with its
own scratch state, buffers and AMAF stamps. With more than one, everything shared is
changed with atomic read-modify-writes (:mod:`banmen._atomic`): a playout is claimed from
the shared count before it starts (so ``Limit(nodes=N)`` is kept exactly); on its way down
a thread adds a *virtual loss* (:attr:`MCTS.virtual_loss` visits without a win) to every
node it passes, so that the others look elsewhere, and backup turns it into the real
visit; a leaf is expanded by the thread whose compare-and-swap marks it ``EXPANDING`` (a
thread that meets such a node plays out from it), which takes its children's room with an
atomic add, writes them, then publishes the node's child count and, last, its first child
with a sequentially consistent exchange. Nothing waits on a lock.

**Pointers** (:attr:`MctsKernels.pointers`): numba compiles a call to a compiled function
by linking the callee's code into the caller's, so the loop's compile optimises and emits
machine code for the whole game again (every game's MCTS bundle, and Go's priors and
playouts). A bundle that sets ``pointers`` is handed to the loop as function pointers of
the contract's signatures (:data:`KERNEL_RETURNS`): the loop links nothing of the game,
its compile can happen before the kernels' and beside them (Go's first move compiles it
in a helper process), and a call costs an indirect jump — a playout, an expansion, a move
down the tree, not an inner loop.

The compiled loop releases the GIL and polls the stop flag every 16 playouts (a
:class:`~banmen.search.limits.Deadline` sets it for time limits); ``Limit(nodes=N)``
counts playouts. The driver runs it in slices of about a quarter second to report
:class:`MctsInfo`. Tree reuse: :meth:`MCTS.advance` makes the subtree under the moves
played since the last search the new root (copying it to the front of the arrays).
"""

# numba types the compiled functions; mypy sees numba's untyped decorators.
# mypy: disable-error-code="misc, no-any-return, untyped-decorator, no-untyped-call, call-arg"

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numba
import numpy as np
from numba import types
from numba.core.types import FunctionType

from banmen._atomic import atomic_add, atomic_add2, atomic_cas2, atomic_store2
from banmen._bits import stable_order
from banmen._fields import PerSecond
from banmen._jit import compile_returning, kernel, njit
from banmen.search.limits import STOP_REQUESTED, STOP_TIME, Deadline, Limit, StopFlag

__all__ = ["MctsKernels", "MCTS", "MctsInfo", "MctsResult", "ChildStats", "visit_priors"]

# fstat columns
F_N, F_W, F_RN, F_RW, F_REAL = range(5)
F_PRIOR = F_RW  #: PUCT (no AMAF): the node's prior probability
# istat columns
I_MOVE, I_FIRST, I_COUNT, I_VISITS, I_FLAGS = range(5)
UNEXPANDED = -1
TERMINAL = -2
EXPANDING = -3  #: a thread is giving the node its children
PRUNED = 4  # flag bit; bits 0-1 hold the player who made the move

# ctl[] slots
C_PLAYOUTS = 0  #: playouts of the current search (read by the worker's progress thread)
C_LIMIT = 1  #: stop when C_PLAYOUTS reaches this
C_SLICE = 2  #: return when C_PLAYOUTS reaches this (the driver's reporting slices)
C_USED = 3  #: nodes in use
C_CAP = 4  #: node capacity
C_THRESHOLD = 5  #: real visits before a leaf is expanded
C_MIN = 6  #: playouts before the stop flag is heeded
C_MAXDEPTH = 7  #: deepest tree descent so far
C_SKIP = 8  #: the move that gets no AMAF statistics (-1: none)
C_STOPPED = 9  #: 1 if the stop flag ended the last run
C_FULL = 10  #: leaves left unexpanded for lack of room
C_WIDEN = 11  #: progressive widening: children searched at first (0: all, no widening)
C_KEEP = 12  #: ... besides the kernels' first moves, kept first (MctsKernels.keep_first)
C_AMAF = 13  #: 1: AMAF statistics are gathered (MctsKernels.amaf)
C_PUCT = 14  #: 1: PUCT selection and leaf values (module docstring); 0: UCT-RAVE, playouts
C_LEN = 15

#: what each kernel of the contract returns (module docstring), as numba types: the
#: signatures of a bundle's function pointers (:attr:`MctsKernels.pointers`)
KERNEL_RETURNS: dict[str, Any] = {
    "copy": types.none,
    "to_move": types.int64,
    "expand": types.int64,
    "play": types.none,
    "playout": types.Tuple((types.float64, types.int64)),
    "evaluate": types.float64,
    "prior": types.none,
    "value": types.Tuple((types.float64, types.int64)),
}

# fpar[] slots: the loop's float parameters
FP_EQUIV, FP_EXPLORE, FP_VLOSS, FP_CPUCT, FP_FPU = range(5)

WIDEN_VISITS = 40.0  #: progressive widening: a node's visits at the first step
WIDEN_RATE = 1.4  #: ... and the factor between steps
#: PUCT's default priors (:func:`visit_priors`): the temperature of the virtual win rates'
#: log-odds. Go's learned priors are a sigmoid of 0.7 times the log of a move's share of
#: the policy (:data:`banmen.games.go.policy.PARAMS`' ``prior_scale``), so at 0.7 they are
#: read back as the policy's own probabilities.
PRIOR_TEMPERATURE = 0.7

MAX_DEPTH = 1024  #: the longest descent through the tree


class _Buffers(NamedTuple):
    """One searching thread's own arrays."""

    path: Any  #: the nodes of the descent
    seq: Any  #: the playout's moves
    seqc: Any  #: ... and their players
    stamp: Any  #: AMAF: the simulation that last saw each move
    owner: Any  #: ... and who played it first
    moves: Any  #: an expansion's moves
    pn: Any  #: ... their prior visits
    pw: Any  #: ... and prior wins
    pp: Any  #: ... and prior probabilities (PUCT)
    mine: Any  #: the AMAF stamp counter and this search's playouts by this thread


@kernel
def visit_priors(ctx: Any, st: Any, moves: Any, n: int, pn: Any, pw: Any, p: Any) -> None:
    """The default ``prior`` kernel: ``p ∝ exp(logit(q) / PRIOR_TEMPERATURE)`` for each
    move's virtual win rate ``q = pw / pn`` (kept within [0.001, 0.999]): uniform when
    every move has the same prior, the policy's probabilities for Go's learned priors."""
    top = -1e300
    for i in range(n):
        q = pw[i] / pn[i] if pn[i] > 0 else 0.5
        q = min(max(q, 0.001), 0.999)
        p[i] = math.log(q / (1.0 - q)) / PRIOR_TEMPERATURE
        top = max(top, p[i])
    z = 0.0
    for i in range(n):
        p[i] = math.exp(p[i] - top)
        z += p[i]
    for i in range(n):
        p[i] /= z


class MctsKernels(NamedTuple):
    """The compiled functions through which the search sees a game (module docstring)."""

    copy: Any
    to_move: Any
    expand: Any
    play: Any
    playout: Any
    evaluate: Any
    max_moves: int  #: the most children a node can have (``expand``'s moves)
    max_playout: int  #: the longest playout, in moves
    amaf_skip: int = -1  #: a move (a pass) that gets no AMAF statistics
    #: PUCT: ``prior(ctx, st, moves, n, prior_n, prior_w, p)`` (``None``: :func:`visit_priors`)
    prior: Any = None
    #: PUCT: ``value(ctx, st, seq, seqc) -> (reward, length)`` (``None``: ``playout``)
    value: Any = None
    move_limit: int = 0  #: moves are below this (the AMAF tables' size; 0: ``max_moves``)
    amaf: bool = True  #: a move means the same wherever it is played: gather AMAF
    keep_first: int = 0  #: ``expand``'s first moves, kept first by progressive widening
    #: the compiled loop calls the kernels through function pointers (numba's first-class
    #: functions) instead of linking their code into its own: its compile is then the
    #: loop's alone, and needs only the kernels' types (:meth:`MCTS.compile_loop`). A
    #: kernel's exception still reaches the caller (numba calls the kernel's own entry
    #: through the pointer, not its C wrapper).
    pointers: bool = False

    def complete(self) -> MctsKernels:
        """The bundle with its defaults filled in (what the compiled loop is given)."""
        return self._replace(
            prior=visit_priors if self.prior is None else self.prior,
            value=self.playout if self.value is None else self.value,
            move_limit=self.move_limit or self.max_moves,
        )


@dataclass(frozen=True)
class ChildStats:
    """One root move after a search: real visits and win rate, AMAF, prior."""

    move: int
    visits: int
    winrate: float
    amaf_visits: int
    amaf_winrate: float
    value: float  #: win rate with the prior's virtual visits (what selection sees)
    prior: float = 0.0  #: PUCT: the move's prior probability


@dataclass(frozen=True)
class MctsInfo:
    """Progress: playouts so far, the best move's win rate, the principal variation."""

    playouts: int
    winrate: float
    pv: list[int]
    seconds: float
    root_visits: int

    nps = PerSecond("playouts")


@dataclass
class MctsResult:
    """What a search found: the most visited root move (``None`` if the root has no
    move), its win rate for the player to move (never exact), the playouts of this
    search and the root's visits (reused ones included)."""

    move: int | None
    winrate: float
    playouts: int
    seconds: float
    pv: list[int] = field(default_factory=list)
    stopped_by: str = "nodes"
    root_visits: int = 0
    nodes: int = 0
    max_depth: int = 0

    nps = PerSecond("playouts")


# --------------------------------------------------------------------------- compiled core


@njit(cache=True)
def _write_children(
    fs: Any, ist: Any, first: int, n: int, mover: int, moves: Any, pn: Any, pw: Any, pp: Any,
    puct: bool,
) -> None:  # fmt: skip
    """Nodes ``first .. first + n - 1``: fresh leaves for ``moves[:n]`` with their priors
    (PUCT: no virtual visits, the prior probability in ``F_PRIOR``)."""
    for k in range(n):
        i = first + k
        ist[i, I_MOVE] = moves[k]
        ist[i, I_FIRST] = UNEXPANDED
        ist[i, I_COUNT] = 0
        ist[i, I_VISITS] = 0
        ist[i, I_FLAGS] = mover
        if puct:
            fs[i, F_N] = 0.0
            fs[i, F_W] = 0.0
            fs[i, F_RN] = 0.0
            fs[i, F_PRIOR] = pp[k]
        else:
            fs[i, F_N] = pn[k]
            fs[i, F_W] = pw[k]
            fs[i, F_RN] = 0.0
            fs[i, F_RW] = 0.0
        fs[i, F_REAL] = 0.0


@njit(cache=True)
def _order(moves: Any, pn: Any, pw: Any, n: int, keep: int) -> None:
    """Sort ``moves[keep:n]`` (and their priors) by prior win rate, best first; the first
    ``keep`` moves (Go's pass) stay first. Progressive widening searches them in this
    order."""
    if n - keep <= 1:
        return
    key = np.empty(n - keep, dtype=np.float64)
    for k in range(keep, n):
        key[k - keep] = -pw[k] / pn[k] if pn[k] > 0 else -0.5
    idx = np.empty(n - keep, dtype=np.int64)
    stable_order(key, idx)
    m2 = moves[keep:n].copy()
    n2 = pn[keep:n].copy()
    w2 = pw[keep:n].copy()
    for k in range(n - keep):
        moves[k + keep] = m2[idx[k]]
        pn[k + keep] = n2[idx[k]]
        pw[k + keep] = w2[idx[k]]


@njit(cache=True, inline="always")
def _add(a: Any, i: int, v: Any, par: bool) -> Any:
    """``a[i] += v``, atomic if ``par`` (threads share ``a``); the old value."""
    if par:
        return atomic_add(a, i, v)
    old = a[i]
    a[i] = old + v
    return old


@njit(cache=True, inline="always")
def _add2(a: Any, i: int, j: int, v: Any, par: bool) -> None:
    """``a[i, j] += v``, atomic if ``par``."""
    if par:
        atomic_add2(a, i, j, v)
    else:
        a[i, j] += v


@njit(cache=True, inline="always")
def _publish(ist: Any, node: int, first: int, par: bool) -> None:
    """``node``'s first child (or mark) set last, after everything it points to."""
    if par:
        atomic_store2(ist, node, I_FIRST, first)
    else:
        ist[node, I_FIRST] = first


@njit(cache=True)
def _expand_node(
    k: Any, ctx: Any, st: Any, fs: Any, ist: Any, ctl: Any, node: int, b: Any, par: bool
) -> int:
    """Expand ``node`` (position ``st``) if there is room; returns the number of
    children, 0 for a finished game (the node is marked terminal), -1 for no room. With
    ``par`` (threads share the tree) the node is claimed first by a compare-and-swap to
    ``EXPANDING`` (-1 if another thread has it), its children's room taken with an atomic
    add, and its first child published last."""
    moves, pn, pw = b.moves, b.pn, b.pw
    puct = ctl[C_PUCT] != 0
    if ctl[C_USED] + moves.shape[0] > ctl[C_CAP]:
        ctl[C_FULL] += 1
        return -1
    if par and atomic_cas2(ist, node, I_FIRST, UNEXPANDED, EXPANDING) != UNEXPANDED:
        return -1  # claimed by another thread
    n = k.expand(ctx, st, moves, pn, pw)
    if n == 0:
        ist[node, I_COUNT] = 0
        _publish(ist, node, TERMINAL, par)
        return 0
    at = _add(ctl, C_USED, n, par)
    if at + n > ctl[C_CAP]:  # pragma: no cover - the room check above holds
        _publish(ist, node, UNEXPANDED, par)
        ctl[C_FULL] += 1
        return -1
    if puct:
        k.prior(ctx, st, moves, n, pn, pw, b.pp)
    elif ctl[C_WIDEN] > 0:
        _order(moves, pn, pw, n, ctl[C_KEEP])
    _write_children(fs, ist, at, n, k.to_move(ctx, st), moves, pn, pw, b.pp, puct)
    ist[node, I_COUNT] = n
    _publish(ist, node, at, par)
    return n


@njit(cache=True, inline="always")
def _select(
    fs: Any, ist: Any, node: int, equiv: float, explore: float, widen: int, keep: int
) -> int:
    """UCT-RAVE's child of ``node`` (module docstring); -1 if none is left."""
    first = ist[node, I_FIRST]
    count = ist[node, I_COUNT]
    visits = ist[node, I_VISITS]
    logn = math.log(visits + 1.0)
    if widen > 0:  # the kept moves, then the widen best by prior, one more at each step
        steps = math.log(1.0 + visits / WIDEN_VISITS) / math.log(WIDEN_RATE)
        count = min(count, keep + widen + int(steps))
    best = -1
    best_v = -1e30
    for i in range(first, first + count):
        if ist[i, I_FLAGS] & PRUNED:
            continue
        n = np.float64(fs[i, F_N])
        q = fs[i, F_W] / n if n > 0 else 1.0
        rn = np.float64(fs[i, F_RN])
        if rn > 0:
            b = rn / (rn + n + rn * n / equiv)
            q += b * (fs[i, F_RW] / rn - q)
        if explore > 0:
            q += explore * math.sqrt(logn / (n + 1.0))
        if q > best_v:
            best_v = q
            best = i
    return best


@njit(cache=True, inline="always")
def _select_puct(fs: Any, ist: Any, node: int, c_puct: float, fpu: float) -> int:
    """PUCT's child of ``node``: ``Q + c_puct P sqrt(N) / (1 + n)``, a child not yet
    visited valued at the parent's ``Q`` for its mover less ``fpu``; -1 if none is left."""
    first = ist[node, I_FIRST]
    count = ist[node, I_COUNT]
    pn = np.float64(fs[node, F_N])
    # the node's value is its own mover's; its children's movers are the other player
    q0 = (1.0 - fs[node, F_W] / pn if pn > 0 else 0.5) - fpu
    sq = c_puct * math.sqrt(max(np.float64(ist[node, I_VISITS]), 1.0))
    best = -1
    best_v = -1e30
    for i in range(first, first + count):
        if ist[i, I_FLAGS] & PRUNED:
            continue
        n = np.float64(fs[i, F_N])
        q = fs[i, F_W] / n if n > 0 else q0
        q += sq * fs[i, F_PRIOR] / (1.0 + n)
        if q > best_v:
            best_v = q
            best = i
    return best


@njit(cache=True, nogil=True)
def _run(
    k: Any,
    ctx: Any,
    root: Any,
    st: Any,
    fs: Any,
    ist: Any,
    ctl: Any,
    fpar: Any,
    stop: Any,
    b: Any,
    par: bool,
) -> None:
    """Playouts until the limit, the slice's end or the stop flag (module docstring), by
    one of the threads searching the tree: ``k`` the game's :class:`MctsKernels`, ``st``
    this thread's scratch state, ``b`` its :class:`_Buffers`, ``fpar`` the float
    parameters (``FP_*``: the RAVE equivalence, the exploration constant, the virtual
    loss, PUCT's constant and first play urgency). With ``par`` (several threads) every
    update of what they share is atomic: a playout is claimed from the shared count
    before it starts (so a playout limit is kept exactly), a virtual loss marks the way
    down, and a leaf is expanded by the thread that claims it. With ``ctl[C_PUCT]`` the
    selection is PUCT's and a new leaf is valued by ``k.value``: one loop, two rules."""
    equiv = fpar[FP_EQUIV]
    explore = fpar[FP_EXPLORE]
    vloss = fpar[FP_VLOSS]
    c_puct = fpar[FP_CPUCT]
    fpu = fpar[FP_FPU]
    puct = ctl[C_PUCT] != 0
    amaf = ctl[C_AMAF] != 0
    path, seq, seqc, stamp, owner, mine = b.path, b.seq, b.seqc, b.stamp, b.owner, b.mine
    skip = ctl[C_SKIP]
    end = min(ctl[C_LIMIT], ctl[C_SLICE])
    while ctl[C_PLAYOUTS] < end:
        if (mine[1] & 15) == 0 and ctl[C_PLAYOUTS] >= ctl[C_MIN] and stop[0] != 0:
            ctl[C_STOPPED] = 1
            break
        if _add(ctl, C_PLAYOUTS, 1, par) >= end:  # the others took the last ones
            _add(ctl, C_PLAYOUTS, -1, par)
            break
        mine[1] += 1
        k.copy(ctx, root, st)
        node = 0
        depth = 0
        path[0] = 0
        if vloss != 0.0:
            _add2(fs, 0, F_N, vloss, par)
        reward = -1.0
        while True:
            first = ist[node, I_FIRST]
            if first == TERMINAL:
                reward = k.evaluate(ctx, st)
                break
            if first == EXPANDING:
                break  # another thread is expanding it: play out from here
            if first == UNEXPANDED:
                if not puct:
                    thr = ctl[C_THRESHOLD]
                    if 2 * ctl[C_USED] > ctl[C_CAP]:
                        thr *= 4  # more than half full: expand only the busier leaves
                    if node != 0 and ist[node, I_VISITS] < thr:
                        break
                n = _expand_node(k, ctx, st, fs, ist, ctl, node, b, par)
                if n == 0:
                    reward = k.evaluate(ctx, st)
                    break
                if n < 0 or (puct and node != 0):
                    break  # PUCT: a new leaf, valued below
            if puct:
                child = _select_puct(fs, ist, node, c_puct, fpu)
            else:
                child = _select(fs, ist, node, equiv, explore, ctl[C_WIDEN], ctl[C_KEEP])
            if child < 0:
                break
            k.play(ctx, st, ist[child, I_MOVE])
            depth += 1
            path[depth] = child
            if vloss != 0.0:
                _add2(fs, child, F_N, vloss, par)
            node = child
            if depth >= path.shape[0] - 1:
                break
        length = 0
        if reward < 0:
            if puct:
                reward, length = k.value(ctx, st, seq, seqc)
            else:
                reward, length = k.playout(ctx, st, seq, seqc)
        if depth > ctl[C_MAXDEPTH]:
            ctl[C_MAXDEPTH] = depth
        # backup: the virtual loss becomes the real visit
        for d in range(depth + 1):
            i = path[d]
            r = reward if (ist[i, I_FLAGS] & 3) == 1 else 1.0 - reward
            _add2(fs, i, F_N, 1.0 - vloss, par)
            _add2(fs, i, F_W, r, par)
            _add2(fs, i, F_REAL, r, par)
            _add2(ist, i, I_VISITS, 1, par)
        if not amaf:
            continue
        # AMAF: the first player to play each move after a node, from the playout's end up
        cur = mine[0] + 1
        mine[0] = cur
        for j in range(length - 1, -1, -1):
            m = seq[j]
            if m != skip:
                stamp[m] = cur
                owner[m] = seqc[j]
        for d in range(depth, 0, -1):
            c = path[d]
            m = ist[c, I_MOVE]
            mover = ist[c, I_FLAGS] & 3
            if m != skip:
                stamp[m] = cur
                owner[m] = mover
            parent = path[d - 1]
            r = reward if mover == 1 else 1.0 - reward
            first = ist[parent, I_FIRST]
            for j in range(first, first + ist[parent, I_COUNT]):
                mj = ist[j, I_MOVE]
                if mj != skip and stamp[mj] == cur and owner[mj] == mover:
                    _add2(fs, j, F_RN, 1.0, par)
                    _add2(fs, j, F_RW, r, par)


@njit(cache=True)
def _to_move(to_move: Any, ctx: Any, st: Any) -> int:
    return to_move(ctx, st)


@njit(cache=True)
def _compact(fs: Any, ist: Any, fs2: Any, ist2: Any, old_of: Any, root: int) -> int:
    """Copy the subtree under ``root`` to the front of ``fs2``/``ist2`` (breadth first,
    children kept contiguous); returns the number of nodes copied. (Rows are copied field
    by field: an assignment of one row to another compiles a broadcast check.)"""
    for c in range(fs.shape[1]):
        fs2[0, c] = fs[root, c]
    for c in range(ist.shape[1]):
        ist2[0, c] = ist[root, c]
    old_of[0] = root
    used = 1
    i = 0
    while i < used:
        o = old_of[i]
        first = ist[o, I_FIRST]
        if first >= 0:
            count = ist[o, I_COUNT]
            ist2[i, I_FIRST] = used
            for k in range(count):
                old_of[used + k] = first + k
                for c in range(fs.shape[1]):
                    fs2[used + k, c] = fs[first + k, c]
                for c in range(ist.shape[1]):
                    ist2[used + k, c] = ist[first + k, c]
            used += count
        i += 1
    return used


# --------------------------------------------------------------------------- driver


class MCTS:
    """UCT-RAVE, or PUCT (``puct=True``), over a game's :class:`MctsKernels` (module
    docstring), with its tree.

    ``capacity`` is the number of nodes (40 bytes each, twice: tree reuse copies into a
    second set; memory is touched only as the tree grows). One instance per player: the
    tree carries over between moves through :meth:`advance`. ``puct`` is fixed for the
    instance's life (its nodes hold priors where UCT-RAVE keeps AMAF).
    """

    def __init__(
        self,
        kernels: MctsKernels,
        capacity: int = 1 << 21,
        *,
        rave_equiv: float = 2000.0,
        explore: float = 0.0,
        expand_threshold: int = 2,
        early_stop: bool = True,
        threads: int = 1,
        virtual_loss: float = 1.0,
        widen: int = 0,
        puct: bool = False,
        c_puct: float = 1.5,
        fpu: float = 0.0,
    ) -> None:
        if threads < 1:
            raise ValueError(f"threads must be at least 1, got {threads}")
        if capacity < 2 * kernels.max_moves + 1:
            raise ValueError(f"capacity {capacity} is too small for {kernels.max_moves} moves")
        self.kernels = kernels.complete()
        self.capacity = capacity
        #: PUCT's selection and leaf values instead of UCT-RAVE's and playouts
        self.puct = puct
        #: PUCT's exploration constant (``c_puct``)
        self.c_puct = c_puct
        #: PUCT's first play urgency: an unvisited child is valued at its parent's value
        #: for its mover less this
        self.fpu = fpu
        #: AMAF equivalence parameter ``K``: visits at which AMAF and real values weigh alike
        self.rave_equiv = rave_equiv
        #: UCT exploration constant ``c``
        self.explore = explore
        #: real visits before a leaf gets children
        self.expand_threshold = expand_threshold
        #: under a time limit, stop once the most visited root move cannot be overtaken
        #: in the time left (at the rate so far)
        self.early_stop = early_stop
        #: threads searching the one tree (each needs its own scratch state)
        self.threads = threads
        #: visits without wins a thread adds on its way down, taken back at backup
        self.virtual_loss = virtual_loss
        self._fs = np.zeros((capacity, 5), dtype=np.float32)
        self._ist = np.zeros((capacity, 5), dtype=np.int32)
        # the second set tree reuse copies into (calloc'd: pages are touched when used)
        self._fs2 = np.zeros((capacity, 5), dtype=np.float32)
        self._ist2 = np.zeros((capacity, 5), dtype=np.int32)
        self._old_of = np.zeros(capacity, dtype=np.int32)
        self.ctl = np.zeros(C_LEN, dtype=np.int64)
        self.ctl[C_CAP] = capacity
        self.ctl[C_SKIP] = kernels.amaf_skip
        self.ctl[C_KEEP] = kernels.keep_first
        self.ctl[C_AMAF] = int(kernels.amaf and not puct)
        self.ctl[C_PUCT] = int(puct)
        self.widen = widen
        self._bufs = [self._buffers() for _ in range(threads)]  # each thread's own
        #: the loop's compiled entry points by argument types (MctsKernels.pointers)
        self._entries: dict[Any, tuple[Any, Any]] = {}
        self._seen: list[tuple[Any, Any] | None] = [None] * 4  # (_loop's arguments' types)
        self.clear()

    @property
    def widen(self) -> int:
        """Progressive widening (UCT-RAVE only): 0 searches every child; W > 0 searches a
        node's first moves (:attr:`MctsKernels.keep_first`) and its W best by prior, and
        one more each time the node's visits grow by a factor of 1.4 past 40. Children
        are sorted by prior when they are made, so set it before the tree grows."""
        return int(self.ctl[C_WIDEN])

    @widen.setter
    def widen(self, value: int) -> None:
        if value < 0:
            raise ValueError(f"widen must be 0 or more, got {value}")
        self.ctl[C_WIDEN] = value

    def _buffers(self) -> _Buffers:
        k = self.kernels
        return _Buffers(
            path=np.zeros(MAX_DEPTH, dtype=np.int64),
            seq=np.zeros(k.max_playout + 1, dtype=np.int64),
            seqc=np.zeros(k.max_playout + 1, dtype=np.int64),
            stamp=np.zeros(k.move_limit, dtype=np.int64),
            owner=np.zeros(k.move_limit, dtype=np.int64),
            moves=np.zeros(k.max_moves, dtype=np.int64),
            pn=np.zeros(k.max_moves, dtype=np.float64),
            pw=np.zeros(k.max_moves, dtype=np.float64),
            pp=np.zeros(k.max_moves, dtype=np.float64),
            mine=np.zeros(2, dtype=np.int64),
        )

    # ---- the tree

    def clear(self, mover: int = 2) -> None:
        """Forget the tree: a lone root whose move was made by ``mover``."""
        self._fs[0] = 0
        self._ist[0] = (0, UNEXPANDED, 0, 0, mover)
        self.ctl[C_USED] = 1
        for b in self._bufs:
            b.stamp[:] = 0
            b.mine[:] = 0

    @property
    def nodes(self) -> int:
        return int(self.ctl[C_USED])

    @property
    def root_visits(self) -> int:
        return int(self._ist[0, I_VISITS])

    def _children(self, node: int) -> range:
        first = int(self._ist[node, I_FIRST])
        if first < 0:
            return range(0)
        return range(first, first + int(self._ist[node, I_COUNT]))

    def _child(self, node: int, move: int) -> int | None:
        r = self._children(node)
        if not r:
            return None
        hits = np.nonzero(self._ist[r.start : r.stop, I_MOVE] == move)[0]
        return r.start + int(hits[0]) if len(hits) else None

    def advance(self, moves: Sequence[int]) -> bool:
        """Make the node reached by ``moves`` from the root the new root, keeping its
        subtree; if the tree does not hold that line, clear it and return ``False``."""
        node = 0
        for m in moves:
            child = self._child(node, int(m))
            if child is None:
                self.clear(3 - self._mover_after(node))
                return False
            node = child
        if node != 0:
            used = _compact(self._fs, self._ist, self._fs2, self._ist2, self._old_of, node)
            self._fs, self._fs2 = self._fs2, self._fs
            self._ist, self._ist2 = self._ist2, self._ist
            self.ctl[C_USED] = used
        return True

    def _mover_after(self, node: int) -> int:
        return int(self._ist[node, I_FLAGS]) & 3

    def children(self, node: int = 0) -> list[ChildStats]:
        """Statistics of ``node``'s children (the root's by default), pruned ones left
        out, most visited first."""
        out = []
        for i in self._children(node):
            if self._ist[i, I_FLAGS] & PRUNED:
                continue
            v = int(self._ist[i, I_VISITS])
            rn = float(self._fs[i, F_RN])
            n = float(self._fs[i, F_N])
            out.append(
                ChildStats(
                    move=int(self._ist[i, I_MOVE]),
                    visits=v,
                    winrate=float(self._fs[i, F_REAL]) / v if v else 0.5,
                    amaf_visits=int(rn),
                    amaf_winrate=float(self._fs[i, F_RW]) / rn if rn else 0.5,
                    value=float(self._fs[i, F_W]) / n if n else 0.5,
                    prior=float(self._fs[i, F_PRIOR]) if self.puct else 0.0,
                )
            )
        out.sort(key=lambda c: (-c.visits, -c.value))
        return out

    def _best(self, node: int) -> int | None:
        best = None
        key = (-1, -1.0)
        for i in self._children(node):
            if self._ist[i, I_FLAGS] & PRUNED:
                continue
            v = int(self._ist[i, I_VISITS])
            n = float(self._fs[i, F_N])
            k = (v, float(self._fs[i, F_W]) / n if n else 0.0)
            if k > key:
                key = k
                best = i
        return best

    def pv(self, max_len: int = 20) -> list[int]:
        """The most visited line from the root (moves with at least one visit)."""
        out: list[int] = []
        node = 0
        while len(out) < max_len:
            child = self._best(node)
            if child is None or self._ist[child, I_VISITS] == 0:
                break
            out.append(int(self._ist[child, I_MOVE]))
            node = child
        return out

    def child_pv(self, move: int, max_len: int = 20) -> list[int]:
        """The principal variation of the root's move ``move``: the move, then the most
        visited line below it (as :meth:`pv`: ties to the better value, moves with at
        least one visit); empty if the root has no such child or it has no visit."""
        node = self._child(0, move)
        out: list[int] = []
        while node is not None and len(out) < max_len:
            if self._ist[node, I_VISITS] == 0 or self._ist[node, I_FLAGS] & PRUNED:
                break
            out.append(int(self._ist[node, I_MOVE]))
            node = self._best_fast(node)
        return out

    def _best_fast(self, node: int) -> int | None:
        """:meth:`_best` over the children's arrays at once (for many lines at a time)."""
        r = self._children(node)
        if not r:
            return None
        ist = self._ist[r.start : r.stop]
        fs = self._fs[r.start : r.stop]
        visits = np.where(ist[:, I_FLAGS] & PRUNED, -1, ist[:, I_VISITS])
        top = visits.max()
        if top < 0:
            return None
        n = fs[:, F_N].astype(np.float64)
        value = np.divide(fs[:, F_W], n, out=np.zeros(len(n)), where=n > 0)
        k = int(np.argmax(np.where(visits == top, value, -np.inf)))
        return r.start + k

    # ---- searching

    def _call(self, ctx: Any, root: Any, scratch: Any, stop: Any) -> None:
        """Run the compiled loop in :attr:`threads` threads (this one the first), each
        on its own scratch state and buffers; one thread updates the tree plainly."""
        k = self.kernels
        par = self.threads > 1
        states = scratch if par else [scratch]
        vloss = self.virtual_loss if par else 0.0
        fpar = np.array([self.rave_equiv, self.explore, vloss, self.c_puct, self.fpu],
                        dtype=np.float64)  # fmt: skip
        self.ctl[C_STOPPED] = 0

        run = self._loop(ctx, root, states[0], stop)[0] if k.pointers else _run

        def work(t: int) -> None:
            run(k, ctx, root, states[t], self._fs, self._ist, self.ctl, fpar, stop,
                self._bufs[t], par)  # fmt: skip

        pool = [threading.Thread(target=work, args=(t,), daemon=True)
                for t in range(1, self.threads)]  # fmt: skip
        for th in pool:
            th.start()
        work(0)
        for th in pool:
            th.join()

    def _kernel_args(self, ctx: Any, root: Any, st: Any) -> dict[str, Any]:
        """Each kernel's argument types for these states, by name (the contract's)."""
        T = numba.typeof
        b = self._bufs[0]
        c, r, s, i64 = T(ctx), T(root), T(st), types.int64
        return {
            "copy": (c, r, s), "to_move": (c, s), "expand": (c, s, T(b.moves), T(b.pn), T(b.pw)),
            "play": (c, s, i64), "playout": (c, s, T(b.seq), T(b.seqc)), "evaluate": (c, s),
            "prior": (c, s, T(b.moves), i64, T(b.pn), T(b.pw), T(b.pp)),
            "value": (c, s, T(b.seq), T(b.seqc)),
        }  # fmt: skip

    def _signatures(self, ctx: Any, root: Any, st: Any, stop: Any) -> tuple[Any, Any]:
        """The compiled loop's and the expansion's argument types for these states, with
        the kernels as function pointers (:attr:`MctsKernels.pointers`)."""
        T = numba.typeof
        args = self._kernel_args(ctx, root, st)
        fields = [FunctionType(KERNEL_RETURNS[name](*args[name])) if name in args else T(v)
                  for name, v in zip(self.kernels._fields, self.kernels, strict=True)]  # fmt: skip
        kt = types.NamedTuple(fields, MctsKernels)
        c, r, s, i64 = T(ctx), T(root), T(st), types.int64
        bt, fs, ist, ctl = T(self._bufs[0]), T(self._fs), T(self._ist), T(self.ctl)
        run = (kt, c, r, s, fs, ist, ctl, T(np.zeros(5)), T(stop), bt, types.boolean)
        expand = (kt, c, r, fs, ist, ctl, i64, bt, types.boolean)
        return run, expand

    def compile_loop(self, ctx: Any, root: Any, st: Any) -> None:
        """Compile (or load) the loop for a bundle with :attr:`MctsKernels.pointers` and
        these states, without compiling any kernel (a helper process can do it while
        another compiles the game's kernels); with tree reuse's copy."""
        run, expand = self._signatures(ctx, root, st, StopFlag().array)
        _run.compile(run)
        _expand_node.compile(expand)
        T = numba.typeof
        _compact.compile((T(self._fs), T(self._ist), T(self._fs2), T(self._ist2),
                          T(self._old_of), types.int64))  # fmt: skip

    def compile_kernels(self, ctx: Any, root: Any, st: Any) -> None:
        """Compile (or load) a :attr:`MctsKernels.pointers` bundle's kernels for these
        states, each checked against the contract's return type, and not the loop
        (:meth:`compile_loop`)."""
        for name, argtypes in self._kernel_args(ctx, root, st).items():
            compile_returning(getattr(self.kernels, name), argtypes, KERNEL_RETURNS[name],
                              f"the {name} kernel", "the search")  # fmt: skip

    def _loop(self, ctx: Any, root: Any, st: Any, stop: Any) -> tuple[Any, Any]:
        """The loop and the expansion compiled for :attr:`MctsKernels.pointers` (their
        entry points), each kernel compiled for its signature and its return type checked
        against the contract's (a pointer of another type would be called wrongly). Found
        by the arguments' numba types, each remembered for the object last seen in its
        place (typing a tuple of arrays takes ~0.1 ms, building the signatures 1.4 ms: a
        search's first slice is a few ms)."""
        key = tuple(self._typed(i, x) for i, x in enumerate((ctx, root, st, stop)))
        got = self._entries.get(key)
        if got is None:
            self.compile_kernels(ctx, root, st)
            run, expand = self._signatures(ctx, root, st, stop)
            _run.compile(run)
            _expand_node.compile(expand)
            got = self._entries[key] = (
                _run.overloads[run].entry_point,
                _expand_node.overloads[expand].entry_point,
            )
        return got

    def _typed(self, place: int, x: Any) -> Any:
        seen = self._seen[place]
        if seen is None or seen[0] is not x:
            seen = self._seen[place] = (x, numba.typeof(x))
        return seen[1]

    def expand_root(self, ctx: Any, root: Any) -> int:
        """Give the root its children if it has none yet; returns how many it has (0: the
        game is over)."""
        if self._ist[0, I_FIRST] == UNEXPANDED:
            expand = (self._loop(ctx, root, root, StopFlag().array)[1] if self.kernels.pointers
                      else _expand_node)  # fmt: skip
            n = expand(
                self.kernels, ctx, root, self._fs, self._ist, self.ctl, 0, self._bufs[0], False
            )
            if n < 0:  # pragma: no cover - the root always fits after clear()
                self.clear(int(self._ist[0, I_FLAGS]) & 3)
                return self.expand_root(ctx, root)
        return len(self._children(0))

    def restrict_root(self, allowed: set[int] | None) -> None:
        """Search only the root moves in ``allowed`` (all if ``None``)."""
        for i in self._children(0):
            m = int(self._ist[i, I_MOVE])
            if allowed is None or m in allowed:
                self._ist[i, I_FLAGS] &= ~PRUNED
            else:
                self._ist[i, I_FLAGS] |= PRUNED

    def search(
        self,
        ctx: Any,
        root: Any,
        scratch: Any,
        limit: Limit | None = None,
        *,
        stop: StopFlag | None = None,
        on_info: Callable[[MctsInfo], None] | None = None,
        allowed: set[int] | None = None,
        min_playouts: int = 16,
        info_period: float = 0.25,
        min_seconds: float = 0.0,
    ) -> MctsResult:
        """Search the position ``root`` (a game state, not changed; ``scratch`` is a
        state of the same shape the playouts use — with :attr:`threads` > 1, a list of
        one such state per thread) from the current tree.

        ``limit.time`` is wall-clock seconds, ``limit.nodes`` playouts (``depth`` is
        ignored; with neither, 1 second). Under a time limit the search ends early (as
        ``"time"``) once the most visited move has more visits over the second than the
        playouts left could bring (:attr:`early_stop`), but not before ``min_seconds``. At
        least ``min_playouts`` are played even if ``stop`` is set already. ``on_info`` gets
        progress about every ``info_period`` seconds and at the end."""
        if self.threads > 1 and (not isinstance(scratch, list) or len(scratch) != self.threads):
            raise ValueError(f"{self.threads} threads need a list of {self.threads} scratch states")
        t0 = time.perf_counter()
        lim = limit or Limit()
        seconds = lim.time if lim.time is not None or lim.nodes is not None else 1.0
        ctl = self.ctl
        ctl[C_PLAYOUTS] = 0
        for b in self._bufs:
            b.mine[1] = 0  # (the stop flag is polled every 16 of a thread's playouts)
        ctl[C_MAXDEPTH] = 0
        ctl[C_LIMIT] = lim.nodes if lim.nodes is not None else 1 << 62
        ctl[C_THRESHOLD] = self.expand_threshold
        ctl[C_MIN] = min_playouts
        flag = stop if stop is not None else StopFlag()
        mover = 3 - int(_to_move(self.kernels.to_move, ctx, root))
        self._ist[0, I_FLAGS] = (int(self._ist[0, I_FLAGS]) & ~3) | mover
        if self.expand_root(ctx, root) == 0:
            return MctsResult(None, 0.0, 0, time.perf_counter() - t0, [], "game_over")
        self.restrict_root(allowed)
        stopped_by = "nodes"
        last_info = t0
        with Deadline(flag, seconds):
            slice_len = 64
            while True:
                ts = time.perf_counter()
                ctl[C_SLICE] = int(ctl[C_PLAYOUTS]) + slice_len
                self._call(ctx, root, scratch, flag.array)
                now = time.perf_counter()
                done = int(ctl[C_PLAYOUTS])
                if ctl[C_STOPPED] or (flag.is_set() and done >= min_playouts):
                    stopped_by = "time" if flag.reason == STOP_TIME else "stop"
                    break
                if done >= ctl[C_LIMIT]:
                    stopped_by = "nodes"
                    break
                rate = slice_len / max(now - ts, 1e-6)
                slice_len = int(min(max(rate * info_period, 16), 1 << 20))
                if seconds is not None and self.early_stop and now - t0 >= min_seconds:
                    # the most visited move cannot be caught in the time left: done
                    left = min(rate * (seconds - (now - t0)), ctl[C_LIMIT] - done)
                    if self._lead() > left:
                        stopped_by = "time"
                        break
                if on_info is not None and now - last_info >= info_period:
                    last_info = now
                    on_info(self._info(t0))
        if flag.reason == STOP_TIME:
            flag.clear()  # our own deadline's mark; a caller's stop request is left alone
        elif flag.reason == STOP_REQUESTED:
            stopped_by = "stop"
        if on_info is not None:
            on_info(self._info(t0))
        best = self._best(0)
        pv = self.pv()
        wr = 0.0
        if best is not None and self._ist[best, I_VISITS] > 0:
            wr = float(self._fs[best, F_REAL]) / int(self._ist[best, I_VISITS])
        return MctsResult(
            move=None if best is None else int(self._ist[best, I_MOVE]),
            winrate=wr,
            playouts=int(ctl[C_PLAYOUTS]),
            seconds=time.perf_counter() - t0,
            pv=pv,
            stopped_by=stopped_by,
            root_visits=self.root_visits,
            nodes=self.nodes,
            max_depth=int(ctl[C_MAXDEPTH]),
        )

    def _lead(self) -> int:
        """Visits of the most visited root move minus those of the second."""
        r = self._children(0)
        if not r:
            return 0
        ok = (self._ist[r.start : r.stop, I_FLAGS] & PRUNED) == 0
        vis = np.sort(self._ist[r.start : r.stop, I_VISITS][ok])
        if len(vis) == 0:
            return 0
        return int(vis[-1]) - (int(vis[-2]) if len(vis) > 1 else 0)

    def _info(self, t0: float) -> MctsInfo:
        best = self._best(0)
        wr = 0.0
        if best is not None and self._ist[best, I_VISITS] > 0:
            wr = float(self._fs[best, F_REAL]) / int(self._ist[best, I_VISITS])
        return MctsInfo(
            int(self.ctl[C_PLAYOUTS]), wr, self.pv(), time.perf_counter() - t0, self.root_visits
        )

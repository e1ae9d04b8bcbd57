"""Evaluators: a game's rules with another evaluation, for every search over them.

A search reads a game through its rules contract (:class:`~.alphabeta.Kernels`), whose
``evaluate(ctx, state)`` values a position the search stops at. An **evaluator** replaces
that one kernel, and nothing else, for any game and any search over the contract — the
alpha-beta (``alphabeta``, ``perfect``) and the tree searches (``mcts``, ``puct``,
through :mod:`.mcts_rules`). It is data for the search (:class:`RulesEvaluator`):

* ``kernels``: the game's rules with the evaluator's ``evaluate``, one bundle like any
  game's, over the evaluator's context;
* ``context(game_ctx)``: that context for a position's own ``ctx`` (what
  ``GameDef.search_position`` gives) — ``(game_ctx, rules, *data)``: the game's ``ctx``
  first (the search salts its table with it, as without an evaluator), the game's kernels
  as data (:class:`GameRules`: a closure over them would break numba's on-disk cache),
  then the evaluator's own data (its weights), in as few arrays as it can: each member
  is passed down every call of the search;
* ``warm_set(purpose)``: the compiled code it needs, as a kernel set
  (:class:`banmen.warm.KernelSet`: ``"search"`` for the alpha-beta, ``"mcts"`` for the tree
  searches) that an engine's ``warm_up`` loads before any clock starts;
* ``leaf_playouts``: how a tree search values a leaf with it — by the mean of that many
  random playouts (the ``rollout`` evaluator), or, when 0, by its ``evaluate`` squashed
  with ``kernels.value_scale`` (what PUCT does with a game's own evaluation);
* ``reset()``: back to its first random numbers (a new game: the arena's games replay).

The rules' kernels are the game's, called through the context (``_gen_moves(c, st, buf)``
is ``c[1].gen_moves(c[0], st, buf)``: numba calls the game's compiled function directly,
so an evaluated search runs the game's rules at their own speed). The game's move
``order`` is kept; its ProbCut margins, fitted to its own evaluation, only by
:func:`own_evaluator`. Three evaluations are written here, for any game:

* :func:`own_evaluator` — the game's own ``evaluate`` (``+default``): the same values, the
  same searches node for node as with no evaluator at all; what shows that the bundle
  costs nothing;
* :func:`ntuple_evaluator` — an n-tuple network over the cells of a grid game
  (``+ntuple:weights=FILE``): the sum over the file's tuples of the weight their cells'
  contents index (:mod:`banmen.weights`), rounded, in ``evaluate``'s units, kept within
  :attr:`~.alphabeta.Kernels.eval_bound`. It reads a position through the game's
  :attr:`~.alphabeta.Kernels.cell` kernel, a cell at a time (an evaluation called from the
  search may not allocate, and tree searches' threads share nothing);
* :func:`rollout_evaluator` — random playouts (``+rollout:playouts=N,seed=S``): the
  playouts' score ``(wins - losses) / N`` from the side to move's view, times the game's
  :attr:`~.alphabeta.Kernels.value_scale` (1000 for a game that declares none), rounded
  and kept within ``eval_bound``. A playout's outcome counts the points its moves bank
  (``gain``) with the final value; a playout longer than 1024 plies (``max_plies`` if
  more: a game of no known length) counts as a draw. Tree searches value a leaf by the playouts'
  mean reward itself (``leaf_playouts``), each thread drawing its own random numbers;
  the alpha-beta draws from the evaluator's generator (``seed``), restarted by
  :meth:`RulesEvaluator.reset`.
"""

# numba types the compiled functions; mypy sees numba's untyped decorators.
# mypy: disable-error-code="misc, no-any-return, untyped-decorator, no-untyped-call, return-value"

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt
from numba import types
from numba.core.errors import TypingError
from numba.extending import overload

from banmen._bits import mix64
from banmen._jit import bound, kernel, njit
from banmen.engine import SpecError
from banmen.search.alphabeta import Kernels, _no_order, _no_probcut
from banmen.warm import KernelSet

__all__ = [
    "GameRules",
    "RulesEvaluator",
    "evaluated_kernels",
    "own_evaluator",
    "ntuple_evaluator",
    "rollout_evaluator",
    "ntuple_value",
    "ntuple_features",
    "DEFAULT_SCALE",
]

#: the rollout's value of a sure win, for a game that declares no value scale
DEFAULT_SCALE = 1000.0
#: the longest playout of a game whose kernels bound no game's length (it is a draw)
PLAYOUT_CAP = 1024

_GOLDEN = -7046029254386353131  # 0x9E3779B97F4A7C15 as int64


class GameRules(NamedTuple):
    """The game's kernels, handed to the evaluated kernels as data in their context."""

    gen_moves: Any
    play: Any
    gain: Any
    evaluate: Any
    final: Any
    key: Any
    horizon: Any
    order: Any
    probcut: Any
    cell: Any


@kernel
def _no_cell(ctx: Any, st: Any, i: int) -> int:
    """The default cell kernel of a game that declares none (nothing reads it)."""
    return i - i


def rules_of(k: Kernels) -> GameRules:
    """A game's kernels as :class:`GameRules` (defaults where it gives none)."""
    return GameRules(k.gen_moves, k.play, k.gain, k.evaluate, k.final, k.key, k.horizon,
                     k.order if k.order is not None else _no_order,
                     k.probcut if k.probcut is not None else _no_probcut,
                     k.cell if k.cell is not None else _no_cell)  # fmt: skip


# --------------------------------------------------------------------------- the rules
# c = (game_ctx, rules, *data)


@kernel
def _gen_moves(c: Any, st: Any, buf: Any) -> int:
    return c[1].gen_moves(c[0], st, buf)


@kernel
def _play(c: Any, st: Any, mv: int) -> Any:
    return c[1].play(c[0], st, mv)


@kernel
def _gain(c: Any, st: Any, mv: int) -> int:
    return c[1].gain(c[0], st, mv)


@kernel
def _final(c: Any, st: Any) -> int:
    return c[1].final(c[0], st)


@kernel
def _key(c: Any, st: Any) -> int:
    return c[1].key(c[0], st)


@kernel
def _horizon(c: Any, st: Any) -> int:
    return c[1].horizon(c[0], st)


@kernel
def _order(c: Any, st: Any, buf: Any, start: int, n: int, depth: int) -> None:
    c[1].order(c[0], st, buf, start, n, depth)


@kernel
def _probcut(c: Any, st: Any, depth: int) -> Any:
    return c[1].probcut(c[0], st, depth)


@kernel
def _cell(c: Any, st: Any, i: int) -> int:
    return c[1].cell(c[0], st, i)


def evaluated_kernels(
    game: Kernels, evaluate: Any, value_scale: float | None = None, probcut: bool = False
) -> Kernels:
    """``game``'s rules over an evaluator's context (module docstring), with
    ``evaluate(c, st)`` for their evaluation (``value_scale``: its units to one logistic
    unit of win probability, default the game's; ``probcut``: keep the game's ProbCut,
    whose margins were fitted to its own evaluation)."""
    return game._replace(
        gen_moves=_gen_moves, play=_play, gain=_gain, evaluate=evaluate, final=_final,
        key=_key, horizon=_horizon,
        order=_order if game.order is not None else None,
        probcut=_probcut if probcut and game.probcut is not None else None,
        cell=_cell if game.cell is not None else None,
        value_scale=game.value_scale if value_scale is None else value_scale,
    )  # fmt: skip


@njit(cache=True, inline="always")
def _clamp(v: float, limit: int) -> int:
    """``v`` rounded to the nearest integer (a half up), within ``+-limit`` if
    ``limit`` > 0."""
    x = np.int64(math.floor(v + 0.5))
    if limit > 0:
        if x > limit:
            return np.int64(limit)
        if x < -limit:
            return np.int64(-limit)
    return x


# --------------------------------------------------------------------------- evaluations


@kernel
def own_evaluate(c: Any, st: Any) -> int:
    """The game's own evaluation."""
    return c[1].evaluate(c[0], st)


# ntuple data: (ints, weights): ints int64 [values, bound, T, L, offsets (T),
# cells (T x L, each tuple's padded with -1)], weights float32 (every table in turn)
NT_VALUES, NT_BOUND, NT_COUNT, NT_WIDTH, NT_HEAD = 0, 1, 2, 3, 4


@kernel
def ntuple_evaluate(c: Any, st: Any) -> int:
    """The n-tuple sum (module docstring)."""
    gctx, rules, ints, weights = c
    values = ints[NT_VALUES]
    count = ints[NT_COUNT]
    width = ints[NT_WIDTH]
    total = 0.0
    for t in range(count):
        base = NT_HEAD + count + t * width
        idx = np.int64(0)
        for j in range(width):
            i = ints[base + j]
            if i < 0:
                break
            idx = idx * values + rules.cell(gctx, st, i)
        total += weights[ints[NT_HEAD + t] + idx]
    return _clamp(total, ints[NT_BOUND])


@kernel
def ntuple_features(c: Any, st: Any, out: Any) -> None:
    """Where each tuple of the n-tuple evaluation reads its weight for the position
    ``st``: ``out[t]`` is the index in the flat ``weights`` (the tuple's table offset
    plus its cells' contents as digits) — the features a linear fit of the tables reads
    (:mod:`banmen.train`); the evaluation is ``weights[out].sum()`` before rounding."""
    gctx, rules, ints, weights = c
    values = ints[NT_VALUES]
    count = ints[NT_COUNT]
    width = ints[NT_WIDTH]
    for t in range(count):
        base = NT_HEAD + count + t * width
        idx = np.int64(0)
        for j in range(width):
            i = ints[base + j]
            if i < 0:
                break
            idx = idx * values + rules.cell(gctx, st, i)
        out[t] = ints[NT_HEAD + t] + idx


# rollout data: (ints, scale): ints int64 [playouts, cap, bound, the generator's state,
# a move buffer (max_moves)], scale float64 (the value of a sure win)
RO_PLAYOUTS, RO_CAP, RO_BOUND, RO_RNG, RO_BUF = 0, 1, 2, 3, 4


def _like(a: Any, b: Any) -> Any:
    """``b`` with each member cast to the type of ``a``'s (compiled only): a state a
    game's ``play`` returns keeps the type of the state it was given."""
    raise NotImplementedError


@overload(_like)
def _ov_like(a: Any, b: Any) -> Any:
    if not isinstance(a, types.BaseTuple) or not isinstance(b, types.BaseTuple) or len(a) != len(b):
        raise TypingError(f"the game's play returned {b}, not a state like {a}")
    casts = {}
    for i, t in enumerate(getattr(a, "types", ())):
        if not isinstance(t, types.Integer | types.Float | types.Boolean):
            raise TypingError(f"a state's member {i} is {t}, not a number")
        casts[f"c{i}"] = np.dtype(str(t)).type
    body = "return (" + "".join(f"c{i}(b[{i}]), " for i in range(len(a))) + ")"
    namespace: dict[str, Any] = {**casts, "Any": Any}
    # (numba wants the overload's parameters, annotations included)
    exec(f"def like(a: Any, b: Any):\n    {body}\n", namespace)  # noqa: S102 - fixed text
    return namespace["like"]


@njit(cache=True, inline="always")
def _below(ints: Any, n: int) -> int:
    """A random number in ``[0, n)`` from the generator ``ints[RO_RNG]``."""
    x = ints[RO_RNG] + _GOLDEN
    ints[RO_RNG] = x
    r = mix64(x)
    return (((r >> 32) & 0xFFFFFFFF) * n) >> 32


@kernel
def rollout_evaluate(c: Any, st: Any) -> int:
    """The random playouts' score (module docstring)."""
    gctx, rules, ints, scale = c
    n = ints[RO_PLAYOUTS]
    cap = ints[RO_CAP]
    buf = ints[RO_BUF:]
    score = 0
    for _ in range(n):
        s = st
        margin = 0
        sign = 1
        plies = 0
        while True:
            k = rules.gen_moves(gctx, s, buf)
            if k == 0:
                break
            if plies >= cap:
                plies = -1
                break
            mv = buf[_below(ints, k)]
            margin += sign * rules.gain(gctx, s, mv)
            s = _like(st, rules.play(gctx, s, mv))
            sign = -sign
            plies += 1
        if plies < 0:
            continue  # too long: a draw
        total = margin + sign * rules.final(gctx, s)
        if total > 0:
            score += 1
        elif total < 0:
            score -= 1
    return _clamp(scale * score / n, ints[RO_BOUND])


# --------------------------------------------------------------------------- the object


@njit(cache=True)
def _call2(fn: Any, ctx: Any, st: Any) -> int:
    return fn(ctx, st)


@dataclass(eq=False)
class RulesEvaluator:
    """An evaluation for the searches over a game's rules (module docstring): what
    :attr:`banmen.kinds.EvaluatorKind.build` gives for the generic evaluators, and what
    the generic engines (:class:`banmen.games.engines.AlphaBetaEngine`,
    :class:`banmen.games.mcts_engines.TreeEngine`) and Othello's own read."""

    name: str
    #: the rules with this evaluation, over :meth:`context`
    kernels: Kernels
    #: the game's kernels (what :meth:`context` hands to them)
    rules: GameRules
    #: its own data (arrays, numbers): the context's last members
    data: tuple[Any, ...]
    #: its compiled code by purpose: ``"search"`` (alpha-beta), ``"mcts"`` (tree searches)
    sets: Mapping[str, KernelSet] = field(default_factory=dict)
    #: tree searches value a leaf by the mean of this many playouts (0: by ``evaluate``)
    leaf_playouts: int = 0
    #: the weights file read, if any
    source: str | None = None
    #: ``check(game_ctx) -> None | why not``: a position this evaluator cannot value (a
    #: weights file made for a grid of another size)
    check: Callable[[Any], str | None] | None = None
    #: ``(array, slot)``: where its random numbers' generator lives (the rollout's), and
    #: its seed
    rng: tuple[npt.NDArray[np.int64], int] | None = None
    seed: int = 0
    _eval: Any = field(default=None, repr=False)

    def context(self, game_ctx: Any) -> tuple[Any, ...]:
        """The ``ctx`` of :attr:`kernels` for a position whose own ``ctx`` is
        ``game_ctx``; :class:`~banmen.engine.SpecError` (one line) for a position this
        evaluator cannot value."""
        if self.check is not None and (why := self.check(game_ctx)) is not None:
            raise SpecError(why)
        return (game_ctx, self.rules, *self.data)

    def warm_set(self, purpose: str) -> KernelSet | None:
        """The kernel set of its code for ``purpose`` (``"search"``, ``"mcts"``)."""
        return self.sets.get(purpose)

    def reset(self) -> None:
        """Restart its random numbers (a new game)."""
        if self.rng is not None:
            array, slot = self.rng
            array[slot] = self.seed

    def evaluate(self, game_ctx: Any, state: tuple[Any, ...]) -> int:
        """Its value of the position ``(game_ctx, state)`` for the side to move (the
        compiled evaluation, from Python: tests, tools)."""
        ctx = self.context(game_ctx)
        if self._eval is None:
            self._eval = bound(_call2, self.kernels.evaluate, ctx, state)
        return int(self._eval(self.kernels.evaluate, ctx, state))


def own_evaluator(game: Kernels, sets: Mapping[str, KernelSet] | None = None) -> RulesEvaluator:
    """The game's own evaluation as an evaluator (its ProbCut kept): every search with it
    is the search without one, node for node."""
    kernels = evaluated_kernels(game, own_evaluate, probcut=True)
    return RulesEvaluator("default", kernels, rules_of(game), (), dict(sets or {}))


def ntuple_value(
    cells: npt.NDArray[np.int64],
    offsets: npt.NDArray[np.int64],
    weights: npt.NDArray[np.float32],
    values: int,
    bound: int,
) -> tuple[Any, ...]:
    """The data of an n-tuple evaluation: the tuples (one row each, padded with -1),
    their tables' offsets in ``weights``, the number of cell contents and the game's
    ``eval_bound``, packed as :func:`ntuple_evaluate` reads them."""
    cells = np.asarray(cells, dtype=np.int64)
    head = [values, bound, cells.shape[0], cells.shape[1]]
    ints = np.concatenate([np.array(head, np.int64), np.asarray(offsets, np.int64),
                           cells.reshape(-1)])  # fmt: skip
    return (np.ascontiguousarray(ints), np.ascontiguousarray(weights, np.float32))


def ntuple_evaluator(
    game: Kernels,
    data: tuple[Any, ...],
    value_scale: float | None = None,
    sets: Mapping[str, KernelSet] | None = None,
    source: str | None = None,
    check: Callable[[Any], str | None] | None = None,
) -> RulesEvaluator:
    """An n-tuple evaluation of ``game``'s grid (``data``: :func:`ntuple_value`); its
    values are in the game's units, so PUCT squashes them with the game's value scale
    unless given ``value_scale``."""
    if game.cell is None:
        raise SpecError("the game declares no cells (Kernels.cell): no n-tuple evaluation")
    kernels = evaluated_kernels(game, ntuple_evaluate, value_scale)
    return RulesEvaluator("ntuple", kernels, rules_of(game), data, dict(sets or {}),
                          source=source, check=check)  # fmt: skip


def rollout_evaluator(
    game: Kernels, playouts: int, seed: int = 0, sets: Mapping[str, KernelSet] | None = None
) -> RulesEvaluator:
    """``playouts`` random playouts valuing each position (module docstring), drawn from
    a generator seeded with ``seed``."""
    if playouts < 1:
        raise SpecError("a rollout evaluation plays at least one playout")
    scale = float(game.value_scale if game.value_scale > 0 else DEFAULT_SCALE)
    ints = np.zeros(RO_BUF + max(game.max_moves, 1), dtype=np.int64)
    ints[:RO_BUF] = [playouts, max(game.max_plies, PLAYOUT_CAP), game.eval_bound, seed]
    kernels = evaluated_kernels(game, rollout_evaluate)
    return RulesEvaluator("rollout", kernels, rules_of(game), (ints, scale), dict(sets or {}),
                          leaf_playouts=playouts, rng=(ints, RO_RNG), seed=seed)  # fmt: skip

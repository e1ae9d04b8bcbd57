"""MCTS and PUCT for every game with alpha-beta kernels: the generic adapter.

The Monte-Carlo tree search (:mod:`.mcts`) plays on a *mutable* state through its own
kernel contract (:class:`~.mcts.MctsKernels`); a game with alpha-beta kernels
(:class:`~.alphabeta.Kernels`: immutable tuple states, negamax values from the side to
move's view, every move handing the turn over) gets that contract here, written once:

* **the state**: the game's tuple held in one small array per member, so each keeps its
  dtype (``comps``), beside ``meta`` (int64: the player to move, 1 or 2; the points
  banked by ``gain`` so far, player 1's minus player 2's; the playouts' random state)
  and a move buffer: ``st = (comps, meta, buf)``. ``play`` reads the tuple, calls the
  game's ``play`` and writes it back.
* **the context**: ``ctx = (rules, game_ctx, params)`` — the game's kernels as a
  :class:`Rules` tuple (handed to these kernels as *data*: a closure over them would
  break numba's on-disk cache), the game's own ``ctx``, and float parameters (the value
  scale).
* **the reward**: values are from the side to move's view and every move passes the
  turn, so a finished game's ``final`` plus the points banked on the way, from the view
  of the player to move, says who won: player 1's reward is 1 for a win, 0 for a loss,
  1/2 for a draw.
* **the playout** (``rollout``): uniformly random moves among those ``gen_moves`` gives
  to the end of the game, the random numbers drawn from the scratch state's generator
  (seeded by the engine: :meth:`RulesTree.seed`).
* **PUCT's value** (``value``): the game's ``evaluate`` plus the points banked, from the
  side to move's view, squashed to a win probability ``1 / (1 + exp(-v / scale))`` by
  the game's :attr:`~.alphabeta.Kernels.value_scale`; a game that declares no scale is
  valued by one random playout. Priors are uniform (every move gets the same virtual
  visit, so :func:`~.mcts.visit_priors` spreads them evenly) until an evaluator supplies
  learned ones: ``prior`` and ``value`` are kernels of the bundle, so one can slot in.
* **an evaluator** (:mod:`.evaluators`): its rules bundle stands for the game's, so its
  ``evaluate`` is the one squashed, with its scale; one that values a leaf by playouts
  (``leaf_playouts`` > 1: the rollout evaluator) gives their mean reward instead. UCT
  given an evaluator values its leaves the same way, instead of by one playout.
* **AMAF**: only where the game says a move means the same wherever it is played
  (:attr:`~.alphabeta.Kernels.amaf`, with :attr:`~.alphabeta.Kernels.move_limit`); off
  otherwise (its statistics would mix unrelated moves).

Go keeps kernels of its own (a mutable board, its playout policy and priors): the same
contract, another adapter (:mod:`banmen.games.go.policy`).
"""

# numba types the compiled functions; mypy sees numba's untyped decorators.
# mypy: disable-error-code="misc, no-any-return, untyped-decorator, no-untyped-call"

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np
from numba import types
from numba.core.errors import TypingError
from numba.extending import overload

from banmen._bits import mix64
from banmen._jit import kernel, njit
from banmen.search.alphabeta import Kernels
from banmen.search.mcts import MctsKernels

__all__ = ["Rules", "RulesTree", "rules_kernels", "rollout", "outcome"]

# meta[] slots
M_PLAYER = 0  #: the player to move, 1 or 2
M_MARGIN = 1  #: points banked by ``gain``: player 1's minus player 2's
M_RNG = 2  #: the playouts' random state (a Weyl sequence, mixed)
M_LEN = 3

# params[] slots
P_SCALE = 0  #: Kernels.value_scale (0: PUCT values a leaf by a random playout)
P_PLAYOUTS = 1  #: an evaluator's leaf playouts (> 0: a leaf's value is their mean reward)
P_LEN = 2

_GOLDEN = -7046029254386353131  # 0x9E3779B97F4A7C15 as int64


class Rules(NamedTuple):
    """The game's kernels the adapter calls, handed to it as data in ``ctx``."""

    gen_moves: Any
    play: Any
    gain: Any
    evaluate: Any
    final: Any


# --------------------------------------------------------------------------- the tuple state
#
# A game's state is a tuple of any length; the helpers below are written for each length
# (and the members' dtypes) when numba first types a call with it.


def _members(comps: Any) -> Any:
    """The game's tuple state read from its arrays (compiled only)."""
    raise NotImplementedError


def _store(comps: Any, s: Any) -> None:
    """The game's tuple state ``s`` written to its arrays (compiled only)."""
    raise NotImplementedError


def _copy(src: Any, dst: Any) -> None:
    """``dst``'s arrays made ``src``'s (compiled only)."""
    raise NotImplementedError


def _retype(comps: Any, s: Any) -> Any:
    """``s`` with each member cast to its array's dtype (compiled only): a state a game's
    ``play`` returns keeps the type of the state read, whatever its arithmetic made."""
    raise NotImplementedError


def _generated(name: str, args: str, body: str, names: dict[str, Any]) -> Callable[..., Any]:
    """A function written for one length of state (numba wants its parameters to be the
    overload's, annotations included: each is ``Any``)."""
    namespace = dict(names)
    params = ", ".join(f"{a.strip()}: Any" for a in args.split(","))  # (a string here)
    exec(f"def {name}({params}):\n    {body}\n", namespace)  # noqa: S102 - fixed text
    fn: Callable[..., Any] = namespace[name]
    return fn


def _arity(comps: Any) -> int:
    members = list(getattr(comps, "types", ()))
    if not isinstance(comps, types.BaseTuple) or not all(
        isinstance(t, types.Array) and t.ndim == 1 for t in members
    ):
        raise TypingError("the state's members must be a tuple of one-element arrays")
    return len(comps)


@overload(_members)
def _ov_members(comps: Any) -> Any:
    n = _arity(comps)
    return _generated("members", "comps", "return (" + "".join(
        f"comps[{i}][0], " for i in range(n)) + ")", {})  # fmt: skip


@overload(_store)
def _ov_store(comps: Any, s: Any) -> Any:
    n = _arity(comps)
    body = "; ".join(f"comps[{i}][0] = s[{i}]" for i in range(n)) if n else "pass"
    return _generated("store", "comps, s", body, {})


@overload(_copy)
def _ov_copy(src: Any, dst: Any) -> Any:
    n = _arity(src)
    body = "; ".join(f"dst[{i}][0] = src[{i}][0]" for i in range(n)) if n else "pass"
    return _generated("copy", "src, dst", body, {})


@overload(_retype)
def _ov_retype(comps: Any, s: Any) -> Any:
    n = _arity(comps)
    if not isinstance(s, types.BaseTuple) or len(s) != n:
        raise TypingError(f"the game's play returned {s}, not a tuple of {n} members")
    casts = {f"c{i}": np.dtype(str(t.dtype)).type for i, t in enumerate(comps.types)}
    return _generated("retype", "comps, s", "return (" + "".join(
        f"c{i}(s[{i}]), " for i in range(n)) + ")", casts)  # fmt: skip


# --------------------------------------------------------------------------- the kernels


@njit(cache=True, inline="always")
def _below(meta: Any, n: int) -> int:
    """A random number in ``[0, n)`` from the state's generator."""
    x = meta[M_RNG] + _GOLDEN
    meta[M_RNG] = x
    r = mix64(x)
    return (((r >> 32) & 0xFFFFFFFF) * n) >> 32


@njit(cache=True, inline="always")
def outcome(total: int, player: int) -> float:
    """Player 1's reward when the game's result is ``total`` from ``player``'s view."""
    r = 1.0 if total > 0 else 0.0 if total < 0 else 0.5
    return r if player == 1 else 1.0 - r


@kernel
def rules_copy(ctx: Any, src: Any, dst: Any) -> None:
    """``dst := src``, keeping ``dst``'s random state (the playouts' generator)."""
    _copy(src[0], dst[0])
    dst[1][M_PLAYER] = src[1][M_PLAYER]
    dst[1][M_MARGIN] = src[1][M_MARGIN]


@kernel
def rules_to_move(ctx: Any, st: Any) -> int:
    return st[1][M_PLAYER]


@kernel
def rules_expand(ctx: Any, st: Any, moves: Any, pn: Any, pw: Any) -> int:
    """The game's moves, each with one virtual visit at even odds (uniform priors)."""
    n = ctx[0].gen_moves(ctx[1], _members(st[0]), moves)
    for i in range(n):
        pn[i] = 1.0
        pw[i] = 0.5
    return n


@kernel
def rules_play(ctx: Any, st: Any, move: int) -> None:
    rules, gctx = ctx[0], ctx[1]
    comps, meta = st[0], st[1]
    s = _members(comps)
    g = rules.gain(gctx, s, move)
    player = meta[M_PLAYER]
    meta[M_MARGIN] += g if player == 1 else -g
    _store(comps, rules.play(gctx, s, move))
    meta[M_PLAYER] = 3 - player


@kernel
def rollout(ctx: Any, st: Any, seq: Any, seqc: Any) -> tuple[float, int]:
    """Uniformly random moves to the end of the game: (player 1's reward, moves played).
    ``st`` is left where it was (the moves are played on a copy of its tuple). A game
    longer than ``seq`` (its ``max_plies``, so never, or :data:`PLAYOUT_CAP` plies for a
    game that gives no bound) is called a draw."""
    rules, gctx = ctx[0], ctx[1]
    comps, meta, buf = st
    s = _members(comps)
    player = meta[M_PLAYER]
    margin = meta[M_MARGIN]
    n = 0
    room = seq.shape[0] - 1
    while True:
        k = rules.gen_moves(gctx, s, buf)
        if k == 0:
            break
        if n >= room:
            return 0.5, n
        mv = buf[_below(meta, k)]
        g = rules.gain(gctx, s, mv)
        margin += g if player == 1 else -g
        s = _retype(comps, rules.play(gctx, s, mv))
        seq[n] = mv
        seqc[n] = player
        n += 1
        player = 3 - player
    total = rules.final(gctx, s) + (margin if player == 1 else -margin)
    return outcome(total, player), n


@kernel
def rules_evaluate(ctx: Any, st: Any) -> float:
    """Player 1's reward of a finished game."""
    player = st[1][M_PLAYER]
    margin = st[1][M_MARGIN]
    total = ctx[0].final(ctx[1], _members(st[0])) + (margin if player == 1 else -margin)
    return outcome(total, player)


@kernel
def rules_value(ctx: Any, st: Any, seq: Any, seqc: Any) -> tuple[float, int]:
    """PUCT's leaf value (module docstring): the squashed evaluation, or a playout (the
    mean reward of an evaluator's ``P_PLAYOUTS`` playouts)."""
    scale = ctx[2][P_SCALE]
    many = np.int64(ctx[2][P_PLAYOUTS])
    if many > 1:
        total = 0.0
        length = 0
        for _ in range(many):  # (each leaves ``st`` where it was)
            reward, length = rollout(ctx, st, seq, seqc)
            total += reward
        return total / many, length
    if scale <= 0 or many == 1:
        return rollout(ctx, st, seq, seqc)
    rules, gctx = ctx[0], ctx[1]
    comps, meta, buf = st
    s = _members(comps)
    player = meta[M_PLAYER]
    mine = meta[M_MARGIN] if player == 1 else -meta[M_MARGIN]
    if rules.gen_moves(gctx, s, buf) == 0:
        return outcome(rules.final(gctx, s) + mine, player), 0
    v = (rules.evaluate(gctx, s) + mine) / scale
    p = 1.0 / (1.0 + math.exp(-v))
    return (p if player == 1 else 1.0 - p), 0


#: the longest playout of a game whose kernels bound no game's length (``max_plies`` below
#: it): a playout cut there counts as a draw
PLAYOUT_CAP = 1024


def rules_kernels(rules: Kernels, evaluated: bool = False) -> MctsKernels:
    """The :class:`~.mcts.MctsKernels` of a game with alpha-beta kernels ``rules``
    (``evaluated``: the rules carry an evaluator's evaluation, and UCT values a leaf by
    it as PUCT does, instead of by one random playout)."""
    amaf = rules.amaf and rules.move_limit > 0
    return MctsKernels(
        rules_copy, rules_to_move, rules_expand, rules_play,
        rules_value if evaluated else rollout, rules_evaluate,
        max_moves=rules.max_moves, max_playout=max(rules.max_plies, PLAYOUT_CAP) + 1,
        amaf_skip=rules.pass_move, value=rules_value,
        move_limit=rules.move_limit if amaf else 0, amaf=amaf,
    )  # fmt: skip


class RulesTree:
    """A game's alpha-beta kernels as MCTS kernels, with the states to search them:
    :attr:`kernels` for :class:`~.mcts.MCTS`, :meth:`context` and :meth:`state` for its
    ``search``, :meth:`seed` for the playouts' random numbers."""

    def __init__(self, rules: Kernels, leaf_playouts: int = 0, evaluated: bool = False) -> None:
        self.rules = rules
        self.kernels = rules_kernels(rules, evaluated)
        self._calls = Rules(rules.gen_moves, rules.play, rules.gain, rules.evaluate,
                            rules.final)  # fmt: skip
        self._params = np.zeros(P_LEN, dtype=np.float64)
        self._params[P_SCALE] = rules.value_scale
        self._params[P_PLAYOUTS] = leaf_playouts

    def context(self, game_ctx: Any) -> tuple[Rules, Any, Any]:
        """The ``ctx`` of the search for the game's own ``ctx``."""
        return (self._calls, game_ctx, self._params)

    def state(self, game_state: tuple[Any, ...], player: int, margin: int = 0) -> tuple[Any, ...]:
        """A search state: the game's tuple ``game_state`` with ``player`` (1 or 2) to
        move and ``margin`` points banked (player 1's minus player 2's)."""
        comps = tuple(np.array([x]) for x in game_state)
        meta = np.zeros(M_LEN, dtype=np.int64)
        meta[M_PLAYER] = player
        meta[M_MARGIN] = margin
        return (comps, meta, np.zeros(self.rules.max_moves, dtype=np.int64))

    @staticmethod
    def seed(st: tuple[Any, ...], seed: int) -> None:
        """Seed the playouts drawn in the scratch state ``st`` (a signed 64-bit int)."""
        st[1][M_RNG] = seed

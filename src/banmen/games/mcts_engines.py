"""MCTS and PUCT players for any game with alpha-beta kernels.

:class:`TreeEngine` is the one Monte-Carlo tree search (:mod:`banmen.search.mcts`) over a
game's alpha-beta kernels (``GameDef.kernels``), through the generic adapter
(:mod:`banmen.search.mcts_rules`): UCT with uniformly random playouts (AMAF where the
game's kernels say a move means the same everywhere), or PUCT (``puct=True``: AlphaZero's
selection, uniform priors, the leaf valued by the game's ``evaluate`` squashed to a win
probability, or by one random playout where the game declares no scale). Given an
evaluator (a spec's ``+EVALUATOR``, :mod:`banmen.search.evaluators`), both value their
leaves by it: its evaluation squashed with its scale, or its playouts' mean reward.

What :meth:`TreeEngine.think` returns, as Go's MCTS player does: the most visited move;
``score`` its **win rate** for the player to move, in per cent (never exact); ``nodes``
the playouts (PUCT: the simulations); ``depth`` the length of the principal variation.
Limits: ``Limit(time=S)`` (a little less is spent, for the work around the search; the
search ends early once the most visited move cannot be overtaken), ``Limit(nodes=N)``
simulations; with neither, the engine's own (default one second). With a simulation
limit and a seed, games are reproducible: the playouts draw from a generator seeded by
the engine's seed (and :meth:`~TreeEngine.reseed`'s), restarted by
:meth:`~TreeEngine.new_game`. The tree is kept from one move to the next of a game when
the moves played since lead to a node it holds.

:func:`mcts_engine` and :func:`puct_engine` build them from a game and a player spec
(``time``, ``playouts`` or ``nodes``, ``seed``, ``threads``); they are not registered
as kinds here (the registry wires them). Each game's ``mcts`` kernel set
(:func:`load_tree`) compiles both modes before any clock starts.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from banmen._random import mix_seed
from banmen.engine import Engine, GameBoard, Info, PlayerSpec, Request, Result, SpecError
from banmen.kinds import Evaluator
from banmen.search.limits import Limit

if TYPE_CHECKING:  # the compiled search is imported by the first engine built
    from banmen.games._base import GameDef
    from banmen.search.mcts import MctsInfo

__all__ = ["TreeEngine", "mcts_engine", "puct_engine", "load_tree", "DEFAULT_LIMIT"]

#: the limit when neither the spec nor the caller gives one
DEFAULT_LIMIT = Limit(time=1.0)
#: seconds kept back from a time limit for the work around the search
_MARGIN = 0.03
#: UCT's exploration constant for these games, where no priors or AMAF spread the search:
#: Kocsis and Szepesvari's 1/sqrt(2) for rewards in [0, 1] (0.35 and 1.2 were no better
#: over Othello, Mattix 6x6 and Connect Four: docs/BENCHMARKS.md, issue 37)
EXPLORE = 0.7
#: PUCT's exploration constant: with uniform priors and the games' evaluations a low one
#: searches best (0.4 against 0.8: Othello 82%, Mattix and Connect Four even)
C_PUCT = 0.4


def _no_bound(limit: Limit) -> bool:
    """Neither a time nor a simulation limit (a depth means nothing to this search)."""
    return limit.time is None and limit.nodes is None and not limit.timed


def _same(a: Any, b: Any) -> bool:
    """Are two contexts (arrays, or tuples of them) or states equal?"""
    if a is b:
        return True
    if isinstance(a, tuple) or isinstance(b, tuple):
        return (
            isinstance(a, tuple)
            and isinstance(b, tuple)
            and len(a) == len(b)
            and all(_same(x, y) for x, y in zip(a, b, strict=True))
        )
    try:
        return bool(np.array_equal(np.asarray(a), np.asarray(b)))
    except (TypeError, ValueError):  # pragma: no cover - kernels' contexts are arrays
        return False


class TreeEngine(Engine[GameBoard]):
    """``think(board, limit, on_info, stop) -> Result`` by MCTS or PUCT over ``game``'s
    alpha-beta kernels (module docstring).

    ``limit`` is the player's default; ``seed`` fixes the playouts' random numbers;
    ``capacity`` the tree's size in nodes; ``explore`` UCT's constant (default
    :data:`EXPLORE`), ``c_puct`` PUCT's (:data:`C_PUCT`); ``threads`` search one tree
    together (tree parallelism: then the games are no longer reproducible).
    """

    ends_at_game_over = True

    def __init__(
        self,
        game: GameDef[Any],
        limit: Limit | None = None,
        seed: int | None = None,
        name: str | None = None,
        *,
        puct: bool = False,
        capacity: int = 1 << 20,
        explore: float | None = None,
        c_puct: float | None = None,
        threads: int = 1,
        evaluator: Evaluator | None = None,
    ) -> None:
        if game.kernels is None or game.search_position is None:
            raise SpecError(f"{game.title} has no alpha-beta kernels: no MCTS or PUCT over them")
        from banmen.search.mcts import MCTS  # (see the note at the imports)
        from banmen.search.mcts_rules import RulesTree

        self.game = game
        self.limit = DEFAULT_LIMIT if limit is None or _no_bound(limit) else limit
        self.seed = 0 if seed is None else seed
        self.puct = puct
        self.name = name or ("puct" if puct else "mcts")
        self.evaluator = evaluator
        if evaluator is None:
            self.tree = RulesTree(game.kernels)
        else:
            playouts = evaluator.leaf_playouts
            if playouts == 0 and evaluator.kernels.value_scale <= 0:
                raise SpecError(
                    f"{game.title} declares no value scale (Kernels.value_scale): the "
                    f"{evaluator.name} evaluator's values cannot be read as win rates here"
                )
            self.tree = RulesTree(evaluator.kernels, playouts, evaluated=True)
        self.search = MCTS(
            self.tree.kernels, capacity, threads=threads, puct=puct,
            explore=EXPLORE if explore is None else explore,
            c_puct=C_PUCT if c_puct is None else c_puct,
            expand_threshold=1,
        )  # fmt: skip
        self._rng = mix_seed(self.seed)
        self._scratch: list[Any] = []
        #: the last search's root: (game ctx, moves played, game state, player)
        self._root: tuple[Any, list[int], tuple[Any, ...], int] | None = None

    @property
    def threads(self) -> int:
        return self.search.threads

    # ---- games and seeds

    def new_game(self) -> None:
        """Forget the tree and restart the random numbers: the next game depends on
        nothing played before."""
        self.search.clear()
        self._root = None
        self._rng = mix_seed(self.seed)
        self._seed_scratch()
        if self.evaluator is not None:
            self.evaluator.reset()

    def reseed(self, seed: int) -> None:
        """Make the playouts' random numbers a function of the engine's seed and ``seed``
        (after :meth:`new_game`; the arena gives one per game and side)."""
        self._rng = mix_seed(self.seed ^ mix_seed(seed))
        self._seed_scratch()

    def _seed_scratch(self) -> None:
        """Each thread's playouts draw from their own generator, seeded from the engine's."""
        for t, st in enumerate(self._scratch):
            self.tree.seed(st, self._rng if t == 0 else mix_seed(self._rng + t))

    def warm_up(self) -> None:
        """Load (or compile, the first time ever) the search now: the game's ``mcts``
        kernel set (its evaluator's, given one), or a few simulations of its sample
        position if it names none."""
        ev = self.evaluator
        ks = self.game.kernel_set("mcts") if ev is None else ev.warm_set("mcts")
        if ks is not None:
            from banmen.warm import ensure

            ensure(ks)
        else:
            load_tree(self.game, ev)

    def limit_for(self, limit: Limit | None) -> Limit:
        return self.limit if limit is None or _no_bound(limit) else limit

    # ---- searching

    def _prepare(self, board: GameBoard) -> tuple[Any, Any, Any]:
        """Make ``board``'s position the tree's root (keeping the subtree of an earlier
        search of the same game): (ctx, root state, scratch state)."""
        assert self.game.search_position is not None and self.game.kernels is not None
        gctx, state = self.game.search_position(board)
        player = int(board.turn)
        offset = int(self.game.score_offset(board))
        root = self.tree.state(state, player, offset if player == 1 else -offset)
        stack = list(board.move_stack)
        if not self._reuse(gctx, stack, state, player):
            self.search.clear()
        self._root = (gctx, stack, state, player)
        if not self._scratch:
            self._scratch = [self.tree.state(state, player) for _ in range(self.threads)]
            self._seed_scratch()
        scratch = self._scratch if self.threads > 1 else self._scratch[0]
        ctx = gctx if self.evaluator is None else self.evaluator.context(gctx)
        return self.tree.context(ctx), root, scratch

    def _reuse(self, gctx: Any, stack: list[int], state: tuple[Any, ...], player: int) -> bool:
        """Move the tree's root to this position if the tree was searched from an earlier
        position of the same game (the same context, the moves since played from it)."""
        if self._root is None:
            return False
        old_ctx, old_stack, old_state, old_player = self._root
        n = len(old_stack)
        if len(stack) < n or stack[:n] != old_stack or not _same(old_ctx, gctx):
            return False
        new = stack[n:]
        assert self.game.kernels is not None
        play = self.game.kernels.play
        trial = old_state
        kinds = [np.asarray(x).dtype.type for x in old_state]
        for m in new:  # (numba answers plain ints: each member is given its type back)
            trial = tuple(t(x) for t, x in zip(kinds, play(gctx, trial, m), strict=True))
        if not _same(tuple(trial), tuple(state)) or (old_player + len(new)) % 2 != player % 2:
            return False
        return self.search.advance(new)

    def choose(self, board: GameBoard, request: Request) -> Result:
        ctx, root, scratch = self._prepare(board)

        def names(pv: list[int]) -> list[str]:
            return [board.move_name(m) for m in pv]

        relay: Callable[[MctsInfo], None] | None = None
        if request.on_info is not None:
            callback = request.on_info

            def relay(mi: MctsInfo) -> None:
                callback(Info(len(mi.pv), round(100 * mi.winrate), mi.playouts, mi.nps,
                              names(mi.pv), mi.seconds))  # fmt: skip

        limit = request.limit
        seconds = limit.time if limit.target is None else limit.target  # (a clock's aim)
        if seconds is not None:
            seconds = max(0.005, seconds - request.elapsed() - _MARGIN)
        r = self.search.search(ctx, root, scratch, Limit(time=seconds, nodes=limit.nodes),
                               stop=request.stop, on_info=relay)  # fmt: skip
        if r.move is None:  # pragma: no cover - a game over is answered before
            return Result(None, stopped_by=r.stopped_by, seconds=request.elapsed())
        return Result(
            move=board.move_name(r.move),
            score=round(100 * r.winrate),
            depth=len(r.pv),
            nodes=r.playouts,
            nps=r.playouts / max(request.elapsed(), 1e-9),
            pv=names(r.pv),
            exact=False,
            stopped_by=r.stopped_by,
            seconds=request.elapsed(),
        )


def _spec_engine(
    game: GameDef[Any], spec: PlayerSpec, puct: bool, evaluator: Evaluator | None
) -> TreeEngine:
    o = spec.options
    nodes = o.get("playouts", o.get("nodes"))
    limit = Limit(time=o.get("time"), nodes=nodes)
    return TreeEngine(game, limit, seed=o.get("seed"), name=spec.text, puct=puct,
                      threads=o.get("threads", 1), evaluator=evaluator)  # fmt: skip


def mcts_engine(
    game: GameDef[Any], spec: PlayerSpec, evaluator: Evaluator | None = None
) -> TreeEngine:
    """The MCTS player (UCT, random playouts; with ``evaluator``, leaves valued by it)
    of ``spec`` for ``game``: options ``time=S``, ``playouts=N`` (or ``nodes=N``),
    ``seed=N``, ``threads=N``."""
    return _spec_engine(game, spec, False, evaluator)


def puct_engine(
    game: GameDef[Any], spec: PlayerSpec, evaluator: Evaluator | None = None
) -> TreeEngine:
    """The PUCT player of ``spec`` for ``game`` (options as :func:`mcts_engine`'s, the
    simulations counted by ``playouts`` or ``nodes``; leaves valued by ``evaluator``
    instead of the game's evaluation, given one)."""
    return _spec_engine(game, spec, True, evaluator)


def load_tree(game: GameDef[Any], evaluator: Evaluator | None = None) -> None:
    """Compile (or load) what the MCTS and PUCT players of ``game`` run (with
    ``evaluator``, if given): two moves of each on the game's sample position (the
    search, its tree reuse, the playouts and the leaf values), a small tree. A game's
    ``mcts`` kernel set's loader calls it, and an evaluator's."""
    if game.sample is None:
        return
    for puct in (False, True):
        engine = TreeEngine(game, seed=1, puct=puct, capacity=1 << 12, evaluator=evaluator)
        engine.__dict__["_warmed"] = True  # (this is the warm-up)
        board = game.sample()
        for _ in range(2):
            if board.is_game_over():
                break
            r = engine.think(board, Limit(nodes=64))
            assert r.move is not None
            board.push_name(r.move)

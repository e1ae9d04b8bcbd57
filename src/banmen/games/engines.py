"""The engines any game with alpha-beta kernels offers: alpha-beta, perfect, random —
their kinds (:data:`ALPHABETA`, :data:`PERFECT`, :data:`RANDOM`: options, help, what they
need) and their engines.

The registry finds the kinds by entry point (``banmen.searches``) and builds, for a game,
the game's own engine for the kind if it has one (``GameDef.engines``: Othello's
alpha-beta with its endgame solver) and else the kind's generic one here, so no layer
tests a game's name.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from banmen.engine import Engine, GameBoard, Info, PlayerSpec, Request, Result, SpecError
from banmen.games._base import EngineKind
from banmen.kinds import FLAG, Evaluator, Kind, Option, needs_rules
from banmen.search.limits import Limit

if TYPE_CHECKING:  # the compiled search is imported by the first AlphaBetaEngine: a game
    # that offers only RandomEngine from here (Go, shogi) does not load it
    from banmen.games._base import GameDef
    from banmen.search.alphabeta import SearchInfo

__all__ = [
    "AlphaBetaEngine", "RandomEngine", "STANDARD_ENGINES", "solve_record", "tt_bits_for",
    "ALPHABETA", "PERFECT", "RANDOM", "DEPTH", "TIME", "NODES", "PROBCUT",
]  # fmt: skip


class AlphaBetaEngine(Engine[GameBoard]):
    """The shared compiled alpha-beta over a game's kernels (see ``search.alphabeta``).

    ``limit`` is the player's own default, used when :meth:`think` is given none. An
    unbounded limit solves the position exactly. The transposition table persists
    between calls (and is salted per deal, so it is safe across games). ``evaluator``
    (:class:`banmen.kinds.Evaluator`, a spec's ``+EVALUATOR``) searches the game's rules
    with its evaluation instead of the game's own.
    """

    def __init__(
        self,
        game: GameDef[Any],
        limit: Limit | None = None,
        name: str | None = None,
        tt_bits: int | None = None,
        evaluator: Evaluator | None = None,
    ) -> None:
        if game.kernels is None or game.search_position is None:
            raise SpecError(f"{game.name} has no alpha-beta kernels")
        self.game = game
        self.limit = limit if limit is not None else Limit(time=1.0)
        self.name = name or "alphabeta"
        self.evaluator = evaluator
        from banmen.search.alphabeta import AlphaBeta  # (see the note at the imports)

        kernels = game.kernels if evaluator is None else evaluator.kernels
        self.search = AlphaBeta(kernels, tt_bits=tt_bits or game.tt_bits)
        self.search.solve_horizon = game.solve_horizon

    def new_game(self) -> None:
        """Forget the table, so the next game's moves depend on nothing played before
        (the arena relies on this to make every game reproducible from its seed): the
        evaluator's random numbers start again too."""
        self.search.clear()
        if self.evaluator is not None:
            self.evaluator.reset()

    def warm_up(self) -> None:
        """Load (or, the first time ever, compile) the search for this game now, so that
        the first real search's time is its own: the game's ``alphabeta`` kernel set (or,
        if it has none, its ``search`` set: a game whose only search is alpha-beta names
        it so; its evaluator's, given one), or a shallow search of its sample position if
        it names neither."""
        ev = self.evaluator
        if ev is None:
            ks = self.game.kernel_set("alphabeta") or self.game.kernel_set("search")
        else:
            ks = ev.warm_set("search")
        if ks is not None:
            from banmen.warm import ensure

            ensure(ks)
        elif self.game.sample is not None:
            self.think(self.game.sample(), Limit(depth=2))

    def choose(self, board: GameBoard, request: Request) -> Result:
        assert self.game.search_position is not None
        ctx, state = self.game.search_position(board)
        if self.evaluator is not None:
            ctx = self.evaluator.context(ctx)
        offset = self.game.score_offset(board)

        def names(pv: list[int]) -> list[str]:
            return [board.move_name(m) for m in pv]

        relay = None
        if request.on_info is not None:
            callback = request.on_info

            def relay(si: SearchInfo) -> None:
                callback(
                    Info(
                        si.depth,
                        si.score + offset,
                        si.nodes,
                        si.nps,
                        names(si.pv),
                        si.seconds,
                        si.exact,
                    )  # fmt: skip
                )

        r = self.search.search(ctx, state, request.limit, stop=request.stop, on_info=relay)
        return Result(
            move=None if r.move is None else board.move_name(r.move),
            score=r.score + offset,
            depth=r.depth,
            nodes=r.nodes,
            nps=r.nps,
            pv=names(r.pv),
            exact=r.exact,
            stopped_by=r.stopped_by,
            seconds=r.seconds,
        )


class RandomEngine(Engine[GameBoard]):
    """Uniformly random legal moves (seeded, so games can be replayed)."""

    def __init__(self, seed: int | None = None, name: str = "random") -> None:
        self.rng = random.Random(seed)
        self.name = name

    def choose(self, board: GameBoard, request: Request) -> Result:
        moves = list(board.legal_moves)
        if not moves:
            return Result(None, stopped_by="game_over")
        mv = self.rng.choice(moves)
        return Result(board.move_name(mv), stopped_by="random", seconds=request.elapsed())


def solve_record(r: Result) -> dict[str, Any]:
    """What an exact solve by :class:`AlphaBetaEngine` found, as a solver's record says it
    (``banmen solve``): ``status`` solved or unknown, the proved ``value``, ``best_move``
    and ``pv`` (``None``/empty unless solved), and, when a limit stopped it first, the
    ``best_so_far`` it had established — a guess, not a result."""
    solved = r.exact and r.score is not None
    return {
        "status": "solved" if solved else "unknown",
        "stopped_by": r.stopped_by,
        "value": int(r.score) if solved and r.score is not None else None,
        "best_move": r.move if solved else None,
        "pv": r.pv if solved else [],
        "best_so_far": None if solved else {"move": r.move, "score": r.score, "depth": r.depth},
        "nodes": r.nodes,
        "seconds": r.seconds,
    }


def tt_bits_for(game_bits: int, spec: PlayerSpec) -> int:
    """A small table for a shallow depth-limited player: clearing it before each game
    costs nothing; deeper or timed players get the game's full table."""
    depth = spec.options.get("depth") if spec.kind == "alphabeta" else None
    if depth is None or "time" in spec.options or "nodes" in spec.options:
        return game_bits
    return min(game_bits, 10 + 2 * int(depth))


def _alphabeta(
    game: GameDef[Any], spec: PlayerSpec, evaluator: Evaluator | None = None
) -> AlphaBetaEngine:
    bits = tt_bits_for(game.tt_bits, spec)
    engine = AlphaBetaEngine(game, spec.limit, name=spec.text, tt_bits=bits, evaluator=evaluator)
    engine.search.probcut = bool(spec.options.get("probcut", True))
    return engine


def _random(game: GameDef[Any], spec: PlayerSpec) -> RandomEngine:
    return RandomEngine(spec.options.get("seed"), name=spec.text)


#: what a game with alpha-beta kernels offers (``perfect`` is alpha-beta without a limit)
STANDARD_ENGINES: dict[str, EngineKind] = {
    "alphabeta": EngineKind(
        _alphabeta,
        "negamax alpha-beta with iterative deepening and a transposition table; "
        "depth=N, time=SECONDS, nodes=N (default time=1); +EVALUATOR (below)",
        ("depth", "time", "nodes"),
        takes_evaluator=True,
    ),
    "perfect": EngineKind(
        _alphabeta,
        "exact solve (perfect play); time=SECONDS, nodes=N cap it; +EVALUATOR (below)",
        ("time", "nodes"),
        takes_evaluator=True,
    ),
    "random": EngineKind(_random, "uniformly random legal moves; seed=N", ("seed",)),
}


DEPTH = Option("depth", int, "plies to search", lo=1, hi=10_000)
TIME = Option("time", float, "seconds a move", lo=0.001, hi=1e6)
NODES = Option("nodes", int, "nodes to search", lo=1, hi=2**62)
PROBCUT = Option("probcut", FLAG, "ProbCut where the evaluation offers its margins (0: off)")


def _solve_limit(options: Mapping[str, Any]) -> Limit:
    return Limit(time=options.get("time"), nodes=options.get("nodes"))


ALPHABETA = Kind(
    "alphabeta",
    "negamax alpha-beta with iterative deepening and a transposition table; depth=N, "
    "time=SECONDS, nodes=N (default time=1), probcut=0 (no ProbCut where the game's "
    "evaluation offers it); +EVALUATOR",
    options=(DEPTH, TIME, NODES, PROBCUT),
    build=_alphabeta,
    needs="alpha-beta kernels (GameDef.kernels)",
    applies=needs_rules,
    aliases=("cpu", "ab"),
    variants={"perfect": "perfect"},
)
PERFECT = Kind(
    "perfect",
    "exact solve (perfect play); time=SECONDS, nodes=N cap it; +EVALUATOR",
    options=(TIME, NODES),
    limit=_solve_limit,
    build=_alphabeta,
    needs="alpha-beta kernels (GameDef.kernels)",
    applies=needs_rules,
)
RANDOM = Kind(
    "random",
    "uniformly random legal moves; seed=N",
    options=(Option("seed", int, "the seed of its choices", lo=0, hi=2**63 - 1),),
    build=_random,
    evaluators=False,
)

"""The Othello player: midgame alpha-beta with the evaluation, the exact solver near the end.

Scores in results are in discs, from the mover's view: exact results are final disc
differences (empties to the winner); midgame scores are the evaluation's estimate.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from banmen.engine import Engine, Info, Request, Result
from banmen.games.othello.board import Board
from banmen.games.othello.endgame import EndgameSolver
from banmen.games.othello.evaluation import SCALE, alphabeta_state, search_position
from banmen.games.othello.evaluators import handset, patterns
from banmen.games.othello.formats import PASS, square_name
from banmen.games.othello.sets import ENDGAME
from banmen.kinds import Evaluator
from banmen.search.alphabeta import AlphaBeta, SearchInfo
from banmen.search.limits import Limit
from banmen.warm import beside, ensure

__all__ = ["OthelloEngine", "exact_empties_for"]

#: The solver takes over from this many empties down for timed and exact players.
DEFAULT_EXACT_EMPTIES = 20


def exact_empties_for(limit: Limit, perfect: bool) -> int:
    """How many empties the exact solver takes over at, for a player with ``limit``.

    A perfect player always solves; a timed one from 20 empties (most such positions
    solve in well under a second); a depth-limited one at ``2 * depth + 2`` (so the weak
    levels stay weak), at most 20."""
    if perfect:
        return 64
    if limit.depth is not None and limit.time is None:
        return min(DEFAULT_EXACT_EMPTIES, 2 * limit.depth + 2)
    return DEFAULT_EXACT_EMPTIES


class OthelloEngine(Engine[Board]):
    """``think(board, limit, on_info, stop) -> Result`` for Othello (see ``banmen.engine``)."""

    ends_at_game_over = True

    def __init__(
        self,
        limit: Limit | None = None,
        perfect: bool = False,
        name: str = "alphabeta",
        evaluator: Evaluator | None = None,
        probcut: bool = True,
    ) -> None:
        self.limit = limit if limit is not None else Limit(time=1.0)
        self.perfect = perfect
        self.name = name
        #: the midgame evaluation (:mod:`.evaluators`): the learned patterns of the
        #: shipped weights unless told otherwise (``+handset``, ``+patterns:weights=F``,
        #: or any game's evaluator: ``+ntuple:weights=F``, ``+rollout``)
        self.evaluator: Evaluator = evaluator if evaluator is not None else patterns()
        self.search = AlphaBeta(self.evaluator.kernels, tt_bits=20)
        #: ProbCut in the midgame search, where the evaluation offers its margins
        self.search.probcut = probcut
        self.ctx: Any = self.evaluator.context(search_position(Board())[0])
        self.solver = EndgameSolver(tt_bits=20, load=False)  # (loaded by warm_up)

    def new_game(self) -> None:
        self.search.clear()
        self.solver.clear()
        self.evaluator.reset()

    def warm_up(self) -> None:
        ks = self.evaluator.warm_set("search")
        if ks is not None:
            beside(ENDGAME, while_=ks)  # (the endgame solver in a second process meanwhile)
            ensure(ks)
        else:
            _load(self.evaluator)
        ensure(ENDGAME)

    def game_over(self, board: Board, request: Request) -> Result:
        return Result(None, board.final_margin(), exact=True, stopped_by="game_over")

    def choose(self, board: Board, request: Request) -> Result:
        lim, on_info = request.limit, request.on_info
        legal = board.legal_moves
        if legal == [PASS]:
            return Result("pass", None, stopped_by="forced", seconds=request.elapsed())
        p, o = board.pieces()
        empties = board.empties()
        budget = lim.time
        if empties <= exact_empties_for(lim, self.perfect):
            # Likely solvable in the time: give the solver all of it; otherwise half, and
            # keep the rest for the midgame search if the solve does not finish.
            share = budget if budget is None or empties <= 16 or self.perfect else budget / 2
            sol = self.solver.solve(p, o, time_limit=share, node_limit=lim.nodes, stop=request.stop)
            if sol.status == "solved" and sol.score is not None:
                move = square_name(sol.best_moves[0]) if sol.best_moves else None
                seconds = request.elapsed()
                if on_info is not None:
                    on_info(Info(empties, sol.score, sol.nodes, sol.nodes / max(seconds, 1e-9),
                                 [move] if move else [], seconds, True))  # fmt: skip
                return Result(move, sol.score, empties, sol.nodes, sol.nodes / max(seconds, 1e-9),
                              [move] if move else [], True, "exact", seconds)  # fmt: skip
            if self.perfect or request.stopped():
                why = sol.stopped_by or "time"
                # Nothing proved: fall back to a quick heuristic move, said to be one.
                r = self._midgame(board, Request(Limit(depth=4), started=request.started))
                r.stopped_by = why
                return r
            if budget is not None:
                budget = max(0.01, budget - request.elapsed())
        target = lim.target
        if target is not None and budget is not None:  # (the clock's aim, what is left of it)
            target = min(budget, max(0.005, target - request.elapsed()))
        mid = Limit(time=budget, depth=lim.depth, nodes=lim.nodes, target=target)
        return self._midgame(board, replace(request, limit=mid))

    def _midgame(self, board: Board, request: Request) -> Result:
        """The alpha-beta search with the evaluation, within ``request``'s limit."""
        relay = None
        if request.on_info is not None:
            callback = request.on_info

            def relay(si: SearchInfo) -> None:
                callback(Info(si.depth, _discs(si.score, si.exact), si.nodes, si.nps,
                              [square_name(m) for m in si.pv], si.seconds, si.exact))  # fmt: skip

        state = alphabeta_state(board)
        r = self.search.search(self.ctx, state, request.limit, stop=request.stop, on_info=relay)
        return Result(
            move=None if r.move is None else square_name(r.move),
            score=_discs(r.score, r.exact),
            depth=r.depth,
            nodes=r.nodes,
            nps=r.nps,
            pv=[square_name(m) for m in r.pv],
            exact=r.exact,
            stopped_by=r.stopped_by,
            seconds=request.elapsed(),
        )


def _discs(value: int, exact: bool) -> Any:
    return value // SCALE if exact else round(value / SCALE, 2)


def _load(evaluator: Evaluator) -> None:
    engine = OthelloEngine(evaluator=evaluator)  # (ProbCut is a switch of the same code)
    engine.search.search(engine.ctx, alphabeta_state(Board()), Limit(depth=2))


def _load_search() -> None:
    _load(patterns())


def _load_handset() -> None:
    _load(handset())

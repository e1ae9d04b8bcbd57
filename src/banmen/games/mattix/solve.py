"""Mattix's exact solver for ``banmen solve mattix LAYOUT``: the shared alpha-beta with no
depth bound, within the time asked (the package makes its :class:`~banmen.games.Solver`)."""

from __future__ import annotations

from typing import Any

from banmen.games._base import GameDef, SolveLimits
from banmen.games.mattix.board import Board


def solve(game: GameDef[Board], board: Board, limits: SolveLimits) -> dict[str, Any]:
    """The record ``solve mattix`` prints (``value`` is the final score margin for the
    side to move under perfect play, or ``None`` if the time ran out first), by ``game``'s
    alpha-beta (Mattix's GameDef, handed in by the package: a solver is given no game)."""
    from banmen.games.engines import AlphaBetaEngine, solve_record
    from banmen.search.limits import Limit

    engine = AlphaBetaEngine(game, Limit(time=limits.time))
    engine.warm_up()  # so that "seconds" is the solve's own time
    r = engine.think(board)
    return {"game": "mattix", "layout": board.layout(), "turn": board.turn, **solve_record(r)}


def lines(rec: dict[str, Any]) -> list[str]:
    """The human form of a :func:`solve` record."""
    out = []
    side = f"player {rec['turn']} ({'row' if rec['turn'] == 1 else 'column'}) to move"
    if rec["status"] == "solved":
        if rec["best_move"] is None:
            out.append(f"value: {rec['value']:+d} (the game is over; {side})")
        else:
            out.append(
                f"value: {rec['value']:+d} — final score margin for {side} "
                "under perfect play (proved)"
            )
            out.append(f"best move: {rec['best_move']}")
            out.append(f"best line: {' '.join(rec['pv'])}")
    else:
        b = rec["best_so_far"]
        out.append(
            f"unknown: stopped by {rec['stopped_by']} before the solve finished; "
            f"best so far {b['move']} (score {b['score']:+d} at depth {b['depth']}, not proved)"
        )
    nps = rec["nodes"] / rec["seconds"] if rec["seconds"] > 0 else 0.0
    out.append(f"nodes: {rec['nodes']:,} in {rec['seconds']:.3f} s ({nps / 1e6:.1f} M nodes/s)")
    return out

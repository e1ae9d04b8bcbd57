"""``banmen solve connect-four POSITION``: the exact value of a position by the ``perfect``
engine (banmen's alpha-beta searched to the end of the game), or an honest "unknown".

The record (:func:`solve`) says ``status`` ``"solved"`` only when the search reached every
end of the game; a time or node limit that came first gives ``"unknown"``, with no value,
no move and no line — only ``best_so_far``, a depth-limited search's guess, marked as
such. ``value`` is in the game's unit (:mod:`banmen_connect_four`): ``WIN`` (100) plus the
cells left empty at the end for a win of the side to move, the negative for a loss, 0 for
a draw.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from banmen.games import SolveLimits, Solver

from banmen_connect_four.board import WIN, Board
from banmen_connect_four.errors import ConnectFourError
from banmen_connect_four.formats import SIDE_NAMES

if TYPE_CHECKING:
    from banmen.games.engines import AlphaBetaEngine

__all__ = ["solve", "lines", "SOLVER", "outcome", "HASH_MB"]

#: the transposition table's default size
HASH_MB = 32
_BUCKET_BYTES = 32  # a bucket of banmen's table: two 16-byte entries


def _tt_bits(hash_mb: int | None) -> int:
    mb = HASH_MB if hash_mb is None else hash_mb
    if not isinstance(mb, int) or isinstance(mb, bool) or not 1 <= mb <= 65536:
        raise ConnectFourError(f"hash must be 1 to 65536 MB, got {hash_mb!r}")
    return max(10, min(30, int(math.log2(mb * (1 << 20) // _BUCKET_BYTES))))


def _engine(limits: SolveLimits) -> AlphaBetaEngine:
    from banmen.games.engines import AlphaBetaEngine
    from banmen.search.limits import Limit

    from banmen_connect_four import GAME

    limit = Limit(time=limits.time, nodes=limits.nodes)  # (a bad limit: one ValueError line)
    engine = AlphaBetaEngine(GAME, limit, name="perfect", tt_bits=_tt_bits(limits.hash_mb))
    engine.warm_up()  # the compiled search loaded before the clock starts
    return engine


def outcome(board: Board, value: int) -> str:
    """``value`` (for the side to move of ``board``) in words: who wins, and after how
    many more plies, or a draw."""
    if value == 0:
        return "draw"
    mover = board.turn
    winner = mover if value > 0 else 3 - mover
    plies = board.empties() - (abs(value) - WIN)
    if plies <= 0:
        return f"{SIDE_NAMES[winner][0]} has won"
    return f"{SIDE_NAMES[winner][0]} wins in {plies} {'ply' if plies == 1 else 'plies'}"


def solve(board: Board, limits: SolveLimits) -> dict[str, Any]:
    """Solve ``board`` within ``limits`` (time, nodes, hash_mb); the JSON-ready record."""
    from banmen.games.engines import solve_record

    engine = _engine(limits)
    r = engine.think(board)
    rec = solve_record(r)
    value = rec["value"]
    return {"game": "connect-four", "fen": board.fen(), "turn": board.turn, **rec,
            "outcome": outcome(board, value) if value is not None else None}  # fmt: skip


def lines(rec: dict[str, Any]) -> list[str]:
    """A :func:`solve` record for people, a line each."""
    name, letter = SIDE_NAMES.get(rec.get("turn", 1), SIDE_NAMES[1])
    side = f"{name} ({letter}) to move"
    out = []
    if rec["status"] == "solved":
        v = rec["value"]
        if rec["best_move"] is None:
            out.append(f"value: {v:+d} (the game is over: {rec['outcome']})")
        else:
            out.append(f"value: {v:+d} for {side}: {rec['outcome']} under perfect play (proved)")
            out.append(f"best move: {rec['best_move']}")
            out.append(f"best line: {' '.join(rec['pv'])}")
    else:
        b = rec.get("best_so_far") or {}
        guess = ""
        if b.get("move") is not None:
            guess = (
                f"; best so far {b['move']} (score {b['score']:+d} at depth {b['depth']}, "
                "not proved)"
            )
        out.append(f"unknown: stopped by {rec['stopped_by']} before the solve finished{guess}")
    nps = rec["nodes"] / rec["seconds"] if rec["seconds"] > 0 else 0.0
    out.append(f"nodes: {rec['nodes']:,} in {rec['seconds']:.3f} s ({nps / 1e6:.1f} M nodes/s)")
    return out


SOLVER: Solver[Board] = Solver(solve, lines, takes=("nodes", "hash_mb"))

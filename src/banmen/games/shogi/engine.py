"""Shogi's player: :class:`MateEngine`, the tsume solver (:mod:`.tsume`, compiled df-pn)
behind the engine contract, so a mate problem runs wherever an engine runs — in a worker
of the web server's pool, in the CLI, in tests.

It plays only mates: for the side to move it proves a mate (``move`` is the first move of
the composer's main line, ``pv`` the line, ``score`` its length in plies), proves that there
is none (``move`` ``None``, ``exact``), or runs into a limit — and then claims nothing:
``move`` ``None``, ``exact`` false, ``stopped_by`` the limit (``time``, ``nodes``, ``stop``,
``memory``). A mate not found in time is never reported as "no mate".

``Result.extra`` holds the solver's own record (:class:`~banmen.games.shogi.tsume.TsumeResult`
fields: ``status``, ``length``, ``shortest``, ``reason``, …) and, for a mate, ``steps``:
each move as USI, KIF and the position after it (:func:`~.problem.line_steps`). Progress
comes every 0.1 s as :class:`~banmen.engine.Info` with ``extra`` ``pn``, ``dn`` (the
root's proof and disproof numbers, ``"inf"`` when infinite) and ``phase`` (``proof``,
``shortest``, ``pv``).
"""

from __future__ import annotations

from typing import Any

from banmen.engine import Engine, Info, Request, Result
from banmen.games.shogi import tsume
from banmen.games.shogi.board import Board
from banmen.games.shogi.problem import line_steps
from banmen.search.limits import Limit

__all__ = ["MateEngine", "DEFAULT_HASH_MB", "mate_result"]

#: the transposition table of one solve, in MB
DEFAULT_HASH_MB = 256

#: the solver's reasons for stopping, as ``Result.stopped_by`` says them
_STOPPED_BY = {"timeout": "time", "node_limit": "nodes", "stopped": "stop", "memory": "memory"}


class MateEngine(Engine[Board]):
    """Proves mates for the side to move (see the module docstring).

    ``limit`` is the default for :meth:`think` (none: solve to the end); ``hash_mb`` sizes
    each solve's table, which is returned to the system when the solve ends (so
    :meth:`new_game` has nothing to forget)."""

    def __init__(
        self, limit: Limit | None = None, hash_mb: int = DEFAULT_HASH_MB, name: str = "mate"
    ) -> None:
        self.limit = limit if limit is not None else Limit()
        self.hash_mb = hash_mb
        self.name = name

    def warm_up(self) -> None:
        tsume.warm_up()

    def choose(self, board: Board, request: Request) -> Result:
        sfen = board.sfen()
        progress = None
        if request.on_info is not None:
            callback = request.on_info

            def progress(info: dict[str, Any]) -> None:
                callback(progress_info(info))

        try:
            r = tsume.solve(
                sfen, request.limit, stop=request.stop, progress=progress, hash_mb=self.hash_mb
            )
        except MemoryError:  # the table itself could not be had
            r = tsume.TsumeResult(sfen, "unknown", reason="memory")
        return mate_result(r)


def progress_info(info: dict[str, Any]) -> Info:
    """A solver's progress report as :class:`Info` (``pn``, ``dn``, ``phase`` in
    ``extra``; a proof search has no score or depth: both 0)."""
    nodes = int(info.get("nodes") or 0)
    return Info(
        depth=0,
        score=0,
        nodes=nodes,
        nps=float(info.get("nps") or 0),
        pv=[],
        seconds=float(info.get("seconds") or 0.0),
        extra={"pn": info.get("pn"), "dn": info.get("dn"), "phase": info.get("phase")},
    )


def mate_result(r: tsume.TsumeResult) -> Result:
    """The engine's :class:`Result` of a solver's record (see the module docstring)."""
    details = r.to_dict()
    details["nodes"] = int(r.nodes)
    details["steps"] = line_steps(r.sfen, list(r.pv)) if r.status == "mate" else []
    nps = r.nodes / r.seconds if r.seconds > 0 else 0.0
    common: dict[str, Any] = {"nodes": int(r.nodes), "nps": nps, "seconds": r.seconds}
    if r.status == "mate":
        proved = r.shortest
        return Result(
            move=r.pv[0] if r.pv else None,
            score=r.length,
            depth=r.length or 0,
            pv=list(r.pv),
            exact=proved,
            stopped_by="exact" if proved else _STOPPED_BY.get(str(r.reason), "stop"),
            extra=details,
            **common,
        )
    if r.status == "no_mate":
        return Result(move=None, exact=True, stopped_by="exact", extra=details, **common)
    return Result(
        move=None, stopped_by=_STOPPED_BY.get(str(r.reason), "stop"), extra=details, **common
    )

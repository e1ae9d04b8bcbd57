"""What the game pages and the tsume page share in running an analysis in the engine pool:
a job whose updates reach its page only while the page still wants that very job, the
words for an analysis waiting in line, and the ``analysis`` message itself."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any, Protocol

from banmen.search.limits import Limit
from banmen.web.limits import ordinal
from banmen.worker import EnginePool, Job

__all__ = ["RunState", "analysis_message", "submit_watched", "waiting_line"]


class RunState(Protocol):
    """What a page knows of its analysis: ``status`` (``waiting``, ``running``, ``done``,
    ``over``, ``failed``), the latest ``data`` (``Analysis.to_dict()``) and a ``message``
    saying why it waits or failed."""

    status: str
    data: dict[str, Any] | None
    message: str | None


def analysis_message(run: RunState | None, **where: Any) -> dict[str, Any]:
    """The ``analysis`` message of ``run`` (``None``: analysis off); ``where`` names the
    position (a game's ``id`` and ``position``, a problem's ``sfen``)."""
    if run is None:
        return {"type": "analysis", "on": False, **where, "status": "off", "data": None}
    msg = {"type": "analysis", "on": True, **where, "status": run.status, "data": run.data}
    if run.message is not None:
        msg["message"] = run.message
    return msg


def waiting_line(position: int, first: str) -> str:
    """An analysis waiting for an engine, in words (``first``: what goes before it)."""
    return f"waiting for an engine ({ordinal(position)} in line; {first} go first)"


def submit_watched(
    pool: EnginePool,
    game: str,
    board: dict[str, Any],
    *,
    owner: Hashable,
    wanted: Callable[[Job[dict[str, Any]]], bool],
    on_data: Callable[[dict[str, Any]], None],
    on_waiting: Callable[[int], None],
    limit: Limit | None = None,
) -> Job[dict[str, Any]]:
    """Queue ``game``'s analysis of ``board`` (:meth:`EnginePool.submit_analysis`, which
    may raise :class:`~banmen.worker.PoolBusy`). ``on_data`` gets each update and
    ``on_waiting`` each new place in line (> 0), but only once the job is returned and
    while ``wanted(job)`` holds: an update of a job the page has dropped (a move made, the
    switch turned off) is stale and goes nowhere."""
    holder: list[Job[dict[str, Any]]] = []

    def current() -> bool:
        return bool(holder) and wanted(holder[0])

    def on_analysis(data: dict[str, Any]) -> None:
        if current():
            on_data(data)

    def on_queue(position: int) -> None:
        if position > 0 and current():
            on_waiting(position)

    job = pool.submit_analysis(
        game, board, on_analysis, limit=limit, owner=owner, on_queue=on_queue
    )
    holder.append(job)
    return job

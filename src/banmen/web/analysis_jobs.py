"""What the game pages and the tsume page share in running an analysis in the engine pool:
a job whose updates reach its page only while the page still wants that very job, the
run that job serves kept up to date by it, the words for an analysis waiting in line, and
the ``analysis`` message itself."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any, Protocol, TypeVar

from banmen.search.limits import Limit
from banmen.web.limits import ordinal
from banmen.worker import EnginePool, Job

__all__ = [
    "JobRun",
    "RunState",
    "analysis_message",
    "submit_run",
    "submit_watched",
    "waiting_line",
]


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


class JobRun(RunState, Protocol):
    """A page's analysis with its pool job (``None`` between jobs); ``update`` takes the
    data of an update (the game pages keep the latest, the tsume page merges it with
    what earlier jobs proved)."""

    job: Job[dict[str, Any]] | None

    def update(self, data: dict[str, Any]) -> None: ...


R = TypeVar("R", bound=JobRun)


def submit_run(
    pool: EnginePool,
    game: str,
    board: dict[str, Any],
    run: R,
    *,
    owner: Hashable,
    current: Callable[[], object],
    tell: Callable[[R], None],
    first: str,
    limit: Limit | None = None,
) -> Job[dict[str, Any]]:
    """Queue ``game``'s analysis of ``board`` as ``run``'s job (:func:`submit_watched`,
    which may raise :class:`~banmen.worker.PoolBusy`, ``run`` unchanged). While
    ``current()`` is ``run`` and the job is still ``run.job``, each update goes to
    ``run.update`` and makes it ``running``, each new place in line makes it ``waiting``
    (:func:`waiting_line`, ``first`` going first), and ``tell(run)`` follows. On return
    ``run.job`` is the job and ``run`` is ``waiting`` in line or ``running``, not told
    yet."""

    def on_data(data: dict[str, Any]) -> None:
        run.update(data)
        run.status, run.message = "running", None
        tell(run)

    def on_waiting(position: int) -> None:
        run.status, run.message = "waiting", waiting_line(position, first)
        tell(run)

    job = submit_watched(
        pool, game, board, owner=owner,
        wanted=lambda job: current() is run and run.job is job,
        on_data=on_data, on_waiting=on_waiting, limit=limit,
    )  # fmt: skip
    run.job = job
    if job.position:
        run.status, run.message = "waiting", waiting_line(job.position, first)
    else:
        run.status, run.message = "running", None
    return job

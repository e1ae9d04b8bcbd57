"""What a worker's parent and its process say to each other, one frozen dataclass a message.

They cross the process boundary by pickle (a :class:`multiprocessing.connection.Connection`),
so they are plain module-level classes of plain data: a board, a limit, a search's info and
result, an analysis travel as their JSON dicts.

Parent to child: :class:`Run` (a job), :class:`Quit`.

Child to parent (:data:`FromChild`), about its warm-up (:data:`WarmEvent`, what an
:class:`~banmen.worker.EngineWorker`'s ``on_event`` hears): :class:`Warming`,
:class:`Warmed`, :class:`Notice`, :class:`Log`, :class:`Ready`; about a job
(:class:`JobMessage`, what a job's handler gets): :class:`Started`, :class:`Nodes`,
:class:`Iteration`, :class:`Update`, :class:`Answer`, :class:`Failure`.

:func:`receive` reads the next message on either side.
"""

from __future__ import annotations

from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any

from banmen.engine import PlayerSpec
from banmen.search.limits import Limit

__all__ = [
    "Answer",
    "Failure",
    "FromChild",
    "Iteration",
    "JobMessage",
    "Log",
    "Nodes",
    "Notice",
    "Quit",
    "Ready",
    "Request",
    "Run",
    "Started",
    "Update",
    "WarmEvent",
    "Warmed",
    "Warming",
    "receive",
]


@dataclass(frozen=True)
class Request:
    """What a worker is asked to run: a search (``task`` "think") of ``game``'s position
    ``board`` (as JSON) by the player ``spec`` within ``limit`` (``factory``: a test's
    engine), or the game's analysis (``task`` "analyse"; no spec). The spec is read once,
    where the job is asked for (:meth:`~banmen.worker.pool.EnginePool.submit`), and
    crosses to the worker as the value it is read into."""

    game: str
    board: dict[str, Any]
    spec: PlayerSpec | None
    limit: Limit | None
    factory: str | None = None
    task: str = "think"


# --------------------------------------------------------------------------- to the child


@dataclass(frozen=True)
class Run:
    """Run job ``job_id``: ``task`` ("think" or "analyse") on ``game``'s ``board`` by
    ``spec`` (``None`` for an analysis) within ``limit`` (``Limit.to_dict()``; ``None``: the
    spec's, or an analysis's default), the engine built by ``factory`` if given."""

    task: str
    job_id: int
    game: str
    board: dict[str, Any]
    spec: PlayerSpec | None
    limit: dict[str, Any] | None
    factory: str | None

    @classmethod
    def of(cls, job_id: int, request: Request) -> Run:
        limit = None if request.limit is None else request.limit.to_dict()
        return cls(request.task, job_id, request.game, request.board, request.spec, limit,
                   request.factory)  # fmt: skip


@dataclass(frozen=True)
class Quit:
    """End the process."""


# --------------------------------------------------------------------------- warm-up


@dataclass(frozen=True)
class Warming:
    """The kernel set ``set_id`` (``label``) is loading; ``cold``: it is being compiled."""

    set_id: str
    label: str
    cold: bool


@dataclass(frozen=True)
class Warmed:
    """The kernel set ``set_id`` took ``seconds``; ``cold``: it was compiled."""

    set_id: str
    seconds: float
    cold: bool


@dataclass(frozen=True)
class Notice:
    """A line a user would be told (a first run's compile notice)."""

    line: str


@dataclass(frozen=True)
class Log(Notice):
    """A line for the log (a warm-up that failed); shown where a notice is."""


@dataclass(frozen=True)
class Ready:
    """Warmed up: the process (``pid``) takes jobs."""

    pid: int


#: what a worker says about its warm-up
WarmEvent = Warming | Warmed | Notice | Log | Ready


# --------------------------------------------------------------------------- jobs


@dataclass(frozen=True)
class JobMessage:
    """Something about job ``job_id``."""

    job_id: int


@dataclass(frozen=True)
class Started(JobMessage):
    """The engine is loaded: the search's (or analysis's) own clock starts now."""


@dataclass(frozen=True)
class Nodes(JobMessage):
    """A running search's node count after ``seconds`` (between iterations)."""

    nodes: int
    seconds: float


@dataclass(frozen=True)
class Iteration(JobMessage):
    """One iteration's ``Info.to_dict()``."""

    info: dict[str, Any]


@dataclass(frozen=True)
class Update(JobMessage):
    """An analysis's latest ``Analysis.to_dict()``."""

    analysis: dict[str, Any]


@dataclass(frozen=True)
class Answer(JobMessage):
    """The job's end: a search's ``Result.to_dict()``, an analysis's final
    ``Analysis.to_dict()``."""

    value: dict[str, Any]


@dataclass(frozen=True)
class Failure(JobMessage):
    """The job failed: one line saying why."""

    text: str


#: what a process says to its parent
FromChild = WarmEvent | JobMessage


def receive(conn: Connection) -> Any:
    """The next message on ``conn``; ``None`` once the other end has closed."""
    try:
        return conn.recv()
    except (EOFError, OSError):
        return None

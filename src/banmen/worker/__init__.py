"""Engines in worker processes, so front ends never block while the AI thinks.

:class:`EngineWorker` is one spawned process that runs :meth:`Engine.think` jobs one at a
time; it shares a :class:`~banmen.search.limits.StopFlag` with its parent, so ``stop()``
makes the current search return its best move within milliseconds. Messages from the
worker (started, progress, info, result, error) are read by a thread and handed to
callbacks.

:class:`EnginePool` is the asyncio face used by the web app: a fixed number of workers
(the cap on concurrent searches), ``submit()`` returning a :class:`Job` whose
``on_info`` callbacks run on the event loop, and ``await job`` giving the result. Jobs
that find every worker busy wait in a bounded line, taking turns between their owners
(web sessions, tsume clients), and are told their place in it as it moves. Every job is a
search by some game's engine — a CPU move with the game's ``alphabeta``, a shogi mate
problem with ``mate`` — so one pool, one line and one set of promises serve every page.

The pool keeps a search's time-limit promise even when the engine does not: a job that has
not answered :data:`STOP_GRACE` seconds after it was stopped — or :data:`OVERRUN_GRACE`
seconds past its time limit, when it is stopped for it — fails with :class:`JobKilled`
and its worker is killed and restarted. A worker that dies fails its job with an
:class:`EngineError` and is restarted too.

An *analysis* job runs the game's :attr:`~banmen.games.GameDef.analyse` instead of a
search (:meth:`EnginePool.submit_analysis`): every legal move's value, streamed as it
deepens — each update an :meth:`~banmen.analysis.Analysis.to_dict`, at most one every
:data:`ANALYSIS_PERIOD` seconds, and always the last one — until every value is proved,
it is stopped, or :data:`ANALYSIS_SECONDS` have passed. Analyses run in the background:
they wait in line behind every search, and a search that finds every worker busy stops an
analysis holding one (the analysis ends at once, with ``job.preempted`` set). The
promises (stop grace, overrun, a killed worker) are a search's.

The synchronous :meth:`EngineWorker.think` serves the CLI and tests::

    worker = EngineWorker()
    result = worker.think("mattix", board.to_dict(), "alphabeta:time=1")

The package, by concern: :mod:`~banmen.worker.messages` (every message between a parent
and its process, a frozen dataclass each), :mod:`~banmen.worker.child` (the loop in the
process), :mod:`~banmen.worker.process` (:class:`EngineWorker`, the handle of one
process), :mod:`~banmen.worker.pool` (:class:`EnginePool`, its jobs and its line).
"""

from banmen.worker.child import ANALYSIS_PERIOD, ANALYSIS_SECONDS, kernel_set_ids
from banmen.worker.pool import (
    OVERRUN_GRACE,
    STOP_GRACE,
    EnginePool,
    Job,
    JobCancelled,
    JobKilled,
    PoolBusy,
    Progress,
)
from banmen.worker.process import EngineError, EngineWorker

__all__ = [
    "ANALYSIS_PERIOD",
    "ANALYSIS_SECONDS",
    "OVERRUN_GRACE",
    "STOP_GRACE",
    "EngineError",
    "EnginePool",
    "EngineWorker",
    "Job",
    "JobCancelled",
    "JobKilled",
    "PoolBusy",
    "Progress",
    "kernel_set_ids",
]

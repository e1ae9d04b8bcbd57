"""Arena games on a Dask cluster (``pip install 'banmen[cluster]'``).

The driver — the ``banmen arena`` process — keeps the run: it builds the job list, sends
batches of games to the cluster's workers as Dask tasks, and **commits each batch's games
to its own SQLite file** as the batch comes back (one transaction per batch), so a run on
many machines still ends in one file, and ``--resume`` works exactly as on one machine.

What Dask gives, and banmen relies on:

* a worker that dies (``kill -9``, a machine lost) loses the tasks it had under way; the
  scheduler hands them to other workers, and a game comes back once per task that finished
  — the store refuses a key it holds, so a game is recorded once;
* a task that *raises* is not retried: a game that fails on a worker (an external engine
  missing there, a protocol error) ends the run with the worker's address and the error;
* when the driver goes away, the scheduler forgets its tasks; nothing committed is lost.

Each worker process keeps warm engines (one :class:`~banmen.arena.play.EngineCache` per
task thread at a time), built and warmed up by a set-up task sent to every worker before
the first game; that task also checks that the worker runs the driver's banmen version and
can start every player (an external ``gtp:``/``nboard:`` program is run where its game is
played). A worker that joins later warms up in its first batch.
"""

from __future__ import annotations

import logging
import os
import queue
import time
from collections.abc import Hashable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

from banmen.arena.play import EngineCache, GameFailed, play_games, warm_up
from banmen.arena.schedule import Job, player_specs
from banmen.arena.store import ArenaStore, GameRecord, RunConfig, encode_moves
from banmen.engine import PlayerSpec

__all__ = ["ClusterPool", "ClusterError", "parse_cluster", "connect", "require_dask"]

#: how long the driver waits for a scheduler to answer, and for a first worker
CONNECT_SECONDS = 20.0
WORKERS_SECONDS = 60.0


#: Dask settings for workers that play games. A game holds the GIL in compiled code for
#: milliseconds at a time, and each time the worker's event loop wakes up (its 20 ms tick,
#: its memory and system monitors) it waits for the GIL and the game waits for it: about
#: 10% of a core. Fewer wake-ups keep that to a few percent; ``dask worker`` takes the same
#: settings from the environment (docs/DESIGN.md, "Arena on a cluster").
QUIET_WORKER = {
    "distributed.admin.tick.interval": "1s",
    "distributed.admin.system-monitor.interval": "5s",
    "distributed.worker.memory.monitor-interval": "1s",
    "distributed.worker.profile.enabled": False,
}


class ClusterError(RuntimeError):
    """The cluster cannot play the run: no scheduler, no workers, a worker that cannot."""


def parse_cluster(text: str) -> tuple[str, int | str]:
    """``--cluster``'s value: ``("local", K)`` for ``local:K`` (``local``: one worker per
    core), ``("file", PATH)`` for a Dask scheduler file (``dask scheduler
    --scheduler-file``), else ``("address", ADDRESS)``.

    >>> parse_cluster("local:2"), parse_cluster("tcp://10.0.0.5:8786")
    (('local', 2), ('address', 'tcp://10.0.0.5:8786'))
    >>> parse_cluster("local:0")
    Traceback (most recent call last):
    ...
    ValueError: --cluster local:K needs K >= 1 worker processes, got 'local:0'
    """
    text = text.strip()
    if text == "local" or text.startswith("local:"):
        count = text.partition(":")[2] or str(os.cpu_count() or 1)
        if not count.isdigit() or int(count) < 1:
            raise ValueError(f"--cluster local:K needs K >= 1 worker processes, got {text!r}")
        return "local", int(count)
    if text.endswith(".json"):
        return "file", text
    scheme, sep, rest = text.rpartition("://")
    host, colon, port = (rest if sep else text).rpartition(":")
    if not (colon and host and port.isdigit()) or (sep and not scheme.isalpha()):
        raise ValueError(
            f"--cluster takes a Dask scheduler's address (tcp://HOST:PORT), a scheduler "
            f"file (FILE.json) or local:K, got {text!r}"
        )
    return "address", text


def _dask() -> Any:
    try:
        import distributed
    except ImportError:
        raise ClusterError(
            "--cluster needs Dask distributed: pip install 'banmen[cluster]'"
        ) from None
    # The driver prints its own lines; Dask's warnings and errors (a worker lost, a slow
    # event loop, a scheduler gone) would tear through the live progress table.
    logging.getLogger("distributed").setLevel(logging.CRITICAL)
    return distributed


def require_dask() -> None:
    """Raise :class:`ClusterError` (one line: what to install) unless Dask distributed can
    be imported here: ``banmen arena --cluster`` checks before it records a run."""
    _dask()


@contextmanager
def connected(cluster: Any) -> Iterator[Any]:
    """A ``distributed.Client`` for ``cluster`` (:func:`connect`), closed after, with the
    ``LocalCluster`` it started."""
    client, local = connect(cluster)
    try:
        yield client
    finally:
        try:
            client.close()
        finally:
            if local is not None:
                local.close()


def connect(cluster: Any) -> tuple[Any, Any]:
    """A new ``distributed.Client`` for ``cluster`` (see :func:`parse_cluster`), and the
    ``LocalCluster`` it started, if any (both to close after)."""
    distributed = _dask()
    kind, value = parse_cluster(str(cluster))
    if kind == "local":
        import dask

        with dask.config.set(QUIET_WORKER):
            local = distributed.LocalCluster(
                n_workers=int(value),
                threads_per_worker=1,
                processes=True,
                dashboard_address=":0",  # any free port: never a clash with 8787
                silence_logs=logging.CRITICAL,  # a failing game is told once, by the driver
            )
        return distributed.Client(local), local
    try:
        if kind == "file":
            if not Path(str(value)).is_file():
                raise ClusterError(f"no Dask scheduler file {value}")
            return distributed.Client(scheduler_file=str(value), timeout=CONNECT_SECONDS), None
        return distributed.Client(str(value), timeout=CONNECT_SECONDS), None
    except (OSError, TimeoutError) as e:
        raise ClusterError(
            f"no Dask scheduler answered at {value} ({type(e).__name__}: {e}); "
            f"start one with `dask scheduler` and give its address"
        ) from None


# --------------------------------------------------------------------------- worker side

#: warm engine caches of this worker process, one taken by each task while it plays
_caches: queue.SimpleQueue[EngineCache] = queue.SimpleQueue()


def _address() -> str:
    """This worker's address (``tcp://HOST:PORT``)."""
    try:
        from distributed import get_worker

        return str(get_worker().address)
    except (ImportError, ValueError):  # pragma: no cover - called outside a worker
        return f"process {os.getpid()}"


def _take_cache() -> EngineCache:
    try:
        return _caches.get_nowait()
    except queue.Empty:
        return EngineCache()


def prepare(game_name: str, specs: list[PlayerSpec]) -> dict[str, Any]:
    """The set-up task: build and warm up every player's engine on this worker (numba's
    compiled kernels loaded, external programs started). Raises :class:`GameFailed`
    naming the worker and the player that cannot start."""
    import banmen

    address = _address()
    t0 = time.perf_counter()
    cache = _take_cache()
    warm_up(cache, game_name, specs, f"worker {address}")
    _caches.put(cache)
    return {"address": address, "banmen": banmen.__version__, "seconds": time.perf_counter() - t0}


def release() -> int:
    """Stop this worker's idle engines (external programs would otherwise outlive the
    run on a long-lived cluster); how many caches were closed."""
    closed = 0
    while True:
        try:
            cache = _caches.get_nowait()
        except queue.Empty:
            return closed
        cache.close()
        closed += 1


def play_batch(
    game_name: str, size: int | None, jobs: list[Job], specs: dict[str, PlayerSpec],
    start: str | None = None,
) -> tuple[str, list[GameRecord], list[tuple[str, str, str]]]:  # fmt: skip
    """The games task: play ``jobs`` and send their records back to the driver, each
    game's moves and times encoded for the store here (the driver only commits them)."""
    address = _address()
    cache = _take_cache()
    records, encoded = [], []
    for record in play_games(game_name, size, jobs, specs, cache, f"worker {address}",
                             start=start):  # fmt: skip
        encoded.append(encode_moves(record))
        records.append(replace(record, moves=[], times=[], extra={}))
    _caches.put(cache)  # not after a failure: its engines may be broken
    return address, records, encoded


# --------------------------------------------------------------------------- driver side


class ClusterPool:
    """A run's games as Dask tasks; the driver commits each finished batch
    (see :class:`banmen.arena.runner.GamePool`)."""

    max_batch = 4096

    @property
    def task_seconds(self) -> float:
        """A task is about a second of play — a lost worker costs about a second of its
        games — and longer beyond 200 worker threads, so the scheduler is sent at most
        about 200 tasks a second (it spends a few milliseconds of CPU on each)."""
        return max(1.0, self.slots() / 200)

    def __init__(self, cluster: Any, store: ArenaStore, run_id: str, config: RunConfig) -> None:
        self._distributed = _dask()
        self._store = store
        self._run_id = run_id
        self._config = config
        # (each spec read once, here: the workers get them as data)
        self._specs = player_specs(config.game, config.players)
        self._owned = not isinstance(cluster, self._distributed.Client)
        self._local: Any = None
        self.client: Any = cluster
        if self._owned:
            self.client, self._local = connect(cluster)
        self._ac = self._distributed.as_completed()
        self._futures: dict[Hashable, Any] = {}
        self._slots = 0
        self._slots_read = 0.0
        try:
            self._prepare()
        except BaseException:
            self._shut()
            raise

    def _workers(self) -> dict[str, int]:
        """The connected workers' addresses and threads."""
        info = self.client.scheduler_info(n_workers=-1)["workers"]
        return {addr: int(w.get("nthreads", 1)) for addr, w in info.items()}

    def _prepare(self) -> None:
        """Wait for workers, then run :func:`prepare` on each (in a task thread, so a
        long warm-up does not stall the worker's event loop) and check the answers."""
        import banmen

        try:
            self.client.wait_for_workers(1, timeout=WORKERS_SECONDS)
        except TimeoutError:
            raise ClusterError(
                f"no Dask worker joined the scheduler at {self.client.scheduler.address} "
                f"within {WORKERS_SECONDS:.0f} s: start some with `dask worker ADDRESS`"
            ) from None
        specs = list({s.text: s for s in self._specs.values()}.values())
        futures = {
            addr: self.client.submit(
                prepare, self._config.game, specs, workers=[addr], allow_other_workers=False,
                pure=False,
            )
            for addr in self._workers()
        }  # fmt: skip
        failures = []
        while futures:
            try:  # a first warm-up compiles the kernels: seconds, so check workers meanwhile
                done, _ = self._distributed.wait(list(futures.values()), timeout=1,
                                                 return_when="FIRST_COMPLETED")  # fmt: skip
            except TimeoutError:
                done = set()
            alive = self._workers()
            for addr, fut in list(futures.items()):
                if fut in done:
                    del futures[addr]
                    if fut.status == "error":
                        failures.append(_error_text(fut.exception(), f"worker {addr}"))
                        continue
                    theirs = fut.result()["banmen"]
                    if theirs != banmen.__version__:
                        failures.append(
                            f"worker {addr} runs banmen {theirs}, this driver "
                            f"{banmen.__version__}: install the same banmen on every worker"
                        )
                elif addr not in alive:  # gone before it answered: it plays no game either
                    fut.cancel()
                    del futures[addr]
        if failures:
            more = f" (and {len(failures) - 1} more workers)" if len(failures) > 1 else ""
            raise ClusterError(failures[0] + more)

    def slots(self) -> int:
        now = time.monotonic()
        if now - self._slots_read > 2 or not self._slots:
            self._slots = max(1, sum(self._workers().values()))
            self._slots_read = now
        return self._slots

    def submit(self, jobs: list[Job]) -> Hashable:
        fut = self.client.submit(
            play_batch, self._config.game, self._config.size, jobs, self._specs,
            self._config.start, pure=False,
        )  # fmt: skip
        self._ac.add(fut)
        key: Hashable = fut.key
        self._futures[key] = fut
        return key

    def wait(self, timeout: float | None = None) -> list[tuple[Hashable, str, list[GameRecord]]]:
        end = None if timeout is None else time.monotonic() + timeout
        futures = self._ac.next_batch(block=end is None)
        while not futures and end is not None and time.monotonic() < end:
            time.sleep(0.02)
            futures = self._ac.next_batch(block=False)
        if not futures:
            return []
        for fut in futures:
            del self._futures[fut.key]
            if fut.status == "error":
                raise GameFailed(_error_text(fut.exception(), "a worker"))
            if fut.status != "finished":  # cancelled or lost: the scheduler has gone
                raise ClusterError(
                    f"the Dask scheduler at {self.client.scheduler.address} dropped a batch "
                    f"of games ({fut.status}): is it still running?"
                )
        out: list[tuple[Hashable, str, list[GameRecord]]] = []
        # All finished batches in one round trip, then one transaction each.
        for fut, (address, records, encoded) in zip(
            futures, self.client.gather(futures), strict=True
        ):
            stored = self._store.add_games(self._run_id, records, encoded)
            if not all(stored):
                records = [r if s else replace(r, stored=False)
                           for r, s in zip(records, stored, strict=True)]  # fmt: skip
            out.append((fut.key, address, records))
        return out

    def close(self) -> None:
        self._shut()

    def abort(self) -> None:
        try:
            if self._futures:
                self.client.cancel(list(self._futures.values()))
        finally:
            self._shut()

    def _shut(self) -> None:
        """Stop the workers' engines; close what this pool opened (not a ``Client`` it
        was given)."""
        if self._local is None:  # a LocalCluster's workers end with it
            try:
                self.client.run(release, on_error="ignore")
            except Exception:  # pragma: no cover - the cluster is gone: nothing to stop
                pass
        if self._owned:
            self.client.close()
        if self._local is not None:
            self._local.close()


def _error_text(exc: BaseException | None, where: str) -> str:
    """One line for a task's error: :class:`GameFailed` says it all; Dask's
    ``KilledWorker`` means the task took down every worker it ran on."""
    if isinstance(exc, GameFailed):
        return str(exc)
    name = type(exc).__name__
    if isinstance(exc, ModuleNotFoundError) and "banmen" in str(exc):
        return f"{where} has no banmen: pip install 'banmen[cluster]' on every worker"
    if name == "KilledWorker":
        return (
            f"a batch of games killed {where} each time it ran (Dask's KilledWorker: {exc}); "
            "the run stops rather than losing more workers"
        )
    return f"{where}: {name}: {exc}"

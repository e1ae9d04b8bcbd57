"""Training runs in the web app (``banmen train``): listed on ``/arena`` beside the arena
runs, each with its iterations and its curves.

Which databases: the arena's (:class:`~banmen.web.arena.ArenaViews`: the app's own and the
arena CLI's default one), where ``banmen train`` keeps its runs too. Both are opened
read-only (:class:`~banmen.train.store.TrainStore` with ``readonly=True``): the web app
never creates the training tables, and a file without them — or no file yet — simply has
no training runs. A run name in both files is shown from the app's (the CLI's is listed,
not ``viewable``). A CLI database that cannot be read is left out; the app's is an error.

Routes (:func:`train_api_routes`), under ``/api/arena`` and so, like the arena runs, for
this machine's clients only unless the server shares them (a run's configuration names
files):

* ``/api/arena/train``: the runs, newest first — name, source, game, size, evaluator,
  status, iterations done and planned, how many were kept, and the Elo against the
  baseline of the weights kept after the last iteration done (with its 95% interval), as
  the report's last row gives it;
* ``/api/arena/train/<run>``: the run's report (:func:`banmen.train.report.report_data`,
  what ``banmen train report RUN --json`` prints) plus its ``source`` and ``curves`` (the
  URL of its curves; ``None`` before its first iteration is done);
* ``/api/arena/train/<run>/curves.svg``: the curves (:func:`banmen.train.report.curves`):
  held-out error and Elo against the baseline, by iteration.

An unknown run is a 404, a database that cannot be read a 500, each one line of JSON.
Everything runs in a worker thread, never on the event loop; the curves are drawn one
plot at a time with the arena's plots and kept in their cache, keyed by run (its name and
when it was made) and the iterations done, so a finished run's curves are drawn once.
"""

from __future__ import annotations

import io
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any
from urllib.parse import quote

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from banmen.train.report import report_data
from banmen.train.store import Iteration, TrainRun, TrainStore
from banmen.web.arena import (
    ArenaViews,
    NotFound,
    answer,
    error_reply,
    is_run_id,
    json_reply,
    jsonable,
    svg_reply,
)
from banmen.web.replies import one_line

__all__ = ["TrainViews", "train_api_routes", "curves_url", "render_curves"]


def curves_url(name: str) -> str:
    return f"/api/arena/train/{quote(name, safe='')}/curves.svg"


def render_curves(data: dict[str, Any]) -> bytes:
    """A report's curves (:func:`banmen.train.report.curves`) as SVG bytes. Call it under
    :data:`~banmen.web.arena.PYPLOT_LOCK` (pyplot's state is global)."""
    import matplotlib.pyplot as plt

    from banmen.train.report import curves

    fig = curves(data)  # (selects the Agg backend: no display)
    try:
        buf = io.BytesIO()
        fig.savefig(buf, format="svg")
    finally:
        plt.close(fig)
    return buf.getvalue()


def _kept_elo(its: Sequence[Iteration]) -> tuple[float | None, list[float | None] | None]:
    """The Elo against the baseline (and its interval) of the weights kept after the last
    iteration done, as :func:`~banmen.train.report.report_data`'s last row has it (the
    first weights count as the baseline's equal); ``None`` before any iteration is done."""
    done = [it for it in its if it.kept is not None]
    if not done:
        return None, None
    elo: float | None = 0.0
    ci: list[float | None] = [0.0, 0.0]
    for it in done:
        if it.kept:
            gate = it.gate if isinstance(it.gate, dict) else {}
            base = gate.get("baseline")
            base = base if isinstance(base, dict) else {}
            elo, ci = base.get("elo"), base.get("elo_ci") or [None, None]
    return elo, ci


def _listed(
    source: str, name: str, run: TrainRun | None, its: Sequence[Iteration]
) -> dict[str, Any]:
    """One run as ``/api/arena/train`` lists it (``run`` ``None``: one that cannot be read)."""
    config = run.config if run is not None and isinstance(run.config, dict) else {}
    planned = config.get("iterations")
    elo, ci = _kept_elo(its)
    return {
        "name": name,
        "viewable": run is not None and is_run_id(name),
        "source": source,
        "game": run.game if run is not None else None,
        "size": config.get("size"),
        "evaluator": run.evaluator if run is not None else None,
        "status": run.status if run is not None else "unreadable",
        "iterations_done": sum(1 for i in its if i.kept is not None),
        "iterations_planned": planned if isinstance(planned, int) else None,
        "kept": sum(1 for i in its if i.kept),
        "elo_vs_baseline": elo,
        "elo_vs_baseline_ci": ci,
        "created": run.created if run is not None else None,
        "updated": run.updated if run is not None else None,
    }


class TrainViews:
    """Reads the training runs of ``arena``'s databases (the app's and the arena CLI's
    default one), read-only; draws their curves into ``arena``'s plot cache. Every method
    blocks: call them in a worker thread (the routes do)."""

    def __init__(self, arena: ArenaViews) -> None:
        self.arena = arena

    @contextmanager
    def _stores(self) -> Iterator[list[tuple[str, TrainStore]]]:
        """The databases that hold training tables, in order of precedence: the app's, then
        the CLI's default one. The app's file that cannot be read raises; the CLI's is
        left out (it must not hide the app's runs)."""
        opened: list[tuple[str, TrainStore]] = []
        try:
            for source, path in (("app", self.arena.db_path), ("cli", self.arena.cli_db)):
                if path is None or not path.exists():
                    continue
                store: TrainStore | None = None
                try:
                    store = TrainStore(path, readonly=True)
                    if store.has_train_tables():
                        opened.append((source, store))
                        store = None
                except sqlite3.Error:
                    if source == "app":
                        raise
                finally:
                    if store is not None:
                        store.close()
            yield opened
        finally:
            for _, store in opened:
                store.close()

    @staticmethod
    def _find(stores: Sequence[tuple[str, TrainStore]], name: str) -> tuple[str, TrainStore]:
        if is_run_id(name):
            for source, store in stores:
                try:
                    if name in store.names():
                        return source, store
                except sqlite3.Error:
                    if source == "app":
                        raise
        raise NotFound(f"no training run {name[:80]!r}")

    def runs(self) -> list[dict[str, Any]]:
        """Every training run, newest first (see the module docstring); a run name the
        app's database has too is not ``viewable`` from the CLI's, nor is a run whose
        stored configuration or results cannot be read (``status`` ``"unreadable"``)."""
        out: list[dict[str, Any]] = []
        seen: set[str] = set()
        with self._stores() as stores:
            for source, store in stores:
                rows = []
                try:
                    for name in store.names():
                        try:
                            run: TrainRun | None = store.run(name)
                            its = store.iterations(name)
                        except ValueError:  # a stored configuration or result not JSON
                            run, its = None, []
                        row = _listed(source, name, run, its)
                        row["viewable"] = row["viewable"] and name not in seen
                        rows.append(row)
                except sqlite3.Error:
                    if source == "app":
                        raise
                    continue
                out += rows
                seen.update(r["name"] for r in rows)
        out.sort(key=lambda r: str(r["name"]))
        out.sort(key=lambda r: str(r["created"] or ""), reverse=True)
        result: list[dict[str, Any]] = jsonable(out)
        return result

    def report(self, name: str) -> dict[str, Any]:
        """The run's :func:`~banmen.train.report.report_data` (non-finite floats as
        ``None``) plus its ``source`` and ``curves`` (URL or ``None``). Raises
        :class:`~banmen.web.arena.NotFound`."""
        with self._stores() as stores:
            source, store = self._find(stores, name)
            data = self._data(store, name)
        out: dict[str, Any] = jsonable(data)
        out["source"] = source
        out["curves"] = curves_url(name) if data["iterations"] else None
        return out

    @staticmethod
    def _data(store: TrainStore, name: str) -> dict[str, Any]:
        try:
            return report_data(store, name)
        except ValueError:
            if name not in store.names():  # deleted meanwhile
                raise NotFound(f"no training run {name[:80]!r}") from None
            raise

    def curves(self, name: str) -> bytes:
        """The run's curves as SVG. Raises :class:`~banmen.web.arena.NotFound` (also
        before its first iteration is done: nothing to draw)."""
        with self._stores() as stores:
            source, store = self._find(stores, name)
            created = store.run(name).created
            done = tuple((i.iteration, i.finished) for i in store.iterations(name)
                         if i.kept is not None)  # fmt: skip
            key = ("train", source, name, created, done)
            svg = self.arena.cached(key)
            if svg is not None:
                return svg
            if not done:
                raise NotFound(f"training run {name!r} has no iteration done yet: no curves")
            data = self._data(store, name)
        return self.arena.draw(key, lambda: render_curves(data), f"no curves of {name!r}")


def train_api_routes(train: TrainViews) -> list[BaseRoute]:
    """The routes under ``/api/arena/train`` (see the module docstring); give them to
    :func:`~banmen.web.arena.arena_api_routes`, whose catch-all must come after them."""

    async def runs(request: Request) -> Response:
        try:
            return json_reply(await run_in_threadpool(train.runs))
        except Exception as e:
            return error_reply(f"cannot read the training runs: {one_line(e, 200)}", 500)

    async def report(request: Request) -> Response:
        name: str = request.path_params["run"]
        if not is_run_id(name):
            return error_reply(f"no training run {name[:80]!r}", 404)
        return await answer(json_reply, f"cannot build the report of {name!r}", train.report, name)

    async def curves(request: Request) -> Response:
        name: str = request.path_params["run"]
        if not is_run_id(name):
            return error_reply(f"no training run {name[:80]!r}", 404)
        return await answer(svg_reply, f"cannot draw the curves of {name!r}", train.curves, name)

    return [
        Route("/api/arena/train", runs),
        Route("/api/arena/train/{run}", report),
        Route("/api/arena/train/{run}/curves.svg", curves),
    ]

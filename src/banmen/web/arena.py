"""Arena results in the web app: the runs in the app's database, their reports and plots.

Which databases: the app's own (``banmen serve --db FILE``, default ``$BANMEN_DB`` or
``banmen.sqlite3`` in the user data folder) and the arena CLI's default database (the same
rule: ``banmen arena`` without ``--db``), if that is another file. So a run started with a
plain ``banmen arena ...`` shows up however the server was started. The CLI's file is only
read (opened read-only, never created); a run name in both files is shown from the app's.
Each run says where it lives (``source``: ``"app"`` or ``"cli"``).

Routes (see :func:`arena_api_routes`): ``/api/arena/runs`` (the runs, newest first),
``/api/arena/runs/<run>`` (a run's report, as ``banmen arena report --json`` gives it, plus
the list of its plots), ``/api/arena/runs/<run>/plots/<name>.svg``, and
``/api/arena/compare?run=A&run=B…`` (runs side by side: the rows ``banmen arena report A
B…`` prints) with its plot ``/api/arena/compare.svg?run=A&run=B…``; the training runs of
``banmen train``, in the same files, are under ``/api/arena/train`` (see
:mod:`banmen.web.training`). The page itself is ``/arena`` (``static/pages/arena.html``
and ``static/js/arena.js``). The app only reads runs: deleting one is ``banmen arena
delete``.

Everything that touches SQLite or matplotlib runs in a worker thread, never on the event
loop: an arena store is opened per request (an ``sqlite3`` connection belongs to the thread
that opened it), and plots — matplotlib takes ~0.5 s to import and ~0.2 s a plot — are
rendered one at a time (:data:`PYPLOT_LOCK`) and kept in a small in-memory cache keyed by
run (its name and when it was made: a run deleted and made again under its name is
another), number of games and plot name, so a finished run's plots are drawn once.
"""

from __future__ import annotations

import math
import re
import sqlite3
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import quote

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from banmen.arena.plots import PLOTS, render_comparison_svg, render_svg, varying_option
from banmen.arena.report import build_report, compare_rows, numeric_option
from banmen.arena.runner import planned_jobs
from banmen.arena.store import ArenaStore, RunConfig, default_db_path
from banmen.web.replies import one_line

__all__ = [
    "ArenaViews", "NotFound", "is_run_id", "jsonable", "available_plots", "arena_api_routes",
    "compare_url", "MAX_COMPARED", "PYPLOT_LOCK", "answer", "error_reply", "json_reply",
    "svg_reply",
]  # fmt: skip

#: Run names the web API accepts (anything else is refused before it reaches SQL).
_RUN_ID = re.compile(r"[A-Za-z0-9_.+:-]{1,80}")

#: Plots kept in memory (SVGs are ~20-60 kB each).
PLOT_CACHE_SIZE = 64

#: The most runs one comparison takes (each is a report built from all its games).
MAX_COMPARED = 20

_JSON_HEADERS = {"Cache-Control": "no-cache", "X-Content-Type-Options": "nosniff"}
_SVG_HEADERS = {
    "Cache-Control": "no-cache",
    "X-Content-Type-Options": "nosniff",
    # Opened on its own, a plot may use its own <style> but load and run nothing.
    "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'",
}


#: matplotlib's pyplot keeps global state: one plot at a time in this process (the arena's
#: plots and the training runs' curves, :mod:`banmen.web.training`).
PYPLOT_LOCK = threading.Lock()


class NotFound(Exception):
    """An unknown run, an unknown plot, or a plot this run does not have."""


def is_run_id(text: str) -> bool:
    return _RUN_ID.fullmatch(text) is not None


def jsonable(x: Any) -> Any:
    """``x`` with every non-finite float (an unbounded Elo) replaced by ``None``: JSON has
    no infinity."""
    if isinstance(x, float) and not math.isfinite(x):
        return None
    if isinstance(x, dict):
        return {k: jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [jsonable(v) for v in x]
    return x


def available_plots(report: dict[str, Any]) -> list[str]:
    """The plots of :data:`banmen.arena.plots.PLOTS` that this report has (mirrors what
    ``render_svg`` draws; none before the first game, as ``banmen arena report``)."""
    if not report["games_played"]:
        return []
    out: list[str] = []
    key = varying_option(report)
    if key is not None:
        spec_of = {p["name"]: p["spec"] for p in report["players"]}
        if report["config"].get("gauntlet"):
            has_points = any(
                r["games"] and numeric_option(spec_of[r["b"]], key) is not None
                for r in report["pairings"]
            )
        else:
            has_points = any(
                p["games"] and numeric_option(p["spec"], key) is not None for p in report["players"]
            )
        if has_points:
            out.append("score-vs-param")
    if len(report["players"]) >= 2:
        out.append("heatmap")
    if any(r["games"] for r in report["pairings"]):
        out.append("margins")
    if any(p["by_move"] for p in (report.get("clock") or {}).get("players", [])):
        out.append("clock")
    return out


def plot_url(run_id: str, name: str) -> str:
    return f"/api/arena/runs/{quote(run_id, safe='')}/plots/{name}.svg"


def compare_url(run_ids: Sequence[str], svg: bool = False) -> str:
    """``/api/arena/compare?run=A&run=B…`` (``svg``: its plot, ``compare.svg``)."""
    query = "&".join(f"run={quote(r, safe='')}" for r in run_ids)
    return f"/api/arena/compare{'.svg' if svg else ''}?{query}"


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.expanduser().resolve() == b.expanduser().resolve()
    except OSError:
        return False


class ArenaViews:
    """Reads runs from the SQLite file at ``db_path`` (the app's) and, read-only, from the
    arena CLI's default database ``cli_db`` (default: :func:`~banmen.arena.store.
    default_db_path` at construction; ``None``: none) when that is another file. Every
    method blocks: call them in a worker thread (the routes do)."""

    def __init__(
        self,
        db_path: str | Path,
        cache_size: int = PLOT_CACHE_SIZE,
        *,
        cli_db: str | Path | None | bool = True,
    ) -> None:
        self.db_path = Path(db_path)
        if cli_db is True:
            cli_db = default_db_path()
        self.cli_db = (
            Path(cli_db)
            if isinstance(cli_db, (str, Path)) and not _same_file(Path(cli_db), self.db_path)
            else None
        )
        self.cache_size = cache_size
        self._cache: OrderedDict[Hashable, bytes] = OrderedDict()
        self._cache_lock = threading.Lock()
        self.renders = 0  # plots drawn (not served from the cache); for tests

    def _open(self) -> ArenaStore:
        return ArenaStore(self.db_path)  # creates the arena tables in a fresh database

    @contextmanager
    def _stores(self) -> Iterator[list[tuple[str, ArenaStore]]]:
        """The databases to read, in order of precedence: the app's (created if need be)
        and the CLI's default one if it exists and holds arena tables. A CLI database
        that cannot be read is left out: it must not hide the app's runs."""
        opened: list[tuple[str, ArenaStore]] = [("app", self._open())]
        try:
            if self.cli_db is not None and self.cli_db.is_file():
                other: ArenaStore | None = None
                try:
                    other = ArenaStore(self.cli_db, readonly=True)
                    if other.has_arena_tables():
                        opened.append(("cli", other))
                        other = None
                except sqlite3.Error:
                    pass
                finally:
                    if other is not None:
                        other.close()
            yield opened
        finally:
            for _, store in opened:
                store.close()

    @staticmethod
    def _find(stores: Sequence[tuple[str, ArenaStore]], run_id: str) -> tuple[str, ArenaStore]:
        if is_run_id(run_id):
            for source, store in stores:
                try:
                    if store.status(run_id):
                        return source, store
                except sqlite3.Error:
                    if source == "app":
                        raise
        raise NotFound(f"no arena run {run_id[:80]!r}")

    # ---- runs

    def runs(self) -> list[dict[str, Any]]:
        """Every run, newest first, with its games played and planned and its ``source``
        (``app`` or ``cli``); a run name the app's database has too is not ``viewable``
        from the CLI's."""
        out = []
        seen: set[str] = set()
        with self._stores() as stores:
            for source, store in stores:
                try:
                    rows = store.runs()
                except sqlite3.Error:
                    if source == "app":
                        raise
                    continue
                for r in rows:
                    config = r["config"] if isinstance(r["config"], dict) else {}
                    try:
                        planned: int | None = len(planned_jobs(RunConfig.from_dict(config)))
                    except Exception:  # a configuration this version cannot read
                        planned = None
                    out.append(
                        {
                            "id": r["id"],
                            "viewable": is_run_id(r["id"]) and r["id"] not in seen,
                            "source": source,
                            "game": config.get("game"),
                            "players": config.get("players", []),
                            "size": config.get("size"),
                            "gauntlet": config.get("gauntlet"),
                            "sprt": config.get("sprt"),
                            "games_played": r["games_played"],
                            "games_planned": planned,
                            "status": r["status"],
                            "created": r["created"],
                            "updated": r["updated"],
                        }
                    )
                seen.update(r["id"] for r in rows)
        out.sort(key=lambda r: str(r["id"]))
        out.sort(key=lambda r: str(r["created"] or ""), reverse=True)
        result: list[dict[str, Any]] = jsonable(out)
        return result

    def report(self, run_id: str) -> dict[str, Any]:
        """The run's report (non-finite floats as ``None``) plus ``plots``: the plots it
        has, each ``{"name", "url"}``, and ``source``. Raises :class:`NotFound`."""
        with self._stores() as stores:
            source, store = self._find(stores, run_id)
            rep = build_report(store, run_id)
        out: dict[str, Any] = jsonable(rep)
        out["source"] = source
        out["plots"] = [{"name": n, "url": plot_url(run_id, n)} for n in available_plots(rep)]
        return out

    # ---- plots

    def cached(self, key: Hashable) -> bytes | None:
        """The plot kept under ``key``, if it is in the cache."""
        with self._cache_lock:
            svg = self._cache.get(key)
            if svg is not None:
                self._cache.move_to_end(key)
            return svg

    def _remember(self, key: Hashable, svg: bytes) -> None:
        with self._cache_lock:
            self._cache[key] = svg
            self._cache.move_to_end(key)
            while len(self._cache) > self.cache_size:
                self._cache.popitem(last=False)

    def draw(self, key: Hashable, render: Callable[[], bytes | None], missing: str) -> bytes:
        """The plot kept under ``key``, else the one ``render()`` draws (one at a time,
        :data:`PYPLOT_LOCK`), kept under ``key``; :class:`NotFound` (``missing``) if it
        draws none."""
        with PYPLOT_LOCK:
            svg = self.cached(key)  # drawn meanwhile by another request?
            if svg is None:
                drawn = render()
                self.renders += 1
                if drawn is None:
                    raise NotFound(missing)
                svg = drawn
                self._remember(key, svg)
        return svg

    def plot(self, run_id: str, name: str) -> bytes:
        """One plot of the run as SVG. Raises :class:`NotFound`."""
        if name not in PLOTS:
            raise NotFound(f"no plot {name[:40]!r}: expected one of {', '.join(PLOTS)}")
        with self._stores() as stores:
            source, store = self._find(stores, run_id)
            made = store.created(run_id)
            svg = self.cached((source, run_id, made, len(store.done_keys(run_id)), name))
            if svg is not None:
                return svg
            rep = build_report(store, run_id)
        if name not in available_plots(rep):
            raise NotFound(f"run {run_id!r} has no {name} plot")
        key = (source, run_id, made, int(rep["games_played"]), name)
        return self.draw(key, lambda: render_svg(rep, name), f"run {run_id!r} has no {name} plot")

    # ---- runs compared

    def _compared(self, run_ids: Sequence[str]) -> list[dict[str, Any]]:
        """Each run's report, with its ``source`` and ``created``. Raises :class:`NotFound`."""
        reports = []
        with self._stores() as stores:
            for run_id in run_ids:
                source, store = self._find(stores, run_id)
                rep = build_report(store, run_id)
                rep["source"], rep["created"] = source, store.created(run_id)
                reports.append(rep)
        return reports

    def compare(self, run_ids: Sequence[str]) -> dict[str, Any]:
        """The runs side by side: ``rows`` (:func:`~banmen.arena.report.compare_rows`, as
        ``banmen arena report RUN RUN…`` prints them), ``runs`` (each one's name, source,
        status and games) and ``plot`` (the comparison plot's URL, ``None`` before any
        game). Raises :class:`NotFound` for an unknown run."""
        reports = self._compared(run_ids)
        rows = compare_rows(reports)
        runs = [
            {
                "run": rep["run"],
                "source": rep["source"],
                "status": rep["status"],
                "games_played": rep["games_played"],
                "games_planned": rep["games_planned"],
            }
            for rep in reports
        ]
        plot = compare_url(run_ids, svg=True) if any(r["games"] for r in rows) else None
        out: dict[str, Any] = jsonable({"runs": runs, "rows": rows, "plot": plot})
        return out

    def compare_plot(self, run_ids: Sequence[str]) -> bytes:
        """The comparison plot (SVG) of the runs. Raises :class:`NotFound`."""
        with self._stores() as stores:  # from the cache if no run has a new game
            key: tuple[Any, ...] = ("compare",)
            for run_id in run_ids:
                source, store = self._find(stores, run_id)
                count = len(store.done_keys(run_id))
                key += ((source, run_id, store.created(run_id), count),)
            svg = self.cached(key)
            if svg is not None:
                return svg
        reports = self._compared(run_ids)
        key = ("compare", *((r["source"], r["run"], r["created"], r["games_played"])
                            for r in reports))  # fmt: skip
        return self.draw(key, lambda: render_comparison_svg(compare_rows(reports)),
                         "no game played in these runs: nothing to plot")  # fmt: skip


def error_reply(message: str, status: int) -> JSONResponse:
    """A one-line JSON error (``{"error": message}``) with the API's headers."""
    return JSONResponse({"error": message}, status_code=status, headers=_JSON_HEADERS)


def json_reply(data: Any) -> Response:
    return JSONResponse(data, headers=_JSON_HEADERS)


def svg_reply(svg: bytes) -> Response:
    """An SVG that, opened on its own, loads and runs nothing."""
    return Response(svg, media_type="image/svg+xml", headers=_SVG_HEADERS)


async def answer(
    reply: Callable[[Any], Response], failed: str, work: Callable[..., Any], *args: Any
) -> Response:
    """``reply`` to what ``work(*args)`` gives in a worker thread: 404 for a
    :class:`NotFound`, 500 (one line, saying what ``failed``) for anything else raised."""
    try:
        return reply(await run_in_threadpool(work, *args))
    except NotFound as e:
        return error_reply(str(e), 404)
    except Exception as e:
        return error_reply(f"{failed}: {one_line(e, 200)}", 500)


def arena_api_routes(views: ArenaViews, more: Sequence[BaseRoute] = ()) -> list[BaseRoute]:
    """The JSON and SVG routes under ``/api/arena`` (``more``: others there, the training
    runs', :func:`banmen.web.training.train_api_routes`). Errors are one-line JSON: 404 for
    unknown runs and plots, 400 for a comparison of fewer than 2 or more than
    :data:`MAX_COMPARED` runs, 500 (without a traceback) if the database cannot be read."""

    async def runs(request: Request) -> Response:
        try:
            return json_reply(await run_in_threadpool(views.runs))
        except Exception as e:
            return error_reply(f"cannot read the arena runs: {one_line(e, 200)}", 500)

    async def report(request: Request) -> Response:
        run_id: str = request.path_params["run"]
        if not is_run_id(run_id):
            return error_reply(f"no arena run {run_id[:80]!r}", 404)
        failed = f"cannot build the report of {run_id!r}"
        return await answer(json_reply, failed, views.report, run_id)

    async def plot(request: Request) -> Response:
        run_id: str = request.path_params["run"]
        name: str = request.path_params["name"]
        if not is_run_id(run_id):
            return error_reply(f"no arena run {run_id[:80]!r}", 404)
        failed = f"cannot draw the plot {name[:40]!r} of {run_id!r}"
        return await answer(svg_reply, failed, views.plot, run_id, name)

    def compared(request: Request) -> list[str] | JSONResponse:
        """The ``run`` parameters, or the error to answer (400; 404 for a bad name)."""
        run_ids = request.query_params.getlist("run")
        if len(run_ids) < 2 or len(run_ids) > MAX_COMPARED:
            return error_reply(
                f"compare 2 to {MAX_COMPARED} runs (?run=A&run=B...), got {len(run_ids)}", 400
            )
        for run_id in run_ids:
            if not is_run_id(run_id):
                return error_reply(f"no arena run {run_id[:80]!r}", 404)
        if len(set(run_ids)) < len(run_ids):
            return error_reply("name each run once", 400)
        return run_ids

    async def compare(request: Request) -> Response:
        run_ids = compared(request)
        if isinstance(run_ids, JSONResponse):
            return run_ids
        return await answer(json_reply, "cannot compare the runs", views.compare, run_ids)

    async def compare_plot(request: Request) -> Response:
        run_ids = compared(request)
        if isinstance(run_ids, JSONResponse):
            return run_ids
        return await answer(svg_reply, "cannot draw the comparison", views.compare_plot, run_ids)

    async def not_found(request: Request) -> Response:
        return error_reply(
            "not found: the arena API has /api/arena/runs[/RUN[/plots/NAME.svg]], "
            "/api/arena/compare[.svg]?run=A&run=B and /api/arena/train[/RUN[/curves.svg]]",
            404,
        )

    return [
        Route("/api/arena/runs", runs),
        Route("/api/arena/runs/{run}", report),
        Route("/api/arena/runs/{run}/plots/{name}.svg", plot),
        Route("/api/arena/compare", compare),
        Route("/api/arena/compare.svg", compare_plot),
        *more,
        Route("/api/arena/{rest:path}", not_found),
    ]

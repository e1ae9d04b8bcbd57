"""The banmen web app: Starlette routes, the app's lifespan, and ``serve()`` for the CLI.

Routes: ``/`` (the games), one page per game (``/mattix``, ``/othello``, ``/go``),
``/ws/<game>`` (one WebSocket per game view, see :mod:`banmen.web.protocol`),
``/static/...`` (ES modules, CSS, SVG — no build step), ``/api/health``, ``/api/games``,
``/api/saved/<id>`` and ``/api/sgf/<id>`` (a Go game as an SGF file);
``/arena`` shows the arena runs in the same database, from ``/api/arena/...`` (see
:mod:`banmen.web.arena`); ``/tsume`` solves shogi mate problems (``/api/tsume/sfen``,
``/ws/tsume``; see :mod:`banmen.web.tsume`); ``/viz`` steps through bitboard operations
(``/api/viz/...``; see :mod:`banmen.web.viz`).

The engine pool starts with the app, but its workers warm up (compile, load caches) in the
background: pages and sockets are served at once, CPU moves wait for a worker, and the
terminal gets an "engines ready" line when they are all up.
"""

from __future__ import annotations

import asyncio
import html
import os
import time
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from urllib.parse import urlsplit

import platformdirs
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import BaseRoute, Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket

from banmen.web.arena import ArenaViews, arena_api_routes
from banmen.web.catalog import CATALOG, GameEntry
from banmen.web.games import make_games
from banmen.web.lag import LagMonitor
from banmen.web.levels import MOVE_TIME_CAP
from banmen.web.protocol import MAX_MESSAGE_BYTES
from banmen.web.session import Client, Hub, Services
from banmen.web.store import GameStore, is_game_id
from banmen.web.tsume import SolverService, tsume_routes
from banmen.web.viz import viz_routes
from banmen.worker import EnginePool

__all__ = ["create_app", "serve", "run_uvicorn", "default_db_path", "default_workers", "STATIC_DIR"]

STATIC_DIR = Path(__file__).parent / "static"

#: Frames above this are refused by the WebSocket layer itself (the connection closes);
#: frames between MAX_MESSAGE_BYTES and this get a polite error reply.
WS_MAX_FRAME = 64 * 1024

_PAGE_HEADERS = {
    # Everything is served from here: no inline scripts, no third-party hosts.
    "Content-Security-Policy": (
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        "connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-cache",
}


def default_db_path() -> Path:
    """``$BANMEN_DB`` if set, else ``banmen.sqlite3`` in the user's data folder."""
    env = os.environ.get("BANMEN_DB")
    if env:
        return Path(env).expanduser()
    return Path(platformdirs.user_data_dir("banmen")) / "banmen.sqlite3"


def default_workers() -> int:
    """One engine worker per core but one: that core is left to the event loop, so pages and
    sockets stay responsive while every worker searches."""
    return max(1, (os.cpu_count() or 2) - 1)


def _home_html(entries: tuple[GameEntry, ...]) -> str:
    template = (STATIC_DIR / "index.html").read_text(encoding="utf-8")
    items = "\n".join(
        f'      <li><a class="game-card" href="{html.escape(e.path)}">'
        f"<strong>{html.escape(e.title)}</strong>"
        f"<span>{html.escape(e.summary)}</span></a></li>"
        for e in entries
    )
    return template.replace("<!--games-->", items)


def _same_origin(ws: WebSocket) -> bool:
    """Refuse WebSockets opened by pages of other sites (cross-site WebSocket hijacking);
    clients that send no Origin (scripts, tests) are fine."""
    origin = ws.headers.get("origin")
    if origin is None:
        return True
    return urlsplit(origin).netloc.lower() == ws.headers.get("host", "").lower()


async def _game_socket(websocket: WebSocket, game: str) -> None:
    if not _same_origin(websocket):
        await websocket.close(code=1008)
        return
    await websocket.accept()
    hub: Hub = websocket.app.state.hub
    client = Client(websocket.send_text, game)
    try:
        while True:
            message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                break
            raw = message.get("text")
            await hub.handle(client, raw if raw is not None else message.get("bytes"))
    finally:
        hub.leave(client)
        await client.close()


async def _announce_ready(pool: EnginePool, started: float) -> None:
    while not pool.ready:
        await asyncio.sleep(0.05)
    n = pool.size
    print(
        f"banmen: engines ready ({n} worker{'s' if n != 1 else ''}, "
        f"{time.monotonic() - started:.1f} s)",
        flush=True,
    )


def create_app(
    db_path: str | Path | None = None,
    workers: int | None = None,
    *,
    extra_levels: Mapping[str, str] | None = None,
) -> Starlette:
    """The web app. ``workers`` engine processes cap concurrent searches (default: one per
    core but one); ``extra_levels`` adds CPU levels (name -> player spec), e.g. for
    benchmarks."""
    path = Path(db_path).expanduser() if db_path is not None else default_db_path()
    n_workers = workers if workers is not None else default_workers()
    if n_workers < 1:
        raise ValueError(f"workers must be at least 1, got {n_workers}")
    games_by_name = make_games(extra_levels)
    missing = [e.name for e in CATALOG if e.name not in games_by_name]
    if missing:  # a catalog entry without a session adapter: a programming error
        raise RuntimeError(f"no web adapter for the catalog's games {missing}")
    home = _home_html(CATALOG)
    arena_page_html = (STATIC_DIR / "arena.html").read_text(encoding="utf-8")
    arena = ArenaViews(path)
    tsume = SolverService(max_solves=n_workers)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        started = time.monotonic()
        store = GameStore(path)
        # Every game is warmed up in every worker, so no first CPU move waits for it.
        pool = EnginePool(n_workers, warm=tuple(games_by_name))
        await pool.start()  # spawns the processes; their warm-up runs on in the background
        lag = LagMonitor()
        hub = Hub(Services(store, pool, games_by_name))
        app.state.hub, app.state.pool, app.state.lag, app.state.store = hub, pool, lag, store
        tasks = [
            asyncio.create_task(lag.run()),
            asyncio.create_task(_announce_ready(pool, started)),
        ]
        try:
            yield
        finally:
            hub.close()  # stops running searches, so the workers can quit promptly
            for t in tasks:
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            await pool.close()
            await tsume.close()
            store.close()

    async def home_page(request: Request) -> Response:
        return HTMLResponse(home, headers=_PAGE_HEADERS)

    def game_page(entry: GameEntry) -> Route:
        body = (STATIC_DIR / entry.page).read_text(encoding="utf-8")

        async def page(request: Request) -> Response:
            return HTMLResponse(body, headers=_PAGE_HEADERS)

        return Route(entry.path, page, name=f"page-{entry.name}")

    def game_socket(entry: GameEntry) -> WebSocketRoute:
        async def socket(websocket: WebSocket) -> None:
            await _game_socket(websocket, entry.name)

        return WebSocketRoute(f"/ws/{entry.name}", socket, name=f"ws-{entry.name}")

    async def arena_page(request: Request) -> Response:
        return HTMLResponse(arena_page_html, headers=_PAGE_HEADERS)

    async def health(request: Request) -> Response:
        st = request.app.state
        return JSONResponse(
            {
                "ok": True,
                "engines_ready": st.pool.ready,
                "workers": st.pool.size,
                "running": st.pool.running,
                "sessions": len(st.hub.sessions),
                "move_time_cap_s": MOVE_TIME_CAP,
                "max_message_bytes": MAX_MESSAGE_BYTES,
                "loop_lag_ms": st.lag.stats(),
            },
            headers={"Cache-Control": "no-store"},
        )

    async def games(request: Request) -> Response:
        return JSONResponse([e.to_dict() for e in CATALOG])

    async def saved(request: Request) -> Response:
        gid = request.path_params["game_id"]
        found = await request.app.state.store.aload(gid) if is_game_id(gid) else None
        if found is None:
            return JSONResponse({"error": f"no saved game {gid[:64]!r}"}, status_code=404)
        return JSONResponse(found.to_dict(), headers={"Cache-Control": "no-store"})

    async def sgf(request: Request) -> Response:
        gid = request.path_params["game_id"]
        found = await request.app.state.store.aload(gid) if is_game_id(gid) else None
        if found is None:
            return JSONResponse({"error": f"no saved game {gid[:64]!r}"}, status_code=404)
        game = games_by_name.get(found.game)
        try:
            text = game.sgf(found.state, found.created[:10]) if game is not None else None
        except (ValueError, TypeError, KeyError) as e:
            return JSONResponse(
                {"error": f"saved game {gid!r} could not be read: {e}"}, status_code=422
            )
        if text is None:
            return JSONResponse(
                {"error": f"game {gid!r} is a {found.game} game: SGF is for Go games"},
                status_code=404,
            )
        return Response(
            text,
            media_type="application/x-go-sgf",
            headers={
                "Content-Disposition": f'attachment; filename="banmen-go-{gid}.sgf"',
                "Cache-Control": "no-store",
                "X-Content-Type-Options": "nosniff",
            },
        )

    routes: list[BaseRoute] = [
        Route("/", home_page, name="home"),
        *(game_page(e) for e in CATALOG),
        Route("/arena", arena_page, name="arena"),
        Route("/api/health", health),
        Route("/api/games", games),
        Route("/api/saved/{game_id}", saved),
        Route("/api/sgf/{game_id}", sgf),
        *arena_api_routes(arena),
        *tsume_routes(tsume, STATIC_DIR, _PAGE_HEADERS),
        *viz_routes(STATIC_DIR, _PAGE_HEADERS),
        *(game_socket(e) for e in CATALOG),
        Mount("/static", StaticFiles(directory=STATIC_DIR), name="static"),
    ]
    app = Starlette(routes=routes, lifespan=lifespan)
    app.state.arena = arena
    app.state.tsume = tsume
    return app


def run_uvicorn(app: Starlette, host: str, port: int) -> None:
    """Serve ``app`` until interrupted, with the settings every banmen server uses."""
    uvicorn.run(
        app,
        host=host,
        port=port,
        ws_max_size=WS_MAX_FRAME,
        log_level="warning",
        access_log=False,  # /api/health may be polled every few ms; don't log each poll
    )


def serve(
    host: str = "127.0.0.1", port: int = 8000, db: str | None = None, workers: int | None = None
) -> None:
    """Run the web app with uvicorn until interrupted (``banmen serve``)."""
    path = Path(db).expanduser() if db else default_db_path()
    app = create_app(path, workers)
    shown = f"[{host}]" if ":" in host else host
    print(
        f"banmen: serving http://{shown}:{port}/ (saved games: {path}); engines warming up",
        flush=True,
    )
    run_uvicorn(app, host, port)

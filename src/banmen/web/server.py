"""The banmen web app: Starlette routes, the app's lifespan, and ``serve()`` for the CLI.

Routes: ``/`` (the games), one page per game that has one (``/<name>``: banmen's
``/mattix``, ``/othello``, ``/go``, and every installed game package's, from the games
themselves, see :mod:`banmen.web.catalog`; every page is rendered from one shell, see
:mod:`banmen.web.pages`), ``/ws/<game>`` (one WebSocket per game view, see
:mod:`banmen.web.protocol`), ``/static/...`` (ES modules, CSS, SVG — no build step),
``/api/health``, ``/api/games``, ``/api/saved/<id>`` and ``/api/record/<id>`` (a saved
game as a file of its game's record format, :attr:`banmen.games.GameDef.write_record`:
Go's SGF);
``/arena`` shows the arena runs in the same database, from ``/api/arena/...`` (see
:mod:`banmen.web.arena`), and the training runs of ``banmen train`` there, from
``/api/arena/train/...`` (see :mod:`banmen.web.training`); ``/tsume`` solves shogi mate
problems (``/api/tsume/sfen``, ``/ws/tsume``; see :mod:`banmen.web.tsume`); ``/viz`` steps
through bitboard operations (``/api/viz/...``; see :mod:`banmen.web.viz`).

The engine pool starts with the app, but its workers warm up (compile, load caches) in the
background: pages and sockets are served at once, CPU moves wait for a worker, and the
terminal gets an "engines ready" line when they are all up. The pool has one worker per
core this process may use (:func:`default_workers`); the workers only search, and the
event loop, which only routes messages, stays responsive beside them (the lag benchmark,
``banmen bench web-lag``, measures it).

Who may talk to the server (:func:`allowed_hosts`, :func:`guard_hosts`): a request whose
``Host`` header names another host gets a 400 — pages, APIs and WebSockets alike — so a
web page that rebinds its own name to this machine's address (DNS rebinding) cannot drive
the server. Accepted are the loopback names (``localhost``, ``127.0.0.1``, ``[::1]``), the
address the server is bound to, and every ``--allowed-host NAME``; bound to every
interface (``--host 0.0.0.0`` or ``::``), also the machine's host name (and
``NAME.local``). ``--allowed-host '*'`` accepts any host (only behind a proxy that checks
it). A WebSocket is also refused (403) unless its ``Origin``, when sent, names the same
host and port as its ``Host``.

What only this machine reads (:func:`guard_private`, :data:`PRIVATE_PATHS`): the arena's
runs and training runs (``/api/arena/…``: the players' specs — engine command lines, file
paths — and a training run's files) and the saved games by id over HTTP
(``/api/saved/…``, ``/api/record/…``) are answered to clients from a loopback address
only, unless the server shares them (``banmen serve --share-runs-and-games``); any other
client gets a one-line 403. Games are still joined and played by id over their sockets:
that is how a game is shared. ``banmen serve`` on an address other than loopback says so
in a paragraph before it serves (:func:`exposure`).

The limits (:class:`~banmen.web.limits.Limits`, each settable with ``banmen serve
--limit NAME=VALUE``), and what a client gets beyond each — always one line:

- ``max_connections`` / ``max_connections_per_client`` (256 / 16): further WebSockets are
  accepted, get an ``error`` ("the server is busy: ... connections") and are closed with
  code 1013 (try again later); the pages reconnect by themselves a little later.
- ``max_sessions`` (128 games viewed at once): joining or starting another game gets an
  ``error``; the client keeps the game it had.
- ``max_queued_moves`` (128): a CPU move that finds every engine busy waits in line, at
  most one per game, games taking turns in the order they asked; its clients get ``queue``
  messages with their place ("the server is busy: you are 3rd in line for an engine") as
  the line moves. Beyond the cap the CPU pauses with an error (Resume tries again).
- tsume: one solve per client address (running or waiting), ``max_queued_solves`` (32)
  waiting, each told its place in line as it moves (``queued``), and a time limit of at
  most ``max_solve_seconds`` (300 s; the page's input is capped to it).
- saved games: one client address may create ``new_game_burst`` (200) at once, then one
  every ``new_game_interval`` (2 s) — "too many new games ..." beyond; unfinished games
  untouched (not opened or changed) for ``keep_unfinished_days`` (30) and games without
  a move untouched for ``keep_empty_days`` (1) are deleted, at start and every
  ``expiry_interval`` (1 h). Finished games are kept.

- ``message_burst`` / ``message_rate`` (500 / 100 a second): what one WebSocket may send;
  one frame more gets an ``error`` ("too many messages: ...") and the socket is closed
  (1008, "too many messages"). Frames are handled one per turn of the event loop, and
  read off the wire 4 KB per turn (:mod:`banmen.web.sockets`, :mod:`banmen.web.protocols`),
  so a socket whose frames are all buffered at once cannot hold up the others.
- ``request_head_timeout`` (10 s): an HTTP connection waiting for a request head (new,
  half-sent, or idle after a response) is closed after that long, with a 408 if it had
  sent part of one; ``max_waiting_connections`` (256) may wait at once, one more closes
  the one that has waited longest (those that never sent a request first). An idle
  connection after a response is closed after 5 s (uvicorn's keep-alive); a request head
  over 16 KB gets uvicorn's 400.

A malformed HTTP request (a bad chunked body, say) is logged as one line, not a traceback
(:class:`OneLineProtocolErrors` on uvicorn's error log); what is logged about refused
clients (a flooding socket, a timed-out head, a WebSocket with a foreign ``Host``) is one
warning line per kind a minute at most, counting the rest
(:class:`~banmen.web.limits.LogThrottle`).
"""

from __future__ import annotations

import asyncio
import copy
import gc
import ipaddress
import logging
import re
import socket
import sqlite3
import sys
import time
from collections import Counter
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import h11
import uvicorn
from starlette.applications import Starlette
from starlette.datastructures import Headers
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import HTTPConnection, Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Receive, Scope, Send
from starlette.websockets import WebSocket

from banmen.arena.store import (  # one file for saved games and arena runs
    ArenaStore,
    default_db_path,
)
from banmen.warm import usable_cores
from banmen.web.arena import ArenaViews, arena_api_routes
from banmen.web.catalog import GameEntry, make_games
from banmen.web.engines import EngineNews
from banmen.web.games import WebGame
from banmen.web.hub import Hub
from banmen.web.lag import LagMonitor, LoopDiscipline
from banmen.web.levels import MOVE_TIME_CAP
from banmen.web.limits import Limits, client_address
from banmen.web.pages import STATIC_DIR, app_pages, page_routes
from banmen.web.protocol import MAX_MESSAGE_BYTES
from banmen.web.protocols import uvicorn_protocols
from banmen.web.replies import one_line
from banmen.web.session import Services
from banmen.web.sockets import serve_socket
from banmen.web.store import GameStore, is_game_id
from banmen.web.training import TrainViews, train_api_routes
from banmen.web.tsume import SolverService, tsume_routes
from banmen.web.viz import viz_routes
from banmen.worker import EnginePool

__all__ = [
    "create_app",
    "load_boards",
    "warm_games",
    "serve",
    "run_uvicorn",
    "default_db_path",
    "default_workers",
    "allowed_hosts",
    "guard_hosts",
    "LOOPBACK_HOSTS",
    "PRIVATE_PATHS",
    "SHARE_FLAG",
    "guard_private",
    "is_loopback",
    "binds_loopback",
    "exposure",
    "check_database",
    "OneLineProtocolErrors",
    "STATIC_DIR",
]

log = logging.getLogger("banmen.web")

#: what a downloaded file's name may not hold (it goes into a header, quoted)
_FILE_NAME_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")

#: Frames above this are refused by the WebSocket layer itself (the connection closes);
#: frames between MAX_MESSAGE_BYTES and this get a polite error reply.
WS_MAX_FRAME = 64 * 1024
#: An idle HTTP connection is closed this long after its last response (uvicorn's own).
KEEP_ALIVE_SECONDS = 5
#: On shutdown, what still runs this long after the WebSockets were told is cancelled.
GRACEFUL_SHUTDOWN_SECONDS = 5


def default_workers() -> int:
    """One engine worker per core this process may use (its CPU affinity, else every
    core). The event loop needs little CPU — it routes messages and wakes for each — so it
    stays responsive beside a full set of searches; leaving it a core of its own would
    halve the searches on a two-core machine."""
    return max(1, usable_cores())


#: The names of this machine every server accepts in a request's ``Host`` header.
LOOPBACK_HOSTS = ("localhost", "127.0.0.1", "[::1]")
_WILDCARD_BINDS = ("0.0.0.0", "::", "[::]", "")
_HOST_NAME = re.compile(r"(\*\.)?[a-z0-9_]([a-z0-9_.-]*[a-z0-9_])?")


def _host_pattern(name: str) -> str:
    """``name`` as TrustedHostMiddleware compares it: lower case, an IPv6 address in
    brackets; ``ValueError`` (one line) if it is not a host name, an address, ``*`` or
    ``*.domain``."""
    text = name.strip().lower()
    bare = text[1:-1] if text.startswith("[") and text.endswith("]") else text
    try:
        addr = ipaddress.ip_address(bare)
    except ValueError:
        addr = None
    if addr is not None:
        return f"[{addr}]" if addr.version == 6 else str(addr)
    if text == "*" or _HOST_NAME.fullmatch(text):
        return text
    raise ValueError(
        f"bad allowed host {name[:64]!r}: expected a host name (example.org), an address "
        "(192.168.1.5, ::1), *.domain, or *"
    )


def allowed_hosts(bind: str = "127.0.0.1", extra: Sequence[str] = ()) -> list[str]:
    """The ``Host`` names a server bound to ``bind`` accepts (see the module docstring):
    the loopback names, ``bind`` itself (for every interface: this machine's host name),
    and ``extra``."""
    hosts = list(LOOPBACK_HOSTS)
    if bind.strip().lower() in _WILDCARD_BINDS:
        name = socket.gethostname().strip().lower()
        if name and _HOST_NAME.fullmatch(name):
            hosts += [name, f"{name}.local"]
    else:
        hosts.append(_host_pattern(bind))
    hosts += [_host_pattern(h) for h in extra]
    return list(dict.fromkeys(hosts))


def guard_hosts(app: ASGIApp, hosts: Sequence[str]) -> ASGIApp:
    """``app`` answering only requests (and WebSockets) whose ``Host`` is one of
    ``hosts`` (patterns as :func:`allowed_hosts` gives them); others get a 400."""
    return TrustedHostMiddleware(app, allowed_hosts=list(hosts), www_redirect=False)


#: The routes only clients on this machine get, unless the server shares them: the arena's
#: runs (every player's spec: engine command lines, file paths) and saved games read by id
#: over HTTP. (A game is joined and played by id over its socket all the same.)
PRIVATE_PATHS = ("/api/arena", "/api/saved/", "/api/record/")

#: ``banmen serve``'s option that serves :data:`PRIVATE_PATHS` to every client
SHARE_FLAG = "--share-runs-and-games"


def is_loopback(address: str) -> bool:
    """Whether a client's ``address`` (an IP address as text) is this machine's loopback
    (``127.0.0.0/8``, ``::1``, or IPv4-mapped ``::ffff:127.x.x.x``); anything else — another
    address, a name, an unknown ("") — is not."""
    try:
        ip = ipaddress.ip_address(address.strip("[]"))
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return ip.ipv4_mapped.is_loopback
    return ip.is_loopback


def binds_loopback(host: str) -> bool:
    """Whether a server bound to ``host`` is reachable from this machine only: a loopback
    address, ``localhost``, or a name that resolves to loopback addresses only."""
    text = host.strip().strip("[]").lower()
    if text in _WILDCARD_BINDS:
        return False
    if text == "localhost" or is_loopback(text):
        return True
    try:
        ipaddress.ip_address(text)
        return False  # another address of this machine
    except ValueError:
        pass
    try:
        found = {info[4][0] for info in socket.getaddrinfo(text, None)}
    except OSError:
        return False
    return bool(found) and all(is_loopback(str(a)) for a in found)


class _PrivateGuard:
    """ASGI middleware: :data:`PRIVATE_PATHS` answered with a one-line 403 to any client
    that is not on this machine (see :func:`guard_private`)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            path: str = scope.get("path", "")
            private = path == PRIVATE_PATHS[0] or path.startswith(
                (PRIVATE_PATHS[0] + "/", *PRIVATE_PATHS[1:])
            )
            client = scope.get("client")
            if private and not is_loopback(client[0] if client else ""):
                what = "arena runs" if path.startswith(PRIVATE_PATHS[0]) else "saved games"
                line = (
                    f"forbidden: this server shows its {what} to its own machine only "
                    f"(start it with {SHARE_FLAG} to share them)"
                )
                reply = JSONResponse({"error": line}, status_code=403,
                                     headers={"Cache-Control": "no-store"})  # fmt: skip
                await reply(scope, receive, send)
                return
        await self.app(scope, receive, send)


def guard_private(app: ASGIApp, share: bool = False) -> ASGIApp:
    """``app`` answering :data:`PRIVATE_PATHS` to loopback clients only (others get a
    one-line 403), unless ``share``. The client is the connection's peer — or, behind a
    reverse proxy on this machine, the address it forwards (uvicorn trusts
    ``X-Forwarded-For`` from 127.0.0.1 and ::1; a proxy that sends none makes every
    client loopback)."""
    return app if share else _PrivateGuard(app)


def exposure(host: str, port: int, db: Path, share: bool) -> str | None:
    """The paragraph ``banmen serve`` prints when bound to ``host`` makes it reachable
    from other machines: who may read what, and from where; ``None`` on loopback."""
    if binds_loopback(host):
        return None
    wide = host.strip().lower() in _WILDCARD_BINDS
    where = f"any address of this machine, port {port}" if wide else f"{host} port {port}"
    text = (
        f"banmen: serving beyond this machine: anyone who can reach {where} (this "
        "machine's network, and beyond if it is reachable from there) can open the game "
        "pages, play, use this machine's cores for CPU moves, and see your --player specs "
        "on the pages. "
    )
    if share:
        return text + (
            f"With {SHARE_FLAG} they also read every arena run (/api/arena: each player's "
            f"spec, engine command lines, file paths; from {db} and the arena's default "
            "database) and any saved game whose id they have (/api/saved, /api/record)."
        )
    return text + (
        "Arena runs (engine command lines, file paths) and saved games over HTTP "
        "(/api/arena, /api/saved, /api/record) stay this machine's: other clients get a "
        f"403; {SHARE_FLAG} shares them."
    )


def check_database(path: Path) -> None:
    """Open (and create, if need be) the database ``path`` as the app will, and close it:
    ``ValueError`` with one line naming the file if it cannot be used (not SQLite, damaged,
    a directory, not readable or writable, a folder that cannot be made)."""
    if path.is_dir():
        raise ValueError(f"cannot use {path} as the database: it is a directory, not a file")
    for folder in path.parents:  # the nearest that exists must be a folder
        if folder.exists():
            if not folder.is_dir():
                raise ValueError(
                    f"cannot use {path} as the database: {folder} is a file, not a folder"
                )
            break
    try:
        GameStore(path).close()
        ArenaStore(path).close()
    except sqlite3.Error as e:
        raise ValueError(f"cannot use {path} as the database: {one_line(e)}") from None
    except OSError as e:
        why = e.strerror or one_line(e)
        raise ValueError(f"cannot use {path} as the database: {why}") from None


def _same_origin(headers: Headers) -> bool:
    """Whether a WebSocket comes from a page of this server (no cross-site WebSocket
    hijacking): its Origin names the host and port of its Host header — which the host
    check has found allowed. Clients that send no Origin (scripts, tests) are fine."""
    origin = headers.get("origin")
    if origin is None:
        return True
    try:
        netloc = urlsplit(origin).netloc.lower()
    except ValueError:
        return False
    return netloc != "" and netloc == headers.get("host", "").lower()


class Connections:
    """The WebSockets open now, in all and per client address, against the limits."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.total = 0
        self.by_address: Counter[str] = Counter()

    def refusal(self, address: str) -> str | None:
        """Why one more connection from ``address`` is refused, or None."""
        lim = self.limits
        if self.by_address[address] >= lim.max_connections_per_client:
            return (
                "the server is busy: your address has used all its connections "
                f"({lim.max_connections_per_client}); close some tabs or windows"
            )
        if self.total >= lim.max_connections:
            return (
                f"the server is busy: all its connections ({lim.max_connections}) are in "
                "use; try again in a while"
            )
        return None

    def open(self, address: str) -> None:
        self.total += 1
        self.by_address[address] += 1

    def close(self, address: str) -> None:
        self.total -= 1
        self.by_address[address] -= 1
        if self.by_address[address] <= 0:
            del self.by_address[address]


class SocketGuard:
    """ASGI middleware for every WebSocket of the app: the same-origin check (403), then
    the connection limits (accepted, told why in an ``error`` message, closed with 1013 —
    try again later)."""

    def __init__(self, app: ASGIApp, connections: Connections) -> None:
        self.app = app
        self.connections = connections

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "websocket":
            await self.app(scope, receive, send)
            return
        conn = HTTPConnection(scope)
        if not _same_origin(conn.headers):
            await WebSocket(scope, receive, send).close(code=1008)
            return
        address = client_address(conn)
        conns = self.connections
        why = conns.refusal(address)
        if why is not None:
            ws = WebSocket(scope, receive, send)
            await ws.accept()
            await ws.send_json({"type": "error", "message": why})
            await ws.close(code=1013, reason="the server is busy")
            return
        conns.open(address)
        try:
            await self.app(scope, receive, send)
        finally:
            conns.close(address)


async def _expire_games(store: GameStore, hub: Hub, limits: Limits) -> int:
    """Delete the abandoned saved games (none that is open now); how many were deleted."""
    try:
        n = await store.aexpire(
            limits.keep_unfinished_days, limits.keep_empty_days, keep=set(hub.sessions)
        )
    except sqlite3.Error as e:
        log.error("could not expire saved games: %s", e)
        return 0
    if n:
        print(f"banmen: deleted {n} abandoned saved game{'s' if n != 1 else ''}", flush=True)
    return n


async def _expire_periodically(store: GameStore, hub: Hub, limits: Limits) -> None:
    while True:
        await asyncio.sleep(limits.expiry_interval)
        await _expire_games(store, hub, limits)


async def _announce_ready(pool: EnginePool, started: float) -> None:
    while not pool.ready:
        await asyncio.sleep(0.05)
    n = pool.size
    print(
        f"banmen: engines ready ({n} worker{'s' if n != 1 else ''}, "
        f"{time.monotonic() - started:.1f} s)",
        flush=True,
    )


def load_boards(games: Sequence[str]) -> None:
    """Load the compiled code the games' boards run (``KernelSet.board``: the Othello and
    Go rules, Go's count; an installed game's own) in this process, compiling it first if
    it is cold: the event loop then never compiles, nor imports, a kernel when a page plays
    a move."""
    from banmen.games.registry import evaluator_kinds, get_game, search_kinds
    from banmen.warm import ensure

    search_kinds()  # (the kinds' declarations: a spec read while serving imports nothing)
    evaluator_kinds()
    for name in games:
        for ks in get_game(name).kernel_sets:
            if ks.board:
                ensure(ks)


def warm_games(
    games: Mapping[str, WebGame[Any]], on_broken: Callable[[str], None] | None = None
) -> dict[str, WebGame[Any]]:
    """``games`` whose pages' first requests run (:meth:`WebGame.warm`: a new board and
    its description, after :func:`load_boards`), so that no game's code is first imported
    or compiled while the app serves; a game that fails is left out with one line to
    ``on_broken`` (default: stderr)."""
    out: dict[str, WebGame[Any]] = {}
    for name, game in games.items():
        try:
            game.warm()
        except (Exception, SystemExit) as e:  # anything a game package's board does
            line = (
                f"{game.title}'s web page left out: it fails to start a game: "
                f"{type(e).__name__}: {one_line(e)}"
            )
            if on_broken is None:
                print(f"banmen: {line}", file=sys.stderr, flush=True)
            else:
                on_broken(line)
            continue
        out[name] = game
    return out


def create_app(
    db_path: str | Path | None = None,
    workers: int | None = None,
    *,
    extra_levels: Mapping[str, str] | None = None,
    players: Mapping[str, Mapping[str, str]] | None = None,
    limits: Limits | None = None,
    clock: Callable[[], float] = time.time,
) -> Starlette:
    """The web app. ``workers`` engine processes cap concurrent searches (default: one per
    core); ``extra_levels`` adds CPU levels (name -> player spec), e.g. for benchmarks;
    ``players`` adds the user's own (game -> name -> spec, :mod:`banmen.web.players`);
    ``limits`` are the server's caps (see the module docstring); ``clock`` (seconds since
    the epoch) dates saved games and drives their expiry and the rate limits.

    The app checks no ``Host`` header: :func:`run_uvicorn` wraps it in
    :func:`guard_hosts`, so every server banmen starts does."""
    lim = limits if limits is not None else Limits()
    path = Path(db_path).expanduser() if db_path is not None else default_db_path()
    n_workers = workers if workers is not None else default_workers()
    if n_workers < 1:
        raise ValueError(f"workers must be at least 1, got {n_workers}")
    # The games are loaded, their boards' compiled code too, and a game started on each
    # page before the app serves: the event loop then loads no game's code.
    games_by_name = make_games(extra_levels, players)
    tsume = SolverService(max_queued=lim.max_queued_solves, max_seconds=lim.max_solve_seconds)
    load_boards([*games_by_name, tsume.game])
    games_by_name = warm_games(games_by_name)
    entries = [GameEntry.of(g.definition) for g in games_by_name.values()]
    pages = page_routes(app_pages(games_by_name))
    arena = ArenaViews(path)
    train = TrainViews(arena)
    connections = Connections(lim)
    discipline = LoopDiscipline()

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        started = time.monotonic()
        store = GameStore(path, clock=clock)
        # Every game is warmed up in every worker, so no first CPU move (or tsume solve:
        # shogi's mate engine) waits for it.
        warm = (*games_by_name, tsume.game)
        pool = EnginePool(n_workers, warm=warm, max_queued=lim.max_queued_moves)
        await pool.start()  # spawns the processes; their warm-up runs on in the background
        tsume.attach(pool)
        lag = LagMonitor()
        hub = Hub(Services(store, pool, games_by_name, lim, clock))
        app.state.hub, app.state.pool, app.state.lag, app.state.store = hub, pool, lag, store
        app.state.news = news = EngineNews(pool)
        app.state.expired = await _expire_games(store, hub, lim)  # now, then periodically
        tasks = [
            asyncio.create_task(lag.run()),
            asyncio.create_task(_announce_ready(pool, started)),
            asyncio.create_task(_expire_periodically(store, hub, lim)),
        ]
        discipline.start()
        try:
            yield
        finally:
            news.close()
            hub.close()  # stops running searches, so the workers can quit promptly
            tsume.close()  # (the same for solves)
            for t in tasks:
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            await pool.close()
            store.close()

    def game_socket(entry: GameEntry) -> WebSocketRoute:
        async def socket(websocket: WebSocket) -> None:
            st = websocket.app.state
            await serve_socket(websocket, entry.name, st.hub, st.news, st.limits)

        return WebSocketRoute(f"/ws/{entry.name}", socket, name=f"ws-{entry.name}")

    async def health(request: Request) -> Response:
        st = request.app.state
        return JSONResponse(
            {
                "ok": True,
                "engines_ready": st.pool.ready,
                "workers": st.pool.size,
                "running": st.pool.running,
                "waiting": st.pool.waiting,
                "sessions": len(st.hub.sessions),
                "connections": connections.total,
                "solves_running": tsume.running,
                "solves_waiting": tsume.waiting,
                "limits": lim.to_dict(),
                "move_time_cap_s": MOVE_TIME_CAP,
                "max_message_bytes": MAX_MESSAGE_BYTES,
                "loop_lag_ms": st.lag.stats(),
                # since it began to serve: modules imported, functions compiled or loaded
                "while_serving": discipline.stats(),
            },
            headers={"Cache-Control": "no-store"},
        )

    async def games(request: Request) -> Response:
        return JSONResponse([e.to_dict() for e in entries])

    async def saved(request: Request) -> Response:
        gid = request.path_params["game_id"]
        found = await request.app.state.store.aload(gid) if is_game_id(gid) else None
        if found is None:
            return JSONResponse({"error": f"no saved game {gid[:64]!r}"}, status_code=404)
        return JSONResponse(found.to_dict(), headers={"Cache-Control": "no-store"})

    async def record(request: Request) -> Response:
        gid = request.path_params["game_id"]
        found = await request.app.state.store.aload(gid) if is_game_id(gid) else None
        if found is None:
            return JSONResponse({"error": f"no saved game {gid[:64]!r}"}, status_code=404)
        game = games_by_name.get(found.game)
        reader = request.app.state.hub.services.reader
        try:  # (its moves replayed off the event loop)
            file = (
                await reader.run(game.record_file, found.state, found.created[:10])
                if game is not None
                else None
            )
        except Exception as e:  # a saved record its game cannot read (or a game's bug)
            return JSONResponse(
                {"error": f"saved game {gid!r} could not be read: {one_line(e)}"},
                status_code=422,
            )
        if file is None:
            what = game.title if game is not None else found.game
            return JSONResponse(
                {"error": f"game {gid!r} is a {what} game: {what} has no record format"},
                status_code=404,
            )
        name = _FILE_NAME_UNSAFE.sub("", f"banmen-{found.game}-{gid}{file.suffix}")
        return Response(
            file.text,
            media_type=file.media_type,
            headers={
                "Content-Disposition": f'attachment; filename="{name}"',
                "Cache-Control": "no-store",
                "X-Content-Type-Options": "nosniff",
            },
        )

    routes: list[BaseRoute] = [
        *pages,
        Route("/api/health", health),
        Route("/api/games", games),
        Route("/api/saved/{game_id}", saved),
        Route("/api/record/{game_id}", record),
        *arena_api_routes(arena, train_api_routes(train)),
        *tsume_routes(tsume),
        *viz_routes(),
        *(game_socket(e) for e in entries),
        Mount("/static", StaticFiles(directory=STATIC_DIR), name="static"),
    ]
    app = Starlette(
        routes=routes,
        lifespan=lifespan,
        middleware=[Middleware(SocketGuard, connections=connections)],
    )
    app.state.arena = arena
    app.state.train = train
    app.state.tsume = tsume
    app.state.limits = lim
    app.state.connections = connections
    return app


class OneLineProtocolErrors(logging.Filter):
    """On uvicorn's error log: one line for a malformed HTTP request (a bad chunked body,
    say) instead of a line and a traceback.

    uvicorn answers such a request with a 400 and logs "Invalid HTTP request received.";
    the app, still running, then fails to send its own response on the closed connection
    (h11's ``LocalProtocolError`` in state ``MUST_CLOSE``/``CLOSED``), which uvicorn logged
    with a traceback. That second record is a consequence, not news: it is dropped. Any
    other h11 error becomes one line; other errors keep their tracebacks."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.msg == "Invalid HTTP request received.":
            record.msg = "bad request: not valid HTTP (answered 400)"
            return True
        exc = record.exc_info[1] if record.exc_info else None
        if isinstance(exc, h11.LocalProtocolError) and re.search(
            r"state=(MUST_CLOSE|CLOSED)", str(exc)
        ):
            return False
        if isinstance(exc, h11.ProtocolError):
            record.msg = "bad request: the connection failed before the response (%s: %s)"
            record.args = (type(exc).__name__, one_line(exc))
            record.exc_info = None
            record.exc_text = None
            record.levelno, record.levelname = logging.WARNING, "WARNING"
        return True


def _log_config() -> dict[str, Any]:
    config: dict[str, Any] = copy.deepcopy(uvicorn.config.LOGGING_CONFIG)
    config.setdefault("filters", {})["one_line"] = {"()": OneLineProtocolErrors}
    config["loggers"].setdefault("uvicorn.error", {})["filters"] = ["one_line"]
    return config


def run_uvicorn(
    app: ASGIApp,
    host: str,
    port: int,
    hosts: Sequence[str] | None = None,
    limits: Limits | None = None,
    share: bool = False,
) -> None:
    """Serve ``app`` until interrupted, with the settings every banmen server uses: only
    ``hosts`` (default: :func:`allowed_hosts` for ``host``) in the ``Host`` header, the
    arena runs and saved games for this machine's clients only unless ``share``
    (:func:`guard_private`), the connection limits of ``limits`` (default: the app's,
    ``app.state.limits``) on uvicorn's protocols
    (:func:`~banmen.web.protocols.uvicorn_protocols`), and one-line log entries for
    malformed requests."""
    if limits is None:
        limits = getattr(getattr(app, "state", None), "limits", None) or Limits()
    http, ws = uvicorn_protocols(limits)
    uvicorn.run(
        guard_hosts(guard_private(app, share), allowed_hosts(host) if hosts is None else hosts),
        host=host,
        port=port,
        http=http,
        ws=ws,
        timeout_keep_alive=KEEP_ALIVE_SECONDS,
        timeout_graceful_shutdown=GRACEFUL_SHUTDOWN_SECONDS,
        ws_max_size=WS_MAX_FRAME,
        log_config=_log_config(),
        log_level="warning",
        access_log=False,  # /api/health may be polled every few ms; don't log each poll
    )


def serve(
    host: str = "127.0.0.1",
    port: int = 8000,
    db: str | None = None,
    workers: int | None = None,
    *,
    allowed: Sequence[str] = (),
    limits: Limits | None = None,
    players: Mapping[str, Mapping[str, str]] | None = None,
    share: bool = False,
) -> None:
    """Run the web app with uvicorn until interrupted (``banmen serve``); ``allowed``
    names more hosts to accept (``--allowed-host``); ``share`` serves the arena runs and
    saved games to clients on other machines too (``--share-runs-and-games``). A bad host
    name or a database that cannot be used is a ``ValueError`` (one line) before anything
    starts."""
    path = Path(db).expanduser() if db else default_db_path()
    hosts = allowed_hosts(host, allowed)  # ValueError on a bad name, before anything starts
    check_database(path)  # the same: a damaged file is one line, not uvicorn's traceback
    app = create_app(path, workers, limits=limits, players=players)
    shown = f"[{host}]" if ":" in host else host
    print(
        f"banmen: serving http://{shown}:{port}/ (saved games: {path}); engines warming up",
        flush=True,
    )
    paragraph = exposure(host, port, path, share)
    if paragraph is not None:
        print(paragraph, flush=True)
    if "*" in hosts:
        print("banmen: accepting any Host header (--allowed-host '*')", flush=True)
    elif host.strip().lower() in _WILDCARD_BINDS or allowed:
        print(
            f"banmen: accepting the host names {', '.join(hosts)} "
            "(add more with --allowed-host NAME)",
            flush=True,
        )
    # What start-up made (the games, their compiled code, the pages) lives as long as the
    # process: out of the collector's sight, a full collection no longer walks it (~75 ms
    # with the GIL held, on the event loop or beside it, whenever one came due).
    gc.collect()
    gc.freeze()
    run_uvicorn(app, host, port, hosts, share=share)

"""The web server's limits and who may talk to it.

- Hosts (DNS rebinding): a foreign ``Host`` gets a 400 on pages and APIs and its WebSocket
  is refused; the loopback names work, with and without a port; a WebSocket's Origin must
  name its Host. Checked through the TestClient and against a real uvicorn server.
- Caps, each exceeded with small caps given to ``create_app`` and checked for its one-line
  message and for the state being intact afterwards: WebSocket connections (per address
  and in all), live sessions, the CPU-move line (with places in line as it moves), tsume
  solves (per address, the line, the longest time limit), new saved games per address
  (an injected clock, no sleeping), and the expiry of abandoned saved games (the same).
- A malformed chunked request body: one log line, no traceback (a real server's log).

Nothing here depends on the machine's speed: every wait is for a message or a condition,
with generous time-outs that only matter when something is broken.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import socket
import subprocess
import sys
import threading
import time
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import go_long
import httpx
import pytest
from conftest import served
from starlette.websockets import WebSocketDisconnect
from typer.testing import CliRunner
from web_clients import AddressFromHeader, address, wait_engines_ready
from ws_conn import Msg, WsConn

with warnings.catch_warnings():
    # Starlette 1.x nudges TestClient users towards httpx2; irrelevant to these tests.
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

import banmen.web.cpu_turns as cpu_turns_module
from banmen.cli import app as cli_app
from banmen.web.levels import capped_limit
from banmen.web.limits import Limits, LogThrottle, RateLimit, busy_line, ordinal
from banmen.web.server import (
    LOOPBACK_HOSTS,
    allowed_hosts,
    create_app,
    default_workers,
    guard_hosts,
)
from banmen.web.store import GameStore
from banmen.worker import EnginePool, JobCancelled, PoolBusy

pytestmark = [
    pytest.mark.timeout(180),
    pytest.mark.filterwarnings("ignore:.*httpx2:UserWarning"),
]

HUMANS = {"1": "human", "2": "human"}
#: A CPU level that searches until it is stopped (with the move time cap raised).
SLOW = {"slow": "alphabeta:time=3600"}
#: tsume: Microcosmos (mate in 1525), which no solver finishes during a test; and a mate in 1
MICROCOSMOS = (
    "g1+P1k1+P+P+L/1p3P3/+R+p2pp1pl/1NNsg+p2+R/+b+nL+P1+p3/1P3ssP1/2P1+Ps2N/4+P1P1L/+B5G1g b - 1"
)
ONE = "k8/9/PK7/9/9/9/9/9/9 b 2r2b4g4s4n4l17p 1"


class FakeClock:
    """Seconds since the epoch, moved on by the test."""

    def __init__(self) -> None:
        self.now = time.time()

    def __call__(self) -> float:
        return self.now

    def advance(self, days: float) -> None:
        self.now += days * 86400


class Conn(WsConn):
    """A game socket (Mattix unless the test opened another)."""

    def error_text(self) -> str:
        """The next error's text: one line, no traceback (see WsConn.next_error_text)."""
        return self.next_error_text()

    def until_error(self) -> str:
        msg = self.until(lambda m: m["type"] == "error")
        text: str = msg["message"]
        assert "\n" not in text and "Traceback" not in text and 0 < len(text) < 300
        return text


def wait_until(pred: Callable[[], bool], timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not pred():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def refused_socket(ws: Any) -> tuple[str, int]:
    """A connection over the limits: its one error message, then a close with 1013."""
    msg = ws.receive_json()
    assert msg["type"] == "error", msg
    text: str = msg["message"]
    assert "\n" not in text and len(text) < 300
    with pytest.raises(WebSocketDisconnect) as closed:
        ws.receive_json()
    return text, closed.value.code


# --------------------------------------------------------------------------- pure parts


def test_ordinals_and_the_busy_line() -> None:
    words = {1: "1st", 2: "2nd", 3: "3rd", 4: "4th", 11: "11th", 12: "12th", 13: "13th",
             21: "21st", 22: "22nd", 23: "23rd", 101: "101st", 111: "111th",
             112: "112th"}  # fmt: skip
    for n, word in words.items():
        assert ordinal(n) == word
    assert busy_line(3, "an engine") == "the server is busy: you are 3rd in line for an engine"


def test_limits_parse_and_refuse_bad_values() -> None:
    lim = Limits().replace({"max_sessions": "5", "max_solve_seconds": "90.5"})
    assert lim.max_sessions == 5 and lim.max_solve_seconds == 90.5
    assert lim.max_connections == Limits().max_connections
    for overrides, says in [
        ({"max_bogus": "1"}, "unknown limit 'max_bogus'"),
        ({"max_sessions": "lots"}, "max_sessions must be a whole number"),
        ({"max_sessions": "2.5"}, "max_sessions must be a whole number"),
        ({"max_sessions": "0"}, "max_sessions must be a positive number"),
        ({"keep_empty_days": "-1"}, "keep_empty_days must be a positive number"),
        ({"max_solve_seconds": "nan"}, "max_solve_seconds must be a positive number"),
    ]:
        with pytest.raises(ValueError, match=says):
            Limits().replace(overrides)


def test_the_cli_refuses_bad_limits_and_hosts_in_one_line() -> None:
    runner = CliRunner()
    for args, says in [
        (["--limit", "max_bogus=1"], "unknown limit 'max_bogus'"),
        (["--limit", "max_sessions"], "--limit takes NAME=VALUE"),
        (["--limit", "max_sessions=0"], "must be a positive number"),
        (["--allowed-host", "bad host!"], "bad allowed host 'bad host!'"),
    ]:
        result = runner.invoke(cli_app, ["serve", *args])
        assert result.exit_code == 2, result.output
        lines = result.output.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: ") and says in lines[0]


def test_rate_limit_is_a_token_bucket_on_its_clock() -> None:
    clock = FakeClock()
    rate = RateLimit(burst=2, interval=10.0, clock=clock)
    assert rate.take("a") == 0.0 and rate.take("a") == 0.0
    assert rate.take("a") == pytest.approx(10.0)
    assert rate.take("b") == 0.0  # another key has its own bucket
    clock.now += 5
    assert rate.take("a") == pytest.approx(5.0)
    clock.now += 5
    assert rate.take("a") == 0.0
    clock.now -= 1000  # a clock stepping back gives nothing and takes nothing
    assert rate.take("a") > 0


def test_log_throttle_logs_one_line_per_kind_per_interval(
    caplog: pytest.LogCaptureFixture,
) -> None:
    clock = FakeClock()
    throttle = LogThrottle(logging.getLogger("banmen.test"), interval=60.0, clock=clock)
    with caplog.at_level(logging.WARNING, logger="banmen.test"):
        assert throttle.log(logging.WARNING, "a", "first")
        assert not any(throttle.log(logging.WARNING, "a", "again") for _ in range(99))
        assert throttle.log(logging.WARNING, "b", "another kind")  # its own interval
        clock.now += 61
        assert throttle.log(logging.WARNING, "a", "later")
        clock.now += 61
        assert throttle.log(logging.WARNING, "a", "much later")
    assert [r.getMessage() for r in caplog.records] == [
        "first",
        "another kind",
        "later; 99 more like it since the last such line, not logged",
        "much later",
    ]


def test_the_pool_is_one_worker_per_usable_core() -> None:
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    assert default_workers() == cores


def test_the_engine_line_takes_turns_between_owners_and_tells_places() -> None:
    """No worker processes: the pool is never started, so every job waits in line."""

    async def main() -> None:
        pool = EnginePool(1, max_queued=6, max_waiting_per_owner=2)
        places: dict[str, list[int]] = {}

        def submit(name: str, owner: str) -> Any:
            places[name] = []
            return pool.submit("mattix", {}, "random", owner=owner,
                               on_queue=places[name].append)  # fmt: skip

        a1, a2 = submit("a1", "A"), submit("a2", "A")
        b1, c1, b2 = submit("b1", "B"), submit("c1", "C"), submit("b2", "B")
        # turns: each owner in the order it came, one job a turn
        assert pool.order() == [a1, b1, c1, a2, b2]
        assert [j.position for j in (a1, b1, c1, a2, b2)] == [1, 2, 3, 4, 5]
        with pytest.raises(PoolBusy, match="already has a CPU move waiting"):
            submit("a3", "A")  # A has its two waiting
        submit("d1", "D")
        with pytest.raises(PoolBusy, match=r"the line for an engine is full \(6 waiting\)"):
            submit("e1", "E")
        assert pool.waiting == 6
        assert pool.order() == [a1, b1, c1, pool.order()[3], a2, b2]
        # a job cancelled while it waits leaves the line, and the others move up
        b1.cancel()
        with pytest.raises(JobCancelled):
            await b1
        d1 = pool.order()[3]
        assert pool.order() == [a1, c1, b2, d1, a2]
        assert places == {"a1": [1], "a2": [2, 3, 4, 5], "b1": [2], "c1": [3, 2],
                          "b2": [5, 6, 3], "d1": [4], "a3": [], "e1": []}  # fmt: skip
        await pool.close()

    asyncio.run(main())


# --------------------------------------------------------------------------- hosts


def test_allowed_hosts() -> None:
    assert allowed_hosts("127.0.0.1") == list(LOOPBACK_HOSTS)
    assert allowed_hosts("192.168.1.5")[-1] == "192.168.1.5"
    assert allowed_hosts("::1") == list(LOOPBACK_HOSTS)
    assert allowed_hosts("fe80::1")[-1] == "[fe80::1]"
    name = socket.gethostname().lower()
    everywhere = allowed_hosts("0.0.0.0", ["Board.Example.org", "*.lan", "10.0.0.7"])
    assert name in everywhere and "0.0.0.0" not in everywhere
    assert everywhere[-3:] == ["board.example.org", "*.lan", "10.0.0.7"]
    assert allowed_hosts("::", ["*"])[-1] == "*"
    for bad in ("evil host", "http://x", "a/b", "", "*evil", "ex*.org"):
        with pytest.raises(ValueError, match="bad allowed host"):
            allowed_hosts("127.0.0.1", [bad])


@pytest.fixture(scope="module")
def guarded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    """The app as run_uvicorn serves it on 127.0.0.1: behind the host check."""
    db = tmp_path_factory.mktemp("hosts") / "games.sqlite3"
    app = guard_hosts(create_app(db, workers=1), allowed_hosts("127.0.0.1"))
    with TestClient(app, base_url="http://127.0.0.1:8000") as c:
        yield c


FOREIGN = ["evil.example", "evil.example:8000", "127.0.0.1.evil.example:8000", "localhost.:1"]


@pytest.mark.parametrize("host", FOREIGN)
def test_a_foreign_host_gets_400_on_pages_and_apis(guarded: TestClient, host: str) -> None:
    for path in ("/", "/mattix", "/tsume", "/api/health", "/api/games", "/static/js/page.js"):
        r = guarded.get(path, headers={"host": host})
        assert r.status_code == 400, (host, path)
        assert "Invalid host header" in r.text


@pytest.mark.parametrize("host", FOREIGN)
def test_a_foreign_host_gets_no_websocket(guarded: TestClient, host: str) -> None:
    for path in ("/ws/mattix", "/ws/othello", "/ws/tsume"):
        with pytest.raises(WebSocketDisconnect) as refused:
            with guarded.websocket_connect(f"ws://{host}{path}",
                                           headers={"origin": f"http://{host}"}):  # fmt: skip
                pass
        assert getattr(refused.value, "status_code", None) == 400


LOOPBACK = ["127.0.0.1", "127.0.0.1:8000", "localhost", "localhost:8000", "[::1]", "[::1]:8000",
            "LOCALHOST:8000"]  # fmt: skip


@pytest.mark.parametrize("host", LOOPBACK)
def test_loopback_names_work(guarded: TestClient, host: str) -> None:
    assert guarded.get("/api/games", headers={"host": host}).status_code == 200
    assert guarded.get("/", headers={"host": host}).status_code == 200
    # a page of this server, under the name the browser used
    with guarded.websocket_connect(f"ws://{host}/ws/mattix",
                                   headers={"origin": f"http://{host}"}) as ws:  # fmt: skip
        c = Conn(ws)
        assert c.join()["game"] == "mattix"


@pytest.mark.parametrize(
    "origin",
    ["http://evil.example:8000", "http://localhost:8000", "http://127.0.0.1:9999", "null", ""],
)
def test_a_websocket_from_another_origin_is_refused(guarded: TestClient, origin: str) -> None:
    # Host 127.0.0.1:8000 is allowed; an Origin naming anything else is not (even another
    # allowed name: a page there is another site)
    with pytest.raises(WebSocketDisconnect) as refused:
        with guarded.websocket_connect("ws://127.0.0.1:8000/ws/mattix",
                                       headers={"origin": origin}):  # fmt: skip
            pass
    assert refused.value.code == 1008


# --------------------------------------------------------------------------- connections


def small_app(tmp_path: Path, **limits: Any) -> TestClient:
    app = create_app(tmp_path / "games.sqlite3", workers=1, limits=Limits(**limits),
                     extra_levels=SLOW)  # fmt: skip
    return TestClient(AddressFromHeader(app))


def test_connections_per_address_are_capped(tmp_path: Path) -> None:
    with small_app(tmp_path, max_connections_per_client=2) as client:
        with (
            client.websocket_connect("/ws/mattix") as ws1,
            client.websocket_connect("/ws/othello") as ws2,
        ):
            a, b = Conn(ws1), Conn(ws2)
            first = a.join()
            b.join()
            with client.websocket_connect("/ws/mattix") as ws3:
                text, code = refused_socket(ws3)
            assert text == (
                "the server is busy: your address has used all its connections (2); "
                "close some tabs or windows"
            )
            assert code == 1013
            # another address is not affected
            with client.websocket_connect("/ws/mattix", headers=address("10.0.0.2")) as ws4:
                Conn(ws4).join()
            # the open connections go on as they were
            assert a.resync()["id"] == first["id"]
            conns = client.app.state.connections  # type: ignore[attr-defined]
            wait_until(lambda: conns.total == 2)
        # closed: room again
        wait_until(lambda: client.app.state.connections.total == 0)  # type: ignore[attr-defined]
        with client.websocket_connect("/ws/mattix") as ws5:
            Conn(ws5).join()


def test_connections_in_all_are_capped(tmp_path: Path) -> None:
    with small_app(tmp_path, max_connections=2) as client:
        with (
            client.websocket_connect("/ws/mattix", headers=address("10.0.0.1")) as ws1,
            client.websocket_connect("/ws/tsume", headers=address("10.0.0.2")) as ws2,
        ):
            a = Conn(ws1)
            a.join()
            assert ws2.receive_json()["type"] == "hello"
            with client.websocket_connect("/ws/go", headers=address("10.0.0.3")) as ws3:
                text, code = refused_socket(ws3)
            assert text == (
                "the server is busy: all its connections (2) are in use; try again in a while"
            )
            assert code == 1013
            assert a.resync()["game"] == "mattix"
            assert client.get("/api/health").json()["connections"] == 2


# --------------------------------------------------------------------------- sessions


def test_live_sessions_are_capped(tmp_path: Path) -> None:
    full = "the server is busy: all its game slots (2) are in use; try again in a while"
    with small_app(tmp_path, max_sessions=2) as client:
        hub = client.app.state.hub  # type: ignore[attr-defined]
        with client.websocket_connect("/ws/othello") as w3:
            c = Conn(w3)
            with client.websocket_connect("/ws/mattix") as w2:
                b = Conn(w2)
                gb = b.join()
                with client.websocket_connect("/ws/mattix") as w1:
                    a = Conn(w1)
                    ga = a.join()
                    c.send({"type": "join"})
                    assert c.error_text() == full
                    assert c.state == {}  # no game, and nothing broken
                    # a client leaving its own game for a new one frees a slot for it
                    assert a.new(size=4, players=HUMANS)["id"] != ga["id"]
                    assert len(hub.sessions) == 2
                    with client.websocket_connect("/ws/mattix") as w4:
                        # a game that is open already can always be joined
                        d = Conn(w4)
                        assert d.join(gb["id"])["id"] == gb["id"]
                        # b shares its game with d: a new game for b needs a third slot
                        b.send({"type": "new", "size": 4})
                        assert b.error_text() == full
                        assert b.resync()["id"] == gb["id"]
                        assert len(hub.sessions) == 2
                # a has left: its game's slot is free, and c's socket works as ever
                wait_until(lambda: len(hub.sessions) < 2)
                assert c.join()["game"] == "othello"


# --------------------------------------------------------------------------- new games


def test_new_games_per_address_are_rate_limited(tmp_path: Path) -> None:
    clock = FakeClock()
    app = create_app(tmp_path / "games.sqlite3", workers=1, clock=clock,
                     limits=Limits(new_game_burst=3, new_game_interval=60))  # fmt: skip
    with TestClient(AddressFromHeader(app)) as client:
        with client.websocket_connect("/ws/mattix") as ws:
            c = Conn(ws)
            c.join()  # 1: a page opening without a game makes one
            c.new(size=4, seed=1, players=HUMANS)  # 2
            last = c.new(size=4, seed=2, players=HUMANS)  # 3
            store: GameStore = client.app.state.store
            assert store.count() == 3
            for msg in ({"type": "new", "size": 6}, {"type": "join", "id": "no-such-game"}):
                c.send(msg)
                assert c.error_text() == (
                    "too many new games from your address: at most 3 at once, then one "
                    "every 60 s; try again in 60 s"
                )
            assert store.count() == 3
            assert c.resync()["id"] == last["id"]
            # another address has its own allowance
            with client.websocket_connect("/ws/mattix", headers=address("10.0.0.9")) as ws2:
                Conn(ws2).new(size=4, players=HUMANS)
            clock.now += 30
            c.send({"type": "new", "size": 4})
            assert "try again in 30 s" in c.error_text()
            clock.now += 30
            assert c.new(size=4, players=HUMANS)["id"] != last["id"]
            c.send({"type": "new", "size": 4})
            assert "try again in 60 s" in c.error_text()


# --------------------------------------------------------------------------- loads

#: a Go record that loads (19x19, 401 moves) and one that does not (its last move illegal)
GOOD_SGF = go_long.first_moves(401)
BAD_SGF = GOOD_SGF[:-1] + ";W[bs])"  # B1 again: occupied


def _watch(
    monkeypatch: pytest.MonkeyPatch, obj: object, name: str, calls: list[str],
    wait: Callable[[], None] | None = None,
) -> None:  # fmt: skip
    """Record the thread each call of ``obj.name`` runs on (``wait()`` first, if given)."""
    real = getattr(obj, name)

    def watched(*args: Any, **kwargs: Any) -> Any:
        calls.append(threading.current_thread().name)
        if wait is not None:
            wait()
        return real(*args, **kwargs)

    monkeypatch.setattr(obj, name, watched)


def test_a_load_is_read_after_the_rate_check_and_off_the_event_loop(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = FakeClock()
    app = create_app(tmp_path / "games.sqlite3", workers=1, clock=clock,
                     limits=Limits(new_game_burst=3, new_game_interval=60))  # fmt: skip
    with TestClient(AddressFromHeader(app)) as client:
        game = client.app.state.hub.services.games["go"]  # type: ignore[attr-defined]
        reads: list[str] = []
        _watch(monkeypatch, game, "read", reads)
        with client.websocket_connect("/ws/go") as ws:
            c = Conn(ws)
            c.join()  # new game 1
            c.send({"type": "settings", "players": HUMANS})
            c.next_state()
            loaded = c.load(GOOD_SGF)  # 2
            assert len(loaded["history"]) == 401
            # 3: a bad text is one line and changes nothing, but its game is taken from
            # the rate: reading it is what the rate pays for
            c.send({"type": "load", "text": BAD_SGF})
            assert c.error_text().startswith("move 402 (W[bs], white B1) is illegal")
            # beyond the rate, a load is refused before its text is read
            for _ in range(20):
                c.send({"type": "load", "text": GOOD_SGF})
                assert c.error_text().startswith("too many new games from your address: ")
            assert len(reads) == 2  # the good one and the bad one, nothing since
            assert all(name.startswith("banmen-read") for name in reads), reads
            assert client.app.state.store.count() == 2  # type: ignore[attr-defined]
            assert c.resync()["id"] == loaded["id"]
            clock.now += 60
            assert c.load(GOOD_SGF)["id"] != loaded["id"]  # the rate refilled
        assert len(reads) == 3
        # a saved game joined (nobody has it open) is replayed off the loop too, and so is
        # its record file
        replays: list[str] = []
        _watch(monkeypatch, game, "board_from_record", replays)
        with client.websocket_connect("/ws/go", headers=address("10.0.0.2")) as ws:
            assert Conn(ws).join(loaded["id"])["history"] == loaded["history"]
        files: list[str] = []
        _watch(monkeypatch, game, "record_file", files)
        assert client.get(f"/api/record/{loaded['id']}").text.count(";B[") == 201
        assert replays and files, (replays, files)
        assert all(name.startswith("banmen-read") for name in replays + files)


def test_a_hub_that_fills_while_a_load_is_read_refuses_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    full = "the server is busy: all its game slots (2) are in use; try again in a while"
    reading, go_on = threading.Event(), threading.Event()

    def hold() -> None:  # the read waits while another client takes the last slot
        reading.set()
        go_on.wait(30)

    with small_app(tmp_path, max_sessions=2) as client:
        hub = client.app.state.hub  # type: ignore[attr-defined]
        reads: list[str] = []
        _watch(monkeypatch, hub.services.games["go"], "read", reads, hold)
        with (
            client.websocket_connect("/ws/go") as wa,
            client.websocket_connect("/ws/go", headers=address("10.0.0.4")) as wd,
        ):
            a, d = Conn(wa), Conn(wd)
            first = a.join()
            d.join(first["id"])  # a shares its game: leaving it frees no slot
            a.send({"type": "load", "text": GOOD_SGF})
            assert reading.wait(30)
            # meanwhile the event loop serves the others: another game takes the last slot
            with client.websocket_connect("/ws/mattix", headers=address("10.0.0.5")) as wb:
                b = Conn(wb)
                other = b.join()
                go_on.set()
                assert a.error_text() == full  # checked again once read: refused
                assert a.resync()["id"] == first["id"]
                assert set(hub.sessions) == {first["id"], other["id"]}


# --------------------------------------------------------------------------- expiry


def _mattix_move(state: Msg) -> str:
    n, sq = state["size"], state["legal"][0]
    return f"{chr(97 + sq % n)}{sq // n + 1}"


@pytest.mark.slow
def test_abandoned_saved_games_expire(tmp_path: Path) -> None:
    db = tmp_path / "games.sqlite3"
    clock = FakeClock()
    lim = Limits(keep_empty_days=1, keep_unfinished_days=30, expiry_interval=0.05)
    with TestClient(create_app(db, workers=1, clock=clock, limits=lim)) as client:
        with client.websocket_connect("/ws/mattix") as ws:
            c = Conn(ws)
            empty = c.join()["id"]
            played = c.new(size=4, seed=3, players=HUMANS)
            c.send({"type": "move", "square": _mattix_move(played)})
            c.next_state(lambda s: len(s["history"]) == 1)
            c.send({"type": "settings", "delay_ms": 0})
            c.next_state()
            done = c.new(size=4, seed=23, players={"1": "normal", "2": "normal"})["id"]
            c.next_state(lambda s: s["over"])
            kept_open = c.new(size=4, seed=5, players=HUMANS)["id"]  # empty, but open
        store: GameStore = client.app.state.store
        assert store.count() == 4

        def alive() -> set[str]:
            ids = [empty, played["id"], done, kept_open]
            return {i for i in ids if client.get(f"/api/saved/{i}").status_code == 200}

        with client.websocket_connect("/ws/mattix") as ws:
            Conn(ws).join(kept_open)
            clock.advance(2)
            # the periodic expiry: the empty game goes; the open one stays while it is open
            wait_until(lambda: empty not in alive())
            assert alive() == {played["id"], done, kept_open}
        wait_until(lambda: kept_open not in alive())
        assert alive() == {played["id"], done}

    # at start: a game untouched for 29 days is kept, for 31 days deleted; opening it
    # touches it; finished games stay
    clock.advance(27)
    lim_slow = Limits(keep_empty_days=1, keep_unfinished_days=30, expiry_interval=3600)
    with TestClient(create_app(db, workers=1, clock=clock, limits=lim_slow)) as client:
        assert client.app.state.expired == 0  # type: ignore[attr-defined]
        with client.websocket_connect("/ws/mattix") as ws:
            Conn(ws).join(played["id"])  # opening it counts as touching it
    clock.advance(29)
    with TestClient(create_app(db, workers=1, clock=clock, limits=lim_slow)) as client:
        assert client.app.state.expired == 0  # type: ignore[attr-defined]
    clock.advance(2)
    with TestClient(create_app(db, workers=1, clock=clock, limits=lim_slow)) as client:
        assert client.app.state.expired == 1  # type: ignore[attr-defined]
        assert client.get(f"/api/saved/{played['id']}").status_code == 404
        assert client.get(f"/api/saved/{done}").json()["state"]["board"]
    clock.advance(1000)
    store = GameStore(db, clock=clock)
    try:
        assert store.expire(30, 1) == 0 and store.count() == 1  # finished: kept
        store.save("legacy", "mattix", {"v": 1})  # status unknown (an older version's row)
        clock.advance(1000)
        assert store.expire(30, 1) == 0 and store.load("legacy") is not None
    finally:
        store.close()


# --------------------------------------------------------------------------- the CPU line


class Othello(Conn):
    def new_slow(self) -> Msg:
        """A new game whose first move is the slow CPU's (black)."""
        return self.new(players={"1": "slow", "2": "human"})


def test_cpu_moves_wait_in_a_bounded_line_and_are_told_their_place(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the slow level searches until it is stopped, however long the test takes
    monkeypatch.setattr(cpu_turns_module, "capped_limit",
                        lambda spec, **kw: capped_limit(spec, 3600, **kw))  # fmt: skip
    with small_app(tmp_path, max_queued_moves=2) as client:
        wait_engines_ready(client)  # (while they warm up, every move waits in line)
        socks = [client.websocket_connect("/ws/othello") for _ in range(4)]
        try:
            a, b, c, d = (Othello(s.__enter__()) for s in socks)
            for x in (a, b, c, d):
                x.join()
            first = a.new_slow()
            assert first["thinking"]["player"] == 1 and first["thinking"]["queue"] is None
            second = b.new_slow()
            assert second["thinking"]["queue"] == 1
            assert second["thinking"]["queue_message"] == (
                "the server is busy: you are 1st in line for an engine"
            )
            third = c.new_slow()
            assert third["thinking"]["queue"] == 2
            assert third["thinking"]["queue_message"].endswith("you are 2nd in line for an engine")
            # the line is full: d's CPU pauses with one line, and d's game is intact
            fourth = d.new_slow()
            assert d.until_error() == (
                "the server is busy: the line for an engine is full (2 waiting); the CPU "
                "is paused: press Resume to try again"
            )
            paused = d.next_state(lambda s: s["paused"])
            assert paused["id"] == fourth["id"] and paused["thinking"] is None
            assert paused["history"] == [] and paused["turn"] == 1
            health = client.get("/api/health").json()
            assert health["waiting"] == 2 and health["running"] == 1
            # b gives up its place: c moves up and is told so
            b.send({"type": "settings", "players": {"1": "human"}})
            b.next_state(lambda s: s["thinking"] is None)
            moved = c.until(lambda m: m["type"] == "queue")
            line = "the server is busy: you are 1st in line for an engine"
            assert moved == {"type": "queue", "position": 1, "message": line}
            # a's move is made: c's search starts (its state says it is no longer in line)
            a.send({"type": "stop"})
            assert len(a.next_state(lambda s: s["thinking"] is None)["history"]) == 1
            running = c.next_state(lambda s: s["thinking"] and s["thinking"]["queue"] is None)
            assert running["id"] == third["id"]
            c.send({"type": "stop"})
            assert len(c.next_state(lambda s: s["thinking"] is None)["history"]) == 1
            # d resumes: there is room now, and its CPU moves
            d.send({"type": "settings", "paused": False})
            d.next_state(lambda s: s["thinking"] is not None)
            d.send({"type": "stop"})
            assert len(d.next_state(lambda s: s["thinking"] is None)["history"]) == 1
        finally:
            for s in socks:
                s.__exit__(None, None, None)


# --------------------------------------------------------------------------- tsume


class Tsume(WsConn):
    limit = 20_000

    def until_type(self, *types: str) -> Msg:
        return self.until(lambda m: m["type"] in types)

    def refused(self, msg: Msg) -> str:
        self.send(msg)
        reply = self.until_type("error", "started", "queued", "result")
        assert reply["type"] == "error", reply
        text: str = reply["message"]
        assert "\n" not in text and len(text) < 300
        return text

    def status(self) -> Msg:
        self.send({"type": "status"})
        return self.until_type("status")


def test_tsume_solves_are_capped(tmp_path: Path) -> None:
    with small_app(tmp_path, max_queued_solves=3, max_solve_seconds=3000) as client:
        service = client.app.state.tsume  # type: ignore[attr-defined]
        # a and a2 are two tabs of one client
        where = {"a": "10.0.0.1", "a2": "10.0.0.1", "b": "10.0.0.2", "c": "10.0.0.3",
                 "d": "10.0.0.4", "e": "10.0.0.5"}  # fmt: skip
        conns = {
            name: client.websocket_connect("/ws/tsume", headers=address(addr))
            for name, addr in where.items()
        }
        try:
            t = {name: Tsume(ws.__enter__()) for name, ws in conns.items()}
            for x in t.values():
                hello = x.recv()
                assert hello["type"] == "hello" and hello["max_time"] == 3000
            a, a2, b, c, d, e = (t[k] for k in ("a", "a2", "b", "c", "d", "e"))
            # the longest time limit
            too_long = {"type": "solve", "sfen": ONE, "time": 3001}
            assert "to 3000 seconds (the server's limit)" in a.refused(too_long)
            a.send({"type": "solve", "sfen": MICROCOSMOS, "time": 3000})
            a.until_type("progress")
            # one solve per address, whichever tab asks
            assert a2.refused({"type": "solve", "sfen": ONE}) == (
                "you already have a solve running or waiting (in another tab or window): "
                "one at a time; cancel it there first"
            )
            assert a2.status() == {"type": "status", "running": False}
            # three wait in line, told their places
            b.send({"type": "solve", "sfen": MICROCOSMOS, "time": 3000})
            qb = b.until_type("queued")
            assert qb["position"] == 1
            assert qb["message"] == "the server is busy: you are 1st in line for a solver"
            c.send({"type": "solve", "sfen": ONE})
            assert c.until_type("queued")["position"] == 2
            e.send({"type": "solve", "sfen": ONE})
            qe = e.until_type("queued")
            assert qe["position"] == 3
            assert qe["message"] == "the server is busy: you are 3rd in line for a solver"
            # the line is full
            assert d.refused({"type": "solve", "sfen": ONE}) == (
                "the server is busy: the line for a solver is full (3 waiting); try again "
                "in a while"
            )
            assert d.status() == {"type": "status", "running": False}
            assert service.waiting == 3
            # c leaves the line: e moves up and is told so
            c.send({"type": "cancel"})
            assert c.until_type("result")["reason"] == "stopped"
            moved = e.until_type("queued", "started")
            assert moved["type"] == "queued" and moved["position"] == 2
            assert moved["message"] == "the server is busy: you are 2nd in line for a solver"
            # a's solve ends: b's starts, and e moves up again
            a.send({"type": "cancel"})
            assert a.until_type("result")["reason"] == "stopped"
            assert b.until_type("started")["sfen"] == MICROCOSMOS
            moved = e.until_type("queued", "started")
            assert moved["type"] == "queued" and moved["position"] == 1
            b.send({"type": "cancel"})
            assert b.until_type("result")["reason"] == "stopped"
            assert e.until_type("started")["sfen"] == ONE
            assert e.until_type("result")["status"] == "mate"
            # a is free to solve again, from its other tab
            a2.send({"type": "solve", "sfen": ONE})
            assert a2.until_type("result")["status"] == "mate"
        finally:
            for ws in conns.values():
                ws.__exit__(None, None, None)
        wait_until(lambda: service.running == 0 and service.waiting == 0)
        assert not service._clients


# --------------------------------------------------------------------------- a real server


@pytest.fixture(scope="module")
def real_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[int, Path]]:
    """``serve()`` on 127.0.0.1 and a free port, as ``banmen serve`` runs it; yields the
    port and the server's log file."""
    with served(tmp_path_factory.mktemp("real")) as running:
        yield running


def _raw(port: int, request: str) -> bytes:
    """Send ``request`` as is; the reply's first bytes (the server closes or answers)."""
    with socket.create_connection(("127.0.0.1", port), timeout=60) as s:
        s.sendall(request.encode())
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = s.recv(4096)
            if not chunk:
                break
            data += chunk
        return data


def _upgrade(port: int, host: str, origin: str) -> bytes:
    return _raw(
        port,
        f"GET /ws/mattix HTTP/1.1\r\nHost: {host}\r\nOrigin: {origin}\r\nUpgrade: websocket\r\n"
        "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
        "Sec-WebSocket-Version: 13\r\n\r\n",
    )


@pytest.mark.server
def test_a_real_server_refuses_foreign_hosts(real_server: tuple[int, Path]) -> None:
    port, _ = real_server
    evil = f"evil.example:{port}"
    with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=60) as http:
        for path in ("/", "/api/health", "/api/games", "/mattix"):
            assert http.get(path, headers={"host": evil}).status_code == 400, path
        for host in (f"127.0.0.1:{port}", f"localhost:{port}", f"[::1]:{port}", "localhost"):
            assert http.get("/api/games", headers={"host": host}).status_code == 200, host
    assert _upgrade(port, evil, f"http://{evil}").startswith(b"HTTP/1.1 400")
    ok = f"127.0.0.1:{port}"
    assert _upgrade(port, ok, f"http://{ok}").startswith(b"HTTP/1.1 101")
    assert _upgrade(port, ok, f"http://{evil}").startswith(b"HTTP/1.1 403")


@pytest.mark.server
def test_a_malformed_chunked_body_logs_one_line(real_server: tuple[int, Path]) -> None:
    port, log = real_server
    before = log.read_text(errors="replace")
    reply = _raw(
        port,
        f"POST /api/health HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
        "Transfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n",
    )
    assert reply.startswith(b"HTTP/1.1 400")

    def new_lines() -> list[str]:
        return log.read_text(errors="replace")[len(before) :].splitlines()

    wait_until(lambda: any("bad request" in line for line in new_lines()))
    with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=60) as http:
        assert http.get("/api/health").json()["ok"] is True
    # one line for the bad request: uvicorn's own, reworded; the app's late response that
    # fails on the closed connection (once a traceback) is not logged again
    lines = [line for line in new_lines() if not line.startswith("banmen: engines ready")]
    assert lines == ["WARNING:  bad request: not valid HTTP (answered 400)"], lines


def test_health_reports_the_limits(tmp_path: Path) -> None:
    with small_app(tmp_path, max_sessions=7) as client:
        health = client.get("/api/health").json()
        assert health["limits"]["max_sessions"] == 7
        assert health["limits"] == {**Limits().to_dict(), "max_sessions": 7}
        assert json.dumps(health)  # plain JSON


# --------------------------------------------------------------------------- in a browser


@pytest.fixture(scope="module")
def slow_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real server with one engine worker and the slow CPU level (its move cap raised,
    so it thinks until stopped); yields its base URL."""
    from banmen.web.launch import free_port, stop, wait_ready

    tmp = tmp_path_factory.mktemp("slow")
    port = free_port()
    code = (
        "import banmen.web.cpu_turns as s; from banmen.web.levels import capped_limit; "
        "s.capped_limit = lambda spec, **kw: capped_limit(spec, 3600, **kw); "
        "from banmen.web.server import create_app, run_uvicorn; "
        f"run_uvicorn(create_app({str(tmp / 'games.sqlite3')!r}, 1, extra_levels={SLOW!r}), "
        f"'127.0.0.1', {port})"
    )
    log = tmp / "server.log"
    with log.open("wb") as out:
        proc = subprocess.Popen([sys.executable, "-c", code], stdout=out, stderr=subprocess.STDOUT)
    try:
        wait_ready(f"http://127.0.0.1:{port}", proc, log, timeout=120)
        yield f"http://127.0.0.1:{port}"
    finally:
        stop(proc)


@pytest.mark.browser
def test_a_page_shows_its_place_in_line(browser: Any, slow_server: str) -> None:
    from browser_tab import BrowserTab

    tabs = [BrowserTab(browser, slow_server) for _ in range(2)]
    try:
        for tab in tabs:
            tab.goto("/othello")
            tab.wait_phase("human", "cpu", "paused", "over")
            tab.both_human()
        first, second = (t.page for t in tabs)

        def status(page: Any) -> str:
            text: str = page.text_content("#status")
            return text

        # black (to move) becomes the slow CPU on the first page: it takes the engine
        first.select_option("#level-1", "slow")
        first.wait_for_function("() => document.getElementById('status').textContent"
                                ".includes('thinking')")  # fmt: skip
        # on the second page it has to wait, and the status line says where it stands
        second.select_option("#level-1", "slow")
        line = "the server is busy: you are 1st in line for an engine"
        second.wait_for_function(
            "(line) => document.getElementById('status').textContent === line", arg=line
        )
        assert status(second) == line
        # its CPU panel says it waits, not that it thinks
        assert second.text_content("#think-head") == "Black (CPU slow) waits for an engine…"
        # the first CPU is made to move: the second one's search starts
        first.click("#stop")
        second.wait_for_function("() => document.getElementById('status').textContent"
                                 ".includes('thinking')")  # fmt: skip
        assert "in line" not in status(second)
        second.wait_for_function("() => document.getElementById('think-head').textContent"
                                 ".includes('is thinking')")  # fmt: skip
        second.click("#stop")
        second.wait_for_function("() => document.getElementById('stop').disabled")
        for tab in tabs:
            assert tab.errors == [], tab.errors
    finally:
        for tab in tabs:
            tab.close()

"""No one client may stall the web server for the others (issue 32, items 3, 4 and 10a;
issue 36, item 7), checked against a real uvicorn server (``serve()`` in a subprocess,
small limits):

- a WebSocket flooding ``{`` frames (50,000 in one write, on ``/ws/mattix`` and
  ``/ws/tsume``) gets one error per frame up to its budget, then one line saying so and a
  close (1008); meanwhile another client's ``GET /`` stays near its idle latency, and a
  game socket opened before keeps its game; the log gets one line for it;
- a socket that sends a flood of 47 KB Go records to load (one longer than any game, and
  legal 19x19 records of a game's length) gets a one-line error or a new game for each,
  while another client's ``GET /`` stays near its idle latency: records are read and
  replayed off the event loop, and one longer than a game is refused before its replay;
- a socket that stays within its budget (a burst just under it) is never cut;
- connections that open and send half a request head, or nothing, are closed after the
  head timeout (the half-sent ones with a one-line 408), the longest-waiting first when
  too many wait; a slow but complete head is served; meanwhile ``GET /`` stays near idle;
- a WebSocket with a foreign Host gets its 400 each time, and the log one warning line.

Latency bounds are relative to an idle baseline measured in the same test, and generous
(the suite runs beside busy loops on a 2-core machine): nothing here asserts a wall time
alone.
"""

from __future__ import annotations

import base64
import json
import os
import socket
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import go_long
import httpx
import pytest
from conftest import served

from banmen.games import go
from banmen.web.limits import Limits

pytestmark = [pytest.mark.server, pytest.mark.timeout(300)]

#: the limits the server of these tests runs with (the rest are the defaults)
LIMITS = {"request_head_timeout": 2.0, "max_waiting_connections": 40}
FLOOD = 50_000


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[int, Path]]:
    """``serve()`` with :data:`LIMITS`, as ``banmen serve --limit ...`` runs it; yields the
    port and the server's log file."""
    with served(tmp_path_factory.mktemp("fair"), limits=LIMITS) as running:
        yield running


# --------------------------------------------------------------------------- helpers


class Latency:
    """``GET /`` about every 20 ms on a thread of its own, timing each (seconds)."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.times: list[float] = []
        self.failures: list[str] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        with httpx.Client(base_url=f"http://127.0.0.1:{self.port}", timeout=60) as http:
            while not self._stop.is_set():
                t0 = time.perf_counter()
                try:
                    status = http.get("/").status_code
                except httpx.HTTPError as e:
                    self.failures.append(repr(e))
                else:
                    if status == 200:
                        self.times.append(time.perf_counter() - t0)
                    else:
                        self.failures.append(f"status {status}")
                self._stop.wait(0.02)

    def __enter__(self) -> Latency:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=120)

    def p95(self) -> float:
        s = sorted(self.times)
        assert s, "no GET / was answered"
        return s[min(len(s) - 1, int(0.95 * len(s)))]


def idle_p95(port: int, seconds: float = 1.5) -> float:
    with Latency(port) as lat:
        time.sleep(seconds)
    assert not lat.failures, lat.failures
    return lat.p95()


def assert_near_idle(lat: Latency, idle: float) -> None:
    """``GET /`` under load: all answered, p95 within a generous multiple of idle."""
    assert not lat.failures, lat.failures[:5]
    assert len(lat.times) >= 5, lat.times
    bound = max(10 * idle, idle + 1.5)
    assert lat.p95() < bound, (lat.p95(), idle, sorted(lat.times)[-5:])


def ws_open(port: int, path: str) -> socket.socket:
    """A WebSocket on ``path`` over a raw socket, handshake done."""
    s = socket.create_connection(("127.0.0.1", port), timeout=60)
    key = base64.b64encode(os.urandom(16)).decode()
    s.sendall(
        f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
        f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
        "Sec-WebSocket-Version: 13\r\n\r\n".encode()
    )
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = s.recv(1)
        assert chunk, f"closed during the handshake: {head!r}"
        head += chunk
    assert head.startswith(b"HTTP/1.1 101"), head
    return s


def frame(payload: bytes) -> bytes:
    """One masked (zero key) client text frame."""
    n = len(payload)
    if n <= 125:
        head = bytes([0x81, 0x80 | n])
    elif n < 1 << 16:
        head = bytes([0x81, 0x80 | 126]) + n.to_bytes(2, "big")
    else:
        head = bytes([0x81, 0x80 | 127]) + n.to_bytes(8, "big")
    return head + b"\0\0\0\0" + payload


class Frames:
    """The server's frames on a raw WebSocket: its text messages and its close."""

    def __init__(self, s: socket.socket) -> None:
        self.s = s
        self.buf = b""
        self.close: tuple[int, str] | None = None

    def _next(self) -> tuple[int, bytes] | None:
        while True:
            b = self.buf
            n, at = (b[1] & 0x7F, 2) if len(b) >= 2 else (0, 99)
            if n == 126:
                n, at = (int.from_bytes(b[2:4], "big"), 4) if len(b) >= 4 else (0, 99)
            elif n == 127:
                n, at = (int.from_bytes(b[2:10], "big"), 10) if len(b) >= 10 else (0, 99)
            if len(b) >= at + n:
                self.buf = b[at + n :]
                return b[0] & 0x0F, b[at : at + n]
            try:
                chunk = self.s.recv(1 << 16)
            except OSError:
                chunk = b""
            if not chunk:
                return None
            self.buf += chunk

    def messages(self, until: Callable[[list[dict[str, Any]]], bool]) -> list[dict[str, Any]]:
        """Text messages until ``until`` holds of them or the server closes (its close
        answered, pings too)."""
        out: list[dict[str, Any]] = []
        while not until(out):
            got = self._next()
            if got is None:
                break
            op, body = got
            if op == 1:
                out.append(json.loads(body))
            elif op == 9:
                self.s.sendall(bytes([0x8A, 0x80 | len(body)]) + b"\0\0\0\0" + body)
            elif op == 8:
                self.close = (int.from_bytes(body[:2], "big"), body[2:].decode())
                self.s.sendall(b"\x88\x80\0\0\0\0")
                break
        return out


def new_lines(log: Path, before: str) -> list[str]:
    return log.read_text(errors="replace")[len(before) :].splitlines()


def wait_until(pred: Callable[[], bool], timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not pred():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def health(port: int) -> dict[str, Any]:
    r = httpx.get(f"http://127.0.0.1:{port}/api/health", timeout=60)
    data: dict[str, Any] = r.json()
    return data


# --------------------------------------------------------------------------- floods


def test_a_websocket_flood_is_cut_and_starves_nobody(server: tuple[int, Path]) -> None:
    port, log = server
    lim = Limits()
    before = log.read_text(errors="replace")
    # a game page, open before the flood: its game must be untouched after it
    page = ws_open(port, "/ws/mattix")
    page.sendall(frame(b'{"type":"join"}'))
    seen = Frames(page)
    state = seen.messages(lambda m: any(x["type"] == "state" for x in m))[-1]
    assert state["type"] == "state"
    idle = idle_p95(port)

    for path in ("/ws/mattix", "/ws/tsume"):
        flooder = ws_open(port, path)
        replies: list[dict[str, Any]] = []
        got = Frames(flooder)

        def read(got: Frames = got, replies: list[dict[str, Any]] = replies) -> None:
            replies += got.messages(lambda xs: len(xs) > FLOOD)

        with Latency(port) as lat:
            time.sleep(0.2)
            reader = threading.Thread(target=read)
            reader.start()
            try:
                flooder.sendall(frame(b"{") * FLOOD)
            except OSError:
                pass  # closed while sending: the cut came first
            reader.join(timeout=120)
            time.sleep(0.3)
        flooder.close()
        assert_near_idle(lat, idle)
        errors = [m for m in replies if m["type"] == "error"]
        # every frame within the budget got its error, then the one line about the flood
        assert got.close == (1008, "too many messages"), (got.close, len(replies))
        assert errors[-1]["message"].startswith("too many messages: a connection may send 500")
        assert "\n" not in errors[-1]["message"]
        # (the budget refills at message_rate while the burst is served)
        assert lim.message_burst <= len(errors) - 1 <= 2 * lim.message_burst, len(errors)
        assert all("JSON" in e["message"] for e in errors[:-1]), errors[0]

    # nothing else changed: the page keeps its game and its socket, the server its count
    page.sendall(frame(json.dumps({"type": "join", "id": state["id"]}).encode()))
    again = seen.messages(lambda m: any(x["type"] == "state" for x in m))[-1]
    assert again["id"] == state["id"] and again["history"] == state["history"]
    wait_until(lambda: health(port)["connections"] == 1)
    page.close()
    # one log line for both floods (the second is counted, not logged)
    lines = [ln for ln in new_lines(log, before) if "too many" in ln or "budget" in ln]
    assert len(lines) == 1, lines
    assert "closed a WebSocket on /ws/mattix from 127.0.0.1: over its message budget" in lines[0]
    assert not [ln for ln in new_lines(log, before) if "ERROR" in ln or "Traceback" in ln]


#: Go loads one socket sends at once: the 47 KB record no game is as long as, and a legal
#: 19x19 record just within a game's length (issue 36, item 7)
LONG_LOADS, NEAR_CAP_LOADS = 12, 4


def test_a_flood_of_go_loads_starves_nobody(server: tuple[int, Path]) -> None:
    port, log = server
    before = log.read_text(errors="replace")
    cap = go.GAME.max_plies
    near = go_long.first_moves(cap - 3)
    # another client's game, open before the flood: untouched after it
    page = ws_open(port, "/ws/go")
    page.sendall(frame(b'{"type":"join"}'))
    seen = Frames(page)
    state = seen.messages(lambda m: any(x["type"] == "state" for x in m))[-1]
    idle = idle_p95(port)

    flooder = ws_open(port, "/ws/go")
    got = Frames(flooder)
    flooder.sendall(frame(b'{"type":"join"}'))
    got.messages(lambda m: any(x["type"] == "state" for x in m))
    humans = {"type": "settings", "players": {"1": "human", "2": "human"}}  # no CPU moves
    flooder.sendall(frame(json.dumps(humans).encode()))
    got.messages(lambda m: any(x["type"] == "state" for x in m))
    texts = [go_long.long_record()] * LONG_LOADS + [near] * NEAR_CAP_LOADS
    frames = [frame(json.dumps({"type": "load", "text": t}).encode()) for t in texts]
    replies: list[dict[str, Any]] = []

    def send() -> None:
        for f in frames[::2] + frames[1::2]:  # the long ones and the near ones mixed
            flooder.sendall(f)

    def answered(m: list[dict[str, Any]]) -> bool:
        return sum(x["type"] in ("error", "state") for x in m) >= len(frames)

    with Latency(port) as lat:
        time.sleep(0.2)
        sender = threading.Thread(target=send)
        sender.start()
        replies += got.messages(answered)
        sender.join(timeout=120)
        time.sleep(0.3)
    flooder.close()
    assert_near_idle(lat, idle)
    errors = [m["message"] for m in replies if m["type"] == "error"]
    states = [m for m in replies if m["type"] == "state"]
    too_long = f"the record has {go_long.LONG_MOVES} moves: at most {cap} are taken"
    assert errors == [too_long] * LONG_LOADS, errors[:3]
    assert len(states) == NEAR_CAP_LOADS and all(len(s["history"]) == cap - 3 for s in states)
    assert len({s["id"] for s in states}) == NEAR_CAP_LOADS  # each load a new game
    # nothing else changed: the page keeps its game
    page.sendall(frame(json.dumps({"type": "join", "id": state["id"]}).encode()))
    again = seen.messages(lambda m: any(x["type"] == "state" for x in m))[-1]
    assert again["id"] == state["id"] and again["history"] == state["history"]
    page.close()
    assert not [ln for ln in new_lines(log, before) if "ERROR" in ln or "Traceback" in ln]


def test_a_burst_within_the_budget_is_served_whole(server: tuple[int, Path]) -> None:
    port, _ = server
    n = Limits().message_burst - 20  # a page never sends this many at once
    s = ws_open(port, "/ws/mattix")
    try:
        got = Frames(s)
        s.sendall(frame(b'{"type":"join"}') + frame(b'{"type":"nonsense"}') * n)
        msgs = got.messages(lambda m: sum(x["type"] == "error" for x in m) >= n)
        assert got.close is None
        assert sum(m["type"] == "error" for m in msgs) == n
        assert all("unknown message type" in m["message"] for m in msgs if m["type"] == "error")
        s.sendall(frame(b'{"type":"join"}'))  # still served
        assert got.messages(lambda m: bool(m))[0]["type"] == "state"
    finally:
        s.close()


# --------------------------------------------------------------------------- slowloris


def _open(port: int, send: bytes) -> socket.socket:
    s = socket.create_connection(("127.0.0.1", port), timeout=60)
    if send:
        s.sendall(send)
    return s


def _answer(s: socket.socket) -> bytes:
    """What the server sends before it closes (b"" for a close without an answer)."""
    s.settimeout(60)
    data = b""
    while True:
        try:
            chunk = s.recv(4096)
        except ConnectionResetError:
            return data
        if not chunk:
            return data
        data += chunk


def test_half_sent_request_heads_time_out(server: tuple[int, Path]) -> None:
    port, log = server
    timeout, cap = LIMITS["request_head_timeout"], int(LIMITS["max_waiting_connections"])
    before = log.read_text(errors="replace")
    idle = idle_p95(port)
    half = b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: slo"
    with Latency(port) as lat:
        time.sleep(0.2)
        silent = [_open(port, b"") for _ in range(5)]
        halves = [_open(port, half) for _ in range(2 * cap)]
        # a slow client whose head arrives whole within the time limit is served
        slow = _open(port, b"")
        for piece in (b"GET /api/games HTTP/1.1\r\n", b"Host: 127.0.0.1\r\n", b"\r\n"):
            time.sleep(timeout / 8)
            slow.sendall(piece)
        reply = slow.recv(4096)
        assert reply.startswith(b"HTTP/1.1 200"), reply[:80]
        answers = [_answer(s) for s in silent + halves]
    slow.close()
    for s in silent + halves:
        s.close()
    assert_near_idle(lat, idle)
    # The first to wait, the silent ones first, were closed to make room, without a
    # word; the rest timed out: the half-sent ones with a one-line 408.
    assert answers[:5] == [b""] * 5
    timed_out = [a for a in answers[5:] if a]
    assert all(a.startswith(b"HTTP/1.1 408 Request Timeout\r\n") for a in timed_out)
    body = timed_out[0].split(b"\r\n\r\n", 1)[1]
    assert body == b"request timeout: the request head did not arrive whole within 2 s\n"
    assert cap // 2 <= len(timed_out) <= cap, len(timed_out)
    assert answers[5 : 5 + cap] == [b""] * cap  # the oldest half-sent ones: evicted
    # nothing else changed: a new request is served; one log line per kind
    assert health(port)["ok"] is True
    lines = new_lines(log, before)
    assert len([ln for ln in lines if "no whole request head" in ln]) == 1, lines
    assert len([ln for ln in lines if "that waited for a request head" in ln]) == 1, lines
    assert not [ln for ln in lines if "ERROR" in ln or "Traceback" in ln]


# --------------------------------------------------------------------------- the log


def test_a_foreign_host_websocket_logs_one_line(server: tuple[int, Path]) -> None:
    port, log = server
    before = log.read_text(errors="replace")
    for _ in range(20):
        s = _open(
            port,
            f"GET /ws/mattix HTTP/1.1\r\nHost: evil.example:{port}\r\nUpgrade: websocket\r\n"
            "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
            "Sec-WebSocket-Version: 13\r\n\r\n".encode(),
        )
        assert _answer(s).startswith(b"HTTP/1.1 400"), "the answer is unchanged"
        s.close()
    assert health(port)["ok"] is True
    lines = new_lines(log, before)
    assert [ln for ln in lines if "refused a WebSocket" in ln] == [
        f"refused a WebSocket on '/ws/mattix' from 127.0.0.1 with 400 (Host 'evil.example:{port}')"
    ], lines
    assert not [ln for ln in lines if "ERROR" in ln or "handshake" in ln], lines

"""Can one client stall the web server for the others? A measurement (issue 32, items 3-4).

Starts ``banmen serve`` (``serve()``, one engine worker, a temporary database) on a free
port and times ``GET /`` from a second client, about every 20 ms:

- idle: nothing else happens;
- flood: a WebSocket on ``--path`` (``/ws/mattix``) sends ``--frames`` (50,000) text
  frames of ``{`` in one write (7 bytes each, masked with a zero key) and reads whatever
  comes back; the phase lasts until the flooder's socket is closed or every frame has its
  reply, and at least ``--min-phase`` seconds;
- slowloris: ``--half`` (300) connections each send half a request head and stop; the
  phase lasts ``--hold`` (15) seconds, and counts how many of them the server still holds
  open at its end.

Figures per phase: the ``GET /`` round trips (median / p95 / max, ms), the server's own
event-loop lag (``/api/health``'s ``loop_lag_ms.max_ms`` over its last 10 s), and the
phase's own counts. It reads only ``banmen.web.launch`` and ``/api/health``, so it runs
against any tree; alternate the trees:

    for t in OLD NEW OLD NEW; do PYTHONPATH=$t/src python tools/web_flood_probe.py; done
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx

from banmen.web.launch import free_port, stop, wait_ready


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    s = sorted(values)
    return s[min(len(s) - 1, max(0, int(round(q / 100 * len(s) + 0.5)) - 1))]


def _summary(times: list[float]) -> dict[str, Any]:
    ms = [t * 1000 for t in times]
    return {
        "gets": len(ms),
        "median_ms": round(_percentile(ms, 50), 1),
        "p95_ms": round(_percentile(ms, 95), 1),
        "max_ms": round(max(ms, default=0.0), 1),
    }


class Poller:
    """``GET /`` about every ``pause`` seconds on a thread of its own, timing each."""

    def __init__(self, base: str, pause: float = 0.02) -> None:
        self.base, self.pause = base, pause
        self.times: list[float] = []
        self.failures = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        with httpx.Client(base_url=self.base, timeout=60) as http:
            while not self._stop.is_set():
                t0 = time.perf_counter()
                try:
                    ok = http.get("/").status_code == 200
                except httpx.HTTPError:
                    ok = False
                if ok:
                    self.times.append(time.perf_counter() - t0)
                else:
                    self.failures += 1
                self._stop.wait(self.pause)

    def __enter__(self) -> Poller:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


def loop_lag_ms(base: str) -> float:
    with httpx.Client(base_url=base, timeout=60) as http:
        return float(http.get("/api/health").json()["loop_lag_ms"]["max_ms"])


def ws_open(port: int, path: str) -> socket.socket:
    """A WebSocket on ``path``, handshake done (raw socket, no library in the way)."""
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
        if not chunk:
            raise RuntimeError("the server closed the WebSocket handshake")
        head += chunk
    if not head.startswith(b"HTTP/1.1 101"):
        raise RuntimeError(f"no WebSocket: {head[:80]!r}")
    return s


def text_frame(payload: bytes) -> bytes:
    """One masked (zero key) client text frame of at most 125 bytes."""
    assert len(payload) <= 125
    return bytes([0x81, 0x80 | len(payload)]) + b"\0\0\0\0" + payload


def read_frames(s: socket.socket, expect: int) -> tuple[int, int | None, str]:
    """Read server frames until the socket closes or ``expect`` text frames came (pings
    answered): (text frames, close code, reason)."""
    buf = b""
    texts, code, reason = 0, None, ""
    while texts < expect:
        try:
            chunk = s.recv(1 << 16)
        except OSError:
            chunk = b""
        if not chunk:
            return texts, code, reason
        buf += chunk
        while len(buf) >= 2:
            op, n = buf[0] & 0x0F, buf[1] & 0x7F
            at = 2
            if n == 126:
                if len(buf) < 4:
                    break
                n, at = int.from_bytes(buf[2:4], "big"), 4
            elif n == 127:
                if len(buf) < 10:
                    break
                n, at = int.from_bytes(buf[2:10], "big"), 10
            if len(buf) < at + n:
                break
            body, buf = buf[at : at + n], buf[at + n :]
            if op == 1:
                texts += 1
            elif op == 9:
                s.sendall(bytes([0x8A, 0x80 | len(body)]) + b"\0\0\0\0" + body)
            elif op == 8:
                code = int.from_bytes(body[:2], "big") if len(body) >= 2 else None
                reason = body[2:].decode(errors="replace")
                try:
                    s.sendall(b"\x88\x80\0\0\0\0")  # our close, so the server may hang up
                except OSError:
                    pass
    return texts, code, reason


def flood(
    base: str, port: int, path: str, frames: int, min_phase: float, read: bool
) -> dict[str, Any]:
    s = ws_open(port, path)
    result: dict[str, Any] = {}

    def reader() -> None:
        if read:
            got = read_frames(s, frames)
            result["replies"], result["close_code"], result["close_reason"] = got

    with Poller(base) as poll:
        time.sleep(0.3)
        t0 = time.perf_counter()
        t = threading.Thread(target=reader, daemon=True)
        t.start()
        try:
            s.sendall(text_frame(b"{") * frames)
        except OSError as e:
            result["send_error"] = type(e).__name__
        t.join(timeout=300)
        result["flood_s"] = round(time.perf_counter() - t0, 2)
        rest = min_phase - (time.perf_counter() - t0)
        if rest > 0:
            time.sleep(rest)
    s.close()
    return {
        "phase": f"flood {frames} frames on {path}" + ("" if read else ", replies unread"),
        **_summary(poll.times),
        "failed_gets": poll.failures,
        "loop_lag_max_ms": loop_lag_ms(base),
        **result,
    }


def still_open(s: socket.socket) -> bool:
    s.setblocking(False)
    try:
        while s.recv(4096):  # an answer (a 408, say), then the close
            pass
        return False
    except BlockingIOError:
        return True
    except OSError:
        return False


def slowloris(base: str, port: int, half: int, hold: float) -> dict[str, Any]:
    socks = []
    with Poller(base) as poll:
        time.sleep(0.3)
        for _ in range(half):
            try:
                s = socket.create_connection(("127.0.0.1", port), timeout=10)
                s.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: slo")
                socks.append(s)
            except OSError:
                pass
        time.sleep(hold)
    open_at_end = sum(still_open(s) for s in socks)
    for s in socks:
        s.close()
    return {
        "phase": f"{half} half-sent request heads held {hold:g} s",
        **_summary(poll.times),
        "failed_gets": poll.failures,
        "loop_lag_max_ms": loop_lag_ms(base),
        "connected": len(socks),
        "still_open": open_at_end,
    }


def idle(base: str, seconds: float) -> dict[str, Any]:
    with Poller(base) as poll:
        time.sleep(seconds)
    return {"phase": "idle", **_summary(poll.times), "loop_lag_max_ms": loop_lag_ms(base)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--path", default="/ws/mattix")
    ap.add_argument("--frames", type=int, default=50_000)
    ap.add_argument("--min-phase", type=float, default=3.0)
    ap.add_argument("--half", type=int, default=300)
    ap.add_argument("--hold", type=float, default=15.0)
    ap.add_argument("--no-read", action="store_true", help="the flooder never reads its replies")
    args = ap.parse_args()
    import banmen

    with tempfile.TemporaryDirectory() as tmp:
        port = free_port()
        code = (
            "from banmen.web.server import serve; "
            f"serve(port={port}, db={str(Path(tmp) / 'games.sqlite3')!r}, workers=1)"
        )
        log = Path(tmp) / "server.log"
        with log.open("wb") as out:
            proc = subprocess.Popen(
                [sys.executable, "-c", code], stdout=out, stderr=subprocess.STDOUT
            )
        base = f"http://127.0.0.1:{port}"
        try:
            wait_ready(base, proc, log, timeout=180)
            rows = [idle(base, 3.0)]
            rows.append(flood(base, port, args.path, args.frames, args.min_phase, not args.no_read))
            rows.append(idle(base, 3.0))
            rows.append(slowloris(base, port, args.half, args.hold))
        finally:
            stop(proc)
        lines = log.read_text(errors="replace").splitlines()
    out = {
        "tree": str(Path(banmen.__file__).parents[1]),
        "load": os.getloadavg(),
        "server_log_lines": len(lines),
        "rows": rows,
    }
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()

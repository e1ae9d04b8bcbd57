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

- go-loads (``--go-loads N``, issue 36 item 7): a WebSocket on ``/ws/go`` sends N ``load``
  messages of a 47 KB SGF record (``--sgf``, default :data:`LONG_SGF`: 9,392 moves, black
  filling the 19x19 board and white taking it all, again and again — a legal record; made
  by :func:`long_sgf`), all in one go, and reads the replies; the phase lasts until every
  load has its reply (an error or a new game's state).

Figures per phase: the ``GET /`` round trips (median / p95 / max, ms), the server's own
event-loop lag (``/api/health``'s ``loop_lag_ms.max_ms`` over its last 10 s), and the
phase's own counts. It reads only ``banmen.web.launch`` and ``/api/health``, so it runs
against any tree; alternate the trees:

    for t in OLD NEW OLD NEW; do PYTHONPATH=$t/src python tools/web_flood_probe.py; done
    PYTHONPATH=$t/src python tools/web_flood_probe.py --phases idle,go-loads --go-loads 20
    PYTHONPATH=$t/src python tools/web_flood_probe.py --phases idle,go-loads --go-loads 100 \
        --moves 1077    # a legal record a game may be: loaded, each a new game

``python tools/web_flood_probe.py --write-sgf FILE`` writes :func:`long_sgf`'s record (how
:data:`LONG_SGF` was made).
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

#: the record the go-loads phase sends (tests/web/test_web_fairness.py sends it too)
LONG_SGF = Path(__file__).resolve().parents[1] / "tests" / "data" / "go" / "long-captures-47k.sgf"


def long_sgf(target: int = 47_000, size: int = 19) -> str:
    """A legal Go record of about ``target`` characters: black fills the board but one
    point (white passing), white plays there and takes every black stone, then the same
    around another point, and so on. Each capture changes the whole board, which is what
    makes its replay slow (banmen's board keeps every position for superko)."""
    from banmen.games import go
    from banmen.games.go.formats import sgf_point

    board = go.Board(size, go.CHINESE, 7.5)
    points = list(board.points)
    head = f"(;GM[1]FF[4]SZ[{size}]KM[7.5]RU[Chinese]GC[tools/web_flood_probe.py long_sgf]"
    nodes: list[str] = []
    length, cycle, keep = len(head) + 1, 0, points[0]
    while length < target:
        grid = board.grid()
        fill = next(p for p in points if p != keep and grid[p] == go.EMPTY)
        board.push(fill)
        nodes.append(f";B[{sgf_point(fill, size)}]")
        grid = board.grid()
        if all(grid[q] != go.EMPTY for q in points if q != keep):
            board.push(keep)  # white takes the lot
            nodes.append(f";W[{sgf_point(keep, size)}]")
            cycle += 1
            keep = points[(cycle * 37) % len(points)]
        else:
            board.push(go.PASS)
            nodes.append(";W[]")
        length += len(nodes[-2]) + len(nodes[-1])
    return head + "".join(nodes) + ")"


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
    """One masked (zero key) client text frame."""
    n = len(payload)
    if n <= 125:
        head = bytes([0x81, 0x80 | n])
    elif n < 1 << 16:
        head = bytes([0x81, 0x80 | 126]) + n.to_bytes(2, "big")
    else:
        head = bytes([0x81, 0x80 | 127]) + n.to_bytes(8, "big")
    return head + b"\0\0\0\0" + payload


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


def read_messages(s: socket.socket, until: Any) -> list[dict[str, Any]]:
    """The server's text messages (JSON) until ``until(messages)`` holds or it closes
    (pings answered)."""
    buf = b""
    out: list[dict[str, Any]] = []
    while not until(out):
        while len(buf) >= 2:
            op, n, at = buf[0] & 0x0F, buf[1] & 0x7F, 2
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
                out.append(json.loads(body))
            elif op == 9:
                s.sendall(bytes([0x8A, 0x80 | len(body)]) + b"\0\0\0\0" + body)
            elif op == 8:
                return out
            if until(out):
                return out
        try:
            chunk = s.recv(1 << 16)
        except OSError:
            chunk = b""
        if not chunk:
            return out
        buf += chunk
    return out


def go_loads(base: str, port: int, sgf: str, n: int, min_phase: float) -> dict[str, Any]:
    """One socket on /ws/go sends ``n`` loads of ``sgf`` at once (its players set to two
    humans first, so no CPU moves); the phase lasts until each has its reply."""
    s = ws_open(port, "/ws/go")
    s.sendall(text_frame(b'{"type": "join"}'))
    read_messages(s, lambda m: any(x.get("type") == "state" for x in m))
    humans = {"type": "settings", "players": {"1": "human", "2": "human"}}
    s.sendall(text_frame(json.dumps(humans).encode()))
    read_messages(s, lambda m: any(x.get("type") == "state" for x in m))
    load = text_frame(json.dumps({"type": "load", "text": sgf}).encode())
    replies: list[dict[str, Any]] = []

    def answered(m: list[dict[str, Any]]) -> bool:
        return sum(x.get("type") in ("error", "state") for x in m) >= n

    def send() -> None:
        try:
            for _ in range(n):
                s.sendall(load)
        except OSError:
            pass

    with Poller(base) as poll:
        time.sleep(0.3)
        t0 = time.perf_counter()
        sender = threading.Thread(target=send, daemon=True)
        sender.start()
        replies = read_messages(s, answered)
        took = time.perf_counter() - t0
        rest = min_phase - took
        if rest > 0:
            time.sleep(rest)
    s.close()
    errors = [m["message"] for m in replies if m.get("type") == "error"]
    kinds = sorted(set(errors))
    return {
        "phase": f"{n} Go loads of {len(sgf):,} characters on /ws/go, one socket",
        **_summary(poll.times),
        "failed_gets": poll.failures,
        "loop_lag_max_ms": loop_lag_ms(base),
        "loads_s": round(took, 2),
        "states": sum(m.get("type") == "state" for m in replies),
        "errors": {k[:100]: errors.count(k) for k in kinds},
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
    ap.add_argument("--go-loads", type=int, default=20, help="loads in the go-loads phase")
    ap.add_argument("--sgf", type=Path, default=LONG_SGF, help="the record the loads send")
    ap.add_argument("--moves", type=int, help="cut the record after this many moves")
    ap.add_argument(
        "--phases",
        default="idle,flood,idle,slowloris",
        help="comma-separated, in order: idle, flood, slowloris, go-loads",
    )
    ap.add_argument("--write-sgf", type=Path, help="write long_sgf()'s record there and stop")
    args = ap.parse_args()
    if args.write_sgf is not None:
        args.write_sgf.write_text(long_sgf() + "\n")
        return
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
            rows = []
            for phase in args.phases.split(","):
                if phase == "idle":
                    rows.append(idle(base, 3.0))
                elif phase == "flood":
                    read = not args.no_read
                    rows.append(flood(base, port, args.path, args.frames, args.min_phase, read))
                elif phase == "slowloris":
                    rows.append(slowloris(base, port, args.half, args.hold))
                elif phase == "go-loads":
                    sgf = args.sgf.read_text().strip()
                    if args.moves is not None:  # "(;root;B[..];W[];...)" cut after N moves
                        root, *moves = sgf[1:-1].split(";")[1:]
                        sgf = "(;" + ";".join([root, *moves[: args.moves]]) + ")"
                    rows.append(go_loads(base, port, sgf, args.go_loads, args.min_phase))
                else:
                    ap.error(f"unknown phase {phase!r}: expected idle, flood, slowloris, go-loads")
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

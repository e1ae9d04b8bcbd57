"""The web server's event loop never imports nor compiles a kernel while it serves.

``banmen serve`` loads the compiled code its boards run before it serves
(``web.server.load_boards``), and every search runs in an engine worker; ``/api/health``
reports what the server's own process imported and what numba compiled in it since it
began to serve. This drives a real server (a subprocess, as ``banmen serve`` runs it)
through every page and every kind of message of every game, then reads that report.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from conftest import served
from websockets.sync.client import ClientConnection, connect

pytestmark = pytest.mark.server

#: modules whose import on the event loop would stall it (numba alone: ~0.3 s)
HEAVY = ("banmen", "numba", "llvmlite", "numpy", "scipy", "matplotlib", "cshogi")
SH = "3sks3/9/4+P4/9/9/9/9/9/9 b 2G2r2b2g2s4n4l17p 1"


@pytest.fixture(scope="module")
def port(tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    with served(tmp_path_factory.mktemp("discipline")) as (port, _):
        yield port


def _socket(port: int, path: str) -> ClientConnection:
    return connect(f"ws://127.0.0.1:{port}{path}", origin=f"http://127.0.0.1:{port}",
                   open_timeout=60)  # fmt: skip


def _until(ws: ClientConnection, pred: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    for _ in range(5000):
        msg: dict[str, Any] = json.loads(ws.recv(timeout=120))
        if pred(msg):
            return msg
    raise AssertionError("no such message")


def _state(ws: ClientConnection, msg: dict[str, Any]) -> dict[str, Any]:
    ws.send(json.dumps(msg))
    return _until(ws, lambda m: m["type"] in ("state", "error"))


def test_serving_every_page_and_message_loads_nothing(port: int, tmp_path: Path) -> None:
    base = f"http://127.0.0.1:{port}"
    with httpx.Client(base_url=base, timeout=120) as http:
        for path in ("/", "/mattix", "/othello", "/go", "/tsume", "/arena", "/viz",
                     "/api/games", "/api/arena/runs", "/api/arena/train",
                     "/api/viz/walkthroughs",
                     f"/api/tsume/sfen?sfen={SH}"):  # fmt: skip
            assert http.get(path).status_code == 200, path
        walk = next(iter(http.get("/api/viz/walkthroughs").json()))
        assert http.get("/api/viz/walkthrough", params={"name": walk}).status_code == 200
        with _socket(port, "/ws/mattix") as ws:
            _state(ws, {"type": "join"})
            s = _state(ws, {"type": "new", "size": 4, "players": {"1": "human", "2": "normal"}})
            sq = s["legal"][0]  # (a square index; named by column letter and row)
            ws.send(json.dumps({"type": "move", "square": f"{'abcd'[sq % 4]}{sq // 4 + 1}"}))
            _until(ws, lambda m: m["type"] == "state" and len(m["history"]) >= 2)
            ws.send(json.dumps({"type": "analysis", "on": True}))
            _until(ws, lambda m: m["type"] == "analysis" and m.get("data"))
        with _socket(port, "/ws/othello") as ws:
            _state(ws, {"type": "join"})
            _state(ws, {"type": "new", "players": {"1": "human", "2": "easy"}})
            ws.send(json.dumps({"type": "move", "square": "f5"}))
            _until(ws, lambda m: m["type"] == "state" and len(m["history"]) >= 2)
            ws.send(json.dumps({"type": "analysis", "on": True}))
            _until(ws, lambda m: m["type"] == "analysis" and m.get("data"))
            _state(ws, {"type": "load", "text": "f5d6c3d3c4"})
            _state(ws, {"type": "undo"})
        with _socket(port, "/ws/go") as ws:
            _state(ws, {"type": "join"})
            s = _state(ws, {"type": "new", "size": 9, "players": {"1": "human", "2": "human"}})
            for v in ("D5", "E5", "E4", "F4", "E6", "F6", "C4", "E3", "F5"):  # a capture
                s = _state(ws, {"type": "move", "square": v})
            ws.send(json.dumps({"type": "analysis", "on": True}))
            _until(ws, lambda m: m["type"] == "analysis" and m.get("data"))
            ws.send(json.dumps({"type": "analysis", "on": False}))
            _state(ws, {"type": "score"})  # the dead-stone estimate, on the loop
            assert _state(ws, {"type": "done"})["over"]
            assert http.get(f"/api/record/{s['id']}").status_code == 200
            _state(ws, {"type": "load", "text": "(;SZ[9]KM[7.5];B[ee];W[cc])"})
            s = _state(ws, {"type": "new", "size": 9, "players": {"1": "human", "2": "quick"}})
            ws.send(json.dumps({"type": "move", "square": "E5"}))
            _until(ws, lambda m: m["type"] == "state" and len(m["history"]) >= 2)
        with _socket(port, "/ws/tsume") as ws:
            ws.send(json.dumps({"type": "analysis", "on": True, "sfen": SH}))
            _until(ws, lambda m: m["type"] == "analysis")
            ws.send(json.dumps({"type": "solve", "sfen": SH, "time": 10}))
            assert _until(ws, lambda m: m["type"] in ("result", "error"))["type"] == "result"
        health = http.get("/api/health").json()
    served_ = health["while_serving"]
    assert served_["compiled"] == [] and served_["loaded"] == []
    heavy = [m for m in served_["imported"] if m.split(".")[0] in HEAVY]
    assert heavy == []
    assert health["engines_ready"]

"""What ``banmen serve`` refuses when it starts, and what it shows to whom (issue 36, items
8 and 9):

- a ``--db`` it cannot use (not SQLite, garbage, a truncated SQLite file, a directory, a
  path under a file, a place it cannot write) is one ``error:`` line and a non-zero exit,
  before anything starts, and the file is left as it was;
- on an address other than loopback it says in a paragraph who can reach it and what
  they can read; the arena runs and the saved games over HTTP are for this machine's
  clients only (a one-line 403 for the others) unless ``--share-runs-and-games``, while
  pages, play and joining a game by its id are for everyone. Checked through the
  TestClient with client addresses of our choosing, and against a real server bound to
  this machine's own non-loopback address.
"""

from __future__ import annotations

import json
import os
import socket
import sqlite3
import subprocess
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from conftest import served
from web_clients import AddressFromHeader, address
from ws_conn import WsConn

with warnings.catch_warnings():
    # Starlette 1.x nudges TestClient users towards httpx2; irrelevant to these tests.
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from banmen.web.launch import free_port
from banmen.web.server import (
    PRIVATE_PATHS,
    SHARE_FLAG,
    binds_loopback,
    create_app,
    exposure,
    guard_private,
    is_loopback,
)

pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.filterwarnings("ignore:.*httpx2:UserWarning"),
]

HUMANS = {"1": "human", "2": "human"}


# --------------------------------------------------------------------------- the database


def _sqlite_file(path: Path) -> Path:
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE t (x TEXT)")
        conn.executemany("INSERT INTO t VALUES (?)", [(str(i) * 20,) for i in range(4000)])
    return path


def _bad_databases(where: Path) -> dict[str, Path]:
    text = where / "notes.db"
    text.write_text("these are my notes, not a database\n")
    garbage = where / "garbage.db"
    garbage.write_bytes(bytes(range(256)) * 20)
    truncated = where / "truncated.db"
    whole = _sqlite_file(where / "whole.db").read_bytes()
    truncated.write_bytes(whole[: len(whole) // 3])
    folder = where / "folder.db"
    folder.mkdir()
    cases = {
        "not sqlite": text,
        "garbage": garbage,
        "truncated": truncated,
        "a directory": folder,
        "under a file": text / "games.db",
    }
    if Path("/proc/self").is_dir():  # a place nobody may create a file, root included
        cases["unwritable"] = Path("/proc/banmen-test/games.db")
    return cases


@pytest.mark.parametrize(
    "case", ["not sqlite", "garbage", "truncated", "a directory", "under a file", "unwritable"]
)
def test_a_database_it_cannot_use_is_one_line(tmp_path: Path, case: str) -> None:
    cases = _bad_databases(tmp_path)
    if case not in cases:
        pytest.skip("no /proc here")
    db = cases[case]
    before = db.read_bytes() if db.is_file() else None
    port = free_port()
    done = subprocess.run(
        [sys.executable, "-m", "banmen", "serve", "--db", str(db), "--port", str(port),
         "--workers", "1"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    lines = [ln for ln in done.stderr.splitlines() if ln.strip()]
    assert done.returncode == 2, (done.returncode, done.stderr[-2000:])
    assert len(lines) == 1, done.stderr[-2000:]
    assert lines[0].startswith(f"error: cannot use {db} as the database: "), lines[0]
    assert "Traceback" not in done.stderr and "serving" not in done.stdout
    if before is not None:
        assert db.read_bytes() == before  # nothing written to it


# --------------------------------------------------------------------------- who reads what


def test_loopback_clients_and_binds() -> None:
    for a in ("127.0.0.1", "127.3.4.5", "::1", "[::1]", "::ffff:127.0.0.1"):
        assert is_loopback(a), a
    for a in ("192.0.2.7", "10.0.0.1", "::ffff:192.0.2.7", "fe80::1", "", "testclient"):
        assert not is_loopback(a), a
    for host in ("127.0.0.1", "localhost", "::1", "[::1]", "127.0.0.2"):
        assert binds_loopback(host), host
    for host in ("0.0.0.0", "::", "192.0.2.7", "fd00::2"):
        assert not binds_loopback(host), host


def test_serving_beyond_this_machine_is_said_in_a_paragraph() -> None:
    db = Path("/data/banmen.sqlite3")
    assert exposure("127.0.0.1", 8000, db, share=False) is None
    assert exposure("localhost", 8000, db, share=True) is None
    closed = exposure("0.0.0.0", 8000, db, share=False)
    assert closed is not None and "\n" not in closed
    assert closed.startswith("banmen: serving beyond this machine: anyone who can reach any ")
    assert "port 8000" in closed and "play" in closed and "--player" in closed
    assert "/api/arena, /api/saved, /api/record) stay this machine's" in closed
    assert SHARE_FLAG in closed
    shared = exposure("192.0.2.7", 8080, db, share=True)
    assert shared is not None and "192.0.2.7 port 8080" in shared
    assert f"{db}" in shared and "every arena run" in shared and "whose id" in shared


@pytest.fixture(scope="module")
def apps(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[bool, TestClient]]:
    """The app as run_uvicorn serves it, without and with sharing; a test header chooses
    each request's client address."""
    out: dict[bool, TestClient] = {}
    for share in (False, True):
        db = tmp_path_factory.mktemp("private") / "games.sqlite3"
        app = create_app(db, workers=1)
        out[share] = TestClient(AddressFromHeader(guard_private(app, share)))
        out[share].__enter__()
    try:
        yield out
    finally:
        for client in out.values():
            client.__exit__(None, None, None)


def _a_saved_game(client: TestClient, addr: str) -> str:
    with client.websocket_connect("/ws/go", headers=address(addr)) as ws:
        conn = WsConn(ws)
        game_id: str = conn.new(players=HUMANS)["id"]
        conn.send({"type": "move", "square": "D4"})
        conn.until(lambda m: m["type"] == "state")
    return game_id


REMOTE = ["192.0.2.7", "10.1.2.3", "fd00::7", "::ffff:192.0.2.7"]
LOCAL = ["127.0.0.1", "::1", "127.0.0.5", "::ffff:127.0.0.1"]


def test_arena_runs_and_saved_games_are_this_machines_only(
    apps: dict[bool, TestClient],
) -> None:
    client = apps[False]
    game_id = _a_saved_game(client, "192.0.2.7")  # a remote player made it: it plays
    private = ["/api/arena/runs", "/api/arena/compare?run=a&run=b", "/api/arena",
               f"/api/saved/{game_id}", f"/api/record/{game_id}"]  # fmt: skip
    assert all(any(p.startswith(q) for q in PRIVATE_PATHS) for p in private)
    for addr in REMOTE:
        for path in private:
            r = client.get(path, headers=address(addr))
            assert r.status_code == 403, (addr, path, r.text)
            line = r.json()["error"]
            assert line.startswith("forbidden: this server shows its ") and "\n" not in line
            assert SHARE_FLAG in line
        # everything else is everyone's: pages, the games list, health, static files
        for path in ("/", "/go", "/arena", "/tsume", "/api/games", "/api/health",
                     "/static/js/page.js", "/api/savedx"):  # fmt: skip
            status = client.get(path, headers=address(addr)).status_code
            assert status in (200, 404), (addr, path)
            assert status == 200 or path == "/api/savedx"
    for addr in LOCAL:
        assert client.get("/api/arena/runs", headers=address(addr)).status_code == 200, addr
        saved = client.get(f"/api/saved/{game_id}", headers=address(addr))
        assert saved.status_code == 200 and saved.json()["game"] == "go", addr
        record = client.get(f"/api/record/{game_id}", headers=address(addr))
        assert record.status_code == 200 and ";B[df])" in record.text, addr  # D4 on 9x9
    # a remote player still joins and plays the game by its id: that is how games are shared
    with client.websocket_connect("/ws/go", headers=address("10.1.2.3")) as ws:
        conn = WsConn(ws)
        state = conn.join(game_id)
        assert state["id"] == game_id and [h["square"] for h in state["history"]] == ["D4"]


def test_shared_runs_and_games_are_everyones(apps: dict[bool, TestClient]) -> None:
    client = apps[True]
    game_id = _a_saved_game(client, "127.0.0.1")
    for addr in REMOTE + LOCAL:
        assert client.get("/api/arena/runs", headers=address(addr)).status_code == 200
        assert client.get(f"/api/saved/{game_id}", headers=address(addr)).status_code == 200
        assert client.get(f"/api/record/{game_id}", headers=address(addr)).status_code == 200


def _own_address() -> str | None:
    """An IPv4 address of this machine other than loopback, if it has one."""
    try:
        out = subprocess.run(["hostname", "-I"], capture_output=True, text=True, timeout=10)
        candidates = out.stdout.split()
    except (OSError, subprocess.SubprocessError):
        candidates = []
    for a in candidates:
        if "." in a and not is_loopback(a):
            try:
                with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
                    s.bind((a, 0))  # ours indeed
            except OSError:
                continue
            return a
    return None


@pytest.mark.server
def test_a_real_server_on_another_address_keeps_runs_and_games_here(tmp_path: Path) -> None:
    own = _own_address()
    if own is None:
        if os.environ.get("CI"):
            pytest.fail("no non-loopback address to bind")
        pytest.skip("this machine has no non-loopback address")
    with served(tmp_path, host=own) as (port, log):
        base = f"http://{own}:{port}"
        ws = f"ws://{own}:{port}/ws/mattix"
        from websockets.sync.client import connect

        with connect(ws, open_timeout=30) as sock:  # we come from `own`: not loopback
            sock.send(json.dumps({"type": "join"}))
            while (state := json.loads(sock.recv(timeout=30)))["type"] != "state":
                pass
        with httpx.Client(base_url=base, timeout=60) as http:
            for path in ("/", "/mattix", "/arena", "/api/games"):
                assert http.get(path).status_code == 200, path
            for path in ("/api/arena/runs", f"/api/saved/{state['id']}",
                         f"/api/record/{state['id']}"):  # fmt: skip
                r = http.get(path)
                assert r.status_code == 403, (path, r.text)
                assert r.json()["error"].startswith("forbidden: this server shows its ")
        text = log.read_text(errors="replace")
    paragraph = [ln for ln in text.splitlines() if "serving beyond this machine" in ln]
    assert len(paragraph) == 1, text
    assert f"{own} port {port}" in paragraph[0] and SHARE_FLAG in paragraph[0]
    assert "Traceback" not in text

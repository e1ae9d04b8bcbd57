"""The tsume-shogi page's server side through Starlette's TestClient: the page, the SFEN
check endpoint, and solves over ``/ws/tsume`` — results, progress, cancelling, one solve
per connection, solves waiting for a free solver, a closed page stopping its solve, bad
messages.

The app runs with ``workers=1``, so one solve runs at a time. Solves use the real solver
(shogi's ``mate`` engine over :func:`banmen.games.shogi.tsume.solve`) in the app's engine
pool; only the tests of the process handling itself (a solver that ignores the stop flag,
one that crashes) swap in the stand-in engines defined at the end of this module, which the
worker processes import by name.
"""

from __future__ import annotations

import os
import time
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cshogi
import pytest
from starlette.websockets import WebSocketDisconnect
from web_clients import AddressFromHeader, address
from ws_conn import Msg, WsConn

with warnings.catch_warnings():
    # Starlette 1.x nudges TestClient users towards httpx2; irrelevant to these tests.
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from banmen.engine import Info
from banmen.games.shogi import normalize_sfen, parse_sfen
from banmen.games.shogi.problem import line_steps, summary
from banmen.web.server import create_app
from banmen.web.tsume import SolverService
from banmen.worker import OVERRUN_GRACE, STOP_GRACE

pytestmark = [
    pytest.mark.timeout(90),
    pytest.mark.filterwarnings("ignore:.*httpx2:UserWarning"),
]

#: mate in 1: the pawn on 9c steps to 9b, guarded by the king
ONE = "k8/9/PK7/9/9/9/9/9/9 b 2r2b4g4s4n4l17p 1"
#: mate in 3: ▲７二香成 △５四玉 ▲５六龍
THREE = "9/9/3pp4/+r2k1p3/2L1+p4/2+R6/B8/B8/9 b 4g4s4n3l14p 1"
#: Microcosmos (Hashimoto Koji), mate in 1525: no solver finishes it during a test
MICROCOSMOS = (
    "g1+P1k1+P+P+L/1p3P3/+R+p2pp1pl/1NNsg+p2+R/+b+nL+P1+p3/1P3ssP1/2P1+Ps2N/4+P1P1L/+B5G1g b - 1"
)
#: no mate: black has one pawn in hand and nothing on the board but its king
NO_MATE = "4k4/9/9/9/9/9/9/9/4K4 b P2r2b4g4s4n4l17p 1"


# --------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    db = tmp_path_factory.mktemp("tsume") / "games.sqlite3"
    with TestClient(AddressFromHeader(create_app(db, workers=1))) as c:
        yield c


class Conn(WsConn):
    """A socket on /ws/tsume (its first message, ``hello``, already read)."""

    limit = 20_000

    def until_type(self, *types: str) -> Msg:
        return self.until(lambda m: m["type"] in types)

    def solve(self, sfen: str, seconds: float = 30) -> Msg:
        """Ask for a solve and wait until it has started (it may wait in line first)."""
        self.send({"type": "solve", "sfen": sfen, "time": seconds})
        msg = self.until_type("started", "error", "result")
        assert msg["type"] == "started", msg
        return msg

    def result(self) -> Msg:
        msg = self.until_type("result")
        check_result_message(msg)
        return msg

    def error(self, msg: Msg | str) -> str:
        """Send ``msg``; the reply must be a one-line error, and nothing else may happen."""
        self.send(msg)
        reply = self.until_type("error", "started", "result", "position", "status", "notice")
        assert reply["type"] == "error", f"expected an error, got {reply}"
        assert set(reply) == {"type", "message"}
        text: str = reply["message"]
        assert "\n" not in text and "Traceback" not in text
        assert 0 < len(text) < 300
        return text

    def status(self) -> Msg:
        self.send({"type": "status"})
        return self.until_type("status")


@pytest.fixture
def conn(client: TestClient) -> Iterator[Conn]:
    with client.websocket_connect("/ws/tsume") as ws:
        c = Conn(ws)
        hello = c.recv()
        assert hello["type"] == "hello"
        yield c


def check_result_message(msg: Msg) -> None:
    """Every result has the solver's fields, a one-line summary, and positions that follow
    from its line."""
    for key in ("sfen", "status", "pv", "length", "shortest", "reason", "nodes", "seconds"):
        assert key in msg, key
    assert msg["status"] in ("mate", "no_mate", "unknown")
    assert isinstance(msg["summary"], str) and "\n" not in msg["summary"]
    board = parse_sfen(msg["sfen"])
    assert len(msg["steps"]) == (len(msg["pv"]) if msg["status"] == "mate" else 0)
    for usi, step in zip(msg["pv"], msg["steps"], strict=False):
        assert step["usi"] == usi
        board.push_usi(usi)
        assert normalize_sfen(step["sfen"]) == normalize_sfen(board.sfen())
        assert step["kif"][0] in "▲△"


def wait_until(pred: Any, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not pred():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


# --------------------------------------------------------------------------- the page


def test_the_page_and_its_files_are_served(client: TestClient) -> None:
    page = client.get("/tsume")
    assert page.status_code == 200
    assert 'name="viewport"' in page.text
    assert '<script type="module" src="/static/js/tsume.js">' in page.text
    assert "default-src 'self'" in page.headers["content-security-policy"]
    for path in (
        "/static/js/tsume.js",
        "/static/js/shogi-board.js",
        "/static/css/tsume.css",
        "/static/js/connection.js",
        "/static/js/page.js",
    ):
        r = client.get(path)
        assert r.status_code == 200, path
        assert len(r.content) > 500, path
        assert "https://" not in r.text and "//cdn" not in r.text, path
    # the page is linked from the home page
    assert 'href="/tsume"' in client.get("/").text


# --------------------------------------------------------------------------- SFEN checks


def test_the_sfen_endpoint_returns_the_canonical_form(client: TestClient) -> None:
    r = client.get("/api/tsume/sfen", params={"sfen": THREE})
    assert r.status_code == 200
    assert r.json() == {"ok": True, "sfen": THREE, "turn": "b", "notes": []}
    # hands in any order, no move number, a "sfen " prefix: the canonical form comes back
    r = client.get(
        "/api/tsume/sfen", params={"sfen": "sfen k8/9/PK7/9/9/9/9/9/9 b 17p4l2r2b4g4s4n"}
    )
    assert r.json()["sfen"] == ONE
    # the attacker in check is unusual (its first move must answer the check): a note
    r = client.get("/api/tsume/sfen", params={"sfen": "4r4/9/9/9/9/9/9/9/k3K4 b G 1"})
    assert r.json()["ok"] is True
    assert r.json()["notes"] == ["black (sente), the attacker, is in check"]


@pytest.mark.parametrize(
    ("sfen", "says"),
    [
        ("9/9/9 b - 1", "ranks"),
        ("k8/9/PK7/9/9/9/9/9/9 x - 1", "side to move"),
        ("k8/9/PK7/9/9/9/9/9/9 b 19p 1", "pieces of kind P"),
        ("k8/P8/PK7/9/9/9/9/9/9 b - 1", "nifu"),
        ("4k4/9/9/9/9/9/9/9/4R4 b - 1", "in check"),
        ("P3k4/9/9/9/9/9/9/9/9 b - 1", "could never move"),
        ("k8/9/PK7/9/9/9/9/9/9 b 2r2b4g4s4n4l17p 1 extra", "fields"),
        ("", "fields"),
        ("9/9/9/9/9/9/9/9/4K4 b P 1", "white (gote) has no king"),
        ("9/9/9/9/9/9/9/9/9 b - 1", "no king"),
        ("4k4/9/9/9/9/9/9/9/9 w - 1", "black (sente) has no king"),
        ("x" * 500, "characters"),
        # strings of the kinds that make cshogi abort a process, if it ever saw them
        ("9/9/9/9/9/9/9/9/55 b - 1", "files"),
        ("+/9/9/9/9/9/9/9/9 b - 1", "'+'"),
    ],
)
def test_a_bad_sfen_gets_a_one_line_error(client: TestClient, sfen: str, says: str) -> None:
    r = client.get("/api/tsume/sfen", params={"sfen": sfen})
    assert r.status_code == 200  # the check ran; its answer is "no"
    assert r.json()["ok"] is False
    error = r.json()["error"]
    assert says in error
    assert "\n" not in error and len(error) < 300
    # the server is still there
    assert client.get("/api/tsume/sfen", params={"sfen": ONE}).json()["ok"] is True


def test_the_sfen_endpoint_needs_a_sfen(client: TestClient) -> None:
    r = client.get("/api/tsume/sfen")
    assert r.status_code == 400
    assert "sfen" in r.json()["error"]


def test_check_over_the_socket(conn: Conn) -> None:
    conn.send({"type": "check", "sfen": f"  {ONE}  "})
    msg = conn.until_type("position", "error")
    assert msg == {"type": "position", "sfen": ONE, "turn": "b", "notes": []}
    assert "nifu" in conn.error({"type": "check", "sfen": "k8/P8/PK7/9/9/9/9/9/9 b - 1"})
    assert "missing" in conn.error({"type": "check"})
    assert "string" in conn.error({"type": "check", "sfen": 42})


# --------------------------------------------------------------------------- solving


def test_a_mate_in_one(conn: Conn) -> None:
    started = conn.solve(ONE, 30)
    assert started == {"type": "started", "sfen": ONE, "time": 30}
    msg = conn.result()
    assert msg["status"] == "mate"
    assert msg["length"] == 1 and msg["shortest"] is True
    assert msg["pv"] in (["9c9b"], ["9c9b+"])
    assert msg["steps"][0]["kif"] in ("▲９二歩(93)", "▲９二歩成(93)")
    board = parse_sfen(ONE)
    board.push_usi(msg["pv"][0])
    assert board.is_check() and not list(board.legal_moves)  # mate
    assert "mate in 1" in msg["summary"] and "proved shortest" in msg["summary"]
    # the connection is free again
    assert conn.status() == {"type": "status", "running": False}


def test_a_mate_in_three_with_its_kif(conn: Conn) -> None:
    conn.solve(THREE, 30)
    msg = conn.result()
    assert msg["status"] == "mate" and msg["length"] == 3
    assert [s["kif"] for s in msg["steps"]] == ["▲７二香成(75)", "△５四玉(64)", "▲５六龍(76)"]
    board = parse_sfen(THREE)
    for usi in msg["pv"]:
        board.push_usi(usi)
    # check at the end; white's drops in between are futile interpositions (not counted)
    assert board.is_check()
    assert msg["summary"].startswith("Solved: mate in 3")


def test_no_mate_is_proved(conn: Conn) -> None:
    conn.solve(NO_MATE, 30)
    msg = conn.result()
    assert msg["status"] == "no_mate"
    assert msg["pv"] == [] and msg["steps"] == []
    assert msg["summary"].startswith("No mate: proved")


def test_progress_streams_and_cancel_stops_promptly(conn: Conn) -> None:
    conn.solve(MICROCOSMOS, 120)
    progress = conn.until_type("progress")
    assert set(progress) >= {"type", "nodes", "seconds", "nps", "pn", "dn", "phase"}
    assert progress["phase"] in ("proof", "shortest", "pv")
    second = conn.until_type("progress")
    assert second["nodes"] >= progress["nodes"]
    t0 = time.monotonic()
    conn.send({"type": "cancel"})
    msg = conn.result()
    assert time.monotonic() - t0 < STOP_GRACE + 1.5
    assert msg["status"] == "unknown" and msg["reason"] == "stopped"
    assert msg["pv"] == [] and msg["steps"] == []
    assert msg["summary"].startswith("Unknown: the solve was stopped")
    assert "neither a mate nor the absence of one was proved" in msg["summary"]
    # the same connection solves again at once
    conn.solve(ONE, 30)
    assert conn.result()["status"] == "mate"


def test_a_time_limit_gives_unknown_timeout(conn: Conn) -> None:
    conn.solve(MICROCOSMOS, 0.5)
    msg = conn.result()
    assert msg["status"] == "unknown" and msg["reason"] == "timeout"
    assert "time limit (0.5 s)" in msg["summary"]


def test_one_solve_per_connection_and_bad_messages_keep_the_state(conn: Conn) -> None:
    conn.solve(MICROCOSMOS, 120)
    assert "already running" in conn.error({"type": "solve", "sfen": ONE})
    bad: list[tuple[Msg | str, str]] = [
        ("not json", "not valid JSON"),
        ("[1, 2]", "JSON object"),
        ('{"type": "move"}', "unknown message type"),
        ('{"no": "type"}', "unknown message type missing"),
        ('{"type": "solve", "sfen": 1e999}', "string"),
        ('{"type": "solve", "sfen": "k8", "time": NaN}', "JSON"),
        ("{" * 5000, "too long"),
        ("x" * 5000, "too long"),
    ]
    for raw, says in bad:
        assert says in conn.error(raw), raw
    conn.ws.send_bytes(b'{"type": "cancel"}')
    reply = conn.until_type("error", "result")
    assert reply["type"] == "error" and "binary" in reply["message"]
    status = conn.status()
    assert status["running"] is True and status["sfen"] == MICROCOSMOS
    assert status["cancelled"] is False
    # the solve went on all along
    before = conn.until_type("progress")["nodes"]
    assert conn.until_type("progress")["nodes"] >= before
    conn.send({"type": "cancel"})
    assert conn.result()["reason"] == "stopped"


@pytest.mark.parametrize(
    ("msg", "says"),
    [
        ({"type": "solve"}, "missing"),
        ({"type": "solve", "sfen": "9/9/9 b - 1"}, "ranks"),
        ({"type": "solve", "sfen": ["k8"]}, "string"),
        ({"type": "solve", "sfen": ONE, "time": 0}, "time"),
        ({"type": "solve", "sfen": ONE, "time": -3}, "time"),
        ({"type": "solve", "sfen": ONE, "time": 1e9}, "time"),
        # issue 32: an integer no float holds dropped the connection (OverflowError)
        ({"type": "solve", "sfen": ONE, "time": 10**400}, '"time" must be a number from'),
        ({"type": "solve", "sfen": ONE, "time": "30"}, "time"),
        ({"type": "solve", "sfen": ONE, "time": True}, "time"),
    ],
)
def test_a_bad_solve_request_starts_nothing(conn: Conn, msg: Msg, says: str) -> None:
    assert says in conn.error(msg)
    assert conn.status() == {"type": "status", "running": False}


def test_cancel_with_nothing_running_is_a_notice(conn: Conn) -> None:
    conn.send({"type": "cancel"})
    assert conn.until_type("notice", "error")["type"] == "notice"


def test_closing_the_page_stops_its_solve(client: TestClient) -> None:
    service: SolverService = client.app.state.tsume  # type: ignore[attr-defined]
    with client.websocket_connect("/ws/tsume") as ws:
        c = Conn(ws)
        c.recv()
        c.solve(MICROCOSMOS, 120)
        c.until_type("progress")
        assert service.running == 1
    wait_until(lambda: service.running == 0, timeout=STOP_GRACE + 3)
    # the only solver process left is the spare, waiting for the next solve
    wait_until(lambda: len(service._live) <= 1)
    with client.websocket_connect("/ws/tsume") as ws:
        c = Conn(ws)
        c.recv()
        c.send({"type": "solve", "sfen": ONE})
        assert c.until_type("started", "queued")["type"] == "started"
        assert c.result()["status"] == "mate"


def test_solves_beyond_the_cap_wait_in_line(client: TestClient) -> None:
    service: SolverService = client.app.state.tsume  # type: ignore[attr-defined]
    assert service.max_solves == 1
    # (two client addresses: one address has one solve at a time)
    with (
        client.websocket_connect("/ws/tsume") as ws1,
        client.websocket_connect("/ws/tsume", headers=address("10.0.0.2")) as ws2,
    ):
        a, b = Conn(ws1), Conn(ws2)
        a.recv()
        b.recv()
        a.solve(MICROCOSMOS, 120)
        a.until_type("progress")
        b.send({"type": "solve", "sfen": ONE})
        queued = b.until_type("queued", "started")
        assert queued["type"] == "queued" and queued["position"] == 1
        assert queued["message"] == "the server is busy: you are 1st in line for a solver"
        status = b.status()
        assert status["queued"] is True and status["position"] == 1
        a.send({"type": "cancel"})
        assert a.result()["reason"] == "stopped"
        assert b.until_type("started")["sfen"] == ONE
        assert b.result()["status"] == "mate"

        # a solve cancelled while it waits ends at once, without running
        a.solve(MICROCOSMOS, 120)
        b.send({"type": "solve", "sfen": THREE})
        assert b.until_type("queued", "started")["type"] == "queued"
        b.send({"type": "cancel"})
        msg = b.result()
        assert msg["reason"] == "stopped" and msg["nodes"] == 0
        a.send({"type": "cancel"})
        a.result()
    wait_until(lambda: service.running == 0)


def test_cross_site_socket_is_refused(client: TestClient) -> None:
    with pytest.raises(WebSocketDisconnect):
        with client.websocket_connect("/ws/tsume", headers={"origin": "http://evil.example"}):
            pass


# --------------------------------------------------------------------------- process handling


@pytest.fixture
def own_app(tmp_path: Path) -> Iterator[TestClient]:
    """A fresh app whose solver a test may replace (before any socket connects)."""
    with TestClient(create_app(tmp_path / "games.sqlite3", workers=1)) as c:
        yield c


def test_a_solver_that_ignores_the_stop_flag_is_killed(own_app: TestClient) -> None:
    service: SolverService = own_app.app.state.tsume  # type: ignore[attr-defined]
    service.factory = "test_web_tsume:stubborn_engine"
    with own_app.websocket_connect("/ws/tsume") as ws:
        c = Conn(ws)
        c.recv()
        c.solve(ONE, 120)
        pid = c.until_type("progress")["nodes"]  # the stand-in reports its pid as nodes
        t0 = time.monotonic()
        c.send({"type": "cancel"})
        msg = c.result()
        assert STOP_GRACE - 0.5 < time.monotonic() - t0 < STOP_GRACE + 2
        assert msg["status"] == "unknown" and msg["reason"] == "stopped"
        wait_until(lambda: not _alive(pid))


@pytest.mark.slow  # (it waits out the grace periods)
def test_a_solver_that_overruns_its_time_limit_is_stopped_then_killed(
    own_app: TestClient,
) -> None:
    service: SolverService = own_app.app.state.tsume  # type: ignore[attr-defined]
    service.factory = "test_web_tsume:stubborn_engine"
    with own_app.websocket_connect("/ws/tsume") as ws:
        c = Conn(ws)
        c.recv()
        c.solve(ONE, 0.5)
        pid = c.until_type("progress")["nodes"]
        t0 = time.monotonic()
        msg = c.result()
        took = time.monotonic() - t0
        assert OVERRUN_GRACE + STOP_GRACE - 1 < took < OVERRUN_GRACE + STOP_GRACE + 2
        assert msg["status"] == "unknown" and msg["reason"] == "timeout"
        assert "time limit (0.5 s)" in msg["summary"]
        wait_until(lambda: not _alive(pid))
        # the worker was restarted: the next solve is answered
        service.factory = None
        c.solve(ONE, 30)
        assert c.result()["status"] == "mate"


def test_a_crashing_solver_is_an_error_and_the_connection_lives_on(own_app: TestClient) -> None:
    service: SolverService = own_app.app.state.tsume  # type: ignore[attr-defined]
    service.factory = "test_web_tsume:crashing_engine"
    with own_app.websocket_connect("/ws/tsume") as ws:
        c = Conn(ws)
        c.recv()
        c.solve(ONE, 30)
        error = c.until_type("error", "result")
        assert error["type"] == "error" and "stopped unexpectedly" in error["message"]
        msg = c.result()
        assert msg["status"] == "unknown" and msg["reason"] == "crashed"
        assert msg["summary"].startswith("Unknown: the solver process failed")
        service.factory = "test_web_tsume:raising_engine"
        c.solve(ONE, 30)
        error = c.until_type("error", "result")
        assert error["type"] == "error" and "RuntimeError: no luck" in error["message"]
        assert c.result()["reason"] == "crashed"
        assert c.status() == {"type": "status", "running": False}


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie still answers kill(0); it has stopped running all the same
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split()[2] != "Z"
    except FileNotFoundError:
        return False


# --------------------------------------------------------------------------- pure functions


def test_summaries_say_what_was_and_was_not_proved() -> None:
    base = {"nodes": 12345, "seconds": 1.25, "pv": ["a", "b", "c"]}
    assert summary({**base, "status": "mate", "length": 3, "shortest": True}) == (
        "Solved: mate in 3, proved shortest (12 k nodes, 1.2 s)."
    )
    text = summary({**base, "status": "mate", "length": 9, "reason": "timeout"})
    assert text.startswith("Solved: mate in 9, not proved shortest")
    assert "time limit was reached" in text
    assert summary({**base, "status": "no_mate"}).startswith("No mate: proved")
    text = summary({**base, "status": "unknown", "reason": "timeout"}, 30)
    assert text.startswith("Unknown: the time limit (30 s) was reached")
    for reason, says in [
        ("node_limit", "node limit"),
        ("memory", "out of memory"),
        ("stopped", "was stopped"),
    ]:
        assert says in summary({**base, "status": "unknown", "reason": reason})


def test_line_steps_stop_at_the_first_illegal_move() -> None:
    steps = line_steps(THREE, ["7e7b+", "6d5d", "9i9a", "7f5f"])
    assert [s["usi"] for s in steps] == ["7e7b+", "6d5d"]
    assert line_steps(THREE, ["zz", "7e7b+"]) == []
    board = cshogi.Board(THREE)
    board.push_usi("7e7b+")
    assert steps[0]["sfen"] == board.sfen()


# --------------------------------------------------------------------------- stand-in solvers
# Engine factories, imported by name in the pool's worker processes (tests/ is on their
# path, as on ours) and called as the game registry's are.


class _StandIn:
    name = "stand-in"

    def warm_up(self) -> None:
        pass

    def new_game(self) -> None:
        pass


class _Stubborn(_StandIn):
    def think(self, board: Any, limit: Any = None, on_info: Any = None, stop: Any = None) -> Any:
        """Reports progress (its pid as the node count) and never looks at the stop flag."""
        while True:
            if on_info is not None:
                on_info(Info(0, 0, os.getpid(), 0.0, [], 0.0,
                             extra={"pn": 1, "dn": 1, "phase": "proof"}))  # fmt: skip
            time.sleep(0.1)


class _Crashing(_StandIn):
    def think(self, board: Any, limit: Any = None, on_info: Any = None, stop: Any = None) -> Any:
        """Dies without a word, as a segfault would."""
        os._exit(3)


class _Raising(_StandIn):
    def think(self, board: Any, limit: Any = None, on_info: Any = None, stop: Any = None) -> Any:
        raise RuntimeError("no luck")


def stubborn_engine(game: Any, spec: Any) -> _Stubborn:
    return _Stubborn()


def crashing_engine(game: Any, spec: Any) -> _Crashing:
    return _Crashing()


def raising_engine(game: Any, spec: Any) -> _Raising:
    return _Raising()

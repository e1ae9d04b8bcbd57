"""The tsume page's analysis over ``/ws/tsume`` (Starlette's TestClient): every check of
the attacker listed and proved as the proofs land, agreeing with the solver; a new
position, switching off and closing the page stop it; bad messages are one-line errors
that change nothing; a solve keeps priority over the analysis and the analysis goes on
after it, keeping what it proved.

The app runs with ``workers=1`` and the real solver, so an analysis and a solve share one
engine worker. Nothing is timed: every wait is for a message.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from typing import Any

import cshogi
import pytest
from test_web_tsume import MICROCOSMOS, ONE, THREE, Conn, wait_until
from ws_conn import Msg

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from banmen.games.shogi import normalize_sfen
from banmen.games.shogi.formats import kif_moves
from banmen.games.shogi.tsume import solve
from banmen.search.limits import Limit
from banmen.web.server import create_app
from banmen.web.tsume import SolverService, merge_analyses

pytestmark = [
    pytest.mark.timeout(120),
    pytest.mark.filterwarnings("ignore:.*httpx2:UserWarning"),
]

#: mate in 3 by a gold drop (G*5b), with pawn moves and other drops that fail
DROP = "3sks3/9/4+P4/9/9/9/9/9/9 b 2G2r2b2g2s4n4l17p 1"


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    db = tmp_path_factory.mktemp("tsume-analysis") / "games.sqlite3"
    with TestClient(create_app(db, workers=1)) as c:
        yield c


class AConn(Conn):
    """A tsume socket that asks for analyses."""

    def analyse(self, sfen: str) -> None:
        self.send({"type": "analysis", "on": True, "sfen": sfen})

    def analysis(self, pred: Any = lambda m: True) -> Msg:
        """The next ``analysis`` message that ``pred`` accepts."""
        return self.until(lambda m: m["type"] == "analysis" and pred(m))

    def about(self, sfen: str, pred: Any = lambda m: True) -> Msg:
        """The next ``analysis`` message about ``sfen`` that ``pred`` accepts."""
        return self.analysis(lambda m: same(m["sfen"], sfen) and pred(m))

    def final(self, sfen: str) -> list[Msg]:
        """Every ``analysis`` message about ``sfen`` until it is over (``done``; a failure
        fails the test), the last one included."""
        seen: list[Msg] = []
        while True:
            msg = self.about(sfen)
            assert msg["status"] != "failed", msg
            seen.append(msg)
            if msg["status"] == "done":
                return seen


@pytest.fixture
def conn(client: TestClient) -> Iterator[AConn]:
    with client.websocket_connect("/ws/tsume") as ws:
        c = AConn(ws)
        hello = c.recv()
        assert hello["type"] == "hello" and hello["analysis_time"] > 0
        yield c


def service(client: TestClient) -> SolverService:
    s: SolverService = client.app.state.tsume  # type: ignore[attr-defined]
    return s


def same(a: str | None, b: str) -> bool:
    return a is not None and normalize_sfen(a).split()[:3] == normalize_sfen(b).split()[:3]


def checks(sfen: str) -> set[str]:
    """The attacker's checks in ``sfen``, by cshogi (an independent move generator)."""
    board = cshogi.Board(sfen)
    out = set()
    for m in board.legal_moves:
        board.push(m)
        if board.is_check():
            out.add(cshogi.move_to_usi(m))
        board.pop()
    return out


def decided(row: Msg) -> bool:
    return row["kind"] == "no_mate" or (row["kind"] == "mate" and row["extra"]["shortest"])


# --------------------------------------------------------------------------- the rows


@pytest.mark.parametrize("sfen", [ONE, THREE, DROP])
def test_every_check_is_listed_and_proved_as_the_solver_says(conn: AConn, sfen: str) -> None:
    conn.analyse(sfen)
    seen = conn.final(sfen)
    want = checks(sfen)
    names = {usi: kif_moves(sfen, [usi])[0] for usi in want}
    settled: dict[str, Msg] = {}
    for msg in seen:
        assert msg["on"] is True and msg["sfen"] == normalize_sfen(sfen)
        if msg["data"] is None:
            assert msg["status"] in ("waiting", "running")
            continue
        rows = msg["data"]["moves"]
        # the rows are the attacker's checks, each named in KIF as the solution's moves are
        assert sorted(r["move"] for r in rows) == sorted(want)
        assert all(r["kif"] == names[r["move"]] for r in rows)
        # filled in as the proofs land: what was decided stays decided
        by_move = {r["move"]: r for r in rows}
        for usi, row in settled.items():
            assert by_move[usi]["kind"] == row["kind"] and by_move[usi]["value"] == row["value"]
        settled.update((r["move"], r) for r in rows if decided(r))
    last = seen[-1]["data"]
    assert last["complete"] is True and last["stopped_by"] == "exact"
    assert all(decided(r) for r in last["moves"])
    answer = solve(sfen, Limit(time=60))
    mates = {r["move"]: r["value"] for r in last["moves"] if r["kind"] == "mate"}
    assert min(mates.values()) == answer.length
    assert mates[answer.pv[0]] == answer.length
    assert last["moves"][0]["kind"] == "mate" and last["moves"][0]["value"] == answer.length
    # asking again for the same position: where it stands, not a new analysis
    conn.analyse(sfen)
    again = conn.about(sfen)
    assert again["status"] == "done" and again["data"] == seen[-1]["data"]


def test_a_new_position_stops_the_old_analysis_and_starts_its_own(conn: AConn) -> None:
    conn.analyse(MICROCOSMOS)
    first = conn.about(MICROCOSMOS, lambda m: m["data"] is not None)
    assert sorted(r["move"] for r in first["data"]["moves"]) == sorted(checks(MICROCOSMOS))
    conn.analyse(THREE)
    # (messages sent before the server read the change may still come; none after)
    conn.analysis(lambda m: same(m["sfen"], THREE))
    seen = conn.final(THREE)
    assert seen[-1]["data"]["complete"] is True
    # the one worker was free for it: the long analysis was stopped, not left running
    conn.analyse(ONE)
    while True:
        msg = conn.analysis()
        assert same(msg["sfen"], ONE), f"a message about another position: {msg}"
        if msg["status"] == "done":
            break
    assert msg["data"]["moves"][0]["value"] == 1


def test_switching_off_stops_it_and_frees_the_engine(conn: AConn, client: TestClient) -> None:
    conn.analyse(MICROCOSMOS)
    conn.about(MICROCOSMOS, lambda m: m["status"] == "running" and m["data"] is not None)
    conn.send({"type": "analysis", "on": False})
    off = conn.analysis(lambda m: not m["on"])
    assert off == {"type": "analysis", "on": False, "sfen": None, "status": "off", "data": None}
    pool = service(client).pool
    assert pool is not None
    wait_until(lambda: pool.running == 0)
    conn.solve(ONE)
    assert conn.result()["status"] == "mate"
    # nothing more about the position left
    conn.send({"type": "status"})
    msg = conn.until_type("status", "analysis")
    assert msg["type"] == "status"


def test_closing_the_page_stops_its_analysis(client: TestClient) -> None:
    pool = service(client).pool
    assert pool is not None
    with client.websocket_connect("/ws/tsume") as ws:
        c = AConn(ws)
        c.recv()
        c.analyse(MICROCOSMOS)
        c.about(MICROCOSMOS, lambda m: m["status"] == "running" and m["data"] is not None)
        assert pool.running == 1
    wait_until(lambda: pool.running == 0)


# --------------------------------------------------------------------------- bad messages


@pytest.mark.parametrize(
    ("msg", "says"),
    [
        ({"type": "analysis"}, "'on': true or false"),
        ({"type": "analysis", "on": "yes"}, "'on': true or false"),
        ({"type": "analysis", "on": 1}, "'on': true or false"),
        ({"type": "analysis", "on": True}, "missing"),
        ({"type": "analysis", "on": True, "sfen": 42}, "string"),
        ({"type": "analysis", "on": True, "sfen": "9/9/9 b - 1"}, "ranks"),
        ({"type": "analysis", "on": True, "sfen": "k8/P8/PK7/9/9/9/9/9/9 b - 1"}, "nifu"),
        ({"type": "analysis", "on": True, "sfen": "9/9/9/9/9/9/9/9/4K4 b P 1"}, "no king"),
        ({"type": "analysis", "on": True, "sfen": "4k4/9/9/9/9/9/9/9/4R4 b - 1"}, "in check"),
        ({"type": "analysis", "on": True, "sfen": "x" * 500}, "characters"),
    ],
)
def test_a_bad_analysis_message_is_a_one_line_error_and_changes_nothing(
    conn: AConn, msg: Msg, says: str
) -> None:
    conn.analyse(THREE)
    done = conn.final(THREE)[-1]
    text = conn.error(msg)
    assert says in text
    # a position that is no mate problem: the very error a solve of it gets
    if "sfen" in msg:
        assert conn.error({"type": "solve", "sfen": msg["sfen"]}) == text
    # still the same analysis, over and not started again
    conn.analyse(THREE)
    assert conn.about(THREE) == done
    assert conn.status() == {"type": "status", "running": False}


# --------------------------------------------------------------------------- with solves


def test_a_solve_takes_the_engine_and_the_analysis_goes_on_after_it(conn: AConn) -> None:
    conn.analyse(MICROCOSMOS)
    running = conn.about(MICROCOSMOS, lambda m: m["status"] == "running" and m["data"])
    assert running["data"]["complete"] is False
    # a solve of the problem analysed: it starts at once (no turn in line behind the
    # analysis, which gives its worker up) and runs to its own end
    conn.send({"type": "solve", "sfen": MICROCOSMOS, "time": 1})
    started = conn.until_type("started", "queued", "error", "result")
    assert started["type"] == "started"
    waiting = conn.about(MICROCOSMOS, lambda m: m["status"] != "running")
    assert waiting["status"] == "waiting" and "in line" in waiting["message"]
    result = conn.result()
    assert result["status"] == "unknown" and result["reason"] == "timeout"
    # then the analysis takes the engine again
    conn.about(MICROCOSMOS, lambda m: m["status"] == "running")

    # a solve of another position: the analysis follows the problem, behind its solve
    conn.send({"type": "solve", "sfen": ONE, "time": 30})
    assert conn.until_type("started", "queued", "error")["type"] == "started"
    assert conn.result()["status"] == "mate"
    seen = conn.final(ONE)
    best = seen[-1]["data"]["moves"][0]
    assert seen[-1]["data"]["complete"] is True
    assert best["kind"] == "mate" and best["value"] == 1


def test_a_time_limit_ends_the_analysis_with_the_checks_left_open(
    conn: AConn, client: TestClient
) -> None:
    svc = service(client)
    svc.analysis_seconds = 0.5
    try:
        conn.analyse(MICROCOSMOS)
        last = conn.final(MICROCOSMOS)[-1]
    finally:
        svc.analysis_seconds = 60.0
    data = last["data"]
    assert data["stopped_by"] == "time" and data["complete"] is False
    assert any(r["kind"] == "open" for r in data["moves"])
    assert sorted(r["move"] for r in data["moves"]) == sorted(checks(MICROCOSMOS))


# --------------------------------------------------------------------------- merging


def _row(move: str, kind: str, value: int | None = None, shortest: bool | None = None) -> Msg:
    row: Msg = {"move": move, "value": value, "kind": kind}
    if shortest is not None:
        row["extra"] = {"shortest": shortest}
    return row


def _analysis(*rows: Msg, stopped_by: str = "") -> Msg:
    return {"game": "shogi", "best": rows[0]["move"] if rows else None, "complete": False,
            "stopped_by": stopped_by, "seconds": 0.1, "nodes": 10, "moves": list(rows)}  # fmt: skip


def test_a_later_job_keeps_what_an_earlier_one_proved() -> None:
    old = _analysis(
        _row("a", "mate", 7, False),
        _row("b", "mate", 5, True),
        _row("c", "open"),
        _row("d", "no_mate"),
    )
    new = _analysis(
        _row("c", "mate", 3, False),
        _row("a", "open"),
        _row("b", "open"),
        _row("d", "open"),
        stopped_by="stop",
    )
    merged = merge_analyses(old, new)
    assert [(r["move"], r["kind"], r["value"]) for r in merged["moves"]] == [
        ("c", "mate", 3),
        ("b", "mate", 5),
        ("a", "mate", 7),
        ("d", "no_mate", None),
    ]
    assert merged["best"] == "c" and merged["complete"] is False
    assert merged["stopped_by"] == "stop"
    # a shorter mate wins; the same length proved shortest by either is shortest
    later = _analysis(
        _row("a", "mate", 5, True),
        _row("b", "mate", 5, False),
        _row("c", "mate", 3, True),
        _row("d", "open"),
    )
    merged = merge_analyses(merged, later)
    rows = {r["move"]: r for r in merged["moves"]}
    assert rows["a"] == _row("a", "mate", 5, True)
    assert rows["b"] == _row("b", "mate", 5, True)
    assert rows["d"]["kind"] == "no_mate"
    assert merged["complete"] is True
    assert merge_analyses(None, new) is new

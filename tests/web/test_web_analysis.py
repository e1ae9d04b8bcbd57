"""The analysis mode of the Mattix and Othello pages, server side: the pool's analysis jobs
(streamed, throttled, stopped, giving way to searches) and the ``analysis`` message over
the WebSocket (values of the position shown, restarted by a move, exact on small Mattix
deals, bad messages refused in one line, CPU moves still made).

The app runs with one engine worker, so an analysis and a CPU move always compete for it.
Nothing here asserts how fast anything is: every wait is for a message, with the module's
generous timeout as the only clock.
"""

from __future__ import annotations

import asyncio
import json
import time
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mattix_reference import exact_value, parse
from ws_conn import Msg, WsConn, stable

with warnings.catch_warnings():
    # Starlette 1.x nudges TestClient users towards httpx2; irrelevant to these tests.
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from banmen.games.mattix import Board as MattixBoard
from banmen.games.othello import Board as OthelloBoard
from banmen.games.registry import get_game
from banmen.search.limits import Limit
from banmen.web.games.go import GO_LEVELS
from banmen.web.levels import make_levels
from banmen.web.pages import PAGES, render_page
from banmen.web.protocol import AnalysisSwitch, GameRules, ProtocolError, parse_message
from banmen.web.server import create_app
from banmen.worker import (
    ANALYSIS_PERIOD,
    EngineError,
    EnginePool,
    JobCancelled,
    JobKilled,
    PoolBusy,
)

pytestmark = [
    pytest.mark.timeout(240),
    pytest.mark.filterwarnings("ignore:.*httpx2:UserWarning"),
]

HUMANS = {"1": "human", "2": "human"}
#: Twelve moves in, black to move: 50 empties, so an analysis deepens for a long while.
MIDGAME = "f5d6c3d3c4f4f6f3e6e7d7c5"
#: A full board: the game is over as soon as it is loaded.
FULL = "X" * 40 + "O" * 24 + " X"
ON = {"type": "analysis", "on": True}
OFF = {"type": "analysis", "on": False}


# --------------------------------------------------------------------------- the pool


def _mattix_values(board: MattixBoard) -> dict[str, int]:
    """Each legal move's exact final margin for the mover, by brute force
    (tests/mattix_reference.py)."""
    values = {}
    for m in board.legal_moves:
        child = board.copy()
        child.push(m)
        values[board.move_name(m)] = -(child.margin() + exact_value(parse(child.layout())))
    return values


def test_pool_analysis_streams_throttled_updates_and_a_final_one() -> None:
    async def main() -> None:
        pool = EnginePool(1, warm=())
        await pool.start()
        try:
            board = MattixBoard.from_seed(5, 4)
            updates: list[dict[str, Any]] = []
            t0 = time.monotonic()
            job = pool.submit_analysis("mattix", board.to_dict(), updates.append)
            assert job.background and pool.free is False
            final = await asyncio.wait_for(job.future, 120)
            elapsed = time.monotonic() - t0
            assert updates and updates[-1] == final  # the last one always comes
            assert final["game"] == "mattix" and final["complete"]
            assert final["stopped_by"] == "exact"
            assert {r["move"]: r["value"] for r in final["moves"]} == _mattix_values(board)
            assert all(r["kind"] == "exact" for r in final["moves"])
            # throttled: at most one update per period, plus the final one (a bound on
            # the count, which a slow machine only lowers)
            assert len(updates) <= elapsed / ANALYSIS_PERIOD + 2
            assert not job.preempted

            # An endless one (Othello's midgame): updates as it deepens, and a stop ends it
            # within the stop's grace (a job that did not would fail with JobKilled).
            mid = OthelloBoard.from_transcript(MIDGAME)
            seen: list[dict[str, Any]] = []
            job2 = pool.submit_analysis("othello", mid.to_dict(), seen.append)
            for _ in range(1200):  # until values have come at two depths (hang guard)
                depths = {r["depth"] for u in seen for r in u["moves"] if r["kind"] == "depth"}
                if len(depths) >= 2:
                    break
                await asyncio.sleep(0.1)
            assert len(depths) >= 2
            job2.stop()
            final2 = await asyncio.wait_for(job2.future, 60)
            assert final2["stopped_by"] == "stop" and not final2["complete"]
            legal = {mid.move_name(m) for m in mid.legal_moves}
            assert {r["move"] for r in final2["moves"]} == legal

            # A bad request: a one-line error, and the worker goes on.
            bad = pool.submit_analysis("chess", {}, None)
            with pytest.raises(EngineError, match="unknown game 'chess'") as info:
                await asyncio.wait_for(bad.future, 120)
            assert not isinstance(info.value, JobKilled) and "\n" not in str(info.value)
            bad = pool.submit_analysis("mattix", {"start": "1,2/3,4"}, None)
            with pytest.raises(EngineError, match="no cross chip"):
                await asyncio.wait_for(bad.future, 120)
            again = await asyncio.wait_for(pool.submit_analysis("mattix", board.to_dict()), 120)
            assert again["complete"]
        finally:
            await pool.close()

    asyncio.run(main())


def test_pool_search_stops_an_analysis_holding_the_only_worker() -> None:
    async def main() -> None:
        pool = EnginePool(1, warm=())
        await pool.start()
        try:
            mid = OthelloBoard.from_transcript(MIDGAME)
            seen: list[dict[str, Any]] = []
            analysis = pool.submit_analysis("othello", mid.to_dict(), seen.append)
            for _ in range(1200):  # until the analysis runs (hang guard)
                if seen:
                    break
                await asyncio.sleep(0.1)
            assert seen and pool.idle == 0
            # A search comes: it is first in line, and the analysis is stopped for it.
            search = pool.submit("othello", mid.to_dict(), "alphabeta:depth=1")
            assert [j.background for j in pool.order()] == [False]
            final = await asyncio.wait_for(analysis.future, 60)
            assert analysis.preempted and final["stopped_by"] == "stop"
            result = await asyncio.wait_for(search.future, 120)
            assert result.move in {mid.move_name(m) for m in mid.legal_moves}
        finally:
            await pool.close()

    asyncio.run(main())


def test_analyses_wait_behind_every_search_in_a_line_of_their_own() -> None:
    """No worker processes: the pool is never started, so every job waits in line."""

    async def main() -> None:
        pool = EnginePool(1, max_queued=2)
        a = pool.submit_analysis("mattix", {}, owner="A")
        with pytest.raises(PoolBusy, match="this game already has an analysis waiting"):
            pool.submit_analysis("mattix", {}, owner="A")
        s = pool.submit("mattix", {}, "random", owner="B")
        b = pool.submit_analysis("mattix", {}, owner="B")
        t = pool.submit("mattix", {}, "random", owner="A")  # A's search may wait beside it
        assert pool.order() == [s, t, a, b]  # searches first, then analyses
        assert [j.position for j in (s, t, a, b)] == [1, 2, 3, 4]
        with pytest.raises(PoolBusy, match=r"the line for an engine is full \(2 waiting\)"):
            pool.submit("mattix", {}, "random", owner="C")  # two searches wait: full
        a.cancel()
        with pytest.raises(JobCancelled):
            await a
        assert pool.order() == [s, t, b] and b.position == 3
        await pool.close()

    asyncio.run(main())


# --------------------------------------------------------------------------- the socket


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("analysis") / "games.sqlite3"


@pytest.fixture(scope="module")
def client(db: Path) -> Iterator[TestClient]:
    with TestClient(create_app(db, workers=1)) as c:
        yield c


class Conn(WsConn):
    """A game socket that makes moves."""

    def move(self, square: str) -> Msg:
        ply = len(self.state["history"])
        self.send({"type": "move", "square": square})
        return self.next_state(lambda s: len(s["history"]) > ply)


@pytest.fixture
def othello(client: TestClient) -> Iterator[Conn]:
    with client.websocket_connect("/ws/othello") as ws:
        c = Conn(ws)
        c.join()
        yield c


@pytest.fixture
def mattix(client: TestClient) -> Iterator[Conn]:
    with client.websocket_connect("/ws/mattix") as ws:
        c = Conn(ws)
        c.join()
        yield c


def check_rows(msg: Msg, board: Any) -> None:
    """One row per legal move of ``board``, each what its kind says it is."""
    data = msg["data"]
    rows = data["moves"]
    assert sorted(r["move"] for r in rows) == sorted(board.move_name(m) for m in board.legal_moves)
    for r in rows:
        assert r["kind"] in ("exact", "depth", "open"), r
        assert (r["value"] is None) == (r["kind"] == "open"), r
        if r["kind"] != "open":
            assert r["pv"][0] == r["move"] and r["depth"] >= 1
    if rows and rows[0]["value"] is not None:
        assert data["best"] == rows[0]["move"]


def test_analysis_on_gives_the_values_of_the_position_shown(othello: Conn) -> None:
    othello.new(players=HUMANS)
    state = othello.load(MIDGAME)
    board = OthelloBoard.from_transcript(MIDGAME)
    othello.send(ON)
    first = othello.analysis()
    assert first["on"] is True and first["status"] in ("waiting", "running")
    assert first["id"] == state["id"] and first["position"] == 12
    msg = othello.valued(12)
    check_rows(msg, board)
    assert msg["status"] == "running" and msg["data"]["game"] == "othello"
    # it deepens: values come at a greater depth later
    depth = max(r["depth"] for r in msg["data"]["moves"])
    deeper = othello.valued(12, lambda m: max(r["depth"] for r in m["data"]["moves"]) > depth)
    check_rows(deeper, board)
    # switched off: one "off" message, and nothing more of it
    othello.send(OFF)
    off = othello.analysis(lambda m: not m["on"])
    assert off["status"] == "off" and off["data"] is None
    othello.send({"type": "join", "id": state["id"]})  # a re-join answers with the state
    tail = []
    while True:
        m = othello.recv()
        if m["type"] == "state":
            break
        tail.append(m)
    assert all(m["type"] != "analysis" for m in tail), tail


def test_a_small_mattix_deal_is_solved_exactly(mattix: Conn) -> None:
    state = mattix.new(size=4, seed=5, players=HUMANS)
    board = MattixBoard.from_seed(5, 4)
    mattix.send(ON)
    done = mattix.analysis(lambda m: m["status"] == "done")
    assert done["position"] == 0 and done["id"] == state["id"]
    data = done["data"]
    check_rows(done, board)
    assert data["complete"] is True and data["stopped_by"] == "exact"
    assert all(r["kind"] == "exact" for r in data["moves"])
    values = {r["move"]: r["value"] for r in data["moves"]}
    assert values == _mattix_values(board)
    direct = get_game("mattix").analyse
    assert direct is not None
    local = direct(board, Limit(time=60), None, None)
    assert values == {r.move: r.value for r in local.moves}

    # a move: the next position's values, exact again (the other side's view)
    move = data["best"]
    mattix.move(move)
    board.push_name(move)
    again = mattix.analysis(lambda m: m["status"] == "done")
    assert again["position"] == 1
    assert {r["move"]: r["value"] for r in again["data"]["moves"]} == _mattix_values(board)


def test_a_move_undo_and_load_restart_it_on_the_new_position(othello: Conn) -> None:
    othello.new(players=HUMANS)
    othello.load(MIDGAME)
    board = OthelloBoard.from_transcript(MIDGAME)
    othello.send(ON)
    othello.valued(12)
    othello.move("e3")  # every analysis message after this state is of position 13
    board.push_name("e3")
    check_rows(othello.valued(13), board)
    othello.send({"type": "undo"})
    othello.next_state(lambda s: len(s["history"]) == 12)
    board.pop()
    check_rows(othello.valued(12), board)
    othello.move("c6")  # the same ply as before, another position
    board.push_name("c6")
    check_rows(othello.valued(13), board)
    # a loaded game: its own id and position, the switch still on for this connection
    loaded = othello.load("f5d6")
    assert loaded["turn"] == 1
    msg = othello.valued(2)
    assert msg["id"] == loaded["id"]
    check_rows(msg, OthelloBoard.from_transcript("f5d6"))


def test_a_finished_game_has_no_analysis(othello: Conn) -> None:
    othello.send(ON)
    over = othello.load(FULL)
    assert over["over"] is True
    msg = othello.analysis(lambda m: m["id"] == over["id"])
    assert msg["status"] == "over" and msg["data"] is None and msg["position"] == 0


@pytest.mark.parametrize(
    ("raw", "says"),
    [
        ({"type": "analysis"}, "'analysis' needs 'on': true or false"),
        ({"type": "analysis", "on": "yes"}, "got a string"),
        ({"type": "analysis", "on": 1}, "got a number"),
        ({"type": "analysis", "on": None}, "got null"),
        ({"type": "analysis", "on": [True]}, "got an array"),
        ({"type": "analysis", "on": True, "depth": 3}, "unknown field 'depth' in 'analysis'"),
        ('{"type": "analysis", "on": tru}', "not valid JSON"),
    ],
)
def test_bad_analysis_messages_change_nothing(othello: Conn, raw: Any, says: str) -> None:
    before = othello.new(players=HUMANS)
    othello.send(raw if isinstance(raw, str) else json.dumps(raw))
    text = othello.next_error_text()
    assert says in text, text
    # nothing changed: the same state, and the analysis is still off
    othello.send({"type": "join", "id": before["id"]})
    seen = []
    while True:
        m = othello.recv()
        if m["type"] == "state":
            break
        seen.append(m["type"])
    assert "analysis" not in seen and stable(othello.state) == stable(before)


def test_analysis_is_for_the_games_that_have_one(client: TestClient) -> None:
    # every game page has one now (Go's: tests/test_web_go_analysis.py); a game without
    # GameDef.analyse would not take the message
    levels = make_levels(None, GO_LEVELS)
    with pytest.raises(ProtocolError, match="unknown message type 'analysis'"):
        parse_message(json.dumps(ON), GameRules(levels, analysis=False))
    assert isinstance(parse_message(json.dumps(ON), GameRules(levels, analysis=True)),
                      AnalysisSwitch)  # fmt: skip
    with client.websocket_connect("/ws/othello") as ws:
        first = Conn(ws)
        first.send(ON)  # before a join: no game yet
        assert "no game yet" in first.next_error_text()


def test_the_cpu_still_moves_while_analysis_is_on(othello: Conn) -> None:
    othello.new(players=HUMANS)
    othello.load(MIDGAME)
    othello.send(ON)
    othello.valued(12)  # the analysis holds the only worker
    othello.send({"type": "settings", "players": {"2": "easy"}})
    othello.next_state()
    othello.move("e3")  # the CPU (white) answers: its search gets the worker
    replied = othello.next_state(lambda s: len(s["history"]) == 14 and not s["thinking"])
    assert replied["cpu"]["player"] == 2 and replied["turn"] == 1
    board = OthelloBoard.from_transcript(MIDGAME)
    for h in replied["history"][12:]:
        board.push_name(h["square"])
    check_rows(othello.valued(14), board)  # and the analysis goes on after its move

    # A CPU to move at once (black) with analysis on: it moves, then its position is
    # analysed (the human's turn).
    othello.new(players={"1": "easy", "2": "human"})
    moved = othello.next_state(lambda s: len(s["history"]) == 1 and not s["thinking"])
    assert moved["turn"] == 2
    check_rows(othello.valued(1), OthelloBoard.from_transcript(moved["history"][0]["square"]))


def test_another_games_cpu_stops_an_analysis_which_then_resumes(
    client: TestClient, othello: Conn
) -> None:
    othello.new(players=HUMANS)
    othello.load(MIDGAME)
    othello.send(ON)
    othello.valued(12)
    with client.websocket_connect("/ws/mattix") as ws:
        other = Conn(ws)
        other.join()
        other.send({"type": "settings", "delay_ms": 0})
        other.next_state()
        other.new(size=4, seed=3, players={"1": "normal", "2": "human"})
        moved = other.next_state(lambda s: len(s["history"]) == 1 and not s["thinking"])
        assert moved["cpu"]["player"] == 1
    # the analysis gave the worker up for that move, waited, then went on
    waiting = othello.analysis(lambda m: m["status"] == "waiting")
    assert waiting["position"] == 12 and waiting.get("message")
    resumed = othello.valued(12, lambda m: m["status"] == "running")
    check_rows(resumed, OthelloBoard.from_transcript(MIDGAME))


def test_two_clients_one_analysis(client: TestClient, othello: Conn) -> None:
    state = othello.new(players=HUMANS)
    othello.send(ON)
    othello.valued(0)
    with client.websocket_connect("/ws/othello") as ws:
        second = Conn(ws)
        second.join(state["id"])
        second.send(ON)  # joins the running analysis: its latest values at once
        msg = second.analysis()
        assert msg["position"] == 0 and msg["status"] in ("running", "done")
        second.send(OFF)
        assert second.analysis()["status"] == "off"
    # the first client still has it
    check_rows(othello.valued(0), OthelloBoard())
    othello.send(OFF)
    othello.analysis(lambda m: m["status"] == "off")
    for _ in range(600):  # until the worker is free again (hang guard)
        if client.get("/api/health").json()["running"] == 0:
            break
        time.sleep(0.1)
    assert client.get("/api/health").json()["running"] == 0


# --------------------------------------------------------------------------- pages


@pytest.mark.parametrize("name", ["mattix", "othello", "go"])
def test_the_analysis_switch_is_on_the_pages_of_games_with_one(name: str) -> None:
    page = next(p for p in PAGES if p.name == name)
    text = render_page(page)
    assert 'id="analysis"' in text and 'id="analysis-status"' in text
    # Go's own option of it: the territory estimate
    assert ('id="analysis-territory"' in text) == (name == "go")

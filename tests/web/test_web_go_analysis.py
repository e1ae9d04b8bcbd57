"""The analysis mode of the Go page, server side: the pool's Go analysis job (streamed and
stopped), and the ``analysis`` message over /ws/go — win rates and visits of the moves
the tree search looked at, most visited first, each move legal, with the ownership of
every point and the score estimate; restarted by a move (and by a handicap game, White's
to move); none while a game is counted or after a resignation, and again when undo takes
either back; bad messages refused in one line; a CPU move still made.

The app runs with one engine worker, so an analysis and a CPU move always compete for
it. Nothing here asserts how fast anything is: every wait is for a message, with the
module's generous timeout as the only clock.
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
from ws_conn import Msg, WsConn, stable

with warnings.catch_warnings():
    # Starlette 1.x nudges TestClient users towards httpx2; irrelevant to these tests.
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from banmen.games import go
from banmen.web.server import create_app
from banmen.worker import EnginePool

pytestmark = [
    pytest.mark.timeout(240),
    pytest.mark.filterwarnings("ignore:.*httpx2:UserWarning"),
]

HUMANS = {"1": "human", "2": "human"}
ON = {"type": "analysis", "on": True}
OFF = {"type": "analysis", "on": False}


# --------------------------------------------------------------------------- the pool


def test_pool_go_analysis_streams_growing_visits_until_stopped() -> None:
    """A Go analysis has no end of its own (a tree search proves nothing): it streams
    updates with growing visits until it is stopped, and the stop ends it."""

    async def main() -> None:
        pool = EnginePool(1, warm=())
        await pool.start()
        try:
            board = go.Game(go.Board(9))
            seen: list[dict[str, Any]] = []
            job = pool.submit_analysis("go", board.to_dict(), seen.append)
            for _ in range(1200):  # until two updates with more visits (hang guard)
                visits = [u["extra"]["root_visits"] for u in seen]
                if len(visits) >= 2 and visits[-1] > visits[0]:
                    break
                await asyncio.sleep(0.1)
            assert (
                len(seen) >= 2
                and seen[-1]["extra"]["root_visits"] > seen[0]["extra"]["root_visits"]
            )
            assert all(u["stopped_by"] == "" and not u["complete"] for u in seen)
            job.stop()
            final = await asyncio.wait_for(job.future, 60)
            assert final["stopped_by"] == "stop" and not final["complete"]
            assert not job.preempted
        finally:
            await pool.close()

    asyncio.run(main())


# --------------------------------------------------------------------------- the socket


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("go-analysis") / "games.sqlite3"


@pytest.fixture(scope="module")
def client(db: Path) -> Iterator[TestClient]:
    with TestClient(create_app(db, workers=1)) as c:
        yield c


class Conn(WsConn):
    """A socket on /ws/go."""

    def do(self, msg: Msg) -> Msg:
        """Send ``msg`` and return the state it leads to."""
        self.send(msg)
        return self.next_state()

    def move(self, square: str) -> Msg:
        ply = len(self.state["history"])
        self.send({"type": "move", "square": square})
        return self.next_state(lambda s: len(s["history"]) > ply or s["over"])

    def quiet(self) -> list[Msg]:
        """Every message up to the state a re-join answers with (what was still on its way)."""
        self.send({"type": "join", "id": self.state["id"]})
        seen = []
        while True:
            m = self.recv()
            if m["type"] == "state":
                return seen
            seen.append(m)


@pytest.fixture
def conn(client: TestClient) -> Iterator[Conn]:
    with client.websocket_connect("/ws/go") as ws:
        c = Conn(ws)
        c.join()
        yield c


def game_of(state: Msg) -> go.Game:
    """The game a state shows, replayed from the start (handicap stones included)."""
    board = go.Board(state["size"])
    if state["handicap"]:
        board.fixed_handicap(state["handicap"])
    game = go.Game(board)
    for h in state["history"]:
        game.push(game.parse_move(h["square"]))
    return game


def check_go(msg: Msg, state: Msg) -> dict[str, Any]:
    """Rows of the tree search for the position ``state`` shows: win rates (0-1) with
    their visits, most visited first, each move legal and its line starting with it; the
    ownership of every point and the score estimate from the mover's view."""
    data: dict[str, Any] = msg["data"]
    game = game_of(state)
    b = game.board
    legal = {b.move_name(m) for m in b.legal_moves}  # "pass" included
    assert data["game"] == "go" and data["complete"] is False
    rows = data["moves"]
    assert rows, "no candidate yet"
    for r in rows:
        assert r["kind"] == "winrate", r
        assert 0.0 <= r["value"] <= 1.0 and r["visits"] > 0, r
        assert r["move"] in legal, (r["move"], sorted(legal))
        assert r["pv"][0] == r["move"] and r["depth"] == len(r["pv"])
        assert 0.0 <= r["extra"]["lcb"] <= r["value"]
    visits = [r["visits"] for r in rows]
    assert visits == sorted(visits, reverse=True)
    assert len({r["move"] for r in rows}) == len(rows)
    assert data["best"] == rows[0]["move"]
    extra = data["extra"]
    n = state["size"]
    assert extra["to_move"] == ("black" if state["turn"] == go.BLACK else "white")
    assert extra["root_visits"] >= visits[0]
    own = extra["ownership"]
    assert len(own) == n * n and all(-1.0 <= v <= 1.0 for v in own)
    assert isinstance(extra["score_lead"], float | int) and extra["score_stdev"] >= 0
    return data


def test_analysis_gives_win_rates_visits_and_ownership(client: TestClient, conn: Conn) -> None:
    state = conn.new(size=9, players=HUMANS)
    conn.send(ON)
    first = conn.analysis()
    assert first["on"] is True and first["status"] in ("waiting", "running")
    assert first["id"] == state["id"] and first["position"] == 0
    msg = conn.valued(0)
    assert msg["status"] == "running"
    data = check_go(msg, state)
    # It goes on: more visits later, the rows still in order.
    more = conn.valued(
        0, lambda m: m["data"]["extra"]["root_visits"] > data["extra"]["root_visits"]
    )
    check_go(more, state)
    # On an empty 9x9 board the mover's estimated ownership is the same at every symmetric
    # corner within the playouts' noise: a sanity check of the row order (top row first).
    own = more["data"]["extra"]["ownership"]
    assert own[0] == pytest.approx(own[80], abs=0.5) and own[8] == pytest.approx(own[72], abs=0.5)

    # Off: one "off" message, and the worker is free again.
    conn.send(OFF)
    off = conn.analysis(lambda m: not m["on"])
    assert off["status"] == "off" and off["data"] is None
    assert all(m["type"] != "analysis" for m in conn.quiet())
    for _ in range(600):  # until the worker is free again (hang guard)
        if client.get("/api/health").json()["running"] == 0:
            break
        time.sleep(0.1)
    assert client.get("/api/health").json()["running"] == 0


def test_a_move_restarts_it_and_a_handicap_game_is_whites_to_analyse(conn: Conn) -> None:
    conn.new(size=9, players=HUMANS)
    conn.send(ON)
    conn.valued(0)
    state = conn.move("E5")  # every analysis message after this state is of position 1
    data = check_go(conn.valued(1), state)
    assert data["extra"]["to_move"] == "white"
    assert "E5" not in {r["move"] for r in data["moves"]}
    # the stone on E5 is black's: from white's view its ownership leans to black (< 0)
    assert data["extra"]["ownership"][4 * 9 + 4] < 0
    state = conn.do({"type": "undo"})
    assert state["history"] == []
    check_go(conn.valued(0), state)

    # A handicap game: White moves first, and the analysis is White's.
    state = conn.new(size=9, handicap=3, players=HUMANS)
    assert state["handicap"] == 3 and state["turn"] == go.WHITE
    data = check_go(conn.valued(0), state)
    assert data["extra"]["to_move"] == "white"

    # 19x19: the ownership has 361 points.
    state = conn.new(size=19, players=HUMANS)
    data = check_go(conn.valued(0), state)
    assert len(data["extra"]["ownership"]) == 361


def test_no_analysis_while_counting_or_after_a_resignation(conn: Conn) -> None:
    conn.new(size=9, players=HUMANS)
    conn.send(ON)
    for m in ("E5", "E4"):
        conn.move(m)
    conn.valued(2)

    # Two passes: the game is counted, and there is nothing to analyse.
    conn.move("pass")
    conn.valued(3)
    counting = conn.move("pass")
    assert counting["over"] and counting["counting"] is not None
    over = conn.analysis(lambda m: m["position"] == 4)
    assert over["status"] == "over" and over["data"] is None
    # marking stones dead changes nothing
    conn.do({"type": "toggle", "square": "E4"})
    assert all(m["type"] != "analysis" or m["status"] == "over" for m in conn.quiet())

    # Undo takes back the second pass: the analysis comes back for that position.
    state = conn.do({"type": "undo"})
    assert not state["over"] and len(state["history"]) == 3
    check_go(conn.valued(3), state)

    # "score" counts the game without a move: the same ply, and now over.
    state = conn.do({"type": "score"})
    assert state["over"] and len(state["history"]) == 3
    over = conn.analysis(lambda m: m["status"] != "running")
    assert over["status"] == "over" and over["position"] == 3 and over["data"] is None
    assert all(m["type"] != "analysis" or m["status"] == "over" for m in conn.quiet())
    # undo goes back to playing: the same position is analysed again
    state = conn.do({"type": "undo"})
    assert not state["over"] and state["counting"] is None
    check_go(conn.valued(3, lambda m: m["status"] == "running"), state)

    # A resignation ends it too (no move is added), and undo brings it back.
    state = conn.move("resign")
    assert state["over"] and state["resigned"] == go.WHITE and len(state["history"]) == 3
    over = conn.analysis(lambda m: m["status"] != "running")
    assert over["status"] == "over" and over["position"] == 3
    state = conn.do({"type": "undo"})
    assert not state["over"]
    check_go(conn.valued(3, lambda m: m["status"] == "running"), state)


@pytest.mark.parametrize(
    ("raw", "says"),
    [
        ({"type": "analysis"}, "'analysis' needs 'on': true or false"),
        ({"type": "analysis", "on": "on"}, "got a string"),
        ({"type": "analysis", "on": 0}, "got a number"),
        ({"type": "analysis", "on": True, "visits": 100}, "unknown field 'visits' in 'analysis'"),
        ({"type": "analysis", "on": True, "square": "D4"}, "unknown field 'square'"),
        ('{"type": "analysis", "on": True}', "not valid JSON"),
    ],
)
def test_bad_analysis_messages_change_nothing(conn: Conn, raw: Any, says: str) -> None:
    before = conn.new(size=9, players=HUMANS)
    conn.send(raw if isinstance(raw, str) else json.dumps(raw))
    text = conn.next_error_text()
    assert says in text, text
    seen = conn.quiet()
    assert all(m["type"] != "analysis" for m in seen), seen
    assert stable(conn.state) == stable(before)


def test_the_cpu_still_moves_while_analysis_is_on(conn: Conn) -> None:
    conn.new(size=9, players=HUMANS)
    conn.send(ON)
    conn.valued(0)  # the analysis holds the only worker
    conn.send({"type": "settings", "players": {"2": "quick"}})
    conn.next_state()
    conn.move("E5")  # the CPU (white) answers: its search gets the worker
    replied = conn.next_state(lambda s: len(s["history"]) == 2 and not s["thinking"])
    assert replied["cpu"]["player"] == go.WHITE and replied["turn"] == go.BLACK
    check_go(conn.valued(2), replied)  # and the analysis goes on after its move

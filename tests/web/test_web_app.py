"""The web app through Starlette's TestClient: protocol validation, game flow, persistence.

No browser here (see test_web_browser.py). The app runs with one engine worker; CPU
players use the fast "normal" level (alphabeta:depth=1) unless a test needs a long search.
"""

from __future__ import annotations

import json
import sqlite3
import time
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.websockets import WebSocketDisconnect
from ws_conn import Msg, WsConn, stable

with warnings.catch_warnings():
    # Starlette 1.x nudges TestClient users towards httpx2; irrelevant to these tests.
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from banmen.games.mattix import Board
from banmen.search.limits import Limit
from banmen.web.games.mattix import MATTIX_LEVELS
from banmen.web.lag import LagMonitor, percentile
from banmen.web.levels import MOVE_TIME_CAP, capped_limit, make_levels
from banmen.web.protocol import MAX_MESSAGE_BYTES
from banmen.web.server import create_app, default_db_path
from banmen.web.store import GameStore

pytestmark = [
    pytest.mark.timeout(30),
    pytest.mark.filterwarnings("ignore:.*httpx2:UserWarning"),
]


# --------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    db = tmp_path_factory.mktemp("web") / "games.sqlite3"
    with TestClient(create_app(db, workers=1)) as c:
        yield c


class Conn(WsConn):
    """A socket on /ws/mattix."""

    limit = 2000

    def next_error(self) -> Msg:
        """The next error; a state arriving first means the message was acted on."""
        msg = self.until(lambda m: m["type"] in ("error", "state"))
        assert msg["type"] == "error", f"expected an error, got a new state: {msg}"
        return msg


@pytest.fixture
def conn(client: TestClient) -> Iterator[Conn]:
    with client.websocket_connect("/ws/mattix") as ws:
        c = Conn(ws)
        c.join()
        yield c


HUMANS = {"1": "human", "2": "human"}


# --------------------------------------------------------------------------- pages and API


def test_pages_and_static_files_are_served(client: TestClient) -> None:
    home = client.get("/")
    assert home.status_code == 200
    assert 'href="/mattix"' in home.text and "Mattix" in home.text
    assert "<!--games-->" not in home.text
    assert "default-src 'self'" in home.headers["content-security-policy"]

    page = client.get("/mattix")
    assert page.status_code == 200
    assert 'name="viewport"' in page.text
    assert '<script type="module" src="/static/js/mattix.js">' in page.text

    for path in ("/static/js/mattix.js", "/static/js/board.js", "/static/js/connection.js",
                 "/static/css/app.css", "/static/favicon.svg"):  # fmt: skip
        r = client.get(path)
        assert r.status_code == 200, path
        assert len(r.content) > 100, path
    # Nothing may come from a CDN: no absolute URLs in the page or the modules.
    for path in ("/mattix", "/static/js/mattix.js", "/static/js/board.js"):
        text = client.get(path).text
        assert "https://" not in text and "//cdn" not in text, path

    games = {g["name"]: g for g in client.get("/api/games").json()}
    assert games["mattix"]["path"] == "/mattix" and games["mattix"]["title"] == "Mattix"
    assert client.get("/static/nope.js").status_code == 404


def test_health_reports_engines_and_loop_lag(client: TestClient) -> None:
    deadline = time.monotonic() + 60
    while True:
        health = client.get("/api/health").json()
        if health["engines_ready"] or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert health["engines_ready"] is True
    assert health["workers"] == 1
    assert isinstance(health["running"], int) and health["running"] >= 0
    lag = health["loop_lag_ms"]
    assert lag["samples"] > 0  # the monitor has been sampling while we waited
    assert 0 <= lag["p99_ms"] <= lag["max_ms"]


def test_saved_game_api(client: TestClient, conn: Conn) -> None:
    state = conn.new(size=4, seed=21, players=HUMANS)
    saved = client.get(f"/api/saved/{state['id']}").json()
    assert saved["game"] == "mattix"
    assert Board.from_dict(saved["state"]["board"]) == Board.from_seed(21, 4)
    assert client.get("/api/saved/no-such-game").status_code == 404
    assert client.get("/api/saved/bad%20id").status_code == 404


def test_percentile_and_lag_monitor() -> None:
    assert percentile([], 99) == 0.0
    values = [float(v) for v in range(1, 101)]
    assert percentile(values, 99) == 99.0
    assert percentile(values, 50) == 50.0
    assert percentile(values, 100) == 100.0
    mon = LagMonitor(interval=0.02, window=10)
    assert mon.stats()["samples"] == 0


def test_cross_site_websocket_is_refused(client: TestClient) -> None:
    with pytest.raises(WebSocketDisconnect):
        with client.websocket_connect("/ws/mattix", headers={"origin": "http://evil.example"}):
            pass


# --------------------------------------------------------------------------- bad input


def _over_long() -> str:
    return json.dumps({"type": "move", "square": "a" * (MAX_MESSAGE_BYTES * 4)})


# (test id, raw message, a word the error must contain to show it names the problem)
GARBAGE: list[tuple[str, str, str]] = [
    ("not json", "not json {", "not valid JSON"),
    ("truncated json", '{"type": "move", "square": "a1"', "not valid JSON"),
    ("array", '["move", "a1"]', "array"),
    ("string", '"move a1"', "a string"),
    ("number", "42", "a number"),
    ("null", "null", "null"),
    ("empty object", "{}", 'missing "type"'),
    ("empty text", "", "not valid JSON"),
    ("unknown type", '{"type": "dance"}', "unknown message type 'dance'"),
    ("numeric type", '{"type": 5}', "unknown message type a number"),
    ("unknown field", '{"type": "undo", "all": true}', "unknown field 'all'"),
    ("move without square", '{"type": "move"}', "needs a 'square'"),
    ("square is a number", '{"type": "move", "square": 12}', "'square' must be a string"),
    ("square is a list", '{"type": "move", "square": ["a1"]}', "'square' must be a string"),
    ("square is null", '{"type": "move", "square": null}', "'square' must be a string"),
    ("bad square name", '{"type": "move", "square": "z9"}', "bad square 'z9'"),
    ("off-board column", '{"type": "move", "square": "e1"}', "bad square 'e1'"),
    ("row zero", '{"type": "move", "square": "a0"}', "rows run from 1 to 4"),
    ("off-board row", '{"type": "move", "square": "a5"}', "rows run from 1 to 4"),
    ("non-ascii square", '{"type": "move", "square": "é1"}', "bad square"),
    ("long square", '{"type": "move", "square": "a1; DROP TABLE saved_games"}', "bad square"),
    ("nested json", '{"type": "move", "square": ' + "[" * 1500 + "]" * 1500 + "}", "JSON"),
    ("NaN", '{"type": "settings", "delay_ms": NaN}', "JSON"),
    ("size not allowed", '{"type": "new", "size": 5}', "'size' must be one of 4, 6"),
    (
        "size too big",
        '{"type": "new", "size": 100}',
        "'size' must be a whole number from 4 to 6, got 100",
    ),
    (
        "size as string",
        '{"type": "new", "size": "4"}',
        "'size' must be a whole number from 4 to 6, got ",
    ),
    (
        "size as bool",
        '{"type": "new", "size": true}',
        "'size' must be a whole number from 4 to 6, got ",
    ),
    (
        "size as float",
        '{"type": "new", "size": 4.0}',
        "'size' must be a whole number from 4 to 6, got ",
    ),
    ("negative seed", '{"type": "new", "seed": -1}', "'seed' must be a whole number from 0"),
    ("float seed", '{"type": "new", "seed": 1.5}', "'seed' must be a whole number from 0"),
    (
        "seed too big",
        '{"type": "new", "seed": 18446744073709551616}',
        "'seed' must be a whole number from 0",
    ),
    ("seed not digits", '{"type": "new", "seed": "12ab"}', "'seed' must be a whole number"),
    ("unknown level", '{"type": "new", "players": {"1": "god"}}', "bad level 'god'"),
    ("unknown side", '{"type": "new", "players": {"3": "human"}}', "bad side '3'"),
    ("players as list", '{"type": "new", "players": ["human"]}', "'players' must be an object"),
    ("empty settings", '{"type": "settings"}', "changes nothing"),
    (
        "negative delay",
        '{"type": "settings", "delay_ms": -5}',
        "'delay_ms' must be a whole number from 0",
    ),
    (
        "huge delay",
        '{"type": "settings", "delay_ms": 99999999}',
        "'delay_ms' must be a whole number from 0",
    ),
    ("paused as string", '{"type": "settings", "paused": "yes"}', "'paused' must be true or false"),
    ("stop with no CPU", '{"type": "stop"}', "no CPU is thinking"),
    ("undo with no moves", '{"type": "undo"}', "nothing to undo"),
    ("bad game id", '{"type": "join", "id": "../../etc/passwd"}', "bad game id"),
    ("numeric game id", '{"type": "join", "id": 5}', "'id' must be a string"),
    ("over-long message", _over_long(), f"the limit is {MAX_MESSAGE_BYTES} bytes"),
]


@pytest.mark.parametrize(("raw", "says"), [g[1:] for g in GARBAGE], ids=[g[0] for g in GARBAGE])
def test_garbage_gets_a_one_line_error_and_changes_nothing(conn: Conn, raw: str, says: str) -> None:
    before = conn.new(size=4, seed=5, players=HUMANS)
    conn.send(raw)
    err = conn.next_error()
    message = err["message"]
    assert says in message
    assert "\n" not in message and "Traceback" not in message and "internal" not in message
    assert len(message) < 300
    assert set(err) == {"type", "message"}
    assert stable(conn.resync()) == stable(before)


def test_binary_frame_gets_an_error(conn: Conn) -> None:
    before = conn.new(size=4, seed=5, players=HUMANS)
    conn.ws.send_bytes(b'{"type": "undo"}')
    assert "text frame" in conn.next_error()["message"]
    assert stable(conn.resync()) == stable(before)


def test_illegal_square_is_refused(conn: Conn) -> None:
    before = conn.new(size=4, seed=5, players=HUMANS)
    n = before["size"]
    illegal = [
        sq for sq, v in enumerate(before["cells"]) if v is not None and sq not in before["legal"]
    ]
    assert illegal
    for sq in illegal[:3]:
        name = f"{chr(97 + sq % n)}{sq // n + 1}"
        conn.send({"type": "move", "square": name})
        msg = conn.next_error()["message"]
        assert name in msg and "row" in msg  # player 1 takes from the chip's row
    # the chip's own square is empty
    chip = before["chip"]
    conn.send({"type": "move", "square": f"{chr(97 + chip % n)}{chip // n + 1}"})
    conn.next_error()
    assert stable(conn.resync()) == stable(before)


def test_move_when_the_cpu_is_to_move_is_refused(conn: Conn) -> None:
    conn.new(size=4, seed=8, players=HUMANS)
    conn.send({"type": "settings", "players": {"1": "normal"}, "paused": True})
    before = conn.next_state()
    assert before["players"]["1"] == "normal" and before["paused"] and not before["thinking"]
    conn.send({"type": "move", "square": _name(before["legal"][0], 4)})
    assert "not a human's turn" in conn.next_error()["message"]
    assert stable(conn.resync()) == stable(before)


def test_move_while_the_cpu_thinks_is_refused_and_stop_moves_at_once(conn: Conn) -> None:
    # A perfect-play CPU on a fresh 6x6 deal needs the best part of a second to solve it,
    # so the move and the Stop below reach it mid-search.
    thinking = conn.new(size=6, seed=31337, players={"1": "perfect", "2": "human"})
    assert thinking["thinking"] and thinking["thinking"]["player"] == 1
    conn.send({"type": "move", "square": _name(thinking["legal"][0], 6)})
    conn.next_error()
    conn.send({"type": "stop"})
    moved = conn.next_state(lambda s: len(s["history"]) == 1)
    cpu = moved["cpu"]
    assert cpu["player"] == 1 and cpu["stopped_by"] == "stop"
    assert cpu["exact"] is False
    assert cpu["verdict"].startswith("estimated") and "not proven" in cpu["verdict"]
    assert moved["thinking"] is None and moved["turn"] == 2


# --------------------------------------------------------------------------- game flow


def _name(sq: int, size: int) -> str:
    return f"{chr(97 + sq % size)}{sq // size + 1}"


@pytest.mark.parametrize(
    ("size", "seed"), [(4, 0), (4, 11), (6, 12345), (6, "18446744073709551615")]
)
def test_new_game_reproduces_the_seeded_deal(conn: Conn, size: int, seed: int | str) -> None:
    state = conn.new(size=size, seed=seed, players=HUMANS)
    expected = Board.from_seed(int(seed), size)
    assert state["size"] == size and state["seed"] == str(seed)
    assert state["cells"] == expected.cells
    assert state["chip"] == expected.chip
    assert state["turn"] == 1 and state["scores"] == [0, 0]
    assert state["legal"] == expected.legal_moves


def test_blank_seed_is_random_and_shown(conn: Conn) -> None:
    a = conn.new(size=6, seed=None)
    b = conn.new(size=6, seed="")
    for s in (a, b):
        assert s["seed"] is not None
        assert s["cells"] == Board.from_seed(int(s["seed"]), 6).cells
    assert a["id"] != b["id"]


def test_human_move_updates_the_state(conn: Conn) -> None:
    before = conn.new(size=4, seed=3, players=HUMANS)
    sq = before["legal"][-1]
    conn.send({"type": "move", "square": _name(sq, 4).upper()})  # names are case-insensitive
    after = conn.next_state()
    board = Board.from_seed(3, 4)
    value = board.cells[sq]
    board.push(sq)
    assert after["cells"] == board.cells and after["chip"] == sq == board.chip
    assert after["scores"] == [value, 0]
    assert after["turn"] == 2 and after["line"] == board.line()
    assert after["last"] == {
        "ply": 1, "player": 1, "square": _name(sq, 4), "sq": sq,
        "from": before["chip"], "value": value,
    }  # fmt: skip
    assert after["can_undo"] is True


def test_undo_against_the_cpu_goes_back_to_the_humans_turn(conn: Conn) -> None:
    start = conn.new(size=4, seed=9, players={"1": "human", "2": "normal"})
    assert start["can_undo"] is False
    conn.send({"type": "move", "square": _name(start["legal"][0], 4)})
    replied = conn.next_state(lambda s: len(s["history"]) == 2)
    assert replied["turn"] == 1 and replied["history"][1]["player"] == 2
    assert replied["cpu"]["player"] == 2 and replied["cpu"]["ply"] == 2
    conn.send({"type": "undo"})
    undone = conn.next_state()
    assert undone["history"] == [] and undone["turn"] == 1
    assert undone["cells"] == start["cells"] and undone["scores"] == [0, 0]
    assert undone["cpu"] is None and undone["thinking"] is None


def test_undo_between_humans_takes_back_one_move(conn: Conn) -> None:
    start = conn.new(size=4, seed=9, players=HUMANS)
    conn.send({"type": "move", "square": _name(start["legal"][0], 4)})
    one = conn.next_state()
    conn.send({"type": "move", "square": _name(one["legal"][0], 4)})
    conn.next_state()
    conn.send({"type": "undo"})
    assert stable(conn.next_state()) == stable(one)


def test_human_against_cpu_plays_to_the_end(conn: Conn) -> None:
    state = conn.new(size=4, seed=17, players={"1": "human", "2": "normal"})
    for _ in range(20):
        if state["over"]:
            break
        assert state["turn"] == 1 and not state["thinking"]
        ply = len(state["history"])
        conn.send({"type": "move", "square": _name(state["legal"][0], 4)})

        def replied(s: Msg, ply: int = ply) -> bool:  # the CPU has answered, or it is over
            return bool(s["over"] or (len(s["history"]) >= ply + 2 and s["turn"] == 1))

        state = conn.next_state(replied)
    _check_finished(state)


def test_cpu_against_cpu_plays_to_the_end(client: TestClient, conn: Conn) -> None:
    conn.send({"type": "settings", "delay_ms": 0})
    conn.next_state()
    state = conn.new(size=4, seed=23, players={"1": "normal", "2": "normal"})
    final = conn.next_state(lambda s: s["over"])
    _check_finished(final)
    assert all(not final["players"][s] == "human" for s in "12")
    saved = client.get(f"/api/saved/{state['id']}").json()["state"]
    assert saved["board"]["scores"] == final["scores"]
    assert saved["board"]["result"] == final["result"]


def _check_finished(state: Msg) -> None:
    """A finished game's state agrees with itself and with the rules."""
    assert state["over"] and state["legal"] == []
    totals = [0, 0]
    board = Board.from_seed(int(state["seed"]), state["size"])
    for mv in state["history"]:
        totals[mv["player"] - 1] += mv["value"]
        board.push_name(mv["square"])
    assert totals == state["scores"] == list(board.scores)
    assert board.is_game_over() and state["result"] == board.result()
    a, b = state["scores"]
    assert state["winner"] == (None if a == b else 1 if a > b else 2)


def test_cpu_vs_cpu_undo_pauses(conn: Conn) -> None:
    conn.send({"type": "settings", "delay_ms": 0})
    conn.next_state()
    conn.new(size=4, seed=4, players={"1": "normal", "2": "normal"})
    conn.next_state(lambda s: s["over"])
    conn.send({"type": "undo"})
    undone = conn.next_state()
    assert undone["paused"] is True and not undone["over"] and undone["thinking"] is None


def test_settings_resume_lets_the_cpu_move(conn: Conn) -> None:
    conn.new(size=4, seed=8, players=HUMANS)
    conn.send({"type": "settings", "players": {"1": "normal"}, "paused": True})
    paused = conn.next_state()
    assert paused["history"] == []
    conn.send({"type": "settings", "paused": False})
    moved = conn.next_state(lambda s: len(s["history"]) == 1)
    assert moved["history"][0]["player"] == 1 and moved["turn"] == 2


# --------------------------------------------------------------------------- persistence


def test_second_connection_gets_the_same_game(client: TestClient, conn: Conn) -> None:
    start = conn.new(size=6, seed=77, players=HUMANS)
    conn.send({"type": "move", "square": _name(start["legal"][0], 6)})
    moved = conn.next_state()
    with client.websocket_connect("/ws/mattix") as ws2:
        other = Conn(ws2)
        assert stable(other.join(moved["id"])) == stable(moved)
        # a move on one connection reaches the other
        other.send({"type": "move", "square": _name(moved["legal"][0], 6)})
        mine = conn.next_state()
        assert stable(mine) == stable(other.next_state())


def test_unknown_game_id_starts_a_new_game_with_a_notice(conn: Conn) -> None:
    conn.send({"type": "join", "id": "NoSuchGame123"})
    notice = conn.until(lambda m: m["type"] in ("notice", "state"))
    assert notice["type"] == "notice" and "NoSuchGame123" in notice["message"]
    state = conn.next_state()
    assert state["id"] != "NoSuchGame123"


def test_game_survives_a_server_restart(tmp_path: Path) -> None:
    db = tmp_path / "restart.sqlite3"
    with TestClient(create_app(db, workers=1)) as c1:
        with c1.websocket_connect("/ws/mattix") as ws:
            conn = Conn(ws)
            conn.join()
            start = conn.new(size=4, seed=42, players={"1": "human", "2": "normal"})
            conn.send({"type": "move", "square": _name(start["legal"][0], 4)})
            played = conn.next_state(lambda s: len(s["history"]) == 2)
    with TestClient(create_app(db, workers=1)) as c2:
        with c2.websocket_connect("/ws/mattix") as ws:
            again = Conn(ws).join(played["id"])
    assert stable(again) == stable(played)
    assert Board.from_dict(
        {"start": Board.from_seed(42, 4).layout(), "moves": [m["square"] for m in again["history"]]}
    ).scores == tuple(again["scores"])


def test_reconnect_resumes_a_cpu_that_was_thinking(client: TestClient) -> None:
    with client.websocket_connect("/ws/mattix") as ws:
        conn = Conn(ws)
        conn.join()
        started = conn.new(size=6, seed=2024, players={"1": "perfect", "2": "human"})
        assert started["thinking"]
    # the only client left: the search was stopped and its result will be dropped
    with client.websocket_connect("/ws/mattix") as ws:
        conn = Conn(ws)
        resumed = conn.join(started["id"])
        assert resumed["history"] == [] and resumed["thinking"]["player"] == 1
        moved = conn.next_state(lambda s: len(s["history"]) == 1)
        assert moved["cpu"]["player"] == 1 and moved["turn"] == 2
        assert moved["cpu"]["exact"] is True  # not stopped: a full solve of the deal
        assert moved["cpu"]["verdict"].startswith("proven final margin:")


def test_unreadable_saved_game_starts_a_new_game_with_a_notice(
    client: TestClient, conn: Conn
) -> None:
    store = client.app.state.store  # type: ignore[attr-defined]
    store.save("Broken_game-1", "mattix", {"board": {"start": "1,2/3"}})
    conn.send({"type": "join", "id": "Broken_game-1"})
    notice = conn.until(lambda m: m["type"] in ("notice", "state"))
    assert notice["type"] == "notice" and "could not be read" in notice["message"]
    assert conn.next_state()["id"] != "Broken_game-1"


# --------------------------------------------------------------------------- configuration


def test_cpu_moves_are_capped_in_time() -> None:
    assert capped_limit("perfect") == Limit(time=MOVE_TIME_CAP)
    assert capped_limit("alphabeta:depth=3") == Limit(time=MOVE_TIME_CAP, depth=3)
    assert capped_limit("alphabeta:time=1") == Limit(time=1.0)
    assert capped_limit("alphabeta:time=1000") == Limit(time=MOVE_TIME_CAP)
    assert MOVE_TIME_CAP <= 30


def test_levels_and_their_specs() -> None:
    levels = make_levels(None, MATTIX_LEVELS)
    assert levels["human"].spec is None
    assert levels["normal"].spec == "alphabeta:depth=1"
    assert levels["strong"].spec == "alphabeta:depth=3"
    assert levels["1s"].spec == "alphabeta:time=1"
    assert levels["perfect"].spec == "perfect"
    assert make_levels({"bench": "alphabeta:time=2"}, MATTIX_LEVELS)["bench"].is_cpu
    with pytest.raises(ValueError):
        make_levels({"bad": "deepblue"}, MATTIX_LEVELS)
    with pytest.raises(ValueError):
        make_levels({"human": "alphabeta:depth=1"}, MATTIX_LEVELS)


def test_default_db_path_honours_banmen_db(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("BANMEN_DB", str(tmp_path / "x.sqlite3"))
    assert default_db_path() == tmp_path / "x.sqlite3"
    monkeypatch.delenv("BANMEN_DB")
    assert default_db_path().name == "banmen.sqlite3"


def test_store_uses_wal_and_round_trips(tmp_path: Path) -> None:
    store = GameStore(tmp_path / "sub" / "s.sqlite3")
    try:
        store.save("abc", "mattix", {"x": 1})
        store.save("abc", "mattix", {"x": 2})
        saved = store.load("abc")
        assert saved is not None and saved.state == {"x": 2} and saved.created <= saved.updated
        assert store.load("nope") is None and store.load("../x") is None
        assert store.count() == 1
    finally:
        store.close()
    with sqlite3.connect(tmp_path / "sub" / "s.sqlite3") as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"

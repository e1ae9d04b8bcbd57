"""Game clocks on the web pages (issue 39): the server is the referee.

Through Starlette's TestClient on the Mattix socket (the fastest game), with the
sessions' wall clock replaced by a :class:`FakeWall` the test moves by hand: no test
here waits for, or asserts, a wall-clock duration. The clocks' own bookkeeping
(:class:`banmen.web.clocks.GameClocks`) is tested alone first.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Iterator
from typing import Any

import pytest
from ws_conn import Msg, WsConn, stable

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from banmen.clock import EXPIRY_MARGIN, parse_time_control
from banmen.web.clocks import GameClocks
from banmen.web.levels import MOVE_TIME_CAP
from banmen.web.protocol import MAX_CLOCK_CHARS, GameRules, ProtocolError, parse_message
from banmen.web.server import create_app
from banmen.web.session import GameSession

pytestmark = [
    pytest.mark.timeout(60),
    pytest.mark.filterwarnings("ignore:.*httpx2:UserWarning"),
]

HUMANS = {"1": "human", "2": "human"}


class FakeWall:
    """A wall clock that moves only when told (:meth:`advance`)."""

    def __init__(self, start: float = 1_000_000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


# --------------------------------------------------------------------------- GameClocks


def test_a_move_is_charged_to_its_mover_with_the_increment() -> None:
    c = GameClocks.start(parse_time_control("60+2"))
    c.resume(1, 100.0)
    assert c.running == 1 and c.elapsed(103.5) == 3.5
    assert c.charge(1, 0, 103.5)
    assert c.clocks[1].left == pytest.approx(58.5) and c.clocks[2].left == 60
    assert c.running is None and c.before == [GameClocks.start(c.control).clocks[1].to_dict()]


def test_a_halted_clock_keeps_the_time_its_move_took() -> None:
    c = GameClocks.start(parse_time_control("60"))
    c.resume(2, 0.0)
    c.halt(4.0)  # a pause: 4 s spent, the clock stopped
    assert c.running is None and c.elapsed(50.0) == 4.0
    c.resume(2, 50.0)
    assert c.elapsed(51.0) == 5.0
    c.resume(1, 52.0)  # another side's move starts from nothing
    assert c.elapsed(52.0) == 0.0


def test_the_flag_falls_past_the_expiry_margin_only() -> None:
    c = GameClocks.start(parse_time_control("10"))
    c.resume(1, 0.0)
    assert c.until_expiry(0.0) == pytest.approx(10 + EXPIRY_MARGIN)
    assert not c.expired(10 + EXPIRY_MARGIN / 2)  # within the margin: not yet
    assert c.expired(10 + EXPIRY_MARGIN * 2)
    assert c.flag(10 + EXPIRY_MARGIN * 2) == 1
    assert c.flagged == 1 and c.clocks[1].flagged and c.running is None
    assert c.until_expiry(99.0) is None and not c.expired(99.0)


def test_a_late_move_loses_on_time_and_one_within_the_margin_does_not() -> None:
    c = GameClocks.start(parse_time_control("10"))
    c.resume(1, 0.0)
    assert c.charge(1, 0, 10 + EXPIRY_MARGIN / 2)  # made it, at zero
    assert c.clocks[1].left == 0 and c.flagged is None
    c.resume(2, 0.0)
    assert not c.charge(2, 1, 10 + EXPIRY_MARGIN * 2)
    assert c.flagged == 2


def test_byoyomi_clocks_fall_after_the_last_period() -> None:
    c = GameClocks.start(parse_time_control("byoyomi=5+2x3"))
    c.resume(1, 0.0)
    assert c.until_expiry(0.0) == pytest.approx(5 + 2 * 3 + EXPIRY_MARGIN)
    assert c.charge(1, 0, 9.0)  # main time and one period gone, a period left
    assert c.clocks[1].overtime and c.clocks[1].periods_left == 1


def test_undo_gives_the_undone_moves_time_back() -> None:
    c = GameClocks.start(parse_time_control("60"))
    c.resume(1, 0.0)
    c.charge(1, 0, 5.0)
    c.resume(2, 5.0)
    c.charge(2, 1, 12.0)
    c.resume(1, 12.0)
    assert (c.clocks[1].left, c.clocks[2].left) == (55, 53)
    c.undo_to(1, lambda k: 1 if k % 2 == 0 else 2)  # move 2 (side 2's) taken back
    assert (c.clocks[1].left, c.clocks[2].left) == (55, 60)
    assert len(c.before) == 1 and c.running is None
    c.undo_to(0, lambda k: 1 if k % 2 == 0 else 2)
    assert (c.clocks[1].left, c.clocks[2].left) == (60, 60) and c.before == []


def test_undo_past_a_fallen_flag_puts_it_up_again() -> None:
    c = GameClocks.start(parse_time_control("10"))
    c.resume(1, 0.0)
    c.charge(1, 0, 2.0)
    c.resume(2, 2.0)
    c.flag(20.0)
    assert c.flagged == 2
    c.undo_to(0, lambda k: 1 if k % 2 == 0 else 2)
    assert c.flagged is None and not c.clocks[2].flagged


def test_clocks_round_trip_and_bad_ones_are_one_line() -> None:
    c = GameClocks.start(parse_time_control("byoyomi=300+3x30"))
    c.resume(1, 10.0)
    c.charge(1, 0, 20.0)
    c.resume(2, 20.0)
    back = GameClocks.from_dict(c.to_dict())
    assert back.to_dict() == c.to_dict()
    assert back.elapsed(25.0) == c.elapsed(25.0) == 5.0
    bad: list[Any] = [
        None,
        {},
        {**c.to_dict(), "control": "60+"},
        {**c.to_dict(), "side": 3},
        {**c.to_dict(), "used": -1},
        {**c.to_dict(), "since": "soon"},
        {**c.to_dict(), "before": [{"left": 1}]},
        {**c.to_dict(), "clocks": {"1": {}}},
    ]
    for d in bad:
        with pytest.raises(ValueError) as e:
            GameClocks.from_dict(d)
        assert "\n" not in str(e.value)


# --------------------------------------------------------------------------- protocol


def test_new_takes_a_clock_and_refuses_a_malformed_one_in_one_line() -> None:
    rules = GameRules(levels=("human",))
    msg = parse_message('{"type": "new", "clock": "3+2"}', rules)
    assert str(msg.clock) == "3+2"  # type: ignore[union-attr]
    assert parse_message('{"type": "new"}', rules).clock is None  # type: ignore[union-attr]
    for raw, words in [
        ('{"type": "new", "clock": "3+"}', "expected inf"),
        ('{"type": "new", "clock": "byoyomi=600+0x30"}', "expected inf"),
        ('{"type": "new", "clock": 180}', "must be a string"),
        ('{"type": "new", "clock": ["3+2"]}', "must be a string"),
        ('{"type": "new", "clock": "' + "9" * (MAX_CLOCK_CHARS + 1) + '"}', "too long"),
    ]:
        with pytest.raises(ProtocolError) as e:
            parse_message(raw, rules)
        assert words in str(e.value) and "\n" not in str(e.value)


# --------------------------------------------------------------------------- the app


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    db = tmp_path_factory.mktemp("web") / "games.sqlite3"
    with TestClient(create_app(db, workers=1)) as c:
        yield c


@pytest.fixture
def wall(client: TestClient) -> Iterator[FakeWall]:
    services = client.app.state.hub.services  # type: ignore[attr-defined]
    fake = FakeWall()
    services.wall = fake
    yield fake
    services.wall = time.time


class Conn(WsConn):
    """A socket on /ws/mattix."""

    limit = 2000

    def play(self, k: int = 0) -> Msg:
        """The side to move plays its ``k``-th legal move; the state after it."""
        s = self.state
        n, ply = s["size"], len(s["history"])
        sq = s["legal"][k]
        self.send({"type": "move", "square": f"{chr(97 + sq % n)}{sq // n + 1}"})
        return self.next_state(lambda m: len(m["history"]) == ply + 1)


@pytest.fixture
def conn(client: TestClient) -> Iterator[Conn]:
    with client.websocket_connect("/ws/mattix") as ws:
        c = Conn(ws)
        c.join()
        yield c


def _session(client: TestClient, game_id: str) -> GameSession:
    session: GameSession = client.app.state.hub.sessions[game_id]  # type: ignore[attr-defined]
    return session


def test_a_new_game_on_a_clock_runs_the_movers_clock(conn: Conn, wall: FakeWall) -> None:
    s = conn.new(size=4, seed=3, players=HUMANS, clock="60+1")
    clocks = s["clocks"]
    assert clocks["control"] == "60+1" and clocks["kind"] == "fischer"
    assert clocks["running"] == 1 and clocks["elapsed"] == 0
    assert clocks["1"]["left"] == clocks["2"]["left"] == 60
    wall.advance(5)
    s = conn.play()
    assert s["clocks"]["1"]["left"] == 56  # 60 - 5 + 1
    assert s["clocks"]["running"] == 2 and s["clocks"]["2"]["left"] == 60
    wall.advance(2.5)
    s = conn.resync()
    assert s["clocks"]["elapsed"] == 2.5 and s["clocks"]["running"] == 2
    # a new game keeps the time control (a fresh clock); "inf" is none
    again = conn.new(size=4, seed=3)
    assert again["clocks"]["control"] == "60+1" and again["clocks"]["1"]["left"] == 60
    assert conn.new(size=4, seed=3, clock="inf")["clocks"] is None
    assert conn.new(size=4, seed=3)["clocks"] is None


def test_a_malformed_clock_changes_nothing(conn: Conn, wall: FakeWall) -> None:
    before = conn.new(size=4, seed=4, players=HUMANS, clock="5:00")
    for bad in ("5:00+", "fast", "byoyomi=1", "-3", "40/0"):
        conn.send({"type": "new", "clock": bad})
        text = conn.next_error_text()
        assert "expected inf" in text, text
    conn.send({"type": "new", "clock": 300})
    assert "'clock' must be a string" in conn.next_error_text()
    assert stable(conn.resync()) == stable(before)


def test_a_humans_flag_falls_on_the_referees_timer(
    client: TestClient, conn: Conn, wall: FakeWall
) -> None:
    s = conn.new(size=4, seed=5, players=HUMANS, clock="10")
    wall.advance(3)
    s = conn.play()  # side 1: 7 s left
    wall.advance(10 + EXPIRY_MARGIN / 2)  # side 2 within the margin: not yet
    session = _session(client, s["id"])
    assert client.portal.call(session.check_flag) is False  # type: ignore[union-attr]
    wall.advance(EXPIRY_MARGIN)
    # any change sets the timer again: now it is due at once, and the referee acts
    conn.send({"type": "settings", "delay_ms": 100})
    over = conn.next_state(lambda m: m["over"])
    assert over["outcome"]["termination"] == "time" and over["outcome"]["winner"] == 1
    assert over["winner"] == 1 and over["result"] == "1-0"
    assert over["outcome"]["words"].endswith("wins on time")
    assert over["clocks"]["flagged"] == 2 and over["clocks"]["running"] is None
    assert over["clocks"]["2"]["flagged"] and over["clocks"]["2"]["left"] == 0
    # a move after it is refused in one line; the saved game says so
    conn.send({"type": "move", "square": "a1"})
    assert "lost on time" in conn.next_error_text()
    saved = client.get(f"/api/saved/{over['id']}").json()
    assert saved["state"]["clocks"]["flagged"] == 2
    assert saved["state"]["outcome"] == {"termination": "time", "winner": 1, "scores": None}


def test_a_move_after_the_flag_loses_on_time(
    client: TestClient, conn: Conn, wall: FakeWall
) -> None:
    s = conn.new(size=4, seed=6, players=HUMANS, clock="st=2")
    wall.advance(2 + EXPIRY_MARGIN * 2)  # (the timer has not acted yet)
    session = _session(client, s["id"])
    if session._flag_timer is not None:  # the real timer waits for the real time
        session._flag_timer.cancel()
    sq = s["legal"][0]
    conn.send({"type": "move", "square": f"{chr(97 + sq % 4)}{sq // 4 + 1}"})
    over = conn.next_state()
    assert over["over"] and over["history"] == [] and over["clocks"]["flagged"] == 1
    assert over["outcome"]["termination"] == "time"
    assert "flag fell" in conn.next_error_text()


def test_a_reload_keeps_the_clocks(client: TestClient, wall: FakeWall) -> None:
    with client.websocket_connect("/ws/mattix") as ws:
        c = Conn(ws)
        c.join()
        s = c.new(size=4, seed=7, players=HUMANS, clock="byoyomi=30+3x10")
        wall.advance(4)
        s = c.play()
        wall.advance(1.5)
    game_id = s["id"]
    assert game_id not in client.app.state.hub.sessions  # type: ignore[attr-defined]
    wall.advance(2)  # the page is away: a human's clock runs on
    with client.websocket_connect("/ws/mattix") as ws:
        c = Conn(ws)
        back = c.join(game_id)
    assert back["id"] == game_id
    clocks = back["clocks"]
    assert clocks["control"] == "byoyomi=30+3x10"
    assert clocks["1"]["left"] == 26 and clocks["2"]["left"] == 30
    assert clocks["running"] == 2 and clocks["elapsed"] == 3.5


def test_a_flag_that_fell_while_the_page_was_away_ends_the_game(
    client: TestClient, wall: FakeWall
) -> None:
    with client.websocket_connect("/ws/mattix") as ws:
        c = Conn(ws)
        c.join()
        s = c.new(size=4, seed=8, players=HUMANS, clock="5")
    wall.advance(60)
    with client.websocket_connect("/ws/mattix") as ws:
        c = Conn(ws)
        c.join(s["id"])
        over = c.next_state(lambda m: m["over"])
    assert over["outcome"] == {
        "termination": "time",
        "winner": 2,
        "scores": None,
        "words": over["outcome"]["words"],
    }


def test_undo_on_a_clock_gives_the_time_back(conn: Conn, wall: FakeWall) -> None:
    conn.new(size=4, seed=9, players=HUMANS, clock="60")
    wall.advance(5)
    conn.play()
    wall.advance(7)
    s = conn.play()
    assert (s["clocks"]["1"]["left"], s["clocks"]["2"]["left"]) == (55, 53)
    wall.advance(3)
    conn.send({"type": "undo"})  # two humans: one move back
    s = conn.next_state(lambda m: len(m["history"]) == 1)
    assert (s["clocks"]["1"]["left"], s["clocks"]["2"]["left"]) == (55, 60)
    assert s["clocks"]["running"] == 2 and s["clocks"]["elapsed"] == 0


def test_the_cpu_searches_on_its_clock_and_is_charged(
    client: TestClient, conn: Conn, wall: FakeWall
) -> None:
    s = conn.new(size=4, seed=10, players={"1": "human", "2": "normal"}, clock="60+1")
    wall.advance(4)
    s = conn.play()
    session = _session(client, s["id"])
    limit = session.turns._limit("alphabeta:depth=1", 2)
    assert limit.clock is not None and limit.opponent is not None
    assert limit.clock.left == 60 and limit.opponent.left == 57
    assert limit.depth == 1 and limit.time == MOVE_TIME_CAP
    s = conn.next_state(lambda m: len(m["history"]) == 2)
    assert s["cpu"]["player"] == 2
    assert s["clocks"]["2"]["left"] == 61  # the fake wall stood still: its increment
    assert s["clocks"]["running"] == 1


def test_cpu_against_cpu_plays_on_the_clock(client: TestClient, conn: Conn) -> None:
    s = conn.new(size=4, seed=11, players={"1": "normal", "2": "normal"}, clock="60")
    conn.send({"type": "settings", "delay_ms": 0})
    s = conn.next_state(lambda m: len(m["history"]) >= 4 or m["over"])
    session = _session(client, s["id"])
    assert session.clocks is not None
    assert len(session.clocks.before) >= 4  # each move charged
    assert all(session.clocks.clocks[p].left < 60 for p in (1, 2))

"""The Othello page's server side through Starlette's TestClient: moves, passes, loading
transcripts and board strings, undo, CPU games, persistence.

Every state is checked against :class:`banmen.games.othello.Board`, and every refused
message must leave the game exactly as it was. The app runs with one engine worker; CPU
players use the fast "easy" level (alphabeta:depth=1) unless a test needs more.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import paths
import pytest
from browser_tab import BrowserTab
from ws_conn import Msg, WsConn, stable

with warnings.catch_warnings():
    # Starlette 1.x nudges TestClient users towards httpx2; irrelevant to these tests.
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from banmen.games.othello import PASS, Board, OthelloError, square_name
from banmen.web.games.othello import OTHELLO_LEVELS, OthelloGame
from banmen.web.protocol import MAX_LOAD_CHARS
from banmen.web.server import create_app

pytestmark = [
    pytest.mark.timeout(30),
    pytest.mark.filterwarnings("ignore:.*httpx2:UserWarning"),
]

HUMANS = {"1": "human", "2": "human"}

#: Black (X) to move with no move: a1 white, b1 black; white's only move c1 ends the game.
MUST_PASS = "OX" + "-" * 62 + " X"
#: A random game in which white must pass after move 53, and black then plays on.
PASS_LATER = (
    "d3c3c4c5b5f3b2b4b3a2f5a6e3b1a5f6e6d2g3a4g7f2a3h4f1e2e1g1h3d1a1g6c2g8f4f7c1d6h1h2h7"
    "h5c6g5h8d7e7c7f8e8a7b6g2"
)
#: Twelve moves in: black's legal moves turn 1, 2 or 3 discs.
MIDGAME = "f5d6c3d3c4f4f6f3e6e7d7c5"


# --------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("othello") / "games.sqlite3"


@pytest.fixture(scope="module")
def client(db: Path) -> Iterator[TestClient]:
    with TestClient(create_app(db, workers=1)) as c:
        yield c


class Conn(WsConn):
    """A socket on /ws/othello."""

    def next_error(self) -> str:
        return self.next_error_text()

    def move(self, square: str) -> Msg:
        ply = len(self.state["history"])
        self.send({"type": "move", "square": square})
        return self.next_state(lambda s: len(s["history"]) > ply)

    def settings(self, **fields: Any) -> Msg:
        self.send({"type": "settings", **fields})
        return self.next_state()


@pytest.fixture
def conn(client: TestClient) -> Iterator[Conn]:
    with client.websocket_connect("/ws/othello") as ws:
        c = Conn(ws)
        c.join()
        yield c


def cells_of(board: Board) -> list[int]:
    return [1 if board.black >> i & 1 else 2 if board.white >> i & 1 else 0 for i in range(64)]


def assert_shows(state: Msg, board: Board) -> None:
    """The state describes ``board`` exactly."""
    assert state["game"] == "othello"
    assert state["cells"] == cells_of(board)
    assert state["position"] == board.to_string()
    assert state["turn"] == board.turn
    assert state["discs"] == list(board.discs())
    assert state["empties"] == board.empties()
    legal = board.legal_moves
    assert state["legal"] == [m for m in legal if m != PASS]
    assert state["must_pass"] == (legal == [PASS])
    assert state["flips"] == {str(sq): n for sq, n in board.flip_counts().items()}
    assert state["over"] == board.is_game_over()
    assert state["result"] == board.result() and state["winner"] == board.winner()
    assert state["transcript"] == board.transcript()
    assert [h["sq"] for h in state["history"]] == board.move_stack


# --------------------------------------------------------------------------- pages


def test_othello_page_home_page_and_api(client: TestClient) -> None:
    page = client.get("/othello")
    assert page.status_code == 200
    assert "default-src 'self'" in page.headers["content-security-policy"]
    assert '<script type="module" src="/static/js/othello.js">' in page.text
    assert 'name="viewport"' in page.text
    for path in ("/static/js/othello.js", "/static/js/othello-board.js", "/static/js/page.js"):
        r = client.get(path)
        assert r.status_code == 200 and len(r.content) > 500, path
        assert "https://" not in r.text and "//cdn" not in r.text, path
    home = client.get("/").text
    assert 'href="/othello"' in home and 'href="/mattix"' in home
    assert home.index('href="/mattix"') < home.index('href="/othello"')
    games = {g["name"]: g for g in client.get("/api/games").json()}
    assert games["othello"]["path"] == "/othello" and "mattix" in games


def test_new_game_is_the_standard_start(conn: Conn) -> None:
    state = conn.new(players=HUMANS)
    assert_shows(state, Board())
    assert state["legal"] == [19, 26, 37, 44]  # d3 c4 f5 e6
    assert state["flips"] == {"19": 1, "26": 1, "37": 1, "44": 1}
    assert state["history"] == [] and state["last"] is None and state["start"] is None
    assert state["seed"] is None and state["size"] == 8 and state["can_undo"] is False
    assert [lv["name"] for lv in state["levels"]] == [lv.name for lv in OTHELLO_LEVELS]
    perfect = next(lv for lv in state["levels"] if lv["name"] == "perfect")
    assert perfect["spec"] == "perfect" and "empty squares" in perfect["note"]


def test_levels_and_their_specs() -> None:
    levels = OthelloGame().levels
    assert levels["human"].spec is None
    assert levels["easy"].spec == "alphabeta:depth=1"
    assert levels["normal"].spec == "alphabeta:depth=4"
    assert levels["strong"].spec == "alphabeta:time=1"
    assert levels["perfect"].spec == "perfect"
    assert OthelloGame({"bench": "alphabeta:time=2"}).levels["bench"].is_cpu


# --------------------------------------------------------------------------- moves


def test_human_move_flips_the_discs_the_board_says(conn: Conn) -> None:
    conn.new(players=HUMANS)
    before = conn.load(MIDGAME)
    board = Board.from_transcript(MIDGAME)
    assert_shows(before, board)
    assert before["flips"]["20"] == 3  # e3 turns three discs
    flipped = board.flips(20)
    after = conn.move("E3")  # names are case-insensitive
    board.push(20)
    assert_shows(after, board)
    assert after["last"] == {
        "ply": 13, "player": 1, "square": "e3", "sq": 20, "flips": 3,
        "flipped": [i for i in range(64) if flipped >> i & 1],
    }  # fmt: skip
    assert after["discs"][0] == before["discs"][0] + 4
    assert after["discs"][1] == before["discs"][1] - 3
    assert after["can_undo"] is True


BAD_MOVES = [
    ("not a square", "z9", "bad move 'z9'"),
    ("off the board", "i1", "bad move 'i1'"),
    ("empty", "", "bad move"),
    ("occupied", "d4", "occupied"),
    ("flips nothing", "a1", "turns no disc over"),
    ("pass with moves", "pass", "cannot pass"),
    ("long", "f5; DROP TABLE saved_games", "bad square"),
]


@pytest.mark.parametrize(
    ("square", "says"), [b[1:] for b in BAD_MOVES], ids=[b[0] for b in BAD_MOVES]
)
def test_garbage_and_illegal_moves_change_nothing(conn: Conn, square: str, says: str) -> None:
    before = conn.new(players=HUMANS)
    conn.send({"type": "move", "square": square})
    message = conn.next_error()
    assert says in message
    if says not in ("bad square",):  # the protocol's length check comes before the board's
        with pytest.raises(OthelloError) as e:
            Board().parse_move(square)
        assert message == str(e.value)  # the board's own one-line message
    assert stable(conn.resync()) == stable(before)


BAD_MESSAGES = [
    ("seed", '{"type": "new", "seed": 5}', "unknown field 'seed' in 'new'"),
    ("size", '{"type": "new", "size": 8}', "unknown field 'size' in 'new'"),
    ("mattix level", '{"type": "new", "players": {"1": "1s"}}', "bad level '1s'"),
    ("square as number", '{"type": "move", "square": 37}', "'square' must be a string like 'f5'"),
    ("load without text", '{"type": "load"}', "'load' needs a 'text'"),
    ("load number", '{"type": "load", "text": 5}', "'load' needs a 'text'"),
    ("load too long", json.dumps({"type": "load", "text": "f5" * 600}), "too long"),
    ("not json", "f5", "not valid JSON"),
]


@pytest.mark.parametrize(
    ("raw", "says"), [b[1:] for b in BAD_MESSAGES], ids=[b[0] for b in BAD_MESSAGES]
)
def test_bad_messages_change_nothing(conn: Conn, raw: str, says: str) -> None:
    conn.new(players=HUMANS)
    before = conn.move("f5")
    conn.send(raw)
    assert says in conn.next_error()
    assert stable(conn.resync()) == stable(before)


def test_load_is_othello_only(client: TestClient) -> None:
    with client.websocket_connect("/ws/mattix") as ws:
        mattix = Conn(ws)
        before = mattix.join()
        mattix.send({"type": "load", "text": MIDGAME})
        assert "unknown message type 'load'" in mattix.next_error()
        assert stable(mattix.resync()) == stable(before)


# --------------------------------------------------------------------------- passes


def test_a_human_must_pass_and_then_the_other_side_plays(conn: Conn) -> None:
    conn.new(players=HUMANS)
    state = conn.load(MUST_PASS)
    board = Board.from_string(MUST_PASS)
    assert_shows(state, board)
    assert state["must_pass"] is True and state["legal"] == [] and state["turn"] == 1
    assert state["start"] == MUST_PASS and state["history"] == []

    conn.send({"type": "move", "square": "c1"})  # a square is refused: black must pass
    assert "must pass" in conn.next_error()
    assert stable(conn.resync()) == stable(state)

    passed = conn.move("pass")
    board.push(PASS)
    assert_shows(passed, board)
    assert passed["last"]["square"] == "pass" and passed["last"]["player"] == 1
    assert passed["last"]["flips"] == 0 and passed["legal"] == [2]  # white: c1

    final = conn.move("c1")
    board.push_name("c1")
    assert_shows(final, board)
    assert final["over"] and final["winner"] == 2 and final["discs"] == [0, 3]
    assert final["legal"] == [] and not final["must_pass"]
    conn.send({"type": "move", "square": "d1"})
    assert "the game is over" in conn.next_error()


def test_the_cpu_passes_when_it_must(conn: Conn) -> None:
    conn.new(players={"1": "human", "2": "human"})
    conn.settings(players={"2": "easy"})  # a loaded game keeps the players
    loaded = conn.load(MUST_PASS)
    assert loaded["players"] == {"1": "human", "2": "easy"} and loaded["turn"] == 1
    conn.settings(players={"1": "easy", "2": "human"})  # black, to move, goes to the CPU
    passed = conn.next_state(lambda s: len(s["history"]) == 1)
    assert passed["last"]["square"] == "pass" and passed["turn"] == 2
    assert passed["cpu"]["move"] == "pass" and passed["cpu"]["player"] == 1
    assert passed["legal"] == [2] and passed["thinking"] is None


def test_undo_skips_back_over_a_forced_pass(conn: Conn) -> None:
    conn.new(players=HUMANS)
    # Load all but the last move, then play it: white must pass after it.
    loaded = conn.load(PASS_LATER[:-2])
    assert loaded["turn"] == 1 and not loaded["must_pass"] and len(loaded["history"]) == 52
    before = conn.move(PASS_LATER[-2:])
    assert before["turn"] == 2 and before["must_pass"] and len(before["history"]) == 53
    conn.move("pass")
    after_pass = conn.state
    assert after_pass is not None and after_pass["turn"] == 1
    conn.move("g4")
    conn.send({"type": "undo"})  # back to black's choice after the pass
    assert stable(conn.next_state()) == stable(after_pass)
    conn.send({"type": "undo"})  # white's pass was no choice: back to black's move 53
    undone = conn.next_state()
    assert_shows(undone, Board.from_transcript(PASS_LATER[:-2]))
    assert len(undone["history"]) == 52


def test_a_loaded_transcript_plays_its_trailing_forced_pass(conn: Conn) -> None:
    conn.new(players=HUMANS)
    loaded = conn.load(PASS_LATER)  # passes are implicit, the last one too
    assert loaded["turn"] == 1 and not loaded["must_pass"] and len(loaded["history"]) == 54
    assert_shows(loaded, Board.from_transcript(PASS_LATER))


# --------------------------------------------------------------------------- load


def test_load_a_transcript(conn: Conn) -> None:
    before = conn.new(players={"1": "human", "2": "human"})
    state = conn.load("  f5d6c3\nd3c4  ")  # whitespace is ignored
    board = Board.from_transcript("f5d6c3d3c4")
    assert_shows(state, board)
    assert state["id"] != before["id"] and state["players"] == before["players"]
    assert state["start"] is None  # the standard start
    assert [h["square"] for h in state["history"]] == ["f5", "d6", "c3", "d3", "c4"]
    assert [h["player"] for h in state["history"]] == [1, 2, 1, 2, 1]


def test_load_a_board_string(conn: Conn) -> None:
    conn.new(players=HUMANS)
    text = Board.from_transcript(MIDGAME).to_string()
    state = conn.load(text)
    board = Board.from_string(text)
    assert_shows(state, board)
    assert state["history"] == [] and state["start"] == text and state["transcript"] == ""
    after = conn.move("e3")
    board.push_name("e3")
    assert_shows(after, board)
    assert after["transcript"] == "e3" and after["start"] == text


BAD_LOADS = [
    ("bad square in a transcript", "f5d6zz"),
    ("illegal move in a transcript", "f5f5"),
    ("a needless pass", "f5pass"),
    ("trailing junk", "f5d6c3x"),
    ("short board string", "XO--"),
    ("bad side", "-" * 64 + " Q"),
    ("bad square in a board string", "?" + "-" * 63 + " X"),
]


def _board_error(text: str) -> str:
    with pytest.raises(OthelloError) as e:
        if any(ch.isdigit() for ch in text):
            Board.from_transcript(text)
        else:
            Board.from_string(text)
    return str(e.value)


@pytest.mark.parametrize("text", [b[1] for b in BAD_LOADS], ids=[b[0] for b in BAD_LOADS])
def test_bad_text_is_refused_with_the_boards_message(conn: Conn, text: str) -> None:
    conn.new(players=HUMANS)
    before = conn.move("f5")
    conn.send({"type": "load", "text": text})
    assert conn.next_error() == _board_error(text)
    assert stable(conn.resync()) == stable(before)


def test_empty_text_is_refused(conn: Conn) -> None:
    before = conn.new(players=HUMANS)
    conn.send({"type": "load", "text": "  \n "})
    assert "nothing to load" in conn.next_error()
    assert stable(conn.resync()) == stable(before)
    assert MAX_LOAD_CHARS >= 2 * 60 + 60  # a full transcript with room for spaces


# --------------------------------------------------------------------------- undo, CPU


def test_undo_against_the_cpu_goes_back_to_the_humans_turn(conn: Conn) -> None:
    start = conn.new(players={"1": "human", "2": "easy"})
    conn.send({"type": "move", "square": "f5"})
    replied = conn.next_state(lambda s: len(s["history"]) == 2)
    assert replied["turn"] == 1 and replied["cpu"]["player"] == 2
    conn.send({"type": "undo"})
    undone = conn.next_state()
    assert_shows(undone, Board())
    assert undone["cells"] == start["cells"] and undone["cpu"] is None
    assert undone["can_undo"] is False


def test_human_as_white_against_the_cpu(conn: Conn) -> None:
    conn.new(players={"1": "easy", "2": "human"})
    state = conn.next_state(lambda s: len(s["history"]) == 1 and not s["thinking"])
    assert state["turn"] == 2 and state["history"][0]["player"] == 1
    move = square_name(state["legal"][0])
    conn.send({"type": "move", "square": move})
    replied = conn.next_state(lambda s: len(s["history"]) == 3)
    board = Board()
    for h in replied["history"]:
        board.push_name(h["square"])
    assert_shows(replied, board)
    assert replied["history"][1]["square"] == move


def test_cpu_against_cpu_plays_to_the_end(client: TestClient, conn: Conn) -> None:
    conn.settings(delay_ms=0)
    started = conn.new(players={"1": "easy", "2": "easy"})
    final = conn.next_state(lambda s: s["over"])
    board = Board()
    for h in final["history"]:
        board.push_name(h["square"])
    assert board.is_game_over()
    assert_shows(final, board)
    b, w = final["discs"]
    assert final["winner"] == (None if b == w else 1 if b > w else 2)
    saved = client.get(f"/api/saved/{started['id']}").json()
    assert saved["game"] == "othello"
    assert Board.from_dict(saved["state"]["board"]) == board
    assert saved["state"]["board"]["moves"] == [h["square"] for h in final["history"]]


def test_stop_makes_the_cpu_move_with_its_best_so_far(conn: Conn) -> None:
    conn.new(players={"1": "strong", "2": "human"})
    info = conn.until(lambda m: m["type"] == "info")
    assert info["player"] == 1 and info["depth"] >= 1 and info["nodes"] > 0
    assert isinstance(info["score"], int | float) and info["pv"]
    conn.send({"type": "stop"})
    moved = conn.next_state(lambda s: len(s["history"]) == 1)
    cpu = moved["cpu"]
    assert cpu["stopped_by"] == "stop" and cpu["exact"] is False
    assert cpu["verdict"].startswith("estimate") and "not proved: Stop pressed" in cpu["verdict"]
    assert moved["thinking"] is None and moved["turn"] == 2


def _negamax(board: Board) -> int:
    """The exact final margin for the side to move (empties to the winner)."""
    if board.is_game_over():
        return board.final_margin()
    best = -65
    for m in board.legal_moves:
        board.push(m)
        best = max(best, -_negamax(board))
        board.pop()
    return best


def test_perfect_endgame_result_is_proved(conn: Conn) -> None:
    # seven empty squares, white to move (found by random play)
    text = "OXXX-XO-XOXXXXXX--OXOXOXOOOOXXOXOOOXXXXXOOOOOOXXXXOOOXXX--OOX-XO O"
    value = _negamax(Board.from_string(text))
    conn.new(players={"1": "human", "2": "perfect"})
    loaded = conn.load(text)
    assert loaded["thinking"]["player"] == 2 and loaded["empties"] == 7
    moved = conn.next_state(lambda s: len(s["history"]) == 1)
    cpu = moved["cpu"]
    assert cpu["exact"] is True and cpu["stopped_by"] == "exact" and cpu["score"] == value
    winner = "White" if value > 0 else "Black"
    expected = "proved: a draw" if value == 0 else f"proved: {winner} wins by {abs(value)} discs"
    assert cpu["verdict"] == expected


# --------------------------------------------------------------------------- persistence


def test_second_connection_and_reload_get_the_same_game(client: TestClient, conn: Conn) -> None:
    conn.new(players=HUMANS)
    played = conn.move("f5")
    with client.websocket_connect("/ws/othello") as ws2:
        other = Conn(ws2)
        assert stable(other.join(played["id"])) == stable(played)
        other.send({"type": "move", "square": "d6"})
        assert stable(conn.next_state()) == stable(other.next_state())


def test_game_survives_a_server_restart(tmp_path: Path) -> None:
    db = tmp_path / "restart.sqlite3"
    with TestClient(create_app(db, workers=1)) as c1:
        with c1.websocket_connect("/ws/othello") as ws:
            conn = Conn(ws)
            conn.join()
            conn.new(players={"1": "human", "2": "easy"})
            conn.load(MIDGAME)
            conn.send({"type": "move", "square": "e3"})
            played = conn.next_state(lambda s: len(s["history"]) == 14)
    with TestClient(create_app(db, workers=1)) as c2:
        with c2.websocket_connect("/ws/othello") as ws:
            again = Conn(ws).join(played["id"])
    assert stable(again) == stable(played)
    board = Board.from_transcript(MIDGAME)
    for h in again["history"][12:]:
        board.push_name(h["square"])
    assert_shows(again, board)


def test_a_game_id_of_the_other_game_starts_a_new_game(client: TestClient, conn: Conn) -> None:
    othello_id = conn.new(players=HUMANS)["id"]
    with client.websocket_connect("/ws/mattix") as ws:
        mattix = Conn(ws)
        mattix.send({"type": "join", "id": othello_id})
        notice = mattix.until(lambda m: m["type"] in ("notice", "state"))
        assert notice["type"] == "notice" and "an Othello game" in notice["message"]
        state = mattix.next_state()
        assert state["game"] == "mattix" and state["id"] != othello_id
    # and the Othello game is untouched
    assert client.get(f"/api/saved/{othello_id}").json()["game"] == "othello"


# --------------------------------------------------------------------------- in a browser
#
# Debian's chromium driven by Playwright with the ``server`` and ``browser`` fixtures of
# conftest.py. Screenshots go to test-artifacts/.

PHONE = {"width": 390, "height": 844}
ARTIFACTS = paths.ARTIFACTS


class Tab(BrowserTab):
    """A browser tab on the Othello page that records console errors."""

    path = "/othello"

    def open(self, path: str = "/othello") -> None:
        self.page.goto(self.base + path)
        self.wait_phase("human", "cpu", "paused", "over")

    def discs(self) -> dict[str, str]:
        """Square name -> "black" / "white" for every disc drawn."""
        value: dict[str, str] = self.page.evaluate(
            """() => Object.fromEntries([...document.querySelectorAll("#board-svg circle.disc")]
                   .map(c => [c.dataset.square, c.dataset.color]))"""
        )
        return value

    def hints(self) -> dict[str, str]:
        """Square name -> the flip count shown on it."""
        value: dict[str, str] = self.page.evaluate(
            """() => Object.fromEntries([...document.querySelectorAll("#board-svg text.hint")]
                   .map(t => [t.dataset.square, t.textContent]))"""
        )
        return value

    def players(self, black: str, white: str) -> None:
        for side, level in ((1, black), (2, white)):
            if self.page.input_value(f"#level-{side}") != level:
                self.page.select_option(f"#level-{side}", level)
        self.page.wait_for_function(
            "([b, w]) => document.getElementById('ctl-1').textContent === b"
            " && document.getElementById('ctl-2').textContent === w",
            arg=[_label(black), _label(white)],
        )

    def load(self, text: str) -> None:
        old = self.game_id()
        self.page.fill("#load-text", text)
        self.page.click("#load-button")
        self.wait_new_game(old)


def _label(level: str) -> str:
    return next(lv.label for lv in OTHELLO_LEVELS if lv.name == level)


def _expected_discs(board: Board) -> dict[str, str]:
    colors = {1: "black", 2: "white"}
    return {square_name(sq): colors[c] for sq, c in enumerate(cells_of(board)) if c}


@pytest.fixture
def tab(browser: Any, server: str) -> Iterator[Tab]:
    t = Tab(browser, server, viewport={"width": 1280, "height": 1000})
    yield t
    t.close()
    assert t.errors == [], f"console errors: {t.errors}"


@pytest.mark.browser
@pytest.mark.timeout(120)
def test_browser_hints_match_the_board_and_a_click_flips_its_discs(tab: Tab) -> None:
    tab.open()
    pg = tab.page
    pg.click("#new-button")
    tab.wait_phase("human", ply=0)
    tab.players("human", "human")
    assert tab.discs() == _expected_discs(Board())

    pg.check("#hints")
    pg.wait_for_selector("#board-svg text.hint")
    board = Board()
    counts = board.flip_counts()
    shown = tab.hints()
    assert shown == {square_name(sq): str(n) for sq, n in counts.items()}
    assert shown["f5"] == str(counts[37])

    pg.click('#board-svg g.move[data-square="f5"]')
    tab.wait_phase("human", ply=1)
    flipped = board.flips(37)
    board.push_name("f5")
    assert tab.discs() == _expected_discs(board)
    assert pg.locator("#board-svg circle.disc.flipped").evaluate_all(
        "cs => cs.map(c => c.dataset.square)"
    ) == [square_name(sq) for sq in range(64) if flipped >> sq & 1]
    assert pg.get_attribute("#board-svg .last-move", "data-square") == "f5"
    assert pg.inner_text("#discs-1") == "4" and pg.inner_text("#discs-2") == "1"
    assert pg.inner_text("#transcript") == board.transcript() == "f5"
    tab.context.grant_permissions(["clipboard-read", "clipboard-write"])
    pg.click("#copy-transcript")
    pg.wait_for_function(
        "() => document.getElementById('copy-transcript').textContent === 'Copied'"
    )
    assert pg.evaluate("navigator.clipboard.readText()") == "f5"

    # A pasted transcript: now the counts differ from square to square.
    tab.load(MIDGAME)
    tab.wait_phase("human", ply=12)
    board = Board.from_transcript(MIDGAME)
    counts = board.flip_counts()
    assert len(set(counts.values())) > 1
    assert tab.hints() == {square_name(sq): str(n) for sq, n in counts.items()}
    best = max(counts, key=lambda sq: counts[sq])
    pg.click(f'#board-svg g.move[data-square="{square_name(best)}"]')
    tab.wait_phase("human", ply=13)
    board.push(best)
    assert tab.discs() == _expected_discs(board)
    assert tab.hints() == {square_name(sq): str(n) for sq, n in board.flip_counts().items()}
    assert pg.inner_text("#transcript") == board.transcript()
    ARTIFACTS.mkdir(exist_ok=True)
    pg.screenshot(path=str(ARTIFACTS / "othello.png"), full_page=True)
    assert (ARTIFACTS / "othello.png").stat().st_size > 10_000

    # Bad text: the board's message next to the paste box, and the game is unchanged.
    game_id = tab.game_id()
    pg.fill("#load-text", "f5d6zz")
    pg.click("#load-button")
    pg.wait_for_selector("#load-error:not([hidden])")
    assert pg.inner_text("#load-error") == _board_error("f5d6zz")
    assert tab.game_id() == game_id and tab.ply() == 13
    assert tab.discs() == _expected_discs(board)


@pytest.mark.browser
@pytest.mark.timeout(120)
def test_browser_pass_button_and_announcement(tab: Tab) -> None:
    tab.open()
    tab.players("human", "human")
    tab.load(MUST_PASS)
    tab.wait_phase("human", ply=0)
    pg = tab.page
    assert "must pass" in pg.inner_text("#status")
    assert pg.locator("#board-svg g.move").count() == 0
    assert pg.is_enabled("#pass")
    pg.click("#pass")
    tab.wait_phase("human", ply=1)
    assert pg.is_visible("#pass-note") and "Black passes" in pg.inner_text("#pass-note")
    assert pg.is_disabled("#pass")
    pg.click('#board-svg g.move[data-square="c1"]')
    tab.wait_phase("over", ply=2)
    assert "White" in pg.inner_text("#gameover") and "wins, 3–0" in pg.inner_text("#gameover")


@pytest.mark.browser
@pytest.mark.timeout(120)
def test_browser_phone_layout_and_reload(browser: Any, server: str) -> None:
    phone = Tab(
        browser, server, viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True
    )
    try:
        phone.open()
        phone.players("human", "easy")
        phone.page.click("#new-button")
        phone.wait_phase("human", ply=0)
        phone.page.click('#board-svg g.move[data-square="d3"]')
        phone.wait_phase("human", ply=2)  # the CPU has answered
        pg = phone.page
        box = pg.locator("#board-svg").bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
        assert box["width"] >= PHONE["width"] * 0.9
        assert pg.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        for hit in pg.locator("#board-svg g.move .hit").all():
            b = hit.bounding_box()
            assert b is not None and b["width"] >= 44 and b["height"] >= 44
        for button in pg.locator("button").all():
            b = button.bounding_box()
            assert b is not None and b["height"] >= 44, button.inner_text()
        pg.screenshot(path=str(ARTIFACTS / "othello-phone.png"), full_page=True)

        before = (phone.game_id(), phone.discs(), pg.inner_text("#transcript"))
        pg.reload()
        phone.wait_phase("human", ply=2)
        assert (phone.game_id(), phone.discs(), pg.inner_text("#transcript")) == before
        assert phone.errors == []
    finally:
        phone.close()

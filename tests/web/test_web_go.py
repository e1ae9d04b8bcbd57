"""The Go page's server side through Starlette's TestClient: new games (size, rules, komi),
moves and their refusals, captures, passing into the count, marking dead stones, the
result, resigning, undo, SGF download and upload, CPU players.

Every state is checked against :class:`banmen.games.go.Board`, and every refused message
must leave the game exactly as it was. Both sides are human unless a test is about the CPU;
CPU tests use the "random" level (no dependence on the strength of the Monte-Carlo search),
and one uses the "quick" search for its live thinking info.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import go_long
import pytest
from ws_conn import Msg, WsConn, stable

with warnings.catch_warnings():
    # Starlette 1.x nudges TestClient users towards httpx2; irrelevant to these tests.
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from banmen.games import go
from banmen.games.go.game import DEAD_PLAYOUTS
from banmen.web.games.go import GO_LEVELS, GO_MAX_LOAD, GoGame
from banmen.web.server import create_app

pytestmark = [
    pytest.mark.timeout(60),
    pytest.mark.filterwarnings("ignore:.*httpx2:UserWarning"),
]

HUMANS = {"1": "human", "2": "human"}

#: Black takes the white stone on D5 with E5; white may not retake on D5 at once (ko).
KO = ["D6", "E6", "C5", "F5", "D4", "E4", "A9", "D5", "E5"]
#: White's stones on B1 and A2: black on A1 would have no liberty (suicide).
SUICIDE = ["E5", "B1", "E6", "A2"]
#: A black group with two eyes (A1 and C1) in the lower left corner: pass-alive.
TWO_EYES = "(;GM[1]FF[4]SZ[9]KM[7.5]RU[Chinese]AB[ah][bh][ch][dh][di][bi]AW[ee]PL[B])"


# --------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    db = tmp_path_factory.mktemp("go") / "games.sqlite3"
    with TestClient(create_app(db, workers=1)) as c:
        yield c


class Conn(WsConn):
    """A socket on /ws/go."""

    def error(self, msg: Msg | str) -> str:
        """Send ``msg``; the one-line error it gets (a state first means it was done)."""
        self.send(msg)
        return self.next_error_text()

    def do(self, msg: Msg) -> Msg:
        """Send ``msg`` and return the state it leads to."""
        self.send(msg)
        return self.next_state()

    def move(self, square: str) -> Msg:
        return self.do({"type": "move", "square": square})

    def play(self, moves: list[str]) -> Msg:
        for m in moves:
            state = self.move(m)
            assert state["history"][-1]["square"].upper() == m.upper(), state
        return self.state


@pytest.fixture
def conn(client: TestClient) -> Iterator[Conn]:
    with client.websocket_connect("/ws/go") as ws:
        c = Conn(ws)
        c.join()
        yield c


def board_of(moves: list[str], size: int = 9, rules: str = "chinese") -> go.Board:
    b = go.Board(size, rules)
    for m in moves:
        b.push(b.parse_move(m))
    return b


def cells_of(board: go.Board) -> list[int]:
    """The board's colours row by row from the top, as the state's ``cells``."""
    n = board.size
    return [board.color_at(go.point(c, n - 1 - r, n)) for r in range(n) for c in range(n)]


def names(board: go.Board, points: Any) -> list[str]:
    return [go.vertex_name(p, board.size) for p in sorted(points)]


def assert_shows(state: Msg, board: go.Board) -> None:
    """The state describes ``board`` (a game still being played) exactly."""
    assert state["game"] == "go"
    assert state["size"] == board.size
    assert state["cells"] == cells_of(board)
    assert state["turn"] == board.turn
    assert state["prisoners"] == list(board.prisoners)
    assert state["komi"] == board.komi
    assert [h["square"] for h in state["history"]] == [board.move_name(m) for m in board.move_stack]
    assert [h["player"] for h in state["history"]] == board.colors
    if not state["over"]:
        legal = [m for m in board.legal_moves if m != go.PASS]
        assert state["legal"] == names(board, legal)
        ko = board.ko_point
        assert state["ko"] == (None if ko is None else go.vertex_name(ko, board.size))


# --------------------------------------------------------------------------- pages


def test_go_page_home_page_and_api(client: TestClient) -> None:
    page = client.get("/go")
    assert page.status_code == 200
    assert "default-src 'self'" in page.headers["content-security-policy"]
    assert '<script type="module" src="/static/js/go.js">' in page.text
    assert 'name="viewport"' in page.text
    for path in ("/static/js/go.js", "/static/js/go-board.js"):
        r = client.get(path)
        assert r.status_code == 200 and len(r.content) > 1000, path
        assert "https://" not in r.text and "//cdn" not in r.text, path
    # the games with a page, in the registry's order (by name), on the home page too
    # (banmen's own, and any installed game package's)
    home = client.get("/").text
    games = [g["name"] for g in client.get("/api/games").json()]
    assert games == sorted(games)
    assert [g for g in games if g in ("go", "mattix", "othello", "shogi")] == [
        "go",
        "mattix",
        "othello",
    ]
    assert sorted(games, key=lambda g: home.index(f'href="/{g}"')) == games


def test_levels_and_their_specs() -> None:
    levels = GoGame().levels
    assert [lv.name for lv in GO_LEVELS] == list(levels)
    assert levels["human"].spec is None
    assert levels["random"].spec == "random"
    assert levels["quick"].spec == "mcts:time=0.5"
    assert levels["normal"].spec == "mcts:time=2"
    assert levels["strong"].spec == "mcts:time=5"


# --------------------------------------------------------------------------- new games


@pytest.mark.parametrize("size", [9, 13, 19])
def test_new_game_of_each_size(conn: Conn, size: int) -> None:
    state = conn.new(size=size, players=HUMANS)
    board = go.Board(size)
    assert_shows(state, board)
    assert len(state["cells"]) == size * size and not any(state["cells"])
    assert len(state["legal"]) == size * size and state["illegal"] == {}
    assert state["rules"]["name"] == "chinese" and state["rules"]["scoring"] == "area"
    assert state["komi"] == 7.5 and state["handicap"] == 0
    assert state["prisoners"] == [0, 0] and state["history"] == [] and state["last"] is None
    assert state["over"] is False and state["result"] == "*" and state["counting"] is None
    assert state["can_undo"] is False and state["seed"] is None
    assert [lv["name"] for lv in state["levels"]] == [lv.name for lv in GO_LEVELS]
    assert [p["name"] for p in state["presets"]] == [
        "chinese", "japanese", "tromp-taylor", "aga", "new-zealand"
    ]  # fmt: skip


def test_rules_and_komi_of_a_new_game_and_what_carries_over(conn: Conn) -> None:
    state = conn.new(size=13, rules="japanese", players=HUMANS)
    assert state["rules"]["name"] == "japanese" and state["rules"]["scoring"] == "territory"
    assert state["komi"] == 6.5 and state["size"] == 13  # the preset's komi
    state = conn.new(komi=0.5)  # same size and rules, another komi
    assert (state["size"], state["rules"]["name"], state["komi"]) == (13, "japanese", 0.5)
    state = conn.new(size=9)  # the komi carries over with the rules
    assert (state["size"], state["rules"]["name"], state["komi"]) == (9, "japanese", 0.5)
    state = conn.new(rules="tromp-taylor")  # new rules: their komi
    assert state["rules"]["name"] == "tromp-taylor" and state["komi"] == 7.5
    assert state["rules"]["ko"] == "positional" and state["rules"]["suicide"] is True
    state = conn.new(rules="aga", komi="-3")  # a form field's text is fine
    assert state["rules"]["name"] == "aga" and state["komi"] == -3
    for preset in state["presets"]:
        assert preset["komi"] == go.PRESETS[preset["name"]].komi


def test_a_handicap_game_places_the_stones_and_white_moves_first(conn: Conn) -> None:
    state = conn.new(size=19, handicap=4, players=HUMANS)
    board = go.Board(19, "chinese", 0.5)
    board.fixed_handicap(4)
    assert state["handicap"] == 4 and state["turn"] == go.WHITE
    assert state["komi"] == 0.5  # the stones are the compensation
    assert sorted(i for i, c in enumerate(state["cells"]) if c == go.BLACK) == sorted(
        i for i, c in enumerate(cells_of(board)) if c == go.BLACK
    )
    assert_shows(state, board)
    state = conn.new(handicap="2", komi=5)  # a form field's text; an asked komi stays
    assert (state["handicap"], state["komi"], state["turn"]) == (2, 5, go.WHITE)
    state = conn.new()  # not asked for: no handicap (the komi carries over with the rules)
    assert state["handicap"] == 0 and state["turn"] == go.BLACK
    for bad, says in ((1, "0 (none) or 2 to 9"), (10, "from 0 to 9"), ("x", "whole number")):
        message = conn.error({"type": "new", "handicap": bad})
        assert says in message and "\n" not in message, message
    state = conn.move("pass")  # the refused 'new's left the game as it was
    assert state["handicap"] == 0 and state["history"][-1]["player"] == go.BLACK


# --------------------------------------------------------------------------- moves


def test_a_move_puts_a_stone_and_passes_the_turn(conn: Conn) -> None:
    conn.new(size=9, rules="chinese", players=HUMANS)
    state = conn.move("e5")  # vertices are case-insensitive
    board = board_of(["E5"])
    assert_shows(state, board)
    assert state["last"] == {"ply": 1, "player": 1, "square": "E5", "captured": 0, "removed": []}
    assert state["cells"][4 * 9 + 4] == go.BLACK  # the centre, row 5 from the top
    assert state["turn"] == go.WHITE and state["can_undo"] is True
    state = conn.move("pass")
    board.push(go.PASS)
    assert_shows(state, board)
    assert state["last"]["square"] == "pass" and state["over"] is False


def test_a_capture_counts_a_prisoner_and_the_ko_is_refused(conn: Conn) -> None:
    conn.new(size=9, rules="chinese", players=HUMANS)
    before = conn.play(KO[:-1])
    assert before["prisoners"] == [0, 0]
    state = conn.move(KO[-1])
    board = board_of(KO)
    assert_shows(state, board)
    assert state["prisoners"] == [1, 0] == list(board.prisoners)
    assert state["last"]["captured"] == 1 and state["last"]["removed"] == ["D5"]
    assert state["cells"][(9 - 5) * 9 + 3] == go.EMPTY  # D5 is empty again
    assert state["ko"] == "D5" and state["illegal"] == {"D5": "ko"}

    message = conn.error({"type": "move", "square": "D5"})
    with pytest.raises(go.IllegalMoveError) as e:
        board.parse_move("D5")
    assert e.value.reason == "ko" and message == str(e.value)
    assert "ko" in message
    assert stable(conn.resync()) == stable(state)

    # A ko threat elsewhere, and the retake captures black's stone.
    conn.play(["J1", "J2", "D5"])
    board = board_of([*KO, "J1", "J2", "D5"])
    assert_shows(conn.state, board)
    assert conn.state["prisoners"] == [1, 1] and conn.state["last"]["removed"] == ["E5"]


def test_suicide_and_occupied_points_are_refused_with_their_reason(conn: Conn) -> None:
    conn.new(size=9, rules="chinese", players=HUMANS)
    state = conn.play(SUICIDE)
    board = board_of(SUICIDE)
    assert state["illegal"] == {"A1": "suicide"}
    for square, reason in (("A1", "suicide"), ("B1", "occupied"), ("e5", "occupied")):
        message = conn.error({"type": "move", "square": square})
        with pytest.raises(go.IllegalMoveError) as e:
            board.parse_move(square)
        assert e.value.reason == reason and message == str(e.value)
    assert "suicide" in conn.error({"type": "move", "square": "A1"})
    assert "occupied" in conn.error({"type": "move", "square": "B1"})
    assert stable(conn.resync()) == stable(state)


def test_multi_stone_suicide_is_a_move_under_tromp_taylor(conn: Conn) -> None:
    conn.new(size=9, rules="tromp-taylor", players=HUMANS)
    # White's A2, B2 and C1 fence black's A1 in; black B1 fills the last liberty of
    # A1-B1 itself, and the two stones go (white's prisoners).
    state = conn.play(["A1", "A2", "J9", "B2", "J8", "C1"])
    assert "B1" in state["legal"] and state["illegal"] == {}
    state = conn.move("B1")
    assert state["prisoners"] == [0, 2]
    assert sorted(state["last"]["removed"]) == ["A1", "B1"]
    assert state["last"]["captured"] == 2


# --------------------------------------------------------------------------- counting


def test_two_passes_start_the_count_with_proposed_dead_stones(conn: Conn) -> None:
    # Black walls off the left, a white stone sits in black's area, white walls the right.
    moves = [
        "D1", "F1", "D2", "F2", "D3", "F3", "D4", "F4", "D5", "F5",
        "D6", "F6", "D7", "F7", "D8", "F8", "D9", "F9", "B5", "B4", "C4", "pass",
    ]  # fmt: skip
    conn.new(size=9, rules="chinese", players=HUMANS)
    conn.play(moves)
    assert conn.state["over"] is False
    counting = conn.move("pass")  # white passed, black passes: play ends
    board = board_of([*moves, "pass"])
    assert counting["over"] is True and counting["legal"] == [] and counting["ko"] is None
    c = counting["counting"]
    proposed = go.estimate_dead(board, playouts=256)
    assert c["dead"] == names(board, proposed)
    score = board.score(proposed)
    assert c["result"] == score.result == counting["result"]
    assert c["points"] == [score.black, score.white] and c["scoring"] == "area"
    assert c["territory"]["1"] == names(board, score.black_territory)
    assert c["territory"]["2"] == names(board, score.white_territory)
    assert c["done"] is False and c["requested"] is False

    # No more moves while counting.
    assert "being counted" in conn.error({"type": "move", "square": "A1"})

    # B4 is white's lone stone inside black's side: mark it dead, then alive, then dead.
    was_dead = "B4" in c["dead"]
    marked = conn.do({"type": "toggle", "square": "b4"})
    assert ("B4" in marked["counting"]["dead"]) is not was_dead
    if was_dead:
        marked = conn.do({"type": "toggle", "square": "B4"})
    dead = {go.parse_vertex(v, 9) for v in marked["counting"]["dead"]}
    assert go.point(1, 3, 9) in dead
    assert marked["counting"]["result"] == board.score(dead).result == marked["result"]
    assert marked["counting"]["prisoners"] == list(board.score(dead).prisoners)
    assert marked["winner"] == board.score(dead).winner

    # Bad toggles change nothing.
    for square, says in (("E5", "no stone on E5"), ("pass", "not 'pass'"), ("Z1", "bad vertex")):
        assert says in conn.error({"type": "toggle", "square": square})
    assert "needs a 'square'" in conn.error({"type": "toggle"})
    assert stable(conn.resync()) == stable(marked)

    # Done records the result; it cannot be changed without an undo.
    done = conn.do({"type": "done"})
    assert done["counting"]["done"] is True and done["result"] == marked["result"]
    assert done["over"] is True and done["can_undo"] is True
    assert "recorded" in conn.error({"type": "toggle", "square": "B4"})
    assert "recorded" in conn.error({"type": "done"})
    assert "the game is over" in conn.error({"type": "move", "square": "A1"})

    # Undo: counting again (same marks), then play again from before the last pass.
    reopened = conn.do({"type": "undo"})
    assert reopened["counting"]["done"] is False
    assert reopened["counting"]["dead"] == marked["counting"]["dead"]
    playing = conn.do({"type": "undo"})
    assert playing["counting"] is None and playing["over"] is False
    assert_shows(playing, board_of(moves))


def test_the_score_button_counts_a_game_in_play_and_undo_plays_on(conn: Conn) -> None:
    conn.new(size=9, rules="japanese", players=HUMANS)
    before = conn.play(["C3", "G7", "C7"])
    counting = conn.do({"type": "score"})
    c = counting["counting"]
    assert counting["over"] is True and c["requested"] is True and c["scoring"] == "territory"
    board = board_of(["C3", "G7", "C7"], rules="japanese")
    score = board.score(go.estimate_dead(board, playouts=256))
    assert c["result"] == score.result and c["komi"] == 6.5
    assert "already being counted" in conn.error({"type": "score"})
    assert "being counted" in conn.error({"type": "move", "square": "D4"})
    resumed = conn.do({"type": "undo"})
    assert stable(resumed) == stable(before)
    assert_shows(resumed, board)


def test_pass_alive_stones_cannot_be_marked_dead(conn: Conn) -> None:
    conn.new(size=9, players=HUMANS)
    loaded = conn.load(TWO_EYES)
    counting = conn.do({"type": "score"})
    assert "A2" not in counting["counting"]["dead"]
    message = conn.error({"type": "toggle", "square": "A2"})
    assert "pass-alive" in message
    assert stable(conn.resync()) == stable(counting)
    assert loaded["cells"].count(go.BLACK) == 6


def test_toggle_and_done_are_for_the_count_only(conn: Conn) -> None:
    conn.new(size=9, players=HUMANS)
    before = conn.move("E5")
    assert "pass twice or press Score" in conn.error({"type": "toggle", "square": "E5"})
    assert "pass twice or press Score" in conn.error({"type": "done"})
    assert stable(conn.resync()) == stable(before)


# --------------------------------------------------------------------------- resign, undo


def test_resigning_ends_the_game_and_undo_takes_it_back(client: TestClient, conn: Conn) -> None:
    conn.new(size=9, players=HUMANS)
    before = conn.play(["E5", "C3"])
    resigned = conn.move("resign")  # black, to move, resigns
    assert resigned["over"] is True and resigned["result"] == "W+R" and resigned["winner"] == 2
    assert resigned["resigned"] == go.BLACK and resigned["counting"] is None
    assert resigned["history"] == before["history"]  # a resignation is not a move
    assert "Black resigned" in conn.error({"type": "move", "square": "D4"})
    assert "resigned" in conn.error({"type": "score"})
    sgf = client.get(f"/api/record/{resigned['id']}").text
    assert "RE[W+R]" in sgf
    undone = conn.do({"type": "undo"})
    assert stable(undone) == stable(before)
    undone = conn.do({"type": "undo"})  # two humans: one move at a time
    assert_shows(undone, board_of(["E5"]))


def test_undo_after_a_cpus_resignation_goes_back_to_the_humans_turn(conn: Conn) -> None:
    conn.new(size=9, players=HUMANS)
    conn.play(["E5"])
    conn.move("resign")  # white resigns...
    conn.do({"type": "settings", "paused": True})
    state = conn.do({"type": "settings", "players": {"2": "random"}})  # ...as if a CPU had
    assert state["result"] == "B+R" and state["can_undo"] is True
    undone = conn.do({"type": "undo"})  # the resignation and black's move: black to move
    assert undone["resigned"] is None and undone["over"] is False
    assert_shows(undone, go.Board(9))


def test_score_while_the_cpu_is_to_move_and_undo_resumes_there(conn: Conn) -> None:
    conn.new(size=9, players=HUMANS)
    conn.move("E5")
    conn.do({"type": "settings", "paused": True})
    before = conn.do({"type": "settings", "players": {"2": "random"}})
    assert before["turn"] == go.WHITE and before["thinking"] is None
    counting = conn.do({"type": "score"})
    assert counting["counting"]["requested"] is True
    resumed = conn.do({"type": "undo"})  # playing again, where Score was pressed
    assert stable(resumed) == stable(before)


def test_undo_with_nothing_to_undo_changes_nothing(conn: Conn) -> None:
    before = conn.new(size=9, players=HUMANS)
    assert "nothing to undo" in conn.error({"type": "undo"})
    assert stable(conn.resync()) == stable(before)


# --------------------------------------------------------------------------- SGF


def test_sgf_download_and_upload_round_trip(client: TestClient, conn: Conn) -> None:
    conn.new(size=13, rules="japanese", komi=0.5, players=HUMANS)
    moves = [*KO, "J1", "J2", "D5", "pass"]
    played = conn.play(moves)
    r = client.get(f"/api/record/{played['id']}")
    assert r.status_code == 200
    assert r.headers["content-type"] == "application/x-go-sgf"
    assert "attachment" in r.headers["content-disposition"]
    assert f"banmen-go-{played['id']}.sgf" in r.headers["content-disposition"]
    text = r.text
    assert text.startswith("(;GM[1]FF[4]") and "SZ[13]" in text and "KM[0.5]" in text
    assert "RU[Japanese]" in text and "PB[Human]" in text and "RE[" not in text
    game = go.read_sgf(text)
    assert game.board.move_stack == board_of(moves, 13, "japanese").move_stack
    assert game.board.rules.name == "japanese" and game.board.komi == 0.5

    loaded = conn.load(text)  # the upload: a new game, the same position
    assert loaded["id"] != played["id"] and loaded["players"] == played["players"]
    same = ("cells", "history", "prisoners", "komi", "rules", "size", "turn", "legal", "ko")
    assert {k: loaded[k] for k in same} == {k: played[k] for k in same}
    again = client.get(f"/api/record/{loaded['id']}").text
    assert go.read_sgf(again).board.move_stack == game.board.move_stack
    # and the loaded game plays on
    state = conn.move("pass")
    assert state["over"] is True and state["counting"] is not None


def test_an_uploaded_finished_game_is_counted_and_its_result_downloads(
    client: TestClient, conn: Conn
) -> None:
    conn.new(size=9, players=HUMANS)
    loaded = conn.load("(;GM[1]SZ[9]KM[6.5]RU[AGA];B[ee];W[cc];B[];W[])")
    assert loaded["over"] is True and loaded["counting"]["done"] is False
    assert loaded["rules"]["name"] == "aga" and loaded["komi"] == 6.5
    done = conn.do({"type": "done"})
    text = client.get(f"/api/record/{done['id']}").text
    assert f"RE[{done['result']}]" in text
    board = go.read_sgf(text).board
    assert board.is_game_over() and len(board.move_stack) == 4


def test_sgf_download_of_unknown_or_other_games(client: TestClient) -> None:
    assert client.get("/api/record/nosuchgame").status_code == 404
    assert client.get("/api/record/bad%20id!").status_code == 404
    with client.websocket_connect("/ws/othello") as ws:
        othello = Conn(ws).join()
    r = client.get(f"/api/record/{othello['id']}")
    assert r.status_code == 404 and "Othello has no record format" in r.json()["error"]


def _sgf_error(text: str) -> str:
    with pytest.raises(go.SgfError) as e:
        go.read_sgf(text)
    return str(e.value)


BAD_SGF = [
    ("not sgf", "hello"),
    ("unterminated", "(;GM[1]SZ[9];B[ee]"),
    ("othello", "(;GM[2]SZ[8];B[ee])"),
    ("bad size", "(;GM[1]SZ[3];B[aa])"),
    ("illegal move", "(;GM[1]SZ[9];B[ee];W[ee])"),
    ("bad point", "(;GM[1]SZ[9];B[zz])"),
]


@pytest.mark.parametrize("text", [b[1] for b in BAD_SGF], ids=[b[0] for b in BAD_SGF])
def test_an_sgf_that_fails_to_parse_changes_nothing(conn: Conn, text: str) -> None:
    conn.new(size=9, players=HUMANS)
    before = conn.move("E5")
    assert conn.error({"type": "load", "text": text}) == _sgf_error(text)
    assert stable(conn.resync()) == stable(before)


def test_a_record_longer_than_a_game_is_refused_unread(conn: Conn) -> None:
    # 9,380 moves (47 KB): more than a Go game has (GameDef.max_plies, 3 x 19 x 19), so
    # nothing of it is replayed; one just under that loads and plays on
    conn.new(size=9, players=HUMANS)
    before = conn.move("E5")
    cap = go.GAME.max_plies
    refused = conn.error({"type": "load", "text": go_long.long_record()})
    assert refused == f"the record has {go_long.LONG_MOVES} moves: at most {cap} are taken"
    assert stable(conn.resync()) == stable(before)
    loaded = conn.load(go_long.first_moves(cap - 6))
    assert loaded["size"] == 19 and len(loaded["history"]) == cap - 6
    assert loaded["players"] == HUMANS and not loaded["over"]
    assert conn.move(loaded["legal"][0])["history"][-1]["ply"] == cap - 5


def test_load_limits(conn: Conn) -> None:
    conn.new(size=9, players=HUMANS)
    before = conn.move("E5")
    assert "nothing to load" in conn.error({"type": "load", "text": "  \n"})
    long = "(;GM[1]SZ[19]C[" + "x" * GO_MAX_LOAD + "])"
    assert "too long" in conn.error({"type": "load", "text": long})
    assert "an SGF record" in conn.error({"type": "load", "text": 5})
    assert stable(conn.resync()) == stable(before)


# --------------------------------------------------------------------------- bad messages

BAD_MESSAGES = [
    ("bad vertex", {"type": "move", "square": "Z9"}, "bad vertex 'Z9'"),
    ("column I", {"type": "move", "square": "I5"}, "no column I"),
    ("off the board", {"type": "move", "square": "K10"}, "off the 9x9 board"),
    ("row 0", {"type": "move", "square": "D0"}, "off the 9x9 board"),
    ("empty square", {"type": "move", "square": ""}, "bad vertex"),
    ("square as number", {"type": "move", "square": 44}, "must be a string like 'D4'"),
    ("long square", {"type": "move", "square": "D4; DROP TABLE"}, "bad square"),
    ("size 10", {"type": "new", "size": 10}, "'size' must be one of 9, 13, 19"),
    ("unknown rules", {"type": "new", "rules": "ing"}, "unknown rules 'ing'"),
    ("rules number", {"type": "new", "rules": 1}, "'rules' must be a string"),
    ("komi not half", {"type": "new", "komi": 7.3}, "whole or half points"),
    ("komi huge", {"type": "new", "komi": 1e9}, "whole or half points"),
    # issue 32: an integer no float holds was an OverflowError and "internal server error"
    ("komi 401 digits", {"type": "new", "komi": 10**400}, "'komi' must be a number from -"),
    ("komi -401 digits", {"type": "new", "komi": -(10**400)}, "'komi' must be a number from -"),
    ("komi text", {"type": "new", "komi": "lots"}, "'komi' must be a number"),
    ("komi boolean", {"type": "new", "komi": True}, "'komi' must be a number"),
    ("seed", {"type": "new", "seed": 5}, "unknown field 'seed' in 'new'"),
    ("toggle field", {"type": "toggle", "square": "E5", "x": 1}, "unknown field 'x'"),
    ("score field", {"type": "score", "now": True}, "unknown field 'now' in 'score'"),
    ("unknown type", {"type": "fly"}, "expected one of join, new, move, undo"),
    ("othello level", {"type": "new", "players": {"1": "easy"}}, "bad level 'easy'"),
]


@pytest.mark.parametrize(
    ("msg", "says"), [b[1:] for b in BAD_MESSAGES], ids=[b[0] for b in BAD_MESSAGES]
)
def test_bad_messages_change_nothing(conn: Conn, msg: Msg, says: str) -> None:
    conn.new(size=9, players=HUMANS)
    before = conn.move("E5")
    message = conn.error(msg)
    assert says in message
    if msg["type"] == "move" and says != "bad square" and isinstance(msg["square"], str):
        with pytest.raises(go.GoError) as e:
            go.Board(9).parse_move(msg["square"])
        assert message == str(e.value)  # the board's own one-line message
    assert stable(conn.resync()) == stable(before)


@pytest.mark.parametrize(
    "raw", ["D4", "{", "[1, 2]", '{"type": "move", "square": NaN}', "", '"move"'],
    ids=["bare vertex", "broken", "array", "NaN", "empty", "string"],
)  # fmt: skip
def test_garbage_json_changes_nothing(conn: Conn, raw: str) -> None:
    conn.new(size=9, players=HUMANS)
    before = conn.move("E5")
    message = conn.error(raw)
    assert "JSON" in message or "object" in message
    assert stable(conn.resync()) == stable(before)


def test_go_messages_are_go_only(client: TestClient) -> None:
    with client.websocket_connect("/ws/othello") as ws:
        othello = Conn(ws)
        before = othello.join()
        for kind in ("score", "done"):
            assert f"unknown message type {kind!r}" in othello.error({"type": kind})
        assert "unknown field 'komi'" in othello.error({"type": "new", "komi": 6.5})
        assert "unknown field 'rules'" in othello.error({"type": "new", "rules": "japanese"})
        assert stable(othello.resync()) == stable(before)


# --------------------------------------------------------------------------- CPU, saving


def test_human_against_the_random_cpu_and_undo(conn: Conn) -> None:
    conn.new(size=9, players={"1": "human", "2": "random"})
    conn.send({"type": "move", "square": "E5"})
    replied = conn.next_state(lambda s: len(s["history"]) == 2 and not s["thinking"])
    assert replied["turn"] == go.BLACK and replied["cpu"]["player"] == go.WHITE
    assert replied["cpu"]["stopped_by"] == "random" and replied["cpu"]["level"] == "random"
    board = board_of([h["square"] for h in replied["history"]])
    assert_shows(replied, board)
    undone = conn.do({"type": "undo"})  # back to black's turn: the CPU's reply goes too
    assert_shows(undone, go.Board(9))
    assert undone["can_undo"] is False and undone["cpu"] is None


def test_random_cpus_play_to_the_count(client: TestClient, conn: Conn) -> None:
    conn.do({"type": "settings", "delay_ms": 0})
    started = conn.new(size=9, players={"1": "random", "2": "random"})
    final = conn.next_state(lambda s: s["over"])
    moves = [h["square"] for h in final["history"]]
    board = go.Board(9)
    for h in final["history"]:
        board.push(board.parse_move(h["square"]))
    assert board.is_game_over() and moves[-2:] == ["pass", "pass"]
    assert final["counting"] is not None and final["thinking"] is None
    # the count starts from Game.propose's estimate: DEAD_PLAYOUTS playouts, seed 0
    dead = go.estimate_dead(board, playouts=DEAD_PLAYOUTS)
    assert final["counting"]["dead"] == names(board, dead)
    saved = client.get(f"/api/saved/{started['id']}").json()
    assert saved["game"] == "go"
    assert saved["state"]["board"]["counting"]["dead"] == final["counting"]["dead"]
    assert go.Board.from_dict(saved["state"]["board"]) == board


def test_the_search_reports_playouts_win_rate_and_line(conn: Conn) -> None:
    conn.new(size=9, players={"1": "quick", "2": "human"})
    info = conn.until(lambda m: m["type"] == "info")
    assert info["player"] == go.BLACK and info["nodes"] > 0
    assert 0 <= info["score"] <= 100 and info["pv"]
    moved = conn.next_state(lambda s: len(s["history"]) == 1 and not s["thinking"])
    cpu = moved["cpu"]
    assert cpu["player"] == go.BLACK and cpu["nodes"] > 0 and cpu["exact"] is False
    assert "win rate" in cpu["verdict"] and "playouts" in cpu["verdict"]
    assert moved["history"][0]["square"] == cpu["move"] and moved["turn"] == go.WHITE


def test_the_count_is_saved_and_survives_a_restart(tmp_path: Path) -> None:
    db = tmp_path / "restart.sqlite3"
    with TestClient(create_app(db, workers=1)) as c1, c1.websocket_connect("/ws/go") as ws:
        conn = Conn(ws)
        conn.join()
        conn.new(size=9, players=HUMANS)
        conn.play(["E5", "E6", "D6", "pass", "pass"])
        marked = conn.do({"type": "toggle", "square": "E6"})
    with TestClient(create_app(db, workers=1)) as c2, c2.websocket_connect("/ws/go") as ws:
        again = Conn(ws).join(marked["id"])
    assert stable(again) == stable(marked)
    assert again["counting"] == marked["counting"] and again["result"] == marked["result"]


def test_records_read_back() -> None:
    play = go.Game(go.Board(9, "japanese", 3.5), propose_dead=True)  # as the page's games
    for v in ("E5", "E6", "pass", "pass"):
        play.push(play.board.parse_move(v))
    play.toggle(go.parse_vertex("E6", 9))
    play.finish()
    back = go.Game.from_dict(json.loads(json.dumps(play.to_dict())), propose_dead=True)
    assert back.to_dict() == play.to_dict()
    assert back.result() == play.result() and back.done and back.dead == play.dead
    # the worker's reader takes the same record
    assert go.Board.from_dict(play.to_dict()) == play.board

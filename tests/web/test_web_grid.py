"""The generic board page (banmen.web.grid) through Starlette's TestClient, with two toy
games that bring no page of their own (tests/web/toy_grid.py): tic-tac-toe, one click
one move, and Hopper, a hex grid played from cell to cell.

The toys are games of this process (``banmen.games.registry.register``) and an installed package
for the app's engine worker (an entry point: the worker is a process of its own). Every
state is checked against the toys' own boards, and every refused message must leave the
game exactly as it was. How the app finds its games (the catalog), what it makes of a
broken one, and the levels a game's engines give are checked here too.
"""

from __future__ import annotations

import dataclasses
import json
import warnings
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
import toy_grid
from toy_grid import AtaxxBoard, Board, HopperBoard, ax_cell, square_name
from ws_conn import Msg, WsConn, stable

with warnings.catch_warnings():
    # Starlette 1.x nudges TestClient users towards httpx2; irrelevant to these tests.
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from banmen.engine import Result
from banmen.games import EngineKind, GameDef
from banmen.games.engines import STANDARD_ENGINES
from banmen.web.catalog import AdapterError, adapter_class, catalog, has_page, make_games
from banmen.web.games.othello import OthelloGame
from banmen.web.grid import GridGame, grid_levels
from banmen.web.pages import app_pages, render_page
from banmen.web.server import create_app, warm_games

pytestmark = [
    pytest.mark.timeout(120),
    pytest.mark.filterwarnings("ignore:.*httpx2:UserWarning"),
]

HUMANS = {"1": "human", "2": "human"}


# --------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def toys(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    with toy_grid.installed(tmp_path_factory.mktemp("toys")):
        yield


@pytest.fixture(scope="module")
def client(toys: None, tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    db = tmp_path_factory.mktemp("grid") / "games.sqlite3"
    with TestClient(create_app(db, workers=1)) as c:
        yield c


class Conn(WsConn):
    """A socket on /ws/tictactoe (or /ws/hopper)."""

    def move(self, square: str) -> Msg:
        ply = len(self.state["history"])
        self.send({"type": "move", "square": square})
        return self.next_state(lambda s: len(s["history"]) > ply)

    def do(self, msg: Msg) -> Msg:
        self.send(msg)
        return self.next_state()

    def error(self, msg: Msg | str) -> str:
        """The one-line error ``msg`` gets; the game must be just as it was."""
        before = stable(self.state)
        self.send(msg)
        text = self.next_error_text()
        assert stable(self.resync()) == before
        return text


@pytest.fixture
def ttt(client: TestClient) -> Iterator[Conn]:
    with client.websocket_connect("/ws/tictactoe") as ws:
        c = Conn(ws)
        c.join()
        yield c


@pytest.fixture
def mini(client: TestClient) -> Iterator[Conn]:
    with client.websocket_connect("/ws/mini-ataxx") as ws:
        c = Conn(ws)
        c.join()
        yield c


@pytest.fixture
def hopper(client: TestClient) -> Iterator[Conn]:
    with client.websocket_connect("/ws/hopper") as ws:
        c = Conn(ws)
        c.join()
        yield c


def board_of(moves: list[str]) -> Board:
    b = Board()
    for name in moves:
        b.push_name(name)
    return b


def assert_shows(state: Msg, board: Board) -> None:
    """The state describes tic-tac-toe ``board`` exactly."""
    assert state["game"] == "tictactoe"
    assert (state["rows"], state["cols"]) == (3, 3)
    assert state["cells"] == [("", "x", "o")[c] for c in board.cells]
    assert state["turn"] == board.turn
    legal = [square_name(m) for m in board.legal_moves]
    assert state["legal"] == legal
    assert state["clicks"] == {str(m): square_name(m) for m in board.legal_moves}
    assert state["move_cells"] == {square_name(m): m for m in board.legal_moves}
    assert [h["square"] for h in state["history"]] == [square_name(m) for m in board.move_stack]
    assert [h["cell"] for h in state["history"]] == board.move_stack
    assert [h["player"] for h in state["history"]] == [
        1 + k % 2 for k in range(len(board.move_stack))
    ]
    assert state["over"] == board.is_game_over()
    assert state["result"] == board.result() and state["winner"] == board.winner()
    # the piece each side plays, as soon as its first move shows it (the view names none)
    first_two = range(min(2, len(board.move_stack)))
    assert state["side_keys"] == {str(1 + k % 2): "xo"[k % 2] for k in first_two}
    # one click, one move: no targets; no coordinates either
    assert state["targets"] is None and state["coords"] is None


class Tags(HTMLParser):
    def __init__(self, text: str) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def first(self, tag: str) -> dict[str, str | None]:
        return next(a for t, a in self.tags if t == tag)

    def ids(self) -> set[str]:
        return {i for _, a in self.tags if (i := a.get("id"))}


# --------------------------------------------------------------------------- the page


def test_the_home_page_and_api_list_the_toys(client: TestClient) -> None:
    home = client.get("/").text
    for game in (toy_grid.GAME, toy_grid.HOPPER):
        assert f'<a class="game-card" href="/{game.name}"><strong>{game.title}</strong>' in home
    games = {g["name"]: g for g in client.get("/api/games").json()}
    assert games["tictactoe"] == {
        "name": "tictactoe",
        "title": "Tic-tac-toe",
        "path": "/tictactoe",
        "summary": toy_grid.GAME.summary,
    }
    assert {"go", "mattix", "othello", "tictactoe", "hopper"} <= set(games)
    assert "shogi" not in games  # no adapter, no grid: its page is /tsume


def test_the_generic_page_is_served_for_a_game_with_a_grid(client: TestClient) -> None:
    r = client.get("/tictactoe")
    assert r.status_code == 200 and "default-src 'self'" in r.headers["content-security-policy"]
    text = r.text
    assert '<script type="module" src="/static/js/grid.js">' in text
    assert '<link rel="stylesheet" href="/static/css/grid.css">' in text
    assert "<title>Tic-tac-toe · banmen</title>" in text and "<!--" not in text
    tags = Tags(text)
    body = tags.first("body")
    assert body["class"] == "grid"
    data = json.loads(body["data-game"] or "")
    assert data["name"] == "tictactoe" and data["sides"] == ["X", "O"]
    assert data["pieces"] == {"x": ["#1d4ed8", "X"], "o": ["#dc2626", "O"]}
    assert (data["shape"], data["click"], data["record"], data["load"]) == (
        "square",
        "cell",
        True,
        True,
    )
    # what game-page.js fills, and the game's own parts: analysis, load box, download
    assert {"board-svg", "status", "level-1", "level-2", "undo", "stop", "pause", "moves",
            "analysis", "load-text", "record-download", "pass"} <= tags.ids()  # fmt: skip
    hop = Tags(client.get("/hopper").text)
    hop_data = json.loads(hop.first("body")["data-game"] or "")
    assert (hop_data["shape"], hop_data["click"], hop_data["seeded"]) == ("hex", "from-to", True)
    assert {"seed", "score-1", "score-2"} <= hop.ids()
    assert not {"analysis", "load-text", "record-download"} & hop.ids()
    for path in ("/static/js/grid.js", "/static/js/grid-board.js", "/static/css/grid.css"):
        got = client.get(path)
        assert got.status_code == 200 and len(got.content) > 500, path
        assert "https://" not in got.text and "//cdn" not in got.text, path


def test_the_toy_levels_come_from_its_engines(ttt: Conn) -> None:
    state = ttt.state
    assert [lv["name"] for lv in state["levels"]] == ["human", "random"]
    assert state["players"] == {"1": "human", "2": "random"}


# --------------------------------------------------------------------------- play


def test_a_human_move_and_the_cpus_reply(ttt: Conn) -> None:
    start = ttt.new(players={"1": "human", "2": "random"})
    assert_shows(start, Board())
    mine = ttt.move("b2")
    assert mine["history"][0] == {"ply": 1, "player": 1, "square": "b2", "cell": 4, "from": None}
    # the CPU's reply (a random legal move), checked against the rules
    replied = ttt.next_state(lambda s: len(s["history"]) == 2)
    reply = replied["history"][1]
    assert reply["player"] == 2 and reply["square"] != "b2"
    assert reply["square"] in [square_name(m) for m in board_of(["b2"]).legal_moves]
    assert_shows(replied, board_of(["b2", reply["square"]]))
    assert replied["last"] == reply and replied["cpu"]["move"] == reply["square"]
    assert replied["cpu"]["player"] == 2 and replied["cpu"]["level"] == "random"
    assert replied["turn"] == 1 and replied["thinking"] is None


def test_undo_takes_back_the_cpus_reply_and_the_move(ttt: Conn) -> None:
    ttt.new(players={"1": "human", "2": "random"})
    ttt.move("a1")
    ttt.next_state(lambda s: len(s["history"]) == 2)
    undone = ttt.do({"type": "undo"})
    assert_shows(undone, Board())
    assert undone["can_undo"] is False


def test_reload_keeps_the_game(client: TestClient, ttt: Conn) -> None:
    ttt.new(players=HUMANS)
    played = None
    for sq in ("a1", "b1", "c3"):
        played = ttt.move(sq)
    assert played is not None
    with client.websocket_connect("/ws/tictactoe") as ws:
        again = Conn(ws).join(played["id"])
    assert stable(again) == stable(played)
    assert_shows(again, board_of(["a1", "b1", "c3"]))


def test_a_game_played_to_the_end(ttt: Conn) -> None:
    ttt.new(players=HUMANS)
    moves = ["a1", "a2", "b1", "b2", "c1"]  # X takes the top row
    for sq in moves:
        state = ttt.move(sq)
    assert_shows(state, board_of(moves))
    assert state["over"] and state["winner"] == 1 and state["result"] == "1-0"
    assert state["clicks"] == {} and state["legal"] == []
    assert "over" in ttt.error({"type": "move", "square": "c3"})


def test_bad_moves_get_one_line_and_change_nothing(ttt: Conn) -> None:
    ttt.new(players=HUMANS)
    ttt.move("b2")
    assert "bad square 'z9'" in ttt.error({"type": "move", "square": "z9"})
    assert "b2 is taken" in ttt.error({"type": "move", "square": "b2"})
    assert "'square' must be a string" in ttt.error({"type": "move", "square": 4})
    assert "bad square" in ttt.error({"type": "move", "square": "x" * 40})
    # a game played by single clicks takes no pair of cells
    assert "unknown field 'from'" in ttt.error({"type": "move", "from": 0, "to": 1})
    assert "not a position" in ttt.error({"type": "load", "text": "xx"})
    ttt.do({"type": "settings", "players": {"2": "random"}, "paused": True})  # O: a CPU
    assert "not a human's turn: O is played by CPU random" in ttt.error(
        {"type": "move", "square": "a1"}
    )


def test_load_a_position(ttt: Conn) -> None:
    ttt.new(players=HUMANS)
    loaded = ttt.load("x.. .o. ..x")
    assert loaded["turn"] == 2 and len(loaded["history"]) == 3
    assert loaded["cells"] == ["x", "", "", "", "o", "", "", "", "x"]


def test_the_analysis_values_every_legal_move(ttt: Conn) -> None:
    ttt.new(players=HUMANS)
    for sq in ("a1", "b2", "c3"):
        ttt.move(sq)
    ttt.send({"type": "analysis", "on": True})
    done = ttt.analysis(lambda m: m["status"] == "done")
    data = done["data"]
    assert data["complete"] is True and done["position"] == 3
    board = board_of(["a1", "b2", "c3"])
    assert sorted(r["move"] for r in data["moves"]) == sorted(
        square_name(m) for m in board.legal_moves
    )
    # O to move: playing a corner loses (X forks), an edge holds the draw
    values = {r["move"]: r["value"] for r in data["moves"]}
    assert values["a3"] == -1 and values["b1"] == 0
    ttt.send({"type": "analysis", "on": False})


def test_the_record_download(client: TestClient, ttt: Conn) -> None:
    ttt.new(players={"1": "human", "2": "random"})
    ttt.move("b2")
    state = ttt.next_state(lambda s: len(s["history"]) == 2)
    r = client.get(f"/api/record/{state['id']}")
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("text/plain")
    assert f'filename="banmen-tictactoe-{state["id"]}.ttt"' in r.headers["content-disposition"]
    moves = " ".join(h["square"] for h in state["history"])
    assert r.text == f"X Human\nO banmen CPU random (random)\n{moves}\n*\n"
    assert client.get("/api/record/nosuchgame").status_code == 404


def test_no_record_for_a_game_without_a_format(client: TestClient, hopper: Conn) -> None:
    r = client.get(f"/api/record/{hopper.state['id']}")
    assert r.status_code == 404 and r.json()["error"].endswith("Hopper has no record format")


# --------------------------------------------------------------------------- from cell to cell


def test_hopper_from_cell_to_cell(hopper: Conn) -> None:
    start = hopper.new(seed=2, players=HUMANS)
    assert start["seed"] == "2"
    board = HopperBoard((2, 9))
    assert start["cells"] == ["a" if c == 2 else "b" if c == 9 else "" for c in range(12)]
    assert start["clicks"] == {} and start["scores"] == [0, 0]
    # no origin_of: the page cannot know a piece's targets (any two cells are sent)
    assert start["targets"] is None and start["coords"] is None and start["side_keys"] == {}
    assert start["move_cells"] == {board.move_name(m): m % 100 for m in board.legal_moves}
    moved = hopper.do({"type": "move", "from": 2, "to": 6})
    board.push_name("2-6")
    assert moved["history"] == [{"ply": 1, "player": 1, "square": "2-6", "cell": 6, "from": None}]
    assert moved["side_keys"] == {"1": "a"}
    assert moved["cells"][6] == "a" and moved["cells"][2] == ""
    assert moved["scores"] == list(board.scores()) == [1, 0]
    assert moved["move_cells"] == {board.move_name(m): m % 100 for m in board.legal_moves}


def test_hopper_bad_clicks_get_one_line_and_change_nothing(hopper: Conn) -> None:
    hopper.new(seed=2, players=HUMANS)
    assert "no legal move from row 1, column 3 to row 3, column 4" in hopper.error(
        {"type": "move", "from": 2, "to": 11}
    )
    assert "no legal move" in hopper.error({"type": "move", "from": 9, "to": 8})  # not its piece
    assert "off the board" in hopper.error({"type": "move", "from": 2, "to": 50})
    assert "'from' must be a whole number from 0 to 9999" in hopper.error(
        {"type": "move", "from": 10**6, "to": 1}
    )
    assert "'to' must be a whole number from 0 to 9999, got null" in hopper.error(
        {"type": "move", "from": 2}
    )
    assert "not both" in hopper.error({"type": "move", "square": "2-6", "from": 2, "to": 6})
    assert "'2-7' is not a legal move now: Player 1 may play" in hopper.error(
        {"type": "move", "square": "2-7"}
    )
    assert "bad move 'zz'" in hopper.error({"type": "move", "square": "zz"})
    assert "'seed' must be a whole number" in hopper.error({"type": "new", "seed": "x"})


def test_hopper_to_the_end_with_its_scores(hopper: Conn) -> None:
    state = hopper.new(seed=0, players=HUMANS)
    board = HopperBoard((0, 11))
    while not board.is_game_over():
        move = board.legal_moves[-1]
        a, b = divmod(move, 100)
        state = hopper.do({"type": "move", "from": a, "to": b})
        board.push(move)
        assert state["scores"] == list(board.scores())
    assert state["over"] and state["winner"] == board.winner()
    assert state["result"] == board.result()


def ataxx_targets(board: AtaxxBoard) -> dict[str, dict[str, str]]:
    """What the state's ``targets`` must be for ``board``, from the toy's own moves."""
    out: dict[str, dict[str, str]] = {}
    for m in board.legal_moves:
        out.setdefault(str(m // 100), {})[str(m % 100)] = board.move_name(m)
    return out


def test_mini_ataxx_sides_coordinates_and_targets_from_move_0(mini: Conn) -> None:
    start = mini.new(players=HUMANS)
    board = AtaxxBoard()
    assert len(start["history"]) == 0 and start["cells"] == board.cells
    # the sides' pieces (so their colours) before anyone has moved: the view's side_pieces
    assert start["side_keys"] == {"1": "x", "2": "o"}
    assert start["coords"] == {
        "files": ["a", "b", "c", "d", "e"],
        "ranks": ["5", "4", "3", "2", "1"],
    }
    # each piece of the mover that can move -> its targets -> the move (origin_of, cell_of)
    assert start["targets"] == ataxx_targets(board)
    assert set(start["targets"]) == {"0", "24"}  # x's pieces, a5 and e1; never o's
    assert start["targets"]["0"]["6"] == "a5b4" and start["targets"]["0"]["12"] == "a5c3"
    assert len(start["targets"]["0"]) == 8  # one and two steps from a corner
    # the second click on a target plays that very move: a jump, the origin left empty
    moved = mini.do({"type": "move", "from": ax_cell("a5"), "to": ax_cell("c3")})
    board.push_name("a5c3")
    last = {"ply": 1, "player": 1, "square": "a5c3", "cell": 12, "from": 0}
    assert moved["history"] == [last] and moved["last"] == last
    assert moved["cells"] == board.cells and moved["cells"][0] == ""
    assert moved["targets"] == ataxx_targets(board) and set(moved["targets"]) == {"4", "20"}
    assert moved["side_keys"] == {"1": "x", "2": "o"} and moved["scores"] == [2, 2]
    # a clone next to the jumped piece turns it: the origin stays, the move list says e5d4
    moved = mini.do({"type": "move", "from": ax_cell("e5"), "to": ax_cell("d4")})
    board.push_name("e5d4")
    assert moved["last"] == {"ply": 2, "player": 2, "square": "e5d4", "cell": 8, "from": 4}
    assert moved["cells"] == board.cells and moved["cells"][12] == "o" == moved["cells"][4]
    assert [h["square"] for h in moved["history"]] == ["a5c3", "e5d4"]
    # a pair of cells that is no move is still one line, and changes nothing
    assert "no legal move from row 1, column 1 to row 5, column 5" in mini.error(
        {"type": "move", "from": 0, "to": 24}
    )


def test_the_optional_view_parts_are_checked_when_the_page_is_made() -> None:
    view = toy_grid.MINI_ATAXX.grid
    assert view is not None

    def game(**changes: Any) -> GameDef[Any]:
        return dataclasses.replace(toy_grid.MINI_ATAXX, grid=dataclasses.replace(view, **changes))

    with pytest.raises(AdapterError, match="side_pieces 'z' is not one of its pieces"):
        GridGame(game(side_pieces=("x", "z")))
    with pytest.raises(AdapterError, match="side_pieces must be two piece keys"):
        GridGame(game(side_pieces=("x",)))
    with pytest.raises(AdapterError, match="coordinates are drawn on square grids only"):
        GridGame(game(shape="hex"))
    # coordinates of the wrong length: the first describe fails (the page is left out)
    short = GridGame(game(coordinates=lambda b: (["a", "b"], ["1", "2", "3", "4", "5"])))
    board = AtaxxBoard()
    with pytest.raises(ValueError, match="gives 2 files and 5 ranks for 5x5"):
        short.describe(board, board.copy())
    # one side named only: the other's piece still comes from its first move
    half = GridGame(game(side_pieces=("x", "")))
    board.push_name("a5b4")
    assert half.describe(board, AtaxxBoard())["side_keys"] == {"1": "x"}
    board.push_name("e5d5")
    assert half.describe(board, AtaxxBoard())["side_keys"] == {"1": "x", "2": "o"}


def test_an_origin_hook_that_raises_leaves_that_move_unmarked() -> None:
    view = toy_grid.MINI_ATAXX.grid
    assert view is not None

    def origin_of(board: Any, name: str) -> int | None:
        if name.startswith("e1"):
            raise ValueError("no origin for e1")
        return 99 if name == "a5a4" else view.origin_of(board, name)  # type: ignore[misc]

    quirky = dataclasses.replace(view, origin_of=origin_of)
    game = GridGame(dataclasses.replace(toy_grid.MINI_ATAXX, name="quirky", grid=quirky))
    board = AtaxxBoard()
    state = game.describe(board, board.copy())
    assert set(state["targets"]) == {"0"}  # e1's moves have no origin; a5a4's is off the board
    assert "4" not in state["targets"]["0"] and state["targets"]["0"]["6"] == "a5b4"
    board.push_name("e1d1")
    assert game.describe(board, AtaxxBoard())["history"][0]["from"] is None


# --------------------------------------------------------------------------- the catalog


def _broken(name: str, **fields: Any) -> GameDef[Any]:
    base: dict[str, Any] = {
        "name": name,
        "title": name.title(),
        "board_from_dict": Board.from_dict,
        "engines": {"random": STANDARD_ENGINES["random"]},
    }
    return GameDef(**{**base, **fields})


def test_games_with_a_page_and_broken_ones_are_left_out(toys: None) -> None:
    lines: list[str] = []
    grid = toy_grid.GAME.grid
    no_start = _broken("nostart", grid=grid)
    bad_module = _broken("badweb", web="no_such_module_here:Game")
    not_adapter = _broken("notadapter", web="toy_grid:Board")
    no_page = _broken("nopage")
    fails = _broken("fails", grid=grid, new_board=lambda seed, size: 1 / 0)
    wrong = _broken("wrong", web="banmen.web.games.othello:OthelloGame")
    assert not has_page(no_page) and has_page(no_start) and has_page(bad_module)
    found = {g.name: g for g in (no_start, bad_module, not_adapter, fails, wrong)}
    made = make_games(games={**found, "tictactoe": toy_grid.GAME}, on_broken=lines.append)
    assert list(made) == ["tictactoe"]
    assert isinstance(made["tictactoe"], GridGame)
    assert len(lines) == 5 and all("\n" not in line for line in lines)
    text = " | ".join(lines)
    assert "Nostart cannot start a game on the generic board page" in text
    assert "Badweb's web adapter 'no_such_module_here:Game' cannot be imported" in text
    assert "is not a banmen.web.games.WebGame subclass" in text
    assert "ZeroDivisionError" in text  # its first board
    assert "web adapter is for game 'othello', not 'wrong'" in text
    with pytest.raises(AdapterError, match="sets neither web nor grid"):
        adapter_class(no_page)
    assert adapter_class(toy_grid.GAME) is GridGame
    assert adapter_class(_broken("o", web="banmen.web.games.othello:OthelloGame")) is OthelloGame
    # the catalog: built-ins with their own adapters and the toys, never shogi
    names = [e.name for e in catalog()]
    assert names == sorted(names) and {"go", "mattix", "othello", "tictactoe"} <= set(names)
    assert "shogi" not in names


def test_a_game_whose_pages_fail_at_warm_up_is_left_out(toys: None) -> None:
    made = make_games(games={"tictactoe": toy_grid.GAME, "hopper": toy_grid.HOPPER})
    lines: list[str] = []

    def broken_cells(board: Any) -> list[str]:
        return ["x"]  # one cell for a 3x3 board

    assert toy_grid.GAME.grid is not None
    bad_view = dataclasses.replace(toy_grid.GAME.grid, cells=broken_cells)
    bad = GridGame(_broken("badview", grid=bad_view, new_board=lambda s, n: Board()))
    warmed = warm_games({**made, "badview": bad}, on_broken=lines.append)
    assert list(warmed) == ["tictactoe", "hopper"]
    assert len(lines) == 1 and "Badview's web page left out" in lines[0]
    assert "gives 1 cells for 3x3" in lines[0]
    pages = app_pages(warmed)
    assert [p.path for p in pages[1:3]] == ["/tictactoe", "/hopper"]
    assert 'href="/hopper"' in render_page(pages[0])


def test_levels_from_the_engines_a_game_offers() -> None:
    mcts = EngineKind(lambda g, s: None, "tree search", ("time", "playouts"))  # type: ignore[arg-type,return-value]
    full = _broken("full", engines={**STANDARD_ENGINES, "mcts": mcts})
    levels = grid_levels(full)
    assert [(lv.name, lv.spec) for lv in levels] == [
        ("human", None),
        ("random", "random"),
        ("easy", "alphabeta:depth=1"),
        ("normal", "alphabeta:depth=4"),
        ("strong", "alphabeta:time=1"),
        ("perfect", "perfect"),
        ("mcts-quick", "mcts:time=0.5"),
        ("mcts", "mcts:time=2"),
    ]
    assert all(lv.label and (lv.note or lv.spec is None) for lv in levels)
    only_depth = EngineKind(STANDARD_ENGINES["alphabeta"].build, "depth only", ("depth",))
    assert [lv.name for lv in grid_levels(_broken("d", engines={"alphabeta": only_depth}))] == [
        "human",
        "easy",
        "normal",
    ]
    game = GridGame(_broken("lv", grid=toy_grid.GAME.grid, new_board=lambda s, n: Board(),
                            engines=full.engines))  # fmt: skip
    assert game.defaults.players == ("human", "normal")


def test_the_verdict_words_a_cpu_result() -> None:
    game = GridGame(toy_grid.GAME)
    assert game.verdict(1, Result("a1", score=None)) == ""
    assert game.verdict(2, Result("a1", score=1, exact=True)) == "proved value: +1 for O"
    assert game.verdict(1, Result("a1", score=-3, stopped_by="time")) == (
        "estimated value: +3 for O (not proved: time limit)"
    )
    assert game.verdict(1, Result("a1", score=0, exact=True)) == "proved value: 0 (a draw)"


def test_the_page_of_a_generic_game_has_what_the_scripts_fill(toys: None, tmp_path: Path) -> None:
    made = make_games(games={"tictactoe": toy_grid.GAME})
    page = next(p for p in app_pages(made) if p.path == "/tictactoe")
    text = render_page(page)
    ids = [i for _, a in Tags(text).tags if (i := a.get("id"))]
    assert len(ids) == len(set(ids))
    assert "Paste nine squares x, o or . row by row from a1" in text
    assert "Download this game (.ttt)" in text


def test_a_hook_that_raises_for_one_move_leaves_it_unmarked() -> None:
    assert toy_grid.GAME.grid is not None
    real = toy_grid.GAME.grid

    def cell_of(board: Any, name: str) -> int | None:
        if name == "b2":
            raise ValueError("no cell for b2")
        return real.cell_of(board, name)

    def move_at(board: Any, cell: int) -> str | None:
        if cell == 0:
            raise IndexError("cell 0")
        return real.move_at(board, cell)

    view = dataclasses.replace(real, cell_of=cell_of, move_at=move_at)
    game = GridGame(dataclasses.replace(toy_grid.GAME, name="quirky", grid=view))
    board = Board()
    state = game.describe(board, game.start_of(board))
    assert "b2" in state["legal"] and "b2" not in state["move_cells"]
    assert "0" not in state["clicks"] and state["clicks"]["4"] == "b2"
    board.push_name("b2")
    state = game.describe(board, game.start_of(board))
    assert state["history"][0]["cell"] is None and state["side_keys"] == {}

"""The generic board page in a real browser, with tic-tac-toe (tests/web/toy_grid.py) as
an installed game package that brings no page of its own: a click plays, the CPU
answers, a reload keeps the position; and the server's event loop loaded none of the
game's code while it served. With mini Ataxx, a game played from cell to cell: the sides
in their pieces' colours from move 0, the coordinates, a picked piece's targets alone,
the last move's origin and ring in its mover's colour, a stale error cleared by the next
accepted move, on a desktop and a phone-sized window.

Debian's chromium driven by Playwright (the ``browser`` fixture is in conftest.py). The
server is a subprocess as ``banmen serve`` runs it, with the toy's entry point on its
path: it finds the game as it would any installed package. What the page shows is read
off the DOM (see grid-board.js) and compared with the toy's own board.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import toy_grid
from browser_tab import BrowserTab
from toy_grid import AtaxxBoard, Board, ax_cell, square_name

from banmen.web.launch import free_port, stop, wait_ready

pytestmark = [pytest.mark.browser, pytest.mark.server, pytest.mark.timeout(180)]

#: modules whose import on the event loop would stall it
HEAVY = ("banmen", "numba", "llvmlite", "numpy", "toy_grid")


@pytest.fixture(scope="module")
def toy_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The web app with the toy games installed, in a subprocess; its base URL."""
    tmp = tmp_path_factory.mktemp("grid-browser")
    path = [str(toy_grid.write_package(tmp / "site")), str(toy_grid.HERE)]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([*path, *sys.path])}
    port = free_port()
    code = (
        "from banmen.web.server import serve; "
        f"serve(port={port}, db={str(tmp / 'games.sqlite3')!r}, workers=1)"
    )
    log = tmp / "server.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-c", code], stdout=out, stderr=subprocess.STDOUT, env=env
        )
    try:
        wait_ready(f"http://127.0.0.1:{port}", proc, log, timeout=120)
        yield f"http://127.0.0.1:{port}"
    finally:
        stop(proc)


class Tab(BrowserTab):
    path = "/tictactoe"

    def open(self) -> None:
        self.goto()
        self.wait_phase("human", "cpu", "paused", "over")

    def cells(self) -> list[str]:
        """Every cell's key as drawn, row by row."""
        keys: list[str] = self.page.evaluate(
            """() => [...document.querySelectorAll("#board-svg g.gcell")]
                   .sort((a, b) => a.dataset.cell - b.dataset.cell).map(g => g.dataset.key)"""
        )
        return keys

    def moves(self) -> list[str]:
        """The move list's entries."""
        items: list[str] = self.page.eval_on_selector_all(
            "#moves li", "els => els.map(e => e.textContent)"
        )
        return items


def test_a_click_plays_the_cpu_answers_and_a_reload_keeps_it(
    browser: Any, toy_server: str, tmp_path: Path
) -> None:
    tab = Tab(browser, toy_server)
    try:
        tab.open()
        assert tab.page.title() == "Tic-tac-toe · banmen"
        assert tab.page.get_attribute("#board-svg", "aria-label") == "Tic-tac-toe board"
        # a new game against the CPU (human X, CPU random O: the toy's defaults)
        assert tab.page.input_value("#level-1") == "human"
        assert tab.page.input_value("#level-2") == "random"
        old = tab.game_id()
        tab.page.click("#new-button")
        tab.wait_new_game(old)
        tab.wait_phase("human", ply=0)
        assert tab.cells() == [""] * 9
        playable = tab.page.eval_on_selector_all(
            "#board-svg g.gcell.playable", "els => els.map(e => e.dataset.move)"
        )
        assert sorted(playable) == sorted(square_name(m) for m in Board().legal_moves)

        tab.page.click('#board-svg g.gcell[data-cell="4"]')  # b2, the centre
        tab.wait_phase("human", ply=2)  # the CPU has answered
        cells = tab.cells()
        assert cells[4] == "x" and cells.count("o") == 1 and cells.count("x") == 1
        reply = cells.index("o")
        board = Board()
        board.push_name("b2")
        assert reply in board.legal_moves  # a legal answer, by the toy's own rules
        board.push(reply)
        assert tab.moves() == ["X: b2", f"O: {square_name(reply)}"]
        # the sides' colours are their pieces' (X's blue, O's red: the toy's own)
        colours = tab.page.evaluate(
            """() => [1, 2].map(s => getComputedStyle(document.body)
                   .getPropertyValue(`--p${s}`).trim())"""
        )
        assert colours == [toy_grid.GAME.grid.pieces[k][0] for k in ("x", "o")]  # type: ignore[union-attr]
        last = tab.page.get_attribute("#board-svg .last-move", "data-cell")
        assert last == str(reply)
        # the last move's ring in its mover's colour (O's red), and no origin to mark
        assert tab.page.get_attribute("#board-svg .last-move", "data-player") == "2"
        assert stroke(tab, "#board-svg .last-move") == "rgb(220, 38, 38)"
        assert tab.page.locator("#board-svg .last-from").count() == 0
        # the cells still open are the ones the toy's board has open
        playable = tab.page.eval_on_selector_all(
            "#board-svg g.gcell.playable", "els => els.map(e => Number(e.dataset.cell))"
        )
        assert sorted(playable) == board.legal_moves
        game = tab.game_id()

        tab.page.reload()
        tab.wait_phase("human", ply=2)
        assert tab.game_id() == game
        assert tab.cells() == [("", "x", "o")[c] for c in board.cells]
        assert tab.moves() == ["X: b2", f"O: {square_name(reply)}"]

        r = httpx.get(f"{toy_server}/api/record/{game}")
        assert r.status_code == 200 and r.text.splitlines()[2] == f"b2 {square_name(reply)}"
        assert tab.page.get_attribute("#record-download", "href") == f"/api/record/{game}"
        assert tab.errors == []
    finally:
        tab.close()
    health = httpx.get(f"{toy_server}/api/health").json()
    served = health["while_serving"]
    assert served["compiled"] == [] and served["loaded"] == []
    assert [m for m in served["imported"] if m.split(".")[0] in HEAVY] == []


# --------------------------------------------------------------------------- from cell to cell

#: mini Ataxx's pieces' colours (toy_grid.MINI_ATAXX), as the browser computes them
PURPLE, GREEN = "rgb(124, 58, 237)", "rgb(5, 150, 105)"

#: records the page's WebSockets (window.__sockets), so a test can send what a stale page
#: would: a move the server refuses
SOCKETS = """
window.__sockets = [];
const Real = window.WebSocket;
window.WebSocket = class extends Real {
  constructor(...args) {
    super(...args);
    window.__sockets.push(this);
  }
};
"""


def stroke(tab: BrowserTab, selector: str) -> str:
    value: str = tab.page.eval_on_selector(selector, "e => getComputedStyle(e).stroke")
    return value


class AtaxxTab(Tab):
    path = "/mini-ataxx"

    def fresh_game(self) -> None:
        """A new game, both sides human, at its first position."""
        self.open()
        self.both_human()
        old = self.game_id()
        self.page.click("#new-button")
        self.wait_new_game(old)
        self.wait_phase("human", ply=0)

    def cells_with(self, selector: str) -> list[int]:
        """The cells (numbers) that match ``selector`` (``.target``: of that class)."""
        return self._cells(selector, False)

    def cells_holding(self, selector: str) -> list[int]:
        """The cells (numbers) that hold an element matching ``selector`` (``.marker``)."""
        return self._cells(selector, True)

    def _cells(self, selector: str, holding: bool) -> list[int]:
        cells: list[int] = self.page.evaluate(
            """([sel, holding]) => [...document.querySelectorAll("#board-svg g.gcell")]
                   .filter(g => holding ? g.querySelector(sel) !== null : g.matches(sel))
                   .map(g => Number(g.dataset.cell)).sort((a, b) => a - b)""",
            [selector, holding],
        )
        return cells

    def texts(self, selector: str) -> list[str]:
        found: list[str] = self.page.eval_on_selector_all(
            selector, "els => els.map(e => e.textContent)"
        )
        return found

    def click_cell(self, cell: int) -> None:
        self.page.click(f'#board-svg g.gcell[data-cell="{cell}"]')

    def wait_picked(self, cell: int | None) -> None:
        self.page.wait_for_function(
            """(cell) => {
                const s = document.querySelector("#board-svg g.gcell.selected");
                return cell === null ? s === null : s !== null && Number(s.dataset.cell) === cell;
            }""",
            arg=cell,
        )

    def message(self) -> tuple[bool, str]:
        """Whether the message box shows, and what."""
        shown, text = self.page.evaluate(
            """() => { const m = document.getElementById("message");
                       return [!m.hidden, m.textContent]; }"""
        )
        return bool(shown), str(text)


def targets_of(board: AtaxxBoard, cell: int) -> list[int]:
    """The cells the piece on ``cell`` may go to, by the toy's own rules."""
    return sorted(m % 100 for m in board.legal_moves if m // 100 == cell)


@pytest.fixture
def ataxx(browser: Any, toy_server: str) -> Iterator[AtaxxTab]:
    """A tab on a new game of mini Ataxx, both sides human, at its first position."""
    tab = AtaxxTab(browser, toy_server)
    tab.fresh_game()
    yield tab
    tab.close()
    assert tab.errors == [], f"console errors: {tab.errors}"


def test_the_sides_are_in_their_pieces_colours_from_move_0(ataxx: AtaxxTab) -> None:
    pg = ataxx.page
    assert ataxx.ply() == 0
    # the cards' swatches, and the border of the card of the side to move
    swatches = pg.eval_on_selector_all(
        ".player .swatch", "els => els.map(e => getComputedStyle(e).backgroundColor)"
    )
    assert swatches == [PURPLE, GREEN]
    border = pg.eval_on_selector("#player-1", "e => getComputedStyle(e).borderTopColor")
    assert border == PURPLE


def test_the_coordinates_are_drawn_around_the_board(ataxx: AtaxxTab) -> None:
    pg = ataxx.page
    # files a-e over the columns, ranks 5-1 left of the rows (the move names': a5c3)
    assert ataxx.texts("#board-svg text.coord[data-file]") == ["a", "b", "c", "d", "e"]
    assert ataxx.texts("#board-svg text.coord[data-rank]") == ["5", "4", "3", "2", "1"]
    for label, cell in (('[data-file="0"]', ax_cell("a5")), ('[data-file="4"]', ax_cell("e1"))):
        lb = pg.locator(f"#board-svg text.coord{label}").bounding_box()
        cb = pg.locator(f'#board-svg g.gcell[data-cell="{cell}"]').bounding_box()
        assert lb is not None and cb is not None
        assert abs(lb["x"] + lb["width"] / 2 - (cb["x"] + cb["width"] / 2)) < cb["width"] / 4
        assert lb["y"] + lb["height"] <= cb["y"] + 1  # over the board
    lb = pg.locator('#board-svg text.coord[data-rank="4"]').bounding_box()  # rank 1
    cb = pg.locator(f'#board-svg g.gcell[data-cell="{ax_cell("a1")}"]').bounding_box()
    assert lb is not None and cb is not None
    assert lb["x"] + lb["width"] <= cb["x"] + 1  # left of the board, beside its row
    assert abs(lb["y"] + lb["height"] / 2 - (cb["y"] + cb["height"] / 2)) < cb["height"] / 4


def test_a_first_click_shows_that_pieces_targets_alone(ataxx: AtaxxTab) -> None:
    board = AtaxxBoard()
    a5, e1 = ax_cell("a5"), ax_cell("e1")
    # before a pick: the mover's pieces that can move take a click; every target is marked
    assert ataxx.cells_with(".playable") == [a5, e1]
    everywhere = sorted({m % 100 for m in board.legal_moves})
    assert ataxx.cells_holding(".marker") == everywhere
    # the first click picks a5: it and its targets alone are shown
    ataxx.click_cell(a5)
    ataxx.wait_picked(a5)
    assert ataxx.cells_with(".target") == targets_of(board, a5)
    assert ataxx.cells_holding(".marker") == targets_of(board, a5)
    assert ataxx.cells_with(".playable") == sorted([a5, e1, *targets_of(board, a5)])
    assert len(targets_of(board, a5)) == 8 < len(everywhere)
    # a click on the other piece picks it instead
    ataxx.click_cell(e1)
    ataxx.wait_picked(e1)
    assert ataxx.cells_with(".target") == targets_of(board, e1)
    # a click on a cell that is neither a target nor a piece that can move drops the pick
    assert ax_cell("a1") not in targets_of(board, e1)
    ataxx.click_cell(ax_cell("a1"))
    ataxx.wait_picked(None)
    assert ataxx.cells_with(".target") == [] and ataxx.cells_holding(".marker") == everywhere
    # and so does a click on the picked piece again; nothing was sent all along
    ataxx.click_cell(a5)
    ataxx.wait_picked(a5)
    ataxx.click_cell(a5)
    ataxx.wait_picked(None)
    assert ataxx.ply() == 0 and ataxx.message()[0] is False


def test_a_move_marks_its_origin_and_cell_in_the_movers_colour(ataxx: AtaxxTab) -> None:
    pg = ataxx.page
    board = AtaxxBoard()
    # a5, then c3: the jump is played; its origin and its cell marked in purple
    ataxx.click_cell(ax_cell("a5"))
    ataxx.wait_picked(ax_cell("a5"))
    ataxx.click_cell(ax_cell("c3"))
    ataxx.wait_phase("human", ply=1)
    board.push_name("a5c3")
    assert ataxx.cells() == board.cells
    assert ataxx.moves() == ["Purple: a5c3"]
    assert pg.get_attribute("#board-svg .last-move", "data-cell") == str(ax_cell("c3"))
    assert pg.get_attribute("#board-svg .last-from", "data-cell") == str(ax_cell("a5"))
    assert stroke(ataxx, "#board-svg .last-move") == PURPLE
    assert stroke(ataxx, "#board-svg .last-from") == PURPLE
    assert ataxx.cells_with(".selected") == []  # a new position: no pick
    assert ataxx.cells_with(".playable") == sorted({m // 100 for m in board.legal_moves})
    # green answers with a clone next to it (e5d4 turns c3): marked in green
    ataxx.click_cell(ax_cell("e5"))
    ataxx.wait_picked(ax_cell("e5"))
    ataxx.click_cell(ax_cell("d4"))
    ataxx.wait_phase("human", ply=2)
    board.push_name("e5d4")
    assert ataxx.cells() == board.cells and ataxx.cells()[ax_cell("c3")] == "o"
    assert ataxx.moves() == ["Purple: a5c3", "Green: e5d4"]
    assert pg.get_attribute("#board-svg .last-move", "data-cell") == str(ax_cell("d4"))
    assert pg.get_attribute("#board-svg .last-from", "data-cell") == str(ax_cell("e5"))
    assert stroke(ataxx, "#board-svg .last-move") == GREEN
    assert stroke(ataxx, "#board-svg .last-from") == GREEN


def test_an_error_goes_with_the_next_accepted_move(browser: Any, toy_server: str) -> None:
    tab = AtaxxTab(browser, toy_server)
    tab.context.add_init_script(SOCKETS)
    try:
        tab.fresh_game()
        pg = tab.page
        # a move the server refuses (as a stale page would send it): its line shows
        pg.evaluate(
            "(m) => window.__sockets.at(-1).send(JSON.stringify(m))",
            {"type": "move", "from": ax_cell("a5"), "to": ax_cell("e1")},
        )
        pg.wait_for_selector("#message:not([hidden])")
        shown, text = tab.message()
        assert "no legal move from" in text
        assert pg.get_attribute("#message", "data-kind") == "error"
        # the next move played takes it away with the position it was about
        tab.click_cell(ax_cell("a5"))
        tab.wait_picked(ax_cell("a5"))
        tab.click_cell(ax_cell("b4"))
        tab.wait_phase("human", ply=1)
        assert tab.message()[0] is False
        # a position that cannot be loaded: the same
        pg.fill("#load-text", "not a position")
        pg.click("#load-button")
        pg.wait_for_selector("#message:not([hidden])")
        assert "not a position" in tab.message()[1]
        tab.click_cell(ax_cell("e5"))
        tab.wait_picked(ax_cell("e5"))
        tab.click_cell(ax_cell("d5"))
        tab.wait_phase("human", ply=2)
        assert tab.message()[0] is False
        assert pg.input_value("#load-text") == "not a position"  # (its own line stays by it)
        assert pg.locator("#load-error").is_visible()
        # a notice is not an error: a position loaded says so, and a move leaves that be
        tab.load("x...o" + "." * 15 + "o...x x", ply=0)
        assert tab.message()[0] is True
        assert pg.get_attribute("#message", "data-kind") == "notice"
        tab.click_cell(ax_cell("a5"))
        tab.wait_picked(ax_cell("a5"))
        tab.click_cell(ax_cell("a4"))
        tab.wait_phase("human", ply=1)
        assert pg.get_attribute("#message", "data-kind") == "notice"
        assert tab.errors == []
    finally:
        tab.close()


def test_a_from_to_game_on_a_phone(browser: Any, toy_server: str) -> None:
    tab = AtaxxTab(browser, toy_server, viewport={"width": 390, "height": 844}, has_touch=True)
    try:
        tab.fresh_game()
        pg = tab.page
        assert pg.evaluate("document.documentElement.scrollWidth") <= 390
        box = pg.locator("#board-svg").bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390
        for coord in ('[data-file="4"]', '[data-rank="4"]'):  # e and 1: both in the window
            lb = pg.locator(f"#board-svg text.coord{coord}").bounding_box()
            assert lb is not None and lb["x"] >= 0 and lb["x"] + lb["width"] <= 390
        pg.locator(f'#board-svg g.gcell[data-cell="{ax_cell("e1")}"]').tap()
        tab.wait_picked(ax_cell("e1"))
        assert tab.cells_with(".target") == targets_of(AtaxxBoard(), ax_cell("e1"))
        pg.locator(f'#board-svg g.gcell[data-cell="{ax_cell("c3")}"]').tap()
        tab.wait_phase("human", ply=1)
        assert tab.moves() == ["Purple: e1c3"]
        assert pg.get_attribute("#board-svg .last-from", "data-cell") == str(ax_cell("e1"))
        assert tab.errors == []
    finally:
        tab.close()


def test_a_from_to_game_without_origins_sends_any_two_cells(browser: Any, toy_server: str) -> None:
    """Hopper's view gives no origin_of: any cell is picked, any second one sends the pair
    and the server judges it; its refusal shows until the next move is played."""
    tab = AtaxxTab(browser, toy_server)
    tab.path = "/hopper"
    try:
        tab.open()
        tab.both_human()
        old = tab.game_id()
        tab.page.fill("#seed", "2")  # pieces on cells 2 and 9 (toy_grid.HOPPER)
        tab.page.click("#new-button")
        tab.wait_new_game(old)
        tab.wait_phase("human", ply=0)
        assert tab.cells_with(".playable") == list(range(12))
        tab.click_cell(2)
        tab.wait_picked(2)
        assert tab.cells_with(".target") == []
        tab.click_cell(11)  # no move: the server says so
        tab.page.wait_for_selector("#message:not([hidden])")
        assert "no legal move from row 1, column 3 to row 3, column 4" in tab.message()[1]
        tab.wait_picked(None)
        tab.click_cell(2)
        tab.wait_picked(2)
        tab.click_cell(6)
        tab.wait_phase("human", ply=1)
        assert tab.message()[0] is False
        assert tab.moves() == ["Player 1: 2-6"]
        assert tab.page.get_attribute("#board-svg .last-move", "data-cell") == "6"
        assert tab.page.locator("#board-svg .last-from").count() == 0  # no origin known
        assert stroke(tab, "#board-svg .last-move") == "rgb(15, 118, 110)"  # its piece's
        assert tab.errors == []
    finally:
        tab.close()

"""The generic board page in a real browser, with tic-tac-toe (tests/web/toy_grid.py) as
an installed game package that brings no page of its own: a click plays, the CPU
answers, a reload keeps the position; and the server's event loop loaded none of the
game's code while it served.

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
from toy_grid import Board, square_name

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

"""Connect Four's page in a real browser: the example game package (examples/connect-four,
installed by ``make test``) brings no page of its own, and gets the generic board page
from its GridView. The sides are in their discs' colours from the start, a click plays,
the CPU answers (the discs stay stacked from the bottom of each column), the analysis
paints values on the cells, and a reload keeps the game."""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from typing import Any

import pytest
from browser_tab import BrowserTab

pytestmark = [
    pytest.mark.browser,
    pytest.mark.timeout(240),
    pytest.mark.skipif(
        importlib.util.find_spec("banmen_connect_four") is None,
        reason="examples/connect-four is not installed (make test installs it)",
    ),
]


@pytest.fixture
def tab(browser: Any, server: str) -> Iterator[BrowserTab]:
    t = BrowserTab(browser, server, viewport={"width": 1280, "height": 1000})
    t.path = "/connect-four"
    yield t
    t.close()
    assert t.errors == [], f"console errors: {t.errors}"


def _cells(tab: BrowserTab) -> list[str]:
    keys: list[str] = tab.page.evaluate(
        """() => [...document.querySelectorAll("#board-svg g.gcell")]
               .sort((a, b) => a.dataset.cell - b.dataset.cell).map(g => g.dataset.key)"""
    )
    return keys


def test_connect_four_plays_analyses_and_reloads(tab: BrowserTab) -> None:
    from banmen.games.registry import get_game

    game = get_game("connect-four")
    assert game.grid is not None and game.web is None  # the generic page, from the grid
    pg = tab.page
    tab.goto()
    tab.wait_phase("human", "cpu", "paused", "over")
    assert "Connect Four" in pg.title()
    pg.select_option("#level-1", "human")
    pg.select_option("#level-2", "easy")  # alphabeta:depth=1
    old = tab.game_id()
    pg.click("#new-button")
    tab.wait_new_game(old)
    tab.wait_phase("human")
    start = tab.ply()
    # the sides in their discs' colours before either has moved (red #d33, yellow #ec3)
    swatches = pg.eval_on_selector_all(
        ".player .swatch", "els => els.map(e => getComputedStyle(e).backgroundColor)"
    )
    assert swatches == ["rgb(221, 51, 51)", "rgb(238, 204, 51)"]
    before = [c for c in _cells(tab) if c]  # (a seeded opening may have discs already)
    moves = pg.eval_on_selector_all("#moves li", "els => els.map(e => e.textContent)")
    playable = pg.eval_on_selector_all(
        "#board-svg g.gcell.playable", "els => els.map(e => e.dataset.move)"
    )
    assert playable and set(playable) <= {str(c) for c in range(1, 8)}
    # play the centre column by clicking its top cell
    pg.click('#board-svg g.gcell[data-move="4"] >> nth=0')
    tab.wait_phase("human", ply=start + 2)  # the CPU has answered
    cells = _cells(tab)
    assert cells.count("x") + cells.count("o") == len(before) + 2
    rows, cols = game.grid.rows(game.sample()), game.grid.cols(game.sample())
    for c in range(cols):  # top row first: a column's discs sit on its bottom
        column = [cells[r * cols + c] != "" for r in range(rows)]
        assert column == sorted(column), (c, column)
    listed = pg.eval_on_selector_all("#moves li", "els => els.map(e => e.textContent)")
    assert len(listed) == len(moves) + 2 and "4" in listed[-2]
    # the analysis paints a value on the cells of the moves it valued
    pg.check("#analysis")
    pg.wait_for_selector("#board-svg .analysis", timeout=60_000)
    painted = pg.eval_on_selector_all("#board-svg .analysis", "els => els.length")
    assert painted >= 1
    pg.uncheck("#analysis")
    game_id = tab.game_id()
    pg.reload()
    tab.wait_phase("human", ply=start + 2)
    assert tab.game_id() == game_id and _cells(tab) == cells

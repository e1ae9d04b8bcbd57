"""The game pages on common laptop screens (1280×800, 1366×768): the board and the buttons to
play are in view without scrolling, and so is the result when a game ends. Also the Mattix
last-move badge, which must not cover the chip.

Debian's chromium driven by Playwright; the ``server`` and ``browser`` fixtures are in
conftest.py (without /usr/bin/chromium these tests skip, except on CI). Everything is
measured with the page scrolled to the top: what a user sees on opening it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import pytest
from browser_tab import BrowserTab

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]

VIEWPORTS = [pytest.param((1280, 800), id="1280x800"), pytest.param((1366, 768), id="1366x768")]
THREE = "9/9/3pp4/+r2k1p3/2L1+p4/2+R6/B8/B8/9 b 4g4s4n3l14p 1"
#: Othello: a full board, so the game is over as soon as it is loaded
FULL = "X" * 40 + "O" * 24 + " X"


class Tab(BrowserTab):
    def __init__(self, browser: Any, base: str, size: tuple[int, int]) -> None:
        super().__init__(browser, base, viewport={"width": size[0], "height": size[1]})
        self.width, self.height = size
        self.page.on("dialog", lambda d: d.accept())  # Go's "Resign this game?"

    def open_game(self, path: str) -> None:
        self.goto(path)
        self.wait_phase("human", "cpu", "paused", "counting", "over")

    def new_game(self, size: int | None = None) -> None:
        old = self.game_id()
        if size is not None:
            self.page.check(f'input[name="size"][value="{size}"]')
        self.page.click("#new-button")
        self.wait_new_game(old)
        self.wait_phase("human", "cpu", "paused")
        self.page.wait_for_function(
            "(size) => size === null || Number(document.getElementById('board').dataset.size"
            " ?? size) === size",
            arg=size,
        )

    def top(self) -> None:
        """Scroll back to the top, as the page opens (a click may have scrolled it)."""
        self.page.evaluate("window.scrollTo(0, 0)")
        self.page.wait_for_function("window.scrollY === 0 && window.scrollX === 0")

    def assert_in_view(self, *selectors: str) -> None:
        """Each element is wholly inside the window, with the page at its top."""
        self.top()
        scroll_width = self.page.evaluate("document.documentElement.scrollWidth")
        assert scroll_width <= self.width, f"the page is {scroll_width} px wide"
        for sel in selectors:
            box = self.page.locator(sel).bounding_box()
            assert box is not None, f"{sel} is not shown"
            right, bottom = box["x"] + box["width"], box["y"] + box["height"]
            assert box["x"] >= 0 and box["y"] >= 0, (sel, box)
            assert right <= self.width and bottom <= self.height, (
                f"{sel} ends at ({right:.0f}, {bottom:.0f}), outside {self.width}×{self.height}"
            )

    def assert_board_big_enough(self) -> None:
        box = self.page.locator("#board-svg").bounding_box()
        assert box is not None
        assert min(box["width"], box["height"]) >= 0.55 * self.height  # not shrunk to nothing


@pytest.fixture(params=VIEWPORTS)
def tab(request: pytest.FixtureRequest, browser: Any, server: str) -> Iterator[Tab]:
    t = Tab(browser, server, request.param)
    yield t
    t.close()
    assert t.errors == [], f"console errors: {t.errors}"


# --------------------------------------------------------------------------- Go


@pytest.mark.parametrize("size", [9, 19])
def test_go_board_and_buttons_fit_and_the_result_shows(tab: Tab, size: int) -> None:
    tab.open_game("/go")
    tab.both_human()
    tab.new_game(size)
    tab.wait_phase("human", ply=0)
    buttons = ["#pass", "#resign", "#undo", "#score", "#stop", "#pause"]
    tab.assert_in_view("#board-svg", *buttons)
    tab.assert_board_big_enough()

    # one pass: the note about it does not push the buttons out of view
    tab.page.click("#pass")
    tab.wait_phase("human", ply=1)
    tab.page.wait_for_selector("#pass-note:not([hidden])")
    tab.assert_in_view("#board-svg", "#pass-note", *buttons)

    if size == 9:
        # a second pass: counting, with its Done button; then the result
        tab.page.click("#pass")
        tab.wait_phase("counting")
        tab.assert_in_view("#board-svg", "#count-panel", "#done")
        tab.page.click("#done")
    else:
        tab.page.click("#resign")
    tab.wait_phase("over")
    tab.page.wait_for_selector("#gameover:not([hidden])")
    assert "Game over" in tab.page.inner_text("#gameover")
    tab.assert_in_view("#board-svg", "#gameover")


# --------------------------------------------------------------------------- Othello


def test_othello_board_and_buttons_fit_and_the_result_shows(tab: Tab) -> None:
    tab.open_game("/othello")
    tab.both_human()
    tab.new_game()
    tab.assert_in_view("#board-svg", "#pass", "#undo", "#stop", "#pause")
    tab.assert_board_big_enough()

    old = tab.game_id()
    tab.page.fill("#load-text", FULL)
    tab.page.click("#load-button")
    tab.wait_new_game(old)
    tab.wait_phase("over")
    tab.page.wait_for_selector("#gameover:not([hidden])")
    assert "Black" in tab.page.inner_text("#gameover")
    tab.assert_in_view("#board-svg", "#gameover")


# --------------------------------------------------------------------------- Mattix


def test_mattix_6x6_board_and_buttons_fit_and_the_result_shows(tab: Tab) -> None:
    tab.open_game("/mattix")
    tab.both_human()
    tab.new_game(6)
    tab.wait_phase("human", ply=0)
    tab.assert_in_view("#board-svg", "#undo", "#stop", "#pause")
    tab.assert_board_big_enough()

    # two quick CPUs (one ply deep) play it out
    tab.page.evaluate(
        "() => { const d = document.getElementById('delay'); d.value = '0';"
        " d.dispatchEvent(new Event('change')); }"
    )
    tab.page.select_option("#level-1", "normal")
    tab.page.select_option("#level-2", "normal")
    tab.page.wait_for_function(
        "() => document.getElementById('board').dataset.phase === 'over'", timeout=120_000
    )
    tab.page.wait_for_selector("#gameover:not([hidden])")
    result = tab.page.inner_text("#gameover")
    assert "wins" in result or "draw" in result
    tab.assert_in_view("#board-svg", "#gameover", "#player-1", "#player-2")


def test_mattix_last_move_badge_does_not_cover_the_chip(tab: Tab) -> None:
    tab.open_game("/mattix")
    tab.both_human()
    for seed in ("7", "2024"):
        tab.page.fill("#seed", seed)
        tab.new_game(6)
        tab.wait_phase("human", ply=0)
        for ply in range(1, 5):
            tab.page.click("#board-svg g.piece.takeable >> nth=0")
            tab.wait_phase("human", "over", ply=ply)
            chip = tab.page.locator("#board-svg g.chip").bounding_box()
            label = tab.page.locator("#board-svg .last-label").bounding_box()
            assert chip is not None and label is not None
            apart = (
                label["x"] >= chip["x"] + chip["width"]
                or chip["x"] >= label["x"] + label["width"]
                or label["y"] >= chip["y"] + chip["height"]
                or chip["y"] >= label["y"] + label["height"]
            )
            assert apart, f"the last-move label {label} overlaps the chip {chip}"
            # the label sits on the square just taken, where the chip now stands
            last = tab.page.get_attribute("#board-svg rect.last-move", "data-square")
            assert last == tab.page.get_attribute("#board-svg g.chip", "data-square")
            assert (tab.page.text_content("#board-svg .last-label") or "").lstrip("+-").isdigit()


# --------------------------------------------------------------------------- tsume


def test_tsume_board_buttons_and_answer_fit(tab: Tab) -> None:
    tab.goto(f"/tsume?sfen={quote(THREE)}")
    pg = tab.page
    pg.wait_for_selector('#board[data-phase="edit"]', state="attached")
    pg.wait_for_selector("#solve:not([disabled])", state="attached")
    tab.assert_in_view("#board-svg", "#hand-w", "#hand-b", "#solve", "#time")
    tab.assert_board_big_enough()

    pg.fill("#time", "30")
    pg.click("#solve")
    pg.wait_for_function(
        "() => document.getElementById('result').dataset.status === 'mate'", timeout=120_000
    )
    pg.wait_for_selector('#board[data-mode="replay"]', state="attached")
    tab.assert_in_view("#board-svg", "#result", "#first", "#back", "#forward", "#last")

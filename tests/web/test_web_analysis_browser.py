"""The analysis mode in a real browser: the switch, the values drawn on the board as the
analysis deepens, a move that clears them and brings the next position's, the switch kept
across a reload; Mattix's proved values on a small deal; the switch on a phone's width.

Debian's chromium driven by Playwright; the ``server`` and ``browser`` fixtures are in
conftest.py (a server subprocess per module with one engine worker; without
/usr/bin/chromium these tests skip, except on CI). Both sides are human, so every position
is one the test chose. Nothing is timed: every wait is for the page to show something.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from browser_tab import BrowserTab
from mattix_reference import exact_value, parse

from banmen.games.mattix import Board as MattixBoard
from banmen.games.othello import PASS
from banmen.games.othello import Board as OthelloBoard

pytestmark = [pytest.mark.browser, pytest.mark.timeout(240)]

#: Twelve moves in, black to move: 50 empties, so the analysis deepens for a long while.
MIDGAME = "f5d6c3d3c4f4f6f3e6e7d7c5"
#: generous: the first analysis in a fresh worker loads its engines
WAIT = 90_000

#: the values drawn: square -> [kind, value, depth, best]
SHOWN = """() => Object.fromEntries([...document.querySelectorAll("#board-svg g.analysis")]
    .map(g => [g.dataset.square, [g.dataset.kind, g.dataset.value, Number(g.dataset.depth),
                                  g.dataset.best === "true"]]))"""


class Tab(BrowserTab):
    def open(self, path: str) -> None:
        self.goto(path)
        self.wait_phase("human", "cpu", "paused", "over")

    def shown(self) -> dict[str, list[Any]]:
        value: dict[str, list[Any]] = self.page.evaluate(SHOWN)
        return value

    def signature(self) -> str:
        """The values drawn, as one string (to tell when they change)."""
        value: str = self.page.evaluate(f"() => JSON.stringify(Object.entries(({SHOWN})()).sort())")
        return value

    def wait_values(
        self, squares: set[str], extra: str = "true", before: str = ""
    ) -> dict[str, list[Any]]:
        """Wait until every one of ``squares`` (and no other) shows a value, and ``extra``
        holds (a JS expression over ``shown``, ``sig``: the :meth:`signature` now, and
        ``before``); the values then shown."""
        self.page.wait_for_function(
            f"""([squares, before]) => {{
                const shown = ({SHOWN})();
                const sig = JSON.stringify(Object.entries(shown).sort());
                const names = Object.keys(shown).sort();
                return names.length === squares.length
                    && names.every((n, i) => n === squares[i])
                    && Object.values(shown).every(([kind, value]) => kind !== "open"
                                                                     && value !== "")
                    && ({extra});
            }}""",
            arg=[sorted(squares), before],
            timeout=WAIT,
        )
        return self.shown()

    def switch(self, on: bool) -> None:
        if on:
            self.page.check("#analysis")
        else:
            self.page.uncheck("#analysis")


@pytest.fixture
def tab(browser: Any, server: str) -> Iterator[Tab]:
    t = Tab(browser, server, viewport={"width": 1280, "height": 1000})
    yield t
    t.close()
    assert t.errors == [], f"console errors: {t.errors}"


def legal(board: Any) -> set[str]:
    return {board.move_name(m) for m in board.legal_moves if m != PASS}


def test_othello_analysis_deepens_restarts_on_a_move_and_survives_a_reload(tab: Tab) -> None:
    tab.open("/othello")
    tab.both_human()
    tab.load(MIDGAME, ply=12)
    pg = tab.page
    board = OthelloBoard.from_transcript(MIDGAME)
    assert not pg.is_checked("#analysis")
    assert tab.shown() == {} and pg.is_hidden("#analysis-status")

    # On: a value on every legal square, then values that change as the search deepens.
    tab.switch(True)
    first = tab.wait_values(legal(board))
    assert all(kind == "depth" for kind, _, _, _ in first.values())  # 50 empties: estimates
    assert any(best for *_, best in first.values())
    assert pg.locator("#board-svg g.analysis text.ad").count() == len(first)  # "d7" tags
    assert "Analysis: analysing" in pg.inner_text("#analysis-status")
    tab.wait_values(legal(board), "sig !== before", tab.signature())  # they change
    # the flip counts (when shown) stay beside the values
    pg.check("#hints")
    assert pg.locator("#board-svg text.hint").count() == len(legal(board))
    assert pg.locator("#board-svg g.analysis").count() == len(legal(board))

    # A move: the old position's values go with it, the new position's come.
    old = set(first)
    move = "e3"
    pg.click(f'#board-svg g.move[data-square="{move}"]')
    tab.wait_phase("human", ply=13)
    board.push_name(move)
    after = pg.evaluate(
        """() => [[...document.querySelectorAll("#board-svg g.analysis")]
                    .map(g => g.dataset.square),
                  document.getElementById("analysis-status").dataset.position]"""
    )
    squares, position = after
    assert set(squares) <= legal(board), (squares, old)  # nothing of the old position
    assert position in ("", "13")
    tab.wait_values(legal(board))
    assert pg.get_attribute("#analysis-status", "data-position") == "13"

    # A reload: the switch is remembered, and the values come back.
    game_id = tab.game_id()
    pg.reload()
    tab.wait_phase("human", ply=13)
    assert tab.game_id() == game_id and pg.is_checked("#analysis")
    tab.wait_values(legal(board))

    # Off: the values go at once, and the status line with them.
    tab.switch(False)
    assert tab.shown() == {} and pg.is_hidden("#analysis-status")
    pg.reload()
    tab.wait_phase("human", ply=13)
    assert not pg.is_checked("#analysis") and tab.shown() == {}


def test_mattix_values_on_a_small_deal_are_proved_and_the_best_is_ringed(tab: Tab) -> None:
    tab.open("/mattix")
    tab.both_human()
    tab.switch(True)
    pg = tab.page
    pg.fill("#seed", "5")
    pg.check('input[name="size"][value="4"]')
    old = tab.game_id()
    pg.click("#new-button")
    tab.wait_new_game(old)
    tab.wait_phase("human", ply=0)
    board = MattixBoard.from_seed(5, 4)
    shown = tab.wait_values(legal(board), 'Object.values(shown).every(([k]) => k === "exact")')
    want = {}
    for m in board.legal_moves:
        child = board.copy()
        child.push(m)
        want[board.move_name(m)] = -(child.margin() + exact_value(parse(child.layout())))
    assert {sq: int(v) for sq, (_, v, _, _) in shown.items()} == want
    top = max(want.values())
    assert {sq for sq, (*_, best) in shown.items() if best} == {
        sq for sq, v in want.items() if v == top
    }
    texts = pg.evaluate(
        """() => Object.fromEntries([...document.querySelectorAll("#board-svg g.analysis")]
                 .map(g => [g.dataset.square, g.querySelector("text.av").textContent]))"""
    )
    assert texts == {sq: f"+{v}" if v > 0 else str(v) for sq, v in want.items()}
    assert pg.locator("#board-svg .best-ring").count() == sum(v == top for v in want.values())
    pg.wait_for_function(
        "() => document.getElementById('analysis-status').textContent"
        " === 'Analysis: every value proved.'",
        timeout=WAIT,
    )


def test_the_switch_fits_a_phone(browser: Any, server: str) -> None:
    phone = Tab(browser, server, viewport={"width": 390, "height": 844})
    try:
        for path in ("/othello", "/mattix"):
            phone.open(path)
            box = phone.page.locator("#analysis").bounding_box()
            label = phone.page.locator(".analysis-bar .toggle").bounding_box()
            assert box is not None and label is not None
            assert label["height"] >= 44 and label["x"] + label["width"] <= 390
            assert phone.page.evaluate("document.documentElement.scrollWidth") <= 390
    finally:
        phone.close()
    assert phone.errors == [], f"console errors: {phone.errors}"

"""The Go page's analysis in a real browser: the candidates' win rates and visits drawn on
the board and growing, the principal variation of the candidate under the pointer (and of
a tapped one on a phone), the territory overlay and its switch, a move that clears the
overlay and brings the next position's, the switches kept across a reload, nothing while
the game is counted — and a 19x19 board that stays responsive while the analysis streams
(the longest gap between animation frames, measured in the page).

Debian's chromium driven by Playwright; the ``server`` and ``browser`` fixtures are in
conftest.py (a server subprocess per module with one engine worker; without
/usr/bin/chromium these tests skip, except on CI). Both sides are human unless a test says
otherwise, so every position is one the test chose. Apart from the frame gaps (a property
of the page's main thread, not of the machine's speed) nothing is timed: every wait is for
the page to show something.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import pytest
from test_web_go_browser import Tab as GoTab

from banmen.games import go

pytestmark = [pytest.mark.browser, pytest.mark.timeout(240)]

#: generous: the first analysis in a fresh worker loads its engines
WAIT = 90_000
PHONE = {"width": 390, "height": 844}
#: the longest gap between two animation frames the page may leave while it analyses
MAX_FRAME_GAP_MS = 100

#: the candidates drawn: vertex -> [win rate, visits, best, rank, win rate text, visits text]
CANDIDATES = """() => Object.fromEntries(
    [...document.querySelectorAll("#board-svg g.candidate")].map(g => [g.dataset.vertex, [
        Number(g.dataset.winrate), Number(g.dataset.visits), g.dataset.best === "true",
        Number(g.dataset.rank), g.querySelector("text.cw").textContent,
        g.querySelector("text.cv").textContent]]))"""
#: the ghost stones of the line shown: [vertex, colour, number]
PV = """() => [...document.querySelectorAll("#board-svg circle.pv-stone")]
    .map(c => [c.dataset.vertex, c.dataset.color, Number(c.dataset.n)])"""


class Tab(GoTab):
    """A browser tab on the Go page, reading the analysis drawn."""

    def click(self, vertex: str) -> None:
        """Click a point and wait for the move to be played (a CPU may then be to move,
        or paused)."""
        ply = self.ply()
        self.page.click(self.point(vertex))
        self.wait_phase("human", "paused", "cpu", "counting", "over", ply=ply + 1)

    def candidates(self) -> dict[str, list[Any]]:
        value: dict[str, list[Any]] = self.page.evaluate(CANDIDATES)
        return value

    def pv(self) -> list[list[Any]]:
        value: list[list[Any]] = self.page.evaluate(PV)
        return value

    def wait_candidates(self, extra: str = "true", arg: Any = None) -> dict[str, list[Any]]:
        """Wait until candidates are drawn for the position shown (the status line's
        position is the board's ply) and ``extra`` holds (a JS expression over
        ``shown``: :data:`CANDIDATES`, and ``arg``); the candidates then drawn."""
        self.page.wait_for_function(
            f"""(arg) => {{
                const shown = ({CANDIDATES})();
                const line = document.getElementById("analysis-status");
                const ply = document.getElementById("board").dataset.ply;
                return Object.keys(shown).length > 0 && line.dataset.position === ply
                    && ({extra});
            }}""",
            arg=arg,
            timeout=WAIT,
        )
        return self.candidates()

    def count(self, selector: str) -> int:
        return self.page.locator(selector).count()

    def wait_count(self, selector: str, test: str) -> None:
        """Wait until the number of ``selector``'s elements ``n`` makes ``test`` true."""
        self.page.wait_for_function(
            f"(sel) => {{ const n = document.querySelectorAll(sel).length; return {test}; }}",
            arg=selector,
            timeout=WAIT,
        )


@pytest.fixture
def tab(browser: Any, server: str) -> Iterator[Tab]:
    t = Tab(browser, server, viewport={"width": 1280, "height": 1000})
    yield t
    t.close()
    assert t.errors == [], f"console errors: {t.errors}"


def check_candidates(shown: dict[str, list[Any]], board: go.Board) -> None:
    """Each candidate on an empty legal point with a win rate (0-1) and visits, the texts
    matching them, ranked by visits, the most visited one (only) highlighted."""
    legal = {board.move_name(m) for m in board.legal_moves}
    assert shown and set(shown) <= legal, (sorted(shown), sorted(legal))
    for vertex, (rate, visits, best, rank, rate_text, visits_text) in shown.items():
        assert 0.0 <= rate <= 1.0 and visits > 0, (vertex, rate, visits)
        assert rate_text == f"{math.floor(100 * rate + 0.5)}%", (vertex, rate, rate_text)
        if visits < 1000:
            assert visits_text == str(int(visits))
        else:
            assert visits_text[-1] in "kM", visits_text
        assert best == (rank == 1)
    ranked = sorted(shown.values(), key=lambda c: c[3])
    assert [c[3] for c in ranked] == list(range(1, len(ranked) + 1))
    assert [c[1] for c in ranked] == sorted((c[1] for c in ranked), reverse=True)


def test_candidates_line_territory_a_move_and_a_reload_on_9x9(tab: Tab) -> None:
    tab.open()
    tab.both_human()
    tab.new_game(9)
    pg = tab.page
    board = go.Board(9)
    if pg.is_checked("#analysis"):
        pg.uncheck("#analysis")
    assert tab.candidates() == {} and pg.is_hidden("#analysis-status")
    assert not pg.is_visible("#analysis-territory")  # an option of the analysis, shown with it

    # On: win rates and visits on the leading candidates, then more visits.
    pg.check("#analysis")
    assert pg.is_visible("#analysis-territory") and pg.is_checked("#analysis-territory")
    first = tab.wait_candidates()
    check_candidates(first, board)
    top = max(c[1] for c in first.values())
    grown = tab.wait_candidates("Math.max(...Object.values(shown).map(c => c[1])) > arg", top)
    check_candidates(grown, board)
    status = pg.inner_text("#analysis-status")
    assert "analysing" in status and "(estimate)" in status and "visits" in status, status
    assert "prov" not in status  # never called proved

    # The territory: a square on the points that lean to a side; the switch hides them.
    tab.wait_count("#board-svg rect.own", "n > 0")
    owners = pg.evaluate(
        """() => [...document.querySelectorAll("#board-svg rect.own")]
                 .map(r => [r.dataset.owner, Number(r.dataset.value)])"""
    )
    assert all((v > 0) == (o == "black") and -1 <= v <= 1 for o, v in owners), owners
    pg.uncheck("#analysis-territory")
    tab.wait_count("#board-svg rect.own", "n === 0")
    assert tab.candidates()  # the candidates stay
    pg.check("#analysis-territory")
    tab.wait_count("#board-svg rect.own", "n > 0")

    # The pointer on a candidate: its line as numbered ghost stones, the mover's colour
    # first; off the board, gone.
    best = next(v for v, c in tab.candidates().items() if c[2])
    pg.hover(tab.point(best))
    tab.wait_count("#board-svg circle.pv-stone", "n > 0")
    line = tab.pv()
    assert line[0] == [best, "black", 1], line
    for vertex, color, n in line:
        assert color == ("black" if n % 2 == 1 else "white"), line
        assert vertex in {board.move_name(p) for p in board.points}, line
    assert pg.get_attribute("#board-svg", "data-pv") == best
    assert "win rate" in pg.inner_text("#point-note")
    pg.hover("#status")  # off the board
    tab.wait_count("#board-svg circle.pv-stone", "n === 0")
    assert pg.get_attribute("#board-svg", "data-pv") == ""

    # A move: the old position's overlay goes with it, the new position's comes.
    move = best
    tab.click(move)
    board.push(board.parse_move(move))
    after = pg.evaluate(
        f"""() => [Object.keys(({CANDIDATES})()),
                   document.getElementById("analysis-status").dataset.position]"""
    )
    squares, position = after
    assert move not in squares and position in ("", "1"), after
    shown = tab.wait_candidates()
    check_candidates(shown, board)
    assert pg.get_attribute("#analysis-status", "data-position") == "1"
    hover = next(v for v, c in shown.items() if c[2])
    pg.hover(tab.point(hover))
    tab.wait_count("#board-svg circle.pv-stone", "n > 0")
    assert tab.pv()[0] == [hover, "white", 1]  # white to move now
    pg.hover("#status")

    # A reload: both switches are remembered, and the candidates come back.
    pg.uncheck("#analysis-territory")
    game_id = tab.game_id()
    pg.reload()
    tab.wait_phase("human", ply=1)
    assert tab.game_id() == game_id and pg.is_checked("#analysis")
    assert not pg.is_checked("#analysis-territory")
    check_candidates(tab.wait_candidates(), board)
    assert tab.count("#board-svg rect.own") == 0
    pg.check("#analysis-territory")
    tab.wait_count("#board-svg rect.own", "n > 0")

    # Two passes: the game is counted, and nothing of the analysis is drawn.
    for _ in range(2):
        ply = tab.ply()
        pg.click("#pass")
        tab.wait_phase("human", "counting", ply=ply + 1)
    tab.wait_phase("counting")
    pg.wait_for_function(
        "() => document.getElementById('analysis-status').dataset.status === 'over'",
        timeout=WAIT,
    )
    assert tab.candidates() == {} and tab.count("#board-svg rect.own") == 0
    assert "over" in pg.inner_text("#analysis-status")

    # Off: everything goes at once, and the territory switch with it.
    pg.click("#undo")  # back to playing (before the passes): the analysis comes again
    tab.wait_phase("human")
    tab.wait_candidates()
    pg.uncheck("#analysis")
    assert tab.candidates() == {} and tab.count("#board-svg rect.own") == 0
    assert pg.is_hidden("#analysis-status") and not pg.is_visible("#analysis-territory")


#: Starts recording every animation frame's gap for ``ms`` milliseconds and the analysis
#: updates drawn meanwhile (the candidates' layer redrawn); ``window.frameGaps`` then
#: gives [longest gap, frames, updates, the layer still the same element].
FRAME_GAPS = """(ms) => {
    const layer = document.querySelector("#board-svg g.candidates");
    let updates = 0;
    const seen = new MutationObserver(() => { updates += 1; });
    seen.observe(layer, { childList: true });
    window.frameGaps = new Promise((resolve) => {
        let last = null, worst = 0, frames = 0, end = null;
        function frame(now) {
            if (last !== null) worst = Math.max(worst, now - last);
            last = now;
            frames += 1;
            if (end === null) end = now + ms;
            if (now < end) requestAnimationFrame(frame);
            else {
                seen.disconnect();
                const same = layer === document.querySelector("#board-svg g.candidates");
                resolve([worst, frames, updates, same]);
            }
        }
        requestAnimationFrame(frame);
    });
}"""


def test_a_19x19_board_stays_responsive_while_it_is_analysed(tab: Tab) -> None:
    tab.open()
    tab.both_human()
    tab.new_game(19)
    pg = tab.page
    for vertex in ("Q16", "D4", "Q4", "D16", "R10"):
        tab.click(vertex)
    if not pg.is_checked("#analysis"):
        pg.check("#analysis")
    if not pg.is_checked("#analysis-territory"):
        pg.check("#analysis-territory")
    board = go.Board(19)
    for vertex in ("Q16", "D4", "Q4", "D16", "R10"):
        board.push(board.parse_move(vertex))
    shown = tab.wait_candidates()
    check_candidates(shown, board)
    tab.wait_count("#board-svg rect.own", "n > 0")

    # Three seconds of the analysis streaming (about eight updates a second), the pointer
    # on a candidate's point for the second half (its line redrawn with every update).
    best = next(v for v, c in shown.items() if c[2])
    pg.evaluate(FRAME_GAPS, 3000)
    pg.wait_for_timeout(1500)
    pg.hover(tab.point(best))
    worst, frames, updates, same = pg.evaluate("window.frameGaps")
    # the analysis went on meanwhile, drawn into the same board (no redraw of it)
    assert same and updates >= 5, (worst, frames, updates)
    assert worst < MAX_FRAME_GAP_MS, f"a {worst:.0f} ms gap between frames ({frames} frames)"
    assert tab.pv(), "no line on the hovered candidate"


def test_a_tap_shows_a_candidates_line_on_a_phone(browser: Any, server: str) -> None:
    phone = Tab(browser, server, viewport=PHONE, is_mobile=True, has_touch=True)
    try:
        phone.open()
        phone.both_human()
        phone.new_game(9)
        pg = phone.page
        # White is the CPU, paused: after black's move the board only shows (no move
        # can be played), and the analysis runs for the position.
        pg.select_option("#level-2", "quick")
        pg.wait_for_function("() => !document.getElementById('pause').disabled")
        pg.click("#pause")
        pg.wait_for_function("() => document.getElementById('pause').textContent === 'Resume'")
        phone.click("E5")
        phone.wait_phase("paused", ply=1)
        if not pg.is_checked("#analysis"):
            pg.check("#analysis")
        for selector in ("#analysis", "#analysis-territory"):
            label = pg.locator(f"label:has({selector})").bounding_box()
            assert label is not None and label["height"] >= 44
            assert label["x"] + label["width"] <= PHONE["width"]
        assert pg.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        shown = phone.wait_candidates()
        best = next(v for v, c in shown.items() if c[2])
        pg.tap(phone.point(best))
        phone.wait_count("#board-svg circle.pv-stone", "n > 0")
        assert phone.pv()[0] == [best, "white", 1]
        pg.tap(phone.point(best))  # again: the line goes
        phone.wait_count("#board-svg circle.pv-stone", "n === 0")
        assert phone.ply() == 1  # a tap on a board that only shows plays nothing
    finally:
        phone.close()
    assert phone.errors == [], f"console errors: {phone.errors}"

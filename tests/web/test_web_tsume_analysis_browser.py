"""The tsume page's analysis in a real browser: the switch lists every check of the
attacker with its verdict as the proofs land, a check under the pointer (or tapped) is
marked on the board, the switch survives a reload, an edit clears the list and brings the
new position's, and the list on a phone's width.

Debian's chromium driven by Playwright; the ``server`` and ``browser`` fixtures are in
conftest.py (a server subprocess per module, one engine worker, the real solver; without
/usr/bin/chromium these tests skip, except on CI). What the page shows is read off the DOM
(``#checks li[data-usi][data-kind][data-value][data-shortest]``, see tsume-analysis.js;
``#board-svg g.hint``, see shogi-board.js) and compared with cshogi and the solver. Nothing
is timed: every wait is for the page to show something.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import paths
import pytest
from test_web_tsume_analysis import checks
from test_web_tsume_browser import MICROCOSMOS, PHONE, THREE, Tab

from banmen.games.shogi import normalize_sfen
from banmen.games.shogi.formats import kif_moves
from banmen.games.shogi.tsume import solve
from banmen.search.limits import Limit

pytestmark = [pytest.mark.browser, pytest.mark.timeout(240)]

ARTIFACTS = paths.ARTIFACTS
#: mate in 3 by a gold drop (G*5b)
DROP = "3sks3/9/4+P4/9/9/9/9/9/9 b 2G2r2b2g2s4n4l17p 1"
#: generous: the first analysis in a fresh worker loads the solver
WAIT = 90_000

#: the checks listed: USI -> [kind, value, shortest, KIF, verdict text]
LISTED = """() => Object.fromEntries([...document.querySelectorAll("#checks li")].map(li => [
    li.dataset.usi,
    [li.dataset.kind, li.dataset.value, li.dataset.shortest === "true",
     li.querySelector(".check-move").textContent,
     li.querySelector(".check-verdict").textContent]]))"""

#: from now on, every state of the list with the position on the board at the time:
#: window.__seen = [[board SFEN, [USI, kind] of each check listed], ...]
RECORD = """() => {
    window.__seen = [];
    const note = () => window.__seen.push([
        document.getElementById("board").dataset.sfen,
        [...document.querySelectorAll("#checks li")].map(li => [li.dataset.usi, li.dataset.kind]),
    ]);
    const watch = new MutationObserver(note);
    watch.observe(document.getElementById("checks"), { childList: true });
    watch.observe(document.getElementById("board"), { attributes: true,
                                                      attributeFilter: ["data-sfen"] });
    note();
}"""


class ATab(Tab):
    """A tsume tab with the analysis helpers."""

    def switch(self, on: bool) -> None:
        if self.page.is_checked("#analysis") != on:
            self.page.click("#analysis")
        assert self.page.is_checked("#analysis") == on

    def listed(self) -> dict[str, list[Any]]:
        value: dict[str, list[Any]] = self.page.evaluate(LISTED)
        return value

    def wait_status(self, *statuses: str) -> str:
        self.page.wait_for_function(
            "(s) => s.includes(document.getElementById('analysis-status').dataset.status)",
            arg=list(statuses),
            timeout=WAIT,
        )
        return self.page.inner_text("#analysis-status")

    def wait_checks(self, sfen: str) -> dict[str, list[Any]]:
        """Wait until the list is ``sfen``'s checks, every one decided; what it shows."""
        self.page.wait_for_function(
            """(want) => {
                const items = [...document.querySelectorAll("#checks li")];
                return items.length === want.length
                    && items.every(li => want.includes(li.dataset.usi)
                                         && li.dataset.decided === "true");
            }""",
            arg=sorted(checks(sfen)),
            timeout=WAIT,
        )
        return self.listed()

    def hint(self) -> list[Any] | None:
        """The move marked on the board: [USI, from square, to square, a drop drawn]."""
        value: list[Any] | None = self.page.evaluate(
            """() => {
                const g = document.querySelector("#board-svg g.hint");
                if (!g) return null;
                const sq = (c) => g.querySelector(c)?.dataset.square ?? null;
                return [g.dataset.move, sq("rect.hint-from"), sq("rect.hint-to"),
                        g.querySelector(".hint-drop") !== null];
            }"""
        )
        return value


@pytest.fixture
def tab(browser: Any, server: str) -> Iterator[ATab]:
    t = ATab(browser, server, viewport={"width": 1280, "height": 1000})
    yield t
    t.close()
    assert t.errors == [], f"console errors: {t.errors}"


def first3(sfen: str) -> str:
    return " ".join(normalize_sfen(sfen).split()[:3])


def check_seen(seen: list[list[Any]]) -> None:
    """Every list the page showed was the checks of the position on its board."""
    for sfen, rows in seen:
        if rows:
            assert {usi for usi, _ in rows} == checks(sfen), (sfen, rows)


# --------------------------------------------------------------------------- tests


def test_the_checks_fill_in_with_their_verdicts(tab: ATab) -> None:
    tab.open(THREE)
    pg = tab.page
    tab.switch(False)
    assert pg.is_hidden("#analysis-status") and pg.locator("#checks li").count() == 0
    pg.evaluate(RECORD)
    tab.switch(True)
    text = tab.wait_status("done")
    shown = tab.wait_checks(THREE)
    answer = solve(THREE, Limit(time=60))
    assert answer.length == 3
    assert text == "Analysis: every check decided: mate in 3 (9 checks)."
    for usi, (kind, value, shortest, kif, verdict) in shown.items():
        assert kif == kif_moves(THREE, [usi])[0]
        if usi == answer.pv[0]:
            assert (kind, value, shortest, verdict) == ("mate", "3", True, "mate in 3")
        else:
            assert (kind, verdict) == ("no_mate", "no mate")
    # the mate is listed first
    assert pg.get_attribute("#checks li:first-child", "data-usi") == answer.pv[0]
    # as the proofs landed: every check was open ("…") before its verdict came
    seen = pg.evaluate("window.__seen")
    check_seen(seen)
    kinds: dict[str, list[str]] = {}
    for _, rows in seen:
        for usi, kind in rows:
            if not kinds.get(usi) or kinds[usi][-1] != kind:
                kinds.setdefault(usi, []).append(kind)
    assert set(kinds) == checks(THREE)
    assert all(k[0] == "open" and k[-1] != "open" for k in kinds.values()), kinds

    # the check under the pointer is marked on the board; a tap pins it
    assert tab.hint() is None
    pg.hover('#checks li[data-usi="7e7b+"] button')
    assert tab.hint() == ["7e7b+", "7e", "7b", False]
    pg.hover("#status")
    assert tab.hint() is None
    pg.click('#checks li[data-usi="7f6e"] button')
    pg.hover("#status")
    assert tab.hint() == ["7f6e", "7f", "6e", False]
    assert pg.get_attribute('#checks li[data-usi="7f6e"] button', "aria-pressed") == "true"
    pg.click('#checks li[data-usi="7f6e"] button')
    pg.hover("#status")
    assert tab.hint() is None

    # a solve with the analysis on: solved as ever, and the verdicts stay
    tab.solve()
    assert "mate in 3" in tab.wait_result("mate")
    assert tab.wait_checks(THREE) == shown
    # on a later position of the solution, no check of the problem is marked there
    tab.wait_step(0)
    pg.click("#forward")
    tab.wait_step(1)
    pg.hover('#checks li[data-usi="7e7b+"] button')
    assert tab.hint() is None


def test_a_drop_is_marked_where_the_piece_would_land(tab: ATab) -> None:
    tab.open(DROP)
    tab.switch(True)
    shown = tab.wait_checks(DROP)
    assert shown["G*5b"][:3] == ["mate", "3", True]
    assert shown["G*5b"][3] == "▲５二金打"
    tab.page.hover('#checks li[data-usi="G*5b"] button')
    assert tab.hint() == ["G*5b", None, "5b", True]


def test_the_words_for_what_is_not_proved_yet(tab: ATab) -> None:
    """The verdicts and status lines a short problem passes too quickly to see: a mate not
    yet proved shortest, checks left open by the time limit (tsume-analysis.js itself)."""
    tab.open(THREE)
    words = tab.page.evaluate(
        """async () => {
            const m = await import("/static/js/tsume-analysis.js");
            const longer = { move: "a", kind: "mate", value: 9, extra: { shortest: false } };
            const open = { move: "b", kind: "open", value: null };
            const escape = { move: "c", kind: "no_mate", value: null };
            const data = { moves: [longer, open, escape], complete: false, stopped_by: "time" };
            return {
                running: [m.verdict(longer, true), m.verdict(open, true)],
                stopped: [m.verdict(longer, false), m.verdict(open, false)],
                proving: m.analysisLine({ status: "running", data }, null),
                timeUp: m.analysisLine({ status: "done", data }, null),
                waiting: m.analysisLine({ status: "waiting", message: "waiting for an engine" }),
            };
        }"""
    )
    assert [(w["text"], w["note"]) for w in words["running"]] == [
        ("mate in 9", "shortening…"),
        ("…", ""),
    ]
    assert [(w["text"], w["note"]) for w in words["stopped"]] == [
        ("mate in 9", "not proved shortest"),
        ("not proved", ""),
    ]
    assert words["proving"] == "Analysis: proving… 1 of 3 checks decided."
    assert words["timeUp"] == "Analysis: stopped: time limit (1 of 3 checks decided)."
    assert words["waiting"] == "Analysis: waiting for an engine…"


def test_the_switch_survives_a_reload(tab: ATab) -> None:
    tab.open(THREE)
    pg = tab.page
    tab.switch(True)
    tab.wait_checks(THREE)
    pg.reload()
    pg.wait_for_selector('#board[data-phase="edit"]', state="attached")
    assert pg.is_checked("#analysis")
    tab.wait_checks(THREE)  # asked for again by itself
    tab.switch(False)
    assert pg.is_hidden("#analysis-status") and pg.locator("#checks li").count() == 0
    pg.reload()
    pg.wait_for_selector('#board[data-phase="edit"]', state="attached")
    pg.wait_for_selector("#solve:not([disabled])", state="attached")
    assert not pg.is_checked("#analysis")
    assert pg.is_hidden("#analysis-status") and pg.locator("#checks li").count() == 0


def test_an_edit_clears_the_list_and_the_new_position_is_analysed(tab: ATab) -> None:
    tab.open(MICROCOSMOS)
    pg = tab.page
    pg.evaluate(RECORD)
    tab.switch(True)
    # a long problem: the checks come at once, open ("…") while the proofs run
    pg.wait_for_selector('#checks li[data-kind="open"]', state="attached", timeout=WAIT)
    assert set(tab.listed()) == checks(MICROCOSMOS)
    opened = pg.locator('#checks li[data-kind="open"] .check-verdict').first.inner_text()
    assert opened == "…"
    assert "proving…" in pg.inner_text("#analysis-status")
    pg.hover('#checks li[data-kind="open"] button')

    # another position: the long analysis goes, the new position's comes
    pg.select_option("#examples", THREE)
    tab.wait_sfen(THREE)
    shown = tab.wait_checks(THREE)
    assert shown[solve(THREE, Limit(time=60)).pv[0]][:2] == ["mate", "3"]
    assert tab.wait_status("done").startswith("Analysis: every check decided")

    # an edit (a gold in black's hand): cleared, then the new checks, drops included
    pg.click('#hand-edit button[data-side="b"][data-kind="G"][data-delta="1"]')
    gold = "9/9/3pp4/+r2k1p3/2L1+p4/2+R6/B8/B8/9 b G3g4s4n3l14p 1"
    tab.wait_sfen(gold)
    shown = tab.wait_checks(gold)
    assert any(usi.startswith("G*") for usi in shown)
    tab.wait_status("done")

    # a position that is no problem: nothing listed, and the line says why
    pg.click("#clear")
    pg.wait_for_selector('#position-note[data-ok="false"]', state="attached")
    tab.wait_status("blocked")
    assert "not a mate problem" in pg.inner_text("#analysis-status")
    assert pg.locator("#checks li").count() == 0
    # a lone king: the attacker has nothing to check with
    pg.click("#lone-king")
    assert "no check" in tab.wait_status("done")
    assert pg.locator("#checks li").count() == 0

    # never a list of another position than the one on the board
    check_seen(pg.evaluate("window.__seen"))
    firsts = {first3(sfen) for sfen, rows in pg.evaluate("window.__seen") if rows}
    assert firsts == {first3(MICROCOSMOS), first3(THREE), first3(gold)}


def test_the_list_on_a_phone(browser: Any, server: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    phone = ATab(
        browser, server, viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True
    )
    try:
        phone.open(THREE)
        pg = phone.page
        phone.switch(True)
        phone.wait_checks(THREE)
        assert pg.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        board = pg.locator("#board-svg").bounding_box()
        assert board is not None
        for item in pg.locator("#checks li button").all():
            b = item.bounding_box()
            assert b is not None and b["height"] >= 44
            assert b["x"] >= 0 and b["x"] + b["width"] <= PHONE["width"]
            assert b["y"] > board["y"] + board["height"]  # under the board
        pg.tap('#checks li[data-usi="7e7b+"] button')
        assert phone.hint() == ["7e7b+", "7e", "7b", False]
        pg.screenshot(path=str(ARTIFACTS / "tsume-phone-analysis.png"), full_page=True)
        assert phone.errors == []
    finally:
        phone.close()

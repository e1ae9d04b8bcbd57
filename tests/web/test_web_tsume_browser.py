"""The tsume-shogi page in a real browser: solve a problem from a link, step through the
answer, edit a position (the address follows), paste a bad SFEN, cancel a long solve, and
the phone layout.

Debian's chromium driven by Playwright; the ``server`` and ``browser`` fixtures are in
conftest.py (a server subprocess per module, with the real solver; without /usr/bin/chromium
these tests skip, except on CI). Positions are read off the DOM (``#board[data-sfen]``,
``g.piece[data-square][data-piece]``, see shogi-board.js) and compared with cshogi.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote, unquote, urlsplit

import paths
import pytest
from browser_tab import BrowserTab

from banmen.games.shogi import normalize_sfen, parse_sfen

pytestmark = [pytest.mark.browser, pytest.mark.timeout(180)]

ARTIFACTS = paths.ARTIFACTS
PHONE = {"width": 390, "height": 844}

THREE = "9/9/3pp4/+r2k1p3/2L1+p4/2+R6/B8/B8/9 b 4g4s4n3l14p 1"
LONE_KING = "4k4/9/9/9/9/9/9/9/9 b 2r2b4g4s4n4l18p 1"
MICROCOSMOS = (
    "g1+P1k1+P+P+L/1p3P3/+R+p2pp1pl/1NNsg+p2+R/+b+nL+P1+p3/1P3ssP1/2P1+Ps2N/4+P1P1L/+B5G1g b - 1"
)


class Tab(BrowserTab):
    """A browser tab on the tsume page."""

    path = "/tsume"

    def open(self, sfen: str | None = None) -> None:
        """Open the page (with ``?sfen=`` if given) and wait until it shows a position."""
        self.goto("/tsume" if sfen is None else f"/tsume?sfen={quote(sfen)}")
        self.page.wait_for_selector('#board[data-phase="edit"]', state="attached")
        self.page.wait_for_selector("#solve:not([disabled])", state="attached")

    def sfen(self) -> str:
        """The position on the board, canonical."""
        return normalize_sfen(self.page.get_attribute("#board", "data-sfen") or "")

    def url_sfen(self) -> str:
        """The ``?sfen=`` of the address ("_" for spaces, "+" kept as it is)."""
        query = urlsplit(self.page.url).query
        for part in query.split("&"):
            if part.startswith("sfen="):
                return normalize_sfen(unquote(part[5:]).replace("_", " "))
        raise AssertionError(f"no sfen in {self.page.url}")

    def wait_sfen(self, sfen: str) -> None:
        want = normalize_sfen(sfen)
        self.page.wait_for_function(
            "(want) => document.getElementById('board').dataset.sfen?.split(' ').slice(0, 3)"
            ".join(' ') === want",
            arg=" ".join(want.split()[:3]),
        )

    def pieces(self) -> dict[str, str]:
        """Square -> piece code, from the pieces drawn."""
        drawn: list[list[str]] = self.page.evaluate(
            """() => [...document.querySelectorAll("#board-svg g.piece")]
                   .map(g => [g.dataset.square, g.dataset.piece])"""
        )
        return dict((sq, code) for sq, code in drawn)

    def step(self) -> int:
        return int(self.page.get_attribute("#board", "data-step") or 0)

    def wait_step(self, n: int) -> None:
        self.page.wait_for_selector(
            f'#board[data-mode="replay"][data-step="{n}"]', state="attached"
        )

    def tap(self, square: str) -> None:
        self.page.click(f'#board-svg rect.square[data-square="{square}"]', force=True)

    def solve(self, seconds: int = 30) -> None:
        self.page.fill("#time", str(seconds))
        self.page.click("#solve")

    def wait_result(self, *statuses: str) -> str:
        self.page.wait_for_function(
            "(statuses) => statuses.includes(document.getElementById('result').dataset.status)",
            arg=list(statuses),
            timeout=120_000,
        )
        return self.page.inner_text("#result")


@pytest.fixture
def tab(browser: Any, server: str) -> Iterator[Tab]:
    t = Tab(browser, server, viewport={"width": 1280, "height": 1000})
    yield t
    t.close()
    assert t.errors == [], f"console errors: {t.errors}"


def positions(sfen: str, pv: list[str]) -> list[str]:
    """The canonical positions along ``pv``, the start first."""
    board = parse_sfen(sfen)
    out = [normalize_sfen(board.sfen())]
    for usi in pv:
        board.push_usi(usi)
        out.append(normalize_sfen(board.sfen()))
    return out


def first3(sfen: str) -> str:
    return " ".join(sfen.split()[:3])


# --------------------------------------------------------------------------- tests


def test_solve_a_linked_problem_and_step_through_the_answer(tab: Tab) -> None:
    tab.open(THREE)
    pg = tab.page
    assert tab.sfen() == THREE
    assert tab.url_sfen() == THREE
    assert tab.pieces()["7e"] == "L" and tab.pieces()["6d"] == "k"

    tab.solve()
    text = tab.wait_result("mate")
    assert "mate in 3" in text
    kif = pg.locator("#kif li").all_inner_texts()
    assert len(kif) == 3
    assert "７二香成" in kif[0]
    assert kif == ["▲７二香成(75)", "△５四玉(64)", "▲５六龍(76)"]

    # the board shows the problem, then each move in turn, the last move marked
    line = positions(THREE, ["7e7b+", "6d5d", "7f5f"])
    tab.wait_step(0)
    assert first3(tab.sfen()) == first3(line[0])
    assert pg.locator("#board-svg rect.last-to").count() == 0
    assert pg.locator("#kif li.current").count() == 0
    pg.click("#forward")
    tab.wait_step(1)
    assert pg.locator("#kif li.current").all_inner_texts() == [kif[0]]
    assert first3(tab.sfen()) == first3(line[1])
    assert tab.pieces()["7b"] == "+L" and "7e" not in tab.pieces()
    assert pg.get_attribute("#board-svg rect.last-to", "data-square") == "7b"
    assert pg.get_attribute("#board-svg rect.last-from", "data-square") == "7e"
    assert "７二香成" in pg.inner_text("#status")

    pg.click("#kif li:nth-child(3) button")
    tab.wait_step(3)
    assert first3(tab.sfen()) == first3(line[3])
    assert tab.pieces()["5f"] == "+R" and tab.pieces()["5d"] == "k"
    assert pg.get_attribute("#board-svg rect.last-to", "data-square") == "5f"
    assert pg.is_disabled("#forward") and pg.is_disabled("#last")

    pg.click("#back")
    tab.wait_step(2)
    assert first3(tab.sfen()) == first3(line[2])
    pg.click("#first")
    tab.wait_step(0)
    assert first3(tab.sfen()) == first3(line[0])
    pg.click("#last")
    tab.wait_step(3)
    pg.keyboard.press("ArrowLeft")
    tab.wait_step(2)

    # back to editing: the problem is still the position being edited
    pg.click("#edit")
    pg.wait_for_selector('#board[data-mode="edit"]', state="attached")
    assert tab.sfen() == THREE


def test_the_editor_builds_a_problem_and_the_address_follows(tab: Tab) -> None:
    tab.open()
    pg = tab.page
    assert tab.sfen() == LONE_KING  # the composing start: white's king alone
    assert tab.url_sfen() == LONE_KING

    # a black pawn on 5c: it comes out of white's hand
    pg.click('#palette button[data-piece="P"]')
    tab.tap("5c")
    want = "4k4/9/4P4/9/9/9/9/9/9 b 2r2b4g4s4n4l17p 1"
    tab.wait_sfen(want)
    assert tab.pieces()["5c"] == "P"
    assert tab.url_sfen() == want
    assert normalize_sfen(pg.input_value("#sfen")) == want

    # promote it and back, flip it to white and back
    pg.click('#tools button[data-tool="promote"]')
    tab.tap("5c")
    tab.wait_sfen("4k4/9/4+P4/9/9/9/9/9/9 b 2r2b4g4s4n4l17p 1")
    tab.tap("5c")
    pg.click('#tools button[data-tool="flip"]')
    tab.tap("5c")
    tab.wait_sfen("4k4/9/4p4/9/9/9/9/9/9 b 2r2b4g4s4n4l17p 1")
    tab.tap("5c")
    tab.wait_sfen(want)

    # a gold in black's hand: the classic head-gold mate
    pg.click('#hand-edit button[data-side="b"][data-kind="G"][data-delta="1"]')
    want = "4k4/9/4P4/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1"
    tab.wait_sfen(want)
    assert pg.get_attribute('#hand-b .hand-piece[data-kind="G"]', "data-count") == "1"
    assert pg.get_attribute('#hand-w .hand-piece[data-kind="G"]', "data-count") == "3"
    assert tab.url_sfen() == want
    pg.wait_for_selector('#position-note[data-ok="true"]', state="attached")

    tab.solve()
    assert "mate in 1" in tab.wait_result("mate")
    assert pg.locator("#kif li").all_inner_texts() == ["▲５二金打"]

    # the address is a link to the same position
    url = pg.url
    other = Tab(tab.page.context.browser, tab.base)
    try:
        other.page.goto(url)
        other.page.wait_for_selector('#board[data-phase="edit"]', state="attached")
        assert other.sfen() == want
    finally:
        other.close()
        assert other.errors == []

    # remove the pawn, move the king, clear everything
    pg.click("#edit")
    pg.click('#tools button[data-tool="remove"]')
    tab.tap("5c")
    tab.wait_sfen("4k4/9/9/9/9/9/9/9/9 b G2r2b3g4s4n4l18p 1")
    pg.click('#tools button[data-tool="move"]')
    tab.tap("5a")
    tab.tap("1a")
    tab.wait_sfen("8k/9/9/9/9/9/9/9/9 b G2r2b3g4s4n4l18p 1")
    pg.click("#clear")
    tab.wait_sfen("9/9/9/9/9/9/9/9/9 b 2r2b4g4s4n4l18p 1")
    pg.wait_for_selector('#position-note[data-ok="false"]', state="attached")
    assert "no king" in pg.inner_text("#position-note")
    pg.click("#lone-king")
    tab.wait_sfen(LONE_KING)


def test_a_bad_pasted_sfen_shows_an_error_and_keeps_the_position(tab: Tab) -> None:
    tab.open(THREE)
    pg = tab.page
    pg.fill("#load-text", "9/9/9 b - 1")
    pg.click("#load-button")
    pg.wait_for_selector("#load-error:not([hidden])")
    error = pg.inner_text("#load-error")
    assert "ranks" in error and "\n" not in error.strip()
    assert tab.sfen() == THREE and tab.url_sfen() == THREE

    pg.fill("#load-text", "k8/P8/PK7/9/9/9/9/9/9 b - 1")
    pg.click("#load-button")
    pg.wait_for_function("() => document.getElementById('load-error').textContent.includes('nifu')")
    assert tab.sfen() == THREE

    # a good one loads, and the error goes away
    pg.fill("#load-text", "  k8/9/PK7/9/9/9/9/9/9 b 17p2r2b4g4s4n4l  ")
    pg.click("#load-button")
    tab.wait_sfen("k8/9/PK7/9/9/9/9/9/9 b 2r2b4g4s4n4l17p 1")
    assert pg.is_hidden("#load-error")
    assert tab.url_sfen() == "k8/9/PK7/9/9/9/9/9/9 b 2r2b4g4s4n4l17p 1"


def test_a_bad_sfen_in_the_address_falls_back_to_the_lone_king(browser: Any, server: str) -> None:
    t = Tab(browser, server)
    try:
        t.page.goto(server + "/tsume?sfen=" + quote("k8/9/9 b - 1"))
        t.page.wait_for_selector("#message:not([hidden])")
        assert "ranks" in t.page.inner_text("#message")
        t.wait_sfen(LONE_KING)
        assert t.url_sfen() == LONE_KING
    finally:
        t.close()


def test_cancel_stops_a_long_solve_and_the_page_stays_live(tab: Tab) -> None:
    tab.open(MICROCOSMOS)
    pg = tab.page
    tab.solve(120)
    pg.wait_for_selector('#board[data-phase="solving"]', state="attached")
    assert pg.is_disabled("#solve")
    # progress streams in while the page keeps answering
    pg.wait_for_function("() => document.getElementById('p-nodes').textContent !== '–'")
    pg.wait_for_function("() => ['proving a mate', 'shortening it', 'reading the line']"
                         ".includes(document.getElementById('p-phase').textContent)")  # fmt: skip
    first = pg.inner_text("#p-time")
    pg.wait_for_function("(t) => document.getElementById('p-time').textContent !== t", arg=first)
    # the editor is locked while the solver runs
    assert pg.is_disabled('#palette button[data-piece="P"]')
    pg.click("#cancel")
    text = tab.wait_result("unknown")
    assert "stopped" in text and "neither a mate nor the absence of one was proved" in text
    assert pg.is_enabled("#solve") and pg.is_disabled("#cancel")
    pg.wait_for_selector('#board[data-phase="edit"]', state="attached")
    assert tab.sfen() == normalize_sfen(MICROCOSMOS)


def test_the_phone_layout(browser: Any, server: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    phone = Tab(
        browser, server, viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True
    )
    try:
        phone.open(THREE)
        pg = phone.page
        box = pg.locator("#board-svg").bounding_box()
        assert box is not None
        assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
        assert box["width"] >= PHONE["width"] * 0.9  # the board takes the width
        assert pg.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        # the controls come below the board
        solve = pg.locator("#solve").bounding_box()
        assert solve is not None and solve["y"] > box["y"] + box["height"]
        # a tap on the board works
        pg.tap('#palette button[data-piece="g"]')
        pg.tap('#board-svg rect.square[data-square="1i"]', force=True)
        phone.wait_sfen("9/9/3pp4/+r2k1p3/2L1+p4/2+R6/B8/B8/8g b 3g4s4n3l14p 1")
        pg.tap('#tools button[data-tool="remove"]')
        pg.tap('#board-svg rect.square[data-square="1i"]', force=True)
        phone.wait_sfen(THREE)
        pg.screenshot(path=str(ARTIFACTS / "tsume-phone-editor.png"), full_page=True)
        for button in pg.locator("button:visible").all():
            b = button.bounding_box()
            assert b is not None and b["height"] >= 44, button.inner_text()
        phone.solve()
        phone.wait_result("mate")
        pg.screenshot(path=str(ARTIFACTS / "tsume-phone.png"), full_page=True)
        assert phone.errors == []
    finally:
        phone.close()


def test_an_edit_after_solving_clears_the_result_and_its_replay(tab: Tab) -> None:
    tab.open(THREE)
    pg = tab.page
    tab.solve()
    assert "mate in 3" in tab.wait_result("mate")
    tab.wait_step(0)
    # back to the editor without a change: the result still belongs to the position
    pg.click("#edit")
    pg.wait_for_selector('#board[data-mode="edit"]', state="attached")
    assert "mate in 3" in pg.inner_text("#result")
    assert pg.is_visible("#show-solution")

    pg.click("#lone-king")
    tab.wait_sfen(LONE_KING)
    pg.wait_for_selector("#result", state="hidden")
    assert pg.inner_text("#result") == ""
    assert pg.get_attribute("#result", "data-status") == "none"
    assert pg.locator("#kif li").count() == 0
    assert pg.is_hidden("#show-solution")
    assert pg.inner_text("#p-nodes") == "–"
    # nothing is left to replay: the keys leave the new position on the board
    pg.keyboard.press("Home")
    pg.keyboard.press("End")
    assert pg.get_attribute("#board", "data-mode") == "edit"
    assert tab.sfen() == LONE_KING

    # the same while the solution is on the board: an edit from the side panel
    pg.select_option("#examples", THREE)
    tab.wait_sfen(THREE)
    tab.solve()
    tab.wait_result("mate")
    pg.click("#forward")
    tab.wait_step(1)
    pg.click('#hand-edit button[data-side="b"][data-kind="G"][data-delta="1"]')
    tab.wait_sfen("9/9/3pp4/+r2k1p3/2L1+p4/2+R6/B8/B8/9 b G3g4s4n3l14p 1")
    assert pg.get_attribute("#board", "data-mode") == "edit"
    assert pg.locator("#kif li").count() == 0 and pg.inner_text("#result") == ""
    assert pg.is_hidden("#show-solution")


def test_the_page_draws_its_japanese_with_its_own_fonts(tab: Tab) -> None:
    """No test machine needs a Japanese font: the page brings its own (static/fonts/), and
    chromium draws every kanji with it (asked through the DevTools protocol which fonts drew
    a node's text)."""
    fonts: dict[str, int] = {}
    tab.page.on(
        "response",
        lambda r: (
            fonts.__setitem__(r.url.rsplit("/", 1)[-1], r.status)
            if "/static/fonts/" in r.url
            else None
        ),
    )
    tab.open(THREE)
    pg = tab.page
    loaded = pg.evaluate(
        "document.fonts.ready.then(() => [...document.fonts].map(f => [f.family, f.status]))"
    )
    assert sorted(loaded) == [
        ["Banmen Shogi Sans", "loaded"],
        ["Banmen Shogi Serif", "loaded"],
    ]
    assert fonts == {"banmen-shogi-sans.woff2": 200, "banmen-shogi-serif.woff2": 200}
    assert pg.evaluate("""document.fonts.check('700 58px "Banmen Shogi Serif"', '歩龍')""")

    cdp = tab.context.new_cdp_session(pg)
    cdp.send("DOM.enable")
    cdp.send("CSS.enable")

    def drawn_by(selector: str) -> dict[str, int]:
        """Font family -> glyphs drawn, for the first node matching ``selector``."""
        root = cdp.send("DOM.getDocument", {"depth": -1})["root"]["nodeId"]
        node = cdp.send("DOM.querySelector", {"nodeId": root, "selector": selector})["nodeId"]
        assert node, selector
        used = cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node})["fonts"]
        return {f["familyName"]: f["glyphCount"] for f in used}

    def drawn_with(selector: str, want: dict[str, int]) -> dict[str, int]:
        """``drawn_by``, asked again (up to 30 s) until it is ``want``: a loaded font
        reaches text laid out before it came at the next layout, which a busy machine may
        run a little later (the fonts' own load is checked above)."""
        deadline = time.monotonic() + 30
        got = drawn_by(selector)
        while got != want and time.monotonic() < deadline:
            time.sleep(0.1)
            # ask for the node's box: a layout now, not at the page's next frame
            pg.evaluate("(s) => document.querySelector(s)?.getBoundingClientRect()", selector)
            got = drawn_by(selector)
        return got

    serif = {"Banmen Shogi Serif": 1}
    assert drawn_with('#board-svg g.piece[data-piece="+R"] text.label', serif) == serif  # 龍
    assert drawn_with('#board-svg g.piece[data-piece="k"] text.label', serif) == serif  # 玉
    assert drawn_with('#hand-w .hand-piece[data-kind="G"] .glyph', serif) == serif  # 金
    assert drawn_with('#palette button[data-piece="+N"] span', serif) == serif  # 圭
    sans = {"Banmen Shogi Sans": 1}
    assert drawn_with("#board-svg text.coord:nth-of-type(2)", sans) == sans  # 一
    # a lone kanji among Latin letters: Chromium would draw it with the Latin font's box
    assert drawn_with("#tools [data-tool=promote] .ja", sans) == sans  # 成

    tab.solve()
    tab.wait_result("mate")
    kif = pg.inner_text("#kif li:first-child button")
    assert kif == "▲７二香成(75)"
    japanese = sum(1 for c in kif if "\u3000" <= c <= "\u9fff" or "\uff00" <= c <= "\uffef")
    assert drawn_by("#kif li:first-child button").get("Banmen Shogi Sans") == japanese == 4


def test_desktop_screenshot(tab: Tab) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    tab.open(THREE)
    tab.solve()
    tab.wait_result("mate")
    tab.page.click("#forward")
    tab.wait_step(1)
    tab.page.screenshot(path=str(ARTIFACTS / "tsume.png"), full_page=True)

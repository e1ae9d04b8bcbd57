"""The Go page in a real browser: the preview stone, a capture and the prisoner count, an
illegal point refused with its reason, counting with dead stones, SGF download and upload,
and a phone: a touch drag that aims the stone and plays it on release.

Debian's chromium driven by Playwright; the ``server`` and ``browser`` fixtures are in
conftest.py (a server subprocess per module; without /usr/bin/chromium these tests skip,
except on CI). Both sides are human unless a test says otherwise, so every position on
the page is one the test chose; what the page shows is read off the DOM (see go-board.js)
and compared with :class:`banmen.games.go.Board`. Screenshots go to test-artifacts/.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import paths
import pytest
from browser_tab import BrowserTab

from banmen.games import go

pytestmark = [pytest.mark.browser, pytest.mark.timeout(120)]

ARTIFACTS = paths.ARTIFACTS
PHONE = {"width": 390, "height": 844}
COLORS = {go.BLACK: "black", go.WHITE: "white"}
#: Black takes the white stone on D5 with E5; white may not retake on D5 at once (ko).
KO = ["D6", "E6", "C5", "F5", "D4", "E4", "A9", "D5", "E5"]


class Tab(BrowserTab):
    """A browser tab on the Go page."""

    path = "/go"

    def open(self, path: str = "/go") -> None:
        self.goto(path)
        self.wait_phase("human", "cpu", "paused", "counting", "over")

    def new_game(self, size: int = 9, rules: str = "chinese") -> None:
        old = self.game_id()
        self.page.check(f'input[name="size"][value="{size}"]')
        self.page.select_option("#rules", rules)
        self.page.click("#new-button")
        self.wait_new_game(old)
        self.wait_phase("human", ply=0)

    def point(self, vertex: str) -> str:
        return f'#board-svg rect.pt[data-vertex="{vertex}"]'

    def click(self, vertex: str) -> None:
        """Click a point and wait for the move to be played."""
        ply = self.ply()
        self.page.click(self.point(vertex))
        self.wait_phase("human", "counting", "over", ply=ply + 1)

    def stones(self) -> dict[str, str]:
        """Vertex -> "black" / "white" for every stone drawn."""
        drawn: list[list[str]] = self.page.evaluate(
            """() => [...document.querySelectorAll("#board-svg circle.stone")]
                   .map(c => [c.dataset.vertex, c.dataset.color])"""
        )
        found = dict((v, c) for v, c in drawn)
        assert len(found) == len(drawn), f"two stones on one point: {sorted(drawn)}"
        return found

    def preview(self) -> tuple[str, str] | None:
        """(vertex, data-legal) of the preview stone, if one is shown."""
        found: list[str] | None = self.page.evaluate(
            """() => {
                const p = document.querySelector("#board-svg circle.preview");
                return p ? [p.dataset.vertex, p.dataset.legal] : null;
            }"""
        )
        return None if found is None else (found[0], found[1])

    def message(self) -> str:
        self.page.wait_for_selector("#message:not([hidden])")
        return self.page.inner_text("#message")


def expected_stones(board: go.Board) -> dict[str, str]:
    return {
        go.vertex_name(p, board.size): COLORS[c]
        for c in (go.BLACK, go.WHITE)
        for p in board.stones(c)
    }


def board_of(moves: list[str], size: int = 9) -> go.Board:
    b = go.Board(size)
    for m in moves:
        b.push(b.parse_move(m))
    return b


@pytest.fixture
def tab(browser: Any, server: str) -> Iterator[Tab]:
    t = Tab(browser, server, viewport={"width": 1280, "height": 1000})
    yield t
    t.close()
    assert t.errors == [], f"console errors: {t.errors}"


# --------------------------------------------------------------------------- tests


def test_preview_capture_prisoners_and_an_illegal_point(tab: Tab) -> None:
    tab.open()
    tab.both_human()
    tab.new_game(9)
    pg = tab.page
    assert tab.stones() == {}
    assert pg.locator("#board-svg rect.pt").count() == 81
    assert pg.locator("#board-svg circle.star").count() == 5
    assert pg.inner_text("#prisoners-1") == "0" and pg.inner_text("#prisoners-2") == "0"

    # Hovering shows a translucent black stone on the point, and says it is playable.
    pg.hover(tab.point("E5"))
    pg.wait_for_selector('#board-svg circle.preview[data-vertex="E5"]')
    assert tab.preview() == ("E5", "true")
    assert "E5" in pg.inner_text("#point-note")
    assert pg.get_attribute("#board-svg circle.preview", "class") == "preview black"
    pg.hover(tab.point("C3"))
    pg.wait_for_selector('#board-svg circle.preview[data-vertex="C3"]')

    for vertex in KO:
        tab.click(vertex)
    board = board_of(KO)
    assert tab.stones() == expected_stones(board)
    assert "D5" not in tab.stones()
    # Black captured one white stone: the count beside the board says so.
    assert board.prisoners == (1, 0)
    assert pg.inner_text("#prisoners-1") == "1" and pg.inner_text("#prisoners-2") == "0"
    assert pg.get_attribute("#board-svg .last-move", "data-vertex") == "E5"
    assert pg.get_attribute("#board-svg .removed", "data-vertex") == "D5"
    assert pg.get_attribute("#board-svg .ko-mark", "data-vertex") == "D5"
    assert pg.inner_text("#moves li:last-child") == "B E5 ×1"

    # White may not retake at once: the preview is crossed out, with the reason...
    pg.hover(tab.point("D5"))
    pg.wait_for_selector('#board-svg circle.preview[data-vertex="D5"][data-legal="false"]')
    assert "ko" in pg.inner_text("#point-note")
    assert pg.get_attribute("#point-note", "data-kind") == "illegal"
    # ...and a click is refused by the server with the board's own message.
    pg.click(tab.point("D5"))
    with pytest.raises(go.IllegalMoveError) as e:
        board.parse_move("D5")
    pg.wait_for_function(
        "(text) => document.getElementById('message').textContent === text", arg=str(e.value)
    )
    assert "ko" in tab.message()
    tab.wait_phase("human", ply=len(KO))
    assert tab.stones() == expected_stones(board)

    # An occupied point: no preview stone, and a click says why.
    pg.hover(tab.point("E5"))
    pg.wait_for_function("() => document.getElementById('point-note').textContent.includes('E5')")
    assert tab.preview() is None
    assert "occupied" in pg.inner_text("#point-note")
    pg.click(tab.point("E5"))
    pg.wait_for_function(
        "() => document.getElementById('message').textContent.includes('occupied')"
    )

    # A ko threat and its answer, then the retake: white's capture is counted too.
    for vertex in ("J1", "J2", "D5"):
        tab.click(vertex)
    board = board_of([*KO, "J1", "J2", "D5"])
    assert tab.stones() == expected_stones(board)
    assert pg.inner_text("#prisoners-1") == "1" and pg.inner_text("#prisoners-2") == "1"
    ARTIFACTS.mkdir(exist_ok=True)
    pg.screenshot(path=str(ARTIFACTS / "go-9x9.png"), full_page=True)


def test_passes_counting_dead_stones_and_sgf(tab: Tab) -> None:
    tab.open()
    tab.both_human()
    tab.new_game(9, "japanese")
    pg = tab.page
    assert pg.input_value("#komi") == "6.5"
    # Black walls off the left side; white's stone on B4 is inside it.
    moves = [
        "D1", "F1", "D2", "F2", "D3", "F3", "D4", "F4", "D5", "F5",
        "D6", "F6", "D7", "F7", "D8", "F8", "D9", "F9", "B5", "B4", "C4",
    ]  # fmt: skip
    for vertex in moves:
        tab.click(vertex)
    pg.click("#pass")
    tab.wait_phase("human", ply=len(moves) + 1)
    assert "White passed" in pg.inner_text("#pass-note")  # black played C4 last
    pg.click("#pass")
    tab.wait_phase("counting", ply=len(moves) + 2)
    board = go.Board(9, "japanese")
    for m in [*moves, "pass", "pass"]:
        board.push(board.parse_move(m))
    proposed = go.estimate_dead(board, playouts=256)
    assert pg.is_visible("#count-panel") and pg.is_enabled("#done")

    def dead() -> set[str]:
        found: list[str] = pg.locator("#board-svg circle.stone.dead").evaluate_all(
            "cs => cs.map(c => c.dataset.vertex)"
        )
        return set(found)

    assert dead() == {go.vertex_name(p, 9) for p in proposed}
    # Toggle B4's group: the marks and the count follow.
    was_dead = "B4" in dead()
    pg.click(tab.point("B4"))
    pg.wait_for_function(
        "(was) => !!document.querySelector('#board-svg circle.stone.dead[data-vertex=\"B4\"]')"
        " !== was",
        arg=was_dead,
    )
    if was_dead:
        pg.click(tab.point("B4"))
        pg.wait_for_selector('#board-svg circle.stone.dead[data-vertex="B4"]')
    marked = {go.parse_vertex(v, 9) for v in dead()}
    score = board.score(marked)
    territory = {
        owner: set(
            pg.locator(f'#board-svg rect.territory[data-owner="{owner}"]').evaluate_all(
                "rs => rs.map(r => r.dataset.vertex)"
            )
        )
        for owner in ("black", "white")
    }
    assert territory["black"] == {go.vertex_name(p, 9) for p in score.black_territory}
    assert territory["white"] == {go.vertex_name(p, 9) for p in score.white_territory}
    assert "B4" in territory["black"]  # the dead stone's point is black's
    result = pg.inner_text("#count-result")
    assert score.result[0] in "BW" and ("Black" if score.result[0] == "B" else "White") in result
    assert f"({score.black:g} – {score.white:g})" in result

    # Done: the result is recorded and shown; the SGF download carries it.
    pg.click("#done")
    tab.wait_phase("over")
    assert pg.is_visible("#gameover") and "territory scoring" in pg.inner_text("#gameover")
    href = pg.get_attribute("#sgf-download", "href")
    assert href == f"/api/record/{tab.game_id()}"
    r = pg.request.get(tab.base + href)
    assert r.ok and r.headers["content-type"] == "application/x-go-sgf"
    sgf = r.text()
    assert f"RE[{score.result}]" in sgf and "RU[Japanese]" in sgf and "KM[6.5]" in sgf
    with pg.expect_download() as dl:
        pg.click("#sgf-download")
    assert dl.value.suggested_filename == f"banmen-go-{tab.game_id()}.sgf"

    # Upload it again from a file: a new game, the same stones, counted again.
    old = tab.game_id()
    pg.set_input_files(
        "#sgf-file",
        files=[{"name": "game.sgf", "mimeType": "application/x-go-sgf", "buffer": sgf.encode()}],
    )
    tab.wait_new_game(old)
    tab.wait_phase("counting", ply=len(moves) + 2)
    assert tab.stones() == expected_stones(board)
    assert "Loaded" in tab.message()

    # A broken SGF pasted in: the reader's message, and the game stays.
    game_id = tab.game_id()
    pg.fill("#sgf-text", "(;GM[1]SZ[9];B[ee];W[ee])")
    pg.click("#load-button")
    pg.wait_for_selector("#load-error:not([hidden])")
    with pytest.raises(go.SgfError) as e:
        go.read_sgf("(;GM[1]SZ[9];B[ee];W[ee])")
    assert pg.inner_text("#load-error") == str(e.value)
    assert tab.game_id() == game_id

    # Undo reopens play; the Resign button ends the game at once.
    pg.click("#undo")
    tab.wait_phase("human", ply=len(moves) + 1)
    pg.once("dialog", lambda d: d.accept())
    pg.click("#resign")
    tab.wait_phase("over", ply=len(moves) + 1)
    assert "White wins by resignation" in pg.inner_text("#gameover")


def test_phone_touch_drag_plays_on_release(browser: Any, server: str) -> None:
    phone = Tab(
        browser, server, viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True
    )
    try:
        phone.open()
        phone.both_human()
        phone.new_game(19)
        pg = phone.page
        assert pg.locator("#board-svg rect.pt").count() == 361
        assert pg.locator("#board-svg circle.star").count() == 9
        box = pg.locator("#board-svg").bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
        assert box["width"] >= PHONE["width"] * 0.9
        assert pg.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        for button in pg.locator("button:visible").all():
            b = button.bounding_box()
            assert b is not None and b["height"] >= 44, button.inner_text()

        def centre(vertex: str) -> tuple[float, float]:
            b = pg.locator(phone.point(vertex)).bounding_box()
            assert b is not None
            return b["x"] + b["width"] / 2, b["y"] + b["height"] / 2

        # Touch down on D4, drag to Q16: the preview follows the finger, nothing is played
        # until the finger lifts, and then the stone goes where the preview was.
        cdp = phone.context.new_cdp_session(pg)

        def touch(kind: str, x: float, y: float) -> None:
            points = [] if kind == "touchEnd" else [{"x": x, "y": y}]
            cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})

        pg.evaluate("document.getElementById('board').scrollIntoView()")
        x, y = centre("D4")
        touch("touchStart", x, y)
        pg.wait_for_selector('#board-svg circle.preview[data-vertex="D4"]')
        assert pg.locator("#board-svg line.crosshair").count() == 2
        tx, ty = centre("Q16")
        for k in range(1, 6):
            touch("touchMove", x + (tx - x) * k / 5, y + (ty - y) * k / 5)
        pg.wait_for_selector('#board-svg circle.preview[data-vertex="Q16"]')
        assert phone.ply() == 0 and phone.stones() == {}
        touch("touchEnd", tx, ty)
        phone.wait_phase("human", ply=1)
        assert phone.stones() == {"Q16": "black"}
        assert phone.preview() is None

        # A plain tap plays too.
        pg.tap(phone.point("D4"))
        phone.wait_phase("human", ply=2)
        assert phone.stones() == {"Q16": "black", "D4": "white"}
        ARTIFACTS.mkdir(exist_ok=True)
        pg.screenshot(path=str(ARTIFACTS / "go-19x19-phone.png"), full_page=True)
        assert (ARTIFACTS / "go-19x19-phone.png").stat().st_size > 10_000

        before = (phone.game_id(), phone.stones())
        pg.reload()
        phone.wait_phase("human", ply=2)
        assert (phone.game_id(), phone.stones()) == before
        assert phone.errors == []
    finally:
        phone.close()


def test_against_the_random_cpu_the_page_shows_its_move(tab: Tab) -> None:
    tab.open()
    for side, level in ((1, "human"), (2, "random")):
        tab.page.select_option(f"#level-{side}", level)
    tab.page.wait_for_function(
        "() => document.getElementById('ctl-2').textContent.includes('random')"
    )
    tab.new_game(13)
    tab.page.click(tab.point("K10"))
    tab.wait_phase("human", ply=2)
    assert len(tab.stones()) == 2
    assert "Last CPU move: White" in tab.page.inner_text("#think-head")
    assert tab.page.is_enabled("#undo")
    tab.page.click("#undo")
    tab.wait_phase("human", ply=0)
    assert tab.stones() == {}


def test_the_search_shows_playouts_win_rate_and_best_line(tab: Tab) -> None:
    tab.open()
    tab.both_human()
    tab.new_game(9)
    pg = tab.page
    pg.select_option("#level-1", "quick")  # black, to move: the search starts at once
    tab.wait_phase("human", ply=1)
    assert "Last CPU move: Black played" in pg.inner_text("#think-head")
    assert pg.inner_text("#think-playouts") not in ("–", "0")
    assert pg.inner_text("#think-winrate").endswith("% Black")
    assert len(pg.inner_text("#think-pv").split()) >= 1
    assert "win rate" in pg.inner_text("#verdict")
    assert len(tab.stones()) == 1


def test_a_handicap_game_from_the_form(tab: Tab) -> None:
    tab.open()
    tab.both_human()
    pg = tab.page
    old = tab.game_id()
    pg.check('input[name="size"][value="19"]')
    pg.select_option("#handicap", "4")
    pg.click("#new-button")
    tab.wait_new_game(old)
    tab.wait_phase("human", ply=0)
    board = go.Board(19, "chinese", 0.5)
    board.fixed_handicap(4)
    assert tab.stones() == expected_stones(board)  # the four star points, white to move
    assert pg.input_value("#komi") == "0.5" and pg.input_value("#handicap") == "4"
    tab.click("Q3")  # white moves first
    assert tab.stones()["Q3"] == "white"
    old = tab.game_id()
    pg.select_option("#handicap", "0")  # back to an even game: the rules' komi again
    pg.click("#new-button")
    tab.wait_new_game(old)
    tab.wait_phase("human", ply=0)
    assert tab.stones() == {} and pg.input_value("#komi") == "7.5"

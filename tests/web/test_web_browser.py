"""The Mattix page in a real browser: Debian's chromium driven by Playwright.

The server runs as a subprocess (``serve()`` on a free port, temporary database, one engine
worker): the ``server`` and ``browser`` fixtures are in conftest.py. Screenshots go to
``test-artifacts/`` (git-ignored). Without /usr/bin/chromium these tests skip, except on CI
(``CI`` set), where they fail.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import paths
import pytest
from browser_tab import BrowserTab

pytestmark = [pytest.mark.browser, pytest.mark.timeout(120)]

ARTIFACTS = paths.ARTIFACTS
PHONE = {"width": 390, "height": 844}


class Page(BrowserTab):
    """A browser tab on the Mattix page that records console errors."""

    path = "/mattix"

    def open(self, path: str = "/mattix") -> None:
        self.page.goto(self.base + path)
        self.wait_phase("human", "cpu", "paused", "over")

    def board(self, name: str) -> str:
        value: str = self.page.get_attribute("#board", f"data-{name}") or ""
        return value

    def wait_phase(self, *phases: str, min_ply: int = 0, size: int | None = None) -> None:
        self.page.wait_for_function(
            """([phases, minPly, size]) => {
                const b = document.getElementById("board");
                return phases.includes(b.dataset.phase) && Number(b.dataset.ply) >= minPly
                    && (size === null || Number(b.dataset.size) === size);
            }""",
            arg=[list(phases), min_ply, size],
        )

    def new_game(self, size: int, p1: str, p2: str, seed: str = "") -> None:
        """Start a game through the form, as a user would."""
        pg = self.page
        pg.check(f'input[name="size"][value="{size}"]')
        pg.fill("#seed", seed)
        pg.select_option("#level-1", p1)
        pg.select_option("#level-2", p2)
        old_id = self.game_id()
        pg.click("#new-button")
        pg.wait_for_function("(old) => location.hash.slice(1) !== old", arg=old_id)
        self.wait_phase("human", "over", size=size)

    def take_first(self) -> None:
        """Tap the first highlighted piece and wait for the human's next turn (or the end)."""
        ply = int(self.board("ply"))
        self.page.click("#board-svg g.piece.takeable >> nth=0")
        self.wait_phase("human", "over", min_ply=ply + 1)
        # after our move the CPU replies; a human phase with an odd ply change cannot last
        if self.board("phase") != "over":
            self.wait_phase("human", "over", min_ply=ply + 2)

    def cells(self) -> dict[str, str]:
        value: dict[str, str] = self.page.evaluate(
            """() => Object.fromEntries([...document.querySelectorAll("#board-svg g.piece")]
                   .map(g => [g.dataset.square, g.dataset.value]))"""
        )
        return value

    def scores(self) -> tuple[int, int]:
        return int(self.page.inner_text("#score-1")), int(self.page.inner_text("#score-2"))


@pytest.fixture
def tab(browser: Any, server: str) -> Iterator[Page]:
    t = Page(browser, server)
    yield t
    t.close()
    assert t.errors == [], f"console errors: {t.errors}"


def _saved(base: str, game_id: str) -> dict[str, Any]:
    r = httpx.get(f"{base}/api/saved/{game_id}", timeout=60)
    r.raise_for_status()
    state: dict[str, Any] = r.json()["state"]
    return state


# --------------------------------------------------------------------------- tests


def test_play_a_whole_4x4_game_against_the_cpu(tab: Page, server: str) -> None:
    tab.open()
    tab.new_game(4, "human", "normal")
    assert tab.scores() == (0, 0)
    assert tab.page.locator("#board-svg g.piece").count() == 15

    for _ in range(10):  # 15 pieces: at most 8 human moves
        if tab.board("phase") == "over":
            break
        assert tab.board("phase") == "human"
        assert tab.page.locator("#board-svg g.piece.takeable").count() >= 1
        tab.take_first()
    assert tab.board("phase") == "over"

    saved = _saved(server, tab.game_id())["board"]
    shown = tab.scores()
    assert list(shown) == saved["scores"]
    assert saved["result"] != "*"
    # the pieces listed under each player add up to the score shown
    for side in (1, 2):
        taken = tab.page.locator(f"#taken-{side} .mini").all_inner_texts()
        assert sum(int(v) for v in taken) == shown[side - 1]
    a, b = shown
    message = tab.page.inner_text("#gameover")
    assert tab.page.is_visible("#gameover")
    if a == b:
        assert "draw" in message
    else:
        winner = 1 if a > b else 2
        assert f"Player {winner}" in message and "wins" in message
        assert f"Player {3 - winner}" not in message
    # no highlighted pieces after the end
    assert tab.page.locator("#board-svg g.piece.takeable").count() == 0


def test_6x6_screenshots_desktop_and_phone(browser: Any, server: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    desktop = Page(browser, server, viewport={"width": 1280, "height": 900})
    try:
        desktop.open()
        desktop.new_game(6, "human", "normal", seed="2024")
        desktop.take_first()  # so the picture shows a last move and the CPU's reply
        game_id = desktop.game_id()
        assert desktop.page.locator("#board-svg g.piece.negative").count() > 0
        desktop.page.screenshot(path=str(ARTIFACTS / "mattix-6x6.png"), full_page=True)
        assert desktop.errors == []
    finally:
        desktop.close()

    phone = Page(
        browser,
        server,
        viewport=PHONE,
        device_scale_factor=2,
        is_mobile=True,
        has_touch=True,
    )
    try:
        phone.open(f"/mattix#{game_id}")
        phone.wait_phase("human", size=6, min_ply=2)
        pg = phone.page
        pg.screenshot(path=str(ARTIFACTS / "mattix-6x6-phone.png"), full_page=True)
        box = pg.locator("#board-svg").bounding_box()
        assert box is not None
        assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
        assert box["width"] >= PHONE["width"] * 0.8  # it scales to the width, not tiny
        assert pg.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        # touch targets: pieces that can be taken and the buttons are at least 44 px
        for piece in pg.locator("#board-svg g.piece.takeable").all():
            b = piece.bounding_box()
            assert b is not None and b["width"] >= 44 and b["height"] >= 44
        for button in pg.locator("button").all():
            b = button.bounding_box()
            assert b is not None and b["height"] >= 44, button.inner_text()
        assert phone.errors == []
    finally:
        phone.close()
    for name in ("mattix-6x6.png", "mattix-6x6-phone.png"):
        assert (ARTIFACTS / name).stat().st_size > 10_000


def test_reload_keeps_the_game(tab: Page, server: str) -> None:
    tab.open()
    tab.new_game(4, "human", "normal", seed="99")
    tab.take_first()
    game_id = tab.game_id()
    before = (tab.board("ply"), tab.scores(), tab.cells(), tab.page.inner_text("#moves"))
    assert int(before[0]) >= 1

    tab.page.reload()
    tab.wait_phase("human", "over", min_ply=int(before[0]))
    after = (tab.board("ply"), tab.scores(), tab.cells(), tab.page.inner_text("#moves"))
    assert tab.game_id() == game_id
    assert after == before
    saved = _saved(server, game_id)["board"]
    assert list(after[1]) == saved["scores"]
    assert json.dumps(saved["moves"])  # the record lists the moves played
    assert len(saved["moves"]) == int(after[0])

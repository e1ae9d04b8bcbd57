"""Game clocks on a game page in a real browser (issue 39): Debian's chromium driven by
Playwright, the server a subprocess (conftest.py's ``server`` and ``browser``).

On a phone-sized Mattix page: a new game on a 2-second clock shows both clocks, the
human's counts down, its flag falls (the server's referee ends the game on time and the
page says so), a malformed clock is the server's one line under the field, and a reload
keeps the clocks — of the finished game, and of a game whose clock runs. No duration is
asserted: the test waits for what the page shows.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import paths
import pytest
from browser_tab import BrowserTab

pytestmark = [pytest.mark.browser, pytest.mark.timeout(120)]

PHONE = {"width": 390, "height": 844}


class Page(BrowserTab):
    path = "/mattix"

    def wait_state(self) -> None:
        self.wait_phase("human", "cpu", "paused", "over")

    def clock(self, side: int) -> dict[str, str]:
        value: dict[str, str] = self.page.evaluate(
            """(side) => {
                const box = document.getElementById(`clock-${side}`);
                return { hidden: String(box.hidden), ...box.dataset,
                         time: box.querySelector(".clock-time").textContent,
                         note: box.querySelector(".clock-note").textContent };
            }""",
            side,
        )
        return value

    def new_game(self, clock: str, custom: bool = False) -> None:
        """A game through the form: Human against CPU normal, on ``clock`` (a preset's
        value, or typed with ``custom``)."""
        pg = self.page
        pg.select_option("#level-1", "human")
        pg.select_option("#level-2", "normal")
        if custom:
            pg.select_option("#clock-preset", "custom")
            pg.fill("#clock-text", clock)
        else:
            pg.select_option("#clock-preset", clock)
        old = self.game_id()
        pg.click("#new-button")
        self.wait_new_game(old)
        self.wait_phase("human", ply=0)


@pytest.fixture
def tab(browser: Any, server: str) -> Iterator[Page]:
    t = Page(browser, server, viewport=PHONE, is_mobile=True, has_touch=True)
    t.goto()
    t.wait_state()
    yield t
    t.close()


def _seconds(text: str) -> float:
    """A clock's text (9.3, 4:07, 1:05:09) in seconds."""
    total = 0.0
    for part in text.split(":"):
        total = total * 60 + float(part)
    return total


def test_a_game_on_a_clock_counts_down_the_flag_falls_and_a_reload_keeps_it(
    tab: Page,
) -> None:
    pg = tab.page
    assert tab.clock(1)["hidden"] == "true"  # the first game has no clock
    tab.new_game("2", custom=True)
    one, two = tab.clock(1), tab.clock(2)
    assert one["hidden"] == two["hidden"] == "false"
    assert one["running"] == "true" and two["running"] == "false"
    assert two["time"] == "2.0"
    # the human's clock counts down: a lower reading follows
    first = _seconds(one["time"])
    pg.wait_for_function(
        """(first) => {
            const t = document.querySelector("#clock-1 .clock-time").textContent;
            return Number(t) < first;
        }""",
        arg=first,
    )
    # its flag falls: the server ends the game on time, and the page says so
    pg.wait_for_selector("#gameover:not([hidden])")
    assert "on time" in pg.inner_text("#gameover")
    assert "flag fell" in pg.inner_text("#status")
    one = tab.clock(1)
    assert one["flagged"] == "true" and one["time"] == "0.0" and one["note"] == "flag fell"
    assert tab.clock(2)["time"] == "2.0"
    pg.screenshot(path=str(paths.ARTIFACTS / "clocks-flag-phone.png"), full_page=True)

    # a malformed clock: the server's one line under the field, no new game
    game = tab.game_id()
    pg.fill("#clock-text", "2+")
    pg.click("#new-button")
    pg.wait_for_selector("#clock-error:not([hidden])")
    assert "expected inf" in pg.inner_text("#clock-error")
    assert tab.game_id() == game

    # a reload keeps the clocks: the fallen flag, the other side's time, the form's clock
    pg.reload()
    tab.wait_phase("over")
    assert tab.game_id() == game
    assert tab.clock(1)["flagged"] == "true" and tab.clock(2)["time"] == "2.0"
    assert "on time" in pg.inner_text("#gameover")
    assert pg.input_value("#clock-preset") == "custom"
    assert pg.input_value("#clock-text") == "2"

    # and a running clock goes on from where it was
    tab.new_game("60")
    pg.wait_for_function(
        "() => document.querySelector('#clock-1 .clock-time').textContent !== '1:00'"
    )
    pg.reload()
    tab.wait_phase("human", ply=0)
    one = tab.clock(1)
    assert one["hidden"] == "false" and one["running"] == "true"
    assert 0 < _seconds(one["time"]) < 60
    assert pg.input_value("#clock-preset") == "60"
    assert not tab.errors, tab.errors

"""The bitboard visualiser in a real browser: open a walkthrough from a link, step through it
with the buttons and the arrow keys (the counter, the hex value and the explanation follow
the server's JSON), load the Othello move generator from the start position, a bad board
string, a shared step, and the phone layout.

Debian's chromium driven by Playwright; the ``server`` and ``browser`` fixtures are in
conftest.py (a server subprocess per module; without /usr/bin/chromium these tests skip,
except on CI). The step on screen is read off the DOM: ``#view[data-name][data-index]``
(the step from 0), ``#counter``, ``#hex``, ``#explanation``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit
from urllib.request import urlopen

import numpy as np
import paths
import pytest
from browser_tab import BrowserTab

from banmen.games.othello import BLACK, Board
from banmen.games.othello.kernels import moves

pytestmark = [pytest.mark.browser, pytest.mark.timeout(180)]

ARTIFACTS = paths.ARTIFACTS
PHONE = {"width": 390, "height": 844}
START = Board().to_string()


class Tab(BrowserTab):
    """A browser tab on the visualiser."""

    path = "/viz"

    def open(self, **query: Any) -> None:
        """Open the page with ``query`` in its address and wait for the step view."""
        self.goto(f"/viz?{urlencode(query)}" if query else "/viz")
        self.wait_ready()

    def wait_ready(self, name: str | None = None, index: int | None = None) -> None:
        """Wait until the view shows a walkthrough (``name``, at step ``index`` from 0)."""
        self.page.wait_for_function(
            """([name, index]) => {
                const v = document.getElementById("view");
                return v.dataset.phase === "ready"
                    && (name === null || v.dataset.name === name)
                    && (index === null || Number(v.dataset.index) === index);
            }""",
            arg=[name, index],
        )

    def index(self) -> int:
        return int(self.page.get_attribute("#view", "data-index") or -1)

    def shown(self) -> dict[str, str]:
        """The step on screen, as the page shows it."""
        pg = self.page
        return {
            "counter": pg.inner_text("#counter"),
            "label": pg.inner_text("#label"),
            "hex": pg.inner_text("#hex"),
            "dec": pg.inner_text("#dec"),
            "explanation": pg.inner_text("#explanation"),
        }

    def check_step(self, data: dict[str, Any], i: int) -> None:
        """Step ``i`` (from 0) of ``data`` is on screen: counter, texts, board and address."""
        self.wait_ready(data["name"], i)
        step = data["steps"][i]
        shown = self.shown()
        assert shown["counter"] == f"{i + 1} / {len(data['steps'])}"
        assert shown["hex"] == step["hex"]
        assert shown["dec"] == str(int(step["hex"], 16))
        assert shown["label"] == step["label"].strip()
        assert shown["explanation"] == step["explanation"].strip()
        assert self.page.locator("#step-svg svg").count() == 1
        assert self.url_query().get("step") == str(i + 1)

    def url_query(self) -> dict[str, str]:
        return {k: v[-1] for k, v in parse_qs(urlsplit(self.page.url).query).items()}


@pytest.fixture
def tab(browser: Any, server: str) -> Iterator[Tab]:
    t = Tab(browser, server, viewport={"width": 1280, "height": 1000})
    yield t
    t.close()
    assert t.errors == [], f"console errors: {t.errors}"


def api(server: str, **params: Any) -> dict[str, Any]:
    """The walkthrough as the API gives it."""
    with urlopen(f"{server}/api/viz/walkthrough?{urlencode(params)}", timeout=30) as r:
        data: dict[str, Any] = json.load(r)
    assert data["ok"] is True, data
    return data


def legal_mask(board: str) -> int:
    b = Board.from_string(board)
    mover, other = (b.black, b.white) if b.turn == BLACK else (b.white, b.black)
    return int(moves(np.uint64(mover), np.uint64(other)))


# --------------------------------------------------------------------------- tests


def test_step_through_a_walkthrough(tab: Tab, server: str) -> None:
    data = api(server, name="line", kind="column", n=2)
    steps = data["steps"]
    assert len(steps) >= 3
    tab.open(name="line", kind="column", n=2)
    pg = tab.page
    tab.check_step(data, 0)
    assert tab.url_query() == {"name": "line", "kind": "column", "n": "2", "step": "1"}
    assert pg.input_value("#name") == "line" and pg.input_value("#kind") == "column"
    assert pg.is_disabled("#prev") and pg.is_disabled("#first")

    # Next, a few times: the counter, the hex value and the explanation follow.
    seen = [tab.shown()]
    last = min(3, len(steps) - 1)
    for i in range(1, last + 1):
        pg.click("#next")
        tab.check_step(data, i)
        seen.append(tab.shown())
    assert len({s["counter"] for s in seen}) == len(seen)
    assert len({s["explanation"] for s in seen}) > 1
    assert len({s["hex"] for s in seen}) > 1

    pg.click("#prev")
    tab.check_step(data, last - 1)
    pg.keyboard.press("ArrowRight")
    tab.check_step(data, last)
    pg.keyboard.press("ArrowLeft")
    pg.keyboard.press("ArrowLeft")
    tab.check_step(data, last - 2)
    pg.click("#last")
    tab.check_step(data, len(steps) - 1)
    assert pg.is_disabled("#next") and pg.is_disabled("#last")
    pg.keyboard.press("ArrowRight")  # nothing past the end
    tab.check_step(data, len(steps) - 1)
    pg.keyboard.press("Home")
    tab.check_step(data, 0)

    # The Othello move generator from the start position: it ends with the mask of the legal
    # moves, then their count.
    pg.select_option("#name", "moves")
    assert pg.is_visible("#board") and not pg.is_visible("#kind")
    pg.fill("#board", "")
    pg.click('button[data-preset="start"]')
    assert pg.input_value("#board") == START
    pg.click("#load-button")
    moves_data = api(server, name="moves", board=START)
    tab.check_step(moves_data, 0)
    n_steps = len(moves_data["steps"])
    pg.click("#last")
    tab.check_step(moves_data, n_steps - 1)
    mask = legal_mask(START)
    assert mask == 0x0000102004080000  # d3, c4, f5, e6 (bit 8 * row + col, a1 = bit 0)
    assert int(tab.shown()["hex"], 16) == mask.bit_count() == 4
    pg.keyboard.press("ArrowLeft")
    tab.check_step(moves_data, n_steps - 2)
    assert int(tab.shown()["hex"], 16) == mask
    assert tab.shown()["hex"] == "0x0000102004080000"

    # A bad board string: an error line, and the walkthrough on screen stays usable.
    shown_before = tab.shown()
    pg.fill("#board", START[:-1] + "Z")
    pg.click("#load-button")
    pg.wait_for_selector("#load-error:not([hidden])")
    error = pg.inner_text("#load-error")
    assert error and "\n" not in error.strip() and "Traceback" not in error
    tab.wait_ready("moves", n_steps - 2)
    assert tab.shown() == shown_before
    pg.click("#first")
    tab.check_step(moves_data, 0)
    pg.click("#next")
    tab.check_step(moves_data, 1)
    assert tab.url_query()["name"] == "moves"

    # A good load clears the error line.
    pg.click('button[data-preset="mid"]')
    pg.select_option("#name", "flips")
    pg.click("#load-button")
    flips_data = api(server, name="flips", board=pg.input_value("#board"), move="c5")
    tab.check_step(flips_data, 0)
    assert pg.is_hidden("#load-error")


def test_a_shared_step_opens_at_that_step(tab: Tab, server: str) -> None:
    data = api(server, name="line", kind="diagonal", n=3)
    step = min(4, len(data["steps"]))
    tab.open(name="line", kind="diagonal", n=3, step=step)
    tab.check_step(data, step - 1)
    assert tab.page.input_value("#kind") == "diagonal" and tab.page.input_value("#n") == "3"


def test_a_bad_address_shows_an_error_line(tab: Tab) -> None:
    tab.goto("/viz?name=line&kind=spiral&n=1")
    tab.page.wait_for_selector('#view[data-phase="error"]', state="attached")
    assert tab.page.is_visible("#load-error")
    assert "spiral" in tab.page.inner_text("#load-error")
    # The form still loads a walkthrough.
    tab.page.select_option("#kind", "row")
    tab.page.click("#load-button")
    tab.wait_ready("line", 0)
    assert tab.page.is_hidden("#load-error")


def test_a_bad_number_gets_a_message_and_load_works_once_it_is_fixed(tab: Tab) -> None:
    """The browser's own form check used to stop Load without a word (the console said "An
    invalid form control with name='' is not focusable" once the field was hidden)."""
    tab.open(name="line", kind="row", n=2)
    pg = tab.page
    tab.wait_ready("line", 0)
    before = tab.shown()

    pg.fill("#n", "9")
    pg.click("#load-button")
    pg.wait_for_selector("#load-error:not([hidden])")
    error = pg.inner_text("#load-error")
    assert error == "Number: a row is numbered 0 to 7, got 9."
    assert pg.get_attribute("#n", "aria-invalid") == "true"
    assert tab.shown() == before and tab.url_query()["n"] == "2"  # the old one stays

    # fixed: Load works again and the message goes
    pg.fill("#n", "3")
    pg.click("#load-button")
    pg.wait_for_function("() => new URLSearchParams(location.search).get('n') === '3'")
    tab.wait_ready("line", 0)
    assert pg.is_hidden("#load-error")
    assert pg.get_attribute("#n", "aria-invalid") is None
    assert tab.shown() != before

    # a number that is wrong for the kind picked next, and a field hidden by another
    # walkthrough: neither stops a load that does not use it
    pg.select_option("#kind", "diagonal")
    pg.fill("#n", "-7")
    pg.select_option("#kind", "row")
    pg.click("#load-button")
    pg.wait_for_function(
        "() => document.getElementById('load-error').textContent.includes('got -7')"
    )
    pg.select_option("#name", "moves")
    assert pg.is_hidden("#n")
    pg.click("#load-button")
    tab.wait_ready("moves", 0)
    assert pg.is_hidden("#load-error")


def test_the_phone_layout(browser: Any, server: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    phone = Tab(
        browser, server, viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True
    )
    try:
        phone.open(name="flips", board=START, move="d3", step=2)
        pg = phone.page
        box = pg.locator("#step-svg svg").bounding_box()
        assert box is not None
        assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
        assert box["width"] >= PHONE["width"] * 0.85  # the board takes the width
        assert pg.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        for button in pg.locator("button:visible").all():
            b = button.bounding_box()
            assert b is not None and b["height"] >= 44, button.inner_text()
        pg.tap("#next")
        phone.wait_ready("flips", 2)
        pg.screenshot(path=str(ARTIFACTS / "viz-phone.png"), full_page=True)
        assert phone.errors == []
    finally:
        phone.close()


def test_desktop_screenshot(tab: Tab) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    tab.open(name="moves", board=START, step=3)
    tab.page.screenshot(path=str(ARTIFACTS / "viz.png"), full_page=True)

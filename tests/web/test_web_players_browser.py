"""A user's own player on the Othello page, in a real browser: ``banmen serve --player
othello:greedy=python:examples/python/greedy_othello.py:Greedy`` puts it in the CPU menu,
and picked there it answers a click with the move the example's rule gives (worked out
here from :class:`banmen.games.othello.Board`)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import paths
import pytest
from browser_tab import BrowserTab
from conftest import served

from banmen.games.othello import Board

pytestmark = [pytest.mark.browser, pytest.mark.timeout(180)]

GREEDY = f"python:{paths.ROOT / 'examples/python/greedy_othello.py'}:Greedy"


@pytest.fixture(scope="module")
def players_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    tmp = tmp_path_factory.mktemp("players-browser")
    with served(tmp, players={"othello": {"greedy": GREEDY}}) as (port, _):
        yield f"http://127.0.0.1:{port}"


@pytest.fixture
def tab(browser: Any, players_server: str) -> Iterator[BrowserTab]:
    t = BrowserTab(browser, players_server, viewport={"width": 1280, "height": 1000})
    t.path = "/othello"
    yield t
    t.close()
    assert t.errors == [], f"console errors: {t.errors}"


def test_the_users_player_is_a_cpu_choice_and_answers(tab: BrowserTab) -> None:
    pg = tab.page
    tab.goto()
    tab.wait_phase("human", "cpu", "paused", "over")
    tab.both_human()
    options = pg.locator("#level-2 option").evaluate_all("os => os.map(o => o.value)")
    assert "greedy" in options
    old = tab.game_id()
    pg.click("#new-button")
    tab.wait_new_game(old)
    tab.wait_phase("human", ply=0)
    pg.select_option("#level-2", "greedy")
    board = Board()
    move = board.move_name(board.legal_moves[-1])
    pg.click(f'#board-svg g.move[data-square="{move}"]')
    board.push_name(move)
    counts = board.flip_counts()
    expected = board.move_name(max(counts, key=lambda sq: counts[sq]))
    tab.wait_phase("human", ply=2)
    assert pg.get_attribute("#board-svg .last-move", "data-square") == expected

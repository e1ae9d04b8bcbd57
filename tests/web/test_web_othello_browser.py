"""The Othello page in a real browser: the flip-count hints, and a click that turns discs.

Debian's chromium driven by Playwright; the ``server`` and ``browser`` fixtures are in
conftest.py (a server subprocess per module; without /usr/bin/chromium these tests skip,
except on CI). Both sides are human, so every position on the page is one the test chose.
What the page shows is read off the DOM (see othello-board.js) and compared with
:class:`banmen.games.othello.Board`, never with hard-coded numbers.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from browser_tab import BrowserTab

from banmen.games.othello import BLACK, PASS, WHITE, Board, square_name

pytestmark = [pytest.mark.browser, pytest.mark.timeout(120)]

#: Twelve moves in, black to move: black's moves turn different numbers of discs.
MIDGAME = "f5d6c3d3c4f4f6f3e6e7d7c5"
COLORS = {BLACK: "black", WHITE: "white"}
ALL_SQUARES = [square_name(sq) for sq in range(64)]


class Tab(BrowserTab):
    """A browser tab on the Othello page that records console errors."""

    path = "/othello"

    def open(self) -> None:
        self.page.goto(self.base + "/othello")
        self.wait_phase("human", "cpu", "paused", "over")

    def new_game(self) -> None:
        old = self.game_id()
        self.page.click("#new-button")
        self.wait_new_game(old)
        self.wait_phase("human", ply=0)

    def set_hints(self, on: bool) -> None:
        """Tick or untick the flip-count box and wait until the board is redrawn."""
        if on:
            self.page.check("#hints")
        else:
            self.page.uncheck("#hints")
        self.page.wait_for_selector(f'#board[data-hints="{str(on).lower()}"]', state="attached")

    def squares(self) -> dict[str, str]:
        """All 64 squares: "black", "white" or "" (empty), from the discs drawn."""
        drawn: list[list[str]] = self.page.evaluate(
            """() => [...document.querySelectorAll("#board-svg circle.disc")]
                   .map(c => [c.dataset.square, c.dataset.color])"""
        )
        names = [name for name, _ in drawn]
        assert len(names) == len(set(names)), f"two discs on one square: {sorted(names)}"
        assert set(names) <= set(ALL_SQUARES), names
        shown = dict.fromkeys(ALL_SQUARES, "")
        shown.update({name: color for name, color in drawn})
        return shown

    def hints(self) -> dict[str, int]:
        """Square name -> the flip count written on it."""
        value: dict[str, str] = self.page.evaluate(
            """() => Object.fromEntries([...document.querySelectorAll("#board-svg text.hint")]
                   .map(t => [t.dataset.square, t.textContent]))"""
        )
        return {name: int(text) for name, text in value.items()}

    def moves(self) -> dict[str, int]:
        """The legal-move markers: square name -> their data-flips."""
        value: dict[str, str] = self.page.evaluate(
            """() => Object.fromEntries([...document.querySelectorAll("#board-svg g.move")]
                   .map(g => [g.dataset.square, g.dataset.flips]))"""
        )
        return {name: int(n) for name, n in value.items()}


@pytest.fixture
def tab(browser: Any, server: str) -> Iterator[Tab]:
    t = Tab(browser, server, viewport={"width": 1280, "height": 1000})
    yield t
    t.close()
    assert t.errors == [], f"console errors: {t.errors}"


def expected_squares(board: Board) -> dict[str, str]:
    return {
        square_name(sq): "black"
        if board.black >> sq & 1
        else "white"
        if board.white >> sq & 1
        else ""
        for sq in range(64)
    }


def expected_hints(board: Board) -> dict[str, int]:
    """The flip count of each legal move, by square name; checks that ``flip_counts`` covers
    exactly the legal moves."""
    counts = board.flip_counts()
    legal = [sq for sq in board.legal_moves if sq != PASS]
    assert sorted(counts) == legal
    return {square_name(sq): n for sq, n in counts.items()}


# --------------------------------------------------------------------------- tests


def test_the_flip_count_hints_toggle_and_match_the_board(tab: Tab) -> None:
    tab.open()
    tab.both_human()
    tab.new_game()
    pg = tab.page
    board = Board()
    want = expected_hints(board)
    assert tab.squares() == expected_squares(board)

    # Off by default: the legal squares are marked, but no numbers are written.
    assert not pg.is_checked("#hints")
    assert pg.get_attribute("#board", "data-hints") == "false"
    assert tab.hints() == {}
    assert tab.moves() == want

    tab.set_hints(True)
    assert tab.hints() == want
    assert tab.moves() == want
    assert pg.locator("#board-svg text.hint").first.is_visible()
    assert pg.get_attribute("#board-svg", "data-mover") == "black"

    tab.set_hints(False)
    assert tab.hints() == {}
    assert tab.moves() == want

    # The choice is remembered: a reload of the same game shows the numbers again.
    tab.set_hints(True)
    game_id = tab.game_id()
    pg.reload()
    tab.wait_phase("human", ply=0)
    assert tab.game_id() == game_id
    assert pg.is_checked("#hints")
    assert tab.hints() == want


def test_a_move_turns_the_discs_and_the_hints_follow(tab: Tab) -> None:
    tab.open()
    tab.both_human()
    tab.set_hints(True)
    tab.load(MIDGAME, ply=12)
    pg = tab.page
    board = Board.from_transcript(MIDGAME)
    assert board.turn == BLACK
    assert tab.squares() == expected_squares(board)
    before = expected_squares(board)
    want = expected_hints(board)
    assert len(set(want.values())) > 1  # the position tells the counts apart
    assert tab.hints() == want
    assert tab.moves() == want
    assert pg.get_attribute("#board-svg .last-move", "data-square") == "c5"

    # The move that turns the most discs (the first of them in square order).
    move = max(want, key=lambda name: want[name])
    sq = board.parse_move(move)
    flipped = {square_name(s) for s in range(64) if board.flips(sq) >> s & 1}
    assert len(flipped) == want[move] >= 2
    pg.click(f'#board-svg g.move[data-square="{move}"]')
    tab.wait_phase("human", ply=13)
    board.push(sq)

    # Every square: the new disc, the turned ones, and nothing else changed.
    after = tab.squares()
    assert after == expected_squares(board)
    changed = {name for name in ALL_SQUARES if after[name] != before[name]}
    assert changed == flipped | {move}
    assert before[move] == "" and after[move] == "black"
    assert all(before[n] == "white" and after[n] == "black" for n in flipped)
    assert sorted(
        pg.locator("#board-svg circle.disc.flipped").evaluate_all(
            "cs => cs.map(c => c.dataset.square)"
        )
    ) == sorted(flipped)

    # The disc counts, the last-move mark, the record.
    black, white = board.discs()
    assert (pg.inner_text("#discs-1"), pg.inner_text("#discs-2")) == (str(black), str(white))
    assert pg.locator("#board-svg .last-move").count() == 1
    assert pg.get_attribute("#board-svg .last-move", "data-square") == move
    assert pg.locator("#board-svg .last-dot").count() == 1
    assert pg.inner_text("#transcript") == board.transcript()
    assert pg.inner_text("#moves li:last-child") == f"B {move} ({len(flipped)})"

    # White to move now, and the hints are white's.
    assert board.turn == WHITE
    assert pg.get_attribute("#board-svg", "data-mover") == "white"
    assert "White to move" in pg.inner_text("#status")
    assert "to-move" in (pg.get_attribute("#player-2", "class") or "")
    want = expected_hints(board)
    assert tab.hints() == want
    assert tab.moves() == want

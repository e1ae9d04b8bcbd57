"""A Playwright tab for the browser tests: console errors recorded, the game id read from
the URL. Each page's tests subclass it with that page's own helpers."""

from __future__ import annotations

from typing import Any


class BrowserTab:
    """A browser tab (its own context) that records console and page errors."""

    #: the page's path, e.g. "/othello"
    path = "/"

    def __init__(self, browser: Any, base: str, **context_options: Any) -> None:
        self.context = browser.new_context(**context_options)
        self.page = self.context.new_page()
        self.page.set_default_timeout(20_000)
        self.base = base
        self.errors: list[str] = []
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))

    def goto(self, path: str | None = None) -> None:
        self.page.goto(self.base + (path if path is not None else self.path))

    def game_id(self) -> str:
        """The game's id, kept in the URL's fragment."""
        value: str = self.page.evaluate("location.hash.slice(1)")
        return value

    def wait_new_game(self, old: str) -> None:
        """Wait until the URL names a game other than ``old``."""
        self.page.wait_for_function("(old) => location.hash.slice(1) !== old", arg=old)

    def ply(self) -> int:
        """The number of moves on the page's board (``#board[data-ply]``)."""
        return int(self.page.get_attribute("#board", "data-ply") or 0)

    def wait_phase(self, *phases: str, ply: int | None = None) -> None:
        """Wait until the board's ``data-phase`` is one of ``phases`` (and its ply is
        ``ply``, if given)."""
        self.page.wait_for_function(
            """([phases, ply]) => {
                const b = document.getElementById("board");
                return phases.includes(b.dataset.phase)
                    && (ply === null || Number(b.dataset.ply) === ply);
            }""",
            arg=[list(phases), ply],
        )

    def both_human(self) -> None:
        """Make both sides human through the player menus, as a user would."""
        for side in (1, 2):
            if self.page.input_value(f"#level-{side}") != "human":
                self.page.select_option(f"#level-{side}", "human")
        self.page.wait_for_function(
            "() => ['ctl-1', 'ctl-2'].every(id => document.getElementById(id).textContent"
            " === 'Human')"
        )

    def load(self, text: str, ply: int) -> None:
        """Paste ``text`` into the load box and wait for the new game, ``ply`` moves in."""
        old = self.game_id()
        self.page.fill("#load-text", text)
        self.page.click("#load-button")
        self.wait_new_game(old)
        self.wait_phase("human", ply=ply)

    def close(self) -> None:
        self.context.close()

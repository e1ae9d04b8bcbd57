"""The games the web app offers. The home page, the game pages and the game sockets
(``/ws/<name>``) are built from this list, so a new game is one more entry plus its page (its
blocks in ``static/pages/<name>.html`` and ``static/js/<name>.js``, its parts in
:data:`banmen.web.pages.GAME_PARTS`) and its session adapter (:mod:`banmen.web.games`)."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["GameEntry", "CATALOG"]


@dataclass(frozen=True)
class GameEntry:
    name: str  # also the WebSocket path: /ws/<name>
    title: str
    path: str  # the page's URL
    summary: str

    def to_dict(self) -> dict[str, str]:
        return {"name": self.name, "title": self.title, "path": self.path, "summary": self.summary}


CATALOG: tuple[GameEntry, ...] = (
    GameEntry(
        name="mattix",
        title="Mattix",
        path="/mattix",
        summary=(
            "Gakken's number-taking game on a 4×4 or 6×6 board: player 1 takes from the "
            "chip's row, player 2 from its column. Play the CPU, or watch two CPUs."
        ),
    ),
    GameEntry(
        name="othello",
        title="Othello",
        path="/othello",
        summary=(
            "The classic 8×8 disc-flipping game. Play the CPU with either colour, watch two "
            "CPUs, solve endgames exactly, or paste a transcript or position to study."
        ),
    ),
    GameEntry(
        name="go",
        title="Go",
        path="/go",
        summary=(
            "Go on 9×9, 13×13 or 19×19 under Chinese, Japanese, AGA, New Zealand or "
            "Tromp-Taylor rules: play the Monte-Carlo CPU or a friend on one screen, watch "
            "two CPUs, count the end with dead stones marked, save and load SGF."
        ),
    ),
)

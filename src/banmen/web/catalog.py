"""The games the web app offers. The home page and the page routes are built from this
list, so a new game (Othello, Go, tsume-shogi) is one more entry plus its page and session."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["GameEntry", "CATALOG"]


@dataclass(frozen=True)
class GameEntry:
    name: str  # also the WebSocket path: /ws/<name>
    title: str
    path: str  # the page's URL
    page: str  # its HTML file under static/
    summary: str

    def to_dict(self) -> dict[str, str]:
        return {"name": self.name, "title": self.title, "path": self.path, "summary": self.summary}


CATALOG: tuple[GameEntry, ...] = (
    GameEntry(
        name="mattix",
        title="Mattix",
        path="/mattix",
        page="mattix.html",
        summary=(
            "Gakken's number-taking game on a 4×4 or 6×6 board: player 1 takes from the "
            "chip's row, player 2 from its column. Play the CPU, or watch two CPUs."
        ),
    ),
)

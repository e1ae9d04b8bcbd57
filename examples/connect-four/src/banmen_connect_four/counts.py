"""Published counts of Connect Four's game tree, to check the rules against
(``data/perft.tsv``: perft and OEIS A212693, with their sources)."""

from __future__ import annotations

from importlib.resources import files
from typing import NamedTuple

__all__ = ["Count", "published_counts", "SOURCES"]

#: where the figures of ``data/perft.tsv`` were published
SOURCES = {
    "perft": "https://github.com/ultrasuperpingu/kudchuet/blob/"
    "388d797cff7964e5722539e519cd104519611cb8/games/connect4/src/game.rs",
    "positions": "https://oeis.org/A212693",
}


class Count(NamedTuple):
    """From the empty board: move sequences of ``depth`` plies (``perft``) and distinct
    positions after ``depth`` plies (``positions``)."""

    depth: int
    perft: int
    positions: int


def published_counts() -> list[Count]:
    """The rows of ``data/perft.tsv``, by depth.

    >>> published_counts()[9]
    Count(depth=9, perft=39394572, positions=558186)
    """
    text = files("banmen_connect_four").joinpath("data", "perft.tsv").read_text("utf-8")
    rows = [line.split("\t") for line in text.splitlines() if line and not line.startswith("#")]
    return [Count(int(d), int(p), int(n)) for d, p, n in rows[1:]]

"""A long, legal Go record for the tests of loads (issue 36, item 7):
``tests/data/go/long-captures-47k.sgf``, made by ``tools/web_flood_probe.py --write-sgf``
(``long_sgf``): black fills the 19x19 board but one point while white passes, white plays
there and takes every black stone, and again around another point — 9,380 moves in 47 KB.
Each capture changes the whole board, so replaying it takes seconds."""

from __future__ import annotations

from functools import cache

import paths

LONG_SGF = paths.DATA / "go" / "long-captures-47k.sgf"
#: the moves of its main line
LONG_MOVES = 9380


@cache
def long_record() -> str:
    return LONG_SGF.read_text().strip()


def first_moves(n: int) -> str:
    """The record cut after its first ``n`` moves (a legal record too)."""
    root, *moves = long_record()[1:-1].split(";")[1:]  # "(;root;B[..];W[];...)"
    return "(;" + ";".join([root, *moves[:n]]) + ")"

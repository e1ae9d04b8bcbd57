"""The bitboard visualiser: see how bit tricks move bits.

Operations run on :class:`Tracked` values, whose bits remember the squares they came
from; :func:`walkthrough` runs a named sequence of such operations (a line gathered into
a byte and put back, Othello move generation, the flips of a move, a SWAR popcount) next
to the same integer arithmetic, and every step can be drawn as SVG or stepped through in
one HTML file. See docs/VIZ.md.

>>> w = walkthrough("line", kind="column", n=2)
>>> w.steps[-1].hex == f"0x{0x0404040404040404:016x}"
True
"""

from banmen.viz.html import walkthrough_html
from banmen.viz.svg import LINE_KINDS, Colouring, board_svg, strip_svg
from banmen.viz.tracked import FULL, Source, Term, Tracked, VizError, square_name
from banmen.viz.walkthroughs import (
    WALKTHROUGHS,
    Step,
    Walkthrough,
    walkthrough,
    walkthrough_svg,
)

__all__ = [
    "FULL",
    "LINE_KINDS",
    "WALKTHROUGHS",
    "Colouring",
    "Source",
    "Step",
    "Term",
    "Tracked",
    "VizError",
    "Walkthrough",
    "board_svg",
    "square_name",
    "strip_svg",
    "walkthrough",
    "walkthrough_html",
    "walkthrough_svg",
]

"""SVG pictures of tracked bitboards, built with :mod:`xml.etree`.

The board is drawn as banmen stores it: bit ``8 * row + col``, row 0 (rank 1) at the top,
file a at the left. A set bit is filled with the colour of its source square (a hue per
line, a shade per place in the line, see :class:`Colouring`), striped when it has several
sources; a set bit with no source square (from a constant, ``~`` or a carry of such bits)
is dark grey; a 0 bit is blank. A red border marks a collision (two or more terms landed
on the bit), a dashed red border a carry or borrow that landed there. Bits pushed below
bit 0 are drawn above the board and bits pushed past bit 63 below it, where they would be
if the board went on: a left shift moves bits down the board (south), so bit 64 is the
square below a8 (the bottom-left corner) — one row past h8 in reading order.
Every cell has a ``<title>`` (hover text) naming its bit, value, sources and terms.
"""

from __future__ import annotations

import colorsys
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypedDict, Unpack

from banmen.viz.tracked import Cell, Source, Tracked, VizError, square_name

__all__ = ["Colouring", "LINE_KINDS", "board_svg", "board_element", "strip_svg", "svg_document"]

LINE_KINDS = ("row", "column", "diagonal", "anti-diagonal")
RAY_NAMES = (
    "east",
    "south",
    "south-east",
    "south-west",
    "west",
    "north",
    "north-west",
    "north-east",
)
RAY_STEPS = ((0, 1), (1, 0), (1, 1), (1, -1), (0, -1), (-1, 0), (-1, -1), (-1, 1))

CELL = 30
LEFT = 34
RIGHT = 6
TITLE_H = 20
FILES_H = 13
CAPTION_H = 13
GAP = 5
FOOT_H = 18
FONT = "ui-monospace, Menlo, Consolas, monospace"
ZERO_FILL = "#f5f3ee"
ZERO_STROKE = "#d9d4ca"
ANON_FILL = "#5b6068"
NEUTRAL = "#c9c1b0"  # a source square on no line of the colouring
RED = "#d7191c"
MAX_STRIPES = 4
MAX_TERMS_SHOWN = 8


@dataclass(frozen=True)
class Colouring:
    """How a source square is coloured: its line gets a hue, its place along the line a
    shade (darkest first). ``places[sq]`` is ``(line, place, length)`` or ``None`` for a
    square on no line (drawn in a neutral colour)."""

    kind: str
    places: tuple[tuple[int, int, int] | None, ...]
    line_names: tuple[str, ...]

    @classmethod
    def lines(cls, kind: str) -> Colouring:
        """Every square coloured by its row, column, diagonal or anti-diagonal. Diagonal
        ``n`` holds the squares with ``col - row == n`` (line index ``n + 7``),
        anti-diagonal ``n`` those with ``row + col == n``; the place along any line counts
        from its top square (lowest bit)."""
        places: list[tuple[int, int, int] | None] = []
        for sq in range(64):
            r, c = divmod(sq, 8)
            if kind == "row":
                places.append((r, c, 8))
            elif kind == "column":
                places.append((c, r, 8))
            elif kind == "diagonal":
                n = c - r
                places.append((n + 7, r - max(0, -n), 8 - abs(n)))
            elif kind == "anti-diagonal":
                n = r + c
                places.append((n, r - max(0, n - 7), 8 - abs(n - 7)))
            else:
                raise VizError(
                    f"unknown line kind {kind!r}: expected one of {', '.join(LINE_KINDS)}"
                )
        if kind == "row":
            names = tuple(f"rank {i + 1}" for i in range(8))
        elif kind == "column":
            names = tuple(f"file {'abcdefgh'[i]}" for i in range(8))
        elif kind == "diagonal":
            names = tuple(f"diagonal {i - 7}" for i in range(15))
        else:
            names = tuple(f"anti-diagonal {i}" for i in range(15))
        return cls(kind, tuple(places), names)

    @classmethod
    def rays(cls, sq: int) -> Colouring:
        """The eight rays from ``sq`` (east, south, south-east, south-west, west, north,
        north-west, north-east: the order of ``bitboard.RAYS``), shaded by distance."""
        row, col = divmod(sq, 8)
        places: list[tuple[int, int, int] | None] = [None] * 64
        for d, (dr, dc) in enumerate(RAY_STEPS):
            ray = []
            r, c = row + dr, col + dc
            while 0 <= r < 8 and 0 <= c < 8:
                ray.append(8 * r + c)
                r, c = r + dr, c + dc
            for i, s in enumerate(ray):
                places[s] = (d, i, len(ray))
        return cls(f"rays from {square_name(sq)}", tuple(places), RAY_NAMES)

    @property
    def n_lines(self) -> int:
        return len(self.line_names)

    def colour(self, sq: int) -> str:
        """``#rrggbb`` of source square ``sq``."""
        p = self.places[sq]
        if p is None:
            return NEUTRAL
        line, place, length = p
        hue = line / self.n_lines
        light = 0.30 + 0.44 * (place / (length - 1) if length > 1 else 0.5)
        r, g, b = colorsys.hls_to_rgb(hue, light, 0.68)
        return f"#{round(255 * r):02x}{round(255 * g):02x}{round(255 * b):02x}"

    def describe(self, sq: int) -> str:
        p = self.places[sq]
        if p is None:
            return "on no line"
        line, place, length = p
        return f"{self.line_names[line]}, square {place + 1} of {length}"


def _pos_name(p: int) -> str:
    if 0 <= p < 64:
        return f"bit {p} = {square_name(p)}"
    return f"bit {p} ({'past bit 63' if p > 63 else 'below bit 0'}, lost)"


def _source_text(s: Source, multi_board: bool) -> str:
    return f"{square_name(s.square)} of {s.board}" if multi_board else square_name(s.square)


def _tooltip(t: Tracked, p: int, cell: Cell, colouring: Colouring, multi_board: bool) -> str:
    lines = [f"{_pos_name(p)}: {0 if cell is None else 1}"]
    if cell is not None:
        if cell:
            for s in sorted(cell):
                lines.append(
                    f"from {_source_text(s, multi_board)} — {colouring.describe(s.square)}"
                )
        else:
            lines.append("no source square (a constant, ~, or a carry of such bits)")
    terms = t.terms.get(p, ())
    if p in t.collisions:
        lines.append(f"collision: {len(terms) or 2} terms land here")
    if len(terms) >= 1 and (p in t.collisions or len(terms) == 1):
        for term in terms[:MAX_TERMS_SHOWN]:
            who = ", ".join(_source_text(s, multi_board) for s in sorted(term.sources))
            lines.append(f"  term: bit {term.bit} ({who or 'no source'}) × 2^{term.k}")
        if len(terms) > MAX_TERMS_SHOWN:
            lines.append(f"  … and {len(terms) - MAX_TERMS_SHOWN} more terms")
    if p in t.carries:
        lines.append("a carry (or borrow) landed here")
    return "\n".join(lines)


def _label(cell: frozenset[Source], multi_board: bool) -> tuple[str, str]:
    """Main text and the small second line of a set cell with sources."""
    first = min(cell)
    main = square_name(first.square)
    if multi_board:
        main = f"{first.board[:1]}{main}"
    more = f"+{len(cell) - 1}" if len(cell) > 1 else ""
    return main, more


def _ink(colours: Sequence[str]) -> str:
    """Black or white text, whichever reads better on these fills."""
    lum = 0.0
    for c in colours:
        r, g, b = (int(c[i : i + 2], 16) / 255 for i in (1, 3, 5))
        lum += 0.2126 * r + 0.7152 * g + 0.0722 * b
    return "#111" if lum / len(colours) > 0.5 else "#fff"


def _text(parent: ET.Element, x: float, y: float, text: str, ink: str, size: float = 9) -> None:
    el = ET.SubElement(parent, "text", x=f"{x:g}", y=f"{y:g}", fill=ink)
    if size != 9:
        el.set("font-size", f"{size:g}")
    el.text = text


def _draw_cell(
    parent: ET.Element,
    x: int,
    y: int,
    t: Tracked,
    p: int,
    cell: Cell,
    colouring: Colouring,
    multi_board: bool,
) -> None:
    g = ET.SubElement(parent, "g")
    ET.SubElement(g, "title").text = _tooltip(t, p, cell, colouring, multi_board)
    w = CELL - 2
    if cell is None:
        ET.SubElement(
            g,
            "rect",
            x=str(x + 1),
            y=str(y + 1),
            width=str(w),
            height=str(w),
            fill=ZERO_FILL,
            stroke=ZERO_STROKE,
        )
    elif not cell:
        ET.SubElement(
            g, "rect", x=str(x + 1), y=str(y + 1), width=str(w), height=str(w), fill=ANON_FILL
        )
        _text(g, x + CELL / 2, y + CELL / 2 + 3, "1", "#fff")
    else:
        colours: list[str] = []
        for s in sorted(cell):
            c = colouring.colour(s.square)
            if c not in colours:
                colours.append(c)
        colours = colours[:MAX_STRIPES]
        sw = w / len(colours)
        for i, c in enumerate(colours):
            ET.SubElement(
                g,
                "rect",
                x=f"{x + 1 + i * sw:.4g}",
                y=str(y + 1),
                width=f"{sw:.4g}",
                height=str(w),
                fill=c,
            )
        main, more = _label(cell, multi_board)
        ink = _ink(colours)
        _text(g, x + CELL / 2, y + CELL / 2 + (0 if more else 3), main, ink)
        if more:
            _text(g, x + CELL / 2, y + CELL / 2 + 10, more, ink, 8)
    if p in t.collisions or p in t.carries:
        frame = ET.SubElement(
            g,
            "rect",
            x=str(x + 2),
            y=str(y + 2),
            width=str(w - 2),
            height=str(w - 2),
            fill="none",
            stroke=RED,
        )
        if p in t.collisions:
            frame.set("stroke-width", "2.5")
        else:
            frame.set("stroke-width", "2")
            frame.set("stroke-dasharray", "4 2")


def _extra_positions(t: Tracked) -> tuple[list[int], list[int]]:
    """The rows (``p // 8``) to draw past either end: every row from the board to the
    farthest set or marked bit, so the picture keeps its geometry."""
    over = [64 + i for i, c in enumerate(t.overflow) if c is not None]
    over += [p for p in t.collisions | t.carries if p >= 64]
    under = [-1 - i for i, c in enumerate(t.underflow) if c is not None]
    over_rows = list(range(8, max(over) // 8 + 1)) if over else []
    under_rows = list(range(min(under) // 8, 0)) if under else []
    return under_rows, over_rows


def _extra_cell(t: Tracked, p: int) -> Cell:
    if p >= 64:
        i = p - 64
        return t.overflow[i] if i < len(t.overflow) else None
    i = -1 - p
    return t.underflow[i] if i < len(t.underflow) else None


def board_element(
    t: Tracked,
    colouring: Colouring | None = None,
    *,
    label: str = "",
    multi_board: bool = False,
    footer: str | None = None,
) -> ET.Element:
    """The ``<svg>`` element of one tracked value (see :func:`board_svg`)."""
    colouring = colouring or Colouring.lines("row")
    under_rows, over_rows = _extra_positions(t)
    width = max(LEFT + 8 * CELL + RIGHT, round(LEFT + 7.3 * len(label) + RIGHT))
    y = TITLE_H
    under_top = y + (CAPTION_H if under_rows else 0)
    if under_rows:
        y = under_top + len(under_rows) * CELL + GAP
    files_top = y
    board_top = files_top + FILES_H
    y = board_top + 8 * CELL
    over_top = y + GAP + CAPTION_H
    if over_rows:
        y = over_top + len(over_rows) * CELL
    height = y + FOOT_H

    svg = ET.Element("svg", width=str(width), height=str(height), viewBox=f"0 0 {width} {height}")
    svg.set("font-family", FONT)
    svg.set("font-size", "9")
    svg.set("text-anchor", "middle")
    svg.set("role", "img")
    svg.set("aria-label", label or f"bitboard 0x{t.value:016x}")
    ET.SubElement(svg, "rect", width=str(width), height=str(height), fill="#fff")
    if label:
        title = ET.SubElement(svg, "text", x=str(LEFT), y="14", fill="#111")
        title.set("text-anchor", "start")
        title.set("font-size", "12")
        title.set("font-weight", "bold")
        title.text = label

    def extra_rows(rows: list[int], top: int, caption_y: int, text: str) -> None:
        """The rows of bits pushed past one end of the board, under a caption."""
        el = ET.SubElement(svg, "text", x=str(LEFT), y=str(caption_y + 9), fill="#7a2e2e")
        el.set("text-anchor", "start")
        el.text = text
        for i, vr in enumerate(rows):
            yy = top + i * CELL
            _row_label(svg, yy, str(8 * vr))
            for c in range(8):
                p = 8 * vr + c
                _draw_cell(
                    cells, LEFT + c * CELL, yy, t, p, _extra_cell(t, p), colouring, multi_board
                )

    cells = ET.SubElement(svg, "g")
    if under_rows:
        extra_rows(under_rows, under_top, TITLE_H, "↑ pushed below bit 0 (lost)")
    for c in range(8):
        el = ET.SubElement(
            svg, "text", x=str(LEFT + c * CELL + CELL // 2), y=str(files_top + 10), fill="#555"
        )
        el.text = "abcdefgh"[c]
    for r in range(8):
        yy = board_top + r * CELL
        _row_label(svg, yy, str(r + 1))
        for c in range(8):
            p = 8 * r + c
            _draw_cell(cells, LEFT + c * CELL, yy, t, p, t.bits[p], colouring, multi_board)
    if over_rows:
        extra_rows(over_rows, over_top, board_top + 8 * CELL + GAP, "↓ pushed past bit 63 (lost)")
    foot = ET.SubElement(svg, "text", x=str(LEFT), y=str(height - 5), fill="#111")
    foot.set("text-anchor", "start")
    foot.set("font-size", "10")
    foot.text = footer if footer is not None else f"0x{t.value:016x}"
    return svg


def _row_label(svg: ET.Element, y: int, text: str) -> None:
    el = ET.SubElement(svg, "text", x=str(LEFT - 5), y=str(y + CELL // 2 + 3), fill="#555")
    el.set("text-anchor", "end")
    el.text = text


def svg_document(svg: ET.Element) -> str:
    """An ``<svg>`` element as a standalone SVG document (text)."""
    svg.set("xmlns", "http://www.w3.org/2000/svg")
    return ET.tostring(svg, encoding="unicode")


class PanelOptions(TypedDict, total=False):
    """The keyword options of :func:`board_element` (and :func:`board_svg`)."""

    label: str
    multi_board: bool
    footer: str | None


def board_svg(
    t: Tracked, colouring: Colouring | None = None, **options: Unpack[PanelOptions]
) -> str:
    """One tracked value as a standalone SVG document: the 8×8 board with provenance
    colours (``colouring``, by default by row), the rows of bits pushed past either end,
    ``label`` on top and ``footer`` (default: the value in hex) below.
    ``multi_board`` prefixes each cell's square name with its operand's initial."""
    return svg_document(board_element(t, colouring, **options))


LEGEND = (
    "colour: the source square's line (hue) and place along it (shade, darkest first); "
    "stripes: several sources;",
    "dark grey 1: a set bit with no source square; blank: 0; red border: terms collided; "
    "dashed red border: a carry landed",
)


def strip_svg(
    panels: Sequence[ET.Element],
    title: str,
    *,
    columns: int = 4,
    legend: Sequence[str] = LEGEND,
) -> str:
    """Several board panels (from :func:`board_element`) in a grid, under a title and a
    colour legend."""
    if not panels:
        raise VizError("nothing to draw: no steps")
    columns = max(1, min(columns, len(panels)))
    pad = 10
    head = 30 + 13 * len(legend)
    col_w = max(int(p.get("width", "0")) for p in panels)
    rows = [panels[i : i + columns] for i in range(0, len(panels), columns)]
    row_h = [max(int(p.get("height", "0")) for p in row) for row in rows]
    width = pad + columns * (col_w + pad)
    height = head + sum(h + pad for h in row_h)
    svg = ET.Element("svg", width=str(width), height=str(height), viewBox=f"0 0 {width} {height}")
    svg.set("font-family", FONT)
    ET.SubElement(svg, "rect", width=str(width), height=str(height), fill="#fff")
    t = ET.SubElement(svg, "text", x=str(pad), y="20", fill="#111")
    t.set("font-size", "15")
    t.set("font-weight", "bold")
    t.text = title
    for i, line in enumerate(legend):
        lg = ET.SubElement(svg, "text", x=str(pad), y=str(36 + 13 * i), fill="#444")
        lg.set("font-size", "10")
        lg.text = line
    y = head
    for row, h in zip(rows, row_h, strict=True):
        for i, p in enumerate(row):
            p.set("x", str(pad + i * (col_w + pad)))
            p.set("y", str(y))
            svg.append(p)
        y += h + pad
    return svg_document(svg)

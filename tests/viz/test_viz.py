"""The bitboard visualiser: tracked bits equal the real integers at every step, provenance
goes where the bits go (through multiplication too), and every picture parses."""

from __future__ import annotations

import doctest
import importlib
import json
import random
import re
import xml.etree.ElementTree as ET
from collections import Counter
from html.parser import HTMLParser

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from banmen.games.othello import BLACK, PASS, Board, square_name
from banmen.games.othello.kernels import U
from banmen.games.othello.kernels import flips as bb_flips
from banmen.games.othello.kernels import moves as bb_moves
from banmen.viz import (
    FULL,
    WALKTHROUGHS,
    Colouring,
    Source,
    Step,
    Tracked,
    VizError,
    Walkthrough,
    board_svg,
    walkthrough,
    walkthrough_html,
    walkthrough_svg,
)
from banmen.viz.svg import RED

words = st.integers(0, FULL)
shifts = st.integers(0, 63)
SVG = "{http://www.w3.org/2000/svg}"

LINES = [("row", n) for n in range(8)] + [("column", n) for n in range(8)]
LINES += [("diagonal", n) for n in range(-7, 8)] + [("anti-diagonal", n) for n in range(15)]


def line_squares(kind: str, n: int) -> list[int]:
    test = {
        "row": lambda r, c: r == n,
        "column": lambda r, c: c == n,
        "diagonal": lambda r, c: c - r == n,
        "anti-diagonal": lambda r, c: r + c == n,
    }[kind]
    return [8 * r + c for r in range(8) for c in range(8) if test(r, c)]


def assert_all_ok(w: Walkthrough) -> None:
    assert w.steps, w.name
    for s in w.steps:
        assert 0 <= s.real <= FULL
        assert s.value == s.real, f"{w.name} step {s.index} {s.label!r}: tracked {s.value:#x}"


# --------------------------------------------------------------------------- Tracked ops


@given(a=words, b=words, s=shifts)
def test_tracked_ops_equal_int_ops(a: int, b: int, s: int) -> None:
    x, y = Tracked.board(a, "x"), Tracked.board(b, "y")
    assert (x << s).value == (a << s) & FULL
    assert (x >> s).value == a >> s
    assert x.rotl(s).value == ((a << s) | (a >> (64 - s))) & FULL
    assert x.rotr(s).value == ((a >> s) | (a << (64 - s))) & FULL
    assert (x & y).value == a & b
    assert (x | y).value == a | b
    assert (x ^ y).value == a ^ b
    assert (~x).value == ~a & FULL
    assert x.mask(b).value == a & b
    assert (x * b).value == (a * b) & FULL
    assert (x + y).value == (a + b) & FULL
    assert (x - y).value == (a - b) & FULL
    assert (-x).value == -a & FULL
    assert x.lsb().value == a & -a
    assert x.msb().value == (1 << (a.bit_length() - 1) if a else 0)
    assert x.popcount() == a.bit_count()
    assert x.nonzero_mask().value == (FULL if a else 0)


@given(a=words, s=shifts)
def test_shifted_out_bits_are_kept_with_their_sources(a: int, s: int) -> None:
    x = Tracked.board(a, "x")
    left, right = x << s, x >> s
    over = {64 + i: c for i, c in enumerate(left.overflow) if c is not None}
    assert over == {
        i + s: frozenset({Source(i, "x")}) for i in range(64) if a >> i & 1 and i + s >= 64
    }
    under = {-1 - i: c for i, c in enumerate(right.underflow) if c is not None}
    assert under == {i - s: frozenset({Source(i, "x")}) for i in range(64) if a >> i & 1 and i < s}
    for i in range(64):
        if a >> i & 1 and i + s < 64:
            assert left.bits[i + s] == frozenset({Source(i, "x")})


@given(a=words, c=words)
def test_product_overflow_is_the_high_half(a: int, c: int) -> None:
    p = Tracked.board(a) * c
    high = sum(1 << i for i, cell in enumerate(p.overflow) if cell is not None)
    assert high == (a * c) >> 64
    assert p.value == (a * c) & FULL


def test_multiplication_collision_and_carry_by_hand() -> None:
    # a1 and b1 (3) times 3: a1·1 → bit 0; a1·2 and b1·1 collide on bit 1 (1 + 1 = 10),
    # the carry meets b1·2 on bit 2 (1 + 1 again), and the last carry lands alone on bit 3.
    x = Tracked.board(0b11, "x")
    y = x * 0b11
    assert y.value == 9 == 3 * 3
    a1, b1 = Source(0, "x"), Source(1, "x")
    assert y.collisions == {1}
    assert y.carries == {2, 3}
    assert y.bits[0] == {a1}
    assert y.bits[1] is None and y.bits[2] is None  # both collided to 0 and carried on
    assert y.bits[3] == {a1, b1}  # the carry brings both squares
    assert sorted((t.bit, t.k) for t in y.terms[1]) == [(0, 1), (1, 0)]
    # The colliding bit is drawn with a red border and its hover text names both terms.
    svg = ET.fromstring(board_svg(y))
    cells = [g for g in svg.iter(f"{SVG}g") if g.find(f"{SVG}title") is not None]
    b1_cell = next(g for g in cells if g.findtext(f"{SVG}title", "").startswith("bit 1 "))
    assert "collision: 2 terms" in b1_cell.findtext(f"{SVG}title", "")
    assert any(
        r.get("stroke") == RED and r.get("stroke-width") == "2.5"
        for r in b1_cell.iter(f"{SVG}rect")
    )


def test_carry_out_of_bit_63_is_overflow() -> None:
    x = Tracked.board(1 << 63, "x")
    s = x + x
    assert s.value == 0 and 64 in s.carries and s.overflow[0] == {Source(63, "x")}
    assert 63 in s.collisions


def test_negation_borrow_runs_from_the_lowest_bit() -> None:
    x = Tracked.board(0b10100, "x")
    n = -x
    assert n.value == -0b10100 & FULL
    assert n.bits[2] == {Source(2, "x")}
    assert n.bits[3] == {Source(2, "x")}  # set by the borrow from c1
    assert n.bits[4] is None  # 1 - 1 - borrow... x's own bit clears
    assert (x & n).value == 0b100 and (x & n).bits[2] == {Source(2, "x")}


@pytest.mark.parametrize("bad", [-1, 64, 1.5, True])
def test_bad_shift_is_a_viz_error(bad: object) -> None:
    with pytest.raises(VizError, match="shift amount"):
        Tracked.board(1) << bad  # type: ignore[operator]


def test_bad_constant_is_a_viz_error() -> None:
    with pytest.raises(VizError, match="constant"):
        Tracked.board(1) * (1 << 64)
    with pytest.raises(VizError, match="constant"):
        Tracked.const(-1)


# --------------------------------------------------------------------------- line


@pytest.mark.parametrize(("kind", "n"), LINES)
@settings(max_examples=12)
@given(board=words)
def test_line_walkthrough_tracks_every_step(kind: str, n: int, board: int) -> None:
    w = walkthrough("line", kind=kind, n=n, board=board)
    assert_all_ok(w)
    squares = line_squares(kind, n)
    mask = sum(1 << sq for sq in squares)
    final = w.steps[-1].tracked
    assert final.value == board & mask
    # Every bit put back came from its own square and nowhere else.
    for sq in range(64):
        expected = frozenset({Source(sq, "x")}) if (board & mask) >> sq & 1 else None
        assert final.bits[sq] == expected
    # The gathered byte: bit i of g is the i-th square of the line (by column; by row for
    # a column), with its provenance.
    g = next(s for s in w.steps if s.label.startswith("g ="))
    assert g.value < 256
    for sq in squares:
        r, c = divmod(sq, 8)
        i = r if kind == "column" else c
        cell = g.tracked.bits[i]
        assert (cell is not None) == bool(board >> sq & 1)
        if cell is not None:
            assert cell == {Source(sq, "x")}


def test_line_defaults_and_string_params() -> None:
    w = walkthrough("line", kind="Column", n="3", board="0xff00")
    assert w.params == {"kind": "column", "n": 3, "board": "0x000000000000ff00"}
    assert w.steps[-1].value == 0xFF00 & (0x0101010101010101 << 3)
    full = walkthrough("line")
    assert full.params["board"] == "0xffffffffffffffff"
    assert_all_ok(full)


@pytest.mark.parametrize(
    ("params", "fragment"),
    [
        ({"kind": "diag"}, "unknown line kind 'diag': expected one of row, column"),
        ({"kind": "row", "n": 8}, "n for a row must be 0 to 7, got 8"),
        ({"kind": "diagonal", "n": -8}, "n for a diagonal must be -7 to 7"),
        ({"kind": "anti-diagonal", "n": 15}, "must be 0 to 14"),
        ({"kind": "row", "n": "x"}, "n must be an integer"),
        ({"board": -1}, "board must be a 64-bit pattern"),
        ({"board": 1 << 64}, "board must be a 64-bit pattern"),
        ({"board": "zz"}, "board must be a 64-bit pattern"),
        ({"colour": "red"}, "unknown parameter 'colour' for walkthrough 'line'"),
    ],
)
def test_line_bad_params(params: dict[str, object], fragment: str) -> None:
    with pytest.raises(VizError) as e:
        walkthrough("line", **params)
    assert fragment in str(e.value) and "\n" not in str(e.value)


def test_unknown_walkthrough() -> None:
    with pytest.raises(VizError, match="unknown walkthrough 'spin': expected one of line"):
        walkthrough("spin")


# --------------------------------------------------------------------------- moves, flips


def random_positions(n_games: int, seed: int) -> list[Board]:
    rng = random.Random(seed)
    out = []
    for _ in range(n_games):
        b = Board()
        while not b.is_game_over():
            if rng.random() < 0.12:
                out.append(b.copy())
            b.push(rng.choice(b.legal_moves))
        out.append(b.copy())
    return out


def sides(b: Board) -> tuple[int, int]:
    return (b.black, b.white) if b.turn == BLACK else (b.white, b.black)


def test_moves_walkthrough_equals_the_move_generator() -> None:
    positions = random_positions(12, seed=1)
    assert len(positions) > 60
    for b in positions:
        w = walkthrough("moves", board=b.to_string())
        assert_all_ok(w)
        p, o = sides(b)
        final, count = w.steps[-2], w.steps[-1]
        assert final.label == "moves = res & empty"
        assert final.value == int(bb_moves(U(p), U(o))) == b.move_mask()
        assert count.op == "popcount" and count.number == b.move_mask().bit_count()
        assert w.params["board"] == b.to_string()


def test_flips_walkthrough_equals_bitboard_flips() -> None:
    positions = random_positions(6, seed=2)
    checked = 0
    for b in positions[::2]:
        p, o = sides(b)
        for sq in b.legal_moves:
            if sq == PASS:
                continue
            w = walkthrough("flips", board=b.to_string(), move=square_name(sq))
            assert_all_ok(w)
            final = w.steps[-2]
            assert final.label.startswith("flips |= f")
            assert final.value == int(bb_flips(U(p), U(o), sq)) == b.flips(sq)
            assert final.value != 0
            # Every flipped bit came from its square of a ray, never from nowhere.
            for i, cell in enumerate(final.tracked.bits):
                if cell is not None:
                    assert Source(i, "ray") in cell
            checked += 1
    assert checked > 50


@pytest.mark.parametrize(
    ("params", "fragment"),
    [
        ({"board": "XO"}, "bad board: board string has 2 characters"),
        ({"board": "Z" * 64 + " X"}, "bad board: bad square 'Z' at a1"),
        ({"board": 7}, "board must be an Othello board string"),
        ({"move": "z9"}, "bad move 'z9': expected a square a1-h8"),
        ({"move": "d5"}, "d5 is not legal for white (occupied)"),
        ({"move": "a1"}, "a1 is not legal for white (it turns no disc over)"),
        ({"move": "pass"}, "cannot pass"),
        ({"move": 19}, "move must be a square name"),
    ],
)
def test_flips_bad_params(params: dict[str, object], fragment: str) -> None:
    with pytest.raises(VizError) as e:
        walkthrough("flips", **params)
    assert fragment in str(e.value) and "\n" not in str(e.value)


def test_moves_bad_board() -> None:
    with pytest.raises(VizError, match="side to move must be X"):
        walkthrough("moves", board="-" * 64 + " Q")


# --------------------------------------------------------------------------- popcount


@settings(max_examples=60)
@given(board=words)
def test_popcount_walkthrough(board: int) -> None:
    w = walkthrough("popcount", board=board)
    assert_all_ok(w)
    assert w.steps[-1].number == board.bit_count()
    assert w.steps[-2].value == board.bit_count()
    mul = next(s for s in w.steps if s.op == "mul")
    # Terms of the product: bit j of byte i's count times byte m of the multiplier lands
    # on 8 (i + m) + j; they collide where two land together.
    counts = [(board >> (8 * i) & 0xFF).bit_count() for i in range(8)]
    landed = Counter(
        8 * (i + m) + j for i in range(8) for m in range(8) for j in range(4) if counts[i] >> j & 1
    )
    assert mul.tracked.collisions == {p for p, k in landed.items() if k >= 2}


def test_popcount_default_multiply_collides_and_carries() -> None:
    w = walkthrough("popcount")
    mul = next(s for s in w.steps if s.op == "mul")
    assert mul.tracked.collisions and mul.tracked.carries and mul.tracked.overflow
    top = mul.tracked.bits[56:]
    assert sum(1 << i for i, c in enumerate(top) if c is not None) == 36
    # The count's bits came from the byte counts of several ranks at once.
    assert len({s.square // 8 for c in top if c for s in c}) > 1


# --------------------------------------------------------------------------- output


def default_walkthroughs() -> list[Walkthrough]:
    return [walkthrough(name) for name in WALKTHROUGHS] + [
        walkthrough("line", kind=k, n=n)
        for k, n in [("row", 5), ("column", 2), ("anti-diagonal", 9)]
    ]


def test_registry_is_json_and_every_default_builds() -> None:
    json.dumps(WALKTHROUGHS)
    for name, spec in WALKTHROUGHS.items():
        assert spec["title"] and spec["description"]
        w = walkthrough(name, **{p["name"]: p["default"] for p in spec["params"]})
        assert w.name == name
        assert_all_ok(w)


def test_to_dict_is_json_with_a_parsing_svg_per_step() -> None:
    for w in default_walkthroughs():
        d = json.loads(json.dumps(w.to_dict()))
        assert d["name"] == w.name and d["title"] == w.title and d["params"] == w.params
        assert len(d["steps"]) == len(w.steps)
        for i, s in enumerate(d["steps"]):
            assert s["index"] == i
            assert set(s) == {"index", "label", "op", "explanation", "hex", "value", "svg"}
            assert re.fullmatch(r"0x[0-9a-f]{16}", s["hex"])
            assert int(s["value"]) == int(s["hex"], 16) == w.steps[i].real
            assert len(s["svg"]) < 60_000, (w.name, s["label"], len(s["svg"]))
            root = ET.fromstring(s["svg"])
            assert root.tag == f"{SVG}svg"
            titles = [t.text or "" for t in root.iter(f"{SVG}title")]
            assert sum(t.startswith("bit ") and "=" in t.split(":")[0] for t in titles) == 64


def test_overflow_and_underflow_rows_appear_only_when_bits_are_lost() -> None:
    x = Tracked.board(FULL)
    assert "pushed past bit 63" in board_svg(x << 9)
    assert "pushed below bit 0" not in board_svg(x << 9)
    assert "pushed below bit 0" in board_svg(x >> 3)
    plain = board_svg(x)
    assert "pushed" not in plain
    # Two overflow rows for a shift by 9 of a full board: bits 64..72.
    root = ET.fromstring(board_svg(x << 9))
    lost = [t.text for t in root.iter(f"{SVG}title") if t.text and "past bit 63" in t.text]
    assert len(lost) == 16


def test_cells_show_their_sources() -> None:
    col = Colouring.lines("column")
    svg = board_svg(Tracked.board(1 << 19, "x"), col)  # d3
    root = ET.fromstring(svg)
    d3 = next(
        g
        for g in root.iter(f"{SVG}g")
        if g.findtext(f"{SVG}title", "").startswith("bit 19 = d3: 1")
    )
    assert "from d3 — file d, square 3 of 8" in d3.findtext(f"{SVG}title", "")
    assert d3.find(f"{SVG}rect") is not None
    assert d3.find(f"{SVG}rect").get("fill") == col.colour(19)  # type: ignore[union-attr]
    assert [t.text for t in d3.iter(f"{SVG}text")] == ["d3"]
    # Shades darken towards the start of the line; hues differ between lines.
    assert col.colour(3) != col.colour(11) and col.colour(3) != col.colour(4)


def test_strip_svg_and_html() -> None:
    w = walkthrough("line", kind="diagonal", n=3)
    root = ET.fromstring(walkthrough_svg(w))
    panels = [el for el in root if el.tag == f"{SVG}svg"]
    assert len(panels) == len(w.steps)
    page = walkthrough_html(w)

    class Sections(HTMLParser):
        def __init__(self) -> None:
            super().__init__()
            self.sections: list[str] = []
            self.external: list[str] = []

        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            a = dict(attrs)
            if tag == "section" and "step" in (a.get("class") or ""):
                self.sections.append(a.get("id") or "")
            if a.get("src") or (tag == "link" and a.get("href")):
                self.external.append(tag)

    p = Sections()
    p.feed(page)
    assert p.sections == [f"step-{i + 1}" for i in range(len(w.steps))]
    assert p.external == []
    assert page.count("<svg") == len(w.steps)
    assert 'id="prev"' in page and 'id="next"' in page and "ArrowRight" in page
    for s in w.steps:
        assert s.hex in page


def test_step_value_is_checked_against_real() -> None:
    bad = Step(0, "x", "load", "", Tracked.board(5), real=4)
    assert not bad.ok and Step(0, "x", "load", "", Tracked.board(5), real=5).ok


@pytest.mark.parametrize("module", ["banmen.viz", "banmen.viz.tracked", "banmen.viz.walkthroughs"])
def test_module_doctests(module: str) -> None:
    result = doctest.testmod(importlib.import_module(module))
    assert result.attempted > 0 and result.failed == 0

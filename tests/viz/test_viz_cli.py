"""``banmen viz``: files written, tables printed, bad input rejected in one line."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from typer.testing import CliRunner

from banmen.cli import app

runner = CliRunner()
BOARD = "------------------OX------XXXX---XOOOXO-X-X--OX-------O--------- O"
SVG = "{http://www.w3.org/2000/svg}"


def test_line_writes_svg(tmp_path: Path) -> None:
    out = tmp_path / "out.svg"
    res = runner.invoke(app, ["viz", "line", "--kind", "diagonal", "--n", "3", "-o", str(out)])
    assert res.exit_code == 0, res.output
    assert "wrote" in res.output and "6 steps" in res.output
    root = ET.fromstring(out.read_text(encoding="utf-8"))
    assert root.tag == f"{SVG}svg"
    assert len([el for el in root if el.tag == f"{SVG}svg"]) == 6


def test_negative_diagonal_and_table(tmp_path: Path) -> None:
    res = runner.invoke(app, ["viz", "line", "--kind", "diagonal", "--n", "-3"])
    assert res.exit_code == 0, res.output
    assert "0x1008040201000000" in res.output  # the diagonal c1..h6 put back
    assert "diagonal -3" in res.output


def test_moves_writes_html(tmp_path: Path) -> None:
    out = tmp_path / "moves.html"
    res = runner.invoke(app, ["viz", "moves", BOARD, "-o", str(out)])
    assert res.exit_code == 0, res.output
    page = out.read_text(encoding="utf-8")
    assert page.startswith("<!doctype html>")
    assert page.count('<section class="step"') == 54


def test_flips_svg_and_table(tmp_path: Path) -> None:
    out = tmp_path / "flips.svg"
    res = runner.invoke(app, ["viz", "flips", BOARD, "e3", "-o", str(out)])
    assert res.exit_code == 0, res.output
    ET.fromstring(out.read_text(encoding="utf-8"))
    res = runner.invoke(app, ["viz", "flips", BOARD, "e3"])
    assert res.exit_code == 0, res.output
    assert "popcount(flips)" in res.output and "e3 turns over 4 discs" in res.output


def test_popcount_table() -> None:
    res = runner.invoke(app, ["viz", "popcount", "--board", "0xf0"])
    assert res.exit_code == 0, res.output
    assert "popcount(x)" in res.output


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["line", "--kind", "diag"], "unknown line kind 'diag'"),
        (["line", "--kind", "row", "--n", "8"], "n for a row must be 0 to 7, got 8"),
        (["line", "--board", "0xzz"], "board must be a 64-bit pattern"),
        (["line", "-o", "out.png"], "expected a file name ending in .svg or .html"),
        (["moves", "XO- X"], "bad board: board string has 4 characters"),
        (["flips", BOARD, "z9"], "bad move 'z9'"),
        (["flips", BOARD, "d5"], "d5 is not legal for white (occupied)"),
        (["line", "-o", "/nonexistent-dir/x.svg"], "cannot write '/nonexistent-dir/x.svg'"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(args: list[str], fragment: str) -> None:
    res = runner.invoke(app, ["viz", *args])
    assert res.exit_code == 2, res.output
    lines = [ln for ln in res.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: ") and fragment in lines[0]
    assert "Traceback" not in res.output


@pytest.mark.parametrize(
    ("kind", "n", "title"),
    [
        ("row", 5, "Gather row 5 (rank 6) into a byte and put it back"),
        ("row", 0, "Gather row 0 (rank 1) into a byte and put it back"),
        ("column", 5, "Gather column 5 (file f) into a byte and put it back"),
        ("diagonal", 5, "Gather diagonal 5 into a byte and put it back"),
        ("anti-diagonal", 9, "Gather anti-diagonal 9 into a byte and put it back"),
    ],
)
def test_line_title_names_the_line_asked_for(kind: str, n: int, title: str) -> None:
    from banmen.viz import walkthrough

    assert walkthrough("line", kind=kind, n=n).title == title
    res = runner.invoke(app, ["viz", "line", "--kind", kind, "--n", str(n)])
    assert res.exit_code == 0, res.output
    assert title in res.output

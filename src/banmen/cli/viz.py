"""``banmen viz``: bitboard walkthroughs as SVG, a step-through HTML file or a text table."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from banmen.cli._app import fail, number_option
from banmen.numbers import Bounded

app = typer.Typer(
    help="See how bit tricks move bits: `banmen viz line --kind diagonal --n 3 -o out.svg`, "
    '`banmen viz moves "<board> X" -o moves.html`. Docs: docs/VIZ.md.',
    no_args_is_help=True,
    rich_markup_mode=None,  # plain help: see banmen.cli
)

# Othello board strings start with "-" more often than not: not options.
_BOARD_ARGS = {"ignore_unknown_options": True}

OutOption = Annotated[
    Path | None,
    typer.Option(
        "--out",
        "-o",
        help="Write the walkthrough: FILE.svg (every step in one picture) or FILE.html "
        "(a step-through page). Without it, print the steps as a table.",
    ),
]
#: the bitboard a walkthrough works on (line, popcount)
PatternOption = Annotated[
    str | None,
    typer.Option(
        help="A 64-bit pattern (decimal, 0x hex, 0b binary); default: the walkthrough's "
        "example (line: every bit set; popcount: a triangle)."
    ),
]
ColumnsOption = Annotated[
    int,
    number_option(
        Bounded("columns", 1, 12, integer=True), "Steps per row in the SVG.", "--columns"
    ),
]


def _emit(name: str, params: dict[str, Any], out: Path | None, columns: int) -> None:
    from banmen.viz import VizError, walkthrough, walkthrough_html, walkthrough_svg

    suffix = out.suffix.lower() if out is not None else ""
    if out is not None and suffix not in (".svg", ".html", ".htm"):
        raise fail(f"cannot write {str(out)!r}: expected a file name ending in .svg or .html")
    try:
        w = walkthrough(name, **params)
    except VizError as e:
        raise fail(str(e)) from None
    if out is None:
        _print_table(w)
        return
    text = walkthrough_svg(w, columns=columns) if suffix == ".svg" else walkthrough_html(w)
    try:
        out.write_text(text, encoding="utf-8")
    except OSError as e:
        raise fail(f"cannot write {str(out)!r}: {e.strerror or e}") from None
    typer.echo(f"wrote {out} ({len(w.steps)} steps, {len(text) // 1024} kB)")


def _print_table(w: Any) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title=w.title, caption=", ".join(f"{k}={v}" for k, v in w.params.items()))
    table.add_column("#", justify="right")
    table.add_column("step")
    table.add_column("value", no_wrap=True)
    table.add_column("what happens")
    for i, s in enumerate(w.steps):
        value = str(s.value) if s.number is not None else s.hex
        table.add_row(str(i + 1), s.label, value, s.explanation)
    Console().print(table)


@app.command()
def line(
    kind: Annotated[str, typer.Option(help="row, column, diagonal or anti-diagonal.")] = "diagonal",
    n: Annotated[
        int,
        number_option(
            Bounded("n", -7, 14, integer=True),
            "Which line: row n = rank n+1 (0-7), column n = file a+n (0-7), "
            "diagonal n: col - row = n (-7..7), anti-diagonal n: row + col = n (0..14).",
            "--n",
        ),
    ] = 0,
    board: PatternOption = None,
    out: OutOption = None,
    columns: ColumnsOption = 4,
) -> None:
    """Gather a row, column, diagonal or anti-diagonal into a byte and put it back."""
    _emit("line", {"kind": kind, "n": n, "board": board}, out, columns)


@app.command(context_settings=_BOARD_ARGS)
def moves(
    board: Annotated[
        str | None,
        typer.Argument(
            help="An Othello board string: 64 squares a1..h8 (X, O, -), a space, the side "
            "to move (quote it). Default: a middle-game position."
        ),
    ] = None,
    out: OutOption = None,
    columns: ColumnsOption = 6,
) -> None:
    """Othello legal moves by shift fills, as banmen's move generator computes them."""
    _emit("moves", {"board": board}, out, columns)


@app.command(context_settings=_BOARD_ARGS)
def flips(
    board: Annotated[
        str | None, typer.Argument(help="An Othello board string (see `moves`).")
    ] = None,
    move: Annotated[
        str | None, typer.Argument(help="A legal move for the side to move, like d3.")
    ] = None,
    out: OutOption = None,
    columns: ColumnsOption = 6,
) -> None:
    """The discs a move turns over, ray by ray."""
    _emit("flips", {"board": board, "move": move}, out, columns)


@app.command()
def popcount(
    board: PatternOption = None,
    out: OutOption = None,
    columns: ColumnsOption = 4,
) -> None:
    """Count bits without a popcount instruction (the multiply makes counts collide)."""
    _emit("popcount", {"board": board}, out, columns)

"""``banmen analyse``: the engine's value of every legal move of a position.

One row per legal move, best first, each saying what its value is: ``exact`` (proved),
``depth N`` (a depth-limited search's estimate), a win rate after N visits (Go), or a mate
search's verdict (see :mod:`banmen.analysis`). ``--json`` prints one object with a
``moves`` list, one object per legal move.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated, Any

import typer

from banmen.cli._app import (
    GameArgument,
    JsonOption,
    PositionArgument,
    fail,
    game_that,
    leave_quickly,
    number_option,
)
from banmen.numbers import DEPTH, SECONDS

if TYPE_CHECKING:
    from banmen.analysis import Analysis
    from banmen.engine import GameBoard
    from banmen.games import GameDef
    from banmen.search.limits import Limit


def analyse(
    game: GameArgument,
    position: PositionArgument,
    seconds: Annotated[
        float,
        number_option(SECONDS, "Analyse for at most this many seconds.", "--time"),
    ] = 5.0,
    depth: Annotated[
        int | None,
        number_option(
            DEPTH, "Stop after this many plies (alpha-beta games; shogi: the longest mate sought)."
        ),
    ] = None,
    engine: Annotated[
        str | None,
        typer.Option(
            "--engine",
            help="Value the moves with this player instead of the game's analysis: each "
            "move's position searched by its think (a python: player needs a think "
            "method that returns a score; banmen players GAME lists the kinds).",
        ),
    ] = None,
    as_json: JsonOption = False,
) -> None:
    """The value of every legal move: exact where proved, otherwise labelled as what it is."""
    leave_quickly()
    from banmen.search.limits import Limit

    g = game_that(
        game,
        lambda d: d.board_from_text is not None and (d.analyse is not None or engine is not None),
        "{game.title} has no analysis yet: expected one of {able}",
    )
    if depth is not None and engine is None and "depth" not in g.analysis_limits:
        raise fail(f"{g.title}'s analysis takes no --depth (its search has no depth to stop "
                   f"at): bound it with --time")  # fmt: skip
    try:
        board = g.board_from_text(position)
    except ValueError as e:
        hint = f" (expected {g.position_hint})" if g.position_hint else ""
        raise fail(f"bad {g.name} position: {' '.join(str(e).split())}{hint}") from None
    if board.is_game_over():
        raise fail("the game is over: there is no move to analyse")
    if engine is not None:
        result = _with_engine(g, engine, board, Limit(time=seconds, depth=depth))
    else:
        assert g.analyse is not None
        result = g.analyse(board, Limit(time=seconds, depth=depth), None, None)
    if as_json:
        typer.echo(json.dumps(result.to_dict(), ensure_ascii=False))
    else:
        _print(result)


def _with_engine(g: GameDef[Any], spec: str, board: GameBoard, limit: Limit) -> Analysis:
    """The analysis by a player's own think (:func:`banmen.analysis.analyse_with`)."""
    from banmen.analysis import analyse_with
    from banmen.games.registry import make_engine

    try:
        player = make_engine(g, spec)
        player.warm_up()
    except ValueError as e:
        raise fail(str(e)) from None
    except Exception as e:  # a user's player that cannot start
        raise fail(f"{spec}: cannot start: {' '.join(str(e).split())}") from None
    if getattr(player, "has_think", True) is False:
        raise fail(f"{spec} has no think(board, limit) method: analyse needs the scores it "
                   "returns (docs/YOUR_AI.md); play() alone gives only a move")  # fmt: skip
    try:
        return analyse_with(g.name, player, board, limit)
    except Exception as e:  # the player failed: one line, no traceback
        raise fail(" ".join(str(e).split()) or type(e).__name__) from None
    finally:
        player.close()


def _label(row: Any) -> str:
    if row.kind == "exact":
        return "exact"
    if row.kind == "depth":
        return f"depth {row.depth}"
    if row.kind == "winrate":
        return f"{row.visits} visits"
    return str(row.kind).replace("_", " ")


def _value(row: Any) -> str:
    if row.value is None:
        return "?"
    if row.kind == "winrate":
        return f"{100 * row.value:.1f}%"
    if row.kind == "mate":
        return f"mate in {int(row.value)}"
    v = row.value
    return f"{v:+d}" if isinstance(v, int) else f"{v:+.2f}"


def _print(result: Analysis) -> None:
    from rich.table import Table

    from banmen.cli._console import make_console

    table = Table(title=None, box=None)
    for col in ("move", "value", "what it is", "line"):
        table.add_column(col)
    for row in result.moves:
        table.add_row(row.move, _value(row), _label(row), " ".join(row.pv[:8]))
    console = make_console()
    console.print(table)
    verdict = "every value proved" if result.complete else f"stopped by {result.stopped_by}"
    console.print(f"{len(result.moves)} moves, {result.nodes:,} nodes, "
                  f"{result.seconds:.2f} s: {verdict}")  # fmt: skip

"""``banmen solve``: the exact value of a position, or an honest "unknown".

Any game whose :class:`~banmen.games.GameDef` has a ``solver`` (:class:`~banmen.games.Solver`)
is solved here: the position is read by the game's ``board_from_text``, solved within the
limits given, and the record printed by the solver's ``lines`` (or as JSON). The options a
game's solver does not take (``--all``, ``--nodes``, ``--hash``) are refused in one line.
"""

from __future__ import annotations

import json
from typing import Annotated

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
from banmen.numbers import HASH, NODES, SECONDS

#: the option each SolveLimits field comes from, as errors name it
_OPTION = {"all_best": "--all", "nodes": "--nodes", "hash_mb": "--hash"}


def solve(
    game: GameArgument,
    position: PositionArgument,
    as_json: JsonOption = False,
    all_best: Annotated[
        bool, typer.Option("--all", help="List every move that reaches the value (Othello).")
    ] = False,
    timeout: Annotated[
        float | None,
        number_option(SECONDS, "Give up after this many seconds (then the answer is 'unknown')."),
    ] = None,
    nodes: Annotated[
        int | None,
        number_option(NODES, "Give up after this many nodes (then 'unknown'; shogi)."),
    ] = None,
    hash_mb: Annotated[
        int | None,
        number_option(HASH, "Transposition table size in MB (shogi; default 256).", "--hash"),
    ] = None,
) -> None:
    """Solve a position exactly and print its value and best line (shogi: the mate)."""
    leave_quickly()
    from banmen.games import SolveLimits

    g = game_that(
        game,
        lambda d: d.solver is not None and d.board_from_text is not None,
        "{game.name} cannot be solved here: expected one of {able}",
    )
    limits = SolveLimits(time=timeout, nodes=nodes, hash_mb=hash_mb, all_best=all_best)
    for field, option in _OPTION.items():
        given = getattr(limits, field)
        if given not in (None, False) and field not in g.solver.takes:
            raise fail(f"{option} is not an option of {g.title}'s solver")
    try:
        board = g.board_from_text(position)
        rec = g.solver.solve(board, limits)
    except ValueError as e:
        raise fail(" ".join(str(e).split())) from None
    if as_json:
        typer.echo(json.dumps(rec, ensure_ascii=False))
    else:
        for line in g.solver.lines(rec):
            typer.echo(line)

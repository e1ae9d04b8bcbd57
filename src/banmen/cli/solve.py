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

from banmen.cli._app import GameArgument, JsonOption, PositionArgument, fail, leave_quickly, number
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
        typer.Option(
            parser=number(SECONDS),
            help="Give up after this many seconds (then the answer is 'unknown').",
        ),
    ] = None,
    nodes: Annotated[
        int | None,
        typer.Option(
            parser=number(NODES), help="Give up after this many nodes (then 'unknown'; shogi)."
        ),
    ] = None,
    hash_mb: Annotated[
        int | None,
        typer.Option(
            "--hash",
            parser=number(HASH),
            help="Transposition table size in MB (shogi; default 256).",
        ),
    ] = None,
) -> None:
    """Solve a position exactly and print its value and best line (shogi: the mate)."""
    leave_quickly()
    from banmen.games import SolveLimits
    from banmen.games.registry import UnknownGameError, get_game, load_games

    try:
        g = get_game(game)
    except UnknownGameError as e:
        raise fail(str(e)) from None
    if g.solver is None or g.board_from_text is None:
        solvable = [n for n, d in load_games(on_broken=lambda _: None).items() if d.solver]
        raise fail(f"{g.name} cannot be solved here: expected one of {', '.join(solvable)}")
    if timeout is not None and not timeout > 0:
        raise fail(f"--timeout must be a positive number of seconds, got {timeout}")
    limits = SolveLimits(time=timeout, nodes=nodes, hash_mb=hash_mb, all_best=all_best)
    for field, option in _OPTION.items():
        given = getattr(limits, field)
        if given not in (None, False) and field not in g.solver.takes:
            raise fail(f"{option} is not an option of {g.title}'s solver")
    if nodes is not None and nodes < 1:
        raise fail(f"--nodes must be a positive integer, got {nodes}")
    if hash_mb is not None and not 1 <= hash_mb <= 65536:
        raise fail(f"--hash must be 1-65536 MB, got {hash_mb}")
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

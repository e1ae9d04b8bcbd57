"""``banmen players [GAME]``: the player kinds each game offers, with their options."""

from __future__ import annotations

from typing import Annotated

import typer

from banmen.cli._app import fail


def players(
    games: Annotated[
        list[str] | None,
        typer.Argument(help="Games to list (default: every game).", show_default=False),
    ] = None,
) -> None:
    """The player kinds a game offers and the options each takes, for --player specs;
    the evaluators a search can be given (SEARCH+EVALUATOR); the kinds it does not offer,
    and why.

    Every game offers python: (your own player in Python) and ugi: (a program speaking
    UGI); docs/YOUR_AI.md shows both."""
    from banmen.games.registry import (
        evaluator_kinds,
        get_game,
        kinds,
        load_games,
        search_kinds,
        why_not,
    )

    try:
        defs = [get_game(g) for g in games] if games else list(load_games().values())
    except ValueError as e:
        raise fail(str(e)) from None
    for k, game in enumerate(defs):
        if k:
            typer.echo("")
        typer.echo(f"{game.title} ({game.name}):")
        offered = kinds(game)
        for name, kind in offered.items():
            default = " [default]" if name == game.default_engine else ""
            typer.echo(f"  {name}{default}: {kind.help}")
        evaluators = {n: e for n, e in evaluator_kinds().items() if e.applies(game) is None}
        takers = [n for n, k in offered.items() if k.takes_evaluator]
        if evaluators and takers:
            typer.echo(f"  evaluators (SEARCH+NAME[:key=value,...], SEARCH one of "
                       f"{', '.join(takers)}):")  # fmt: skip
            for name, ev in evaluators.items():
                only = [s for s in takers if not ev.searches or s in ev.searches]
                also = "" if only == takers else f" [{', '.join(only)} only]"
                if ev.trainer is not None:
                    also += f" [banmen train {game.name} {name}]"
                typer.echo(f"    {name}: {ev.help}{also}")
        missing = [n for n in search_kinds() if n not in offered]
        if missing:
            typer.echo("  not offered: " + "; ".join(
                f"{n} ({why_not(game, n)})" for n in missing))  # fmt: skip

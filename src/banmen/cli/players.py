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
    """The player kinds a game offers and the options each takes, for --player specs.

    Every game offers python: (your own player in Python) and ugi: (a program speaking
    UGI); docs/YOUR_AI.md shows both."""
    from banmen.games.registry import get_game, kinds, load_games

    try:
        defs = [get_game(g) for g in games] if games else list(load_games().values())
    except ValueError as e:
        raise fail(str(e)) from None
    for k, game in enumerate(defs):
        if k:
            typer.echo("")
        typer.echo(f"{game.title} ({game.name}):")
        for name, kind in kinds(game).items():
            default = " [default]" if name == game.default_engine else ""
            typer.echo(f"  {name}{default}: {kind.help}")

"""``banmen ugi``: banmen's engines (or a user's) behind UGI, for any game."""

from __future__ import annotations

from typing import Annotated

import typer

from banmen.cli._app import fail


def ugi(
    game: Annotated[str, typer.Option("--game", help="The game (banmen players lists them).")],
    engine: Annotated[
        str | None,
        typer.Option(
            "--engine",
            help="Player spec behind the protocol (default: the game's own engine; "
            "python:FILE.py:NAME for your own).",
        ),
    ] = None,
) -> None:
    """Speak UGI (the Universal Game Interface) on stdin/stdout, for UGI tournament
    managers and GUIs: the positions in the game's own text, the moves in its notation."""
    from banmen.games.registry import get_game, make_engine
    from banmen.protocols.ugi import main

    try:
        g = get_game(game)
        if g.ugi is None:
            raise ValueError(f"{g.title} is not played over UGI")
        player = make_engine(g, engine or g.default_engine)
    except ValueError as e:
        raise fail(str(e)) from None
    main(g, player)

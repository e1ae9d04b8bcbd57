"""``banmen ugi``: banmen's engines (or a user's) behind UGI, for any game."""

from __future__ import annotations

from typing import Annotated

import typer

from banmen.cli._app import fail, number_option
from banmen.numbers import SECONDS


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
    max_move_time: Annotated[
        float,
        number_option(
            SECONDS,
            "Longest thinking time for one bounded go, in seconds, whatever the engine "
            "(go infinite runs until stop).",
            "--max-move-time",
        ),
    ] = 60.0,
) -> None:
    """Speak UGI (the Universal Game Interface) on stdin/stdout, for UGI tournament
    managers and GUIs: the positions in the game's own text, the moves in its notation."""
    from banmen.games.registry import get_game, make_engine
    from banmen.protocols._cap import check_cap
    from banmen.protocols.ugi import main

    try:
        check_cap(max_move_time, "--max-move-time")
        g = get_game(game)
        if g.ugi is None:
            raise ValueError(f"{g.title} is not played over UGI")
        player = make_engine(g, engine or g.default_engine)
    except ValueError as e:
        raise fail(str(e)) from None
    main(g, player, max_move_time=max_move_time)

"""``banmen gtp``: a Go engine speaking the Go Text Protocol on stdin/stdout."""

from __future__ import annotations

from typing import Annotated

import typer

from banmen.cli._app import number_option
from banmen.numbers import KOMI, SECONDS, Bounded

DEFAULT_ENGINE = "mcts"


def gtp(
    engine: Annotated[
        str,
        typer.Option(
            "--engine",
            help="Player spec for genmove (mcts, random[:seed=N], gtp:COMMAND, ...).",
        ),
    ] = DEFAULT_ENGINE,
    size: Annotated[
        int,
        number_option(
            Bounded("size", 5, 19, integer=True),
            "Board size until boardsize changes it (5-19).",
            "--size",
        ),
    ] = 19,
    rules: Annotated[
        str,
        typer.Option(
            "--rules",
            help="Rules preset (chinese, japanese, tromp-taylor, aga, new-zealand) or "
            "ko=...,scoring=...; scoring and legality follow them.",
        ),
    ] = "chinese",
    komi: Annotated[
        float | None,
        number_option(KOMI, "Komi (default: the rules' komi).", "--komi"),
    ] = None,
    max_move_time: Annotated[
        float,
        number_option(
            SECONDS,
            "Longest thinking time for one move, in seconds, whatever the clock "
            "(time_settings, time_left) or the engine spec says.",
            "--max-move-time",
        ),
    ] = 60.0,
) -> None:
    """Speak GTP version 2 on stdin/stdout, for Go GUIs (Sabaki, GoGui) and match
    programs; the GTP command list_commands lists the commands."""
    from banmen.cli._app import fail
    from banmen.games.go import Board
    from banmen.games.go.rules import komi_value, parse_rules
    from banmen.games.registry import make_engine
    from banmen.protocols._cap import check_cap
    from banmen.protocols.gtp import main

    try:
        check_cap(max_move_time, "--max-move-time")
        preset = parse_rules(rules)
        k = None if komi is None else komi_value(komi)
        Board(size, preset, k)  # checks the size
        player = make_engine("go", engine)
        warm_up = getattr(player, "warm_up", None)
        if callable(warm_up):
            warm_up()  # load (or compile) the search before the first genmove
    except (ValueError, RuntimeError) as e:
        raise fail(str(e)) from None
    main(player, size=size, rules=preset, komi=k, max_move_time=max_move_time)

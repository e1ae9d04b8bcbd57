"""``banmen serve``: the web app."""

from __future__ import annotations

from typing import Annotated

import typer

from banmen.cli._app import fail, number_option
from banmen.numbers import WORKERS, Bounded

PLAYER_HELP = (
    "Add your own player to a game's CPU choices, GAME:NAME=SPEC, repeatable "
    "(e.g. othello:greedy=python:examples/python/greedy_othello.py:Greedy, "
    "mattix:mine=ugi:./my_engine). GAME may be left out where the spec's kind is "
    "one game's own (gtp: Go, nboard: Othello). Each is started once before the "
    "server starts."
)


def serve(
    host: Annotated[str, typer.Option(help="Address to bind (default: this machine only).")] = (
        "127.0.0.1"
    ),
    port: Annotated[
        int, number_option(Bounded("port", 0, 65535, integer=True), "TCP port.")
    ] = 8000,
    db: Annotated[
        str | None,
        typer.Option(help="SQLite file for saved games (default: the user data directory)."),
    ] = None,
    workers: Annotated[
        int | None,
        number_option(
            WORKERS, "Engine worker processes, the cap on searches at once (default: one per core)."
        ),
    ] = None,
    allowed_host: Annotated[
        list[str] | None,
        typer.Option(
            "--allowed-host",
            help="Another host name (or address) pages may use to reach the server, "
            "repeatable. Accepted anyway: localhost, 127.0.0.1, [::1], the --host "
            "address, and with --host 0.0.0.0 this machine's name. '*' accepts any "
            "(only behind a proxy that checks it).",
        ),
    ] = None,
    limit: Annotated[
        list[str] | None,
        typer.Option(
            "--limit",
            help="Change one of the server's limits, NAME=VALUE, repeatable "
            "(e.g. max_sessions=50, max_solve_seconds=600; the names are in "
            "README's web server section).",
        ),
    ] = None,
    player: Annotated[list[str] | None, typer.Option("--player", help=PLAYER_HELP)] = None,
    share_runs_and_games: Annotated[
        bool,
        typer.Option(
            "--share-runs-and-games",
            help="Serve the arena runs (/api/arena: every player's spec, engine command "
            "lines, file paths) and saved games over HTTP (/api/saved, /api/record) to "
            "clients on other machines too. Without it only this machine's clients get "
            "them (others: a 403); pages, play and joining a game by its id are for all.",
        ),
    ] = False,
) -> None:
    """Start the web app (http://127.0.0.1:8000 by default)."""
    if not 0 < port < 65536:
        raise fail(f"port must be 1-65535, got {port}")
    if workers is not None and workers < 1:
        raise fail(f"--workers must be at least 1, got {workers}")
    from banmen.web.catalog import CATALOG
    from banmen.web.limits import Limits
    from banmen.web.players import check_player, parse_players
    from banmen.web.server import allowed_hosts
    from banmen.web.server import serve as run_server

    overrides: dict[str, str] = {}
    for item in limit or []:
        name, eq, value = item.partition("=")
        if not eq or not name.strip():
            raise fail(f"--limit takes NAME=VALUE, got {item!r}")
        overrides[name.strip()] = value.strip()
    try:
        limits = Limits().replace(overrides)
        allowed_hosts(host, allowed_host or [])
        players = parse_players(player or [], [e.name for e in CATALOG])
    except ValueError as e:
        raise fail(str(e)) from None
    for game, named in players.items():
        for name, spec in named.items():
            try:
                check_player(game, spec)
            except Exception as e:  # anything a user's player does at its start
                raise fail(f"--player {game}:{name}: cannot start {spec!r}: {_line(e)}") from None
            print(f"banmen: {game} player {name!r} ready ({spec})", flush=True)
    try:  # (a database that cannot be used: one line, before the server starts)
        run_server(
            host=host, port=port, db=db, workers=workers, allowed=allowed_host or [],
            limits=limits, players=players, share=share_runs_and_games,
        )  # fmt: skip
    except ValueError as e:
        raise fail(str(e)) from None


def _line(e: BaseException) -> str:
    text = " ".join(str(e).split()) or type(e).__name__
    return text if len(text) <= 300 else text[:297] + "..."

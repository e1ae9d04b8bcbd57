"""The ``banmen`` command: one typer app, one subcommand per task.

Errors in what the user typed (a bad layout, spec, move or option) end the command with a
one-line ``error: ...`` on stderr and exit status 2 — never a traceback. Set
``BANMEN_DEBUG=1`` to see the traceback of an unexpected failure.
"""

from __future__ import annotations

import os
import sys
from typing import Annotated

import typer

from banmen import __version__

app = typer.Typer(
    name="banmen",
    help="banmen (盤面): a workbench for board-game AI.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


class UserError(Exception):
    """A problem with the user's input, reported as one line."""


def fail(message: str) -> typer.Exit:
    typer.echo(f"error: {message}", err=True)
    return typer.Exit(2)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"banmen {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option("--version", callback=_version, is_eager=True, help="Print the version."),
    ] = False,
) -> None:
    pass


@app.command()
def serve(
    host: Annotated[str, typer.Option(help="Address to bind (default: this machine only).")] = (
        "127.0.0.1"
    ),
    port: Annotated[int, typer.Option(help="TCP port.")] = 8000,
    db: Annotated[
        str | None,
        typer.Option(help="SQLite file for saved games (default: the user data directory)."),
    ] = None,
    workers: Annotated[
        int | None,
        typer.Option(
            help="Engine worker processes, the cap on searches at once (default: one per core)."
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
) -> None:
    """Start the web app (http://127.0.0.1:8000 by default)."""
    if not 0 < port < 65536:
        raise fail(f"port must be 1-65535, got {port}")
    if workers is not None and workers < 1:
        raise fail(f"--workers must be at least 1, got {workers}")
    from banmen.web.limits import Limits
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
    except ValueError as e:
        raise fail(str(e)) from None
    run_server(
        host=host, port=port, db=db, workers=workers, allowed=allowed_host or [], limits=limits
    )


def _register() -> None:
    from banmen.cli import arena, bench, gtp, othello, play, shogi, solve, viz

    app.command(name="play")(play.play)
    # Layouts may start with a negative number ("-8,1,..."): not an option.
    app.command(name="solve", context_settings={"ignore_unknown_options": True})(solve.solve)
    app.command(name="bench")(bench.bench)
    app.add_typer(arena.app, name="arena")
    app.add_typer(viz.app, name="viz")
    app.command(name="perft")(othello.perft)
    app.command(name="nboard")(othello.nboard)
    app.command(name="gtp")(gtp.gtp)
    app.command(name="usi")(shogi.usi)


_register()


def main() -> None:
    try:
        app()
    except KeyboardInterrupt:
        typer.echo("interrupted", err=True)
        sys.exit(130)
    except Exception as e:  # last line of defence: no traceback reaches a user
        if os.environ.get("BANMEN_DEBUG"):
            raise
        typer.echo(f"error: {type(e).__name__}: {e} (set BANMEN_DEBUG=1 for details)", err=True)
        sys.exit(1)

"""The ``banmen`` command: one typer app, one subcommand per task.

Errors in what the user typed (a bad layout, spec, move or option) end the command with a
one-line ``error: ...`` on stderr and exit status 2 — never a traceback, never a box. That
holds for the errors typer finds itself (a missing argument, an unknown option, a number out
of range: :class:`_Banmen` below) as for the commands' own checks (:func:`fail`). Set
``BANMEN_DEBUG=1`` to see the traceback of an unexpected failure.

Start-up: this package imports typer and nothing heavy. Each command imports what it needs
(numpy, numba, the arena, the web server, matplotlib, cshogi) inside its function, and the
help is typer's plain one (``rich_markup_mode=None``): typer's rich help alone imports
markdown and syntax highlighting, about 0.2 s. docs/BENCHMARKS.md ("CLI start-up") has the
figures; tests/test_cli.py checks what ``--help`` imports.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import Annotated, Any

import typer
from typer.core import TyperGroup

from banmen import __version__

try:  # typer >= 0.22 carries its own copy of click
    from typer._click.exceptions import ClickException
except ImportError:  # pragma: no cover - older typer runs on click itself
    from click.exceptions import ClickException  # type: ignore[assignment]


def _given(e: BaseException) -> str:
    """The value a bad option was given, when typer's validator (pydantic) kept it."""
    errors = getattr(e.__cause__, "errors", None)
    try:
        first = errors()[0] if callable(errors) else None
    except Exception:
        return ""
    if isinstance(first, dict) and isinstance(first.get("input"), (str, int, float)):
        given = repr(first["input"])
        return f", got {given if len(given) <= 60 else given[:57] + '...'}"
    return ""


def usage_message(e: Exception) -> str:
    """A usage error as one line: click's message, whitespace collapsed, the value given
    (when known) and where to look."""
    message = " ".join(str(getattr(e, "format_message", lambda: str(e))()).split())
    message = message.rstrip(".") + _given(e)
    ctx = getattr(e, "ctx", None)
    if ctx is not None and getattr(ctx, "command_path", None):
        message += f" (see: {ctx.command_path} --help)"
    return message


class _Banmen(TyperGroup):
    """The root command: typer's standalone mode, except that usage errors (a bad option
    value, a negative number where none is allowed, a missing argument, an unknown
    option) end in one ``error:`` line on stderr and exit status 2, as :func:`fail` does,
    instead of typer's usage box."""

    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        windows_expand_args: bool = True,
        **extra: Any,
    ) -> Any:
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, False, windows_expand_args, **extra)
        try:
            rv = super().main(args, prog_name, complete_var, False, windows_expand_args, **extra)
        except ClickException as e:
            if type(e).__name__ == "NoArgsIsHelpError":  # bare `banmen` / `banmen arena`
                e.show()
            else:
                typer.echo(f"error: {usage_message(e)}", err=True)
            sys.exit(e.exit_code)
        except typer.Abort:  # end of input at a prompt
            typer.echo("error: aborted", err=True)
            sys.exit(1)
        # Not standalone, typer returns an exit status (from typer.Exit, --help, Ctrl-C)
        # or the command's return value (None).
        sys.exit(rv if isinstance(rv, int) else 0)


app = typer.Typer(
    cls=_Banmen,
    name="banmen",
    help="banmen (盤面): a workbench for board-game AI.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
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
    # A negative depth is a value out of range, not an unknown option.
    app.command(name="perft", context_settings={"ignore_unknown_options": True})(othello.perft)
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

"""The root of the ``banmen`` command: the typer app, and :func:`fail` for the commands.

A leaf of the CLI package: the command modules import it, and ``banmen.cli`` registers
them on :data:`app`. Errors in what the user typed (a bad layout, spec, move or option) end
the command with a one-line ``error: ...`` on stderr and exit status 2 — never a
traceback, never a box: :class:`_Banmen` does that for the errors typer finds itself,
:func:`fail` for the commands' own checks.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import Annotated, Any

import typer
from typer.core import TyperGroup

from banmen import __version__
from banmen.numbers import Bounded, NumberError

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


class DefaultToRun(TyperGroup):
    """A command group whose ``run`` is the default: ``banmen arena GAME ...`` and
    ``banmen train GAME EVALUATOR ...`` (and their ``--resume RUN``) mean ``... run ...``."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and args[0] not in ("--help", "-h"):
            args = ["run", *args]
        return super().parse_args(ctx, args)


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


#: Set by a command whose process holds nothing to clean up at exit (a solve, an analysis,
#: perft: no child process, no open database, no server): :func:`banmen.cli.main` then ends
#: the process as soon as its output is flushed, skipping the interpreter's teardown of
#: numba's compiled code (about 0.1 s of a warm solve's 0.6 s).
quick_exit = False


def leave_quickly() -> None:
    """Let :func:`banmen.cli.main` end this command's process at once (see
    :data:`quick_exit`)."""
    global quick_exit
    quick_exit = True


#: ``--json`` of a command that prints one result.
JsonOption = Annotated[bool, typer.Option("--json", help="Print one JSON object.")]

#: the GAME and POSITION arguments of ``solve`` and ``analyse``: the position is read by its
#: game (``GameDef.board_from_text``)
GameArgument = Annotated[
    str,
    typer.Argument(
        help="Game: any game with a solver (solve) or an analysis (analyse); banmen players "
        "lists games."
    ),
]
PositionArgument = Annotated[
    str,
    typer.Argument(
        help="The position, as the game reads one: a Mattix layout string, an Othello board "
        "string (64 squares X/O/- and the side to move, X or O) or transcript, a Go SGF record "
        "(text or a file name: the position after its main line), a shogi mate problem as "
        "SFEN (quoted; the attacker is the side to move), …"
    ),
]


def number(bounded: Bounded) -> Callable[[str], Any]:
    """An option's parser: the text read by ``bounded`` (:mod:`banmen.numbers`), a value it
    refuses a usage error (one ``error:`` line, exit status 2)."""

    def parse(text: str) -> Any:
        try:
            return bounded(text)
        except NumberError as e:
            raise typer.BadParameter(str(e).removeprefix(f"{bounded.what}: ")) from None

    parse.__name__ = bounded.what
    return parse


def number_option(bounded: Bounded, help: str, *flags: str) -> Any:
    """A typer option whose text is read by ``bounded`` (:func:`number`): every numeric
    option of every command is one, so none takes a number it cannot act on."""
    return typer.Option(*flags, parser=number(bounded), help=help)


def game_that(name: str, can: Callable[[Any], bool], cannot: str) -> Any:
    """The game called ``name`` (:func:`~banmen.games.registry.get_game`) if ``can(game)``;
    otherwise the usage error ``cannot`` (formatted with ``game`` and ``able``, the names
    of the games that can) — one line either way, as is an unknown game's."""
    from banmen.games.registry import UnknownGameError, get_game, load_games

    try:
        g = get_game(name)
    except UnknownGameError as e:
        raise fail(str(e)) from None
    if not can(g):
        able = [n for n, d in load_games(on_broken=lambda _: None).items() if can(d)]
        raise fail(cannot.format(game=g, able=", ".join(able)))
    return g


def fail(message: str) -> typer.Exit:
    """Print ``error: message`` on stderr; the exit (status 2) for the caller to raise."""
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

"""The ``banmen`` command: one typer app, one subcommand per task.

Errors in what the user typed (a bad layout, spec, move or option) end the command with a
one-line ``error: ...`` on stderr and exit status 2 — never a traceback, never a box. That
holds for the errors typer finds itself (a missing argument, an unknown option, a number out
of range: :class:`~banmen.cli._app._Banmen`) as for the commands' own checks (:func:`fail`). Set
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

import typer

from banmen.cli import (
    _app,
    analyse,
    arena,
    bench,
    gtp,
    othello,
    play,
    players,
    serve,
    shogi,
    solve,
    train,
    ugi,
    viz,
    warmup,
)
from banmen.cli._app import app, fail, usage_message

__all__ = ["app", "fail", "main", "usage_message"]

app.command(name="serve")(serve.serve)
app.command(name="play")(play.play)
# Layouts may start with a negative number ("-8,1,..."): not an option.
app.command(name="solve", context_settings={"ignore_unknown_options": True})(solve.solve)
app.command(name="analyse", context_settings={"ignore_unknown_options": True})(analyse.analyse)
app.command(name="bench")(bench.bench)
app.add_typer(arena.app, name="arena")
app.add_typer(viz.app, name="viz")
app.add_typer(train.app, name="train")
# A negative depth is a value out of range, not an unknown option.
app.command(name="perft", context_settings={"ignore_unknown_options": True})(othello.perft)
app.command(name="nboard")(othello.nboard)
app.command(name="gtp")(gtp.gtp)
app.command(name="usi")(shogi.usi)
app.command(name="warm-up")(warmup.warm_up)
app.command(name="ugi")(ugi.ugi)
app.command(name="players")(players.players)


def _exit_now(code: object) -> None:
    """End the process now: output flushed, logs closed, no interpreter teardown."""
    import logging

    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(code if isinstance(code, int) else (0 if code is None else 1))


def main() -> None:
    try:
        app()
    except SystemExit as e:  # (app() always ends this way)
        if _app.quick_exit:
            _exit_now(e.code)
        raise
    except KeyboardInterrupt:
        typer.echo("interrupted", err=True)
        sys.exit(130)
    except Exception as e:  # last line of defence: no traceback reaches a user
        if os.environ.get("BANMEN_DEBUG"):
            raise
        typer.echo(f"error: {type(e).__name__}: {e} (set BANMEN_DEBUG=1 for details)", err=True)
        sys.exit(1)

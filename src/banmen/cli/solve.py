"""``banmen solve``: the exact value of a position, or an honest "unknown".

Each game's solver and printer live in its own command module (``cli/mattix.py``,
``cli/othello.py``, ``cli/shogi.py``); :data:`SOLVERS` maps a game's name to them.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any

import typer

from banmen.cli._app import JsonOption, fail, leave_quickly
from banmen.cli.mattix import print_mattix, solve_mattix
from banmen.cli.othello import print_othello, solve_othello
from banmen.cli.shogi import HASH_DEFAULT, print_shogi, solve_shogi

#: a solve's JSON record and the function that prints it for people
_Solved = tuple[dict[str, Any], Callable[[dict[str, Any]], None]]


@dataclass(frozen=True)
class _Options:
    as_json: bool
    all_best: bool
    timeout: float | None
    nodes: int | None
    hash_mb: int | None


def _no_shogi_options(o: _Options) -> None:
    if o.nodes is not None or o.hash_mb is not None:
        raise fail("--nodes and --hash are for shogi only")


def _mattix(position: str, o: _Options) -> _Solved:
    _no_shogi_options(o)
    return solve_mattix(position, o.timeout), print_mattix


def _othello(position: str, o: _Options) -> _Solved:
    _no_shogi_options(o)
    return solve_othello(position, o.timeout, o.all_best), print_othello


def _shogi(position: str, o: _Options) -> _Solved:
    if o.nodes is not None and o.nodes < 1:
        raise fail(f"--nodes must be a positive integer, got {o.nodes}")
    if o.hash_mb is not None and not 1 <= o.hash_mb <= 65536:
        raise fail(f"--hash must be 1-65536 MB, got {o.hash_mb}")
    hash_mb = HASH_DEFAULT if o.hash_mb is None else o.hash_mb
    return solve_shogi(position, o.timeout, o.nodes, hash_mb), print_shogi


#: game name -> its solve (position, options) -> (JSON record, the record's printer)
SOLVERS: dict[str, Callable[[str, _Options], _Solved]] = {
    "mattix": _mattix,
    "othello": _othello,
    "shogi": _shogi,
}


#: The games ``banmen solve`` solves, as its help and its errors name them.
SOLVABLE = tuple(SOLVERS)


def solve(
    game: Annotated[str, typer.Argument(help=f"Game: {', '.join(SOLVABLE)}.")],
    position: Annotated[
        str,
        typer.Argument(
            help="The position: a Mattix layout string, an Othello board string "
            "(64 squares X/O/- and the side to move, X or O), or a shogi mate problem "
            "as SFEN (quoted; the attacker is the side to move)."
        ),
    ],
    as_json: JsonOption = False,
    all_best: Annotated[
        bool, typer.Option("--all", help="Othello: list every move that reaches the score.")
    ] = False,
    timeout: Annotated[
        float | None,
        typer.Option(help="Give up after this many seconds (then the answer is 'unknown')."),
    ] = None,
    nodes: Annotated[
        int | None,
        typer.Option(help="Shogi: give up after this many nodes (then 'unknown')."),
    ] = None,
    hash_mb: Annotated[
        int | None,
        typer.Option("--hash", help="Shogi: transposition table size in MB (default 256)."),
    ] = None,
) -> None:
    """Solve a position exactly and print its value and best line (shogi: the mate)."""
    leave_quickly()
    name = game.strip().lower()
    if name not in SOLVERS:
        from banmen.games import GAME_NAMES  # (the registry is not needed for --help)

        what = f"{name} cannot be solved here" if name in GAME_NAMES else f"unknown game {game!r}"
        raise fail(f"{what}: expected one of {', '.join(SOLVABLE)}")
    if timeout is not None and not timeout > 0:
        raise fail(f"--timeout must be a positive number of seconds, got {timeout}")
    try:
        rec, show = SOLVERS[name](position, _Options(as_json, all_best, timeout, nodes, hash_mb))
    except ValueError as e:
        raise fail(str(e)) from None
    if as_json:
        typer.echo(json.dumps(rec, ensure_ascii=False))
    else:
        show(rec)

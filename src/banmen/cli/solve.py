"""``banmen solve``: the exact value of a position, or an honest "unknown"."""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer

from banmen.cli._app import fail


def solve_mattix(layout: str, timeout: float | None = None) -> dict[str, Any]:
    """Solve a Mattix layout; the record the CLI prints (``value`` is the final score margin
    for the side to move under perfect play, or ``None`` if the time ran out first)."""
    from banmen.games import get_game
    from banmen.games.engines import AlphaBetaEngine
    from banmen.games.mattix import Board
    from banmen.search.limits import Limit

    board = Board.from_layout(layout)
    engine = AlphaBetaEngine(get_game("mattix"), Limit(time=timeout))
    engine.warm_up()  # so that "seconds" is the solve's own time
    r = engine.think(board)
    solved = r.exact
    return {
        "game": "mattix",
        "layout": board.layout(),
        "turn": board.turn,
        "status": "solved" if solved else "unknown",
        "stopped_by": r.stopped_by,
        "value": r.score if solved else None,
        "best_move": r.move if solved else None,
        "pv": r.pv if solved else [],
        # What the search had established when it stopped: a heuristic, not a result.
        "best_so_far": None if solved else {"move": r.move, "score": r.score, "depth": r.depth},
        "nodes": r.nodes,
        "seconds": r.seconds,
    }


#: The games ``banmen solve`` solves, as its help and its errors name them.
SOLVABLE = ("mattix", "othello", "shogi")


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
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
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
    from banmen.games import GAME_NAMES

    name = game.strip().lower()
    if name not in SOLVABLE:
        what = f"{name} cannot be solved here" if name in GAME_NAMES else f"unknown game {game!r}"
        raise fail(f"{what}: expected one of {', '.join(SOLVABLE)}")
    if timeout is not None and not timeout > 0:
        raise fail(f"--timeout must be a positive number of seconds, got {timeout}")
    if name == "shogi":
        _solve_shogi(position, as_json, timeout, nodes, hash_mb)
        return
    if nodes is not None or hash_mb is not None:
        raise fail("--nodes and --hash are for shogi only")
    try:
        if name == "othello":
            from banmen.cli.othello import print_othello, solve_othello

            orec = solve_othello(position, timeout, all_best)
            if as_json:
                typer.echo(json.dumps(orec))
            else:
                print_othello(orec)
            return
        rec = solve_mattix(position, timeout)
    except ValueError as e:
        raise fail(str(e)) from None
    if as_json:
        typer.echo(json.dumps(rec))
        return
    side = f"player {rec['turn']} ({'row' if rec['turn'] == 1 else 'column'}) to move"
    if rec["status"] == "solved":
        if rec["best_move"] is None:
            typer.echo(f"value: {rec['value']:+d} (the game is over; {side})")
        else:
            typer.echo(
                f"value: {rec['value']:+d} — final score margin for {side} "
                "under perfect play (proved)"
            )
            typer.echo(f"best move: {rec['best_move']}")
            typer.echo(f"best line: {' '.join(rec['pv'])}")
    else:
        b = rec["best_so_far"]
        typer.echo(
            f"unknown: stopped by {rec['stopped_by']} before the solve finished; "
            f"best so far {b['move']} (score {b['score']:+d} at depth {b['depth']}, not proved)"
        )
    nps = rec["nodes"] / rec["seconds"] if rec["seconds"] > 0 else 0.0
    typer.echo(f"nodes: {rec['nodes']:,} in {rec['seconds']:.3f} s ({nps / 1e6:.1f} M nodes/s)")


def _solve_shogi(
    position: str, as_json: bool, timeout: float | None, nodes: int | None, hash_mb: int | None
) -> None:
    from banmen.cli.shogi import HASH_DEFAULT, print_shogi, solve_shogi

    if nodes is not None and nodes < 1:
        raise fail(f"--nodes must be a positive integer, got {nodes}")
    if hash_mb is not None and not 1 <= hash_mb <= 65536:
        raise fail(f"--hash must be 1-65536 MB, got {hash_mb}")
    try:
        rec = solve_shogi(position, timeout, nodes, HASH_DEFAULT if hash_mb is None else hash_mb)
    except ValueError as e:
        raise fail(str(e)) from None
    if as_json:
        typer.echo(json.dumps(rec, ensure_ascii=False))
    else:
        print_shogi(rec)

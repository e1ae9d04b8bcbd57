"""Othello commands: ``banmen perft``, ``banmen nboard`` and the Othello part of ``solve``."""

from __future__ import annotations

import json
import time
from typing import Annotated, Any

import typer

from banmen.cli._app import JsonOption, fail


def perft(
    depth: Annotated[int, typer.Argument(help="Plies from the standard start.", min=1, max=20)] = 9,
    pass_free: Annotated[
        bool, typer.Option("--pass-free", help="A pass uses no ply (Egaroucid's mode 2).")
    ] = False,
    as_json: JsonOption = False,
) -> None:
    """Count the Othello game tree from the start: leaves, moves made, time.

    A pass uses one ply (``--pass-free``: none); a finished game is one leaf at any
    remaining depth. Every move of every ply is made, passes included.
    """
    from banmen.games.othello import Board
    from banmen.games.othello.kernels import U
    from banmen.games.othello.kernels import perft as perft_kernel

    b = Board()
    perft_kernel(U(b.black), U(b.white), 1, False, pass_free)  # load the compiled code
    t0 = time.perf_counter()
    leaves, made = perft_kernel(U(b.black), U(b.white), depth, False, pass_free)
    seconds = time.perf_counter() - t0
    leaves, nodes = int(leaves), int(made)
    rec = {
        "depth": depth,
        "convention": "pass-free" if pass_free else "pass counts as a ply",
        "leaves": leaves,
        "nodes": nodes,
        "seconds": seconds,
        "moves_per_second": nodes / seconds if seconds > 0 else None,
    }
    if as_json:
        typer.echo(json.dumps(rec))
        return
    convention = "pass-free: a pass uses no ply" if pass_free else "a pass uses a ply"
    typer.echo(
        f"perft({depth}) = {leaves:,} leaves ({convention}); {nodes:,} moves made, "
        f"passes among them, in {seconds:.3f} s = {nodes / max(seconds, 1e-9) / 1e6:.1f} M moves/s"
    )


def solve_othello(position: str, timeout: float | None, all_best: bool) -> dict[str, Any]:
    from banmen.games.othello import BLACK, Board, square_name
    from banmen.games.othello.endgame import EndgameSolver

    board = Board.from_string(position)
    p, o = (board.black, board.white) if board.turn == BLACK else (board.white, board.black)
    solver = EndgameSolver()
    sol = solver.solve(p, o, time_limit=timeout, all_best=all_best)
    return {
        "game": "othello",
        "board": board.to_string(),
        "to_move": "X" if board.turn == BLACK else "O",
        "empties": board.empties(),
        "status": sol.status,
        "stopped_by": sol.stopped_by or None,
        "score": sol.score,
        "best_moves": [square_name(m) for m in sol.best_moves],
        "nodes": sol.nodes,
        "seconds": sol.seconds,
    }


def print_othello(rec: dict[str, Any]) -> None:
    side = "black (X)" if rec["to_move"] == "X" else "white (O)"
    if rec["status"] == "solved":
        typer.echo(
            f"score: {rec['score']:+d} — final disc difference for {side} to move under "
            f"perfect play (proved; {rec['empties']} empties)"
        )
        label = "best moves" if len(rec["best_moves"]) > 1 else "best move"
        typer.echo(f"{label}: {' '.join(rec['best_moves']) or '(none: the game is over)'}")
    else:
        typer.echo(f"unknown: stopped by {rec['stopped_by']} before the solve finished")
    nps = rec["nodes"] / rec["seconds"] if rec["seconds"] > 0 else 0.0
    typer.echo(f"nodes: {rec['nodes']:,} in {rec['seconds']:.3f} s ({nps / 1e6:.1f} M nodes/s)")


def nboard(
    max_move_time: Annotated[
        float,
        typer.Option(
            "--max-move-time",
            help="Longest thinking time for one go or hint, in seconds, whatever the depth.",
        ),
    ] = 60.0,
) -> None:
    """Speak the NBoard protocol (version 2) on stdin/stdout, for Othello GUIs."""
    from banmen.protocols._cap import check_cap
    from banmen.protocols.nboard import main

    try:
        check_cap(max_move_time, "--max-move-time")
    except ValueError as e:
        raise fail(str(e)) from None
    main(max_move_time=max_move_time)

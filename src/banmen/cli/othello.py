"""Othello commands: ``banmen perft`` and ``banmen nboard``."""

from __future__ import annotations

import json
import time
from typing import Annotated

import typer

from banmen.cli._app import JsonOption, fail, leave_quickly, number_option
from banmen.numbers import SECONDS


def perft(
    depth: Annotated[int, typer.Argument(help="Plies from the standard start.", min=1, max=20)] = 9,
    pass_free: Annotated[
        bool, typer.Option("--pass-free", help="A pass uses no ply (Egaroucid's mode 2).")
    ] = False,
    bulk: Annotated[
        bool,
        typer.Option(
            "--bulk",
            help="Count the last ply's moves without making them (as Edax and Egaroucid count).",
        ),
    ] = False,
    as_json: JsonOption = False,
) -> None:
    """Count the Othello game tree from the start: leaves, moves made, time.

    A pass uses one ply (``--pass-free``: none); a finished game is one leaf at any
    remaining depth. Every move of every ply is made, passes included, unless ``--bulk``:
    then the last ply's moves are counted from the legal-move mask, the way the field's
    programs count perft, and only the leaves are reported.
    """
    leave_quickly()
    from banmen.games.othello import Board
    from banmen.games.othello.kernels import U, perft_bulk
    from banmen.games.othello.kernels import perft as perft_kernel

    b = Board()
    black, white = U(b.black), U(b.white)
    nodes: int | None = None
    if bulk:
        perft_bulk(black, white, 1, False, pass_free)  # load the compiled code
        t0 = time.perf_counter()
        leaves = int(perft_bulk(black, white, depth, False, pass_free))
    else:
        perft_kernel(black, white, 1, False, pass_free)
        t0 = time.perf_counter()
        count, made = perft_kernel(black, white, depth, False, pass_free)
        leaves, nodes = int(count), int(made)
    seconds = time.perf_counter() - t0
    rec = {
        "depth": depth,
        "convention": "pass-free" if pass_free else "pass counts as a ply",
        "counting": "bulk: last ply counted, not made" if bulk else "every move made",
        "leaves": leaves,
        "nodes": nodes,
        "seconds": seconds,
        "moves_per_second": nodes / seconds if nodes is not None and seconds > 0 else None,
        "leaves_per_second": leaves / seconds if seconds > 0 else None,
    }
    if as_json:
        typer.echo(json.dumps(rec))
        return
    convention = "pass-free: a pass uses no ply" if pass_free else "a pass uses a ply"
    rate = max(seconds, 1e-9)
    if nodes is None:
        typer.echo(
            f"perft({depth}) = {leaves:,} leaves ({convention}); the last ply counted, not "
            f"made, in {seconds:.3f} s = {leaves / rate / 1e6:.1f} M leaves/s"
        )
        return
    typer.echo(
        f"perft({depth}) = {leaves:,} leaves ({convention}); {nodes:,} moves made, "
        f"passes among them, in {seconds:.3f} s = {nodes / rate / 1e6:.1f} M moves/s"
    )


def nboard(
    engine: Annotated[
        str | None,
        typer.Option(
            "--engine",
            help="Player spec behind go (default: banmen's alphabeta at NBoard's depth; "
            "python:FILE.py:NAME for your own). Hints come from banmen's search.",
        ),
    ] = None,
    max_move_time: Annotated[
        float,
        number_option(
            SECONDS,
            "Longest thinking time for one go or hint, in seconds, whatever the depth.",
            "--max-move-time",
        ),
    ] = 60.0,
) -> None:
    """Speak the NBoard protocol (version 2) on stdin/stdout, for Othello GUIs."""
    from banmen.games.registry import make_engine
    from banmen.protocols._cap import check_cap
    from banmen.protocols.nboard import main

    try:
        check_cap(max_move_time, "--max-move-time")
        player = make_engine("othello", engine) if engine else None
    except ValueError as e:
        raise fail(str(e)) from None
    main(max_move_time=max_move_time, engine=player)

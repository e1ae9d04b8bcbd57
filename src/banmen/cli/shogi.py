"""Shogi commands: ``banmen usi`` and the tsume-shogi part of ``banmen solve``."""

from __future__ import annotations

from typing import Annotated, Any

import typer

HASH_DEFAULT = 256


def solve_shogi(
    sfen: str, timeout: float | None, nodes: int | None, hash_mb: int = HASH_DEFAULT
) -> dict[str, Any]:
    """Solve the mate problem ``sfen``; the record ``solve shogi`` prints.

    ``status`` is ``mate`` (``pv`` is the composer's main line, ``length`` its plies),
    ``no_mate`` (proved) or ``unknown`` (a limit came first: ``reason`` says which; then
    nothing is claimed). ``kif`` and ``csa`` are the line in those notations.
    Raises :class:`~banmen.games.shogi.ShogiError` for a bad SFEN.
    """
    # (here, not at the top: `banmen --help` must not load cshogi, numpy or numba)
    from banmen.games.shogi import tsume
    from banmen.games.shogi.formats import csa_moves, kif_moves, normalize_sfen, parse_sfen
    from banmen.search.limits import Limit

    problem = normalize_sfen(sfen)
    parse_sfen(problem)  # the position's legality, before any search starts
    tsume.warm_up()  # compiled code loaded first, so that "seconds" is the solve's own time
    r = tsume.solve(problem, Limit(time=timeout, nodes=nodes), hash_mb=hash_mb)
    pv = list(r.pv) if r.status == "mate" else []
    return {
        "game": "shogi",
        "sfen": problem,
        "status": r.status,
        "length": (r.length or len(pv)) if r.status == "mate" else None,
        "shortest": bool(r.shortest) if r.status == "mate" else False,
        "reason": r.reason,
        "pv": pv,
        "kif": kif_moves(problem, pv),
        "csa": csa_moves(problem, pv),
        "nodes": r.nodes,
        "seconds": r.seconds,
        "limits": {"time": timeout, "nodes": nodes, "hash_mb": hash_mb},
    }


def _unknown_reason(rec: dict[str, Any]) -> str:
    reason, limits = rec["reason"], rec["limits"]
    if reason == "timeout" and limits["time"] is not None:
        return f"timeout after {limits['time']:.1f} s"
    if reason == "node_limit" and limits["nodes"] is not None:
        return f"node limit of {limits['nodes']:,} reached"
    if reason == "memory":
        return f"out of memory (--hash {limits['hash_mb']} MB)"
    return str(reason or "stopped")


def print_shogi(rec: dict[str, Any]) -> None:
    """The human form of a :func:`solve_shogi` record."""
    if rec["status"] == "mate":
        how = "shortest" if rec["shortest"] else "found, not proved shortest"
        typer.echo(f"mate in {rec['length']} ({how})")
    elif rec["status"] == "no_mate":
        typer.echo("no mate (proved)")
    else:
        typer.echo(f"unknown: {_unknown_reason(rec)} — no mate was found, none was ruled out")
    nps = rec["nodes"] / rec["seconds"] if rec["seconds"] > 0 else 0.0
    typer.echo(f"nodes: {rec['nodes']:,} in {rec['seconds']:.3f} s ({nps / 1e6:.2f} M nodes/s)")
    if rec["pv"]:
        typer.echo(f"usi: {' '.join(rec['pv'])}")
        typer.echo(f"kif: {' '.join(rec['kif'])}")
        typer.echo(f"csa: {' '.join(rec['csa'])}")


def usi(
    hash_mb: Annotated[
        int,
        typer.Option(
            "--hash",
            min=1,
            max=65536,
            help="Transposition table in MB until the GUI sets USI_Hash.",
        ),
    ] = HASH_DEFAULT,
) -> None:
    """Speak USI on stdin/stdout as a tsume-shogi engine (go mate), for shogi GUIs
    (ShogiGUI, 将棋所, ShogiHome)."""
    from banmen.protocols.usi import main

    main(hash_mb=hash_mb)

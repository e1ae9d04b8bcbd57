"""The tsume-shogi solver for ``banmen solve shogi SFEN`` (:class:`~banmen.games.Solver`):
df-pn with the answer counted as composers count it (docs/TSUME.md)."""

from __future__ import annotations

from typing import Any

from banmen.games._base import SolveLimits, Solver
from banmen.games.shogi.board import Board

#: the transposition table's size when the caller names none, in MB
HASH_DEFAULT = 256


def solve(board: Board, limits: SolveLimits) -> dict[str, Any]:
    """Solve the mate problem on ``board`` (its start position); the record ``solve
    shogi`` prints.

    ``status`` is ``mate`` (``pv`` is the composer's main line, ``length`` its plies),
    ``no_mate`` (proved) or ``unknown`` (a limit came first: ``reason`` says which; then
    nothing is claimed). ``kif`` and ``csa`` are the line in those notations."""
    # (here, not at the top: `banmen --help` must not load cshogi, numpy or numba)
    from banmen.games.shogi import tsume
    from banmen.games.shogi.formats import csa_moves, kif_moves
    from banmen.search.limits import Limit

    problem = board.sfen()
    hash_mb = HASH_DEFAULT if limits.hash_mb is None else limits.hash_mb
    tsume.warm_up()  # compiled code loaded first, so that "seconds" is the solve's own time
    r = tsume.solve(problem, Limit(time=limits.time, nodes=limits.nodes), hash_mb=hash_mb)
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
        "limits": {"time": limits.time, "nodes": limits.nodes, "hash_mb": hash_mb},
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


def lines(rec: dict[str, Any]) -> list[str]:
    """The human form of a :func:`solve` record."""
    out = []
    if rec["status"] == "mate":
        how = "shortest" if rec["shortest"] else "found, not proved shortest"
        out.append(f"mate in {rec['length']} ({how})")
    elif rec["status"] == "no_mate":
        out.append("no mate (proved)")
    else:
        out.append(f"unknown: {_unknown_reason(rec)} — no mate was found, none was ruled out")
    nps = rec["nodes"] / rec["seconds"] if rec["seconds"] > 0 else 0.0
    out.append(f"nodes: {rec['nodes']:,} in {rec['seconds']:.3f} s ({nps / 1e6:.2f} M nodes/s)")
    if rec["pv"]:
        out.append(f"usi: {' '.join(rec['pv'])}")
        out.append(f"kif: {' '.join(rec['kif'])}")
        out.append(f"csa: {' '.join(rec['csa'])}")
    return out


SOLVER: Solver[Board] = Solver(solve, lines, takes=("nodes", "hash_mb"))

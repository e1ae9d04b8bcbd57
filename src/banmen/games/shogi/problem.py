"""A mate problem as front ends show it: checking the position, the steps of a solution's
line, and one line saying what a solve proved.

>>> check_sfen("4k4/9/4P4/9/9/9/9/9/9 b G 1")["turn"]
'b'
>>> [s["kif"] for s in line_steps("4k4/9/4P4/9/9/9/9/9/9 b G 1", ["G*5b"])]
['▲５二金打']
"""

from __future__ import annotations

from typing import Any

import cshogi

from banmen.games.shogi.errors import InvalidBoardError, ShogiError
from banmen.games.shogi.formats import kif_move, normalize_sfen, parse_sfen, parse_usi_move

__all__ = ["MAX_SFEN_CHARS", "check_sfen", "line_steps", "move_names", "summary"]

#: the longest text :func:`check_sfen` reads (a position needs at most about 150)
MAX_SFEN_CHARS = 400


def check_sfen(text: Any) -> dict[str, Any]:
    """Check a problem position: ``{"sfen": canonical, "turn": "b"|"w", "notes": [...]}``
    (``notes``: what is unusual about it as a problem); raises :class:`ShogiError`, also
    when the defender (the side not to move) has no king."""
    if not isinstance(text, str):
        raise InvalidBoardError("SFEN must be a string")
    if len(text) > MAX_SFEN_CHARS:
        raise InvalidBoardError(
            f"SFEN is {len(text)} characters long; a position needs at most ~150"
        )
    sfen = normalize_sfen(text)
    board_text, turn = sfen.split()[:2]
    names = {"b": "black (sente)", "w": "white (gote)"}
    defender = "w" if turn == "b" else "b"
    if ("k" if turn == "b" else "K") not in board_text:
        raise InvalidBoardError(f"{names[defender]} has no king: there is nothing to mate")
    board = parse_sfen(sfen)  # the checks that need the rules (the side not to move in check)
    notes = []
    if board.is_check():
        notes.append(f"{names[turn]}, the attacker, is in check")
    return {"sfen": sfen, "turn": turn, "notes": notes}


def line_steps(sfen: str, pv: list[str]) -> list[dict[str, str]]:
    """The moves of ``pv`` from ``sfen`` (already checked): each as ``usi``, ``kif``
    (``▲７二香成(75)``) and ``sfen``, the position after it. Stops at the first move that
    is not legal (a solver bug must not crash anything)."""
    board = parse_sfen(sfen)
    steps: list[dict[str, str]] = []
    prev: int | None = None
    for usi in pv:
        try:
            move = parse_usi_move(board, usi)
        except ShogiError:
            break
        mark = "▲" if board.turn == cshogi.BLACK else "△"
        kif = mark + kif_move(move, prev)
        board.push(move)
        prev = move
        steps.append({"usi": usi, "kif": kif, "sfen": str(board.sfen())})
    return steps


def move_names(sfen: str, moves: list[str]) -> dict[str, str]:
    """The KIF name of each of ``moves`` (USI), each a move from ``sfen`` (already
    checked), marked with the mover's ▲ or △: ``{"G*5b": "▲５二金打"}``. A move that is
    not legal there keeps its USI text (a solver bug must not crash anything).

    >>> move_names("4k4/9/4P4/9/9/9/9/9/9 b G 1", ["G*5b", "5c5b+"])
    {'G*5b': '▲５二金打', '5c5b+': '▲５二歩成(53)'}
    """
    board = parse_sfen(sfen)
    mark = "▲" if board.turn == cshogi.BLACK else "△"
    out: dict[str, str] = {}
    for usi in moves:
        try:
            out[usi] = mark + kif_move(parse_usi_move(board, usi))
        except ShogiError:
            out[usi] = usi
    return out


def _count(n: int) -> str:
    if n >= 1_000_000:
        return f"{n / 1e6:.1f} M"
    if n >= 10_000:
        return f"{n / 1e3:.0f} k"
    return str(n)


_REASONS = {
    "timeout": "the time limit was reached",
    "node_limit": "the node limit was reached",
    "memory": "the solver ran out of memory",
    "stopped": "the solve was stopped",
    "crashed": "the solver process failed",
}


def summary(result: dict[str, Any], seconds: float | None = None) -> str:
    """One line saying what a result (:class:`~banmen.games.shogi.tsume.TsumeResult`'s
    fields) proved, and what it did not; ``seconds``: the time limit it was given.

    >>> summary({"status": "no_mate", "nodes": 120, "seconds": 0.01})
    'No mate: proved that every defence escapes (120 nodes, 0.0 s).'
    """
    status = result.get("status")
    nodes = int(result.get("nodes") or 0)
    took = float(result.get("seconds") or 0.0)
    spent = f"{_count(nodes)} nodes, {took:.1f} s"
    if status == "mate":
        n = int(result.get("length") or len(result.get("pv") or []))
        if result.get("shortest"):
            return f"Solved: mate in {n}, proved shortest ({spent})."
        why = _REASONS.get(str(result.get("reason")), "it was not shortened")
        return (
            f"Solved: mate in {n}, not proved shortest — a mate is proved, but {why} "
            f"before a shorter one was ruled out ({spent})."
        )
    if status == "no_mate":
        return f"No mate: proved that every defence escapes ({spent})."
    reason = str(result.get("reason") or "")
    why = _REASONS.get(reason, "the solve ended early")
    if reason == "timeout" and seconds:
        why = f"the time limit ({seconds:g} s) was reached"
    return f"Unknown: {why} — neither a mate nor the absence of one was proved ({spent})."

"""Analysis: the engine's value of every legal move of a position, as the search deepens.

Where :meth:`banmen.engine.Engine.think` answers "which move?", an analysis answers
"what is each move worth, and how sure is that?". Every row says what it is:

* ``exact``: proved under perfect play (Mattix: the final margin; Othello: the final disc
  difference), in the game's own unit, from the mover's view;
* ``depth``: a depth-limited search's value at ``depth`` plies (an estimate, in the same
  unit);
* ``winrate``: a Monte Carlo tree search's win rate (0-1) after ``visits`` simulations;
* ``mate`` / ``no_mate`` / ``open`` (mate problems): a mate in ``value`` plies proved, no
  mate proved, or nothing proved yet.

An analysis runs within a :class:`~banmen.search.limits.Limit` (its time is a wall-clock
promise) or until its ``stop`` flag is set, and hands every improvement to ``on_update``
(the whole table each time, best first). A value stopped half-way by the limit is never
reported: a move keeps the value of the last search that finished.

:func:`analyse_children` is the analysis of the alpha-beta games (Mattix, Othello): each
move's child position searched by the game's engine, one ply deeper each round, until every
value is exact.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from banmen.engine import Engine, GameBoard
from banmen.search.limits import STOP_REQUESTED, Deadline, Limit, StopFlag

__all__ = [
    "MoveValue",
    "Analysis",
    "analyse_children",
    "analyse_with",
    "KINDS",
    "OnUpdate",
    "mate_rank",
    "proved",
]

#: what a row's value is (see the module docstring)
KINDS = ("exact", "depth", "winrate", "mate", "no_mate", "open")


def proved(kind: str, extra: Mapping[str, Any]) -> bool:
    """Whether a row of this ``kind`` (and ``extra``) holds a proved value: exact, no mate,
    or a mate proved shortest (``extra["shortest"]``; a mate row without it counts as
    shortest)."""
    return kind in ("exact", "no_mate") or (kind == "mate" and bool(extra.get("shortest", True)))


_MATE_RANK = {"mate": 0, "open": 1, "no_mate": 2}


def mate_rank(kind: str, value: float | None) -> tuple[int, float]:
    """Where a row of a mate analysis stands, best first: mates (shortest first), then open
    checks, then proved escapes."""
    return _MATE_RANK[kind], value if value is not None else 0


@dataclass
class MoveValue:
    """One legal move's value, from the mover's view; ``kind`` says what it is."""

    move: str
    value: float | None
    kind: str
    depth: int = 0
    visits: int = 0
    pv: list[str] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        if not d["extra"]:
            d.pop("extra")
        return d


@dataclass
class Analysis:
    """Every legal move's value (``moves``, best first) and what stopped the analysis:
    ``complete`` when every value is proved (``stopped_by`` ``"exact"``), otherwise the
    limit that ended it (``time``, ``depth``, ``nodes``, ``stop``)."""

    game: str
    moves: list[MoveValue]
    seconds: float = 0.0
    nodes: int = 0
    stopped_by: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def best(self) -> str | None:
        return self.moves[0].move if self.moves else None

    @property
    def complete(self) -> bool:
        """Every value proved (a mate's length proved shortest too)."""
        return bool(self.moves) and all(proved(m.kind, m.extra) for m in self.moves)

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "game": self.game,
            "best": self.best,
            "complete": self.complete,
            "stopped_by": self.stopped_by,
            "seconds": round(self.seconds, 4),
            "nodes": self.nodes,
            "moves": [m.to_dict() for m in self.moves],
        }
        if self.extra:
            d["extra"] = self.extra
        return d


OnUpdate = Callable[[Analysis], None]


def _rank(rows: list[MoveValue]) -> list[MoveValue]:
    """Best first: by value (unknown last); on equal values, an exact one first."""
    return sorted(rows, key=lambda r: (r.value is None, -(r.value or 0.0), r.kind != "exact"))


def analyse_children(
    game: str,
    engine: Engine[Any],
    board: GameBoard,
    limit: Limit,
    on_update: OnUpdate | None = None,
    stop: StopFlag | None = None,
    max_depth: int = 64,
    exact_after: int | None = None,
    exact_engine: Engine[Any] | None = None,
    pass_name: str | None = "pass",
) -> Analysis:
    """Each legal move's value by searching the position it leaves with ``engine`` to 1,
    2, 3, … plies (the move itself makes one more), until every value is exact or
    ``limit`` (time, depth, nodes) or ``stop`` ends it. The engine's value of the child
    position is negated; a forced pass after the move (Othello) — the only legal move,
    named ``pass_name`` (the game's ``GameDef.pass_name``; ``None``: the game has no
    pass) — is played through, and the sign follows the side to move.

    With ``exact_after``, the rounds stop at that depth and the moves not yet proved are
    then solved one by one, best first, by ``exact_engine`` (default ``engine``) with no
    limit but ``stop`` and the analysis's own: where a whole solve is within reach, that
    proves every value sooner than deepening ply by ply."""

    t0 = time.perf_counter()
    flag = stop if stop is not None else StopFlag()
    mover = board.turn
    rows = {m: MoveValue(board.move_name(m), None, "open") for m in board.legal_moves}
    children: dict[int, tuple[GameBoard, int]] = {}
    for m in board.legal_moves:
        child = board.copy()  # type: ignore[attr-defined]
        child.push(m)
        while pass_name is not None and not child.is_game_over() and _only(child, pass_name):
            child.push(child.legal_moves[0])
        children[m] = (child, 1 if child.turn == mover else -1)
    by_name = {board.move_name(m): m for m in board.legal_moves}
    out = Analysis(game, [])
    nodes = 0

    def publish(why: str) -> Analysis:
        out.moves = _rank(list(rows.values()))
        out.seconds = time.perf_counter() - t0
        out.nodes = nodes
        out.stopped_by = why
        if on_update is not None:
            on_update(out)
        return out

    why = "depth"
    # The deadline marks the flag as a stop request, not as time: each child search
    # clears a time mark as its own deadline's, and would run on.
    with Deadline(flag, limit.time, reason=STOP_REQUESTED):
        top = max_depth if limit.depth is None else min(max_depth, limit.depth)
        for depth in range(1, top + 1):
            for m, (child, sign) in children.items():
                if rows[m].kind == "exact" or flag.is_set():
                    continue
                r = engine.think(child, Limit(depth=depth), stop=flag)
                nodes += r.nodes
                if r.score is None or (not r.exact and r.depth < depth):
                    continue  # cut short: the move keeps its last finished value
                name = board.move_name(m)
                kind = "exact" if r.exact else "depth"
                rows[m] = MoveValue(name, sign * r.score, kind, r.depth + 1, pv=[name, *r.pv])
                publish("")
                if limit.nodes is not None and nodes >= limit.nodes:
                    why = "nodes"
                    flag.set()
            if flag.is_set() or all(r.kind == "exact" for r in rows.values()):
                break
            if exact_after is not None and depth >= exact_after:
                solver = exact_engine or engine
                for row in _rank(list(rows.values())):
                    m = by_name[row.move]
                    child, sign = children[m]
                    if row.kind == "exact" or flag.is_set():
                        continue
                    r = solver.think(child, Limit(), stop=flag)
                    nodes += r.nodes
                    if not r.exact or r.score is None:
                        continue
                    rows[m] = MoveValue(row.move, sign * r.score, "exact", r.depth + 1,
                                        pv=[row.move, *r.pv])  # fmt: skip
                    publish("")
                break
        if why != "nodes" and flag.is_set():
            timed_out = limit.time is not None and time.perf_counter() - t0 >= limit.time
            why = "time" if timed_out else "stop"
    if why in ("time", "nodes"):
        flag.clear()  # our own mark
    if all(r.kind == "exact" for r in rows.values()):
        why = "exact"
    return publish(why)


def _only(board: GameBoard, name: str) -> bool:
    """Whether the only legal move on ``board`` is the one called ``name``."""
    legal = board.legal_moves
    return len(legal) == 1 and board.move_name(legal[0]) == name


def analyse_with(
    game: str, engine: Engine[Any], board: GameBoard, limit: Limit, stop: StopFlag | None = None
) -> Analysis:
    """Each legal move's value by ``engine``'s own ``think`` on the position the move
    leaves (negated where the other side moves there): one search per move, the time
    shared between them. What a user's player (``banmen analyse --engine python:…``)
    reports is its estimate, never called proved unless it says ``exact``; a move whose
    search gave no score is ``open``."""
    t0 = time.perf_counter()
    mover = board.turn
    moves = list(board.legal_moves)
    share = Limit(
        time=None if limit.time is None else limit.time / max(1, len(moves)),
        depth=None if limit.depth is None else max(1, limit.depth - 1),
        nodes=None if limit.nodes is None else max(1, limit.nodes // max(1, len(moves))),
    )
    rows: list[MoveValue] = []
    nodes = 0
    why = "depth"
    for m in moves:
        name = board.move_name(m)
        if stop is not None and stop.is_set():
            rows.append(MoveValue(name, None, "open"))
            why = "stop"
            continue
        child = board.copy()  # type: ignore[attr-defined]
        child.push(m)
        r = engine.think(child, share, stop=stop)  # (a finished game: the engine's own answer)
        nodes += r.nodes
        why = r.stopped_by or why
        sign = 1 if child.turn == mover else -1
        if r.score is None:
            rows.append(MoveValue(name, None, "open", pv=[name]))
            continue
        kind = "exact" if r.exact else "depth"
        rows.append(MoveValue(name, sign * r.score, kind, r.depth + 1, pv=[name, *r.pv]))
    out = Analysis(game, _rank(rows), time.perf_counter() - t0, nodes, why)
    out.extra["engine"] = engine.name
    return out

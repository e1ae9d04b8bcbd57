"""Tsume analysis: what is proved about each check of the attacker.

Every checking move of the side to move gets a row (:mod:`banmen.analysis`): ``mate``
with ``value`` the length in plies (counted as composers count, see
:mod:`banmen.games.shogi.tsume`; ``extra["shortest"]`` says whether no shorter mate
after that check exists), ``no_mate`` (proved: the defender escapes), or ``open`` (not
proved either way yet). The same compiled df-pn and table serve every check, in two
rounds: first each check is proved or disproved at any length, then each proved one is
shortened (a mate within two plies less, until that is disproved). Rows are filled in as
the proofs land; a limit leaves the rest ``open``. A depth limit bounds the mates looked
for: with ``Limit(depth=d)`` only mates of at most ``d`` plies are proved, a check with
none stays ``open`` (no mate is proved only at any length) and the analysis ends
``stopped_by`` ``"depth"`` — ``depth=1`` is the quick one a worker loads the solver with.
"""

from __future__ import annotations

import time
from functools import cache
from typing import TYPE_CHECKING

from banmen.analysis import Analysis, MoveValue, OnUpdate, mate_rank
from banmen.games.shogi.compiled import CompiledBackend
from banmen.games.shogi.formats import parse_sfen
from banmen.games.shogi.tsume import warm_up
from banmen.search.limits import Limit, StopFlag
from banmen.search.proof import INF

if TYPE_CHECKING:
    from banmen.games.shogi.board import Board

__all__ = ["analyse", "HASH_MB"]

#: the transposition table of an analysis, in MB
HASH_MB = 256


@cache
def _load() -> None:
    warm_up()


def _order(rows: list[MoveValue]) -> list[MoveValue]:
    return sorted(rows, key=lambda r: mate_rank(r.kind, r.value))


def analyse(
    board: Board, limit: Limit, on_update: OnUpdate | None = None, stop: StopFlag | None = None
) -> Analysis:
    """What is proved about each check of the side to move of ``board`` (a mate problem:
    the attacker to move), within ``limit`` (time, nodes; depth: the longest mate looked
    for, in plies) and ``stop``."""
    _load()  # the solver compiled or loaded before the clock starts
    t0 = time.perf_counter()
    b = CompiledBackend(parse_sfen(board.sfen()), limit, stop, None, HASH_MB)
    out = Analysis("shogi", [])

    def run() -> Analysis:
        checks = b.attacker_moves()
        rows = {m: MoveValue(b.usi(m), None, "open") for m in checks}
        why = "exact"

        def publish(reason: str) -> None:
            out.moves = _order(list(rows.values()))
            out.seconds = time.perf_counter() - t0
            out.nodes = int(b.solver.nodes)
            out.stopped_by = reason
            if on_update is not None:
                on_update(out)

        publish("")
        lengths: dict[int, int] = {}
        # after the check, mates of at most depth - 1 more plies (a bound: none is no proof)
        bound = INF if limit.depth is None else limit.depth - 1
        for m in checks:  # round 1: mate or not, at any length (or within the depth)
            b.play(m)
            res = b.prove(bound, or_node=False)
            b.undo()
            if res.status == "unknown":
                why = res.reason or "stopped"
                break
            if res.status == "disproved":
                if bound < INF:
                    why = "depth"  # no mate that short; longer ones are not looked for
                    continue
                rows[m] = MoveValue(b.usi(m), None, "no_mate")
            else:
                assert res.length is not None
                lengths[m] = 1 + res.length
                rows[m] = MoveValue(b.usi(m), lengths[m], "mate", extra={"shortest": False})
            publish("")
        if why in ("exact", "depth"):
            for m in sorted(lengths, key=lengths.__getitem__):  # round 2: shorten each
                while True:
                    if lengths[m] < 3:
                        res_status = "disproved"
                    else:
                        b.play(m)
                        res = b.prove(lengths[m] - 3, or_node=False)
                        b.undo()
                        res_status = res.status
                    if res_status == "unknown":
                        why = res.reason or "stopped"
                        break
                    if res_status == "disproved":
                        rows[m].extra["shortest"] = True
                        break
                    assert res.length is not None
                    lengths[m] = 1 + res.length
                    rows[m] = MoveValue(b.usi(m), lengths[m], "mate", extra={"shortest": False})
                publish("")
                if why not in ("exact", "depth"):
                    break
        reason = {"timeout": "time", "node_limit": "nodes", "stopped": "stop"}.get(why, why)
        publish(reason if why != "exact" else "exact")
        return out

    try:
        return b.solver.session(run)
    finally:
        b.solver.release()

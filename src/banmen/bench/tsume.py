"""Tsume-shogi benchmark: banmen's df-pn solver beside cshogi's built-in C++ df-pn.

Every problem of the shared suite (``shogi/tsume.tsv``: ``name``, ``sfen``, ``mate_length``,
``source``) is given to both solvers in the same run, one after the other on one thread, with
the same wall-clock limit per problem:

* banmen: :func:`banmen.games.shogi.tsume.solve` (pure Python df-pn; its length is counted
  under composition rules, futile interpositions not counted), in this process.
* cshogi: ``cshogi.DfPn`` (C++). Its ``search`` holds the GIL and cannot be stopped from a
  timer thread, so it runs in a child process that is killed at the limit (``unknown``, its
  nodes not known). ``search`` returning ``False`` within the limit is recorded as its
  ``no_mate`` answer. Its line counts every ply, futile interpositions included.

Each answer is classified against the published ``mate_length``: ``solved`` (a mate found),
``length_ok`` (the length equals the published one), ``false_no_mate`` (``no_mate`` on a row
with a published length) and, for ``nomate`` / ``nomate_within_N`` rows, ``nomate_right``
(``no_mate``, or a mate longer than ``N``; ``None`` while undecided).

The per-problem limit is 30 s for ``tsume`` and 5 s for ``tsume-quick`` (5 s and 1 s with
``--quick``); the environment variable ``BANMEN_TSUME_LIMIT`` (seconds) overrides both.
``BANMEN_TSUME_TSV`` points at another copy of the suite.
"""

from __future__ import annotations

import csv
import json
import math
import os
import queue
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

__all__ = [
    "TSUME_TSV",
    "HASH_MB",
    "GROUPS",
    "tsume_rows",
    "tsume_limit",
    "group_of",
    "classify",
    "solve_banmen",
    "CshogiDfPn",
    "summarise",
    "bench_tsume",
    "quick_rows",
]

#: The tsume suite in the shared reference data (``BANMEN_TSUME_TSV`` overrides).
TSUME_TSV = Path(__file__).resolve().parents[3] / ".." / "shared" / "data" / "shogi" / "tsume.tsv"

#: banmen's transposition table for each problem (the solver's default everywhere).
HASH_MB = 256

#: Summary groups, in report order. ``13-31`` takes every published length from 12 to 40
#: and ``41+`` the rest: the suite has none between 32 and 40.
GROUPS = ("1-11", "13-31", "41+", "nomate", "unpublished")

SOLVERS = ("banmen", "cshogi")


def tsume_path() -> Path:
    env = os.environ.get("BANMEN_TSUME_TSV")
    return Path(env) if env else TSUME_TSV


def tsume_rows(path: Path | None = None) -> list[dict[str, str]]:
    """The suite's rows as ``{"name", "sfen", "mate_length", "source"}`` (strings)."""
    src = path or tsume_path()
    if not src.is_file():
        raise ValueError(f"tsume suite not found at {src}: expected the shared reference data")
    with open(src, newline="", encoding="utf-8") as fh:
        return [
            {k: (row.get(k) or "").strip() for k in ("name", "sfen", "mate_length", "source")}
            for row in csv.DictReader(fh, delimiter="\t")
        ]


def tsume_limit(default: float) -> float:
    """The per-problem limit in seconds: ``BANMEN_TSUME_LIMIT`` if set, else ``default``."""
    env = os.environ.get("BANMEN_TSUME_LIMIT")
    if not env:
        return default
    try:
        value = float(env)
    except ValueError:
        value = float("nan")
    if not value > 0 or value == float("inf"):
        raise ValueError(f"BANMEN_TSUME_LIMIT must be a positive number of seconds, got {env!r}")
    return value


def _published(mate_length: str) -> tuple[str, int | None]:
    """``("mate", n)``, ``("nomate", None)``, ``("nomate_within", n)`` or ``("unpublished",
    None)`` for a ``mate_length`` cell."""
    cell = mate_length.strip()
    if cell.isdigit():
        return "mate", int(cell)
    if cell == "nomate":
        return "nomate", None
    if cell.startswith("nomate_within_") and cell.removeprefix("nomate_within_").isdigit():
        return "nomate_within", int(cell.removeprefix("nomate_within_"))
    if not cell:
        return "unpublished", None
    raise ValueError(f"unknown mate_length {mate_length!r} in the tsume suite")


def group_of(mate_length: str) -> str:
    """The summary group (one of :data:`GROUPS`) of a row's ``mate_length``."""
    kind, n = _published(mate_length)
    if kind == "mate":
        assert n is not None
        return "1-11" if n <= 11 else "13-31" if n <= 40 else "41+"
    return "unpublished" if kind == "unpublished" else "nomate"


def classify(answer: dict[str, Any], mate_length: str) -> dict[str, Any]:
    """The verdict on one solver's ``answer`` (``status`` and ``length``) for a row.

    ``outcome`` sums it up in one word: ``length_ok``, ``other_length`` (a mate of another
    length), ``mate`` (a mate where no length is published), ``false_no_mate``,
    ``nomate_right``, ``false_mate`` (a mate within the ``nomate`` bound), ``no_mate`` (where
    no length is published), ``unknown`` or ``error``.
    """
    kind, n = _published(mate_length)
    status, length = answer["status"], answer.get("length")
    solved = status == "mate"
    length_ok = (solved and length == n) if kind == "mate" else None
    false_no_mate = kind == "mate" and status == "no_mate"
    nomate_right: bool | None = None
    if kind == "nomate":
        nomate_right = True if status == "no_mate" else False if solved else None
    elif kind == "nomate_within":
        assert n is not None
        if status == "no_mate":
            nomate_right = True
        elif solved:
            nomate_right = length is not None and length > n
    if status in ("unknown", "error"):
        outcome = status
    elif kind == "mate":
        outcome = "length_ok" if length_ok else "other_length" if solved else "false_no_mate"
    elif kind == "unpublished":
        outcome = status
    else:
        outcome = "nomate_right" if nomate_right else "false_mate"
    return {
        "solved": solved,
        "length_ok": length_ok,
        "false_no_mate": false_no_mate,
        "nomate_right": nomate_right,
        "outcome": outcome,
    }


def solve_banmen(sfen: str, limit: float, hash_mb: int = HASH_MB) -> dict[str, Any]:
    """banmen's answer for one problem, in this process, a fresh table for it."""
    from banmen.games.shogi.tsume import solve
    from banmen.search.limits import Limit

    t0 = time.perf_counter()
    try:
        r = solve(sfen, Limit(time=limit), hash_mb=hash_mb)
    except Exception as e:  # a bad row must not end a run of half an hour
        return _error(e, time.perf_counter() - t0)
    return {
        "status": r.status,
        "length": r.length,
        "pv": r.pv,
        "shortest": r.shortest,
        "reason": r.reason,
        "nodes": r.nodes,
        "seconds": r.seconds,
    }


def _error(e: BaseException, seconds: float) -> dict[str, Any]:
    return {
        "status": "error",
        "length": None,
        "pv": [],
        "reason": f"{type(e).__name__}: {e}",
        "nodes": None,
        "seconds": seconds,
    }


def _cshogi_worker() -> None:
    """The child's loop: an SFEN per line in; a JSON line ``["searched", found, nodes,
    seconds]`` then ``["pv", [usi, ...]]`` (or ``["error", text]``) out."""
    import cshogi

    def send(msg: list[Any]) -> None:
        sys.stdout.write(json.dumps(msg) + "\n")
        sys.stdout.flush()

    send(["ready"])
    for line in sys.stdin:
        try:
            board = cshogi.Board(line.strip())
            dfpn = cshogi.DfPn()
            t0 = time.perf_counter()
            found = bool(dfpn.search(board))
            seconds = time.perf_counter() - t0
            send(["searched", found, int(dfpn.searched_node), seconds])
            send(["pv", [cshogi.move_to_usi(m) for m in dfpn.get_pv(board)] if found else []])
            del dfpn
        except Exception as e:
            send(["error", f"{type(e).__name__}: {e}"])


class CshogiDfPn:
    """cshogi's DfPn in a child process, killed (and restarted) when it overruns the limit.

    ``seconds`` is the child's own time around ``search``; a killed search is reported as
    ``unknown`` with the wall time to the kill and no node count.
    """

    def __init__(self) -> None:
        self._proc: subprocess.Popen[str] | None = None
        self._lines: queue.Queue[str | None] = queue.Queue()

    def _start(self) -> subprocess.Popen[str]:
        if self._proc is None:
            code = "from banmen.bench.tsume import _cshogi_worker; _cshogi_worker()"
            proc = subprocess.Popen(
                [sys.executable, "-c", code],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
                bufsize=1,
            )
            lines: queue.Queue[str | None] = queue.Queue()

            def read() -> None:
                assert proc.stdout is not None
                with proc.stdout:
                    for line in proc.stdout:
                        lines.put(line)
                lines.put(None)

            threading.Thread(target=read, daemon=True).start()
            self._proc, self._lines = proc, lines
            # the limit starts once cshogi is loaded, not while Python starts
            if self._receive(60.0) != ["ready"]:
                self._kill()
                raise OSError("the cshogi worker did not start")
        return self._proc

    def _kill(self) -> None:
        if self._proc is not None:
            self._proc.kill()
            self._proc.wait()
            if self._proc.stdin is not None:
                self._proc.stdin.close()
            # its reader thread meets the end of stdout and closes it
        self._proc = None

    def _receive(self, timeout: float) -> list[Any] | None:
        """The child's next message, or ``None`` if none came within ``timeout``."""
        try:
            line = self._lines.get(timeout=max(0.0, timeout))
        except queue.Empty:
            return None
        if line is None:
            raise EOFError("the cshogi worker exited")
        msg: list[Any] = json.loads(line)
        return msg

    def close(self) -> None:
        if self._proc is not None and self._proc.stdin is not None:
            try:
                self._proc.stdin.close()
                self._proc.wait(5)
            except (OSError, subprocess.TimeoutExpired):
                pass
        self._kill()

    def __enter__(self) -> CshogiDfPn:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def solve(self, sfen: str, limit: float) -> dict[str, Any]:
        from banmen.games.shogi.sfen import normalize_sfen

        try:
            sfen = normalize_sfen(sfen)
        except Exception as e:
            return _error(e, 0.0)
        t0 = time.perf_counter()
        try:
            proc = self._start()
            assert proc.stdin is not None
            t0 = time.perf_counter()
            proc.stdin.write(sfen + "\n")
            proc.stdin.flush()
            msg = self._receive(limit - (time.perf_counter() - t0))
            if msg is None:
                wall = time.perf_counter() - t0
                self._kill()
                return {
                    "status": "unknown",
                    "length": None,
                    "pv": [],
                    "reason": "timeout",
                    "nodes": None,
                    "seconds": wall,
                }
            if msg[0] == "error":
                return {**_error(RuntimeError(), time.perf_counter() - t0), "reason": msg[1]}
            _, found, nodes, seconds = msg
            line = self._receive(60.0)
        except (EOFError, OSError, ValueError) as e:  # the child died (out of memory, ...)
            self._kill()
            return _error(e, time.perf_counter() - t0)
        if line is None or line[0] != "pv":  # no line came: start afresh next time
            self._kill()
        pv: list[str] = line[1] if line is not None and line[0] == "pv" else []
        return {
            "status": "mate" if found else "no_mate",
            "length": len(pv) if found else None,
            "pv": pv,
            "reason": None,
            "nodes": nodes,
            "seconds": seconds,
        }


def _percentile(sorted_values: list[float], q: float) -> float:
    """The nearest-rank percentile: the smallest value with a share ``q`` of the values at
    or below it."""
    return sorted_values[max(0, math.ceil(q * len(sorted_values)) - 1)]


def summarise(rows: Iterable[dict[str, Any]], solver: str) -> dict[str, Any]:
    """Counts and times of ``solver`` over ``rows`` (bench rows: ``row[solver]`` holds the
    answer and its verdict)."""
    answers = [r[solver] for r in rows]
    secs = sorted(float(a["seconds"]) for a in answers)
    solved = [a for a in answers if a["solved"]]
    solved_secs = sum(float(a["seconds"]) for a in solved)
    solved_nodes = sum(int(a["nodes"] or 0) for a in solved)
    length_equal = sum(a["length_ok"] is True for a in answers)
    out: dict[str, Any] = {
        "problems": len(answers),
        "solved": len(solved),
        "length_equal": length_equal,
        "length_equal_share": length_equal / len(answers) if answers else None,
        "length_equal_share_of_solved": length_equal / len(solved) if solved else None,
        "false_no_mate": sum(a["false_no_mate"] for a in answers),
        "no_mate": sum(a["status"] == "no_mate" for a in answers),
        "unknown": sum(a["status"] == "unknown" for a in answers),
        "errors": sum(a["status"] == "error" for a in answers),
        "nomate_right": sum(a["nomate_right"] is True for a in answers),
        "false_mate": sum(a["nomate_right"] is False for a in answers),
        "seconds_median": statistics.median(secs) if secs else None,
        "seconds_p90": _percentile(secs, 0.9) if secs else None,
        "seconds_max": secs[-1] if secs else None,
        "seconds_total": sum(secs),
        "solved_seconds_total": solved_secs,
        "solved_nodes_total": solved_nodes,
        "nodes_per_second": solved_nodes / solved_secs if solved_secs > 0 else None,
    }
    if solver == "banmen":
        out["shortest_proved"] = sum(bool(a.get("shortest")) for a in answers)
    return out


def bench_tsume(rows: list[dict[str, str]], limit: float, hash_mb: int = HASH_MB) -> dict[str, Any]:
    """Give every row to banmen and to cshogi's DfPn, ``limit`` seconds each, one at a time."""
    out_rows: list[dict[str, Any]] = []
    with CshogiDfPn() as cs:
        for row in rows:
            mate_length = row["mate_length"]
            rec: dict[str, Any] = {
                "name": row["name"],
                "sfen": row["sfen"],
                "mate_length": mate_length,
                "group": group_of(mate_length),
            }
            for solver in SOLVERS:
                ans = (
                    solve_banmen(row["sfen"], limit, hash_mb)
                    if solver == "banmen"
                    else cs.solve(row["sfen"], limit)
                )
                rec[solver] = {**ans, **classify(ans, mate_length)}
            out_rows.append(rec)
    groups: dict[str, Any] = {}
    for g in GROUPS:
        members = [r for r in out_rows if r["group"] == g]
        if members:
            groups[g] = {s: summarise(members, s) for s in SOLVERS}
    return {
        "time_limit": limit,
        "hash_mb": hash_mb,
        "threads": 1,
        "suite": str(tsume_path()),
        "counting": {
            "banmen": "composition rules: futile interpositions not counted",
            "cshogi": "every ply, futile interpositions included",
        },
        "groups": groups,
        "total": {s: summarise(out_rows, s) for s in SOLVERS},
        "problems": out_rows,
    }


def quick_rows(rows: list[dict[str, str]]) -> list[dict[str, str]]:
    """The rows of ``tsume-quick``: published mates of 1-11 plies."""
    return [r for r in rows if group_of(r["mate_length"]) == "1-11"]

"""Tsume-shogi benchmark: banmen's df-pn solver beside cshogi's DfPn and KomoringHeights.

Every problem of the suite (``shogi/tsume.tsv``: ``name``, ``sfen``, ``mate_length``,
``source``) is given to each solver in the same run, one after the other on one thread (all
of them on problem 1, then all on problem 2, ...), with the same wall-clock limit per problem:

* banmen: :func:`banmen.games.shogi.tsume.solve` in this process (its length is counted
  under composition rules, futile interpositions not counted).
* cshogi: ``cshogi.DfPn`` (C++). Its ``search`` holds the GIL and cannot be stopped from a
  timer thread, so it runs in a child process that is killed at the limit (``unknown``, its
  nodes not known). ``search`` returning ``False`` within the limit is recorded as its
  ``no_mate`` answer. Its line counts every ply, futile interpositions included; it stops at
  the first mate it proves, so it never proves a length shortest.
* kh: KomoringHeights (a USI engine, one of the anchors of ``../shared/anchors``), when it is
  found: ``--kh`` / ``BANMEN_KH``, else the anchors' build directory. One process for the whole
  run (``usinewgame`` between problems, restarted if it dies), ``Threads 1``, ``USI_Hash`` =
  banmen's table, ``PostSearchLevel MinLength`` (after its first mate it proves the shortest,
  counting every ply, futile interpositions included), ``go mate <ms>`` with the limit.

Times: ``seconds`` is each solver's time for the whole problem; ``first_seconds`` the time at
which a first mate (of any length) was proved; ``shortest_seconds`` the time at which the
answer's length was proved shortest (``None`` when it was not). KomoringHeights' times are
taken when its lines arrive, less its set-up (``setup_seconds``: it clears its table at every
``go``, before its own clock starts — 5-25 ms for 256 MB — estimated as the least lag between
an ``info`` line's ``time`` and its arrival; ``wall_seconds`` keeps the time to its answer
from sending ``go mate``). Its first mate is the line ``info ... string # 1st result: mate in
N``; it answers ``checkmate <pv>`` both when its shortening finished and when its time ran
out, so an answer that came before the limit is the one proved shortest (an answer at the
limit is its best line so far). It prints no line at the end of its shortening, so its node
count is that of its last ``info`` line (``nodes_seconds`` into the search, about once a
second).

The time ratio to KomoringHeights of a solver is the geometric mean of ``solver_time /
kh_time`` over the problems both proved (a first mate; a shortest one), times under
:data:`TIME_FLOOR` counting as that floor (in the geometric means of times too). Above 1:
slower than KomoringHeights.

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
import re
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Literal, Self

import cshogi

from banmen.clients._lines import LineProcess
from banmen.games.shogi.formats import normalize_sfen
from banmen.search.limits import Limit

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
    "KH_DEFAULT",
    "kh_path",
    "parse_kh_info",
    "parse_kh_checkmate",
    "KomoringHeights",
    "time_ratio",
    "summarise",
    "bench_tsume",
    "quick_rows",
]

#: The tsume suite, shipped with banmen (bench/data/README.md; ``BANMEN_TSUME_TSV`` overrides).
TSUME_TSV = Path(__file__).resolve().parent / "data" / "shogi" / "tsume.tsv"

#: banmen's transposition table for each problem (the solver's default everywhere).
HASH_MB = 256

#: Summary groups, in report order. ``13-31`` takes every published length from 12 to 40
#: and ``41+`` the rest: the suite has none between 32 and 40.
GROUPS = ("1-11", "13-31", "41+", "nomate", "unpublished")

SOLVERS = ("banmen", "cshogi")

#: Where ``../shared/anchors/build.sh`` puts KomoringHeights by default.
KH_DEFAULT = (
    Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    / "banmen-anchors"
    / "KomoringHeights"
)

#: Times below this count as this in the ratios: KomoringHeights reports whole milliseconds,
#: and under a millisecond the clocks measure the call overheads, not the search.
TIME_FLOOR = 1e-3


def tsume_path() -> Path:
    env = os.environ.get("BANMEN_TSUME_TSV")
    return Path(env) if env else TSUME_TSV


def tsume_rows(path: Path | None = None) -> list[dict[str, str]]:
    """The suite's rows as ``{"name", "sfen", "mate_length", "source"}`` (strings)."""
    src = path or tsume_path()
    if not src.is_file():
        raise ValueError(f"tsume suite not found at {src}: expected banmen/bench/data")
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
    # (here: the cshogi child process imports this module, and needs no numba)
    from banmen.games.shogi.tsume import solve, warm_up

    warm_up()  # (once per process in effect: the compiled code is loaded, not timed)
    t0 = time.perf_counter()
    try:
        r = solve(sfen, Limit(time=limit), hash_mb=hash_mb)
    except Exception as e:  # a bad row must not end a run of half an hour
        return _error(e, time.perf_counter() - t0)
    first = r.first_seconds
    return {
        "status": r.status,
        "length": r.length,
        "pv": r.pv,
        "shortest": r.shortest,
        "reason": r.reason,
        "nodes": r.nodes,
        "seconds": r.seconds,
        "first_seconds": first if r.status == "mate" else None,
        "shortest_seconds": r.seconds if r.status == "mate" and r.shortest else None,
    }


def _error(e: BaseException, seconds: float) -> dict[str, Any]:
    return {
        "status": "error",
        "length": None,
        "pv": [],
        "reason": f"{type(e).__name__}: {e}",
        "nodes": None,
        "seconds": seconds,
        "first_seconds": None,
        "shortest": False,
        "shortest_seconds": None,
    }


def _cshogi_worker() -> None:
    """The child's loop: an SFEN per line in; a JSON line ``["searched", found, nodes,
    seconds]`` then ``["pv", [usi, ...]]`` (or ``["error", text]``) out."""

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


class _ChildSolver:
    """A solver in a child process: :meth:`solve` checks the problem, ``_solve`` asks the
    child; ``with`` closes the child at the end."""

    def close(self) -> None:
        raise NotImplementedError

    def _solve(self, sfen: str, limit: float) -> dict[str, Any]:
        raise NotImplementedError

    def solve(self, sfen: str, limit: float) -> dict[str, Any]:
        """The answer for ``sfen`` within ``limit`` seconds (a bad SFEN is an ``error``)."""
        try:
            sfen = normalize_sfen(sfen)
        except Exception as e:
            return _error(e, 0.0)
        return self._solve(sfen, limit)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class CshogiDfPn(_ChildSolver):
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

    def _solve(self, sfen: str, limit: float) -> dict[str, Any]:
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
                return {**_error(RuntimeError(), wall), "status": "unknown", "reason": "timeout"}
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
            # df-pn stops at its first proof: that is its first mate, never a shortest one
            "first_seconds": seconds if found else None,
            "shortest": False,
            "shortest_seconds": None,
        }


def kh_path(explicit: str | Path | None = None) -> Path | None:
    """The KomoringHeights binary to run: ``explicit``, else ``BANMEN_KH``, else
    :data:`KH_DEFAULT` if it is there; ``None`` when none is found. A path named explicitly
    (argument or environment) that is not an executable file is a ``ValueError``."""
    named = explicit if explicit is not None else os.environ.get("BANMEN_KH") or None
    if named is None:
        return KH_DEFAULT if os.access(KH_DEFAULT, os.X_OK) and KH_DEFAULT.is_file() else None
    path = Path(named).expanduser()
    if not (path.is_file() and os.access(path, os.X_OK)):
        raise ValueError(f"KomoringHeights not found at {path}: expected its executable")
    return path


#: ``info`` fields followed by one value (USI); ``score`` takes two, ``string`` / ``pv`` the rest.
_INFO_ONE = frozenset(
    {"depth", "seldepth", "time", "nodes", "nps", "hashfull", "multipv", "currmove", "cpuload"}
)
_INFO_INT = frozenset({"depth", "seldepth", "time", "nodes", "nps", "hashfull", "multipv"})
#: KomoringHeights' report of a finished search: ``# 1st result: mate in 23(upper_bound:23)``,
#: ``# 2nd result: mate in 19(upper_bound:21)``, or a disproof (``{disproof_hand= ...}``).
_RESULT_MATE = re.compile(r"result: mate in (\d+)")


def parse_kh_info(line: str) -> dict[str, Any]:
    """The fields of one USI ``info`` line: ints for the counters, ``score`` as
    ``(kind, value)``, ``pv`` as a list of moves, ``string`` as text; ``mate_in`` (int) when
    the string is KomoringHeights' report of a mate found."""
    tokens = line.split()
    out: dict[str, Any] = {}
    i = 1 if tokens[:1] == ["info"] else 0
    while i < len(tokens):
        key = tokens[i]
        if key == "string":
            out["string"] = " ".join(tokens[i + 1 :])
            found = _RESULT_MATE.search(out["string"])
            if found:
                out["mate_in"] = int(found.group(1))
            break
        if key == "pv":
            out["pv"] = tokens[i + 1 :]
            break
        if key == "score":
            kind, value = (tokens[i + 1 : i + 3] + ["", ""])[:2]
            out["score"] = (kind, int(value) if value.lstrip("+-").isdigit() else None)
            i += 3
            continue
        if key in _INFO_ONE and i + 1 < len(tokens):
            value = tokens[i + 1]
            if key not in _INFO_INT:
                out[key] = value
            elif value.lstrip("-").isdigit():
                out[key] = int(value)
            i += 2
            continue
        i += 1  # an unknown word (``lowerbound``, a newer field): step over it
    return out


def parse_kh_checkmate(line: str) -> tuple[str, list[str]]:
    """``(status, pv)`` of a ``checkmate`` answer: ``("mate", moves)``, ``("no_mate", [])``
    for ``nomate``, ``("unknown", [])`` for ``timeout``; ``("error", [word])`` for anything
    else that is not a line of moves (``notimplemented``, an empty answer)."""
    words = line.split()[1:]
    if words == ["nomate"]:
        return "no_mate", []
    if words == ["timeout"]:
        return "unknown", []
    if not words or not all(_USI_MOVE.fullmatch(w) for w in words):
        return "error", words[:1]
    return "mate", words


_USI_MOVE = re.compile(r"[1-9][a-i][1-9][a-i]\+?|[PLNSGBR]\*[1-9][a-i]")


class KomoringHeights(_ChildSolver):
    """KomoringHeights as a USI child process, kept for the whole run.

    A problem: ``usinewgame`` and ``isready`` (whatever it does on a new game is over before
    the clock starts), ``position sfen``, ``go mate <ms>``; then its ``info`` lines until
    ``checkmate`` (it clears its table at every ``go``: see ``setup_seconds``). If no
    answer comes within ``grace`` seconds past the limit it is sent ``stop``; if none comes
    ``grace`` seconds after that it is killed and the problem recorded as an ``error`` (so is
    a process that exits); the next problem starts a new one.
    """

    def __init__(self, path: Path, hash_mb: int = HASH_MB, grace: float = 2.0) -> None:
        self.path = path
        self.hash_mb = hash_mb
        self.grace = grace
        self.name: str | None = None
        self._proc: LineProcess | None = None

    def options(self) -> dict[str, str]:
        return {
            "Threads": "1",
            "USI_Hash": str(self.hash_mb),
            "PostSearchLevel": "MinLength",
        }

    def _line(self, proc: LineProcess, deadline: float) -> str:
        line = proc.next_line(deadline)
        if line is None:
            raise EOFError(f"KomoringHeights ({self.path}) exited")
        return line

    def _wait_for(self, proc: LineProcess, word: str, seconds: float) -> list[str]:
        """The lines up to ``word`` (``TimeoutError`` after ``seconds``)."""
        deadline = time.monotonic() + seconds
        seen: list[str] = []
        while (line := self._line(proc, deadline)) != word:
            seen.append(line)
        return seen

    def _start(self) -> LineProcess:
        if self._proc is not None and self._proc.alive():
            return self._proc
        self._kill()
        proc = LineProcess([str(self.path)])
        self._proc = proc
        proc.send("usi")
        for line in self._wait_for(proc, "usiok", 30.0):
            if line.startswith("id name "):
                self.name = " ".join(line.split()[2:])
        for name, value in self.options().items():
            proc.send(f"setoption name {name} value {value}")
        proc.send("isready")
        self._wait_for(proc, "readyok", 120.0)  # it allocates its table here
        return proc

    def _kill(self) -> None:
        if self._proc is not None:
            self._proc.kill()
        self._proc = None

    def close(self) -> None:
        if self._proc is not None:
            self._proc.close()
        self._proc = None

    def _solve(self, sfen: str, limit: float) -> dict[str, Any]:
        t0 = time.perf_counter()
        info: dict[str, Any] = {}
        first: float | None = None
        first_ms: int | None = None
        setup: float | None = None
        stopped = False
        try:
            proc = self._start()
            proc.send("usinewgame")
            proc.send("isready")
            self._wait_for(proc, "readyok", 60.0)
            proc.send(f"position sfen {sfen}")
            t0 = time.perf_counter()
            proc.send(f"go mate {max(1, round(limit * 1000))}")
            deadline = time.monotonic() + limit + self.grace
            while True:
                try:
                    line = self._line(proc, deadline)
                except TimeoutError:
                    if stopped:
                        raise TimeoutError(
                            f"no answer {limit + 2 * self.grace:g} s after go mate (killed)"
                        ) from None
                    proc.send("stop")
                    stopped = True
                    deadline = time.monotonic() + self.grace
                    continue
                if line.startswith("checkmate"):
                    break
                if line.startswith("info"):
                    now = time.perf_counter() - t0
                    fields = parse_kh_info(line)
                    if first is None and "mate_in" in fields:
                        first, first_ms = now, fields.get("time")
                    if "time" in fields:
                        # its clock starts after it has cleared its table (every ``go``:
                        # 5-25 ms for 256 MB): the least lag of a line is that set-up
                        lag = max(0.0, now - fields["time"] / 1000)
                        setup = lag if setup is None else min(setup, lag)
                        if "nodes" in fields:
                            info = fields
        except (OSError, EOFError) as e:  # TimeoutError is an OSError: a hang
            self._kill()
            return _error(e, time.perf_counter() - t0)
        wall = time.perf_counter() - t0
        status, pv = parse_kh_checkmate(line)
        if status == "error":
            return {**_error(RuntimeError(), wall), "reason": f"KomoringHeights: {line}"}
        # It answers ``checkmate <pv>`` both when its shortening finished and when its time
        # ran out (its best line so far): only an answer before the limit is proved shortest
        # (on the wall clock, which is never behind its own: a near miss counts as not).
        shortest = status == "mate" and wall < limit and not stopped
        # Its times on its own clock, as banmen's and cshogi's are their search's: the
        # wall clock since ``go`` less the set-up before its clock started.
        seconds = wall - (setup or 0.0)
        if first is not None:
            first -= setup or 0.0
        elif status == "mate":  # no report line: it was proved by now
            first = seconds
        reason = "stopped" if stopped else "timeout" if wall >= limit else None
        return {
            "status": status,
            "length": len(pv) if status == "mate" else None,
            "pv": pv,
            "shortest": shortest,
            "reason": None if status == "no_mate" or shortest else reason,
            "nodes": info.get("nodes"),
            # its node count is from its last report, ``nodes_seconds`` into the search
            "nodes_seconds": info["time"] / 1000 if info else None,
            "kh_nps": info.get("nps"),
            "seconds": seconds,
            "wall_seconds": wall,
            "setup_seconds": setup,
            "first_seconds": first,
            "kh_first_ms": first_ms,
            "shortest_seconds": seconds if shortest else None,
        }


def _percentile(sorted_values: list[float], q: float) -> float:
    """The nearest-rank percentile: the smallest value with a share ``q`` of the values at
    or below it."""
    return sorted_values[max(0, math.ceil(q * len(sorted_values)) - 1)]


def _geomean(values: list[float]) -> float | None:
    return math.exp(statistics.fmean(math.log(v) for v in values)) if values else None


def time_ratio(rows: Iterable[dict[str, Any]], solver: str, key: str) -> dict[str, Any]:
    """The geometric mean of ``row[solver][key] / row["kh"][key]`` (``key``:
    ``first_seconds`` or ``shortest_seconds``) over the rows where both are known, and how
    many rows that is. Above 1: slower than KomoringHeights."""
    ratios = [
        max(float(r[solver][key]), TIME_FLOOR) / max(float(r["kh"][key]), TIME_FLOOR)
        for r in rows
        if "kh" in r and r[solver].get(key) is not None and r["kh"].get(key) is not None
    ]
    return {"geomean": _geomean(ratios), "problems": len(ratios)}


def _times(answers: list[dict[str, Any]], key: str) -> dict[str, Any]:
    secs = sorted(float(a[key]) for a in answers if a.get(key) is not None)
    return {
        "problems": len(secs),
        "median": statistics.median(secs) if secs else None,
        "geomean": _geomean([max(v, TIME_FLOOR) for v in secs]),
    }


def summarise(rows: Iterable[dict[str, Any]], solver: str) -> dict[str, Any]:
    """Counts and times of ``solver`` over ``rows`` (bench rows: ``row[solver]`` holds the
    answer and its verdict), and its time ratio to KomoringHeights where the rows have it."""
    rows = list(rows)
    answers = [r[solver] for r in rows]
    secs = sorted(float(a["seconds"]) for a in answers)
    solved = [a for a in answers if a["solved"]]
    counted = [a for a in solved if a.get("nodes") is not None]
    # KomoringHeights' node count is from its last report: divide by that report's time
    nodes_secs = sum(float(a.get("nodes_seconds") or a["seconds"]) for a in counted)
    solved_secs = sum(float(a["seconds"]) for a in solved)
    solved_nodes = sum(int(a["nodes"]) for a in counted)
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
        "shortest_proved": sum(bool(a.get("shortest")) for a in answers),
        "seconds_median": statistics.median(secs) if secs else None,
        "seconds_p90": _percentile(secs, 0.9) if secs else None,
        "seconds_max": secs[-1] if secs else None,
        "seconds_total": sum(secs),
        "first_mate_seconds": _times(answers, "first_seconds"),
        "shortest_seconds": _times(answers, "shortest_seconds"),
        "solved_seconds_total": solved_secs,
        "solved_nodes_total": solved_nodes,
        "nodes_per_second": solved_nodes / nodes_secs if nodes_secs > 0 else None,
    }
    if solver != "kh" and any("kh" in r for r in rows):
        out["time_ratio_to_kh"] = {
            "first_mate": time_ratio(rows, solver, "first_seconds"),
            "shortest": time_ratio(rows, solver, "shortest_seconds"),
        }
    return out


def bench_tsume(
    rows: list[dict[str, str]],
    limit: float,
    hash_mb: int = HASH_MB,
    kh: Path | Literal["auto"] | None = "auto",
    long_limit: float | None = None,
) -> dict[str, Any]:
    """Give every row to banmen, cshogi's DfPn and KomoringHeights, ``limit`` seconds each
    (``long_limit``, default twice that, for the problems of over 40 plies), one at a time.
    ``kh``: its binary, ``None`` to leave it out, ``"auto"`` for :func:`kh_path`."""
    long_limit = 2 * limit if long_limit is None else long_limit
    kh_bin = kh_path() if kh == "auto" else kh
    solvers = (*SOLVERS, "kh") if kh_bin is not None else SOLVERS
    engine = KomoringHeights(kh_bin, hash_mb) if kh_bin is not None else None
    out_rows: list[dict[str, Any]] = []
    try:
        with CshogiDfPn() as cs:
            for row in rows:
                mate_length = row["mate_length"]
                rec: dict[str, Any] = {
                    "name": row["name"],
                    "sfen": row["sfen"],
                    "mate_length": mate_length,
                    "group": group_of(mate_length),
                }
                lim = long_limit if rec["group"] == "41+" else limit
                rec["limit"] = lim
                for solver in solvers:
                    if solver == "banmen":
                        ans = solve_banmen(row["sfen"], lim, hash_mb)
                    elif solver == "cshogi":
                        ans = cs.solve(row["sfen"], lim)
                    else:
                        assert engine is not None
                        ans = engine.solve(row["sfen"], lim)
                    rec[solver] = {**ans, **classify(ans, mate_length)}
                out_rows.append(rec)
    finally:
        if engine is not None:
            engine.close()
    groups: dict[str, Any] = {}
    for g in GROUPS:
        members = [r for r in out_rows if r["group"] == g]
        if members:
            groups[g] = {s: summarise(members, s) for s in solvers}
    counting = {
        "banmen": "composition rules: futile interpositions not counted",
        "cshogi": "every ply, futile interpositions included; stops at its first mate",
    }
    if engine is not None:
        counting["kh"] = "every ply, futile interpositions included; proves the shortest"
    return {
        "time_limit": limit,
        "time_limit_over_40_plies": long_limit,
        "hash_mb": hash_mb,
        "threads": 1,
        "suite": str(tsume_path()),
        "solvers": list(solvers),
        "kh": (
            {"path": str(kh_bin), "name": engine.name, "options": engine.options()}
            if engine is not None
            else {"path": None, "left_out": f"not found (--kh, BANMEN_KH or {KH_DEFAULT})"}
        ),
        "time_floor": TIME_FLOOR,
        "counting": counting,
        "groups": groups,
        "total": {s: summarise(out_rows, s) for s in solvers},
        "problems": out_rows,
    }


def quick_rows(rows: list[dict[str, str]]) -> list[dict[str, str]]:
    """The rows of ``tsume-quick``: published mates of 1-11 plies."""
    return [r for r in rows if group_of(r["mate_length"]) == "1-11"]

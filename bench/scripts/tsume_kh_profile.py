"""Issue 40, "profile first": banmen's tsume-shogi df-pn beside KomoringHeights (KH) on the
problems of 13-31 plies of the shared suite, one thread each, alternated problem by problem
in one run (the machine is shared: both meet it in the same state).

Two parts:

``timed`` (the comparison). Each problem: banmen's ``tsume.solve`` as shipped (a fresh
256 MB table, the limit ``--limit``; its phases recorded through a backend that logs every
bounded proof: the first mate, each shortening bound, the main line), then KomoringHeights
(``banmen.bench.tsume.KomoringHeights``: ``Threads 1``, ``USI_Hash 256``, ``PostSearchLevel
MinLength``, ``go mate``). Times to the first mate and to the proved shortest, nodes, nodes
per second.

``work`` (where banmen's time goes, per node). The same solves again, banmen only, on an
instrumented copy of ``banmen.search.dfpn`` made at run time (its source with counters
written in, compiled without the cache; the shipped module is not touched) over wrappers
of the shogi kernels that count every call and read the CPU's cycle counter
(``llvm.readcyclecounter``) around the costly ones: move generations (checks, legal
replies) at a node and in its children's first numbers (``_seed``), mate-in-one tests,
table probes, stores and their replacements, the hand-dominance comparisons, futility
tests. The counters cost time of their own: the instrumented run's nodes a second are
given beside the plain run's, and the cycle shares are of the instrumented run.

Usage::

    .venv/bin/python bench/scripts/tsume_kh_profile.py [--limit 20] [--only NAME ...]
        [--parts timed,work] [--kh PATH] [--out bench/results/issue40-tsume-kh.json]
"""

# mypy: ignore-errors
# (numba-compiled wrappers and a runtime copy of a module: numba types them, not mypy)

from __future__ import annotations

import argparse
import importlib.util
import inspect
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import time
import types as pytypes
from pathlib import Path
from typing import Any

import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from banmen.bench.tsume import KH_DEFAULT, KomoringHeights, group_of, tsume_rows
from banmen.games.shogi import kernels as K
from banmen.games.shogi import tsume
from banmen.games.shogi.compiled import CompiledBackend
from banmen.games.shogi.formats import normalize_sfen, parse_sfen
from banmen.search import dfpn as dfpn_mod
from banmen.search.limits import Limit
from banmen.search.proof import INF

ROOT = Path(__file__).resolve().parents[2]
HASH_MB = 256


# --------------------------------------------------------------------------- timed part


class LoggingBackend(CompiledBackend):
    """The shipped backend, logging each bounded proof: phase, bound, answer, times, nodes."""

    def __init__(self, *a: Any, **kw: Any) -> None:
        super().__init__(*a, **kw)
        self.log: list[dict[str, Any]] = []

    def prove(self, r: int = INF, *, or_node: bool = True, nodes: int | None = None) -> Any:
        t0, n0 = self.solver.elapsed(), self.solver.nodes
        res = CompiledBackend.prove(self, r, or_node=or_node, nodes=nodes)
        self.log.append(
            {
                "phase": self.solver.phase,
                "bound": None if r >= INF else int(r),
                "or_node": or_node,
                "status": res.status,
                "length": res.length,
                "t0": round(t0, 4),
                "t1": round(self.solver.elapsed(), 4),
                "nodes": int(self.solver.nodes - n0),
            }
        )
        return res

    def is_futile(self, move: int, r: int) -> bool:
        t0, n0 = self.solver.elapsed(), self.solver.nodes
        try:
            return CompiledBackend.is_futile(self, move, r)
        finally:
            self.log.append(
                {
                    "phase": self.solver.phase,
                    "futility_test": True,
                    "bound": int(r),
                    "t0": round(t0, 4),
                    "t1": round(self.solver.elapsed(), 4),
                    "nodes": int(self.solver.nodes - n0),
                }
            )


def solve_logged(
    sfen: str, limit: float, backend_cls: type[CompiledBackend] = LoggingBackend
) -> dict[str, Any]:
    """``tsume.solve`` as shipped (one search thread for the whole solve), its proofs logged."""
    board = parse_sfen(sfen)
    sfen = normalize_sfen(sfen)
    b = backend_cls(board, Limit(time=limit), None, None, HASH_MB)
    try:
        r = b.solver.session(lambda: tsume._solve(b, sfen))  # noqa: SLF001
    finally:
        b.solver.release()
    log: list[dict[str, Any]] = getattr(b, "log", [])
    phases: dict[str, dict[str, float]] = {}
    for e in log:
        p = phases.setdefault(e["phase"], {"seconds": 0.0, "nodes": 0, "proofs": 0})
        p["seconds"] += e["t1"] - e["t0"]
        p["nodes"] += e["nodes"]
        p["proofs"] += 1
    shortening = [e for e in log if e["phase"] == "shortest"]
    return {
        "status": r.status,
        "length": r.length,
        "shortest": r.shortest,
        "reason": r.reason,
        "nodes": r.nodes,
        "seconds": r.seconds,
        "first_seconds": r.first_seconds,
        "shortest_seconds": r.seconds if r.status == "mate" and r.shortest else None,
        # when the last shortening proof ended (the length proved shortest, before the line)
        "shortening_done_seconds": shortening[-1]["t1"] if shortening else None,
        "nps": round(r.nodes / r.seconds) if r.seconds > 0 else None,
        "phases": {k: {kk: round(vv, 4) for kk, vv in v.items()} for k, v in phases.items()},
        "bounds": [
            {k: e[k] for k in ("bound", "status", "length", "t0", "t1", "nodes")}
            for e in shortening
        ],
        "log_entries": len(log),
    }


# --------------------------------------------------------------------------- work part


@intrinsic
def _rdtsc(typingctx: Any) -> Any:
    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        fnty = ir.FunctionType(ir.IntType(64), [])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.readcyclecounter")
        return builder.call(fn, [])

    return types.int64(), codegen


# ctx tail: counters of the kernel wrappers (count, cycles) pairs
_CTXN = K.CTX_LEN
KCOUNT = {
    "gen_checks": 0, "gen_legal": 2, "quick_win": 4, "futile_replies": 6, "and_need": 8,
    "play": 10, "undo": 12, "key": 14, "hand": 16, "group": 18, "hand_delta": 20,
    "outcome": 22,
}  # fmt: skip
_TIMED = ("gen_checks", "gen_legal", "quick_win", "futile_replies", "and_need")
# ctl slots of the instrumented dfpn (its ctl grown to 192)
CTL = {
    "lookup": 100, "lookup_cycles": 101, "lookup_found": 102, "lookup_proof": 103,
    "lookup_disproof": 104, "dominance_compares": 105, "slot": 106, "slot_cycles": 107,
    "slot_evict": 108, "seed": 110, "seed_cycles": 111, "seed_or": 112, "expansions": 113,
    "children": 114, "gather_rounds": 115, "gather_lookups": 116, "futility_tests": 117,
    "futility_cached": 118, "store_proof": 119, "store_disproof": 120, "store_open": 121,
    "mid_cycles": 122, "child_calls": 123, "sweeps_total": 124,
}  # fmt: skip


def _make_wrappers() -> Any:
    """Kernel wrappers counting calls into ctx's tail (cycles around the costly ones)."""
    from numba import njit

    E = _CTXN

    def timed3(fn: Any, s: int) -> Any:
        @njit
        def w(ctx: Any, st: Any, buf: Any) -> int:
            t = _rdtsc()
            r = fn(ctx, st, buf)
            ctx[E + s + 1] += _rdtsc() - t
            ctx[E + s] += 1
            return r

        return w

    def timed2(fn: Any, s: int) -> Any:
        @njit
        def w(ctx: Any, st: Any) -> int:
            t = _rdtsc()
            r = fn(ctx, st)
            ctx[E + s + 1] += _rdtsc() - t
            ctx[E + s] += 1
            return r

        return w

    def counted2(fn: Any, s: int) -> Any:
        @njit
        def w(ctx: Any, st: Any) -> Any:
            ctx[E + s] += 1
            return fn(ctx, st)

        return w

    def counted3(fn: Any, s: int) -> Any:
        @njit
        def w(ctx: Any, st: Any, m: int) -> Any:
            ctx[E + s] += 1
            return fn(ctx, st, m)

        return w

    qw = KCOUNT["quick_win"]

    @njit
    def quick_win(ctx: Any, st: Any, buf: Any, n: int) -> int:
        t = _rdtsc()
        r = K.quick_win(ctx, st, buf, n)
        ctx[E + qw + 1] += _rdtsc() - t
        ctx[E + qw] += 1
        return r

    c = KCOUNT
    return dfpn_mod.Kernels(
        timed3(K.gen_checks, c["gen_checks"]), timed3(K.gen_legal, c["gen_legal"]),
        counted3(K.play, c["play"]), counted2(K.undo, c["undo"]), counted2(K.key, c["key"]),
        counted2(K.hand, c["hand"]), counted2(K.outcome, c["outcome"]), quick_win,
        counted3(K.group, c["group"]), timed3(K.futile_replies, c["futile_replies"]),
        counted3(K.hand_delta, c["hand_delta"]), timed2(K.and_need, c["and_need"]),
        max_moves=K.MAX_MOVES,
    )  # fmt: skip


def _patch(src: str, old: str, new: str, count: int = 1, optional: bool = False) -> str:
    if optional and old not in src:
        return src  # (that code is gone: its counter stays 0)
    if src.count(old) != count:
        raise SystemExit(f"instrumentation: {old!r} found {src.count(old)} times, not {count}")
    return src.replace(old, new)


def instrumented_dfpn() -> pytypes.ModuleType:
    """A copy of banmen.search.dfpn with counters written in (compiled without the cache)."""
    src = inspect.getsource(dfpn_mod)
    src = src.replace("cache=True", "cache=False")
    src = _patch(src, "_CTL_SIZE = 96", "_CTL_SIZE = 192")
    c = CTL
    # table probes: dominance compares (entries of the same board key), what they find
    src = _patch(
        src,
        "        eh = tt[(i >> 3) * 8 + _HAND, i & 7]\n        ln =",
        f"        ctl[{c['dominance_compares']}] += 1\n"
        "        eh = tt[(i >> 3) * 8 + _HAND, i & 7]\n        ln =",
    )
    src = _patch(
        src,
        "    if best_len < _NO_PROOF:\n        return 0, INF, best_len, 0, ph, 1\n"
        "    if dd > _NO_DISPROOF:\n        return INF, 0, 0, dd, dh, 1\n"
        "    return pn, dn, 0, 0, h, found",
        f"    ctl[{c['lookup']}] += 1\n"
        f"    if best_len < _NO_PROOF:\n        ctl[{c['lookup_proof']}] += 1\n"
        "        return 0, INF, best_len, 0, ph, 1\n"
        f"    if dd > _NO_DISPROOF:\n        ctl[{c['lookup_disproof']}] += 1\n"
        "        return INF, 0, 0, dd, dh, 1\n"
        f"    ctl[{c['lookup_found']}] += found\n"
        "    return pn, dn, 0, 0, h, found",
    )
    src = _patch(
        src,
        "    if free < 0:\n        free = weakest\n    else:",
        f"    if free < 0:\n        free = weakest\n        ctl[{c['slot_evict']}] += 1\n    else:",
    )
    src = _patch(
        src,
        "    ctl[_SP] = sp + n\n    scratch = mvs[sp + n :]",
        f"    ctl[_SP] = sp + n\n    ctl[{c['expansions']}] += 1\n    ctl[{c['children']}] += n\n"
        "    scratch = mvs[sp + n :]",
    )
    src = _patch(
        src,
        "        # gather the children's numbers\n",
        f"        # gather the children's numbers\n        ctl[{c['gather_rounds']}] += 1\n",
    )
    src = _patch(
        src,
        "            else:\n                cpn, cdn, cln, cdd, cxh, found = _lookup(\n",
        f"            else:\n                ctl[{c['gather_lookups']}] += 1\n"
        "                cpn, cdn, cln, cdd, cxh, found = _lookup(\n",
        optional=True,
    )
    src = _patch(
        src,
        "    if mode == 1:\n        v = _fut_get(fut, ctl, fcf, r)\n        if v >= 0:\n",
        f"    if mode == 1:\n        ctl[{c['futility_tests']}] += 1\n"
        "        v = _fut_get(fut, ctl, fcf, r)\n        if v >= 0:\n"
        f"            ctl[{c['futility_cached']}] += 1\n",
    )
    src = _patch(
        src,
        "    i = _slot(tt, ctl, k, h)\n    if length < tt",
        f"    ctl[{c['store_proof']}] += 1\n    i = _slot(tt, ctl, k, h)\n    if length < tt",
    )
    src = _patch(
        src,
        "    i = _slot(tt, ctl, k, h)\n    if ddepth > tt",
        f"    ctl[{c['store_disproof']}] += 1\n    i = _slot(tt, ctl, k, h)\n    if ddepth > tt",
    )
    src = _patch(
        src,
        "    i = _slot(tt, ctl, k, h)\n    tt[(i >> 3) * 8 + _PN, i & 7] = pn",
        f"    ctl[{c['store_open']}] += 1\n    i = _slot(tt, ctl, k, h)\n"
        "    tt[(i >> 3) * 8 + _PN, i & 7] = pn",
    )
    name = "banmen_dfpn_instrumented"
    spec = importlib.util.spec_from_loader(name, loader=None)
    assert spec is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    exec(compile(src, f"<{name}>", "exec"), mod.__dict__)  # noqa: S102

    # timed wrappers of the table probe, the store's slot and the first numbers
    from numba import njit

    lookup0, slot0, seed0 = mod._lookup, mod._slot, mod._seed
    cl, cs, cd = c["lookup_cycles"], c["slot_cycles"], c["seed_cycles"]
    cslot, cseed, cseed_or = c["slot"], c["seed"], c["seed_or"]

    @njit
    def _lookup(tt: Any, ctl: Any, k: int, h: int, r: int) -> Any:
        t = _rdtsc()
        out = lookup0(tt, ctl, k, h, r)
        ctl[cl] += _rdtsc() - t
        return out

    @njit
    def _slot(tt: Any, ctl: Any, k: int, h: int) -> int:
        t = _rdtsc()
        out = slot0(tt, ctl, k, h)
        ctl[cs] += _rdtsc() - t
        ctl[cslot] += 1
        return out

    @njit
    def _seed(
        or_moves: Any, and_moves: Any, outcome: Any, group: Any, and_need: Any, ctx: Any,
        st: Any, tt: Any, ctl: Any, mv: Any, gscr: Any, k: int, h: int, child_is_or: bool,
    ) -> Any:  # fmt: skip
        t = _rdtsc()
        out = seed0(
            or_moves, and_moves, outcome, group, and_need, ctx, st, tt, ctl, mv, gscr, k, h,
            child_is_or,
        )  # fmt: skip
        ctl[cd] += _rdtsc() - t
        ctl[cseed] += 1
        if child_is_or:
            ctl[cseed_or] += 1
        return out

    mod._lookup, mod._slot, mod._seed = _lookup, _slot, _seed
    return mod


class InstrumentedBackend(CompiledBackend):
    """The backend over the instrumented dfpn and the counting kernels."""

    MOD: pytypes.ModuleType | None = None
    KERNELS: Any = None

    def __init__(self, board: Any, limit: Any, stop: Any, progress: Any, hash_mb: int) -> None:
        cls = InstrumentedBackend
        if cls.MOD is None:
            cls.MOD = instrumented_dfpn()
            cls.KERNELS = _make_wrappers()
        self.ctx = np.concatenate([K.CTX, np.zeros(64, dtype=np.int64)])
        self.st = K.from_board(board)
        self.solver = cls.MOD.DfPn(
            cls.KERNELS, self.ctx, limit=limit, stop=stop, progress=progress, hash_mb=hash_mb
        )
        self._buf = np.zeros(K.MAX_MOVES, dtype=np.int64)
        self.log: list[dict[str, Any]] = []

    prove = LoggingBackend.prove
    is_futile = LoggingBackend.is_futile

    def counters(self) -> dict[str, int]:
        out = {f"k_{k}": int(self.ctx[_CTXN + s]) for k, s in KCOUNT.items()}
        out |= {f"k_{k}_cycles": int(self.ctx[_CTXN + KCOUNT[k] + 1]) for k in _TIMED}
        out |= {k: int(self.solver.ctl[s]) for k, s in CTL.items()}
        out["sweeps"] = int(self.solver.gc_runs)
        return out


def work_profile(sfen: str, limit: float) -> dict[str, Any]:
    """One instrumented solve: counters per node and the cycle shares."""
    holder: dict[str, InstrumentedBackend] = {}

    class Keep(InstrumentedBackend):
        def __init__(self, *a: Any) -> None:
            super().__init__(*a)
            holder["b"] = self

    c0 = time.perf_counter()
    res = solve_logged(sfen, limit, Keep)
    wall = time.perf_counter() - c0
    cnt = holder["b"].counters()
    nodes = max(1, res["nodes"])
    hz = _cycles_per_second()
    total_cycles = res["seconds"] * hz
    per_node = {
        "move_generations": (cnt["k_gen_checks"] + cnt["k_gen_legal"]) / nodes,
        "move_generations_in_first_numbers": cnt["seed"] / nodes,
        "check_generations": cnt["k_gen_checks"] / nodes,
        "reply_generations": cnt["k_gen_legal"] / nodes,
        "mate_in_one_tests": cnt["k_quick_win"] / nodes,
        "children_per_expansion": cnt["children"] / max(1, cnt["expansions"]),
        "table_probes": cnt["lookup"] / nodes,
        "table_probes_of_children_reread": cnt["gather_lookups"] / nodes,
        "table_probe_found_open": cnt["lookup_found"] / nodes,
        "table_probe_proof_or_disproof": (cnt["lookup_proof"] + cnt["lookup_disproof"]) / nodes,
        "dominance_compares": cnt["dominance_compares"] / nodes,
        "table_stores": cnt["slot"] / nodes,
        "table_replacements": cnt["slot_evict"] / nodes,
        "plays": cnt["k_play"] / nodes,
        "futility_tests": cnt["futility_tests"] / nodes,
    }
    shares = {
        "check_generation": cnt["k_gen_checks_cycles"],
        "reply_generation": cnt["k_gen_legal_cycles"],
        "mate_in_one": cnt["k_quick_win_cycles"],
        "futile_replies+and_need": cnt["k_futile_replies_cycles"] + cnt["k_and_need_cycles"],
        "table_probe": cnt["lookup_cycles"],
        "table_store": cnt["slot_cycles"],
    }
    # the children's first numbers (_seed) include move generations and a store: shown apart
    seed_share = cnt["seed_cycles"] / total_cycles if total_cycles else None
    timed_sum = sum(shares.values())  # (kernels and table calls do not nest)
    return {
        "status": res["status"],
        "length": res["length"],
        "shortest": res["shortest"],
        "nodes": res["nodes"],
        "seconds": res["seconds"],
        "wall": round(wall, 3),
        "nps_instrumented": res["nps"],
        "phases": res["phases"],
        "per_node": {k: round(v, 3) for k, v in per_node.items()},
        "cycle_share": {k: round(v / total_cycles, 3) for k, v in shares.items()},
        "cycle_share_rest": round(1 - timed_sum / total_cycles, 3),
        "cycle_share_first_numbers_inclusive": round(seed_share, 3) if seed_share else None,
        "cycles_per_node": round(total_cycles / nodes),
        "counters": cnt,
    }


_HZ: list[float] = []


def _cycles_per_second() -> float:
    """The cycle counter's rate (measured once over 0.2 s of wall time)."""
    if not _HZ:
        from numba import njit

        @njit
        def tsc() -> int:
            return _rdtsc()

        tsc()
        t0, c0 = time.perf_counter(), tsc()
        time.sleep(0.2)
        t1, c1 = time.perf_counter(), tsc()
        _HZ.append((c1 - c0) / (t1 - t0))
    return _HZ[0]


# --------------------------------------------------------------------------- the run


def _geomean(xs: list[float]) -> float | None:
    return math.exp(statistics.fmean(math.log(x) for x in xs)) if xs else None


def _ratio(rows: list[dict[str, Any]], key: str) -> dict[str, Any]:
    rs = [
        max(r["banmen"][key], 1e-3) / max(r["kh"][key], 1e-3)
        for r in rows
        if r.get("kh") and r["banmen"].get(key) is not None and r["kh"].get(key) is not None
    ]
    return {"geomean": _geomean(rs), "problems": len(rs)}


def _uptime() -> str:
    try:
        return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    except OSError:
        return os.getloadavg().__repr__()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--limit", type=float, default=20.0, help="seconds per problem and solver")
    ap.add_argument("--only", nargs="*", help="problem names (default: every 13-31-ply one)")
    ap.add_argument("--parts", default="timed,work")
    ap.add_argument("--work-limit", type=float, default=None, help="default: --limit")
    ap.add_argument("--kh", default=os.environ.get("BANMEN_KH") or str(KH_DEFAULT))
    ap.add_argument("--label", default="", help="what this run measures (before, after X)")
    ap.add_argument("--out", default=str(ROOT / "bench/results/issue40-tsume-kh.json"))
    args = ap.parse_args()
    parts = set(args.parts.split(","))
    rows = [r for r in tsume_rows() if group_of(r["mate_length"]) == "13-31"]
    if args.only:
        rows = [r for r in rows if r["name"] in args.only or r["name"].split()[0] in args.only]
    commit = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    out: dict[str, Any] = {
        "label": args.label,
        "date": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
        "commit": commit,
        "command": " ".join(sys.argv),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, {_cpu_name()}",
        "load_at_start": _uptime(),
        "limit": args.limit,
        "hash_mb": HASH_MB,
        "threads": 1,
        "problems": [],
    }
    tsume.warm_up()
    solve_logged(tsume._WARM_UP_SFEN, 5.0)  # noqa: SLF001 (the compiled code loaded)
    kh = KomoringHeights(Path(args.kh), HASH_MB) if "timed" in parts else None
    try:
        for row in rows:
            rec: dict[str, Any] = {"name": row["name"], "published": row["mate_length"]}
            if kh is not None:
                rec["banmen"] = solve_logged(row["sfen"], args.limit)
                k = kh.solve(row["sfen"], args.limit)
                rec["kh"] = {
                    key: k.get(key)
                    for key in (
                        "status", "length", "shortest", "nodes", "nodes_seconds", "seconds",
                        "first_seconds", "shortest_seconds", "reason",
                    )
                }  # fmt: skip
                ns = k.get("nodes_seconds")
                rec["kh"]["nps"] = round(k["nodes"] / ns) if k.get("nodes") and ns else None
                b = rec["banmen"]
                print(
                    f"{row['name'][:10]:10} {row['mate_length']:>3}  banmen {b['length']} "
                    f"first {b['first_seconds']} short {b['shortest_seconds']} "
                    f"({b['nodes']} n, {b['nps']}/s)   KH {k['length']} first "
                    f"{_r(k.get('first_seconds'))} short {_r(k.get('shortest_seconds'))} "
                    f"({k.get('nodes')} n, {rec['kh']['nps']}/s)",
                    flush=True,
                )
            out["problems"].append(rec)
    finally:
        if kh is not None:
            kh.close()
    if "work" in parts:
        wl = args.work_limit or args.limit
        out["work_limit"] = wl
        work_profile(tsume._WARM_UP_SFEN, 60.0)  # noqa: SLF001 (compiles the instrumented copy)
        for rec, row in zip(out["problems"], rows, strict=True):
            w = work_profile(row["sfen"], wl)
            rec["banmen_work"] = w
            print(f"{row['name'][:10]:10} work {w['per_node']} {w['cycle_share']}", flush=True)
    out["load_at_end"] = _uptime()
    timed = [r for r in out["problems"] if "kh" in r]
    if timed:
        b_nodes = sum(r["banmen"]["nodes"] for r in timed)
        b_secs = sum(r["banmen"]["seconds"] for r in timed)
        k_nodes = sum(r["kh"]["nodes"] or 0 for r in timed)
        k_secs = sum(r["kh"]["nodes_seconds"] or 0 for r in timed if r["kh"]["nodes"])
        out["summary"] = {
            "problems": len(timed),
            "time_ratio_first_mate": _ratio(timed, "first_seconds"),
            "time_ratio_shortest": _ratio(timed, "shortest_seconds"),
            "banmen_capped": [
                r["name"]
                for r in timed
                if r["banmen"]["shortest_seconds"] is None
                or r["banmen"]["seconds"] >= args.limit - 0.05
            ],  # fmt: skip
            "kh_capped": [r["name"] for r in timed if r["kh"]["shortest_seconds"] is None],
            "banmen_nps": round(b_nodes / b_secs) if b_secs else None,
            "kh_nps": round(k_nodes / k_secs) if k_secs else None,
            "banmen_seconds_total": round(b_secs, 2),
            "kh_seconds_total": round(sum(r["kh"]["seconds"] for r in timed), 2),
        }
        print(json.dumps(out["summary"], indent=1))
    Path(args.out).write_text(json.dumps(out, indent=1) + "\n")
    print("wrote", args.out)


def _r(x: float | None) -> str:
    return "-" if x is None else f"{x:.3f}"


def _cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "?"


if __name__ == "__main__":
    main()

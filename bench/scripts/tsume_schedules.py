"""Issue 40: three schedules of bounded and unbounded df-pn searches for the proved-shortest
mate of the 13-31-ply tsume problems (see bench/results/issue40-tsume-schedules.txt).

Usage: .venv/bin/python bench/scripts/tsume_schedules.py
"""

# mypy: ignore-errors

import time

import cshogi

from banmen.bench.tsume import group_of, tsume_rows
from banmen.games.shogi.compiled import CompiledBackend
from banmen.search.limits import Limit

LIM = 20.0
rows = [r for r in tsume_rows() if group_of(r["mate_length"]) == "13-31"]
b = cshogi.Board(rows[0]["sfen"])
CompiledBackend(b, Limit(time=5), None, None, 64).prove(19)


def down(be, t0):
    res = be.prove()
    if res.status != "proved":
        return None, res.status
    L = res.length
    while L >= 3:
        res = be.prove(L - 2)
        if res.status == "proved":
            L = res.length
            continue
        if res.status == "disproved":
            return L, time.perf_counter() - t0
        return None, "cap"
    return L, time.perf_counter() - t0


def up(be, t0, unb):
    hi = None
    if unb:
        res = be.prove()
        if res.status != "proved":
            return None, res.status
        hi = res.length
    r = 1
    while hi is None or r < hi:
        res = be.prove(r)
        if res.status == "proved":
            return res.length, time.perf_counter() - t0
        if res.status != "disproved":
            return None, "cap"
        r += 2
    return hi, time.perf_counter() - t0


out = {}
for row in rows:
    for name, f in (
        ("down", lambda be, t0: down(be, t0)),
        ("up", lambda be, t0: up(be, t0, True)),
        ("deep", lambda be, t0: up(be, t0, False)),
    ):
        be = CompiledBackend(cshogi.Board(row["sfen"]), Limit(time=LIM), None, None, 256)
        t0 = time.perf_counter()
        L, t = f(be, t0)
        out.setdefault(row["name"][:10], {})[name] = (L, t if isinstance(t, str) else round(t, 2))
    print(row["name"][:10], out[row["name"][:10]], flush=True)

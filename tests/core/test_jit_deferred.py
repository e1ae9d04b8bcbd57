"""banmen._jit defers a callee's machine code (and its final module's optimisation) until
Python asks for it: compiled callers still link it and run it, Python calls still work,
and the cache keeps and loads it in another process without compiling."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

MODULE = textwrap.dedent(
    """
    import numpy as np
    from banmen._jit import njit

    @njit(cache=True)
    def inc(a, i):
        a[i] += 1
        return a[i] * 3

    @njit(cache=True)
    def dbl(x):
        return 2 * x + 1

    @njit(cache=True)
    def fact(n):
        if n <= 1:
            return 1
        return n * fact(n - 1)

    # mutual recursion: not cached (numba's cache cannot load it: a cached caller crashes)
    @njit
    def is_even(n):
        if n == 0:
            return True
        return is_odd(n - 1)

    @njit
    def is_odd(n):
        if n == 0:
            return False
        return is_even(n - 1)

    @njit  # (not cached: compiled in every process, its callees loaded from the cache)
    def outer2(n):
        a = np.zeros(4, np.int64)
        return inc(a, 2) + dbl(n) + fact(n)

    @njit(cache=True)
    def outer(n):
        a = np.zeros(4, np.int64)
        s = 0
        for i in range(n):
            s += inc(a, i % 4) + dbl(i)
        return s + fact(5)
    """
)

CHILD = textwrap.dedent(
    """
    import json, sys
    import numpy as np
    from numba import types
    from numba.core import event
    import banmen._jit as J
    import deferred_mod as m

    def deferred(disp, sig):
        cres = disp.overloads.get(sig)
        return None if cres is None else isinstance(cres.entry_point, J._Deferred)

    def cached_kind(disp, sig):  # what the cache holds: deferred (bitcode) or made
        cres = disp._cache.load_overload(sig, disp.targetctx)
        return None if cres is None else ("bitcode" if isinstance(cres.entry_point, J._Deferred)
                                          else "object")

    A = (types.Array(types.int64, 1, "C"), types.int64)
    I = (types.int64,)
    out = {}
    with event.install_recorder("numba:compile") as rec:
        out["outer"] = m.outer(10)
        out["inc_deferred"] = deferred(m.inc, A)
        out["dbl_deferred"] = deferred(m.dbl, I)
        out["fact_deferred"] = deferred(m.fact, I)
        out["outer_deferred"] = deferred(m.outer, I)
        if sys.argv[1] == "first":
            out["odd"] = [m.is_odd(7), m.is_odd(10)]
            out["even_deferred"] = deferred(m.is_even, I)
        out["dbl_cached"] = cached_kind(m.dbl, I)
        out["inc_cached_before"] = cached_kind(m.inc, A)
        a = np.zeros(4, np.int64)
        out["inc"] = [m.inc(a, 1), m.inc(a, 1), int(a[1])]
        out["inc_deferred_after"] = deferred(m.inc, A)
        out["inc_cached_after"] = cached_kind(m.inc, A)
        if sys.argv[1] == "dbl":
            out["dbl"] = m.dbl(20)
        if sys.argv[1] == "outer2":
            out["outer2"] = m.outer2(4)
            out["fact"] = m.fact(6)
            out["inc2"] = m.inc(a, 1)
    out["compiled"] = sorted({ev.data["dispatcher"].py_func.__name__
                              for _, ev in rec.buffer if ev.is_start
                              and ev.data["dispatcher"].py_func.__module__ == m.__name__})
    print(json.dumps(out))
    """
)


def _run(tmp: Path, cache: Path, what: str = "", **extra: str) -> dict[str, object]:
    env = {k: v for k, v in os.environ.items() if k != "BANMEN_DEBUG"}
    env.update(extra)
    env["NUMBA_CACHE_DIR"] = str(cache)
    env["PYTHONPATH"] = os.pathsep.join([str(tmp), *sys.path])
    out = subprocess.run([sys.executable, "-c", CHILD, what], env=env, capture_output=True,
                         text=True, timeout=600, cwd=tmp)  # fmt: skip
    assert out.returncode == 0, out.stderr[-3000:]
    result: dict[str, object] = json.loads(out.stdout.splitlines()[-1])
    return result


def _python_outer(n: int) -> int:
    a = [0] * 4
    s = 0
    for i in range(n):
        a[i % 4] += 1
        s += a[i % 4] * 3 + 2 * i + 1
    return s + 120


@pytest.mark.cold
def test_callees_deferred_run_and_cache(tmp_path: Path) -> None:
    (tmp_path / "deferred_mod.py").write_text(MODULE)
    cache = tmp_path / "cache"
    first = _run(tmp_path, cache, "first")
    assert first["compiled"] == ["dbl", "fact", "inc", "is_even", "is_odd", "outer"]
    assert first["outer"] == _python_outer(10)
    # the callees' machine code waits (a recursive one's too: its calls of itself are in
    # its module); the outermost function's does not, nor that of a function whose module
    # holds a call resolved at run time (mutual recursion)
    assert first["inc_deferred"] is True and first["dbl_deferred"] is True
    assert first["fact_deferred"] is True and first["outer_deferred"] is False
    assert first["even_deferred"] is False
    assert first["odd"] == [True, False]
    assert first["dbl_cached"] == "bitcode" and first["inc_cached_before"] == "bitcode"
    # a Python call makes it, runs it as compiled, and caches it again with machine code
    assert first["inc"] == [3, 6, 2]
    assert first["inc_deferred_after"] is False
    assert first["inc_cached_after"] == "object"

    # another process: everything from the cache, nothing compiled; the callee never
    # called from Python before is made from its cached bitcode when called, and cached
    # again with its machine code
    second = _run(tmp_path, cache, "dbl")
    assert second["compiled"] == []
    assert second["outer"] == _python_outer(10)
    assert second["inc"] == [3, 6, 2] and second["dbl"] == 41
    # a new caller compiled beside cached callees (machine code or bitcode)
    third = _run(tmp_path, cache, "outer2")
    assert third["compiled"] == ["outer2"] and third["dbl_cached"] == "object"
    assert third["outer2"] == 3 + 9 + 24 and third["fact"] == 720 and third["inc2"] == 9


@pytest.mark.cold
def test_the_deferral_can_be_switched_off(tmp_path: Path) -> None:
    """``BANMEN_JIT_DEFER=0`` (as a numba without the internals the deferral needs): numba
    runs as it is — every function made when compiled, cached with its machine code — and
    the machine-wide cache's version folder is another one (numba would load banmen's
    bitcode unoptimised)."""
    (tmp_path / "deferred_mod.py").write_text(MODULE)
    off = _run(tmp_path, tmp_path / "cache", "first", BANMEN_JIT_DEFER="0")
    assert off["outer"] == _python_outer(10) and off["inc"] == [3, 6, 2]
    assert off["inc_deferred"] is False and off["dbl_deferred"] is False
    assert off["dbl_cached"] == "object"
    probe = "import banmen._jit as J; print(J.DEFERRED, J.version_tag())"
    tags = {}
    for value in ("0", "1"):
        env = {**os.environ, "BANMEN_JIT_DEFER": value}
        out = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True,
                             text=True, timeout=120, check=True)  # fmt: skip
        deferred, tag = out.stdout.split()
        tags[value] = (deferred, tag)
    assert tags["0"][0] == "False" and tags["1"][0] == "True"
    assert tags["0"][1] != tags["1"][1]

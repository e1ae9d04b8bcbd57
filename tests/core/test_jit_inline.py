"""banmen._jit makes an ``inline="always"`` helper's untyped IR once, not at every call
site, and the code inlined from it computes what the helper does."""

from __future__ import annotations

from typing import Any

import numpy as np
from numba.core.inline_closurecall import InlineWorker

import banmen._jit as J


def test_a_helper_inlined_at_many_sites_is_read_once(monkeypatch: Any) -> None:
    read: list[Any] = []
    numba_run = InlineWorker.run_untyped_passes

    def counting(self: Any, func: Any, enable_ssa: bool = False) -> Any:
        read.append(func)
        return numba_run(self, func, enable_ssa)

    monkeypatch.setattr(InlineWorker, "run_untyped_passes", counting)

    @J.njit(inline="always")
    def helper(x: int) -> int:
        y = x * 3
        for i in range(x % 4):
            y += i
        return y

    @J.njit
    def three_sites(x: int) -> int:  # the same locals inlined three times in one caller
        return helper(x) + 2 * helper(x + 1) - helper(helper(x) % 7)

    @J.njit
    def allocates(n: int) -> Any:  # (a caller with other flags: it needs numba's NRT)
        out = np.zeros(n, np.int64)
        for i in range(n):
            out[i] = helper(i)
        return out

    for x in range(-3, 12):
        assert three_sites(x) == three_sites.py_func(x)
    assert list(allocates(9)) == list(allocates.py_func(9))
    assert read.count(helper.py_func) == 1


def test_numba_inliner_is_replaced_only_where_it_has_what_banmen_calls() -> None:
    assert InlineWorker.inline_function is J._inline_function
    assert J._numba_inline_function is not None and hasattr(InlineWorker, "inline_ir")

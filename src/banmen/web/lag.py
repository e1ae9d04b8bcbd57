"""Event-loop lag: how late the loop wakes a task that asked to sleep.

The web app's event loop should only route messages; anything slow on it (a search, a
blocking disk write) delays every connection. :class:`LagMonitor` sleeps ``interval``
seconds again and again and records how much later than asked it woke up. ``/api/health``
reports the figures over a recent window.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections import deque
from typing import Any

__all__ = ["LagMonitor", "LoopDiscipline", "percentile"]


def percentile(sorted_values: list[float], q: float) -> float:
    """Nearest-rank percentile (``q`` in 0..100) of an ascending list; 0 if empty."""
    if not sorted_values:
        return 0.0
    rank = max(1, math.ceil(q / 100 * len(sorted_values)))
    return sorted_values[min(rank, len(sorted_values)) - 1]


class LagMonitor:
    def __init__(self, interval: float = 0.02, window: float = 10.0) -> None:
        self.interval = interval
        self.window = window
        # (monotonic time, lag in seconds); room for a full window of samples
        self._samples: deque[tuple[float, float]] = deque(maxlen=int(window / interval) + 16)
        self.worst = 0.0  # since start, in seconds

    async def run(self) -> None:
        """Sample forever (cancel the task to stop)."""
        while True:
            t0 = time.perf_counter()
            await asyncio.sleep(self.interval)
            lag = max(0.0, time.perf_counter() - t0 - self.interval)
            self.worst = max(self.worst, lag)
            self._samples.append((time.monotonic(), lag))

    def stats(self) -> dict[str, Any]:
        """Lag in milliseconds over the last ``window`` seconds."""
        cutoff = time.monotonic() - self.window
        lags = sorted(lag for t, lag in self._samples if t >= cutoff)
        n = len(lags)
        return {
            "window_s": self.window,
            "samples": n,
            "max_ms": round(lags[-1] * 1000, 3) if n else 0.0,
            "p99_ms": round(percentile(lags, 99) * 1000, 3),
            "median_ms": round(percentile(lags, 50) * 1000, 3),
            "worst_ever_ms": round(self.worst * 1000, 3),
        }


class LoopDiscipline:
    """What the server's process loaded after it began to serve: the modules it imported,
    the functions numba compiled and those it loaded from its cache. All should stay
    empty — the event loop only routes messages; everything compiled is loaded before it
    serves (``load_boards``) and every search runs in an engine worker — and
    ``/api/health`` reports them, so a test (and an operator) can see it."""

    def __init__(self) -> None:
        self._modules: set[str] = set()
        self.compiled: list[str] = []
        self.loaded: list[str] = []
        self._started = False

    def start(self) -> None:
        """From now on, count (call it when the server starts to serve)."""
        import sys

        self._modules = set(sys.modules)
        self._started = True
        try:
            from numba.core import caching, event
        except ImportError:  # pragma: no cover - numba is a dependency
            return

        watch = self
        load = caching.Cache.load_overload

        def counted(cache: Any, sig: Any, target_context: Any) -> Any:
            data = load(cache, sig, target_context)  # type: ignore[no-untyped-call]
            if data is not None:
                watch.loaded.append(str(getattr(cache, "_name", "?")))
            return data

        caching.Cache.load_overload = counted  # type: ignore[method-assign]

        class _Compiles(event.Listener):
            def on_start(self, ev: Any) -> None:
                fn = getattr(ev.data.get("dispatcher"), "py_func", None)
                watch.compiled.append(getattr(fn, "__qualname__", "?"))

            def on_end(self, ev: Any) -> None:
                pass

        event.register("numba:compile", _Compiles())  # type: ignore[no-untyped-call]

    def stats(self) -> dict[str, Any]:
        import sys

        late = sorted(set(sys.modules) - self._modules) if self._started else []
        return {"imported": late, "compiled": list(self.compiled), "loaded": list(self.loaded)}

"""A toy kernel set for tests/test_warm.py: one small compiled function and its loader.

``banmen.warm`` needs only a :class:`KernelSet` with a loader it can import, so the tests
of compiling, stamps and locks run in seconds on this instead of a game's search.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from banmen._jit import njit
from banmen.warm import KernelSet


@njit(cache=True)
def twice(x: Any) -> Any:
    return x + x


def load() -> None:
    """Run ``twice`` for the type ``$TOY_TYPE`` names (default int), and append to
    ``$TOY_LOG`` (if set) how many functions this process compiled for it."""
    import numpy as np
    from numba.core import event

    value = getattr(np, os.environ.get("TOY_TYPE", "int64"))(21)
    with event.install_recorder("numba:compile") as rec:
        twice(value)
    log = os.environ.get("TOY_LOG")
    if log:
        with open(log, "a") as fh:
            fh.write(f"{os.getpid()} {len(rec.buffer) // 2}\n")


TOY = KernelSet("toy", "twice", "the toy kernel", "warm_toy:load", estimate=1)


@njit(cache=True)
def thrice(x: Any) -> Any:
    return x + x + x


def load_other() -> None:
    """Append ``start PID`` to ``$TOY_LOG2`` (if set), sleep ``$TOY_SLEEP`` seconds, run
    ``thrice`` and append ``PID N``: N functions this process compiled for it."""
    import time

    from numba.core import event

    log = os.environ.get("TOY_LOG2")
    if log:
        with open(log, "a") as fh:
            fh.write(f"start {os.getpid()}\n")
    time.sleep(float(os.environ.get("TOY_SLEEP", "0")))
    with event.install_recorder("numba:compile") as rec:
        thrice(5)
    if log:
        with open(log, "a") as fh:
            fh.write(f"{os.getpid()} {len(rec.buffer) // 2}\n")


OTHER = KernelSet("toy", "thrice", "the other toy kernel", "warm_toy:load_other", estimate=1)

if __name__ == "__main__":
    from banmen.warm import beside, ensure

    if sys.argv[1:2] == ["beside"]:
        # python warm_toy.py beside [exit|first]: the other set in a helper while this
        # process compiles the first, then both ensured (prints this pid and whether it
        # was helped); once the helper has begun its loader, "exit" leaves at once
        # (os._exit) and "first" ensures the first set only
        import time

        helped = beside(OTHER, while_=TOY)
        print(os.getpid(), "helped" if helped else "alone", flush=True)
        log = os.environ.get("TOY_LOG2")
        if helped and log and float(os.environ.get("TOY_SLEEP", "0")) > 0:
            deadline = time.monotonic() + 120
            while not os.path.exists(log) and time.monotonic() < deadline:
                time.sleep(0.02)
        if sys.argv[2:3] == ["exit"]:
            os._exit(0)
        ensure(TOY)
        if sys.argv[2:3] != ["first"]:
            ensure(OTHER)
        sys.exit(0)
    # python warm_toy.py: ensure the set once, print whether cold
    print("cold" if ensure(TOY) else "warm", flush=True)
    sys.exit(0)

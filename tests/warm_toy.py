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

if __name__ == "__main__":  # python warm_toy.py: ensure the set once, print whether cold
    from banmen.warm import ensure

    print("cold" if ensure(TOY) else "warm", flush=True)
    sys.exit(0)

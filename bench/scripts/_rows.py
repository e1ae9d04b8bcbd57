"""One measurement row, as the side-by-side scripts beside this file keep them: stamped
with the load average and the time, appended to a JSON-lines file, shown as it ends."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any


def record(row: dict[str, Any], out: Path | None = None, show: bool = True) -> dict[str, Any]:
    """``row`` with ``load1`` (the one-minute load average) and ``date`` added last;
    appended to ``out`` as one JSON line if given, and printed as JSON if ``show``."""
    row = {**row, "load1": round(os.getloadavg()[0], 2),
           "date": time.strftime("%Y-%m-%d %H:%M:%S")}  # fmt: skip
    if out is not None:
        with out.open("a") as fh:
            fh.write(json.dumps(row) + "\n")
    if show:
        print(json.dumps(row), flush=True)
    return row


def trees_in_turn(specs: Sequence[str], rounds: int) -> Iterator[tuple[str, str]]:
    """``NAME=PATH/TO/src`` specs as ``(name, src)``, round after round, the order
    reversed every other round (so that each tree meets the machine as the other does)."""
    trees = [(name, src) for name, src in (t.split("=", 1) for t in specs)]
    for rnd in range(rounds):
        yield from trees if rnd % 2 == 0 else trees[::-1]


def child_json(src: str, code: str) -> Any:
    """Run ``code`` in a fresh interpreter with ``PYTHONPATH`` at the source tree ``src``
    (the same interpreter and packages); its last line of output, read as JSON."""
    env = {**os.environ, "PYTHONPATH": str(Path(src).resolve())}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, check=True).stdout  # fmt: skip
    return json.loads(out.strip().splitlines()[-1])

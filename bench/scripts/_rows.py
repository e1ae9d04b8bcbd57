"""One measurement row, as the side-by-side scripts beside this file keep them: stamped
with the load average and the time, appended to a JSON-lines file, shown as it ends."""

from __future__ import annotations

import json
import os
import time
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

"""CLI start-up: how long a ``banmen`` command takes in a fresh process.

Each command runs ``runs`` times in a new process (stdout and stderr discarded) after one
untimed run that warms the numba cache and the operating system's file cache. A row gives
the median and the minimum wall time, and the median CPU time of the child (user + system,
from ``resource.getrusage(RUSAGE_CHILDREN)``), which a busy machine inflates far less than
the wall time. Floors measured the same way say what no change to banmen can remove: the
interpreter, ``import typer``, a two-command typer app's ``--help`` and one of its
commands with an integer option (typer validates options with pydantic), and
``import numba``.

The children run as an installed banmen does, with Python's bytecode cache on: a
``PYTHONDONTWRITEBYTECODE`` in the environment is removed for them (otherwise every run
would compile banmen's sources again, which no user's installation does).
"""

from __future__ import annotations

import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

__all__ = ["COMMANDS", "FLOORS", "measure", "startup"]

#: A 4x4 Mattix layout: its solve is a few milliseconds of search.
SMALL_LAYOUT = "3,X,7,1/5,2,8,4/6,1,2,7/5,3,4,6"

#: name -> arguments of ``banmen`` (``{db}``: a temporary arena database).
COMMANDS: dict[str, list[str]] = {
    "help": ["--help"],
    "version": ["--version"],
    "solve-help": ["solve", "--help"],
    "usage-error": ["perft", "-1"],
    "arena-list": ["arena", "list", "--db", "{db}"],
    "viz-line": ["viz", "line", "--kind", "row", "--n", "5"],
    "solve-mattix-4x4": ["solve", "mattix", SMALL_LAYOUT],
    "perft-1": ["perft", "1"],
}

#: Commands that fail on purpose (the row measures how fast the error comes).
EXPECTED_STATUS = {"usage-error": 2}

_TYPER_APP = """
import typer
app = typer.Typer(add_completion=False, rich_markup_mode=None)
@app.command()
def a(x: int = 1) -> None:
    "A."
@app.command()
def b(x: int = 1) -> None:
    "B."
app()
"""

#: name -> arguments of ``python`` (``{app}``: a file holding ``_TYPER_APP``).
FLOORS: dict[str, list[str]] = {
    "python": ["-c", "pass"],
    "import typer": ["-c", "import typer"],
    "typer app --help": ["{app}", "--help"],
    "typer app command": ["{app}", "a", "--x", "2"],
    "import numba": ["-c", "import numba"],
}


def _banmen() -> list[str]:
    """How a user runs banmen: the console script beside this interpreter, if there is one."""
    script = shutil.which("banmen", path=str(Path(sys.executable).parent))
    return [script] if script else [sys.executable, "-m", "banmen"]


def measure(
    argv: Sequence[str],
    runs: int,
    env: Mapping[str, str] | None = None,
    expect_status: int = 0,
) -> dict[str, Any]:
    """Run ``argv`` once untimed, then ``runs`` times timed; the figures of the timed runs.
    Raises ``RuntimeError`` if a run ends with another status than ``expect_status``."""
    environ = {**os.environ, **(env or {})}
    environ.pop("PYTHONDONTWRITEBYTECODE", None)  # see the module's docstring

    def once() -> tuple[float, float]:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        proc = subprocess.run(
            list(argv), env=environ, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        wall = time.perf_counter() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if proc.returncode != expect_status:
            last = proc.stderr.decode(errors="replace").strip().splitlines()[-1:]
            raise RuntimeError(
                f"{' '.join(argv)} exited with {proc.returncode}, expected {expect_status}"
                + (f": {last[0]}" if last else "")
            )
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        return wall, cpu

    once()  # warm the caches
    samples = [once() for _ in range(runs)]
    walls = [w for w, _ in samples]
    cpus = [c for _, c in samples]
    return {
        "runs": runs,
        "wall_median_seconds": statistics.median(walls),
        "wall_min_seconds": min(walls),
        "cpu_median_seconds": statistics.median(cpus),
        "wall_seconds": walls,
        "cpu_seconds": cpus,
    }


def _load() -> list[float] | None:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:  # pragma: no cover - no load average on this system
        return None


def startup(
    runs: int = 10,
    commands: Sequence[str] | None = None,
    floors: bool = True,
    env: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """Every command of :data:`COMMANDS` (or those named), and the floors."""
    names = list(commands) if commands is not None else list(COMMANDS)
    unknown = [n for n in names if n not in COMMANDS]
    if unknown:
        raise ValueError(f"unknown start-up command {unknown[0]!r}: expected one of {COMMANDS}")
    load_before = _load()
    banmen = _banmen()
    rows: dict[str, Any] = {}
    floor_rows: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="banmen-startup-") as tmp:
        db = str(Path(tmp) / "arena.sqlite3")
        app = Path(tmp) / "typer_app.py"
        app.write_text(_TYPER_APP)
        for name in names:
            args = [a.replace("{db}", db) for a in COMMANDS[name]]
            rows[name] = {
                "command": "banmen " + " ".join(COMMANDS[name]),
                **measure([*banmen, *args], runs, env, EXPECTED_STATUS.get(name, 0)),
            }
        if floors:
            for name, fargs in FLOORS.items():
                argv = [sys.executable, *(a.replace("{app}", str(app)) for a in fargs)]
                floor_rows[name] = measure(argv, runs, env)
    return {
        "runs_per_command": runs,
        "bytecode_cache": True,
        "launcher": " ".join(Path(b).name for b in banmen),
        "load_average_before": load_before,
        "load_average_after": _load(),
        "commands": rows,
        "floors": floor_rows,
    }

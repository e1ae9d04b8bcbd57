"""banmen's own compiled code is cached once per machine and version (banmen._jit).

Two copies of the package at different paths stand for two clones: the second loads what
the first compiled; an edit makes a version of its own, beside the first, not over it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import paths
import pytest

import banmen._jit as J

PACKAGE = paths.ROOT / "src" / "banmen"

#: compile (or load) one small function of banmen's; print how many functions numba
#: compiled, and the machine cache's folder
PROBE = (
    "import numpy as np\n"
    "from numba.core import event\n"
    "from banmen._bits import copy_into\n"
    "from banmen._jit import machine_cache_dir\n"
    "with event.install_recorder('numba:compile') as rec:\n"
    "    copy_into(np.zeros(3, np.int64), np.ones(3, np.int64))\n"
    "print(len(rec.buffer) // 2, machine_cache_dir())\n"
)


def _clone(dest: Path) -> Path:
    shutil.copytree(PACKAGE, dest / "banmen", ignore=shutil.ignore_patterns("__pycache__"))
    return dest


def _probe(clone: Path, xdg: Path, **extra: str) -> tuple[int, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "BANMEN_DEBUG")}
    env.update(PYTHONPATH=str(clone), XDG_CACHE_HOME=str(xdg), **extra)
    p = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True,
                       timeout=300, cwd=clone)  # fmt: skip
    assert p.returncode == 0, p.stderr
    compiled, folder = p.stdout.split()
    return int(compiled), folder


@pytest.mark.slow
def test_a_second_clone_loads_what_the_first_compiled(tmp_path: Path) -> None:
    xdg = tmp_path / "xdg"
    a, b = _clone(tmp_path / "a"), _clone(tmp_path / "b")
    compiled, folder_a = _probe(a, xdg)
    assert compiled >= 1
    assert Path(folder_a).parent == xdg / "banmen" / "numba"
    assert list(Path(folder_a).rglob("_bits.copy_into-*.nbi")), "cached in the machine folder"
    assert not list(a.rglob("*.nbi")), "nothing cached beside the sources"
    assert _probe(b, xdg) == (0, folder_a)  # another clone, the same code: loaded

    with open(b / "banmen" / "_bits.py", "a") as f:  # an edit: a version of its own
        f.write("\n# edited\n")
    compiled, folder_b = _probe(b, xdg)
    assert compiled >= 1 and folder_b != folder_a
    assert _probe(a, xdg) == (0, folder_a)  # the first version's code is still there


@pytest.mark.slow
def test_numba_cache_dir_still_decides(tmp_path: Path) -> None:
    xdg, cache = tmp_path / "xdg", tmp_path / "numba"
    compiled, _ = _probe(_clone(tmp_path / "a"), xdg, NUMBA_CACHE_DIR=str(cache))
    assert compiled >= 1
    assert list(cache.rglob("*copy_into*.nbi")) and not list(xdg.rglob("*.nbi"))


def test_old_versions_are_pruned(tmp_path: Path) -> None:
    now = time.time()
    ages = [0, 1, 2, 3, 20, 30, 40, 50]  # days since each version was used
    for i, days in enumerate(ages):
        d = tmp_path / f"v{i}"
        d.mkdir()
        (d / "last-used").touch()
        os.utime(d / "last-used", (now - days * 86400, now - days * 86400))
    (tmp_path / "not-a-version").mkdir()  # no last-used: not ours to remove
    J._prune(tmp_path, keep=tmp_path / "v7")
    left = sorted(p.name for p in tmp_path.iterdir())
    # the three most recent stay; v3 (3 days) is within KEEP_DAYS; v4, v5 are older
    # than KEEP_DAYS beyond the three; v6 is past KEEP_VERSIONS; v7 is this process's
    assert left == ["not-a-version", "v0", "v1", "v2", "v3", "v7"]


@pytest.mark.slow
def test_an_unwritable_user_cache_falls_back_beside_the_sources(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    clone = _clone(tmp_path / "a")
    compiled, folder = _probe(clone, blocker / "cache")  # the user's cache cannot be made
    assert compiled >= 1 and folder == "None"
    assert list(clone.rglob("_bits.copy_into-*.nbi")), "cached beside the sources"
    assert _probe(clone, blocker / "cache") == (0, "None")

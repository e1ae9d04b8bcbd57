"""Sabaki's GTP layer (the npm package @sabaki/gtp, which .ci/run installs) for the tests
that drive ``banmen gtp`` as Sabaki does: where it is, and a node script runner."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

#: where .ci/run installs Sabaki's GTP package (``npm install --prefix`` this)
SABAKI_PREFIX = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "banmen-npm"


def node_env() -> dict[str, str]:
    paths = [str(SABAKI_PREFIX / "node_modules"), os.environ.get("NODE_PATH", "")]
    return {**os.environ, "NODE_PATH": os.pathsep.join(p for p in paths if p)}


def sabaki_gtp() -> bool:
    """Whether node and @sabaki/gtp are here."""
    node = shutil.which("node")
    if node is None:
        return False
    found = subprocess.run(
        [node, "-e", "require('@sabaki/gtp')"], capture_output=True, env=node_env()
    )
    return found.returncode == 0


def run_node(script: Path, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    node = shutil.which("node")
    assert node is not None
    return subprocess.run([node, str(script), *args], capture_output=True, text=True,
                          timeout=timeout, env=node_env())  # fmt: skip

from __future__ import annotations

import atexit
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

# banmen's config folder (the arena's signing key: banmen.arena.trust) is one of the
# tests' own, never the user's: set before any test runs, so the subprocesses the tests
# start (`python -m banmen arena ...`) use it too. Each xdist worker makes its own.
_CONFIG_DIR = tempfile.mkdtemp(prefix="banmen-tests-config-")
os.environ["BANMEN_CONFIG_DIR"] = _CONFIG_DIR
atexit.register(shutil.rmtree, _CONFIG_DIR, ignore_errors=True)

sys.path.insert(0, str(Path(__file__).parent))  # for the test-only reference modules
# tests of one area import a neighbour's cases (test_analysis the Othello memo, say)
for _folder in sorted(Path(__file__).parent.glob("*/**/")):
    if any(_folder.glob("test_*.py")):
        sys.path.append(str(_folder))

# The first call of a compiled search may load or compile it: no per-example deadline.
settings.register_profile(
    "default", deadline=None, suppress_health_check=[HealthCheck.too_slow], max_examples=100
)
settings.register_profile("ci", parent=settings.get_profile("default"), derandomize=True)
settings.load_profile("ci" if os.environ.get("CI") else "default")


# --------------------------------------------------------------------------- tiers
#
# Markers say what a test needs beyond Python and a warm numba cache (pyproject.toml):
# ``browser`` (chromium), ``server`` (the web app in a subprocess), ``external`` (GNU Go,
# node, an anchor), ``cold`` (an empty cache: compiles), ``slow``. ``make test-fast``
# leaves them all out. Tests that use the ``browser`` or ``server`` fixtures are marked
# here, so no browser test can be run by the fast tier by mistake.


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        used = set(getattr(item, "fixturenames", ()))
        if "browser" in used:
            item.add_marker(pytest.mark.browser)
        if "browser" in used or "server" in used:
            item.add_marker(pytest.mark.server)


# --------------------------------------------------------------------------- browser tests
#
# The browser tests (test_web_browser.py, test_web_othello_browser.py) drive Debian's
# chromium through Playwright; never a downloaded browser. Without /usr/bin/chromium they
# skip, except on CI (``CI`` set), where they fail. Both fixtures are per module: each
# module gets its own server and its own database.

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@contextmanager
def served(
    tmp: Path,
    players: dict[str, dict[str, str]] | None = None,
    limits: dict[str, Any] | None = None,
    host: str = "127.0.0.1",
    share: bool = False,
) -> Iterator[tuple[int, Path]]:
    """The web app as a subprocess, as ``banmen serve`` runs it (``serve()`` on a free port
    of ``host``, a database in ``tmp``, one engine worker, the user's ``players`` as
    ``--player`` gives them, ``limits`` as ``--limit`` sets them, ``share`` as
    ``--share-runs-and-games``), ready; yields its port and its log file."""
    from banmen.web.launch import free_port, stop, wait_ready

    port = free_port()
    code = (
        "from banmen.web.limits import Limits; from banmen.web.server import serve; "
        f"serve(host={host!r}, port={port}, db={str(tmp / 'games.sqlite3')!r}, workers=1, "
        f"players={players!r}, limits=Limits(**{limits or {}!r})"
        + (", share=True)" if share else ")")
    )
    log = tmp / "server.log"
    with log.open("wb") as out:
        proc = subprocess.Popen([sys.executable, "-c", code], stdout=out, stderr=subprocess.STDOUT)
    try:
        shown = f"[{host}]" if ":" in host else host
        wait_ready(f"http://{shown}:{port}", proc, log, timeout=120)
        yield port, log
    finally:
        stop(proc)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The web app as a subprocess (:func:`served`), ready to play; yields its base URL."""
    with served(tmp_path_factory.mktemp("browser")) as (port, _):
        yield f"http://127.0.0.1:{port}"


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Debian's headless chromium under Playwright."""
    if not CHROMIUM.exists():
        reason = f"{CHROMIUM} not found: install Debian's chromium to run the browser tests"
        if os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            b.close()

"""The examples in the README and in module docstrings run as written."""

from __future__ import annotations

import doctest
import tomllib

import paths

ROOT = paths.ROOT


def test_readme_examples() -> None:
    result = doctest.testfile(str(ROOT / "README.md"), module_relative=False)
    assert result.attempted > 0 and result.failed == 0


def test_module_doctests_run_with_the_tests() -> None:
    # Every module's examples run: pytest collects src/banmen with --doctest-modules, so
    # no module can be left off a list.
    ini = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]
    assert "--doctest-modules" in ini["addopts"].split()
    assert "src/banmen" in ini["testpaths"]


def test_your_ai_examples() -> None:
    """docs/YOUR_AI.md's board API examples, game by game, run as written."""
    result = doctest.testfile(str(ROOT / "docs" / "YOUR_AI.md"), module_relative=False)
    assert result.attempted >= 10 and result.failed == 0

"""Where the tests find things, wherever a test file sits in the tree: the repository,
the tests' folder (with its helper modules), their data, and the browser tests' artefacts."""

from __future__ import annotations

from pathlib import Path

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
DATA = TESTS / "data"
ARTIFACTS = ROOT / "test-artifacts"

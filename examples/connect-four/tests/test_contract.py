"""banmen's own contract over every game (its tests/core/test_games_contract.py), run over
this package's GAME without banmen's registry; the entry point; the kernel sets.

banmen's contract test is found beside the banmen being imported (a source checkout); an
installed banmen without its tests skips it."""

from __future__ import annotations

import importlib
import importlib.metadata
import importlib.util
import inspect
import tomllib
from collections.abc import Callable
from dataclasses import fields
from pathlib import Path
from types import ModuleType
from typing import Any

import banmen
import pytest
from banmen.games import Outcome, SolveLimits, Termination

from banmen_connect_four import GAME, Board

HERE = Path(__file__).resolve().parent
CONTRACT = Path(banmen.__file__).resolve().parents[2] / "tests" / "core" / "test_games_contract.py"


def _contract() -> ModuleType | None:
    if not CONTRACT.is_file():
        return None
    spec = importlib.util.spec_from_file_location("banmen_games_contract", CONTRACT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_MODULE = _contract()
#: banmen's contract tests that take a game (the registry's own test takes none)
CHECKS: dict[str, Callable[..., None]] = {
    name: fn
    for name, fn in (vars(_MODULE).items() if _MODULE is not None else ())
    if name.startswith("test_") and callable(fn) and "game" in inspect.signature(fn).parameters
}


@pytest.mark.skipif(_MODULE is None, reason=f"banmen's contract test is not at {CONTRACT}")
@pytest.mark.parametrize("check", sorted(CHECKS) or ["none"])
def test_banmens_game_contract(check: str) -> None:
    CHECKS[check](game=GAME)


def test_the_contract_has_its_checks() -> None:
    if _MODULE is None:
        pytest.skip(f"banmen's contract test is not at {CONTRACT}")
    assert len(CHECKS) >= 7, sorted(CHECKS)


def _entry_point() -> str:
    project = tomllib.loads((HERE.parent / "pyproject.toml").read_text("utf-8"))
    value: str = project["project"]["entry-points"]["banmen.games"]["connect-four"]
    return value


def test_the_entry_point_names_the_game() -> None:
    module, _, name = _entry_point().partition(":")
    game: Any = getattr(importlib.import_module(module), name)
    assert game is GAME and game.name == "connect-four" and game.title == "Connect Four"


def test_an_installed_package_registers_the_entry_point() -> None:
    found = [e for e in importlib.metadata.entry_points(group="banmen.games")
             if e.name == "connect-four"]  # fmt: skip
    if not found:
        pytest.skip("banmen-connect-four is not installed (pip install ./examples/connect-four)")
    assert found[0].value == _entry_point() and found[0].load() is GAME


def test_the_game_fills_in_the_hooks_of_a_game_package() -> None:
    assert GAME.sides == ("red", "yellow") and GAME.max_plies == 42
    assert GAME.position_hint and "\n" not in GAME.position_hint
    assert GAME.summary and GAME.summary.count(". ") <= 1
    assert GAME.solver is not None
    assert set(GAME.solver.takes) <= {f.name for f in fields(SolveLimits)} - {"time"}
    assert {"alphabeta", "perfect", "random"} <= set(GAME.engines)
    assert GAME.diagram is not None and GAME.sample is not None
    assert "search" in {k.name for k in GAME.kernel_sets}
    assert all(k.game == "connect-four" for k in GAME.kernel_sets)


def test_the_start_is_the_empty_board_and_the_arena_deals_openings() -> None:
    assert GAME.start_position() == Board() and not GAME.start_position().move_stack
    assert GAME.new_board is not None
    deals = {GAME.new_board(seed, None).fen() for seed in range(8)}
    assert len(deals) > 1 and Board().fen() not in deals  # seeded openings, not the start


def test_the_outcome_and_the_pass() -> None:
    won = Board.from_moves("4455667")  # red's four along the bottom row
    assert GAME.outcome_of(won) == Outcome(Termination.RULES, 1, (135, 0))
    assert GAME.outcome_of(Board.from_moves("445566")) is None  # the game goes on
    assert GAME.pass_name is None and not GAME.is_pass(won, 3)


def test_the_kernel_sets_load() -> None:
    for ks in GAME.kernel_sets:
        ks.load()  # (compiled, or loaded from numba's cache)

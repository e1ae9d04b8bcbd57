"""Forfeits, as tournament managers record them: a user's player that raises, exits,
breaks its protocol, plays an illegal move or overruns its stated time loses that game,
with the reason saved and reported; the run goes on and records every game once."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import paths
import pytest

from banmen.arena.report import build_report
from banmen.arena.runner import run_arena
from banmen.arena.store import ArenaStore, RunConfig

FAKE = paths.TESTS / "ugi_fake.py"

PLAYERS = """
class Raiser:
    def __init__(self):
        self.moves = 0

    def new_game(self):
        self.moves = 0

    def play(self, board):
        self.moves += 1
        if self.moves >= 3:
            raise ZeroDivisionError("the player divided by zero")
        return board.move_name(board.legal_moves[0])


class Cheat:
    def play(self, board):
        return "z9"
"""


@pytest.fixture(scope="module")
def players(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("forfeit") / "players.py"
    path.write_text(textwrap.dedent(PLAYERS))
    return path


def _fake(mode: str, time_s: float = 0.5) -> str:
    return f"ugi:time={time_s} {sys.executable} {FAKE} mattix {mode}"


@pytest.mark.parametrize(
    ("spec", "says"),
    [
        ("python:{players}:Raiser", "raised ZeroDivisionError: the player divided by zero"),
        ("python:{players}:Cheat", "played 'z9'"),
        (_fake("illegal"), "played 'z99'"),
        (_fake("exit"), "has exited"),
        (_fake("hang"), "no bestmove"),
        (_fake("garbage"), "no bestmove"),
    ],
)  # fmt: skip
def test_a_misbehaving_player_forfeits_and_the_run_goes_on(
    players: Path, spec: str, says: str, tmp_path: Path
) -> None:
    store = ArenaStore(tmp_path / "a.db")
    run = store.create_run(RunConfig(game="mattix", games=4, seed=2, size=6, players=[
        {"name": "bad", "spec": spec.format(players=players)},
        {"name": "d1", "spec": "alphabeta:depth=1"}]))  # fmt: skip
    run_arena(store, run, workers=1)
    games = store.games(run)
    assert len(games) == 4
    assert len({(g.pairing, g.pair, g.swapped) for g in games}) == 4  # each once
    rep = build_report(store, run)
    (pairing,) = rep["pairings"]
    assert pairing["a_losses"] == 4  # every game lost by the misbehaving player
    for g in games:
        f = g.extra["forfeit"]
        assert f["player"] == "bad" and says in f["reason"] and "\n" not in f["reason"]
        assert g.result == ("0-1" if g.first == "bad" else "1-0")
    (row,) = rep["forfeits"]
    assert row["player"] == "bad" and row["games"] == 4 and says in row["reason"]
    bad = next(p for p in rep["players"] if p["name"] == "bad")
    assert bad["forfeits"] == 4
    store.close()


def test_a_well_behaved_ugi_player_forfeits_nothing(tmp_path: Path) -> None:
    store = ArenaStore(tmp_path / "a.db")
    run = store.create_run(RunConfig(game="mattix", games=2, seed=2, size=4, players=[
        {"name": "fake", "spec": _fake("ok")},
        {"name": "d1", "spec": "alphabeta:depth=1"}]))  # fmt: skip
    run_arena(store, run, workers=1)
    rep = build_report(store, run)
    assert rep["forfeits"] == [] and all("forfeit" not in g.extra for g in store.games(run))
    store.close()

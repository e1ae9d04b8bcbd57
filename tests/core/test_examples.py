"""The examples/ players, played as a user would play them (docs/YOUR_AI.md)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import paths
import pytest

from banmen.arena.report import build_report
from banmen.arena.runner import run_arena
from banmen.arena.store import ArenaStore, RunConfig

EXAMPLES = paths.ROOT / "examples"
CC = shutil.which("cc") or shutil.which("gcc")


@pytest.mark.external
@pytest.mark.skipif(CC is None, reason="no C compiler (cc)")
def test_the_c_ugi_example_plays_20_mattix_games(tmp_path: Path) -> None:
    exe = tmp_path / "mattix_ugi"
    assert CC is not None
    subprocess.run([CC, "-O2", "-Wall", "-Werror", "-o", str(exe),
                    str(EXAMPLES / "ugi" / "mattix_ugi.c")], check=True)  # fmt: skip
    store = ArenaStore(tmp_path / "a.db")
    run = store.create_run(RunConfig(game="mattix", games=20, seed=1, players=[
        {"name": "c", "spec": f"ugi:depth=2 {exe}"},
        {"name": "d1", "spec": "alphabeta:depth=1"}]))  # fmt: skip
    run_arena(store, run, workers=2)
    rep = build_report(store, run)
    (pairing,) = rep["pairings"]
    assert pairing["games"] == 20 and rep["forfeits"] == []
    # its two plies against banmen's one: it wins more than it loses on these deals
    assert pairing["a_wins"] > pairing["a_losses"]
    store.close()


def _othello_run(path: Path, cluster: str | None) -> list[tuple[object, ...]]:
    store = ArenaStore(path)
    greedy = EXAMPLES / "python" / "greedy_othello.py"
    run = store.create_run(RunConfig(game="othello", games=6, seed=4, players=[
        {"name": "greedy", "spec": f"python:{greedy}:Greedy"},
        {"name": "d1", "spec": "alphabeta:depth=1"}]))  # fmt: skip
    run_arena(store, run, workers=2, cluster=cluster)
    games = sorted((g.pairing, g.pair, g.swapped, g.result, tuple(g.moves))
                   for g in store.games(run))  # fmt: skip
    store.close()
    return games


@pytest.mark.server
def test_the_python_example_plays_the_same_games_on_a_cluster(tmp_path: Path) -> None:
    """Locally and on ``--cluster local:2`` (the workers load the file by its path):
    the same games, move for move."""
    pytest.importorskip("distributed")
    local = _othello_run(tmp_path / "local.db", None)
    cluster = _othello_run(tmp_path / "cluster.db", "local:2")
    assert len(local) == 6 and local == cluster

"""The routes benchmark (``banmen bench your-ai-routes``) plays what it says: the same
Mattix games in-process and through the ``python:`` door (the wrapped search plays the
in-process search's moves), and the C example over UGI, with no forfeit."""

from __future__ import annotations

import shutil

import pytest

from banmen.arena.play import EngineCache, play_games
from banmen.arena.schedule import Job
from banmen.bench.routes import bench_routes


def test_the_wrapped_search_plays_the_in_process_moves() -> None:
    jobs = [Job(0, pair, swapped, "a", "b", 100 + pair) for pair in range(3)
            for swapped in (False, True)]  # fmt: skip
    moves = {}
    for route, spec in (("in", "alphabeta:depth=1"),
                        ("py", "python:banmen.bench.wrapped_player:Wrapped,depth=1")):  # fmt: skip
        cache = EngineCache()
        try:
            games = list(play_games("mattix", 6, jobs, {"a": spec, "b": spec}, cache, route))
        finally:
            cache.close()
        moves[route] = [g.moves for g in games]
    assert moves["in"] == moves["py"] and all(moves["in"])


@pytest.mark.external
@pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler")
def test_every_route_plays_its_games() -> None:
    got = bench_routes(games=4, size=4, repeats=1)
    for route in ("in-process", "python", "ugi"):
        row = got[route]
        assert row["forfeits"] == 0 and row["plies_per_game"] > 0, route
        assert row["games_per_second"] > 0 and row["us_per_move"] > 0

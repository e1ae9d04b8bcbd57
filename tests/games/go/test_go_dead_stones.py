"""Dead stones at the end of a game, against GNU Go's own verdict.

``tests/data/go-dead-*.jsonl`` hold games GNU Go 3.8 played against itself to two passes
(``tools/go_dead_stones.py generate``: a few random opening moves, then GNU Go at a level
drawn per game), with its ``final_status_list dead`` and ``final_score`` on the final
position. banmen's GTP ``final_status_list dead`` must name the same stones in at least
95% of the games (issue 17), and ``final_score`` must then agree with GNU Go's.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import paths
import pytest

from banmen.protocols.gtp import GTPSession

DATA = paths.DATA
sys.path.insert(0, str(paths.ROOT / "tools"))

from go_dead_stones import banmen_dead  # noqa: E402


def _games(name: str) -> list[dict[str, Any]]:
    path = DATA / name
    return [json.loads(line) for line in path.open()] if path.exists() else []


@pytest.mark.parametrize(
    "name", ["go-dead-9x9.jsonl", pytest.param("go-dead-19x19.jsonl", marks=pytest.mark.slow)]
)
def test_dead_stones_agree_with_gnugo(name: str) -> None:
    games = _games(name)
    assert len(games) >= 20, f"{name}: too few games to measure"
    same = [banmen_dead(g) == set(g["gnugo_dead"]) for g in games]
    assert sum(same) / len(same) >= 0.95, f"{sum(same)}/{len(same)} games agree"


def test_final_score_agrees_where_the_dead_stones_do() -> None:
    """Both count by area (Chinese rules, komi 7.5): same dead stones, same score."""
    checked = 0
    for g in _games("go-dead-9x9.jsonl")[:40]:
        if banmen_dead(g) != set(g["gnugo_dead"]):
            continue
        s = GTPSession(size=g["size"], rules="chinese", komi=7.5)
        for i, v in enumerate(g["moves"]):
            s.handle(f"play {'bw'[i % 2]} {v}")
        ours = (s.handle("final_score") or "").lstrip("= ").strip()
        assert ours == g["gnugo_score"], (ours, g["gnugo_score"])
        checked += 1
    assert checked >= 30


class _Says:
    """An engine that names fixed dead stones (as a GTP engine's final_status_list) and,
    asked for a move in a cleanup, passes."""

    def __init__(self, names: list[str]) -> None:
        self.names = names
        self.asked = 0

    def final_dead(self, board: object) -> list[str]:
        return self.names

    def think(self, board: object) -> Any:
        from banmen.engine import Result

        self.asked += 1
        return Result("pass")


def _final(g: dict[str, Any]) -> Any:
    from banmen.games.go import Board, Game

    game = Game(Board(g["size"], "chinese", 7.5))
    for v in g["moves"]:
        game.push(game.parse_move(v))
    return game


def test_settle_takes_an_agreement_and_plays_out_a_disagreement() -> None:
    from banmen.games.go import WHITE, GoEngine, parse_vertex, settle_dead, vertex_name
    from banmen.games.go.settle import PASS_RETRIES

    g = next(g for g in _games("go-dead-9x9.jsonl") if len(g["gnugo_dead"]) >= 2)
    theirs = sorted(g["gnugo_dead"])
    game = _final(g)
    kept = settle_dead(game, (_Says(theirs), _Says(theirs)), {})
    assert kept["settled"] == "agreed" and kept["dead"] == theirs
    assert {vertex_name(p, 9) for p in game.dead} >= set(theirs)
    counted = game.result()

    # a disagreement: the game goes on; both pass (the claimant's pass is refused
    # PASS_RETRIES times while stones it called dead stand), and the board counts as it
    # stands, every stone alive: no one's list decides
    game = _final(g)
    names_white = any(game.board.color_at(parse_vertex(v, 9)) == WHITE for v in theirs)
    claims, silent = _Says(theirs), _Says([])
    kept = settle_dead(game, (claims, silent), {})
    assert kept["settled"] == "cleanup" and kept["cleanup_end"] == "two passes"
    assert kept["dead_answers"] == {"first": theirs, "second": []}
    assert kept["cleanup_moves"] == ["pass", "pass"] and game.dead == frozenset()
    assert (claims.asked, silent.asked) == (1 + (PASS_RETRIES if names_white else 0), 1)
    assert game.result() == game.board.score().result != counted

    game = _final(g)  # an engine that cannot say (none, or random) plays it out too
    kept = settle_dead(game, (None, GoEngine(seed=3)), {})
    assert kept["settled"] == "cleanup" and set(kept["dead_answers"]) == {"second"}

    again = _final(g)  # a report re-counts from what was kept, asking nobody
    assert settle_dead(again, (None, None), {"settled": "agreed", "dead": theirs})
    assert again.result() == counted
    older = _final(g)  # (and from records kept before the cleanup existed)
    assert settle_dead(older, (None, None), {"dead": theirs, "dead_from": "estimate"})
    assert older.result() == counted


def test_settle_leaves_a_resignation_alone() -> None:
    from banmen.games.go import settle_dead

    g = _games("go-dead-9x9.jsonl")[0]
    game = _final({**g, "moves": g["moves"][:10] + ["resign"]})
    assert settle_dead(game, (_Says(["A1"]), _Says(["A1"])), {}) == {}
    assert game.dead == frozenset()

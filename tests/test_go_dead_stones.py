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
from pathlib import Path
from typing import Any

import pytest

from banmen.protocols.gtp import GTPSession

DATA = Path(__file__).parent / "data"
sys.path.insert(0, str(Path(__file__).parent.parent / "tools"))

from go_dead_stones import banmen_dead  # noqa: E402


def _games(name: str) -> list[dict[str, Any]]:
    path = DATA / name
    return [json.loads(line) for line in path.open()] if path.exists() else []


@pytest.mark.parametrize("name", ["go-dead-9x9.jsonl"])
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

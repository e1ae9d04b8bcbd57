"""Benchmarks run and report consistent figures (speed itself is never asserted)."""

from __future__ import annotations

from mattix_reference import exact_value, parse

from banmen.bench.mattix import first_player, plain_depth_in, solve_boards
from banmen.games.mattix import Board


def test_plain_searches_complete_some_depth() -> None:
    board = Board.from_seed(0, 6)
    neg = plain_depth_in(board, 0.2, pruning=False)
    ab = plain_depth_in(board, 0.2, pruning=True)
    assert neg["depth"] >= 1 and ab["depth"] >= 1 and neg["nodes"] > 0
    # Alpha-beta never completes less than plain negamax in the same time.
    assert ab["depth"] >= neg["depth"]


def test_first_player_study_counts_add_up() -> None:
    rec = first_player(4, 12, workers=1)
    keys = ("first_player_wins", "draws", "first_player_losses")
    w, d, lost = (rec[k]["count"] for k in keys)
    assert w + d + lost == 12 == sum(rec["margin_histogram"].values())
    values = [exact_value(parse(Board.from_seed(s, 4).layout())) for s in range(12)]
    assert w == sum(v > 0 for v in values) and lost == sum(v < 0 for v in values)
    assert rec["mean_margin"] == sum(values) / 12
    lo, hi = rec["first_player_wins"]["ci95"]
    assert lo <= w / 12 <= hi


def test_solve_rows() -> None:
    rows = solve_boards([0, 1], size=4)
    for row in rows:
        assert row["value"] == exact_value(parse(Board.from_seed(row["seed"], 4).layout()))
        assert row["nodes"] > 0 and row["seconds"] > 0

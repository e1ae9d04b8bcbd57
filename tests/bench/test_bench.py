"""Benchmarks run and report consistent figures (speed itself is never asserted)."""

from __future__ import annotations

import pytest
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


def test_othello_perft_and_ffo_rows() -> None:
    from banmen.bench.othello import FFO_CSV, bench_ffo, bench_perft

    rec = bench_perft(6)
    assert rec["leaves"] == 8200 and rec["moves_made"] == 4 + 12 + 56 + 244 + 1396 + 8200
    assert rec["bulk_seconds"] > 0 and rec["bulk_leaves_per_second"] > 0
    for name, row in rec["anchors"].items():  # Edax and Egaroucid, where they are built
        assert row["leaves"] == 8200, name
    assert set(rec["anchors"]) | set(rec["anchors_missing"]) == {"edax", "egaroucid"}
    assert FFO_CSV.is_file()  # shipped with banmen: no skip
    ffo = bench_ffo([40])
    (row,) = ffo["positions"]
    assert row["status"] == "solved" and row["score"] == 38 and row["best_move"] == "a2"
    assert row["correct"] and ffo["correct"] == 1 and row["nodes"] > 0
    # Edax and Egaroucid solve the same position in the same run, where they are built.
    assert set(row["anchors"]) | set(ffo["anchors_missing"]) == {"edax", "egaroucid"}
    for name, a in row["anchors"].items():
        assert a["status"] == "solved" and a["score"] == 38 and a["best_move"] == "a2", name
        assert a["correct"] and a["nodes"] > 0 and a["ratio"] == a["seconds"] / row["seconds"]
        assert ffo["anchors"][name]["positions_both_solved"] == 1
    # A limit that stops the solve is reported as unsolved, with no score.
    stopped = bench_ffo([41], time_limit=0.05, anchors=False)
    assert stopped["positions"][0]["status"] == "unknown"
    assert stopped["positions"][0]["score"] is None and stopped["correct"] == 0


def test_othello_midgame_rows() -> None:
    from banmen.bench.othello import bench_midgame, midgame_positions

    assert [b.to_string() for b in midgame_positions(3)] == [
        b.to_string() for b in midgame_positions(3)
    ]  # the same positions every run
    rec = bench_midgame(depth=3, n=2, rounds=1)
    assert set(rec["players"]) == {"hand-set", "patterns", "patterns+probcut"}
    for row in rec["players"].values():
        assert row["nodes"] > 0 and row["nodes_per_cpu_second"] > 0
    assert 0 <= rec["probcut_same_move"] <= 2


def test_go_playout_rows() -> None:
    from banmen.bench.go import bench_mcts_playouts, bench_random_playouts

    rnd = bench_random_playouts(9, 200)
    assert rnd["playouts"] == 200 and rnd["playouts_per_second"] > 0
    # Random play on an empty 9x9 board ends with stones and eyes on it: the mean area
    # difference is a few points either way, far from the board's 81.
    assert abs(rnd["mean_black_area_minus_white"]) < 40
    mc = bench_mcts_playouts(9, 300)
    assert mc["playouts"] >= 300 and mc["move"] is not None


def test_go_policy_rows() -> None:
    from banmen.bench.go import POLICIES, _midgame, bench_policies

    row = bench_policies(9, 200, 1)
    rates = row["simulations_per_cpu_second"]
    assert set(rates) == {"empty", "midgame"}
    assert all(set(r) == set(POLICIES) and min(r.values()) > 0 for r in rates.values())
    assert len(_midgame(9).move_stack) == int(0.3 * 81)  # from the test data's first game


def test_cli_startup_rows() -> None:
    """The start-up suite's bookkeeping (its times are figures, never asserted)."""
    import sys

    from banmen.bench.startup import measure, startup

    rec = startup(runs=2, commands=["help", "usage-error"], floors=False)
    assert rec["runs_per_command"] == 2 and rec["floors"] == {}
    assert set(rec["commands"]) == {"help", "usage-error"}
    for row in rec["commands"].values():
        assert len(row["wall_seconds"]) == len(row["cpu_seconds"]) == 2
        assert row["wall_min_seconds"] <= row["wall_median_seconds"]
        assert row["wall_median_seconds"] > 0 and row["cpu_median_seconds"] >= 0
    assert rec["commands"]["help"]["command"] == "banmen --help"
    # A command that does not end as expected is an error, not a figure.
    with pytest.raises(RuntimeError, match="exited with 2, expected 0.*error: "):
        measure([sys.executable, "-m", "banmen", "perft", "-1"], runs=1)
    with pytest.raises(ValueError, match="unknown start-up command"):
        startup(runs=1, commands=["nonsense"])


def test_go_thread_rows() -> None:
    from banmen.bench.go import bench_threads

    row = bench_threads(9, 400, 1)
    assert set(row["per_wall_second"]) == {1, 2} and row["speedup"] > 0
    assert min(row["per_cpu_second"].values()) > 0


def test_analysis_rows() -> None:
    from banmen.bench.analysis import bench_othello_analysis, othello_positions

    assert [b.to_string() for b in othello_positions(14, 2)] == [
        b.to_string() for b in othello_positions(14, 2)
    ]  # the same positions every run
    assert all(b.empties() == 14 for b in othello_positions(14, 2))
    rec = bench_othello_analysis([14], n=1, time_limit=60)
    (row,) = rec["positions"]
    assert row["complete"] and row["stopped_by"] == "exact" and row["seconds"] > 0
    assert len(row["values"]) == row["moves"] >= 2
    if "egaroucid" in row:  # built: its hint's exact values are banmen's
        assert row["egaroucid"]["complete"] and row["agree"], row
    assert rec["by_empties"]["14"]["complete"] == 1


def test_go_analysis_rows() -> None:
    from banmen.bench.analysis import bench_go_analysis

    rec = bench_go_analysis(9, 0.3, 1)
    sims = rec["simulations_per_cpu_second"]
    assert sims["search"] > 0 and sims["analysis"] > 0 and rec["ratio"] > 0
    assert rec["updates_per_analysis"] >= 1

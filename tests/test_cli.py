"""The ``banmen`` command line: solve, play, errors."""

from __future__ import annotations

import json
import subprocess
import sys

from mattix_reference import exact_value, parse
from typer.testing import CliRunner

from banmen.cli import app
from banmen.games.mattix import Board

runner = CliRunner()
EXAMPLE = "3,X,7,1/5,2,8,4/6,1,2,7/5,3,4,6"


def test_solve_json() -> None:
    layout = Board.from_seed(11, 6).layout()
    res = runner.invoke(app, ["solve", "mattix", layout, "--json"])
    assert res.exit_code == 0, res.output
    rec = json.loads(res.output)
    assert {"value", "best_move", "pv", "nodes", "seconds"} <= rec.keys()
    assert rec["status"] == "solved" and rec["pv"][0] == rec["best_move"]
    assert rec["seconds"] > 0 and rec["nodes"] > 0


def test_solve_text_matches_reference() -> None:
    res = runner.invoke(app, ["solve", "mattix", EXAMPLE])
    assert res.exit_code == 0
    value = exact_value(parse(EXAMPLE))
    assert f"value: {value:+d}" in res.output and "(proved)" in res.output
    assert "best line:" in res.output


def test_layout_starting_with_a_negative_number() -> None:
    layout = "-8,X,7,1/5,2,8,4/6,1,2,7/5,3,4,6"
    res = runner.invoke(app, ["solve", "mattix", layout, "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.output)["value"] == exact_value(parse(layout))


def test_solve_timeout_is_not_a_result() -> None:
    big = "/".join(",".join("X" if (r, c) == (0, 0) else str((r * 8 + c) % 17 - 6)
                            for c in range(8)) for r in range(8))  # fmt: skip
    res = runner.invoke(app, ["solve", "mattix", big, "--json", "--timeout", "0.2"])
    rec = json.loads(res.output)
    assert rec["status"] == "unknown" and rec["value"] is None and rec["stopped_by"] == "time"
    assert rec["best_so_far"]["move"] is not None


def test_bad_input_gives_one_line_errors() -> None:
    for args, fragment in [
        (["solve", "mattix", "1,2/3,4"], "no cross chip"),
        (["solve", "chess", "x"], "unknown game 'chess'"),
        (
            ["solve", "mattix", EXAMPLE, "--timeout", "-1"],
            "--timeout must be a positive number of seconds",
        ),
        (["play", "mattix", "--second", "cpu:depth=zero"], "depth must be an integer"),
        (["play", "mattix", "--size", "5"], "no piece set for a 5x5 board"),
        (["bench", "nonsense"], "unknown benchmark 'nonsense'"),
    ]:
        res = runner.invoke(app, args)
        assert res.exit_code == 2, (args, res.output)
        lines = [ln for ln in res.output.splitlines() if ln.strip()]
        assert len(lines) == 1 and lines[0].startswith("error: ") and fragment in lines[0], lines


def test_play_a_scripted_game_against_the_cpu() -> None:
    # The human always takes the first square offered; bad input is rejected in between.
    board = Board.from_seed(3, 4)
    script = ["zz", "a1", "undo"]
    b = board.copy()
    from banmen.engine import make_engine

    cpu = make_engine("mattix", "cpu:depth=1")
    while not b.is_game_over():
        if b.turn == 1:
            sq = b.legal_moves[0]
            script.append(b.move_name(sq))
            b.push(sq)
        else:
            r = cpu.think(b)
            assert r.move is not None
            b.push_name(r.move)
    res = runner.invoke(
        app,
        ["play", "mattix", "--size", "4", "--seed", "3", "--second", "cpu:depth=1"],
        input="\n".join(script) + "\n",
    )
    assert res.exit_code == 0, res.output
    assert "error: bad square 'zz'" in res.output
    assert "error: a1 is not in the chip's row" in res.output
    assert "error: nothing of yours to undo" in res.output
    p1, p2 = b.scores
    assert "Game over: " in res.output and f"{p1} : {p2}." in res.output


def test_play_ends_cleanly_when_input_ends() -> None:
    res = runner.invoke(app, ["play", "mattix", "--size", "4", "--seed", "1"], input="")
    assert res.exit_code == 1 and "input ended" in res.output


def test_console_script_has_no_traceback_on_bad_input() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "banmen", "solve", "mattix", "X,1/2,3 9"],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 2
    assert proc.stderr.strip() == "error: side to move must be 1 or 2, got '9'"
    assert "Traceback" not in proc.stdout + proc.stderr

"""The ``banmen`` command line: solve, play, errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
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
            "'--timeout': expected a number from 0.001 to 31536000 seconds, got '-1'",
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
    from banmen.games.registry import make_engine

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


# --------------------------------------------------------------------------- usage errors


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["perft", "-1"], "'depth': Input should be greater than or equal to 1, got '-1'"),
        (["perft", "0"], "depth"),
        (["perft", "many"], "many"),
        (["solve"], "Missing argument"),
        (["solve", "mattix"], "Missing argument"),
        (["solve", "mattix", EXAMPLE, "--timeout", "soon"], "soon"),
        (["serve", "--port", "http"], "http"),
        (["arena", "list", "--colour"], "--colour"),
        (["viz", "line", "--columns", "0"], "columns"),
        (["play", "mattix", "--size", "-4x"], "-4x"),
        (["usi", "--hash", "0"], "hash"),
        (["nonsense"], "nonsense"),
    ],
)  # fmt: skip
def test_usage_errors_are_one_error_line(args: list[str], fragment: str) -> None:
    """Errors typer finds itself (a bad option value, a negative number, a missing argument,
    an unknown option or command) read like the commands' own: one line, no usage box."""
    res = runner.invoke(app, args)
    assert res.exit_code == 2, (args, res.output)
    lines = [ln for ln in res.output.splitlines() if ln.strip()]
    assert len(lines) == 1, lines
    assert lines[0].startswith("error: ") and fragment in lines[0], lines
    assert not any(ch in res.output for ch in "╭│╰┌└"), res.output
    assert "Usage:" not in res.output and "Traceback" not in res.output


def test_usage_error_through_the_console_script() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "banmen", "perft", "-1"], capture_output=True, text=True
    )
    assert proc.returncode == 2 and proc.stdout == ""
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "depth" in lines[0], lines


def test_help_and_version_still_exit_zero() -> None:
    res = runner.invoke(app, ["--help"])
    assert res.exit_code == 0 and "solve" in res.output and "arena" in res.output
    res = runner.invoke(app, ["--version"])
    assert res.exit_code == 0 and res.output.startswith("banmen ")


# --------------------------------------------------------------------------- solve, perft


def test_solve_names_the_games_it_solves() -> None:
    from banmen.games.registry import load_games

    solvable = [n for n, g in load_games().items() if g.solver is not None]
    assert {"mattix", "othello", "shogi"} <= set(solvable) and "go" not in solvable
    for game, start in [("go", "error: go cannot be solved here"),
                        ("chess", "error: unknown game 'chess'")]:  # fmt: skip
        res = runner.invoke(app, ["solve", game, "9"])
        assert res.exit_code == 2, res.output
        (line,) = [ln for ln in res.output.splitlines() if ln.strip()]
        assert line.startswith(start), line
        assert "layout" not in line.lower() and "mattix" in line  # not a Mattix layout error
    res = runner.invoke(app, ["solve", "go", "9"])
    assert res.output.strip().endswith(f"expected one of {', '.join(solvable)}")


def test_perft_says_which_pass_convention_it_counted() -> None:
    free = runner.invoke(app, ["perft", "4", "--pass-free"])
    assert free.exit_code == 0, free.output
    assert "pass-free: a pass uses no ply" in free.output
    assert "passes included" not in free.output and "a pass uses a ply" not in free.output
    plain = runner.invoke(app, ["perft", "4"])
    assert "a pass uses a ply" in plain.output and "pass-free" not in plain.output
    assert "perft(4) = 244 leaves" in plain.output
    bulk = runner.invoke(app, ["perft", "9", "--bulk", "--json"])
    assert bulk.exit_code == 0, bulk.output
    rec = json.loads(bulk.output)
    assert rec["leaves"] == 3_005_288 and rec["nodes"] is None
    assert rec["counting"].startswith("bulk")


# --------------------------------------------------------------------------- start-up

HEAVY = ("numba", "numpy", "matplotlib", "starlette", "uvicorn", "cshogi", "llvmlite")


def _imported(args: list[str]) -> set[str]:
    """The top-level packages a fresh interpreter has imported after ``banmen ARGS``."""
    code = (
        "import contextlib, io, json, sys\n"
        f"sys.argv = ['banmen', *{args!r}]\n"
        "import banmen.cli\n"
        "from banmen.cli import main\n"
        "banmen.cli._exit_now = lambda code: None  # (a solve would end the probe at once)\n"
        "out, err = io.StringIO(), io.StringIO()\n"
        "with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):\n"
        "    try:\n"
        "        main()\n"
        "    except SystemExit:\n"
        "        pass\n"
        "print(json.dumps(sorted({m.split('.')[0] for m in sys.modules} | "
        "{m for m in sys.modules if m.startswith('banmen')})))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return set(json.loads(proc.stdout))


@pytest.mark.parametrize(
    "args",
    [["--help"], ["--version"], ["solve", "--help"], ["arena", "--help"], ["perft", "-1"],
     ["solve", "chess", "x"], ["viz", "line", "--n", "2"],
     ["arena", "list", "--json", "--db", "{db}"]],
)  # fmt: skip
def test_commands_without_compiled_code_import_no_heavy_modules(
    args: list[str], tmp_path: Path
) -> None:
    mods = _imported([a.replace("{db}", str(tmp_path / "a.db")) for a in args])
    assert "banmen.cli" in mods  # the probe ran the CLI
    assert not mods & set(HEAVY), sorted(mods & set(HEAVY))
    assert not {m for m in mods if m.startswith(("banmen.games.", "banmen.arena.runner"))} - {
        "banmen.games._base",
        "banmen.games.outcome",  # the contract's Outcome: a leaf of a few lines
        "banmen.games.registry",  # the registry: it loads no game until one is asked for
    }


def test_solving_mattix_imports_no_other_game() -> None:
    mods = _imported(["solve", "mattix", EXAMPLE])
    assert "banmen.games.mattix" in mods and "numba" in mods
    # (not Go either, once Go's own search has been compiled nowhere in this cache. Where
    # it has, numba's cache index of the one alpha-beta holds Go's overloads too, and
    # reading it imports Go's kernels module: one index per function, every game's
    # overloads in it — a known cost of ~0.1 s, left for issue 40's compile work.)
    for other in ("banmen.games.othello", "banmen.games.shogi"):
        assert other not in mods, other
    for unused in ("banmen.arena", "matplotlib", "starlette", "cshogi"):
        assert unused not in mods, unused


def test_a_solve_ends_its_process_at_once_with_its_output_and_status() -> None:
    """``solve`` ends the process as soon as its output is flushed (no interpreter
    teardown of numba's code): everything printed arrives, and the exit status is kept."""
    ok = subprocess.run([sys.executable, "-m", "banmen", "solve", "mattix", EXAMPLE, "--json"],
                        capture_output=True, text=True, timeout=300)  # fmt: skip
    assert ok.returncode == 0, ok.stderr
    assert json.loads(ok.stdout)["status"] == "solved"
    bad = subprocess.run([sys.executable, "-m", "banmen", "solve", "mattix", "3,X"],
                         capture_output=True, text=True, timeout=300)  # fmt: skip
    assert bad.returncode == 2 and bad.stderr.startswith("error: ")
    assert bad.stderr.count("\n") == 1 and bad.stdout == ""


def test_players_lists_each_games_kinds_and_options() -> None:
    from banmen.games.registry import get_game, kinds

    result = runner.invoke(app, ["players", "othello", "go"])
    assert result.exit_code == 0, result.output
    for name in ("othello", "go"):
        for kind, declared in kinds(get_game(name)).items():
            assert f"  {kind}" in result.output and declared.help in result.output
    offered = [ln for ln in result.output.splitlines() if not ln.strip().startswith("not offered")]
    assert "mate" not in " ".join(offered).split()  # shogi's kind: not offered by these
    assert "not offered: " in result.output and "mate (" in result.output  # said why
    bad = runner.invoke(app, ["players", "chess"])
    assert bad.exit_code == 2 and bad.output.strip().startswith("error: unknown game 'chess'")


# --------------------------------------------------------------------------- numbers

BIG = "1" + "0" * 400


def _number_options() -> list[tuple[list[str], str]]:
    """Every numeric option of every command: (the command's path and a word for each
    argument it requires, the option's flag), read from the commands' signatures."""
    import typing

    import typer
    from typer.core import TyperOption

    out: list[tuple[list[str], str]] = []

    def walk(cmd: Any, path: list[str]) -> None:
        for name, sub in sorted(getattr(cmd, "commands", {}).items()):
            walk(sub, [*path, name])
        if getattr(cmd, "commands", None) or cmd.callback is None:
            return
        hints = typing.get_type_hints(cmd.callback)
        words = ["x" for p in cmd.params if p.required and not isinstance(p, TyperOption)]
        for p in cmd.params:
            base = set(typing.get_args(hints.get(p.name or "")) or [hints.get(p.name or "")])
            if base & {int, float} and isinstance(p, TyperOption):
                out.append(([*path, *words], p.opts[0]))

    walk(typer.main.get_command(app), [])
    return out


NUMBER_OPTIONS = _number_options()


def test_the_number_options_are_found() -> None:
    found = {(path[0], flag) for path, flag in NUMBER_OPTIONS}
    assert {("analyse", "--depth"), ("solve", "--hash"), ("serve", "--port")} <= found
    assert len(found) >= 20


@pytest.mark.parametrize(("path", "flag"), NUMBER_OPTIONS, ids=lambda x: str(x))
@pytest.mark.parametrize("value", [BIG, "-" + BIG, "1e400", "nan"])
def test_every_number_option_refuses_what_it_cannot_take(
    path: list[str], flag: str, value: str
) -> None:
    """Issue 32: a number too large for any computation (400 digits, 1e400) or no number at
    all is one usage line naming the option and the range it takes, exit status 2 — before
    anything runs, whatever else the command needs."""
    res = runner.invoke(app, [*path, flag, value])
    lines = [ln for ln in res.output.splitlines() if ln.strip()]
    assert res.exit_code == 2 and len(lines) == 1, (path, flag, res.output)
    assert lines[0].startswith(f"error: Invalid value for '{flag}'"), lines[0]
    assert "': expected " in lines[0], lines[0]
    assert "Traceback" not in res.output and len(lines[0]) < 220, lines[0]


def test_hash_is_capped_by_the_machines_memory() -> None:
    from banmen.numbers import HASH, machine_mb

    assert HASH.hi <= max(1, machine_mb() // 2)
    for path in (["solve", "shogi", "4k4/9/4P4/9/9/9/9/9/9 b G 1"], ["usi"]):
        res = runner.invoke(app, [*path, "--hash", str(int(HASH.hi) + 1)])
        assert res.exit_code == 2 and f"to {int(HASH.hi)} MB" in res.output, res.output

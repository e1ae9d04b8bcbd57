"""``banmen solve shogi`` and ``banmen usi`` on the command line.

The real solver answers the small problems; a fake one (monkeypatched into
:mod:`banmen.games.shogi.tsume`) gives the outcomes a small problem cannot (a timeout, a
node limit, memory) and records the limits the options pass.
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest
from typer.testing import CliRunner

from banmen.cli import app
from banmen.games.shogi import tsume
from banmen.games.shogi.tsume import TsumeResult
from banmen.search.limits import Limit

runner = CliRunner()

ONE = "k8/9/PK7/9/9/9/9/9/9 b 2r2b4g4s4n4l17p 1"
THREE = "9/9/3pp4/+r2k1p3/2L1+p4/2+R6/B8/B8/9 b 4g4s4n3l14p 1"
NOMATE = "4k4/9/9/9/9/9/9/9/9 b - 1"
HARD = "9/9/9/9/4k4/9/9/9/9 b RGS 1"
JSON_KEYS = {"game", "sfen", "status", "length", "shortest", "reason", "pv", "kif", "csa",
             "nodes", "seconds"}  # fmt: skip


def solve(*args: str) -> Any:
    res = runner.invoke(app, ["solve", "shogi", *args])
    return res


def solve_json(*args: str) -> dict[str, Any]:
    res = solve(*args, "--json")
    assert res.exit_code == 0, res.output
    lines = res.stdout.splitlines()
    assert len(lines) == 1, res.stdout  # one object on one line
    rec = json.loads(lines[0])
    assert JSON_KEYS <= rec.keys()
    return rec


class Fake:
    def __init__(self, result: TsumeResult) -> None:
        self.result = result
        self.calls: list[tuple[str, Limit | None, int]] = []

    def __call__(self, sfen: str, limit: Limit | None = None, **kw: Any) -> TsumeResult:
        self.calls.append((sfen, limit, kw.get("hash_mb", 256)))
        return self.result


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> Fake:
    f = Fake(TsumeResult(ONE, "unknown", reason="timeout", nodes=123456, seconds=0.5))
    monkeypatch.setattr(tsume, "solve", f)
    return f


# --------------------------------------------------------------------------- the real solver


def test_mate_in_one_human() -> None:
    res = solve(ONE)
    assert res.exit_code == 0, res.output
    lines = res.stdout.splitlines()
    assert lines[0] == "mate in 1 (shortest)"
    assert lines[1].startswith("nodes: ")
    assert lines[2:] == ["usi: 9c9b+", "kif: ▲９二歩成(93)", "csa: +9392TO"]


def test_mate_in_three_json() -> None:
    rec = solve_json(THREE, "--timeout", "60")
    assert rec["game"] == "shogi" and rec["sfen"] == THREE
    assert rec["status"] == "mate" and rec["length"] == 3 and rec["shortest"] is True
    assert rec["reason"] is None
    assert rec["pv"] == ["7e7b+", "6d5d", "7f5f"]
    assert rec["kif"] == ["▲７二香成(75)", "△５四玉(64)", "▲５六龍(76)"]
    assert rec["csa"] == ["+7572NY", "-6454OU", "+7656RY"]
    assert rec["nodes"] > 0 and rec["seconds"] >= 0


def test_mate_in_three_human() -> None:
    res = solve(THREE)
    assert res.exit_code == 0, res.output
    assert res.stdout.splitlines()[0] == "mate in 3 (shortest)"
    assert "kif: ▲７二香成(75) △５四玉(64) ▲５六龍(76)" in res.stdout


def test_no_mate() -> None:
    res = solve(NOMATE)
    assert res.exit_code == 0, res.output
    assert res.stdout.splitlines()[0] == "no mate (proved)"
    assert "usi:" not in res.stdout
    rec = solve_json(NOMATE)
    assert rec["status"] == "no_mate" and rec["pv"] == rec["kif"] == rec["csa"] == []
    assert rec["length"] is None


def test_a_timeout_is_not_a_result() -> None:
    res = solve(HARD, "--timeout", "0.3")
    assert res.exit_code == 0, res.output
    assert res.stdout.splitlines()[0] == (
        "unknown: timeout after 0.3 s — no mate was found, none was ruled out"
    )
    rec = solve_json(HARD, "--nodes", "2000")
    assert rec["status"] == "unknown" and rec["reason"] == "node_limit"
    assert rec["pv"] == [] and rec["length"] is None and rec["shortest"] is False


def test_startpos_is_a_problem_too() -> None:
    # black has no check at all from the initial position: no mate, proved at once
    rec = solve_json("startpos")
    assert rec["status"] == "no_mate"
    assert rec["sfen"] == "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1"


# --------------------------------------------------------------------------- outcomes on demand


def test_options_reach_the_solver(fake: Fake) -> None:
    rec = solve_json(ONE, "--timeout", "2.5", "--nodes", "1000", "--hash", "64")
    assert fake.calls == [(ONE, Limit(time=2.5, nodes=1000), 64)]
    assert rec["limits"] == {"time": 2.5, "nodes": 1000, "hash_mb": 64}
    solve_json(ONE.rsplit(" ", 1)[0])  # the SFEN is normalized before the solver sees it
    assert fake.calls[-1] == (ONE, Limit(), 256)


@pytest.mark.parametrize(
    ("result", "args", "first_line"),
    [
        (TsumeResult(ONE, "unknown", reason="timeout", seconds=30.0), ["--timeout", "30"],
         "unknown: timeout after 30.0 s — no mate was found, none was ruled out"),
        (TsumeResult(ONE, "unknown", reason="node_limit"), ["--nodes", "1000000"],
         "unknown: node limit of 1,000,000 reached — no mate was found, none was ruled out"),
        (TsumeResult(ONE, "unknown", reason="memory"), ["--hash", "16"],
         "unknown: out of memory (--hash 16 MB) — no mate was found, none was ruled out"),
        (TsumeResult(ONE, "unknown", reason="stopped"), [],
         "unknown: stopped — no mate was found, none was ruled out"),
        (TsumeResult(ONE, "mate", ["9c9b+"], 1, False, "timeout"), ["--timeout", "1"],
         "mate in 1 (found, not proved shortest)"),
    ],
)  # fmt: skip
def test_outcome_lines(
    monkeypatch: pytest.MonkeyPatch, result: TsumeResult, args: list[str], first_line: str
) -> None:
    monkeypatch.setattr(tsume, "solve", Fake(result))
    res = solve(ONE, *args)
    assert res.exit_code == 0, res.output
    assert res.stdout.splitlines()[0] == first_line
    assert res.stdout.splitlines()[1].startswith("nodes: ")
    assert ("usi: 9c9b+" in res.stdout) == (result.status == "mate")


def test_unknown_json_claims_nothing(fake: Fake) -> None:
    rec = solve_json(ONE, "--timeout", "0.5")
    assert rec["status"] == "unknown" and rec["reason"] == "timeout"
    assert rec["pv"] == [] and rec["kif"] == [] and rec["length"] is None
    assert rec["nodes"] == 123456 and rec["seconds"] == 0.5


# --------------------------------------------------------------------------- errors


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["9/9/9 b - 1"], "SFEN board has 3 ranks"),
        (["hello"], "SFEN has 1 fields"),
        (["4k4/4K4/9/9/9/9/9/9/9 b - 1"], ""),
        (["P3k4/9/9/9/9/9/9/9/9 b - 1"], "could never move"),
        ([ONE, "--timeout", "0"], "'--timeout': expected a number from 0.001"),
        ([ONE, "--nodes", "0"], "'--nodes': expected a whole number from 1"),
        ([ONE, "--hash", "0"], "'--hash': expected a whole number from 1 to"),
        ([ONE, "--hash", "70000"], "'--hash': expected a whole number from 1 to"),
    ],
)
def test_bad_input_is_one_error_line(args: list[str], fragment: str, fake: Fake) -> None:
    res = solve(*args)
    assert res.exit_code == 2, res.output
    assert res.stdout == ""
    lines = res.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and fragment in lines[0], lines
    assert fake.calls == []


def test_shogi_options_are_for_shogi_only() -> None:
    res = runner.invoke(app, ["solve", "mattix", "3,X,7,1/5,2,8,4/6,1,2,7/5,3,4,6", "--nodes", "5"])
    assert res.exit_code == 2 and "error: --nodes is not an option of Mattix's solver" in res.output


@pytest.mark.parametrize(
    ("sfen", "message"),
    [
        ("9/9/9/9/9/9/9/9 b - 1", "SFEN board has 8 ranks, expected 9 separated by '/'"),
        ("4G4/9/9/9/9/9/9/9/9 b - 1", None),  # no king: cshogi must not print its dump
        ("4k4/4K4/9/9/9/9/9/9/9 b - 1", None),  # white in check
    ],
)
def test_console_script_has_no_traceback_on_a_bad_sfen(sfen: str, message: str | None) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "banmen", "solve", "shogi", sfen, "--json"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2 and proc.stdout == ""
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), proc.stderr
    if message is not None:
        assert lines[0] == f"error: {message}"


def test_console_script_solves() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "banmen", "solve", "shogi", ONE, "--json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    rec = json.loads(proc.stdout)
    assert rec["pv"] == ["9c9b+"] and rec["kif"] == ["▲９二歩成(93)"]


def test_usi_command_help() -> None:
    res = runner.invoke(app, ["usi", "--help"])
    assert res.exit_code == 0 and "USI" in res.stdout
    res = runner.invoke(app, ["usi", "--hash", "0"])
    assert res.exit_code == 2

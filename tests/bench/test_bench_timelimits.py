"""The time-limit benchmark: its arithmetic and its plumbing (the figures are measured by
``banmen bench time-limits``, never asserted here)."""

from __future__ import annotations

import pytest

from banmen.bench import SUITES
from banmen.bench.timelimits import (
    CASES,
    allowed_overrun,
    bench_time_limits,
    busy_loops,
    summarise,
)


def test_the_margin_is_five_per_cent_or_fifty_milliseconds() -> None:
    assert allowed_overrun(0.1) == pytest.approx(0.05)
    assert allowed_overrun(1.0) == pytest.approx(0.05)
    assert allowed_overrun(2.0) == pytest.approx(0.1)
    assert allowed_overrun(60.0) == pytest.approx(3.0)


def test_summary_counts_the_runs_over_the_margin() -> None:
    s = summarise(2.0, [1.9, 2.05, 2.2, 2.099], {"note": 1})
    assert s["runs"] == 4 and s["allowed_ms"] == pytest.approx(100.0)
    assert s["over_allowed"] == 1 and s["overrun_ms_max"] == pytest.approx(200.0)
    assert s["overrun_ms_median"] == pytest.approx(74.5) and s["note"] == 1


def test_busy_loops_spin_during_the_block_and_are_gone_after(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import subprocess

    started: list[subprocess.Popen[bytes]] = []
    real = subprocess.Popen

    def spy(*args: object, **kw: object) -> subprocess.Popen[bytes]:
        p = real(*args, **kw)  # type: ignore[call-overload]
        started.append(p)
        return p

    monkeypatch.setattr(subprocess, "Popen", spy)
    with busy_loops(2):
        assert len(started) == 2 and all(p.poll() is None for p in started)
    assert all(p.returncode is not None for p in started)


def test_a_small_run_reports_every_case_it_was_given() -> None:
    cases = ["alphabeta-mattix-8x8", "dfpn-tsume", "mcts-go-9x9-threads", "mcts-go-9x9-target"]
    r = bench_time_limits(limits=(0.05,), runs=1, load=0, cases=cases)
    assert list(r["cases"]) == cases and r["load_processes"] == 0
    for name in cases:
        (row,) = r["cases"][name]["limits"]
        assert "error" not in row, row
        assert row["runs"] == 1 and row["limit_seconds"] == 0.05
    assert r["cases"]["alphabeta-mattix-8x8"]["limits"][0]["stopped_by"] == {"time": 1}
    assert r["cases"]["dfpn-tsume"]["limits"][0]["status"] == {"unknown:timeout": 1}
    assert r["cases_with_errors"] == 0


def test_the_suite_is_registered_with_every_case() -> None:
    assert "time-limits" in SUITES
    assert {"mcts-go-19x19", "dfpn-tsume", "gtp-genmove", "usi-go-mate", "nboard-go"} <= set(CASES)
    assert {"mcts-go-9x9-threads", "mcts-go-9x9-target"} <= set(CASES)


def test_the_bench_table_shows_each_case() -> None:
    from rich.console import Console

    from banmen.cli.bench import _summary

    row = summarise(0.5, [0.51, 0.62])
    record = {
        "results": {
            "time-limits": {
                "cases": {
                    "mcts-go-9x9": {"what": "", "limits": [row]},
                    "nboard-go": {"what": "", "limits": [{"limit_seconds": 0.5, "error": "E"}]},
                }
            }
        }
    }
    console = Console(record=True, width=300)
    console.print(_summary(record))
    text = console.export_text()
    assert "time-limits mcts-go-9x9" in text and "max +120 ms (1 of 2 past +50 ms)" in text
    assert "0.5 s: E" in text

"""The tsume benchmark: rows, verdicts and summaries (speed itself is never asserted)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

import banmen.bench.tsume as tb
from banmen.bench import DEFAULT_SUITES, SUITES, run_suites
from banmen.cli.bench import _summary

MATE1 = {"name": "m1", "sfen": "k8/9/PK7/9/9/9/9/9/9 b 2r2b4g4s4n4l17p 1", "mate_length": "1"}
MATE3 = {"name": "m3", "sfen": "k2G5/9/K8/9/N8/9/9/9/9 b 2r2b3g4s3n4l18p 1", "mate_length": "3"}
MATE5 = {
    "name": "m5",
    "sfen": "9/9/5k3/9/4G4/4P4/9/9/9 b 3G2r2b4s4n4l17p 1",
    "mate_length": "5",
}
NOMATE3 = {
    "name": "n3",
    "sfen": "9/4k4/9/4P4/9/9/9/9/9 b G2r2b4s4n4l17p 1",
    "mate_length": "nomate_within_3",
}
#: zukou-079: cshogi's DfPn needs ~45 s, banmen more than 5 s.
HARD13 = {
    "name": "h13",
    "sfen": "9/5lB2/9/4n1+b2/3+P5/3+pk+rG2/3p2S2/3s2s2/5Ns2 b R2Gg2n3l15p 1",
    "mate_length": "13",
}


def test_groups_of_published_lengths() -> None:
    assert [tb.group_of(c) for c in ("1", "11", "13", "31", "41", "1525")] == [
        "1-11",
        "1-11",
        "13-31",
        "13-31",
        "41+",
        "41+",
    ]
    assert tb.group_of("nomate") == tb.group_of("nomate_within_3") == "nomate"
    assert tb.group_of("") == "unpublished"
    with pytest.raises(ValueError):
        tb.group_of("mate in seven")


def _verdict(status: str, length: int | None, cell: str) -> dict[str, Any]:
    return tb.classify({"status": status, "length": length}, cell)


def test_classify_published_mates() -> None:
    ok = _verdict("mate", 7, "7")
    assert ok["solved"] and ok["length_ok"] is True and not ok["false_no_mate"]
    assert ok["outcome"] == "length_ok"
    longer = _verdict("mate", 9, "7")
    assert longer["solved"] and longer["length_ok"] is False
    assert longer["outcome"] == "other_length"
    wrong = _verdict("no_mate", None, "7")
    assert wrong["false_no_mate"] and not wrong["solved"] and wrong["length_ok"] is False
    assert wrong["outcome"] == "false_no_mate"
    unknown = _verdict("unknown", None, "611")
    assert not unknown["false_no_mate"] and not unknown["solved"]
    assert unknown["outcome"] == "unknown" and unknown["nomate_right"] is None


def test_classify_nomate_and_unpublished_rows() -> None:
    # nomate_within_3: no mate, or a mate longer than 3, is right; a mate in 3 is not
    assert _verdict("no_mate", None, "nomate_within_3")["nomate_right"] is True
    assert _verdict("mate", 5, "nomate_within_3")["nomate_right"] is True
    false_mate = _verdict("mate", 3, "nomate_within_3")
    assert false_mate["nomate_right"] is False and false_mate["outcome"] == "false_mate"
    assert _verdict("unknown", None, "nomate_within_3")["nomate_right"] is None
    # nomate: any mate is wrong
    assert _verdict("mate", 41, "nomate")["nomate_right"] is False
    assert _verdict("no_mate", None, "nomate")["outcome"] == "nomate_right"
    for status in ("no_mate", "mate"):
        v = _verdict(status, None, "nomate")
        assert not v["false_no_mate"] and v["length_ok"] is None
    unpublished = _verdict("mate", 5, "")
    assert unpublished["length_ok"] is None and unpublished["outcome"] == "mate"
    assert not _verdict("no_mate", None, "")["false_no_mate"]


def _fake(status: str, length: int | None, seconds: float, nodes: int) -> dict[str, Any]:
    return {"status": status, "length": length, "pv": [], "nodes": nodes, "seconds": seconds}


def test_machinery_counts_fake_answers(monkeypatch: pytest.MonkeyPatch) -> None:
    """banmen answers no mate on a 3-ply row, cshogi a mate one ply too long on a 1-ply
    row: the rows and the group summaries say so."""
    answers = {
        ("banmen", "m1"): _fake("mate", 1, 1.0, 100),
        ("banmen", "m3"): _fake("no_mate", None, 3.0, 600),
        ("banmen", "m5"): _fake("mate", 5, 2.0, 500),
        ("banmen", "n3"): _fake("mate", 3, 0.5, 50),
        ("cshogi", "m1"): _fake("mate", 3, 0.1, 1000),
        ("cshogi", "m3"): _fake("mate", 3, 0.2, 3000),
        ("cshogi", "m5"): _fake("unknown", None, 5.0, 0),
        ("cshogi", "n3"): _fake("no_mate", None, 0.1, 10),
    }
    by_sfen = {r["sfen"]: r["name"] for r in (MATE1, MATE3, MATE5, NOMATE3)}
    monkeypatch.setattr(
        tb, "solve_banmen", lambda sfen, limit, hash_mb: answers["banmen", by_sfen[sfen]]
    )
    monkeypatch.setattr(
        tb.CshogiDfPn, "solve", lambda self, sfen, limit: answers["cshogi", by_sfen[sfen]]
    )
    rec = tb.bench_tsume([MATE1, MATE3, MATE5, NOMATE3], limit=5.0)
    rows = {r["name"]: r for r in rec["problems"]}
    assert rows["m3"]["banmen"]["false_no_mate"] and rows["m3"]["banmen"]["outcome"] == (
        "false_no_mate"
    )
    assert rows["m1"]["cshogi"]["length_ok"] is False and rows["m1"]["cshogi"]["solved"]
    assert rows["n3"]["banmen"]["outcome"] == "false_mate"
    assert set(rec["groups"]) == {"1-11", "nomate"}
    ban, cs = rec["groups"]["1-11"]["banmen"], rec["groups"]["1-11"]["cshogi"]
    assert (ban["problems"], ban["solved"], ban["length_equal"], ban["false_no_mate"]) == (
        3,
        2,
        2,
        1,
    )
    assert (cs["solved"], cs["length_equal"], cs["false_no_mate"], cs["unknown"]) == (2, 1, 0, 1)
    assert ban["length_equal_share"] == pytest.approx(2 / 3)
    # times over every problem; nodes/s over the solved ones only
    assert (ban["seconds_median"], ban["seconds_p90"], ban["seconds_max"]) == (2.0, 3.0, 3.0)
    assert ban["seconds_total"] == 6.0 and ban["nodes_per_second"] == pytest.approx(600 / 3.0)
    assert cs["nodes_per_second"] == pytest.approx(4000 / 0.3)
    nomate = rec["groups"]["nomate"]
    assert nomate["banmen"]["false_mate"] == 1 and nomate["cshogi"]["nomate_right"] == 1
    assert rec["total"]["banmen"]["problems"] == 4


def test_tsume_quick_suite_writes_rows(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The real solvers, through ``run_suites``: only the 1-11-ply rows, the limit from the
    environment, every row in the JSON."""
    rows = [MATE1, MATE3, MATE5, NOMATE3, HARD13]
    monkeypatch.setattr(tb, "tsume_rows", lambda path=None: [dict(r, source="") for r in rows])
    monkeypatch.setenv("BANMEN_TSUME_LIMIT", "60")  # far more than they need: load-proof
    record, path = run_suites(["tsume-quick"], False, tmp_path)
    assert json.loads(path.read_text()) == record
    r = record["results"]["tsume-quick"]
    assert r["time_limit"] == 60.0 and r["threads"] == 1
    assert [p["name"] for p in r["problems"]] == ["m1", "m3", "m5"]
    for p in r["problems"]:
        assert p["group"] == "1-11"
        for solver in ("banmen", "cshogi"):
            ans = p[solver]
            assert ans["status"] == "mate" and ans["length_ok"], (p["name"], solver, ans)
            assert len(ans["pv"]) == ans["length"] == int(p["mate_length"])
            assert ans["outcome"] == "length_ok" and 0 <= ans["seconds"]
        assert p["banmen"]["shortest"] and p["banmen"]["nodes"] > 0
    assert r["problems"][2]["cshogi"]["nodes"] > 0
    for solver in ("banmen", "cshogi"):
        g = r["groups"]["1-11"][solver]
        assert (g["problems"], g["solved"], g["length_equal"], g["false_no_mate"]) == (3, 3, 3, 0)
    console = Console(record=True, width=200)
    console.print(_summary(record))
    assert "tsume-quick 1-11" in console.export_text()


def test_limit_stops_both_solvers_and_the_worker_restarts() -> None:
    rec = tb.bench_tsume([HARD13, MATE1], limit=0.3)
    hard, easy = rec["problems"]
    assert hard["cshogi"]["status"] == "unknown" and hard["cshogi"]["nodes"] is None
    assert hard["cshogi"]["seconds"] >= 0.3  # killed at the limit, not before
    assert hard["banmen"]["status"] in ("unknown", "mate")  # a mate found, not shortened
    assert hard["banmen"]["seconds"] < 60  # a hang guard: the limit is 0.3 s
    assert not hard["cshogi"]["false_no_mate"] and hard["cshogi"]["outcome"] == "unknown"
    # the killed worker was replaced: the next problem is solved
    assert easy["cshogi"]["status"] == "mate" and easy["cshogi"]["pv"] == easy["banmen"]["pv"]


def test_limit_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("BANMEN_TSUME_LIMIT", raising=False)
    assert tb.tsume_limit(30.0) == 30.0
    monkeypatch.setenv("BANMEN_TSUME_LIMIT", "0.5")
    assert tb.tsume_limit(30.0) == 0.5
    for bad in ("0", "-1", "soon", "inf", "nan"):
        monkeypatch.setenv("BANMEN_TSUME_LIMIT", bad)
        with pytest.raises(ValueError):
            tb.tsume_limit(30.0)


def test_suite_rows_and_registration(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert "tsume" in SUITES and "tsume-quick" in SUITES
    assert "tsume" not in DEFAULT_SUITES  # up to an hour: named explicitly
    tsv = tmp_path / "t.tsv"
    tsv.write_text(
        "name\tsfen\tmate_length\tsource\n"
        + "".join(f"{r['name']}\t{r['sfen']}\t{r['mate_length']}\tx\n" for r in (MATE1, HARD13))
        + "u\t9/9/9/9/9/9/9/9/9 b - 1\t\tx\n"
    )
    monkeypatch.setenv("BANMEN_TSUME_TSV", str(tsv))
    rows = tb.tsume_rows()
    assert [r["mate_length"] for r in rows] == ["1", "13", ""]
    assert [r["name"] for r in tb.quick_rows(rows)] == ["m1"]
    monkeypatch.setenv("BANMEN_TSUME_TSV", str(tmp_path / "missing.tsv"))
    with pytest.raises(ValueError):
        tb.tsume_rows()


def test_shared_suite_parses() -> None:
    if not tb.TSUME_TSV.is_file():
        pytest.skip(f"no shared reference data at {tb.TSUME_TSV}")
    rows = tb.tsume_rows(tb.TSUME_TSV)
    groups = [tb.group_of(r["mate_length"]) for r in rows]  # no unknown cell
    assert len(rows) >= 100 and all(r["sfen"] for r in rows)
    assert {"1-11", "13-31", "41+", "nomate"} <= set(groups)
    assert len(tb.quick_rows(rows)) == groups.count("1-11")

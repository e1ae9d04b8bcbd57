"""The tsume benchmark: rows, verdicts and summaries (speed itself is never asserted)."""

from __future__ import annotations

import json
from collections.abc import Callable
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
    if "kh" in r["solvers"]:  # built here: it mates them all and proves it shortest
        for p in r["problems"]:
            assert p["kh"]["status"] == "mate" and p["kh"]["shortest"], p["kh"]
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


def test_shipped_suite_parses() -> None:
    rows = tb.tsume_rows(tb.TSUME_TSV)
    groups = [tb.group_of(r["mate_length"]) for r in rows]  # no unknown cell
    assert len(rows) >= 100 and all(r["sfen"] for r in rows)
    assert {"1-11", "13-31", "41+", "nomate"} <= set(groups)
    assert len(tb.quick_rows(rows)) == groups.count("1-11")


# --- KomoringHeights -------------------------------------------------------------------------

#: Lines KomoringHeights 1.1.0 printed (``Threads 1``, ``PostSearchLevel MinLength``) for
#: HARD13 with ``go mate 20000``, the defence of NOMATE3 and a timeout: protocol samples.
KH_FIRST = (
    "info time 968 nodes 1213350 nps 1253460 hashfull 65 depth 0 seldepth 36 score mate 23 "
    "string # 1st result: mate in 23(upper_bound:23)"
)
KH_PV = (
    "info time 969 nodes 1213350 nps 1252167 hashfull 65 currmove 3f4f score mate 23 depth 1 "
    "seldepth 36 pv 3f4f 5d4f R*5b 3d5b R*5c P*5d 5c5d+ 5f4g G*5h 4f5h+ 5d4c G*4e 3b1d+ P*2e "
    "G*4f 4e4f 1d2e P*3f 4c4f 4b4f 2e3f 4g5f G*5e"
)
KH_SECOND = (
    "info time 972 nodes 1217590 nps 1252664 hashfull 65 depth 0 seldepth 36 score mate 21 "
    "string # 2nd result: mate in 19(upper_bound:21)"
)
KH_DISPROOF = (
    "info time 0 nodes 128 nps 0 hashfull 161 depth 0 seldepth 4 score mate -9999 "
    "string # 1st result: {disproof_hand= 金 len=4001 amount=2026}"
)
KH_SEARCHING = (
    "info time 1001 nodes 1406423 nps 1405017 hashfull 81 currmove 4b4a+ score cp 4644 "
    "depth 145 seldepth 173 pv 4b4a+ 5a5b 7d6b+ 5b6b"
)
KH_MATE = (
    "checkmate 3f4f 5d4f R*5b 3d5b R*5c 5f4g G*5h 4f5h+ 5c4c+ G*4e 3b1d+ P*2e 1d2e P*3f 4c4e "
    "4b4e 2e3f 4g5f G*5e"
)


def test_parse_kh_info_lines() -> None:
    first = tb.parse_kh_info(KH_FIRST)
    assert (first["time"], first["nodes"], first["nps"], first["hashfull"]) == (
        968,
        1213350,
        1253460,
        65,
    )
    assert first["score"] == ("mate", 23) and first["mate_in"] == 23
    assert first["string"] == "# 1st result: mate in 23(upper_bound:23)"
    pv = tb.parse_kh_info(KH_PV)
    assert pv["currmove"] == "3f4f" and len(pv["pv"]) == 23 and "mate_in" not in pv
    assert pv["pv"][2] == "R*5b" and pv["seldepth"] == 36
    assert tb.parse_kh_info(KH_SECOND)["mate_in"] == 19
    disproof = tb.parse_kh_info(KH_DISPROOF)
    assert disproof["score"] == ("mate", -9999) and "mate_in" not in disproof
    searching = tb.parse_kh_info(KH_SEARCHING)
    assert searching["score"] == ("cp", 4644) and searching["depth"] == 145
    # a field it does not know, a cut line: no exception
    assert tb.parse_kh_info("info nodes 5 lowerbound time 7 score")["time"] == 7


def test_parse_kh_checkmate_answers() -> None:
    status, pv = tb.parse_kh_checkmate(KH_MATE)
    assert status == "mate" and len(pv) == 19 and pv[-1] == "G*5e"
    assert tb.parse_kh_checkmate("checkmate 9c9b+") == ("mate", ["9c9b+"])
    assert tb.parse_kh_checkmate("checkmate nomate") == ("no_mate", [])
    assert tb.parse_kh_checkmate("checkmate timeout") == ("unknown", [])
    assert tb.parse_kh_checkmate("checkmate notimplemented")[0] == "error"
    assert tb.parse_kh_checkmate("checkmate")[0] == "error"


def _row(**times: tuple[float | None, float | None]) -> dict[str, Any]:
    return {s: {"first_seconds": f, "shortest_seconds": sh} for s, (f, sh) in times.items()}


def test_time_ratio_is_a_geometric_mean_over_problems_both_proved() -> None:
    rows = [
        _row(banmen=(2.0, 8.0), kh=(1.0, 1.0)),
        _row(banmen=(0.5, None), kh=(1.0, 2.0)),  # banmen did not prove it shortest
        _row(banmen=(None, None), kh=(1.0, 1.0)),  # banmen found no mate
        _row(banmen=(3.0, 3.0), kh=(None, None)),  # KH found none
        _row(banmen=(0.004, 0.004), kh=(0.0, 0.0)),  # 0 s counts as the 1 ms floor
    ]
    first = tb.time_ratio(rows, "banmen", "first_seconds")
    assert first["problems"] == 3
    assert first["geomean"] == pytest.approx((2.0 * 0.5 * 4.0) ** (1 / 3))
    shortest = tb.time_ratio(rows, "banmen", "shortest_seconds")
    assert shortest["problems"] == 2 and shortest["geomean"] == pytest.approx((8.0 * 4.0) ** 0.5)
    assert tb.time_ratio(rows[2:4], "banmen", "first_seconds") == {"geomean": None, "problems": 0}
    assert (
        tb.time_ratio([{"banmen": {"first_seconds": 1.0}}], "banmen", "first_seconds")["problems"]
        == 0
    )  # a run without KH


def test_summary_has_first_shortest_times_and_ratios(monkeypatch: pytest.MonkeyPatch) -> None:
    def fake(
        status: str, length: int | None, secs: float, first: float | None, short: bool
    ) -> Callable[..., dict[str, Any]]:
        return lambda *a, **k: {
            **_fake(status, length, secs, 1000),
            "first_seconds": first,
            "shortest": short,
            "shortest_seconds": secs if short else None,
        }

    monkeypatch.setattr(tb, "solve_banmen", fake("mate", 1, 0.4, 0.1, True))
    monkeypatch.setattr(tb.CshogiDfPn, "solve", fake("mate", 1, 0.2, 0.2, False))
    monkeypatch.setattr(tb.KomoringHeights, "solve", fake("mate", 1, 0.1, 0.05, True))
    rec = tb.bench_tsume([MATE1, MATE3], limit=1.0, kh=Path("/bin/true"))
    assert rec["solvers"] == ["banmen", "cshogi", "kh"] and rec["kh"]["path"] == "/bin/true"
    ban = rec["groups"]["1-11"]["banmen"]
    assert ban["first_mate_seconds"] == {
        "problems": 2,
        "median": 0.1,
        "geomean": pytest.approx(0.1),
    }
    assert ban["shortest_seconds"]["geomean"] == pytest.approx(0.4)
    assert ban["time_ratio_to_kh"]["first_mate"]["geomean"] == pytest.approx(2.0)
    assert ban["time_ratio_to_kh"]["shortest"] == {"geomean": pytest.approx(4.0), "problems": 2}
    cs = rec["groups"]["1-11"]["cshogi"]
    assert cs["time_ratio_to_kh"]["shortest"] == {"geomean": None, "problems": 0}
    assert "time_ratio_to_kh" not in rec["groups"]["1-11"]["kh"]
    console = Console(record=True, width=400)
    console.print(_summary({"results": {"tsume": rec}}))
    text = console.export_text()
    assert "KomoringHeights" in text and "first mate x2 over 2" in text
    assert "proved shortest x4 over 2" in text and "proved shortest -" in text

    without = tb.bench_tsume([MATE1], limit=1.0, kh=None)
    assert without["solvers"] == ["banmen", "cshogi"] and without["kh"]["left_out"]
    assert "time_ratio_to_kh" not in without["total"]["banmen"]
    console = Console(record=True, width=400)
    console.print(_summary({"results": {"tsume-quick": without}}))
    assert "KomoringHeights left out" in console.export_text()


def test_kh_path_resolution(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BANMEN_KH", str(tmp_path / "missing"))
    with pytest.raises(ValueError, match="KomoringHeights not found"):
        tb.kh_path()
    exe = tmp_path / "kh"
    exe.write_text("#!/bin/sh\n")
    exe.chmod(0o755)
    monkeypatch.setenv("BANMEN_KH", str(exe))
    assert tb.kh_path() == exe
    assert tb.kh_path(str(exe)) == exe
    monkeypatch.delenv("BANMEN_KH")
    monkeypatch.setattr(tb, "KH_DEFAULT", tmp_path / "nowhere")
    assert tb.kh_path() is None


#: A stand-in engine speaking KomoringHeights' protocol: it exits on ``go`` for NOMATE3's
#: position, never answers (``stop`` included) for MATE3's, and mates in one otherwise.
FAKE_KH = """\
import sys
sfen = ""
for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    if words[0] == "usi":
        print("id name FakeKH", flush=True)
        print("usiok", flush=True)
    elif words[0] == "isready":
        print("readyok", flush=True)
    elif words[0] == "position":
        sfen = " ".join(words[2:])
    elif words[0] == "go":
        if sfen.startswith("9/4k4/9/4P4"):
            sys.exit(3)
        if sfen.startswith("k2G5"):
            continue  # a hang: no answer, and ``stop`` is not heeded
        print("info time 0 nodes 2 nps 0 string # 1st result: mate in 1(upper_bound:1)")
        print("checkmate 9c9b+", flush=True)
    elif words[0] == "quit":
        break
"""


def _fake_kh(tmp_path: Path) -> Path:
    import sys

    exe = tmp_path / "fake_kh"
    exe.write_text(f"#!{sys.executable}\n{FAKE_KH}")
    exe.chmod(0o755)
    return exe


def test_kh_that_dies_or_hangs_is_an_error_for_that_problem(tmp_path: Path) -> None:
    with tb.KomoringHeights(_fake_kh(tmp_path), grace=0.2) as kh:
        ok = kh.solve(MATE1["sfen"], 1.0)
        assert ok["status"] == "mate" and ok["pv"] == ["9c9b+"] and ok["shortest"]
        assert ok["first_seconds"] is not None and ok["nodes"] == 2 and kh.name == "FakeKH"
        died = kh.solve(NOMATE3["sfen"], 1.0)
        assert died["status"] == "error" and "exited" in died["reason"]
        assert kh.solve(MATE1["sfen"], 1.0)["status"] == "mate"  # a new process
        hung = kh.solve(MATE3["sfen"], 0.2)
        assert hung["status"] == "error" and "killed" in hung["reason"]
        assert 0.2 <= hung["seconds"] < 5
        assert kh.solve(MATE1["sfen"], 1.0)["status"] == "mate"
        assert kh.solve("not a position", 1.0)["status"] == "error"
    # a binary that cannot start: every problem an error, the run goes on
    gone = tmp_path / "gone"
    rec = tb.bench_tsume([MATE1, MATE3], limit=1.0, kh=gone)
    assert [p["kh"]["status"] for p in rec["problems"]] == ["error", "error"]
    assert rec["groups"]["1-11"]["kh"]["errors"] == 2
    assert rec["problems"][0]["banmen"]["status"] == "mate"


@pytest.mark.external
def test_real_kh_on_tiny_problems() -> None:
    try:
        path = tb.kh_path()  # BANMEN_KH, else the anchors' build
    except ValueError:
        path = None
    if path is None:
        pytest.skip("KomoringHeights is not built here (../shared/anchors/build.sh kh)")
    with tb.KomoringHeights(path) as kh:
        mate1 = kh.solve(MATE1["sfen"], 10.0)
        assert mate1["status"] == "mate" and mate1["pv"] == ["9c9b+"] and mate1["length"] == 1
        assert mate1["shortest"] and mate1["shortest_seconds"] == mate1["seconds"] < 10
        assert 0 <= mate1["first_seconds"] <= mate1["seconds"] <= mate1["wall_seconds"]
        assert mate1["setup_seconds"] is not None and mate1["setup_seconds"] >= 0
        assert mate1["nodes"] is not None and mate1["reason"] is None
        assert kh.name is not None and kh.name.startswith("KomoringHeights")
        mate3 = kh.solve(MATE3["sfen"], 10.0)
        assert mate3["status"] == "mate" and mate3["length"] == 3 and mate3["shortest"]
        nomate = kh.solve(NOMATE3["sfen"], 10.0)
        assert nomate["status"] == "no_mate" and nomate["first_seconds"] is None
        assert not nomate["shortest"] and nomate["reason"] is None
        # a limit far too short for it: its best line so far, not proved shortest
        hard = kh.solve(HARD13["sfen"], 0.3)
        assert hard["status"] in ("unknown", "mate") and not hard["shortest"]
        assert hard["reason"] == "timeout" and 0.3 <= hard["wall_seconds"] < 10

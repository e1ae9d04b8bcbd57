"""Managing runs: a start that fails leaves no run behind, ``banmen arena delete`` and
``banmen arena report RUN RUN ...`` (runs side by side), checked against the games in the
database."""

from __future__ import annotations

import csv
import io
import json
import math
import sqlite3
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import banmen.arena.cluster
import banmen.arena.runner
import banmen.cli.arena
from banmen.arena.play import GameFailed
from banmen.arena.report import build_report, compare_rows
from banmen.arena.runner import Progress, RunDeleted, planned_jobs, run_arena
from banmen.arena.store import ArenaStore, GameRecord, RunConfig, RunIsRunning
from banmen.cli import app

runner = CliRunner()

TWO = RunConfig(
    game="mattix",
    players=[{"name": "d1", "spec": "alphabeta:depth=1"}, {"name": "r", "spec": "random"}],
    games=4,
    seed=5,
    size=4,
)


def _counts(db: Path) -> tuple[dict[str, str], dict[str, int]]:
    """Each run's status, and each run name's games (orphans included), read with plain
    SQL — not through the store under test."""
    con = sqlite3.connect(db)
    try:
        runs = dict(con.execute("SELECT id, status FROM arena_runs").fetchall())
        games = dict(
            con.execute("SELECT run_id, COUNT(*) FROM arena_games GROUP BY run_id").fetchall()
        )
    finally:
        con.close()
    return runs, games


def _error_lines(res: Any) -> list[str]:
    return [ln for ln in res.stderr.splitlines() if ln.strip()]


def _fake_game(job: Any, result: str = "1-0") -> GameRecord:
    return GameRecord(job.pairing, job.pair, job.swapped, job.first, job.second, job.deal_seed,
                      result, 9, 4, ["a1"], [0.001])  # fmt: skip


def _stored_run(db: Path, name: str, config: RunConfig = TWO, games: int = 0) -> None:
    with ArenaStore(db) as store:
        store.create_run(config, name)
        for job in planned_jobs(config)[:games]:
            assert store.add_game(name, _fake_game(job))
        store.set_status(name, "done" if games else "interrupted")


# --------------------------------------------------------------------------- a failed start


def test_a_player_that_cannot_start_leaves_no_run(tmp_path: Path) -> None:
    db = tmp_path / "a.db"
    res = runner.invoke(app, ["arena", "mattix", "--size", "4", "-p", "a=alphabeta:depth=1",
                              "-p", f"b=python:{tmp_path / 'missing.py'}:Player", "--games", "2",
                              "--db", str(db), "--workers", "1", "--name", "x"])  # fmt: skip
    assert res.exit_code == 2, res.output
    (line,) = _error_lines(res)
    assert line.startswith("error: worker process ") and "cannot start player" in line
    assert "missing.py" in line and "run x not kept" in line and "--resume" not in line
    assert "Traceback" not in res.output
    assert _counts(db) == ({}, {})


def test_without_dask_a_cluster_run_records_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "distributed", None)  # `import distributed` fails
    db = tmp_path / "a.db"
    args = ["arena", "mattix", "-p", "a=alphabeta:depth=1", "-p", "b=random",
            "--cluster", "local:2", "--db", str(db)]  # fmt: skip
    res = runner.invoke(app, args)
    assert res.exit_code == 2, res.output
    (line,) = _error_lines(res)
    assert line == "error: --cluster needs Dask distributed: pip install 'banmen[cluster]'"
    assert not db.exists() or _counts(db) == ({}, {})
    # Had the check before the run been skipped, the failure when the pool starts would
    # still leave nothing behind.
    monkeypatch.setattr(banmen.arena.cluster, "require_dask", lambda: None)
    res = runner.invoke(app, [*args, "--name", "late"])
    assert res.exit_code == 2, res.output
    (line,) = _error_lines(res)
    assert "needs Dask distributed" in line and "run late not kept" in line
    assert _counts(db) == ({}, {})


def test_a_resumed_run_that_cannot_start_is_kept(tmp_path: Path) -> None:
    db = tmp_path / "a.db"
    broken = RunConfig(**{**TWO.to_dict(), "players": [
        TWO.players[0], {"name": "p", "spec": f"python:{tmp_path / 'missing.py'}:P"}]})  # fmt: skip
    _stored_run(db, "played", broken, games=2)
    _stored_run(db, "empty", broken, games=0)
    for name, games in (("played", 2), ("empty", 0)):
        res = runner.invoke(app, ["arena", "--resume", name, "--db", str(db), "--workers", "1"])
        assert res.exit_code == 2, res.output
        (line,) = _error_lines(res)
        assert "cannot start player" in line, line
        assert f"{games} games recorded. Continue with: banmen arena --resume {name}" in line
    runs, games_of = _counts(db)
    assert runs == {"played": "interrupted", "empty": "interrupted"}
    assert games_of == {"played": 2}


def _failing_after(games: int, exc: BaseException) -> Any:
    """A stand-in for ``run_arena`` that records ``games`` games, then raises ``exc``."""

    def fake(store: ArenaStore, run_id: str, *args: Any, **kwargs: Any) -> Progress:
        for job in planned_jobs(store.run_config(run_id))[:games]:
            store.add_game(run_id, _fake_game(job))
        store.set_status(run_id, "interrupted")
        raise exc

    return fake


@pytest.mark.parametrize("played", [0, 2])
@pytest.mark.parametrize("how", ["failed", "interrupted"])
def test_a_new_run_is_kept_once_it_has_a_game(
    played: int, how: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    exc = GameFailed("pair 0 of d1 vs r failed") if how == "failed" else KeyboardInterrupt()
    monkeypatch.setattr(banmen.arena.runner, "run_arena", _failing_after(played, exc))
    db = tmp_path / "a.db"
    res = runner.invoke(app, ["arena", "mattix", "--size", "4", "-p", "d1=alphabeta:depth=1",
                              "-p", "r=random", "--games", "4", "--db", str(db),
                              "--name", "n"])  # fmt: skip
    assert res.exit_code == (2 if how == "failed" else 130), res.output
    assert "Traceback" not in res.output
    runs, games = _counts(db)
    if played:
        assert runs == {"n": "interrupted"} and games == {"n": played}
        assert f"{played} games recorded. Continue with: banmen arena --resume n" in res.output
    else:
        assert runs == {} and games == {}
        assert "not kept" in res.output and "--resume" not in res.output
    if how == "failed":
        (line,) = _error_lines(res)
        assert line.startswith("error: pair 0 of d1 vs r failed. ")


# --------------------------------------------------------------------------- delete


def test_delete_runs_and_their_games(tmp_path: Path) -> None:
    db = tmp_path / "a.db"
    for name, games in (("keep", 4), ("old", 4), ("empty", 0)):
        _stored_run(db, name, games=games)
    res = runner.invoke(app, ["arena", "delete", "old", "empty", "old", "--db", str(db)])
    assert res.exit_code == 0, res.output
    assert res.stdout == f"deleted 2 runs from {db}: old (4 games), empty (0 games)\n"
    assert _counts(db) == ({"keep": "done"}, {"keep": 4})
    with ArenaStore(db) as store:  # the rest is untouched
        assert len(store.games("keep")) == 4 and store.run_ids() == ["keep"]


def test_deleting_an_unknown_run_deletes_nothing(tmp_path: Path) -> None:
    db = tmp_path / "a.db"
    _stored_run(db, "keep", games=2)
    before = _counts(db)
    res = runner.invoke(app, ["arena", "delete", "keep", "nothing", "--db", str(db), "--yes"])
    assert res.exit_code == 2
    (line,) = _error_lines(res)
    assert line.startswith("error: nothing deleted: no arena run 'nothing'") and "keep" in line
    assert _counts(db) == before
    # The store checks every run in its transaction before it deletes any.
    with ArenaStore(db) as store, pytest.raises(ValueError, match="nothing deleted"):
        store.delete_runs(["keep", "nothing"])
    assert _counts(db) == before
    res = runner.invoke(app, ["arena", "delete", "keep", "--db", str(tmp_path / "none.db")])
    assert res.exit_code == 2 and "no database" in res.stderr
    assert not (tmp_path / "none.db").exists()
    garbage = tmp_path / "garbage.db"
    garbage.write_bytes(b"not a database at all" * 100)
    res = runner.invoke(app, ["arena", "delete", "keep", "--db", str(garbage)])
    assert res.exit_code == 2 and "Traceback" not in res.output
    (line,) = _error_lines(res)
    assert line.startswith("error: nothing deleted: ") and "not a database" in line
    assert garbage.read_bytes() == b"not a database at all" * 100


def test_a_running_run_is_deleted_only_with_force(tmp_path: Path) -> None:
    db = tmp_path / "a.db"
    _stored_run(db, "live", games=2)
    _stored_run(db, "done", games=2)
    with ArenaStore(db) as store:
        store.set_status("live", "running")
        with pytest.raises(RunIsRunning) as info:
            store.delete_runs(["done", "live"])
        assert list(info.value.runs) == ["live"]
    res = runner.invoke(app, ["arena", "delete", "done", "live", "--db", str(db)])
    assert res.exit_code == 2
    (line,) = _error_lines(res)
    assert "run 'live' (since" in line and "is running: nothing deleted" in line
    assert "--force" in line
    assert _counts(db)[1] == {"live": 2, "done": 2}
    res = runner.invoke(app, ["arena", "delete", "done", "live", "--db", str(db), "--force"])
    assert res.exit_code == 0, res.output
    assert _counts(db) == ({}, {})


def test_delete_asks_on_a_terminal_unless_yes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "a.db"
    _stored_run(db, "a", games=2)
    _stored_run(db, "b", games=4)
    monkeypatch.setattr(banmen.cli.arena, "_stdin_is_terminal", lambda: True)
    res = runner.invoke(app, ["arena", "delete", "a", "b", "--db", str(db)], input="n\n")
    assert res.exit_code == 1
    assert "delete 2 runs and their 6 games" in res.output and "a (done, 2 games)" in res.output
    assert "nothing deleted" in res.stderr
    assert set(_counts(db)[0]) == {"a", "b"}
    res = runner.invoke(app, ["arena", "delete", "a", "--db", str(db)], input="y\n")
    assert res.exit_code == 0 and "deleted 1 run" in res.stdout
    res = runner.invoke(app, ["arena", "delete", "b", "--db", str(db), "--yes"])  # no input
    assert res.exit_code == 0 and "[y/N]" not in res.output
    assert _counts(db) == ({}, {})


def test_a_run_deleted_while_it_plays_stops_and_leaves_no_games(tmp_path: Path) -> None:
    db = tmp_path / "a.db"
    config = RunConfig(**{**TWO.to_dict(), "games": 400})
    store = ArenaStore(db)
    store.create_run(config, "doomed")
    calls = []

    def delete_once_playing(p: Progress) -> None:
        calls.append(p.done)
        if p.done and len(calls) == 2:
            with ArenaStore(db) as other:
                other.delete_runs(["doomed"], force=True)

    with pytest.raises(RunDeleted, match="'doomed' was deleted"):
        run_arena(store, "doomed", workers=1, on_progress=delete_once_playing)
    assert len(calls) == 2  # it stopped at the next batch
    assert _counts(db) == ({}, {})  # the games that landed after are gone too
    # A new run of that name starts empty, whatever workers left under it.
    con = sqlite3.connect(db)
    con.execute("INSERT INTO arena_games VALUES ('doomed', 0, 0, 0, 'd1', 'r', 5, '1-0', 1, 0, "
                "'[]', '[]', 'now', '{}', NULL)")  # fmt: skip
    con.commit()
    con.close()
    store.create_run(config, "doomed")
    assert store.games("doomed") == []
    store.close()


def test_a_second_run_of_a_name_is_refused_and_the_first_keeps_its_games(tmp_path: Path) -> None:
    db = tmp_path / "a.db"
    _stored_run(db, "same", games=4)
    args = ["arena", "mattix", "--size", "4", "-p", "a=random", "-p", "b=random", "--games",
            "2", "--db", str(db), "--name", "same"]  # fmt: skip
    res = runner.invoke(app, args)
    assert res.exit_code == 2
    (line,) = _error_lines(res)
    assert "a run named 'same' exists already" in line
    assert _counts(db) == ({"same": "done"}, {"same": 4})


# --------------------------------------------------------------------------- runs compared


def _wilson(k: float, n: int) -> tuple[float, float]:
    """The 95% Wilson score interval, from its textbook formula."""
    z = 1.959963984540054
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


def _expected(games: list[GameRecord], a: str, b: str) -> dict[str, Any]:
    """What a comparison row should say, counted from the games themselves."""
    pts = [{"1-0": 1.0, "0-1": 0.0}.get(g.result, 0.5) for g in games]
    mine = [p if g.first == a else 1 - p for g, p in zip(games, pts, strict=True)]
    n = len(games)

    def per_move(name: str) -> float:
        t = [x for g in games for i, x in enumerate(g.times) if (i % 2 == 0) == (g.first == name)]
        return sum(t) / len(t)

    return {
        "games": n,
        "wdl": (mine.count(1.0), mine.count(0.5), mine.count(0.0)),
        "score": sum(mine) / n,
        "score_ci": _wilson(sum(mine), n),
        "first": sum(pts) / n,
        "first_ci": _wilson(sum(pts), n),
        "forfeits": tuple(
            sum(1 for g in games if g.extra.get("forfeit", {}).get("player") == x) for x in (a, b)
        ),  # fmt: skip
        "per_move": (per_move(a), per_move(b)),
    }


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two small real runs: depth-1 alpha-beta against random, then random first-named."""
    db = tmp_path_factory.mktemp("compare") / "runs.db"
    for name, players, seed in (
        ("ab-first", ["d1=alphabeta:depth=1", "r=random:seed=4"], 3),
        ("random-first", ["r=random:seed=4", "d1=alphabeta:depth=1"], 9),
    ):
        args = ["arena", "mattix", "--size", "4", "--games", "6", "--seed", str(seed),
                "--workers", "1", "--db", str(db), "--name", name]  # fmt: skip
        for p in players:
            args += ["-p", p]
        res = runner.invoke(app, args)
        assert res.exit_code == 0, res.output
    return db


def test_compared_runs_agree_with_their_games(two_runs: Path) -> None:
    res = runner.invoke(app, ["arena", "report", "ab-first", "random-first", "--db",
                              str(two_runs), "--json"])  # fmt: skip
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    rows = out["comparison"]
    assert [(r["run"], r["a"], r["b"]) for r in rows] == [
        ("ab-first", "d1", "r"), ("random-first", "r", "d1")]  # fmt: skip
    with ArenaStore(two_runs) as store:
        for row, rep in zip(rows, out["reports"], strict=True):
            games = store.games(row["run"])
            want = _expected(games, row["a"], row["b"])
            assert row["games"] == want["games"] == 6 and row["status"] == "done"
            assert (row["a_wins"], row["draws"], row["a_losses"]) == want["wdl"]
            assert row["a_score"] == pytest.approx(want["score"])
            assert row["a_score_ci95"] == pytest.approx(want["score_ci"])
            assert row["first_player_score"] == pytest.approx(want["first"])
            assert row["first_player_score_ci95"] == pytest.approx(want["first_ci"])
            assert (row["a_forfeits"], row["b_forfeits"]) == want["forfeits"]
            assert (row["a_move_seconds"], row["b_move_seconds"]) == pytest.approx(want["per_move"])
            assert [p["spec"] for p in rep["players"]] == [row["a_spec"], row["b_spec"]]
            # Each run's part is its own report, as `banmen arena report RUN --json` gives it.
            alone = runner.invoke(app, ["arena", "report", row["run"], "--db", str(two_runs),
                                        "--json", "--no-plots", "--out",
                                        str(two_runs.parent / row["run"])])  # fmt: skip
            assert json.loads(alone.stdout) == rep
            # One pairing: the first mover's score is the run's.
            assert rep["first_player"]["score"] == pytest.approx(row["first_player_score"])
    # The table says the same.
    res = runner.invoke(app, ["arena", "report", "ab-first", "random-first", "--db",
                              str(two_runs)])  # fmt: skip
    assert res.exit_code == 0, res.output
    for row in rows:
        wdl = f"{row['a_wins']}-{row['draws']}-{row['a_losses']}"
        line = next(ln for ln in res.stdout.splitlines() if f" {row['run']} " in ln)
        assert wdl in line and f"{row['a']} vs {row['b']}" in line, line
        assert f"{100 * row['a_score']:.1f} [" in line
    assert "add --out DIR" in res.stdout


def test_compared_runs_written_to_a_folder(two_runs: Path, tmp_path: Path) -> None:
    out = tmp_path / "cmp"
    res = runner.invoke(app, ["arena", "report", "random-first", "ab-first", "--db",
                              str(two_runs), "--out", str(out), "--json"])  # fmt: skip
    assert res.exit_code == 0, res.output
    printed = json.loads(res.stdout)
    saved = json.loads((out / "comparison.json").read_text())
    assert saved["rows"] == printed["comparison"]
    assert saved["runs"] == [{"run": "random-first", "folder": "random-first"},
                             {"run": "ab-first", "folder": "ab-first"}]  # fmt: skip
    table = list(csv.DictReader(io.StringIO((out / "comparison.csv").read_text())))
    assert [(r["run"], r["a"], r["games"]) for r in table] == [
        ("random-first", "r", "6"), ("ab-first", "d1", "6")]  # fmt: skip
    for r, row in zip(table, printed["comparison"], strict=True):
        assert float(r["a_score"]) == pytest.approx(row["a_score"])
        assert float(r["first_player_lo"]) == pytest.approx(row["first_player_score_ci95"][0])
    assert (out / "comparison.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert b"<svg" in (out / "comparison.svg").read_bytes()[:2000]
    with ArenaStore(two_runs) as store:
        for rep in printed["reports"]:
            folder = out / rep["run"]
            assert json.loads((folder / "report.json").read_text()) == rep
            lines = (folder / "games.csv").read_text().splitlines()
            assert len(lines) == 1 + len(store.games(rep["run"]))
            assert (folder / "heatmap.svg").exists() and (folder / "margins.png").exists()


def test_bad_comparisons_are_one_line_errors_and_write_nothing(
    two_runs: Path, tmp_path: Path
) -> None:
    out = tmp_path / "cmp"
    for args, says in (
        (["ab-first", "nothing"], "no arena run 'nothing'"),
        (["ab-first", "random-first", "ab-first"], "run 'ab-first' is named twice"),
    ):
        res = runner.invoke(app, ["arena", "report", *args, "--db", str(two_runs),
                                  "--out", str(out)])  # fmt: skip
        assert res.exit_code == 2
        (line,) = _error_lines(res)
        assert line.startswith("error: ") and says in line, line
        assert not out.exists()
    # A file where the folder should be: one line, for one run as for several.
    out.write_text("mine")
    for args in (["ab-first"], ["ab-first", "random-first"]):
        res = runner.invoke(app, ["arena", "report", *args, "--db", str(two_runs),
                                  "--out", str(out)])  # fmt: skip
        assert res.exit_code == 2
        (line,) = _error_lines(res)
        assert line.startswith(f"error: cannot write the report to {out}: "), line
    assert out.read_text() == "mine"


def test_a_round_robin_compares_pairing_by_pairing(tmp_path: Path) -> None:
    db = tmp_path / "a.db"
    three = RunConfig(
        game="mattix",
        players=[{"name": n, "spec": f"alphabeta:depth={d}"} for n, d in (("x", 1), ("y", 2),
                                                                          ("z", 3))],
        games=2,
        seed=1,
    )  # fmt: skip
    with ArenaStore(db) as store:
        store.create_run(three, "rr")
        results = ["1-0", "1/2-1/2", "0-1", "1-0"]  # the last pairing gets no games
        for job, result in zip(planned_jobs(three), results, strict=False):
            store.add_game("rr", _fake_game(job, result))
        rows = compare_rows([build_report(store, "rr")])
    assert [(r["a"], r["b"], r["games"]) for r in rows] == [("x", "y", 2), ("x", "z", 2),
                                                            ("y", "z", 0)]  # fmt: skip
    # x-y: x first wins, then y first draws; x-z: x first loses, then z first wins.
    assert [(r["a_wins"], r["draws"], r["a_losses"]) for r in rows[:2]] == [(1, 1, 0), (0, 0, 2)]
    assert [r["first_player_score"] for r in rows] == [0.75, 0.5, None]
    assert rows[2]["first_player_score_ci95"] is None


@pytest.mark.parametrize("width", [60, 80])
def test_a_narrow_terminal_gets_the_comparison_as_paragraphs(two_runs: Path, width: int) -> None:
    from rich.console import Console

    with ArenaStore(two_runs) as store:
        reports = [build_report(store, run) for run in ("ab-first", "random-first")]
    rows = compare_rows(reports)
    console = Console(width=width, record=True)
    console.print(banmen.cli.arena.comparison_view(rows, width), crop=False)
    text = console.export_text()
    lines = text.splitlines()
    assert max(len(ln.rstrip()) for ln in lines) <= width
    for row in rows:  # each run's name whole at the start of a line, its numbers under it
        assert any(ln.startswith(f"{row['run']} · mattix 4x4 · 6/6 games") for ln in lines)
        assert f"W-D-L {row['a_wins']}-{row['draws']}-{row['a_losses']}" in " ".join(text.split())
    wide = Console(width=400, record=True)
    wide.print(banmen.cli.arena.comparison_view(rows, 400), crop=False)
    assert "┃ run" in wide.export_text()  # wide enough: the table

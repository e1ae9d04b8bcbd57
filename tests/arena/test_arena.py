"""The arena: pairing and seeds, statistics, kill-and-resume, reports, plots, bad input."""

from __future__ import annotations

import csv
import io
import json
import math
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from banmen.arena.play import EngineCache, play_game
from banmen.arena.report import report_from
from banmen.arena.runner import run_arena, sprt_decisions
from banmen.arena.schedule import Job, Player, ScheduleError, make_jobs, make_pairings, parse_player
from banmen.arena.store import ArenaStore, GameRecord, RunConfig
from banmen.cli import app
from banmen.games.mattix import Board
from banmen.stats import bradley_terry, sprt_bounds, sprt_llr

runner = CliRunner()
PLAYERS = [Player("a", "alphabeta:depth=1"), Player("b", "alphabeta:depth=2"),
           Player("c", "random:seed=3")]  # fmt: skip


# --------------------------------------------------------------------------- scheduling


def test_round_robin_and_gauntlet_pairings() -> None:
    assert make_pairings(PLAYERS) == [("a", "b"), ("a", "c"), ("b", "c")]
    assert make_pairings(PLAYERS, "b") == [("b", "a"), ("b", "c")]
    with pytest.raises(ScheduleError, match="--gauntlet 'z' is not a player: expected one of a"):
        make_pairings(PLAYERS, "z")
    with pytest.raises(ScheduleError, match="at least two players"):
        make_pairings(PLAYERS[:1])
    with pytest.raises(ScheduleError, match="used twice"):
        make_pairings([PLAYERS[0], PLAYERS[0]])


def test_games_are_paired_on_the_same_deal_with_sides_swapped() -> None:
    pairings = make_pairings(PLAYERS)
    jobs = make_jobs(pairings, games=6, seed=100)
    assert len(jobs) == 3 * 6
    assert len({j.key for j in jobs}) == len(jobs)
    by_key = {j.key: j for j in jobs}
    for p, (a, b) in enumerate(pairings):
        for pair in range(3):
            g1, g2 = by_key[(p, pair, 0)], by_key[(p, pair, 1)]
            assert (g1.first, g1.second) == (a, b) and (g2.first, g2.second) == (b, a)
            assert g1.deal_seed == g2.deal_seed == 100 + pair  # every pairing: the same deals
    # Interleaved: the first jobs cover every pairing before any pairing's second pair.
    assert [j.pairing for j in jobs[:6]] == [0, 0, 1, 1, 2, 2]
    for bad in (0, 1, 7):
        with pytest.raises(ScheduleError, match="even number"):
            make_jobs(pairings, bad, 1)


def test_player_specs() -> None:
    assert parse_player("d3=alphabeta:depth=3") == Player("d3", "alphabeta:depth=3")
    assert parse_player("perfect") == Player("perfect", "perfect")
    with pytest.raises(ScheduleError, match="player x: unknown player 'foo': expected one of"):
        parse_player("x=foo")
    with pytest.raises(ScheduleError, match="bad player name"):
        parse_player("a b=random")


def test_a_spec_is_read_once_and_crosses_as_data(monkeypatch: pytest.MonkeyPatch) -> None:
    from banmen.arena import play as play_module
    from banmen.arena.schedule import player_specs

    players = [
        parse_player(t, "mattix").to_config() for t in ("a=alphabeta:depth=2", "b=random:seed=4")
    ]
    assert players[0]["parsed"]["options"] == {"depth": 2}  # what the run stores
    json.loads(json.dumps(players))  # (as data: JSON, SQLite's column)
    specs = player_specs("mattix", players)

    def read_again(*args: object) -> None:
        raise AssertionError("a spec was read again from its text")

    monkeypatch.setattr(play_module, "parse_spec", read_again)
    cache = EngineCache()
    record = play_game("mattix", 4, Job(0, 0, False, "a", "b", 7), specs, cache)
    assert record.moves and record.first == "a"
    cache.close()
    # a stored record that disagrees with its text (or calls a user's player banmen's) is
    # not believed: the text is read instead
    forged = [dict(players[0], spec="alphabeta:depth=5"), players[1]]
    monkeypatch.undo()
    assert player_specs("mattix", forged)["a"].options == {"depth": 5}
    user = parse_player("p=python:x.py:P", "mattix").to_config()
    user["parsed"]["user"] = False
    assert player_specs("mattix", [user])["p"].user


def test_a_game_depends_only_on_its_seed_and_specs() -> None:
    specs = {"a": "alphabeta:depth=2", "b": "random:seed=7"}
    job = Job(0, 0, False, "a", "b", 42)
    first = play_game("mattix", 6, job, specs, EngineCache())
    cache = EngineCache()
    for seed in (1, 2, 3):  # other games first: the table and the random state must not leak
        play_game("mattix", 6, Job(0, seed, False, "a", "b", seed), specs, cache)
    again = play_game("mattix", 6, job, specs, cache)
    assert again.moves == first.moves and again.result == first.result
    board = Board.from_seed(42, 6)
    for m in first.moves:
        board.push_name(m)
    assert board.is_game_over() and board.scores == (first.score1, first.score2)
    assert board.result() == first.result and len(first.times) == len(first.moves)


# --------------------------------------------------------------------------- statistics


def test_elo_fit_and_sprt_textbook_values() -> None:
    ratings, cov = bradley_terry(2, [(0, 1, 750, 1000)], prior_draws=0)
    assert ratings[1] == pytest.approx(-190.85, abs=0.01)  # 75% score = 190.85 Elo
    # Fisher information of a logistic model: var = 1 / (n p (1-p)), in Elo units.
    assert math.sqrt(cov[1][1]) == pytest.approx(
        400 / math.log(10) / math.sqrt(1000 * 0.75 * 0.25), rel=1e-6
    )
    # A transitive round robin: fitted differences follow the scores.
    r, _ = bradley_terry(3, [(0, 1, 600, 1000), (1, 2, 600, 1000), (0, 2, 690, 1000)])
    assert r[0] > r[1] > r[2]
    lo, hi = sprt_bounds(0.05, 0.05)
    assert lo == pytest.approx(-2.944, abs=1e-3) and hi == pytest.approx(2.944, abs=1e-3)
    assert sprt_llr([1.0] * 30, 0, 50) > hi  # every pair won: H1 quickly
    assert sprt_llr([0.0, 0.25] * 30, 0, 50) < lo  # losing: H0
    assert sprt_llr([0.5, 0.5, 0.25, 0.75], 0, 50) == pytest.approx(
        4 * (0.5714631 - 0.5) * (2 * 0.5 - 0.5 - 0.5714631) / (2 * 0.03125), rel=1e-5
    )


def test_report_counts_and_first_player_rate() -> None:
    cfg = RunConfig(game="mattix", players=[{"name": "a", "spec": "random"},
                                            {"name": "b", "spec": "random"}],  # fmt: skip
                    games=4, seed=0)  # fmt: skip
    games = [
        GameRecord(0, 0, False, "a", "b", 0, "1-0", 10, 5),
        GameRecord(0, 0, True, "b", "a", 0, "1-0", 8, 7),
        GameRecord(0, 1, False, "a", "b", 1, "1/2-1/2", 6, 6),
        GameRecord(0, 1, True, "b", "a", 1, "0-1", 3, 9),
    ]
    rep = report_from(cfg, games, "r")
    row = rep["pairings"][0]
    assert (row["a_wins"], row["draws"], row["a_losses"]) == (2, 1, 1)
    assert row["a_score"] == 2.5 / 4
    assert row["margins"] == [5, -1, 0, 6]
    fp = rep["first_player"]
    assert (fp["wins"], fp["draws"], fp["losses"]) == (2, 1, 1)
    assert rep["games_played"] == 4 == rep["games_planned"]


def test_sprt_stops_a_decided_pairing(tmp_path: Path) -> None:
    store = ArenaStore(tmp_path / "a.db")
    cfg = RunConfig(
        game="mattix",
        players=[{"name": "perfect", "spec": "perfect"}, {"name": "rnd", "spec": "random"}],
        games=400, seed=1, size=4, sprt=[0, 100],
    )  # fmt: skip
    rid = store.create_run(cfg, "sprt")
    progress = run_arena(store, rid, workers=2)
    played = len(store.games(rid))
    assert played < 400  # stopped early
    d = sprt_decisions(cfg, store.games(rid))[0]
    assert d["decision"] == "H1"
    assert progress.replayed == 0


# --------------------------------------------------------------------------- kill and resume


def _rows(db: Path, run: str) -> dict[tuple[int, int, int], tuple[str, str, str]]:
    con = sqlite3.connect(db)
    try:
        rows = con.execute(
            "SELECT pairing, pair, swapped, moves, result, finished FROM arena_games "
            "WHERE run_id = ?", (run,),
        ).fetchall()  # fmt: skip
    finally:
        con.close()
    return {(p, q, s): (m, r, f) for p, q, s, m, r, f in rows}


@pytest.mark.slow
def test_sigkill_mid_run_then_resume_plays_each_game_exactly_once(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    args = ["arena", "mattix", "--player", "d4=alphabeta:depth=4", "--player",
            "d5=alphabeta:depth=5", "--games", "600", "--seed", "11", "--workers", "2",
            "--db", str(db), "--name", "k"]  # fmt: skip
    proc = subprocess.Popen(
        [sys.executable, "-m", "banmen", *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # its workers share a process group we can watch
    )
    deadline = time.monotonic() + 120
    while True:
        try:
            n = len(_rows(db, "k")) if db.exists() else 0
        except sqlite3.OperationalError:  # the file or its tables are not made yet
            n = 0
        if n >= 40:
            break
        assert proc.poll() is None, "the run ended before it could be killed"
        assert time.monotonic() < deadline
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)  # the parent only, as `kill -9 PID` would
    proc.wait()
    at_kill = len(_rows(db, "k"))
    # The orphaned workers notice their parent is gone and exit on their own.
    deadline = time.monotonic() + 30
    while True:
        try:
            os.killpg(proc.pid, 0)
        except ProcessLookupError:
            break
        assert time.monotonic() < deadline, "workers outlived their parent"
        time.sleep(0.1)
    before = _rows(db, "k")
    # A worker checks for its parent before each game: once the parent is gone, only the
    # game each of the two workers had under way can still land.
    assert 40 <= n <= at_kill <= len(before) <= at_kill + 2
    assert len(before) < 600

    res = runner.invoke(app, ["arena", "--resume", "k", "--db", str(db), "--json"])
    assert res.exit_code == 0, res.output
    rep = json.loads(res.stdout)
    after = _rows(db, "k")
    planned = {(0, q, s) for q in range(300) for s in (0, 1)}
    assert set(after) == planned and len(after) == 600  # every game, once
    assert rep["games_played"] == 600
    assert rep["this_session"]["played"] == 600 - len(before)
    assert rep["this_session"]["replayed"] == 0
    for key, row in before.items():  # games finished before the kill were kept as they were
        assert after[key] == row
    # Resuming a finished run plays nothing.
    res = runner.invoke(app, ["arena", "--resume", "k", "--db", str(db), "--json"])
    assert json.loads(res.stdout)["this_session"]["played"] == 0


# --------------------------------------------------------------------------- CLI, reports, plots


def test_run_report_and_plots(tmp_path: Path) -> None:
    db = tmp_path / "a.db"
    res = runner.invoke(app, ["arena", "mattix", "--size", "4", "-p", "d1=alphabeta:depth=1",
                              "-p", "d2=alphabeta:depth=2", "-p", "d3=alphabeta:depth=3",
                              "--games", "20", "--seed", "3", "--db", str(db), "--name", "r",
                              "--workers", "1"])  # fmt: skip
    assert res.exit_code == 0, res.output
    out = tmp_path / "report"
    res = runner.invoke(app, ["arena", "report", "r", "--db", str(db), "--out", str(out),
                              "--json"])  # fmt: skip
    assert res.exit_code == 0, res.output
    rep = json.loads(res.output)
    assert rep["games_played"] == 60 and len(rep["pairings"]) == 3
    for name in ("score-vs-depth", "heatmap", "margins"):
        assert (out / f"{name}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert b"<svg" in (out / f"{name}.svg").read_bytes()[:2000]
    games_csv = (out / "games.csv").read_text().splitlines()
    assert len(games_csv) == 61 and games_csv[0].startswith("pairing,pair,swapped")
    assert json.loads((out / "report.json").read_text())["games_played"] == 60
    res = runner.invoke(app, ["arena", "list", "--db", str(db)])
    assert "r" in res.output and "mattix" in res.output


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["arena", "chess", "-p", "a=random", "-p", "b=random"], "unknown game 'chess': expected"),
        (["arena", "mattix", "-p", "a=minimax", "-p", "b=random"],
         "player a: unknown player 'minimax': expected one of alphabeta"),
        (["arena", "mattix", "-p", "a=alphabeta:depth=x", "-p", "b=random"],
         "depth must be an integer"),
        (["arena", "mattix", "-p", "a=random"], "at least two players"),
        (["arena", "mattix", "-p", "a=random", "-p", "b=random", "--games", "3"], "even number"),
        (["arena", "mattix", "-p", "a=random", "-p", "b=random", "--sprt", "5"], "ELO0,ELO1"),
        (["arena", "mattix", "-p", "a=random", "-p", "b=random", "--size", "5"], "no piece set"),
        (["arena", "othello", "-p", "a=random", "-p", "b=random", "--size", "6"], "8x8 only"),
        (["arena", "go", "-p", "a=random", "-p", "b=random", "--size", "4"], "expected 5 to 19"),
        (["arena", "shogi", "-p", "a=random", "-p", "b=random"], "cannot be played in the arena"),
        (["arena", "report", "nothing"], "no arena run 'nothing'"),
        (["arena", "--resume", "nothing"], "no arena run 'nothing'"),
    ],
)  # fmt: skip
def test_bad_arena_input_gives_one_line_errors(
    args: list[str], fragment: str, tmp_path: Path
) -> None:
    res = runner.invoke(app, [*args, "--db", str(tmp_path / "x.db")])
    assert res.exit_code == 2, res.output
    lines = [ln for ln in res.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: ") and fragment in lines[0], lines


# --------------------------------------------------------------------------- list, pipes, Elo

LONG_IDS = [
    "mattix-20261122-161928-ab12",
    "depth-sweep-of-alphabeta-players-one-to-six-on-six-by-six-deals-v2",  # 67 characters
    "r" * 90,  # wider than the terminal on its own
]


def _runs_db(tmp_path: Path) -> Path:
    db = tmp_path / "runs.sqlite3"
    players = [{"name": f"player{i}", "spec": f"alphabeta:depth={i}"} for i in range(1, 6)]
    with ArenaStore(db) as store:
        for run_id in LONG_IDS:
            store.create_run(RunConfig(game="mattix", players=players, games=10, seed=1), run_id)
    return db


def _ids_whole(text: str) -> None:
    lines = text.splitlines()
    for run_id in LONG_IDS:
        assert any(run_id in line for line in lines), (run_id, text)


@pytest.mark.parametrize("width", [30, 80, 120, 400])
def test_run_list_never_cuts_a_run_id(width: int, tmp_path: Path) -> None:
    from rich.console import Console

    from banmen.cli.arena import _run_rows, runs_view

    with ArenaStore(_runs_db(tmp_path)) as store:
        rows = _run_rows(store)
    out = io.StringIO()
    console = Console(file=out, width=width, force_terminal=False)
    console.print(runs_view(rows, width), crop=False)
    _ids_whole(out.getvalue())
    assert out.getvalue().count("0/100") == len(LONG_IDS)  # 10 pairings x 10 games each


def test_run_list_in_an_80_column_terminal(tmp_path: Path) -> None:
    """A real pseudo-terminal 80 columns wide: rich sees a terminal of that size."""
    import fcntl
    import pty
    import struct
    import termios

    db = _runs_db(tmp_path)
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 80, 0, 0))
    env = {**os.environ, "COLUMNS": "80", "LINES": "40", "TERM": "xterm"}
    env.pop("FORCE_COLOR", None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "banmen", "arena", "list", "--db", str(db)],
        stdin=subprocess.DEVNULL, stdout=slave, stderr=slave, env=env,
    )  # fmt: skip
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    assert proc.wait(timeout=60) == 0
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", b"".join(chunks).decode()).replace("\r", "")
    _ids_whole(text)
    # Only the id wider than the terminal is: every other line fits in 80 columns.
    assert all(len(line) <= 80 for line in text.splitlines() if LONG_IDS[2] not in line), text


def test_run_list_through_a_pipe_and_as_json(tmp_path: Path) -> None:
    db = _runs_db(tmp_path)
    env = {**os.environ, "COLUMNS": "80", "FORCE_COLOR": "1"}  # neither makes a pipe a terminal
    proc = subprocess.run(
        [sys.executable, "-m", "banmen", "arena", "list", "--db", str(db)],
        capture_output=True, text=True, env=env,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "\x1b[" not in proc.stdout
    for run_id in LONG_IDS:  # one row per run, each on one line with its status
        (line,) = [ln for ln in proc.stdout.splitlines() if run_id in ln]
        assert "running" in line and "0/100" in line, line
    res = runner.invoke(app, ["arena", "list", "--json", "--db", str(db)])
    assert res.exit_code == 0, res.output
    got = json.loads(res.output)
    assert got["db"] == str(db)
    assert sorted(r["id"] for r in got["runs"]) == sorted(LONG_IDS)
    assert all((r["games_played"], r["games_planned"], r["status"]) == (0, 100, "running")
               for r in got["runs"])  # fmt: skip
    empty = runner.invoke(app, ["arena", "list", "--json", "--db", str(tmp_path / "new.db")])
    assert json.loads(empty.output)["runs"] == []


def test_piped_run_has_no_live_frames_and_no_wrapped_lines(tmp_path: Path) -> None:
    db = tmp_path / ("a-folder-name-long-enough-to-push-the-command-past-80-columns" + "/a.db")
    res = runner.invoke(app, ["arena", "mattix", "--size", "4", "-p", "a=random:seed=1",
                              "-p", "b=random:seed=2", "--games", "4", "--seed", "1",
                              "--db", str(db), "--name", "piped", "--workers", "1"])  # fmt: skip
    assert res.exit_code == 0, res.output
    assert "games/s" not in res.output and "ETA" not in res.output  # the live view's lines
    assert f"report and plots: banmen arena report piped --db {db}" in res.output.splitlines()
    assert f"· db {db}" in res.output


def _all_lost(n: int) -> tuple[RunConfig, list[GameRecord]]:
    cfg = RunConfig(game="mattix", players=[{"name": "weak", "spec": "random"},
                                            {"name": "strong", "spec": "perfect"}],  # fmt: skip
                    games=n, seed=0)  # fmt: skip
    games = [
        GameRecord(
            0,
            i // 2,
            bool(i % 2),
            *(("weak", "strong") if i % 2 == 0 else ("strong", "weak")),  # fmt: skip
            i // 2,
            "0-1" if i % 2 == 0 else "1-0",
            3,
            9,
        )
        for i in range(n)
    ]
    return cfg, games


def test_unbounded_elo_keeps_its_sign_in_the_report_and_csv() -> None:
    from rich.console import Console

    from banmen.arena.report import pairings_csv
    from banmen.cli.arena import fmt_elo, report_tables

    cfg, games = _all_lost(40)
    rep = report_from(cfg, games, "zero-forty")
    row = rep["pairings"][0]
    assert (row["a_wins"], row["draws"], row["a_losses"]) == (0, 0, 40)
    # The Wilson interval of 0/40 starts at exactly 0: an unbounded Elo, not -6863.
    assert row["a_score_ci95"][0] == 0.0 and row["elo_diff_ci95"][0] is None
    out = io.StringIO()
    Console(file=out, width=300, force_terminal=False).print(report_tables(rep))
    text = out.getvalue()
    assert re.search(r"-∞ \[-∞, -\d+\]", text), text
    assert not re.search(r"(?<![+-])∞", text), text  # no infinity without its sign
    assert fmt_elo(None, 0.5) == "+∞" and fmt_elo(None, -0.5) == "-∞"
    assert fmt_elo(math.inf, 0) == "+∞" and fmt_elo(-math.inf, 0) == "-∞"
    assert fmt_elo(-0.4, 1) == "+0" and fmt_elo(190.85, 1) == "+191"
    rows = list(csv.DictReader(io.StringIO(pairings_csv(rep))))
    assert (rows[0]["elo_diff"], rows[0]["elo_lo"]) == ("-inf", "-inf")
    assert float(rows[0]["elo_hi"]) < 0
    # And the other way round: a 40-0 is +∞ [+N, +∞].
    flipped = [GameRecord(g.pairing, g.pair, g.swapped, g.first, g.second, g.deal_seed,
                          "1-0" if g.result == "0-1" else "0-1", 9, 3) for g in games]  # fmt: skip
    out = io.StringIO()
    Console(file=out, width=300, force_terminal=False).print(
        report_tables(report_from(cfg, flipped, "forty-zero"))
    )
    assert re.search(r"\+∞ \[\+\d+, \+∞\]", out.getvalue()), out.getvalue()


def test_heatmap_colour_bar_is_in_percent_like_its_cells() -> None:
    from banmen.arena.plots import _pyplot, heatmap_figure

    cfg = RunConfig(game="mattix", players=[{"name": n, "spec": "random"} for n in "abc"],
                    games=4, seed=0)  # fmt: skip
    pairs = [("a", "b"), ("a", "c"), ("b", "c")]
    games = []
    for p, (x, y) in enumerate(pairs):
        for k in range(4):  # the first mover wins, except in each pairing's first game
            first, second = (y, x) if k % 2 else (x, y)
            result = "1-0" if k else "0-1"
            games.append(GameRecord(p, k // 2, bool(k % 2), first, second, k, result, 5, 3))
    rep = report_from(cfg, games, "heat")
    fig = heatmap_figure(rep)
    try:
        ax, bar = fig.axes
        (image,) = ax.get_images()
        cells = [float(t.get_text()) for t in ax.texts]
        assert sorted(cells) == sorted(
            v for r in rep["pairings"] for v in (100 * r["a_score"], 100 * (1 - r["a_score"]))
        )
        assert image.get_clim() == (0, 100)  # colours mean the numbers written on the cells
        assert bar.get_ylim() == (0, 100) and "%" in bar.get_ylabel()
    finally:
        _pyplot().close(fig)


def test_a_database_from_before_the_extra_column_is_read_and_upgraded(tmp_path: Path) -> None:
    db = tmp_path / "old.db"
    con = sqlite3.connect(db)
    con.executescript(
        "CREATE TABLE arena_runs (id TEXT PRIMARY KEY, config TEXT NOT NULL, status TEXT NOT NULL,"
        " created TEXT NOT NULL, updated TEXT NOT NULL);"
        "CREATE TABLE arena_games (run_id TEXT NOT NULL, pairing INTEGER NOT NULL, pair INTEGER"
        " NOT NULL, swapped INTEGER NOT NULL, first TEXT NOT NULL, second TEXT NOT NULL,"
        " deal_seed INTEGER NOT NULL, result TEXT NOT NULL, score1 INTEGER NOT NULL, score2"
        " INTEGER NOT NULL, moves TEXT NOT NULL, times TEXT NOT NULL, finished TEXT NOT NULL,"
        " PRIMARY KEY (run_id, pairing, pair, swapped));"
    )
    config = RunConfig(
        "mattix", [{"name": "a", "spec": "random"}, {"name": "b", "spec": "random"}], 2, 1
    )
    con.execute(
        "INSERT INTO arena_runs VALUES ('r', ?, 'done', 'x', 'x')", (json.dumps(config.to_dict()),)
    )
    con.execute(
        "INSERT INTO arena_games VALUES ('r', 0, 0, 0, 'a', 'b', 1, '1-0', 3, 2, '[]', '[]', 'x')"
    )
    con.commit()
    con.close()
    with ArenaStore(db, readonly=True) as old:  # read as it is: no extra, nothing written
        assert [g.extra for g in old.games("r")] == [{}]
    with ArenaStore(db) as store:  # opened to write: the column is added
        assert store.games("r")[0].extra == {}
        store.add_game("r", GameRecord(0, 0, True, "b", "a", 1, "0-1", 2, 3, extra={"k": 1}))
        assert [g.extra for g in store.games("r")] == [{}, {"k": 1}]

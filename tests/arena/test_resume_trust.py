"""Issue 36, item 1: a run database is input, never code. ``banmen arena --resume`` starts
a run's players without asking only if the run is signed by this user (or plays banmen's
own engines only); anything else — a configuration edited in the file, a file made by
another user, a run from before signatures — shows what it would start and asks, refuses
in one line without a terminal, and goes on with ``--yes``.

These tests use only the store's and the CLI's public names (no ``banmen.arena.trust``),
so they run against a tree from before the change too (and fail there)."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import banmen.arena.cluster
import banmen.cli.arena
from banmen.arena.runner import planned_jobs
from banmen.arena.store import ArenaStore, GameRecord, RunConfig
from banmen.cli import app

runner = CliRunner()

TWO = RunConfig(
    game="mattix",
    players=[{"name": "d1", "spec": "alphabeta:depth=1"}, {"name": "r", "spec": "random"}],
    games=4,
    seed=5,
    size=4,
)


def _fake_game(job: Any) -> GameRecord:
    return GameRecord(job.pairing, job.pair, job.swapped, job.first, job.second, job.deal_seed,
                      "1-0", 9, 4, ["a1"], [0.001])  # fmt: skip


def _stored_run(db: Path, name: str, config: RunConfig = TWO, games: int = 2) -> None:
    """A run made by this user (through the store, as ``banmen arena`` makes one), with
    ``games`` of its games played and the rest to play."""
    with ArenaStore(db) as store:
        store.create_run(config, name)
        for job in planned_jobs(config)[:games]:
            assert store.add_game(name, _fake_game(job))
        store.set_status(name, "interrupted")


def _player_file(tmp_path: Path, marker: Path) -> Path:
    """A Python player for Mattix that leaves ``marker`` behind as soon as it is loaded."""
    path = tmp_path / "first.py"
    path.write_text(
        "from pathlib import Path\n"
        f"Path({str(marker)!r}).touch()\n"
        "class First:\n"
        "    def play(self, board):\n"
        "        return board.move_name(board.legal_moves[0])\n"
    )
    return path


def _edit_spec(db: Path, run: str, name: str, spec: str) -> None:
    """Write ``spec`` for player ``name`` into the run's configuration with plain SQL, as
    whoever hands the file over could."""
    con = sqlite3.connect(db)
    try:
        (text,) = con.execute("SELECT config FROM arena_runs WHERE id = ?", (run,)).fetchone()
        config = json.loads(text)
        for p in config["players"]:
            if p["name"] == name:
                p["spec"] = spec
        con.execute("UPDATE arena_runs SET config = ? WHERE id = ?", (json.dumps(config), run))
        con.commit()
    finally:
        con.close()


def _games(db: Path, run: str) -> int:
    con = sqlite3.connect(db)
    try:
        return int(
            con.execute("SELECT COUNT(*) FROM arena_games WHERE run_id = ?", (run,)).fetchone()[0]
        )
    finally:
        con.close()


def _banmen(
    args: list[str], cwd: Path, config_dir: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """``python -m banmen ARGS`` as a script runs it: no terminal on stdin."""
    env = dict(os.environ)
    if config_dir is not None:
        env["BANMEN_CONFIG_DIR"] = str(config_dir)
    return subprocess.run([sys.executable, "-m", "banmen", *args], cwd=cwd, env=env,
                          stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=300)  # fmt: skip


def _lines(text: str) -> list[str]:
    return [ln for ln in text.splitlines() if ln.strip()]


# --------------------------------------------------------------------------- the user's own


def test_a_run_made_here_resumes_without_asking(tmp_path: Path) -> None:
    marker = tmp_path / "loaded"
    player = _player_file(tmp_path, marker)
    config = RunConfig(**{**TWO.to_dict(), "players": [
        TWO.players[0], {"name": "p", "spec": f"python:{player}:First"}]})  # fmt: skip
    db = tmp_path / "a.db"
    _stored_run(db, "mine", config, games=2)
    p = _banmen(["arena", "--resume", "mine", "--db", str(db), "--workers", "1"], tmp_path)
    assert p.returncode == 0, p.stderr
    assert "not trusted" not in p.stderr and "[y/N]" not in p.stdout + p.stderr
    assert marker.exists() and _games(db, "mine") == 4


def test_a_run_the_cli_made_resumes_without_asking(tmp_path: Path) -> None:
    marker = tmp_path / "loaded"
    player = _player_file(tmp_path, marker)
    db = tmp_path / "a.db"
    res = runner.invoke(app, ["arena", "mattix", "--size", "4", "-p", "d1=alphabeta:depth=1",
                              "-p", f"p=python:{player}:First", "--games", "2", "--db",
                              str(db), "--name", "c", "--workers", "1"])  # fmt: skip
    assert res.exit_code == 0, res.output
    marker.unlink()
    res = runner.invoke(app, ["arena", "--resume", "c", "--db", str(db), "--workers", "1"])
    assert res.exit_code == 0, res.output
    assert "not trusted" not in res.output


# --------------------------------------------------------------------------- an edited file


def test_an_edited_run_starts_nothing_without_a_word(tmp_path: Path) -> None:
    """The issue's reproduction: a ``ugi:sh -c "touch MARKER"`` spec written into
    ``arena_runs.config`` ran on ``--resume``."""
    marker = tmp_path / "MARKER"
    db = tmp_path / "shared.db"
    _stored_run(db, "r", games=2)
    _edit_spec(db, "r", "r", f'ugi:sh -c "touch {marker}"')
    args = ["arena", "--resume", "r", "--db", str(db), "--workers", "1"]

    p = _banmen(args, tmp_path)  # a script: no terminal, no --yes
    assert p.returncode == 2, p.stderr
    (line,) = _lines(p.stdout + p.stderr)
    assert line.startswith("error: run 'r' in ") and "not trusted" in line
    assert f'r=ugi:sh -c "touch {marker}"' in line and "starts the program" in line
    assert "Nothing was started" in line
    assert line.endswith(f"banmen arena --resume r --db {db} --yes")
    assert "Traceback" not in p.stderr
    assert not marker.exists()
    assert _games(db, "r") == 2

    p = _banmen([*args, "--yes"], tmp_path)  # the user's word: it starts
    assert marker.exists(), p.stderr
    assert "not trusted" not in p.stderr
    # --yes signed it: the next resume starts it without asking (and the program, which
    # speaks no UGI, fails to start as a player: a one-line error of its own)
    marker.unlink()
    p = _banmen(args, tmp_path)
    assert marker.exists(), p.stderr
    assert "not trusted" not in p.stderr and "--yes" not in p.stderr


def test_a_terminal_is_shown_every_player_and_asked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    marker = tmp_path / "MARKER"
    db = tmp_path / "shared.db"
    _stored_run(db, "r", games=2)
    _edit_spec(db, "r", "r", f'ugi:sh -c "touch {marker}"')
    monkeypatch.setattr(banmen.cli.arena, "_stdin_is_terminal", lambda: True)
    args = ["arena", "--resume", "r", "--db", str(db), "--workers", "1"]

    res = runner.invoke(app, args, input="n\n")
    assert res.exit_code == 1, res.output
    assert "d1 = alphabeta:depth=1" in res.stderr  # every player, the program's marked
    assert f'! r  = ugi:sh -c "touch {marker}"' in res.stderr
    assert f'starts the program sh -c "touch {marker}"' in res.stderr
    assert "[y/N]" in res.stderr and "nothing started" in res.stderr
    assert "alphabeta" not in res.stdout  # (stdout stays the report's: --json)
    assert not marker.exists() and _games(db, "r") == 2

    res = runner.invoke(app, args, input="y\n")
    assert marker.exists(), res.output
    marker.unlink()
    monkeypatch.setattr(banmen.cli.arena, "_stdin_is_terminal", lambda: False)
    res = runner.invoke(app, args)  # confirmed once: signed, not asked again
    assert "not trusted" not in res.output and marker.exists()


def test_a_real_terminal_is_asked_before_anything_starts(tmp_path: Path) -> None:
    """The question on a real pseudo-terminal: answered no, nothing starts."""
    import pty
    import select

    marker = tmp_path / "MARKER"
    db = tmp_path / "shared.db"
    _stored_run(db, "r", games=2)
    _edit_spec(db, "r", "r", f'ugi:sh -c "touch {marker}"')
    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "banmen", "arena", "--resume", "r", "--db",
                             str(db), "--workers", "1"], stdin=slave, stdout=slave,
                            stderr=slave, cwd=tmp_path)  # fmt: skip
    os.close(slave)
    seen, answered = b"", False
    try:
        while True:
            ready, _, _ = select.select([master], [], [], 120)  # (a guard against a hang)
            assert ready, f"no answer from banmen: {seen!r}"
            try:
                data = os.read(master, 65536)
            except OSError:  # EIO: the child closed the terminal
                break
            if not data:
                break
            seen += data
            if not answered and b"[y/N]" in seen:
                assert not marker.exists()  # asked before anything started
                os.write(master, b"n\n")
                answered = True
    finally:
        os.close(master)
        code = proc.wait(timeout=60)
    text = seen.decode(errors="replace").replace("\r", "")
    assert answered and code == 1, text
    assert f'! r  = ugi:sh -c "touch {marker}"' in text and "nothing started" in text
    assert not marker.exists() and _games(db, "r") == 2


def test_a_database_from_another_user_asks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    marker = tmp_path / "loaded"
    player = _player_file(tmp_path, marker)
    alice, bob = tmp_path / "alice-config", tmp_path / "bob-config"
    db = tmp_path / "alice.db"
    config = RunConfig(**{**TWO.to_dict(), "players": [
        TWO.players[0], {"name": "p", "spec": f"python:{player}:First"}]})  # fmt: skip
    with monkeypatch.context() as m:  # alice makes the run, and plays half of it
        m.setenv("BANMEN_CONFIG_DIR", str(alice))
        _stored_run(db, "hers", config, games=2)
    args = ["arena", "--resume", "hers", "--db", str(db), "--workers", "1"]

    p = _banmen(args, tmp_path, bob)  # the same file, another user's key
    assert p.returncode == 2, p.stderr
    (line,) = _lines(p.stdout + p.stderr)
    assert "not trusted: it is signed, but not by you" in line
    assert f"p=python:{player}:First (runs the Python code in {player})" in line
    assert "--yes" in line and "d1=" not in line  # banmen's own engines are not named
    assert not marker.exists()  # the player's file was not even imported

    p = _banmen(args, tmp_path, alice)  # its maker resumes it as ever
    assert p.returncode == 0, p.stderr
    assert marker.exists() and _games(db, "hers") == 4


def test_a_run_from_before_signatures_asks_only_for_programs_and_code(tmp_path: Path) -> None:
    """A database made by an older banmen: no signature column, no signatures."""
    marker = tmp_path / "loaded"
    player = _player_file(tmp_path, marker)
    db = tmp_path / "old.db"
    con = sqlite3.connect(db)
    con.executescript(
        "CREATE TABLE arena_runs (id TEXT PRIMARY KEY, config TEXT NOT NULL, status TEXT NOT NULL,"
        " created TEXT NOT NULL, updated TEXT NOT NULL);"
    )
    code = RunConfig(**{**TWO.to_dict(), "players": [
        TWO.players[0], {"name": "p", "spec": f"python:{player}:First"}]})  # fmt: skip
    for run, config in (("own", TWO), ("code", code)):
        con.execute("INSERT INTO arena_runs VALUES (?, ?, 'interrupted', 'x', 'x')",
                    (run, json.dumps(config.to_dict())))  # fmt: skip
    con.commit()
    con.close()

    res = runner.invoke(app, ["arena", "--resume", "code", "--db", str(db), "--workers", "1"])
    assert res.exit_code == 2
    (line,) = _lines(res.stderr)
    assert "not trusted: it is not signed" in line and "python:" in line
    assert not marker.exists() and _games(db, "code") == 0
    # banmen's own engines, every option a number: nothing but banmen starts
    res = runner.invoke(app, ["arena", "--resume", "own", "--db", str(db), "--workers", "1"])
    assert res.exit_code == 0, res.output
    assert _games(db, "own") == 4
    res = runner.invoke(app, ["arena", "--resume", "code", "--db", str(db), "--workers", "1",
                              "--yes"])  # fmt: skip
    assert res.exit_code == 0, res.output
    assert marker.exists() and _games(db, "code") == 4


def test_what_a_spec_holds_cannot_hide_in_the_refusal(tmp_path: Path) -> None:
    marker = tmp_path / "MARKER"
    db = tmp_path / "shared.db"
    _stored_run(db, "r", games=0)
    # a terminal escape that erases the line, a carriage return and a line break
    _edit_spec(db, "r", "r", f'ugi:sh -c "touch {marker}" \x1b[2K\ralphabeta\ndepth=1')
    res = runner.invoke(app, ["arena", "--resume", "r", "--db", str(db)])
    assert res.exit_code == 2
    (line,) = _lines(res.stderr)
    assert "\x1b" not in res.stderr and "\r" not in res.stderr
    assert "\\x1b[2K\\ralphabeta\\ndepth=1" in line
    assert not marker.exists()


def test_what_was_checked_is_what_starts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The file changed after the check, before the run reads its configuration: the run
    starts nothing."""
    marker = tmp_path / "MARKER"
    db = tmp_path / "a.db"
    _stored_run(db, "r", games=2)
    real = ArenaStore.run_config
    calls = []

    def edited_after_the_check(self: ArenaStore, run_id: str) -> RunConfig:
        calls.append(run_id)
        if len(calls) == 2:  # the runner's read, after the CLI's check
            _edit_spec(db, "r", "r", f'ugi:sh -c "touch {marker}"')
        return real(self, run_id)

    monkeypatch.setattr(ArenaStore, "run_config", edited_after_the_check)
    res = runner.invoke(app, ["arena", "--resume", "r", "--db", str(db), "--workers", "1"])
    assert res.exit_code == 2, res.output
    (line,) = _lines(res.stderr)
    assert "changed after it was checked: nothing of it was started" in line, line
    assert not marker.exists() and _games(db, "r") == 2


def test_a_cluster_resume_asks_before_any_cluster_is_touched(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    marker = tmp_path / "MARKER"
    db = tmp_path / "shared.db"
    _stored_run(db, "r", games=2)
    _edit_spec(db, "r", "r", f'ugi:sh -c "touch {marker}"')
    monkeypatch.setattr(banmen.arena.cluster, "require_dask", lambda: None)
    started: list[Any] = []

    def cluster_pool(*args: Any, **kwargs: Any) -> None:
        started.append(args)
        pytest.fail("a cluster was started")

    monkeypatch.setattr(banmen.arena.cluster, "ClusterPool", cluster_pool)
    res = runner.invoke(app, ["arena", "--resume", "r", "--db", str(db), "--cluster", "local:1"])
    assert res.exit_code == 2
    (line,) = _lines(res.stderr)
    assert line.endswith(f"banmen arena --resume r --db {db} --cluster local:1 --yes")
    assert started == [] and not marker.exists()


def test_report_and_list_start_nothing(tmp_path: Path) -> None:
    marker = tmp_path / "loaded"
    player = _player_file(tmp_path, marker)
    db = tmp_path / "shared.db"
    _stored_run(db, "r", games=2)
    _edit_spec(db, "r", "r", f"python:{player}:First")
    _edit_spec(db, "r", "d1", f'ugi:sh -c "touch {marker}"')
    res = runner.invoke(app, ["arena", "report", "r", "--db", str(db), "--json",
                              "--no-plots", "--out", str(tmp_path / "out")])  # fmt: skip
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["games_played"] == 2
    res = runner.invoke(app, ["arena", "list", "--db", str(db), "--json"])
    assert res.exit_code == 0, res.output
    assert not marker.exists()


def test_a_damaged_database_or_configuration_is_one_line(tmp_path: Path) -> None:
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"not an SQLite file, though named like one" * 100)
    res = runner.invoke(app, ["arena", "--resume", "r", "--db", str(junk)])
    assert res.exit_code == 2
    (line,) = _lines(res.stderr)
    assert line.startswith(f"error: {junk}: cannot open it as an arena database")
    db = tmp_path / "a.db"
    _stored_run(db, "r", games=0)
    for text in (
        "{not json",
        '["a list"]',
        '{"game": "mattix", "players": "sh -c x"}',
        '{"game": "mattix", "players": "sh -c x", "games": 2, "seed": 1}',
    ):
        con = sqlite3.connect(db)
        con.execute("UPDATE arena_runs SET config = ? WHERE id = 'r'", (text,))
        con.commit()
        con.close()
        res = runner.invoke(app, ["arena", "--resume", "r", "--db", str(db)])
        assert res.exit_code == 2, (text, res.output)
        (line,) = _lines(res.stderr)
        assert line.startswith("error: ") and "Traceback" not in res.output

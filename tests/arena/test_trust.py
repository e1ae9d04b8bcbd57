"""banmen.arena.trust: the user's signing key, signatures, what a player spec runs."""

from __future__ import annotations

import os
import sqlite3
import stat
from pathlib import Path

import platformdirs
import pytest

from banmen.arena import trust
from banmen.arena.store import ArenaStore, ConfigChanged, RunConfig

CONFIG = RunConfig(
    game="mattix",
    players=[{"name": "a", "spec": "alphabeta:depth=1"}, {"name": "b", "spec": "ugi:./eng"}],
    games=2,
    seed=1,
)
TEXT = '{"game": "mattix"}'

posix_only = pytest.mark.skipif(not hasattr(os, "geteuid"), reason="file modes: POSIX only")


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A config folder of this test's own (made by banmen when it first signs)."""
    folder = tmp_path / "config" / "banmen"
    monkeypatch.setenv(trust.CONFIG_ENV, str(folder))
    return folder


def test_the_tests_never_use_the_users_config_folder() -> None:
    """tests/conftest.py points banmen at a temporary folder before any test runs."""
    folder = trust.config_dir().resolve()
    assert folder != Path(platformdirs.user_config_dir("banmen")).resolve()
    assert not folder.is_relative_to(Path.home().resolve() / ".config")


@posix_only
def test_the_key_is_made_private_on_first_use(home: Path) -> None:
    assert trust.verify("r", TEXT, None) is not None
    assert trust.verify("r", TEXT, "hmac-sha256:00") is not None
    assert not home.exists()  # checking makes no key
    signature = trust.sign("r", TEXT)
    key = home / trust.KEY_NAME
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    assert stat.S_IMODE(home.stat().st_mode) == 0o700
    assert [p.name for p in home.iterdir()] == [trust.KEY_NAME]  # nothing left aside
    assert len(bytes.fromhex(key.read_text().strip())) == 32
    assert trust.sign("r", TEXT) == signature  # the same key, read again
    assert trust.verify("r", TEXT, signature) is None


def test_a_signature_is_of_this_run_this_text_and_this_key(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    signature = trust.sign("r", TEXT)
    assert trust.verify("r", TEXT, signature) is None
    assert "not by you" in str(trust.verify("r", TEXT + " ", signature))
    assert "not by you" in str(trust.verify("r2", TEXT, signature))
    assert "not one banmen makes" in str(trust.verify("r", TEXT, "md5:" + signature))
    assert "not signed" in str(trust.verify("r", TEXT, None))
    monkeypatch.setenv(trust.CONFIG_ENV, str(tmp_path / "someone-else"))
    assert "you have no signing key yet" in str(trust.verify("r", TEXT, signature))
    trust.sign("other", TEXT)  # another user, with a key of their own
    assert "not by you" in str(trust.verify("r", TEXT, signature))


@posix_only
def test_a_key_others_could_read_or_replace_is_not_used(home: Path) -> None:
    signature = trust.sign("r", TEXT)
    key = home / trust.KEY_NAME
    key.chmod(0o640)
    why = trust.verify("r", TEXT, signature)
    assert why is not None and "may be read by others (0640)" in why and "chmod 600" in why
    with pytest.raises(trust.KeyUnavailable, match="chmod 600"):
        trust.sign("r", TEXT)
    key.chmod(0o600)
    home.chmod(0o770)
    assert "may be written by others" in str(trust.verify("r", TEXT, signature))
    home.chmod(0o700)
    assert trust.verify("r", TEXT, signature) is None


def test_a_damaged_key_is_one_line_and_signing_goes_on_without_it(home: Path) -> None:
    trust.sign("r", TEXT)
    (home / trust.KEY_NAME).write_text("not hex at all\n")
    with pytest.raises(trust.KeyUnavailable, match="damaged: delete it"):
        trust.sign("r", TEXT)
    with ArenaStore(home.parent / "a.db") as store:  # a run is still made, unsigned
        store.create_run(CONFIG, "x")
        text, signature = store.signed_config("x")
    assert signature is None
    verdict = trust.check("x", text, signature, CONFIG.players)
    assert verdict.asks and "not signed" in str(verdict.why)


def test_a_store_signs_the_runs_it_makes(home: Path, tmp_path: Path) -> None:
    db = tmp_path / "a.db"
    with ArenaStore(db) as store:
        store.create_run(CONFIG, "x")
        text, signature = store.signed_config("x")
        verdict = trust.check("x", text, signature, store.run_config("x").players)
    assert verdict.signed and not verdict.asks
    assert [p.name for p in verdict.flagged] == ["b"]
    with ArenaStore(db, readonly=True) as store:  # read-only: the same
        assert store.signed_config("x") == (text, signature)


def test_a_pinned_configuration_changed_in_the_file_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "a.db"
    with ArenaStore(db) as store:
        store.create_run(CONFIG, "x")
        text, _ = store.signed_config("x")
        store.pin_config("x", text)
        assert store.run_config("x") == CONFIG
        con = sqlite3.connect(db)
        con.execute("UPDATE arena_runs SET config = replace(config, './eng', 'sh -c x')")
        con.commit()
        con.close()
        with pytest.raises(ConfigChanged, match="changed after it was checked"):
            store.run_config("x")
        assert not store.sign_run("x", text)  # not signed: the file holds another text
        assert store.signed_config("x")[1] is not None  # (the old signature, now wrong)


def test_what_each_kind_of_player_runs() -> None:
    assert trust.what_it_runs("alphabeta:depth=3,time=0.5") is None
    assert trust.what_it_runs("cpu:perfect") is None
    assert trust.what_it_runs("mcts:time=1,threads=2") is None
    assert trust.what_it_runs("random") is None
    assert trust.what_it_runs("gtp:/usr/games/gnugo --mode gtp") == (
        "starts the program /usr/games/gnugo --mode gtp"
    )
    assert trust.what_it_runs("nboard:depth=3 edax -nboard") == "starts the program edax -nboard"
    assert trust.what_it_runs("ugi:time=1 ./eng") == "starts the program ./eng"
    assert trust.what_it_runs("python:pkg.mod:Player") == "runs the Python code in pkg.mod"
    assert trust.what_it_runs("alphabeta:weights=x.npz") == "not a player spec this banmen reads"
    assert trust.what_it_runs("") == "not a player spec this banmen reads"


def test_check_refuses_players_that_are_not_names_and_specs() -> None:
    for players in ("sh -c x", [["a", "random"]], [{"name": "a", "spec": 3}], None):
        with pytest.raises(ValueError, match="not a list of names and specs"):
            trust.check("r", TEXT, None, players)


@posix_only
def test_a_run_made_without_a_usable_key_says_so(home: Path, tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from banmen.cli import app

    trust.sign("r", TEXT)
    (home / trust.KEY_NAME).chmod(0o644)
    player = tmp_path / "first.py"
    player.write_text("class First:\n    def play(self, board):\n"
                      "        return board.move_name(board.legal_moves[0])\n")  # fmt: skip
    db = tmp_path / "a.db"
    res = CliRunner().invoke(app, ["arena", "mattix", "--size", "4", "-p", "a=random",
                                   "-p", f"p=python:{player}:First", "--games", "2", "--db",
                                   str(db), "--name", "x", "--workers", "1"])  # fmt: skip
    assert res.exit_code == 0, res.output
    assert "note: run x is not signed" in res.stderr and "chmod 600" in res.stderr
    with ArenaStore(db) as store:
        assert store.signed_config("x")[1] is None

"""Games found by entry point (group ``banmen.games``): a package installed beside banmen
is a game like the built-in ones, and a broken one is one line naming it while every
other game still works. The packages here are made in a temporary folder with their
``.dist-info`` (what pip writes), put on the path of a fresh ``banmen`` process."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from banmen.games import GameDef
from banmen.games.engines import STANDARD_ENGINES
from banmen.games.registry import (
    BUILT_IN,
    GameLoadError,
    UnknownGameError,
    game_names,
    get_game,
    load_games,
    make_engine,
    register,
    unregister,
)


def _package(where: Path, dist: str, module: str, entry: str, source: str) -> None:
    (where / f"{module}.py").write_text(source)
    info = where / f"{dist.replace('-', '_')}-1.0.dist-info"  # (as pip names it)
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[banmen.games]\n{entry}\n")


def _banmen(where: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(where), os.environ.get("PYTHONPATH", "")]),
    }
    return subprocess.run([sys.executable, "-m", "banmen", *args], capture_output=True,
                          text=True, env=env, timeout=120)  # fmt: skip


#: a tiny game as a package would define it: a heap of stones, take 1 or 2, last one wins
NIM = """
from banmen.games import GameDef
from banmen.games.engines import STANDARD_ENGINES

class Board:
    def __init__(self, stones=5, moves=()):
        self.start, self.move_stack = stones, []
        for m in moves:
            self.push(m)
    @property
    def stones(self):
        return self.start - sum(self.move_stack)
    @property
    def turn(self):
        return 1 + len(self.move_stack) % 2
    @property
    def legal_moves(self):
        return [m for m in (1, 2) if m <= self.stones]
    def push(self, move):
        if move not in self.legal_moves:
            raise ValueError(f"cannot take {move}: {self.stones} left")
        self.move_stack.append(move)
    def pop(self):
        return self.move_stack.pop()
    def is_game_over(self):
        return self.stones == 0
    def winner(self):
        return (2 - len(self.move_stack) % 2) if self.is_game_over() else None
    def result(self):
        w = self.winner()
        return "*" if w is None else ("1-0" if w == 1 else "0-1")
    def move_name(self, move):
        return str(move)
    def parse_move(self, text):
        if text not in ("1", "2") or int(text) not in self.legal_moves:
            raise ValueError(f"bad move {text!r}: expected one of {self.legal_moves}")
        return int(text)
    def push_name(self, text):
        self.push(self.parse_move(text))
    def copy(self):
        return Board(self.start, self.move_stack)
    def to_dict(self):
        return {"stones": self.start, "moves": list(self.move_stack)}

GAME = GameDef(name="nim", title="Nim", board_from_dict=lambda d: Board(d["stones"], d["moves"]),
               sample=Board, new_board=lambda seed, size: Board(size or 5),
               engines={"random": STANDARD_ENGINES["random"]}, default_engine="random",
               board_from_text=lambda t: Board(int(t)), position_hint="a number of stones")
"""


def test_an_installed_game_package_is_a_game(tmp_path: Path) -> None:
    _package(tmp_path, "banmen-nim", "banmen_nim", "nim = banmen_nim:GAME", NIM)
    listed = _banmen(tmp_path, "players")
    assert listed.returncode == 0, listed.stderr
    assert "Nim (nim):" in listed.stdout and "Othello (othello):" in listed.stdout
    run = _banmen(tmp_path, "arena", "nim", "-p", "a=random:seed=1", "-p", "b=random:seed=2",
                  "--games", "4", "--workers", "1", "--db", str(tmp_path / "a.db"))  # fmt: skip
    assert run.returncode == 0, run.stderr
    from banmen.arena.store import ArenaStore

    with ArenaStore(tmp_path / "a.db", readonly=True) as store:
        (run_id,) = store.run_ids()
        games = store.games(run_id)
    assert len(games) == 4 and all(g.result in ("1-0", "0-1") for g in games)


def test_a_broken_package_is_one_line_and_the_others_work(tmp_path: Path) -> None:
    _package(tmp_path, "banmen-broken", "broken_game", "broken = broken_game:GAME",
             "raise RuntimeError('the author forgot a file')\n")  # fmt: skip
    _package(tmp_path, "banmen-notagame", "not_a_game", "notagame = not_a_game:GAME",
             "GAME = 42\n")  # fmt: skip
    listed = _banmen(tmp_path, "players")
    assert listed.returncode == 0, listed.stderr
    assert "Mattix (mattix):" in listed.stdout and "Go (go):" in listed.stdout
    notes = [ln for ln in listed.stderr.splitlines() if ln.strip()]
    assert len(notes) == 2, listed.stderr
    assert any("banmen-broken 1.0" in ln and "the author forgot a file" in ln for ln in notes)
    assert any("banmen-notagame 1.0" in ln and "not a banmen GameDef" in ln for ln in notes)
    asked = _banmen(tmp_path, "arena", "broken", "-p", "a=random", "-p", "b=random")
    assert asked.returncode == 2 and "Traceback" not in asked.stderr
    (line,) = [ln for ln in asked.stderr.splitlines() if ln.strip()]
    assert line.startswith("error: ") and "banmen-broken 1.0" in line


def test_register_checks_the_game() -> None:
    nim = GameDef(name="nim-test", title="", board_from_dict=dict)
    with pytest.raises(GameLoadError, match="no title.*offers no engine"):
        register(nim)
    good = GameDef(name="nim-test", title="Nim", board_from_dict=dict,
                   engines={"random": STANDARD_ENGINES["random"]})  # fmt: skip
    register(good)
    try:
        assert "nim-test" in game_names() and get_game("nim-test") is good
        assert "nim-test" in load_games()
        with pytest.raises(ValueError, match="registered already"):
            register(GameDef(name="mattix", title="M", board_from_dict=dict,
                             engines={"random": STANDARD_ENGINES["random"]}))  # fmt: skip
    finally:
        unregister("nim-test")
    with pytest.raises(UnknownGameError):
        get_game("nim-test")
    assert set(BUILT_IN) <= set(game_names())
    assert make_engine("mattix", "random").name == "random"

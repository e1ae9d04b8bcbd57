"""Games found by entry point (group ``banmen.games``): a package installed beside banmen
is a game like the built-in ones, and a broken one is one line naming it while every
other game still works — one that raises, gives no game, hangs at import (a time bound),
or exits (``sys.exit``) there; the user's Ctrl-C still interrupts. The packages here are
made in a temporary folder with their ``.dist-info`` (what pip writes), put on the path of
a fresh ``banmen`` process."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterable
from pathlib import Path

import httpx
import paths
import pytest
import toy_grid

from banmen.games import GameDef
from banmen.games.engines import STANDARD_ENGINES
from banmen.games.registry import (
    BUILT_IN,
    HUNG_ENV,
    IMPORT_SECONDS,
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


def _env(*where: Path) -> dict[str, str]:
    """This process's environment with ``where`` first on the path (and no hung game
    packages inherited from a test of this process)."""
    env = {k: v for k, v in os.environ.items() if k != HUNG_ENV}
    env["PYTHONPATH"] = os.pathsep.join([*map(str, where), os.environ.get("PYTHONPATH", "")])
    return env


def _banmen(where: Path, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "banmen", *args], capture_output=True,
                          text=True, env=_env(where), timeout=timeout)  # fmt: skip


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


# ---------------------------------------------------------------- packages that hang or exit

#: packages that misbehave at import, by entry-point name: (module source, what its line says)
MISBEHAVING = {
    "sleepy": ("import time\ntime.sleep(3600)\n", "did not load within"),
    # a loop that swallows every Exception: the time bound is not one
    "spin": (
        "while True:\n    try:\n        pass\n    except Exception:\n        pass\n",
        "did not load within",
    ),  # fmt: skip
    "quits": ("import sys\nsys.exit('no display found')\n", "exits when imported (sys.exit("),
    "quiet": ("import sys\nsys.exit(0)\n", "exits when imported (sys.exit(0))"),
    "odd": ("raise BaseException('not an Exception')\n", "BaseException: not an Exception"),
}


def _misbehaving(where: Path, names: Iterable[str] = MISBEHAVING) -> None:
    for name in names:
        source, _ = MISBEHAVING[name]
        _package(where, f"banmen-{name}", f"{name}_game", f"{name} = {name}_game:GAME", source)


#: how long a command may take beside the time bounds of the packages that hang: a bound
#: against a hang of the test, not a measure (a busy machine is slow, never this slow)
SLACK = 120


def test_a_package_that_hangs_or_exits_at_import_is_one_line(tmp_path: Path) -> None:
    _misbehaving(tmp_path)
    _package(tmp_path, "banmen-nim", "banmen_nim", "nim = banmen_nim:GAME", NIM)
    hangs = sum(why == "did not load within" for _, why in MISBEHAVING.values())
    listed = _banmen(tmp_path, "players", timeout=SLACK + hangs * IMPORT_SECONDS)
    assert listed.returncode == 0, listed.stderr
    for title in ("Nim (nim):", "Go (go):", "Mattix (mattix):", "Othello (othello):"):
        assert title in listed.stdout, title
    notes = [ln for ln in listed.stderr.splitlines() if ln.strip()]
    assert len(notes) == len(MISBEHAVING), listed.stderr
    for name, (_, why) in MISBEHAVING.items():
        (line,) = [ln for ln in notes if f"banmen-{name} 1.0" in ln]
        assert why in line and line.startswith("banmen: game package "), line
    assert "Traceback" not in listed.stderr


def test_serve_leaves_out_packages_that_hang_or_exit(tmp_path: Path) -> None:
    from banmen.web.launch import free_port, stop, wait_ready

    _misbehaving(tmp_path)
    toy_grid.write_package(tmp_path)  # a game package with a page: tictactoe, hopper
    port = free_port()
    log = tmp_path / "serve.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "banmen", "serve", "--port", str(port), "--workers", "1",
             "--db", str(tmp_path / "games.sqlite3")],
            stdout=out, stderr=subprocess.STDOUT, env=_env(tmp_path, paths.TESTS / "web"),
        )  # fmt: skip
    try:
        wait_ready(f"http://127.0.0.1:{port}", proc, log, timeout=SLACK + 2 * IMPORT_SECONDS)
        games = httpx.get(f"http://127.0.0.1:{port}/api/games", timeout=60).json()
    finally:
        stop(proc)
    served = {g["name"] for g in games}
    assert {"go", "mattix", "othello", "tictactoe", "hopper"} <= served, served
    assert not served & set(MISBEHAVING)
    text = log.read_text(errors="replace")
    for name in MISBEHAVING:  # one line each: not again for the page catalogue nor a worker
        assert text.count(f"banmen-{name} 1.0") == 1, text
    assert "Traceback" not in text


def test_ctrl_c_still_interrupts_an_import_that_hangs(tmp_path: Path) -> None:
    marker = tmp_path / "importing"
    source = f"import pathlib, time\npathlib.Path({str(marker)!r}).touch()\ntime.sleep(3600)\n"
    _package(tmp_path, "banmen-waits", "waits_game", "waits = waits_game:GAME", source)
    proc = subprocess.Popen(
        [sys.executable, "-m", "banmen", "players"], env=_env(tmp_path),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # as a terminal's
    )  # fmt: skip
    try:
        deadline = time.monotonic() + SLACK
        while not marker.exists():
            assert proc.poll() is None and time.monotonic() < deadline, "never imported"
            time.sleep(0.05)
        proc.send_signal(signal.SIGINT)  # the user's Ctrl-C, inside the package's import
        _, err = proc.communicate(timeout=SLACK)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err  # interrupted, not a package left out
    assert "left out" not in err and "Traceback" not in err


def test_a_hang_is_remembered_here_and_told_to_child_processes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from importlib.metadata import EntryPoint

    from banmen.games import registry

    _package(tmp_path, "banmen-dozy", "dozy_game", "dozy = dozy_game:GAME",
             "import time\ntime.sleep(60)\n")  # fmt: skip
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(registry, "_points", None)  # read again: the package is installed
    monkeypatch.setattr(registry, "_failed", {})
    monkeypatch.setattr(registry, "IMPORT_SECONDS", 0.3)
    monkeypatch.delenv(HUNG_ENV, raising=False)
    outer = signal.getitimer(signal.ITIMER_REAL)[0]  # (pytest-timeout's, if it runs)
    t0 = time.monotonic()
    with pytest.raises(GameLoadError, match=r"banmen-dozy 1.0 .*: it did not load within 0.3 s"):
        get_game("dozy")
    # the timer of whoever set one before (pytest-timeout) is set again, for what it had left
    left = signal.getitimer(signal.ITIMER_REAL)[0]
    assert (left > 0) == (outer > 0) and left <= outer
    if outer:
        assert left >= outer - (time.monotonic() - t0) - 1
    assert "dozy_game" not in sys.modules
    # remembered: not imported again in this process (no second wait), the same line
    calls: list[str] = []
    monkeypatch.setattr(EntryPoint, "load", lambda self: calls.append(self.name))
    with pytest.raises(GameLoadError, match="did not load within"):
        get_game("dozy")
    assert calls == [] and "dozy" not in load_games(on_broken=lambda _: None)
    # and told to the processes this one starts: they leave it out at once
    assert os.environ[HUNG_ENV] == "dozy"
    child = subprocess.run(
        [sys.executable, "-c", "from banmen.games.registry import get_game; get_game('dozy')"],
        capture_output=True, text=True, timeout=SLACK,
        env={**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), *sys.path])},
    )  # fmt: skip
    last = child.stderr.splitlines()[-1]
    assert "banmen-dozy 1.0" in last and "in the process that started this one" in last, last

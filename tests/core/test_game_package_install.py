"""A game package, installed as a user installs it: in a fresh virtual environment, banmen
and examples/connect-four are installed with pip (not editable), and the front ends find
Connect Four by its entry point — the arena with two specs, ``analyse``, ``solve``,
``banmen ugi`` driven by a UGI client, and a ``python:`` player of the user's.

The environment borrows the test environment's third-party packages (numpy, numba, …)
through a ``.pth`` file, so it installs banmen and the example only (``--no-deps``): what
is tested is banmen's and the package's own installation, not PyPI's. The compiled code
is compiled afresh there (its files are new), so the test is slow.
"""

from __future__ import annotations

import json
import subprocess
import sysconfig
import venv
from pathlib import Path

import paths
import pytest

pytestmark = [pytest.mark.slow, pytest.mark.cold, pytest.mark.timeout(1800)]

LAST_MOVE = """
class LastMove:
    def play(self, board):
        return board.move_name(board.legal_moves[-1])
"""


def _run(args: list[str], timeout: float = 900, **kw: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, capture_output=True, text=True, timeout=timeout, **kw)  # type: ignore[call-overload]


@pytest.fixture(scope="module")
def fresh(tmp_path_factory: pytest.TempPathFactory) -> Path:
    where = tmp_path_factory.mktemp("fresh")
    env_dir = where / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    py = env_dir / "bin" / "python"
    site = _run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"])
    (Path(site.stdout.strip()) / "_borrowed.pth").write_text(
        sysconfig.get_paths()["purelib"] + "\n"
    )
    for package in (paths.ROOT, paths.ROOT / "examples" / "connect-four"):
        done = _run([str(py), "-m", "pip", "install", "--quiet", "--no-deps", str(package)])
        assert done.returncode == 0, done.stderr[-2000:]
    return env_dir


def _banmen(env_dir: Path, *args: str, cwd: Path | None = None,
            stdin: str | None = None) -> subprocess.CompletedProcess[str]:  # fmt: skip
    return _run([str(env_dir / "bin" / "banmen"), *args], cwd=cwd, input=stdin)


def test_the_installed_package_is_found_where_banmen_is_installed(fresh: Path) -> None:
    where = _run([str(fresh / "bin" / "python"), "-c",
                  "import banmen, banmen_connect_four; print(banmen.__file__); "
                  "print(banmen_connect_four.__file__)"])  # fmt: skip
    assert where.returncode == 0, where.stderr
    assert all(str(fresh) in line for line in where.stdout.split())  # not the checkout's
    listed = _banmen(fresh, "players", "connect-four")
    assert listed.returncode == 0 and "Connect Four (connect-four):" in listed.stdout


def test_arena_analyse_and_solve(fresh: Path, tmp_path: Path) -> None:
    db = tmp_path / "a.db"
    run = _banmen(fresh, "arena", "connect-four", "-p", "d1=alphabeta:depth=1",
                  "-p", "d3=alphabeta:depth=3", "--games", "6", "--workers", "1",
                  "--db", str(db), cwd=tmp_path)  # fmt: skip
    assert run.returncode == 0, run.stderr[-2000:]
    listed = json.loads(_banmen(fresh, "arena", "list", "--json", "--db", str(db)).stdout)
    (only,) = listed["runs"]
    assert only["game"] == "connect-four" and only["games_played"] == 6
    report = _banmen(fresh, "arena", "report", only["id"], "--db", str(db), "--json",
                     "--out", str(tmp_path / "report"), cwd=tmp_path)  # fmt: skip
    assert report.returncode == 0, report.stderr[-2000:]
    assert (tmp_path / "report" / "games.csv").read_text().count("\n") == 7  # a header, 6 games
    analysed = _banmen(fresh, "analyse", "connect-four", "444444333", "--time", "1", "--json")
    assert analysed.returncode == 0, analysed.stderr[-2000:]
    rows = json.loads(analysed.stdout)["moves"]
    assert {r["move"] for r in rows} == {"1", "2", "3", "5", "6", "7"}  # column 4 is full
    solved = _banmen(fresh, "solve", "connect-four", "444444333", "--timeout", "5", "--json")
    assert solved.returncode == 0, solved.stderr[-2000:]
    assert json.loads(solved.stdout)["status"] in ("solved", "unknown")


def test_banmen_ugi_and_a_python_player(fresh: Path, tmp_path: Path) -> None:
    session = (
        "ugi\nisready\nuginewgame\nposition startpos moves 4 4\ngo depth 3\nquery p1turn\nquit\n"
    )
    ugi = _banmen(fresh, "ugi", "--game", "connect-four", stdin=session)
    assert ugi.returncode == 0, ugi.stderr[-2000:]
    lines = ugi.stdout.splitlines()
    assert "ugiok" in lines and "readyok" in lines
    best = next(ln for ln in lines if ln.startswith("bestmove "))
    assert best.split()[1] in {str(c) for c in range(1, 8)}
    assert "response true" in lines  # the first player is to move after two plies
    (tmp_path / "mine.py").write_text(LAST_MOVE)
    mine = f"mine=python:{tmp_path / 'mine.py'}:LastMove"
    db = str(tmp_path / "b.db")
    run = _banmen(fresh, "arena", "connect-four", "-p", mine, "-p", "rnd=random:seed=1",
                  "--games", "4", "--workers", "1", "--db", db, cwd=tmp_path)  # fmt: skip
    assert run.returncode == 0, run.stderr[-2000:]
    listed = json.loads(
        _banmen(fresh, "arena", "list", "--json", "--db", str(tmp_path / "b.db")).stdout
    )
    assert listed["runs"][0]["games_played"] == 4

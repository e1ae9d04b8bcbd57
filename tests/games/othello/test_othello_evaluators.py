"""Othello's evaluations are evaluators a spec names, and a weights file is the user's
own (issue 37): ``alphabeta:depth=4+patterns:weights=COPY`` with a copy of the shipped
weights plays move for move the games of ``alphabeta:depth=4``; a missing, truncated,
foreign or mismatched file is one line saying which and what was expected."""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
import sys
from importlib import resources
from pathlib import Path

import numpy as np
import paths
import pytest

from banmen.arena.runner import run_arena
from banmen.arena.store import ArenaStore, RunConfig
from banmen.engine import SpecError
from banmen.games.othello import patterns as T
from banmen.games.registry import make_engine, parse_spec


def _shipped() -> Path:
    with resources.as_file(resources.files("banmen.games.othello") / "data" / T.WEIGHTS_FILE) as p:
        return Path(p)


def test_the_shipped_weights_are_a_file_like_any_other(tmp_path: Path) -> None:
    copy = tmp_path / "mine.npz"
    shutil.copy(_shipped(), copy)
    spec = parse_spec(f"alphabeta:depth=4+patterns:weights={copy}", "othello")
    assert spec.evaluator is not None and spec.evaluator.kind == "patterns"
    assert spec.evaluator.options["weights"] == str(copy.resolve())
    engine = make_engine("othello", spec)
    assert engine.evaluator.source == str(copy.resolve())  # type: ignore[attr-defined]
    shipped = make_engine("othello", "alphabeta:depth=4")
    assert np.array_equal(engine.ctx[1], shipped.ctx[1])  # type: ignore[attr-defined]


def test_a_copy_of_the_shipped_weights_plays_the_same_games(tmp_path: Path) -> None:
    copy = tmp_path / "copy.npz"
    shutil.copy(_shipped(), copy)
    store = ArenaStore(tmp_path / "a.db")
    games = {}
    for name, spec in (("shipped", "alphabeta:depth=4"),
                       ("copy", f"alphabeta:depth=4+patterns:weights={copy}")):  # fmt: skip
        players = [{"name": "a", "spec": spec}, {"name": "b", "spec": "alphabeta:depth=2"}]
        run = store.create_run(RunConfig(game="othello", games=4, seed=11, players=players),
                               name)  # fmt: skip
        run_arena(store, run, workers=1)
        games[name] = sorted((g.pairing, g.pair, g.swapped, tuple(g.moves), g.result)
                             for g in store.games(run))  # fmt: skip
    assert games["copy"] == games["shipped"] and len(games["copy"]) == 4
    store.close()


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "banmen", *args], capture_output=True,
                          text=True, timeout=300)  # fmt: skip


def test_a_truncated_copy_is_one_line_and_exit_2(tmp_path: Path) -> None:
    bad = tmp_path / "cut.npz"
    bad.write_bytes(_shipped().read_bytes()[:20_000])
    p = _cli("arena", "run", "othello", "--games", "2", "--workers", "1", "--db",
             str(tmp_path / "a.db"), "-p", f"cut=alphabeta:depth=4+patterns:weights={bad}",
             "-p", "d2=alphabeta:depth=2")  # fmt: skip
    lines = [ln for ln in (p.stdout + p.stderr).splitlines() if ln.strip()]
    assert p.returncode == 2, p.stdout + p.stderr
    assert len(lines) == 1 and "Traceback" not in p.stderr, lines
    assert str(bad) in lines[0] and "weights file" in lines[0], lines[0]


@pytest.mark.parametrize(
    ("make", "says"),
    [
        (lambda d: d / "none.npz", "no such file"),
        (lambda d: d, "not a regular file"),
        (lambda d: _write(d / "text.npz", b"not a zip at all"), "not a weights file"),
        (lambda d: _npz(d / "other.npz", evaluator="ntuple"), "expected evaluator=patterns"),
        (lambda d: _npz(d / "go.npz", game="go"), "expected game=othello"),
        (lambda d: _npz(d / "bare.npz", header=False), "names none: expected evaluator"),
        (lambda d: _npz(d / "shape.npz", shape=(3, 4)), "weights must be 12x"),
    ],
)  # fmt: skip
def test_a_bad_weights_file_is_one_line(make, says: str, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = make(tmp_path)
    with pytest.raises(SpecError) as e:
        make_engine("othello", f"alphabeta:depth=2+patterns:weights={path}")
    text = str(e.value)
    assert says in text and "\n" not in text and str(path) in text, text


def _write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


def _npz(path: Path, evaluator: str = "patterns", game: str = "othello",
         header: bool = True, shape: tuple[int, int] | None = None) -> Path:  # fmt: skip
    table = np.zeros(shape or (T.PHASES, T.N_FEATURES), dtype=np.int16)
    meta = [f"evaluator={evaluator}", f"game={game}", f"shape={T.HEADER['shape']}"]
    np.savez_compressed(path, table=table, meta=np.array(meta if header else ["x=1"]))
    return path


def test_evaluators_are_named_by_the_spec_and_checked_against_the_game() -> None:
    assert parse_spec("alphabeta:depth=3+handset", "othello").evaluator.kind == "handset"  # type: ignore[union-attr]
    for spec, game, says in (
        ("alphabeta:depth=3+nothing", "othello", "unknown evaluator 'nothing'"),
        ("alphabeta:depth=3+patterns", "mattix", "the evaluator patterns is not Mattix's"),
        ("random+handset", "othello", "random takes no evaluator"),
        ("alphabeta+patterns:colour=3", "othello", "patterns takes weights="),
    ):
        with pytest.raises(SpecError) as e:
            make_engine(game, spec)
        assert says in str(e.value) and "\n" not in str(e.value), str(e.value)


def test_the_engine_contract_names_no_kind_and_no_option() -> None:
    """engine.py names no kind and no option of any kind (each declares its own), and no
    engine chooses its kernels by a flag (``if learned``)."""
    src = paths.ROOT / "src" / "banmen"
    words = {"alphabeta", "perfect", "mcts", "mate", "nboard", "gtp", "ugi", "python",
             "learned", "nakade", "probcut", "widen", "playouts", "threads"}  # fmt: skip
    tree = ast.parse((src / "engine.py").read_text())
    docs = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Expr)}
    code = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docs:
            code.update(re.findall(r"[a-z]+", n.value))
        elif isinstance(n, ast.Name | ast.Attribute):
            code.add(n.id if isinstance(n, ast.Name) else n.attr)
    assert not (words & code), words & code
    for path in src.rglob("*.py"):
        text = path.read_text()
        assert not re.search(r"^\s*(el)?if\s+(not\s+)?(self\.)?learned\b", text, re.M), path

"""Go's evaluation as an evaluator (issue 37): ``mcts+policy:weights=FILE``. A copy of the
shipped weights plays as the shipped ones do; a bad file is one line."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from banmen.engine import SpecError
from banmen.games.go import Board
from banmen.games.go.features import Weights
from banmen.games.registry import get_game, make_engine, why_not
from banmen.weights import WeightsError

DATA = Path(__file__).resolve().parents[3] / "src" / "banmen" / "games" / "go" / "data"


def _positions() -> list[Board]:
    out = []
    for moves in ((), ("E5", "C3"), ("E5", "E4", "D4", "F5", "C6")):
        b = Board(9)
        for m in moves:
            b.push(b.parse_move(m))
        out.append(b)
    return out


def test_a_copy_of_the_shipped_weights_plays_as_they_do(tmp_path: Path) -> None:
    copy = tmp_path / "mine.npz"
    shutil.copy(DATA / "patterns-9x9.npz", copy)
    for kind in ("mcts", "puct"):
        shipped = make_engine("go", f"{kind}:playouts=300,seed=3")
        mine = make_engine("go", f"{kind}:playouts=300,seed=3+policy:weights={copy}")
        assert mine.weights is not None and shipped.weights is None  # type: ignore[attr-defined]
        for b in _positions():
            shipped.new_game()
            mine.new_game()
            a, c = shipped.think(b.copy()), mine.think(b.copy())
            assert (a.move, a.nodes, a.pv) == (c.move, c.nodes, c.pv), (kind, a, c)


def test_other_weights_change_the_search(tmp_path: Path) -> None:
    w = Weights.load(DATA / "patterns-9x9.npz")
    flat = Weights(np.zeros_like(w.levels), w.pat3_codes, np.zeros_like(w.pat3_lg),
                   w.pat12_codes, np.zeros_like(w.pat12_lg), "flat")  # fmt: skip
    flat.save(tmp_path / "flat.npz")
    b = _positions()[2]
    shipped = make_engine("go", "mcts:playouts=400,seed=3")
    mine = make_engine("go", f"mcts:playouts=400,seed=3+policy:weights={tmp_path / 'flat.npz'}")
    a, c = shipped.think(b.copy()), mine.think(b.copy())
    assert c.move is not None and (a.move, a.pv, a.score) != (c.move, c.pv, c.score)


def _npz(path: Path, **members: object) -> Path:
    with open(path, "wb") as f:
        np.savez(f, **members)  # type: ignore[arg-type]
    return path


@pytest.mark.parametrize(
    ("make", "says"),
    [
        (lambda d: d / "none.npz", "no such file"),
        (lambda d: _npz(d / "bare.npz", levels=np.zeros((8, 30))), "not weights and their header"),
        (lambda d: _npz(d / "other.npz", meta=np.array(["evaluator=patterns", "game=othello"]),
                        levels=np.zeros((8, 30))), "expected evaluator=policy"),
        (lambda d: _npz(d / "shape.npz", meta=np.array(["evaluator=policy", "game=go",
                        "shape=8x31"]), levels=np.zeros((8, 31))), "expected shape=8x30"),
    ],
)  # fmt: skip
def test_a_bad_weights_file_is_one_line(make, says: str, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = make(tmp_path)
    with pytest.raises(WeightsError) as e:
        make_engine("go", f"mcts:playouts=10+policy:weights={path}")
    assert says in str(e.value) and "\n" not in str(e.value), str(e.value)


def test_a_truncated_copy_is_one_line_and_exit_2(tmp_path: Path) -> None:
    bad = tmp_path / "cut.npz"
    bad.write_bytes((DATA / "patterns-9x9.npz").read_bytes()[:5_000])
    p = subprocess.run(
        [sys.executable, "-m", "banmen", "arena", "run", "go", "--games", "2", "--workers", "1",
         "--db", str(tmp_path / "a.db"), "-p", f"cut=mcts:playouts=50+policy:weights={bad}",
         "-p", "r=random"],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    lines = [ln for ln in (p.stdout + p.stderr).splitlines() if ln.strip()]
    assert p.returncode == 2 and len(lines) == 1 and "Traceback" not in p.stderr, lines
    assert str(bad) in lines[0] and "weights file" in lines[0], lines[0]


def test_only_go_offers_it() -> None:
    assert why_not(get_game("go"), "mcts") is None
    with pytest.raises(SpecError, match="policy"):
        make_engine("othello", "alphabeta:depth=2+policy")

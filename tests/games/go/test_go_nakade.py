"""Vital points of killable eye shapes (:func:`banmen.games.go.tactics.vital_point`),
checked against a brute-force life-and-death read, and the tree's progressive widening."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import paths
import pytest
from test_go_engine import diagram

from banmen.games.go import BLACK, PASS, WHITE, Board, parse_vertex, vertex_name
from banmen.games.go import kernels as K
from banmen.games.go import policy as P
from banmen.games.go import tactics as T
from banmen.games.go.engine import GoEngine
from banmen.games.registry import parse_spec
from banmen.search.limits import Limit
from banmen.search.mcts import MCTS


def _vital(board: Board, vertex: str) -> str | None:
    reg = np.zeros(7, dtype=np.int64)
    q = parse_vertex(vertex, board.size)
    v = int(T.vital_point(board.position.board, q, board.stride, reg))
    return vertex_name(v, board.size) if v else None


# White's group with an eye space of a given shape (the empty points inside), surrounded
# by black stones outside it so that it has no outside liberties.
SHAPES = {
    # name: (diagram, a point of the eye space, its vital point or None)
    "bent three": (
        """
        .XXXXX.
        XXOOOXX
        XOO.OOX
        XO..OOX
        XOOOOOX
        .XXXXX.
        .......
        """,
        "C4",
        "D4",
    ),
    "straight three": (
        """
        .XXXXXX
        XXOOOOX
        XO...OX
        XOOOOOX
        .XXXXX.
        .......
        .......
        """,
        "D5",
        "D5",
    ),
    "pyramid four": (
        """
        .XXXXX.
        XOOOOOX
        XO...OX
        XOO.OOX
        XOOOOOX
        .XXXXX.
        .......
        """,
        "D5",
        "D5",
    ),
    "bulky five": (
        """
        .XXXXX.
        XOOOOOX
        XO..OOX
        XO...OX
        XOOOOOX
        .XXXXX.
        .......
        """,
        "C5",
        "D4",
    ),
    "crossed five": (
        """
        .XXXXX.
        XOOOOOX
        XOO.OOX
        XO...OX
        XOO.OOX
        XOOOOOX
        .XXXXX.
        """,
        "D5",
        "D4",
    ),
    "rabbity six": (
        """
        .XXXXX.
        XOOOOOX
        XOO.OOX
        XO...OX
        XO..OOX
        XOOOOOX
        .XXXXX.
        """,
        "D5",
        "D4",
    ),
    "straight four (alive)": (
        """
        .XXXXX.
        XOOOOOX
        XO....X
        XOOOOOX
        .XXXXX.
        .......
        .......
        """,
        "C5",
        None,
    ),
    "square four (dead as it is)": (
        """
        .XXXXX.
        XOOOOOX
        XO..OOX
        XO..OOX
        XOOOOOX
        .XXXXX.
        .......
        """,
        "C5",
        None,
    ),
    "T five (alive)": (
        """
        .XXXXX.
        XOOOOOX
        XO...OX
        XOO.OOX
        XOO.OOX
        XOOOOOX
        .XXXXX.
        """,
        "C5",
        None,
    ),
    "open area": (
        """
        .......
        .......
        ..XXX..
        ..XOX..
        .......
        .......
        .......
        """,
        "A1",
        None,
    ),
    "two colours around": (
        """
        .XXXXX.
        XOOOOOX
        XO..XOX
        XOO.OOX
        XOOOOOX
        .XXXXX.
        .......
        """,
        "C5",
        None,
    ),
}


@pytest.mark.parametrize("name", list(SHAPES))
def test_vital_points_of_eye_shapes(name: str) -> None:
    text, inside, vital = SHAPES[name]
    assert _vital(diagram(text), inside) == vital


def _inside(b: Board, q: int) -> bool:
    s = b.stride
    return all(b.position.board[q + o] in (K.EMPTY, WHITE) for o in (-1, 1, -s, s))


def _white_big(b: Board) -> int:
    return max((len(b.group(q)[0]) for q in b.stones(WHITE)), default=0)


def _black_kills(b: Board, space: list[int], depth: int, memo: dict) -> bool:
    """Brute force: can Black capture White's big group within ``depth`` plies, both
    sides playing only inside ``space`` or passing, whatever White does?"""
    if _white_big(b) < 8:
        return True
    if depth == 0 or b.is_game_over():
        return False
    key = (b.zobrist(), b.turn, depth)
    if key in memo:
        return memo[key]
    moves = [q for q in space if b.color_at(q) == K.EMPTY and b.is_legal(q)] + [PASS]
    outcomes = []
    for m in moves:
        c = b.copy()
        c.push(m)
        outcomes.append(_black_kills(c, space, depth - 1, memo))
    r = any(outcomes) if b.turn == BLACK else all(outcomes)
    memo[key] = r
    return r


@pytest.mark.parametrize("name", ["bent three", "pyramid four", "straight three"])
def test_the_vital_point_decides(name: str) -> None:
    """Black's stone on the vital point kills (White cannot make two eyes); White's own
    stone there lives. Read out by brute force."""
    text, inside, vital = SHAPES[name]
    board = diagram(text, turn=BLACK)
    assert vital is not None
    v = parse_vertex(vital, board.size)
    space = [q for q in board.points if board.color_at(q) == K.EMPTY and _inside(board, q)]
    assert v in space
    for color, kills in ((BLACK, True), (WHITE, False)):
        b = board.copy()
        b.push(v, color)
        assert _black_kills(b, space, 14, {}) == kills, color
    for q in space:  # anywhere else Black's stone does not kill
        if q != v:
            b = board.copy()
            b.push(q, BLACK)
            assert not _black_kills(b, space, 14, {}), vertex_name(q, board.size)


def test_progressive_widening_orders_and_limits_the_children() -> None:
    board = Board(9)
    for v in ("E5", "C3", "G7"):
        board.push(parse_vertex(v, 9))
    ctx = P.context(9, 7.5)
    root = board.position.copy().arrays()
    scratch = board.position.copy().arrays()
    wide = MCTS(P.kernels(), 1 << 18, widen=3, explore=1.0)
    wide.expand_root(ctx, root)
    order = list(wide._children(0))
    prior = [float(wide._fs[i, 1] / wide._fs[i, 0]) for i in order]
    assert int(wide._ist[order[0], 0]) == PASS  # the pass first, then best prior first
    assert prior[1:] == sorted(prior[1:], reverse=True)
    wide.search(ctx, root, scratch, Limit(nodes=200))
    visited = [k for k, i in enumerate(order) if wide._ist[i, 3] > 0]
    # at 200 visits: the pass, 3, and floor(log(1 + 200/40) / log(1.4)) = 5 more
    assert max(visited) <= 8
    full = MCTS(P.kernels(), 1 << 18, explore=1.0)
    full.search(ctx, root, scratch, Limit(nodes=200))
    assert len([c for c in full.children() if c.visits > 0]) > 9
    with pytest.raises(ValueError, match="widen"):
        MCTS(P.kernels(), 1 << 18, widen=-1)


def test_engine_spec_options() -> None:
    from banmen.engine import SpecError

    e = GoEngine.from_spec(parse_spec("mcts:playouts=100,widen=4,learned=0", "go"))
    assert e.widen == 4 and e.params["learned"] == 0
    assert GoEngine.from_spec(parse_spec("mcts:widen=0", "go")).widen == 0
    with pytest.raises(SpecError, match="learned must be 0 or 1"):
        parse_spec("mcts:learned=2", "go")
    with pytest.raises(SpecError, match="mcts takes time=.*learned="):  # measured weaker, gone
        parse_spec("mcts:nakade=1", "go")
    with pytest.raises(SpecError, match="widen must be 0 or more"):
        parse_spec("mcts:widen=-1", "go")
    with pytest.raises(SpecError, match="mcts takes no widen="):  # Go's own option
        parse_spec("mcts:widen=4", "othello")


def test_the_agreement_tool(tmp_path: Path) -> None:
    """tools/go_agreement.py: positions from a record, two settings alternated, the
    counts and intervals written as JSON."""
    import importlib.util
    import json
    import sys

    root = paths.ROOT
    spec = importlib.util.spec_from_file_location(
        "go_agreement", root / "tools" / "go_agreement.py"
    )
    assert spec is not None and spec.loader is not None
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    rec = {"size": 9, "moves": ["E5", "C3", "G7", "C7", "G3", "D4", "F6", "E3", "F4", "D6",
                                "E7", "pass", "C5"]}  # fmt: skip
    data = tmp_path / "games.jsonl"
    data.write_text(json.dumps(rec) + "\n")
    pos = tool.positions([data], every=1, first=10, last=20)
    assert [want for _, want in pos] == ["E7", "C5"]  # moves 10 and 12: the pass is skipped
    assert pos[0][0].ply == 10
    out = tmp_path / "out.json"
    argv = sys.argv
    sys.argv = ["go_agreement", str(data), "--config", "widen=0", "--config", "widen=2",
                "--playouts", "50", "--every", "1", "--out", str(out)]  # fmt: skip
    try:
        tool.main()
    finally:
        sys.argv = argv
    rows = json.loads(out.read_text())["rows"]
    assert [r["config"] for r in rows] == ["widen=0", "widen=2"]
    for r in rows:
        assert r["positions"] == 2 and 0 <= r["agree"] <= 2
        assert r["wilson95"][0] <= r["rate"] <= r["wilson95"][1]

"""Evaluators for every game's searches (:mod:`banmen.search.evaluators`,
:mod:`banmen.games.evaluators`): the n-tuple evaluation is the sum a pure-Python reading
of the board computes, on Connect Four, Mattix and Othello; a file of zeros plays; a bad
file is one line (and exit 2 from the arena); ``alphabeta+ntuple`` and ``puct+rollout``
play whole arena games in worker processes; the searches without an evaluator are the
searches they were, node for node (``+default``, the game's own evaluation through the
evaluator's bundle, against the plain search on the same position)."""

from __future__ import annotations

import math
import pickle
import random
import subprocess
import sys
import zipfile
import zlib
from collections.abc import Callable
from itertools import product
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from banmen.arena.runner import run_arena
from banmen.arena.schedule import parse_player
from banmen.arena.store import ArenaStore, RunConfig
from banmen.engine import Part, SpecError
from banmen.games import GameDef
from banmen.games.evaluators import new_ntuple_file
from banmen.games.registry import (
    GAME_NAMES,
    evaluator_kinds,
    get_game,
    kinds,
    make_engine,
    make_evaluator,
    parse_spec,
    search_kinds,
)
from banmen.search.limits import Limit
from banmen.weights import default_tuples, grid_tuples, read_ntuple, write_ntuple

#: (game, size): the grid games, Mattix at both its sizes
GRIDS = [("connect-four", None), ("mattix", 4), ("mattix", 6), ("othello", None)]


def _game(name: str) -> GameDef[Any]:
    if name not in GAME_NAMES:  # the example package, when it is not installed
        pytest.skip(f"{name} is not installed")
    return get_game(name)


def _positions(game: GameDef[Any], size: int | None, count: int, seed: int) -> list[Any]:
    """``count`` positions of random games from the game's seeded starts (none over)."""
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        assert game.new_board is not None
        board = game.new_board(rng.randrange(1 << 30), size)
        for _ in range(rng.randrange(0, 30)):
            if board.is_game_over():
                break
            board.push(rng.choice(list(board.legal_moves)))
        if not board.is_game_over():
            out.append(board)
    return out


# --------------------------------------------------------------------------- the oracle


def _cells(name: str, board: Any) -> list[int]:
    """Each cell's content from the side to move's view, read from the board's own text
    and fields (not from the compiled kernels): 0 empty, 1 the mover's, 2 the other's;
    Mattix: 0 empty, 1 the chip, 12 + v a piece of value v (capped at +-10), player 2's
    board transposed."""
    if name == "connect-four":
        rows, side = board.fen().split()
        text = "".join(rows.split("/"))
        assert len(text) == 42, text
        return [0 if ch == "." else 1 if ch == side else 2 for ch in text]
    if name == "othello":
        squares, side = board.to_string().split()
        return [0 if ch == "-" else 1 if ch == side else 2 for ch in squares]
    n = board.size
    out = []
    for i in range(n * n):
        r, c = divmod(i, n)
        sq = i if board.turn == 1 else c * n + r
        v = board.cells[sq]
        out.append(1 if sq == board.chip else 0 if v is None else 12 + max(-10, min(10, v)))
    return out


def _python_sum(name: str, board: Any, tuples: list[tuple[int, ...]], weights: np.ndarray,
                values: int, bound: int) -> int:  # fmt: skip
    cells = _cells(name, board)
    total = 0.0
    offset = 0
    for t in tuples:
        idx = 0
        for c in t:
            idx = idx * values + cells[c]
        total += float(weights[offset + idx])
        offset += values ** len(t)
    v = math.floor(total + 0.5)
    return max(-bound, min(bound, v)) if bound > 0 else v


@pytest.mark.parametrize(("name", "size"), GRIDS)
def test_ntuple_is_the_python_sum_on_random_positions(
    name: str, size: int | None, tmp_path: Path
) -> None:
    game = _game(name)
    assert game.kernels is not None and game.kernels.grid is not None
    boards = _positions(game, size, 40, seed=zlib.crc32(name.encode()))
    ctx, _ = game.search_position(boards[0])  # type: ignore[misc]
    rows, cols = game.kernels.grid(ctx)
    values = game.kernels.cell_values
    rng = np.random.default_rng(5)
    # windows, squares, and a few tuples of random cells of random lengths
    tuples = grid_tuples(rows, cols, length=3, squares=(2,))
    tuples += [tuple(int(c) for c in rng.choice(rows * cols, size=k, replace=False))
               for k in (1, 2, 3, 1)]  # fmt: skip
    total = sum(values ** len(t) for t in tuples)
    bound = game.kernels.eval_bound
    # sums of about half the bound, so that a few reach it (Mattix has none: points)
    scale = (bound or 20) / 2 / math.sqrt(len(tuples))
    weights = (rng.standard_normal(total) * scale).astype(np.float32)
    path = tmp_path / "hand.npz"
    write_ntuple(path, game.name, rows, cols, values, tuples, weights)
    ev = make_evaluator(game, Part("ntuple", {"weights": str(path)}))
    seen = set()
    for board in boards:
        gctx, state = game.search_position(board)  # type: ignore[misc]
        want = _python_sum(name, board, tuples, weights, values, bound)
        assert ev.evaluate(gctx, state) == want, board
        seen.add(want)
    assert len(seen) > 10, seen  # (the sums differ: the test reads positions, not zeros)


def test_the_file_names_and_reads_its_tables(tmp_path: Path) -> None:
    tuples = grid_tuples(6, 7)
    assert len(tuples) == 6 * 4 + 7 * 3 + 2 * 3 * 4 + 5 * 6 + 4 * 5
    assert (0, 1, 2, 3) in tuples and (0, 7, 14, 21) in tuples and (3, 9, 15, 21) in tuples
    assert len(default_tuples(6, 6, 23)[0]) == 3  # Mattix: windows of 3, no squares
    path = tmp_path / "w.npz"
    w = np.arange(3**2 + 3**3, dtype=np.float32)
    write_ntuple(path, "connect-four", 6, 7, 3, [(0, 1), (40, 41, 34)], w, {"fitted": "no"})
    nt = read_ntuple(path, "connect-four", 3)
    assert nt.shape == "6x7x3" and nt.meta["fitted"] == "no" and nt.meta["tuples"] == "2"
    assert nt.lengths() == [2, 3] and list(nt.offsets) == [0, 9]
    assert np.array_equal(nt.weights, w)
    with pytest.raises(ValueError, match="reads cell 42"):
        write_ntuple(path, "connect-four", 6, 7, 3, [(42,)])
    with pytest.raises(ValueError, match="need 9 weights"):
        write_ntuple(path, "connect-four", 6, 7, 3, [(0, 1)], np.zeros(8))


# --------------------------------------------------------------------------- zeros play


@pytest.mark.parametrize(("name", "size"), GRIDS)
def test_a_file_of_zeros_loads_values_zero_and_plays(
    name: str, size: int | None, tmp_path: Path
) -> None:
    game = _game(name)
    path = new_ntuple_file(game, tmp_path / "zero.npz", size=size)
    spec = f"alphabeta:depth=2+ntuple:weights={path}"
    engine = make_engine(game, spec)
    ev = make_evaluator(game, Part("ntuple", {"weights": str(path)}))
    board = _positions(game, size, 1, seed=3)[0]
    gctx, state = game.search_position(board)  # type: ignore[misc]
    assert ev.evaluate(gctx, state) == 0
    for _ in range(6):
        if board.is_game_over():
            break
        r = engine.think(board, Limit(depth=2))
        assert r.move is not None and r.move in {board.move_name(m) for m in board.legal_moves}
        board.push_name(r.move)


def test_a_file_for_another_grid_size_is_one_line(tmp_path: Path) -> None:
    game = _game("mattix")
    path = new_ntuple_file(game, tmp_path / "six.npz", size=6)
    engine = make_engine(game, f"alphabeta:depth=2+ntuple:weights={path}")
    with pytest.raises(SpecError) as e:
        engine.think(game.new_board(1, 4), Limit(depth=2))  # type: ignore[misc]
    assert str(e.value) == f"weights file {path}: made for a 6x6 grid, the position is on 4x4"


# --------------------------------------------------------------------------- bad files


def _zero_c4(path: Path, **header: str) -> Path:
    write_ntuple(path, "connect-four", 6, 7, 3, [(0, 1, 2)])
    if header:  # rewrite the header
        with np.load(path) as z:
            members = {k: z[k] for k in z.files}
        meta = dict(str(x).split("=", 1) for x in members["meta"])
        meta.update(header)
        members["meta"] = np.array([f"{k}={v}" for k, v in meta.items()])
        with open(path, "wb") as f:
            np.savez(f, **members)
    return path


def _pickled(path: Path) -> Path:
    """A file whose weights are an object array: a pickle, which ``np.load`` would run."""
    _zero_c4(path)
    with np.load(path) as z:
        members = {k: z[k] for k in z.files}
    members["weights"] = np.array([{"a": 1}], dtype=object)
    with zipfile.ZipFile(path, "w") as zf:
        for k, v in members.items():
            with zf.open(f"{k}.npy", "w") as f:
                np.lib.format.write_array(f, v, allow_pickle=True)
    return path


def _truncated(path: Path) -> Path:
    _zero_c4(path)
    path.write_bytes(path.read_bytes()[:100])
    return path


BAD: list[tuple[str, Callable[[Path], Path], str]] = [
    ("missing", lambda d: d / "none.npz", "no such file"),
    ("folder", lambda d: d, "not a regular file"),
    ("truncated", lambda d: _truncated(d / "cut.npz"), "not a weights file banmen can read"),
    ("game", lambda d: _zero_c4(d / "go.npz", game="othello"), "expected game=connect-four"),
    ("evaluator", lambda d: _zero_c4(d / "p.npz", evaluator="patterns"),
     "expected evaluator=ntuple"),
    ("shape", lambda d: _zero_c4(d / "s.npz", shape="6x7x4"), "expected a shape ...x3"),
    ("pickle", lambda d: _pickled(d / "pk.npz"), "holds a pickled object"),
]  # fmt: skip


@pytest.mark.parametrize(("what", "make", "says"), BAD, ids=[b[0] for b in BAD])
def test_a_bad_file_is_one_line(what: str, make: Callable[[Path], Path], says: str,
                                tmp_path: Path) -> None:  # fmt: skip
    game = _game("connect-four")
    path = make(tmp_path)
    with pytest.raises(SpecError) as e:
        make_engine(game, f"alphabeta:depth=2+ntuple:weights={path}")
    text = str(e.value)
    assert says in text and "\n" not in text and str(path) in text, text
    assert text.startswith(f"weights file {path}: "), text


def _cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "banmen", *args], capture_output=True,
                          text=True, timeout=600, cwd=cwd)  # fmt: skip


@pytest.mark.parametrize(("what", "make", "says"), BAD, ids=[b[0] for b in BAD])
def test_a_bad_file_is_one_line_and_exit_2_from_the_arena(
    what: str, make: Callable[[Path], Path], says: str, tmp_path: Path
) -> None:
    _game("connect-four")
    path = make(tmp_path)
    p = _cli("arena", "run", "connect-four", "--games", "2", "--workers", "1", "--db",
             str(tmp_path / "a.db"), "-p", f"nt=alphabeta:depth=3+ntuple:weights={path}",
             "-p", "r=random")  # fmt: skip
    lines = [ln for ln in (p.stdout + p.stderr).splitlines() if ln.strip()]
    assert p.returncode == 2, p.stdout + p.stderr
    assert len(lines) == 1 and "Traceback" not in p.stderr, lines
    assert str(path) in lines[0] and says in lines[0], lines[0]


def test_the_pickle_is_never_loaded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The file's object member is refused before anything unpickles it."""
    path = _pickled(tmp_path / "pk.npz")

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("unpickled")

    monkeypatch.setattr(pickle, "load", refuse)
    monkeypatch.setattr(pickle, "loads", refuse)
    with pytest.raises(SpecError, match="pickled object"):
        read_ntuple(path, "connect-four", 3)


# --------------------------------------------------------------------------- the arena


@pytest.mark.parametrize("name", ["connect-four", "mattix"])
def test_ntuple_and_rollout_players_play_arena_games(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Both players play whole games in the arena's worker processes, which get the spec
    as data with the file's absolute name: given here relative to the folder the run is
    made in, and played from another one."""
    game = _game(name)
    new_ntuple_file(game, tmp_path / "w.npz")
    monkeypatch.chdir(tmp_path)
    specs = {"nt": "alphabeta:depth=3+ntuple:weights=w.npz",
             "ro": "puct:playouts=200,seed=1+rollout:playouts=4"}  # fmt: skip
    players = [parse_player(f"{n}={s}", game).to_config() for n, s in specs.items()]
    store = ArenaStore(tmp_path / "a.db")
    run = store.create_run(RunConfig(game=name, games=2, seed=3, players=players), "ev")
    stored = {p["name"]: p for p in store.run_config(run).players}
    assert stored["nt"]["spec"] == specs["nt"]  # the text as the user wrote it ...
    weights = stored["nt"]["parsed"]["evaluator"]["options"]["weights"]  # ... read once
    assert weights == str(tmp_path / "w.npz"), weights
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)  # (where w.npz is no file: the workers read the record)
    run_arena(store, run, workers=1)
    games = list(store.games(run))
    assert len(games) == 2
    for g in games:
        assert g.result in ("1-0", "0-1", "1/2-1/2"), (g.result, g.moves)
        assert not g.extra.get("forfeit"), g.extra
        assert len(g.moves) >= 4
    store.close()


# --------------------------------------------------------------------------- no evaluator


@pytest.mark.parametrize(("name", "size"), GRIDS)
def test_without_an_evaluator_the_search_is_the_same_node_for_node(
    name: str, size: int | None
) -> None:
    """The game's own evaluation through an evaluator's bundle (``+default``) is the search
    without one: the same moves, scores and nodes, searched here side by side."""
    game = _game(name)
    boards = _positions(game, size, 3, seed=11)
    if name == "othello":  # Othello's alphabeta is its own: its hand-set evaluation
        pairs = [("alphabeta:depth=5+handset", "alphabeta:depth=5+default", Limit(depth=5))]
    else:
        pairs = [("alphabeta:depth=7", "alphabeta:depth=7+default", Limit(depth=7))]
    pairs.append(("puct:seed=2", "puct:seed=2+default", Limit(nodes=600)))
    for plain, evaluated, limit in pairs:
        a, b = make_engine(game, plain), make_engine(game, evaluated)
        nodes = 0
        for board in boards:
            a.new_game()
            b.new_game()
            ra, rb = a.think(board, limit), b.think(board, limit)
            assert (ra.move, ra.score, ra.nodes, ra.pv) == (rb.move, rb.score, rb.nodes, rb.pv)
            nodes += ra.nodes
        assert nodes > 300, (plain, nodes)  # (searches, not forced moves)


# --------------------------------------------------------------------------- rollout


def _expected_score(board: Any) -> float:
    """The exact mean of (win - loss) over uniformly random play from ``board``, for the
    side to move, counting only the points taken from here on (Mattix)."""
    mover = board.turn

    def walk(b: Any) -> float:
        moves = list(b.legal_moves)
        if not moves:
            a, c = b.scores
            diff = a - c if mover == 1 else c - a
            return float(np.sign(diff - start))
        total = 0.0
        for m in moves:
            b.push(m)
            total += walk(b)
            b.pop()
        return total / len(moves)

    a, c = board.scores
    start = a - c if mover == 1 else c - a
    return walk(board)


def test_rollout_is_the_playouts_score_in_the_games_units() -> None:
    """A statistical test that can fail: the mean of many playouts' (win - loss) on a
    small Mattix position against its exact expectation (every line enumerated), scaled
    by the game's value scale; a sign or a turn counted wrong is far off."""
    game = _game("mattix")
    board = game.board_from_text("3,X,-2/5,1,-4/2,-6,7")  # type: ignore[misc]
    want = _expected_score(board)
    assert game.kernels is not None
    scale = game.kernels.value_scale
    n = 20000
    ev = make_evaluator(game, Part("rollout", {"playouts": n, "seed": 9}))
    gctx, state = game.search_position(board)  # type: ignore[misc]
    got = ev.evaluate(gctx, state)
    sigma = scale * 2 / math.sqrt(n)
    assert abs(got - scale * want) <= 4 * sigma + 0.5, (got, scale * want)
    ev.reset()
    again = ev.evaluate(gctx, state)
    assert again == got  # the seed's playouts again
    for board in _positions(_game("connect-four"), None, 5, seed=4):
        c4 = make_evaluator(board_game := _game("connect-four"), Part("rollout", {"playouts": 8}))
        gctx, state = board_game.search_position(board)  # type: ignore[misc]
        assert abs(c4.evaluate(gctx, state)) <= 70  # Connect Four's value scale


# --------------------------------------------------------------------------- the kinds


def test_which_searches_take_an_evaluator_and_what_each_game_offers() -> None:
    sk = search_kinds()
    assert all(sk[k].evaluators for k in ("alphabeta", "perfect", "mcts", "puct"))
    assert not any(sk[k].evaluators for k in ("random", "mate", "python", "ugi"))
    for name in ("mattix", "connect-four", "othello"):
        game = _game(name)
        offered = kinds(game)
        assert all(offered[k].takes_evaluator for k in ("alphabeta", "perfect", "mcts", "puct"))
        assert not offered["random"].takes_evaluator
        usable = {n for n, e in evaluator_kinds().items() if e.applies(game) is None}
        assert {"default", "ntuple", "rollout"} <= usable, usable
    go = get_game("go")
    assert evaluator_kinds()["ntuple"].applies(go) is not None
    for spec, game_name, says in (
        ("random+rollout", "mattix", "random takes no evaluator"),
        ("alphabeta+ntuple", "mattix", "needs its weights"),
        ("puct+ntuple:weights=x.npz", "go", "the evaluator ntuple is not Go's"),
        ("alphabeta+rollout:playouts=0", "mattix", "playouts must be positive"),
    ):
        with pytest.raises(SpecError) as e:
            make_engine(game_name, spec)
        assert says in str(e.value) and "\n" not in str(e.value), str(e.value)
    spec = parse_spec("puct:playouts=800+ntuple:weights=c4.npz", "mattix")
    assert spec.evaluator is not None and Path(spec.evaluator.options["weights"]).is_absolute()


def test_banmen_players_lists_the_evaluators() -> None:
    p = _cli("players", "mattix")
    assert p.returncode == 0, p.stderr
    text = p.stdout
    for word in ("ntuple:", "rollout:", "default:"):
        assert word in text, text
    assert "patterns:" not in text  # (Othello's own)


def test_othello_plays_every_games_evaluators_beside_its_own(tmp_path: Path) -> None:
    game = _game("othello")
    path = new_ntuple_file(game, tmp_path / "o.npz")
    board = game.new_board(2, None)  # type: ignore[misc]
    for spec in (f"alphabeta:depth=3+ntuple:weights={path}", "alphabeta:depth=2+rollout:playouts=2",
                 f"puct:playouts=100+ntuple:weights={path}"):  # fmt: skip
        r = make_engine(game, spec).think(board)
        assert r.move in {board.move_name(m) for m in board.legal_moves}, (spec, r)


def test_every_cell_kernel_gives_codes_below_its_values() -> None:
    for name, size in GRIDS:
        game = _game(name)
        k = game.kernels
        assert k is not None and k.cell is not None and k.grid is not None
        for board in _positions(game, size, 10, seed=7):
            gctx, state = game.search_position(board)  # type: ignore[misc]
            rows, cols = k.grid(gctx)
            codes = [int(k.cell(gctx, state, i)) for i in range(rows * cols)]
            assert codes == _cells(name, board)
            assert all(0 <= c < k.cell_values for c in codes)


def test_grid_tuples_cover_every_window_once() -> None:
    for rows, cols, length in product((1, 3, 6), (1, 4, 7), (2, 4)):
        tuples = grid_tuples(rows, cols, length, squares=())
        assert len(set(tuples)) == len(tuples)
        want = (rows * max(0, cols - length + 1) + cols * max(0, rows - length + 1)
                + 2 * max(0, rows - length + 1) * max(0, cols - length + 1))  # fmt: skip
        assert len(tuples) == want

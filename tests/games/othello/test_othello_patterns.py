"""The learned Othello evaluation: pattern layout and indices against a slow reading,
symmetry of a symmetrized table, the search kernels against the exact solver, and the
fitting tool on data whose answer is known."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

import numpy as np
import paths
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from banmen.games.othello import PASS, Board
from banmen.games.othello import patterns as T
from banmen.games.othello.endgame import EndgameSolver
from banmen.games.othello.evaluation import SCALE, alphabeta_state
from banmen.games.othello.kernels import U
from banmen.games.othello.pattern_search import PATTERN_KERNELS, pattern_context
from banmen.search.alphabeta import AlphaBeta
from banmen.search.limits import Limit

ROOT = paths.ROOT


def _tool() -> Any:
    path = ROOT / "tools" / "othello_train.py"
    spec = importlib.util.spec_from_file_location("othello_train", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules["othello_train"] = mod
    spec.loader.exec_module(mod)
    return mod


def _random_board(seed: int, plies: int) -> Board:
    rng = np.random.default_rng(seed)
    b = Board()
    for _ in range(plies):
        if b.is_game_over():
            break
        b.push(int(rng.choice(b.legal_moves)))
    return b


def _transform(bits: int, k: int) -> int:
    out = 0
    for sq in range(64):
        if bits >> sq & 1:
            r, c = divmod(sq, 8)
            img = [(r, c), (r, 7 - c), (7 - r, c), (7 - r, 7 - c),
                   (c, r), (c, 7 - r), (7 - c, r), (7 - c, 7 - r)][k]  # fmt: skip
            out |= 1 << (img[0] * 8 + img[1])
    return out


def test_the_layout() -> None:
    inst = T.instances()
    counts: dict[str, int] = {}
    for name, squares in inst:
        counts[name] = counts.get(name, 0) + 1
        assert len(set(squares)) == len(squares) == len(T.PATTERNS[name])
    assert counts == {"corner3x3": 4, "corner2x5": 8, "edge2x": 4, "line2": 4, "line3": 4,
                      "line4": 4, "diag8": 2, "diag7": 4, "diag6": 4, "diag5": 4,
                      "diag4": 4}  # fmt: skip
    assert T.N_INSTANCES == 46
    assert T.N_FEATURES == sum(3 ** len(s) for s in T.PATTERNS.values()) + 2 * 31 + 1


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000), st.integers(0, 55))
def test_indices_match_a_slow_reading(seed: int, plies: int) -> None:
    b = _random_board(seed, plies)
    p, o = b.pieces()
    out = np.zeros(T.N_INDICES, dtype=np.int64)
    phase = T.feature_indices(U(p), U(o), out)
    assert phase == min(b.empties(), 59) // 5
    offsets: dict[str, int] = {}
    total = 0
    for name, squares in T.PATTERNS.items():
        offsets[name] = total
        total += 3 ** len(squares)
    for k, (name, squares) in enumerate(T.instances()):
        idx = 0
        for sq in squares:
            idx = idx * 3 + (1 if p >> sq & 1 else 2 if o >> sq & 1 else 0)
        assert out[k] == offsets[name] + idx
    mob = len([m for m in b.legal_moves if m != PASS])
    assert out[T.N_INSTANCES] == total + min(mob, 30)


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 10_000), st.integers(0, 55))
def test_a_symmetrized_table_values_all_eight_images_alike(seed: int, plies: int) -> None:
    rng = np.random.default_rng(seed)
    table = T.symmetrize(rng.integers(-500, 500, size=(T.PHASES, T.N_FEATURES)).astype(np.int32))
    b = _random_board(seed, plies)
    p, o = b.pieces()

    def images(t: np.ndarray) -> set[int]:
        return {int(T.pattern_value(t, U(_transform(p, k)), U(_transform(o, k)))) for k in range(8)}

    assert len(images(table)) == 1
    # and an unsymmetrized one does not (which is why the fit shares the weights)
    raw = rng.integers(-500, 500, size=(T.PHASES, T.N_FEATURES)).astype(np.int32)
    assert plies < 2 or len(images(raw)) > 1


def _reckless_probcut() -> np.ndarray:
    """A ProbCut table that cuts on any shallow hint (no margin)."""
    pc = T.no_probcut()
    for d in range(3, T.PROBCUT_DEPTHS):
        pc[d, :] = (1, 1024, 0, 0)
    return pc


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_pattern_search_to_the_end_is_the_exact_value(seed: int) -> None:
    """Even with a ProbCut table that cuts on anything: a search that reaches the end of
    the game never uses it, so what it calls exact is."""
    b = _random_board(seed, 50)
    assert not b.is_game_over()
    rng = np.random.default_rng(seed)
    table = T.symmetrize(rng.integers(-300, 300, size=(T.PHASES, T.N_FEATURES)).astype(np.int32))
    ctx = pattern_context(T.Weights(table, probcut=_reckless_probcut()))
    ab = AlphaBeta(PATTERN_KERNELS, tt_bits=16)
    r = ab.search(ctx, alphabeta_state(b), Limit(depth=40))
    p, o = b.pieces()
    assert r.exact and r.score == EndgameSolver().solve(p, o).score * SCALE
    shallow = ab.search(ctx, alphabeta_state(b), Limit(depth=1))
    assert not shallow.exact


def test_probcut_prunes_and_can_be_turned_off() -> None:
    """The reckless table cuts most of a midgame tree; with ProbCut off (on the search or
    in the context) the same search visits exactly what it visits with no table."""
    b = _random_board(11, 20)
    rng = np.random.default_rng(11)
    table = T.symmetrize(rng.integers(-300, 300, size=(T.PHASES, T.N_FEATURES)).astype(np.int32))
    w = T.Weights(table, probcut=_reckless_probcut())
    plain = AlphaBeta(PATTERN_KERNELS, tt_bits=18)
    base = plain.search(pattern_context(T.Weights(table)), alphabeta_state(b), Limit(depth=6))
    cut = AlphaBeta(PATTERN_KERNELS, tt_bits=18)
    pruned = cut.search(pattern_context(w), alphabeta_state(b), Limit(depth=6))
    assert pruned.nodes < base.nodes / 2
    off = AlphaBeta(PATTERN_KERNELS, tt_bits=18)
    off.probcut = False
    r = off.search(pattern_context(w), alphabeta_state(b), Limit(depth=6))
    assert (r.nodes, r.move, r.score) == (base.nodes, base.move, base.score)
    r = plain.search(pattern_context(w, probcut=False), alphabeta_state(b), Limit(depth=6))
    assert r.move == base.move and r.score == base.score


def test_weights_round_trip(tmp_path: Path) -> None:
    rng = np.random.default_rng(7)
    table = rng.integers(-40000, 40000, size=(T.PHASES, T.N_FEATURES)).astype(np.int32)
    w = T.Weights(table, {"games": 3})
    w.save(tmp_path / "w.npz")
    back = T.Weights.load(tmp_path / "w.npz")
    assert back.meta == {"games": "3", **T.HEADER}  # (the file says what it is)
    assert np.array_equal(back.table, np.clip(table, -32767, 32767))
    with pytest.raises(ValueError, match="weights must be"):
        T.Weights(np.zeros((2, 3), dtype=np.int32))


def test_the_fit_recovers_a_known_evaluation() -> None:
    """Labels from a known rule (half the mobility difference, plus noise) on the
    positions of random games: the fit predicts held-out labels far better than a
    constant does, and the report names each phase's sizes."""
    tool = _tool()
    rng = np.random.default_rng(0)
    rows: dict[str, list[Any]] = {k: [] for k in tool.FIELDS}
    for g in range(120):
        b = Board()
        while not b.is_game_over():
            legal = b.legal_moves
            if legal != [PASS]:
                p, o = b.pieces()
                mine = len(legal)
                theirs = len([m for m in Board(o, p).legal_moves if m != PASS])
                y = 0.5 * (mine - theirs) + rng.normal(0, 0.2)
                row = (p, o, b.empties(), y, False, g, False)
                for k, x in zip(tool.FIELDS, row, strict=True):
                    rows[k].append(x)
            b.push(int(rng.choice(legal)))
    d = tool._arrays(rows)
    table, report = tool.fit(d, damp=3.0, iters=300, hand=False)
    assert {r["phase"] for r in report} == set(range(T.PHASES))
    assert all(r["train"] > 0 for r in report)
    test = tool._held_out(d["game"])
    idx = np.empty((len(d["label"]), T.N_INDICES), dtype=np.int64)
    ph = np.empty(len(d["label"]), dtype=np.int64)
    T.batch_indices(d["P"], d["O"], idx, ph)
    pred = np.array([table[ph[i]][idx[i]].sum() for i in np.flatnonzero(test)])
    err = np.abs(pred - d["label"][test]).mean()
    base = np.abs(d["label"][test] - d["label"][~test].mean()).mean()
    assert err < 0.5 * base, (err, base)
    # --all: the held-out games are fitted too, and the report says its figures are in-sample
    table_all, report_all = tool.fit(d, damp=3.0, iters=300, hand=False, use_all=True)
    assert all(r["in_sample"] for r in report_all) and not any("in_sample" in r for r in report)
    assert [r["train"] for r in report_all] == [
        int((ph == r["phase"]).sum()) for r in report_all
    ]  # every position is counted as fitted
    pred_all = np.array([table_all[ph[i]][idx[i]].sum() for i in np.flatnonzero(test)])
    assert np.abs(pred_all - d["label"][test]).mean() < err


def test_generate_keeps_every_child_of_a_chosen_position() -> None:
    """``generate --children``: with a share of 1 every position is followed by each of
    its legal successors where the mover has a move, each labelled from its own mover's
    view — exactly (the solver's value) within ``exact`` empties; the game's own
    positions are the same as without children."""
    tool = _tool()
    lab = tool.Labeller(None, 1)  # the hand-set evaluation, one ply: cheap labels
    plain = tool._game(lab, 7, 10)
    full = tool._game(lab, 7, 10, children=1.0)
    parents = [i for i, c in enumerate(full["child"]) if not c]
    assert [(full["P"][i], full["O"][i]) for i in parents] == list(
        zip(plain["P"], plain["O"], strict=True)
    )
    assert sum(full["child"]) > len(parents)
    solver = EndgameSolver(tt_bits=16)
    checked = 0
    for i in parents:
        b = Board(black=full["P"][i], white=full["O"][i])
        kids = set()
        for m in b.legal_moves:
            c = b.copy()
            c.push(m)
            if not c.is_game_over() and c.legal_moves != [PASS]:
                kids.add(c.pieces())
        j = i + 1
        got = set()
        while j < len(full["child"]) and full["child"][j]:
            got.add((full["P"][j], full["O"][j]))
            if full["empties"][j] <= 10 and checked < 12:
                assert full["exact"][j]
                solver.clear()
                assert full["label"][j] == solver.solve(full["P"][j], full["O"][j]).score
                checked += 1
            j += 1
        assert got == kids
    assert checked == 12


def test_player_specs_choose_the_evaluation() -> None:
    from banmen.engine import SpecError
    from banmen.games.othello.engine import OthelloEngine
    from banmen.games.registry import make_engine

    new = make_engine("othello", "alphabeta:time=0.1")
    old = make_engine("othello", "alphabeta:time=0.1,learned=0")  # an older spec: +handset
    hand = make_engine("othello", "alphabeta:time=0.1+handset")
    nopc = make_engine("othello", "alphabeta:time=0.1,probcut=0")
    for e in (new, old, hand, nopc):
        assert isinstance(e, OthelloEngine)
    assert isinstance(new, OthelloEngine) and isinstance(old, OthelloEngine)
    assert isinstance(hand, OthelloEngine) and isinstance(nopc, OthelloEngine)
    assert new.evaluator.name == "patterns" and new.search.probcut
    assert old.evaluator.name == "handset" and hand.evaluator is old.evaluator
    assert nopc.evaluator.name == "patterns" and not nopc.search.probcut
    b = Board.from_transcript("f5d6c3")
    for e in (new, old):
        r = e.think(b, Limit(depth=3))
        assert r.move is not None and b.parse_move(r.move) in b.legal_moves
    with pytest.raises(SpecError, match="Mattix's alphabeta takes no learned=: it takes depth="):
        make_engine("mattix", "alphabeta:depth=2,learned=0")
    with pytest.raises(SpecError, match="probcut must be 0 or 1"):
        make_engine("othello", "alphabeta:depth=2,probcut=2")

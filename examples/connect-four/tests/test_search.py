"""The search through banmen's shared alpha-beta: the solver and ``perfect`` against a
brute-force negamax, the depth-limited player on wins and blocks, the analysis, and the
kernels' contract (moves, heuristic bounds)."""

from __future__ import annotations

from typing import Any

import oracle
import pytest
from banmen.games import SolveLimits
from banmen.games.registry import make_engine
from banmen.search.limits import Limit
from helpers import position_with, random_game

from banmen_connect_four import GAME, WIN, Board
from banmen_connect_four.kernels import evaluate_board, kernel_moves, search_moves

EMPTIES = 10  #: the brute force solves positions with at most this many empty cells


def _oracle_position(board: Board) -> oracle.Position:
    return oracle.from_moves(board.move_stack)


def _endgames(count: int) -> list[Board]:
    out: list[Board] = []
    seed = 0
    while len(out) < count:
        b = position_with(seed, EMPTIES)
        if b is not None:
            out.append(b)
        seed += 1
    return out


ENDGAMES = _endgames(40)


def test_the_endgames_are_varied() -> None:
    values = {oracle.value(_oracle_position(b)) for b in ENDGAMES}
    assert any(v > 0 for v in values) and any(v < 0 for v in values) and 0 in values


def _solve(board: Board, **limits: Any) -> dict[str, Any]:
    assert GAME.solver is not None
    return GAME.solver.solve(board, SolveLimits(**limits))


def test_the_solver_agrees_with_brute_force_negamax() -> None:
    for board in ENDGAMES:
        p = _oracle_position(board)
        rec = _solve(board)
        assert rec["status"] == "solved", board.moves()
        assert rec["value"] == oracle.value(p), board.moves()
        best = board.parse_move(rec["best_move"])
        assert -oracle.value(oracle.play(p, best)) == rec["value"], board.moves()
        # the line it gives is legal
        replay = board.copy()
        for name in rec["pv"]:
            replay.push_name(name)
        assert GAME.solver is not None
        assert GAME.solver.lines(rec)[0].startswith(f"value: {rec['value']:+d}")


def test_perfect_plays_and_scores_like_the_brute_force() -> None:
    engine = make_engine(GAME, "perfect")
    for board in ENDGAMES[:15]:
        p = _oracle_position(board)
        r = engine.think(board)
        assert r.exact and r.score == oracle.value(p), board.moves()
        assert r.move is not None
        assert -oracle.value(oracle.play(p, board.parse_move(r.move))) == r.score


def test_a_finished_game_is_solved_as_it_stands() -> None:
    board = Board.from_moves("1212121")
    rec = _solve(board)
    assert rec["status"] == "solved" and rec["best_move"] is None and rec["pv"] == []
    assert rec["value"] == -(WIN + 35) and rec["outcome"] == "red has won"


def test_a_limit_is_never_a_result() -> None:
    rec = _solve(Board(), nodes=20_000)
    assert rec["status"] == "unknown" and rec["stopped_by"] == "nodes"
    assert rec["value"] is None and rec["best_move"] is None and rec["pv"] == []
    assert rec["best_so_far"]["move"] is not None
    assert GAME.solver is not None and GAME.solver.lines(rec)[0].startswith("unknown")
    assert "nodes" in GAME.solver.takes


def test_bad_solver_limits_are_one_line_value_errors() -> None:
    for limits in ({"nodes": 0}, {"time": -1.0}, {"hash_mb": 0}):
        with pytest.raises(ValueError) as e:
            _solve(Board.from_moves("4453"), **limits)
        assert "\n" not in str(e.value)


def _positions(seeds: range) -> list[tuple[Board, oracle.Position]]:
    out = []
    for seed in seeds:
        for board, p in random_game(seed):
            if not board.is_game_over():
                out.append((board.copy(), p))
    return out


def test_depth_4_never_misses_a_win_in_one_nor_a_forced_block() -> None:
    engine = make_engine(GAME, "alphabeta:depth=4")
    wins = blocks = 0
    for board, p in _positions(range(60)):
        mine = oracle.immediate_wins(p)
        theirs = oracle.wins_for(p, 3 - oracle.to_move(p))
        if not mine and len(theirs) != 1:
            continue
        r = engine.think(board)
        assert r.move is not None
        col = board.parse_move(r.move)
        if mine:
            assert col in mine, (board.moves(), mine, col)
            assert r.score is not None and r.score >= WIN
            wins += 1
        else:
            assert col == theirs[0], (board.moves(), theirs, col)
            blocks += 1
    assert wins > 20 and blocks > 20


def test_a_proved_win_of_a_depth_limited_search_is_a_win() -> None:
    """Scores of 100 or more are never heuristic: where a depth-limited search reports
    one, the brute force finds the win too."""
    engine = make_engine(GAME, "alphabeta:depth=3")
    seen = 0
    for board in ENDGAMES:
        r = engine.think(board)
        assert r.score is not None
        if abs(r.score) >= WIN:
            assert r.score * oracle.value(_oracle_position(board)) > 0, board.moves()
            seen += 1
    assert seen > 5


def test_the_search_generator_keeps_to_the_legal_moves() -> None:
    for board, _ in _positions(range(20)):
        legal = kernel_moves(board)
        tried = search_moves(board)
        assert tried and set(tried) <= set(legal) and len(set(tried)) == len(tried)
        assert -WIN < evaluate_board(board) < WIN
    finished = [b for b, _ in random_game(3)][-1]
    assert finished.is_game_over() and search_moves(finished) == []


def test_the_analysis_values_every_move_exactly_near_the_end() -> None:
    assert GAME.analyse is not None
    for board in ENDGAMES[:6]:
        p = _oracle_position(board)
        a = GAME.analyse(board, Limit(), None, None)
        assert a.complete and a.stopped_by == "exact"
        assert {m.move for m in a.moves} == {board.move_name(c) for c in board.legal_moves}
        for row in a.moves:
            child = oracle.play(p, board.parse_move(row.move))
            assert row.value == -oracle.value(child), (board.moves(), row)


def test_every_limit_kind_gives_a_legal_move() -> None:
    board = Board.from_moves("4453")
    for spec in ("alphabeta:depth=5", "alphabeta:time=0.05", "alphabeta:nodes=5000",
                 "perfect:nodes=5000", "random:seed=3"):  # fmt: skip
        r = make_engine(GAME, spec).think(board)
        assert r.move is not None and board.parse_move(r.move) in board.legal_moves, spec
        if spec.startswith("perfect"):
            assert not r.exact  # (a node limit on the whole game: nothing proved)

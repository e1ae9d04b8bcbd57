"""Analysis: every legal move's value, labelled as what it is (banmen.analysis), and
``banmen analyse``."""

from __future__ import annotations

import json
import random
import threading
import time

from mattix_reference import exact_value, parse
from test_othello import Memo, _random_position
from typer.testing import CliRunner

from banmen.analysis import Analysis
from banmen.cli import app
from banmen.games.mattix import Board as MattixBoard
from banmen.games.othello import BLACK, PASS
from banmen.games.registry import get_game
from banmen.search.limits import Limit, StopFlag

MATTIX = get_game("mattix")
OTHELLO = get_game("othello")


def test_mattix_values_are_the_brute_force_values() -> None:
    """On small deals every takeable piece gets its exact final margin, checked against
    a brute-force negamax over the layout (tests/mattix_reference.py)."""
    assert MATTIX.analyse is not None
    for seed in range(4):
        board = MattixBoard.from_seed(seed, 4)
        board.push(board.legal_moves[0])  # a position with a score to carry
        a = MATTIX.analyse(board, Limit(time=60), None, None)
        assert a.complete and a.stopped_by == "exact"
        assert {r.move for r in a.moves} == {board.move_name(m) for m in board.legal_moves}
        for m in board.legal_moves:
            child = board.copy()
            child.push(m)
            expected = -(child.margin() + exact_value(parse(child.layout())))
            (row,) = [r for r in a.moves if r.move == board.move_name(m)]
            assert row.kind == "exact" and row.value == expected, (seed, row)
        values = [r.value for r in a.moves]
        assert values == sorted(values, reverse=True)  # best first
        assert a.best == a.moves[0].move and a.moves[0].value == max(values)


def test_othello_values_near_the_end_are_the_minimax_values() -> None:
    assert OTHELLO.analyse is not None
    rng = random.Random(5)
    memo = Memo(bits=20)
    for empties in (6, 8, 10):
        board = _random_position(rng, empties)
        if board.legal_moves == [PASS]:
            continue
        a = OTHELLO.analyse(board, Limit(time=60), None, None)
        assert a.complete and a.stopped_by == "exact", a.to_dict()
        for m in board.legal_moves:
            child = board.copy()
            child.push(m)
            p, o = (child.black, child.white) if child.turn == BLACK else (child.white, child.black)
            expected = -memo.value(p, o)
            (row,) = [r for r in a.moves if r.move == board.move_name(m)]
            assert row.kind == "exact" and row.value == expected, (board.to_string(), row)


def test_a_midgame_analysis_is_labelled_as_depth_limited_and_keeps_its_time() -> None:
    assert OTHELLO.analyse is not None
    board = OTHELLO.board_from_text("f5d6c3d3c4f4f6f3e6e7")  # 50 empties
    updates: list[list[tuple[str, str, int]]] = []

    def seen(a: Analysis) -> None:
        updates.append([(r.move, r.kind, r.depth) for r in a.moves])

    t0 = time.perf_counter()
    a = OTHELLO.analyse(board, Limit(time=1.0), seen, None)
    took = time.perf_counter() - t0
    assert a.stopped_by == "time" and not a.complete
    assert took < 1.0 + 2.0  # a wall-clock promise, with room for a loaded machine
    assert len(updates) > len(board.legal_moves)  # values came in as the search deepened
    assert {r.move for r in a.moves} == {board.move_name(m) for m in board.legal_moves}
    for r in a.moves:
        assert r.kind == "depth" and r.depth >= 2 and isinstance(r.value, float)
        assert r.pv[0] == r.move
    # deeper values replace shallower ones: some move was seen at two depths
    depths = {d for u in updates for (_, _, d) in u}
    assert len(depths) >= 2


def test_a_stop_ends_an_analysis_at_once_with_only_finished_values() -> None:
    assert OTHELLO.analyse is not None
    board = OTHELLO.board_from_text("f5d6c3d3c4f4f6f3e6e7")
    stop = StopFlag()
    threading.Timer(0.5, stop.set).start()
    t0 = time.perf_counter()
    a = OTHELLO.analyse(board, Limit(time=60), None, stop)
    assert time.perf_counter() - t0 < 0.5 + 2.0
    assert a.stopped_by == "stop" and stop.is_set()  # the caller's request is left set
    for r in a.moves:
        assert r.kind in ("depth", "open")
        assert (r.value is None) == (r.kind == "open")


def test_cli_analyse_json_has_one_object_per_legal_move() -> None:
    runner = CliRunner()
    board = MattixBoard.from_seed(2, 4)
    r = runner.invoke(app, ["analyse", "mattix", board.layout(), "--time", "30", "--json"])
    assert r.exit_code == 0, r.output
    d = json.loads(r.output)
    assert d["game"] == "mattix" and d["complete"] is True
    assert sorted(m["move"] for m in d["moves"]) == sorted(
        board.move_name(m) for m in board.legal_moves
    )
    assert all(m["kind"] == "exact" and isinstance(m["value"], int) for m in d["moves"])
    r = runner.invoke(app, ["analyse", "othello", "f5d6c3", "--time", "0.5"])
    assert r.exit_code == 0 and "depth" in r.output and "stopped by time" in r.output


def test_cli_analyse_bad_input_is_one_line() -> None:
    runner = CliRunner()
    for args, fragment in [
        (["analyse", "othello", "xyz"], "bad othello position"),
        (["analyse", "othello", "f5", "--time", "0"], "'--time': expected a number from 0.001"),
        (["analyse", "othello", "f5", "--depth", "0"], "'--depth': expected a whole number from 1"),
        (["analyse", "chess", "x"], "unknown game 'chess'"),
        (["analyse", "mattix", "1,2,3"], "bad mattix position"),
        # issue 32: Go's MCTS ignored --depth silently (and ran for the whole --time)
        (
            ["analyse", "go", "(;GM[1]SZ[9];B[ee])", "--depth", "3"],
            "Go's analysis takes no --depth",
        ),
    ]:
        r = runner.invoke(app, args)
        assert r.exit_code == 2, (args, r.output)
        lines = r.output.strip().splitlines()
        assert len(lines) == 1 and fragment in lines[0], (args, r.output)


def _tsume_rows() -> list[dict[str, str]]:
    from test_tsume import MATES

    return [r for r in MATES if int(r["mate_length"]) <= 7][:6]


def test_tsume_analysis_agrees_with_the_solver() -> None:
    """Each check of a mate problem: the shortest mate over the rows is the solver's
    answer (and its first move has it); every 'no mate' is backed by a defender reply
    the solver proves escapes."""
    import cshogi

    from banmen.games.shogi import GAME as SHOGI
    from banmen.games.shogi import Board as ShogiBoard
    from banmen.games.shogi.tsume import solve, warm_up

    assert SHOGI.analyse is not None
    assert len(_tsume_rows()) >= 4
    warm_up()  # (compiled or loaded now: the limits below count work, not the machine)
    budget = Limit(nodes=20_000_000)  # far more than these short problems need
    for row in _tsume_rows():
        sfen = row["sfen"]
        a = SHOGI.analyse(ShogiBoard(sfen), budget, None, None)
        assert a.complete and a.stopped_by == "exact", (row["name"], a.to_dict())
        answer = solve(sfen, budget)
        mates = {r.move: r.value for r in a.moves if r.kind == "mate"}
        assert min(mates.values()) == answer.length, (row["name"], mates)
        assert mates[answer.pv[0]] == answer.length
        assert a.moves[0].kind == "mate" and a.moves[0].value == answer.length
        for r in a.moves:
            if r.kind != "no_mate":
                continue
            b = cshogi.Board(sfen)
            b.push(b.move_from_usi(r.move))
            escapes = []
            for d in list(b.legal_moves):
                b.push(d)
                escapes.append(solve(b.sfen(), budget).status == "no_mate")
                b.pop()
            assert any(escapes), (row["name"], r.move)


def test_tsume_analysis_stopped_by_a_limit_leaves_checks_open() -> None:
    from banmen.games.shogi import GAME as SHOGI
    from banmen.games.shogi import Board as ShogiBoard

    assert SHOGI.analyse is not None
    sfen = "l8/1n7/np3B3/SR1+P5/k1N6/9/1Ps6/1N7/5+B3 b r4g2s3l15p 1"  # a long one
    a = SHOGI.analyse(ShogiBoard(sfen), Limit(nodes=200), None, None)
    assert not a.complete and a.stopped_by == "nodes"
    assert any(r.kind == "open" and r.value is None for r in a.moves)


def test_tsume_analysis_within_a_depth_proves_the_short_mates_only() -> None:
    """``Limit(depth=d)``: mates of at most d plies; a check with none stays open (no mate
    is proved only at any length). Depth 1 is the quick analysis a worker loads the solver
    with, so it ends even on a problem no solver finishes."""
    from banmen.games.shogi import GAME as SHOGI
    from banmen.games.shogi import Board as ShogiBoard

    assert SHOGI.analyse is not None
    three = "9/9/3pp4/+r2k1p3/2L1+p4/2+R6/B8/B8/9 b 4g4s4n3l14p 1"  # 7e7b+ mates in 3
    a = SHOGI.analyse(ShogiBoard(three), Limit(depth=1), None, None)
    assert a.stopped_by == "depth" and not a.complete
    assert len(a.moves) == 9 and all(r.kind == "open" for r in a.moves)
    a = SHOGI.analyse(ShogiBoard(three), Limit(depth=3), None, None)
    assert a.stopped_by == "depth" and not a.complete
    rows = {r.move: r for r in a.moves}
    assert (rows["7e7b+"].kind, rows["7e7b+"].value) == ("mate", 3)
    assert rows["7e7b+"].extra["shortest"] is True
    assert all(r.kind == "open" for m, r in rows.items() if m != "7e7b+")
    microcosmos = (
        "g1+P1k1+P+P+L/1p3P3/+R+p2pp1pl/1NNsg+p2+R/+b+nL+P1+p3/1P3ssP1/2P1+Ps2N/4+P1P1L/+B5G1g"
        " b - 1"
    )  # mate in 1525
    a = SHOGI.analyse(ShogiBoard(microcosmos), Limit(depth=1), None, None)
    assert a.stopped_by == "depth" and all(r.kind == "open" for r in a.moves)

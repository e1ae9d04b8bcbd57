"""Shogi's ``mate`` engine (:class:`banmen.games.shogi.engine.MateEngine`): the tsume solver
behind the engine contract. A proved mate is a move, a proved absence of mate is no move,
and a limit is never reported as either."""

from __future__ import annotations

import threading

from banmen.engine import Info, Result
from banmen.games.registry import make_engine
from banmen.games.shogi import Board
from banmen.games.shogi.engine import MateEngine
from banmen.search.limits import Limit, StopFlag

ONE = "k8/9/PK7/9/9/9/9/9/9 b 2r2b4g4s4n4l17p 1"
THREE = "9/9/3pp4/+r2k1p3/2L1+p4/2+R6/B8/B8/9 b 4g4s4n3l14p 1"
NO_MATE = "4k4/9/9/9/9/9/9/9/4K4 b P2r2b4g4s4n4l17p 1"
MICROCOSMOS = (
    "g1+P1k1+P+P+L/1p3P3/+R+p2pp1pl/1NNsg+p2+R/+b+nL+P1+p3/1P3ssP1/2P1+Ps2N/4+P1P1L/+B5G1g b - 1"
)


def test_a_mate_is_a_move_and_its_line() -> None:
    r = make_engine("shogi", "mate").think(Board(THREE))
    assert r.move == "7e7b+" and r.pv == ["7e7b+", "6d5d", "7f5f"]
    assert r.score == 3 and r.depth == 3 and r.exact and r.stopped_by == "exact"
    assert r.extra["status"] == "mate" and r.extra["shortest"] is True
    assert [s["kif"] for s in r.extra["steps"]] == ["▲７二香成(75)", "△５四玉(64)", "▲５六龍(76)"]
    assert Result.from_dict(r.to_dict()) == r


def test_the_position_after_the_moves_is_solved() -> None:
    board = Board(THREE)
    board.push_name("7e7b+")
    board.push_name("6d5d")
    r = MateEngine().think(board)
    assert r.move == "7f5f" and r.score == 1 and r.exact
    assert len(board.move_stack) == 2  # the board is left as it was


def test_no_mate_is_proved_and_says_so() -> None:
    r = MateEngine().think(Board(NO_MATE))
    assert r.move is None and r.exact and r.stopped_by == "exact"
    assert r.extra["status"] == "no_mate" and r.extra["steps"] == []


def test_a_limit_is_never_a_result() -> None:
    infos: list[Info] = []
    r = make_engine("shogi", "mate:time=0.5,hash=16").think(
        Board(MICROCOSMOS), on_info=infos.append
    )
    assert r.move is None and not r.exact and r.stopped_by == "time"
    assert r.extra["status"] == "unknown" and r.extra["reason"] == "timeout"
    assert infos and {"pn", "dn", "phase"} <= set(infos[-1].extra)
    r = MateEngine().think(Board(MICROCOSMOS), Limit(nodes=2000))
    assert r.stopped_by == "nodes" and r.extra["status"] == "unknown"
    stop = StopFlag()
    threading.Timer(0.3, stop.set).start()
    r = MateEngine().think(Board(MICROCOSMOS), stop=stop)
    assert r.move is None and r.stopped_by == "stop" and r.extra["reason"] == "stopped"


def test_the_spec_sets_the_table_and_the_default_limit() -> None:
    engine = make_engine("shogi", "mate:time=5,hash=16")
    assert isinstance(engine, MateEngine)
    assert engine.hash_mb == 16 and engine.limit == Limit(time=5)
    assert make_engine("shogi", "mate").limit == Limit()  # a solve: no bound by default

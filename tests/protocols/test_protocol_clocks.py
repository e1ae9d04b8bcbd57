"""Clocks over the protocols, both ways (issue 39): what banmen's clients tell another
program of the match's clock, and what banmen's front ends make of what they are told.
Every check is on the commands sent, the limits computed and the clocks' state; none on
a wall time."""

from __future__ import annotations

import io
import sys
from pathlib import Path
from typing import Any

import paths
import pytest

from banmen.clients.nboard import ggf_with_clocks
from banmen.clients.ugi import go_clock_words
from banmen.clock import Clock, TimeControl, parse_time_control
from banmen.engine import Result, moves_ahead
from banmen.games.go import Board
from banmen.games.go.gtp_client import GTPEngine, gtp_time_settings
from banmen.games.othello import BLACK as OTHELLO_BLACK
from banmen.games.othello import WHITE as OTHELLO_WHITE
from banmen.games.othello import Board as OthelloBoard
from banmen.games.registry import get_game, make_engine
from banmen.protocols.nboard import NBoardSession, ggf_clocks
from banmen.protocols.ugi import UGISession, go_limit
from banmen.search.limits import Limit

GTP_FAKE = paths.TESTS / "gtp_fake.py"


def clocks(text: str, **state: float) -> tuple[Clock, Clock]:
    tc = parse_time_control(text)
    mine, theirs = Clock.start(tc), Clock.start(tc)
    for k, v in state.items():
        setattr(mine, k, v)
    return mine, theirs


def gtp_log(tmp_path: Path, control: str, *flags: str, moves: int = 2,
            **state: float) -> list[str]:  # fmt: skip
    """The commands a recording GTP engine received over ``moves`` genmoves of black on a
    ``control`` clock (``state``: the mover's clock fields)."""
    log = tmp_path / f"log-{len(list(tmp_path.iterdir()))}.txt"
    engine = GTPEngine([sys.executable, str(GTP_FAKE), "--moves", "C3,D4,E5,F6",
                        "--log", str(log), *flags])  # fmt: skip
    try:
        b = Board(9)
        for _ in range(moves):
            mine, theirs = clocks(control, **state)
            r = engine.think(b, Limit().with_clocks(mine, theirs))
            assert r.move is not None
            b.push(b.parse_move(r.move))
            b.push(b.parse_move("pass"))
    finally:
        engine.close()
    return timing(log)


def timing(log: Path) -> list[str]:
    """The time commands and genmoves in a recording engine's log, without their ids."""
    lines = [" ".join(line.split()[1:]) for line in log.read_text().splitlines()]
    return [x for x in lines if x.split()[:1] in (["time_settings"], ["kgs-time_settings"],
                                                  ["time_left"], ["genmove"])]  # fmt: skip


def test_the_time_settings_of_each_control() -> None:
    assert gtp_time_settings(parse_time_control("byoyomi=600+5x30")) == [
        "kgs-time_settings byoyomi 600 30 5", "time_settings 600 30 1"]  # fmt: skip
    assert gtp_time_settings(parse_time_control("canadian=600+25/300")) == [
        "time_settings 600 300 25"]  # fmt: skip
    assert gtp_time_settings(parse_time_control("60+0.6")) == ["time_settings 60 0 0"]
    assert gtp_time_settings(parse_time_control("90")) == ["time_settings 90 0 0"]
    assert gtp_time_settings(parse_time_control("st=2.5")) == ["time_settings 0 2 1"]
    assert gtp_time_settings(parse_time_control("40/60")) == ["time_settings 0 60 40"]
    assert gtp_time_settings(parse_time_control("inf")) == ["time_settings 0 1 0"]


def test_a_gtp_player_is_told_the_match_clock(tmp_path: Path) -> None:
    # Japanese byo-yomi to an engine that knows kgs-time_settings: once, then time_left
    # every move (main time: stones 0)
    sent = gtp_log(tmp_path, "byoyomi=30+3x5", "--kgs-time")
    assert sent == ["kgs-time_settings byoyomi 30 5 3", "time_left b 30 0", "genmove b",
                    "time_left b 30 0", "genmove b"]  # fmt: skip
    # one that does not (it answers '?'): time_settings with a one-move period, and in
    # overtime one stone to play in it (the periods cannot be told)
    sent = gtp_log(tmp_path, "byoyomi=30+3x5", "--time", overtime=True, left=5.0,
                   periods_left=2)  # fmt: skip
    assert sent == ["kgs-time_settings byoyomi 30 5 3", "time_settings 30 5 1",
                    "time_left b 5 1", "genmove b", "time_left b 5 1", "genmove b"]  # fmt: skip
    # Canadian overtime: the stones left in the period
    sent = gtp_log(tmp_path, "canadian=0+10/60", "--time", left=33.9, moves_left=4)
    assert sent == ["time_settings 0 60 10", "time_left b 33 4", "genmove b",
                    "time_left b 33 4", "genmove b"]  # fmt: skip
    # Fischer: the main time; the increments earned show in time_left
    sent = gtp_log(tmp_path, "60+2", "--time", left=71.5)
    assert sent == ["time_settings 60 0 0", "time_left b 71 0", "genmove b",
                    "time_left b 71 0", "genmove b"]  # fmt: skip
    # an engine that knows no time commands is asked once and then left alone
    sent = gtp_log(tmp_path, "60+2", moves=3)
    assert sent == ["time_settings 60 0 0", "genmove b", "genmove b", "genmove b"]


def test_without_a_clock_a_gtp_player_gets_the_time_a_move(tmp_path: Path) -> None:
    log = tmp_path / "log.txt"
    engine = GTPEngine([sys.executable, str(GTP_FAKE), "--moves", "C3", "--log", str(log),
                        "--time"])  # fmt: skip
    try:
        assert engine.think(Board(9), Limit(time=2.5)).move == "C3"
    finally:
        engine.close()
    assert timing(log) == ["time_settings 0 3 1", "time_left b 3 1", "genmove b"]


@pytest.mark.parametrize(
    ("control", "left", "stones", "state"),
    [
        ("60+1", 42.0, 0, (42.0, 0, 0, False)),
        ("byoyomi=600+5x30", 100.0, 0, (100.0, 0, 5, False)),
        ("byoyomi=600+5x30", 12.0, 3, (12.0, 0, 3, True)),
        ("byoyomi=600+5x30", 0.0, 0, (30.0, 0, 5, True)),
        ("canadian=600+25/300", 200.0, 7, (200.0, 7, 0, True)),
        ("canadian=600+25/300", 250.0, 0, (250.0, 0, 0, False)),
        ("canadian=600+25/300", -3.0, 4, (0.0, 4, 0, True)),
    ],
)
def test_a_reported_clock_reads_back(control: str, left: float, stones: int,
                                     state: tuple[float, int, int, bool]) -> None:  # fmt: skip
    """``Clock.reported`` (GTP's time_left) sets the state; ``report`` gives it back."""
    c = Clock.reported(parse_time_control(control), left, stones)
    assert (c.left, c.moves_left, c.periods_left, c.overtime) == state
    again = Clock.reported(c.control, *c.report())
    assert (again.left, again.moves_left, again.periods_left, again.overtime) == state


# --------------------------------------------------------------------------- UGI


UGI_FAKE = paths.TESTS / "ugi_fake.py"


def fischer(seconds: float, inc: float = 0.0) -> Clock:
    return Clock.start(TimeControl("fischer" if inc else "sudden", main=seconds, increment=inc))


def test_go_clock_words_put_each_clock_on_its_side() -> None:
    mine, theirs = fischer(60, 0.6), fischer(30.5)
    assert go_clock_words(mine, theirs, True) == "go p1time 60000 p2time 30500 p1inc 600 p2inc 0"
    assert go_clock_words(mine, theirs, False) == "go p1time 30500 p2time 60000 p1inc 0 p2inc 600"
    per = Clock.start(parse_time_control("40/60+1"))
    per.spend(10.0)  # 51 s left (the increment earned), 39 moves to go
    assert go_clock_words(per, None, False) == (
        "go p1time 60000 p2time 51000 p1inc 1000 p2inc 1000 movestogo 39"
    )
    byo = Clock.reported(parse_time_control("byoyomi=0+3x5"), 4.5, 2)  # in overtime
    assert go_clock_words(byo, None, True).endswith("p1inc 0 p2inc 0 movestogo 1")
    assert go_clock_words(byo, None, True).startswith("go p1time 4500 p2time 5000")
    fixed = Clock.start(parse_time_control("st=0.25"))
    assert go_clock_words(fixed, fixed, True) == "go movetime 250"


def test_a_ugi_player_is_sent_the_clocks(tmp_path: Path) -> None:
    game = get_game("mattix")
    log = tmp_path / "ugi.log"
    engine = make_engine(game, f"ugi:{sys.executable} {UGI_FAKE} mattix log {log}")
    try:
        board = game.start_position(None)
        p1 = board.turn == 1
        r = engine.think(board, Limit(depth=3).with_clocks(fischer(9.5, 0.1), fischer(7)))
        assert r.move is not None
        board.push_name(r.move)
        r = engine.think(board, Limit().with_clocks(fischer(7), fischer(9.6, 0.1)))
    finally:
        engine.close()
    goes = [x.strip() for x in log.read_text().splitlines() if x.startswith("go")]
    first = ("go p1time 9500 p2time 7000 p1inc 100 p2inc 0" if p1
             else "go p1time 7000 p2time 9500 p1inc 0 p2inc 100")  # fmt: skip
    second = ("go p1time 9600 p2time 7000 p1inc 100 p2inc 0" if p1
              else "go p1time 7000 p2time 9600 p1inc 0 p2inc 100")  # fmt: skip
    assert goes == [first + " depth 3", second]


def test_banmen_ugi_reads_the_clocks() -> None:
    both = ["p1time", "60000", "p2time", "30000", "p1inc", "600", "p2inc", "0"]
    for p1 in (True, False):
        limit = go_limit(both, p1, 20, 60.0)
        mine, theirs = (fischer(60, 0.6), fischer(30)) if p1 else (fischer(30), fischer(60, 0.6))
        want = Limit(time=60.0).with_clocks(mine, theirs).on_clock(20)
        assert (limit.time, limit.target) == pytest.approx((want.time, want.target))
        assert limit.clock is not None and limit.opponent is not None
        assert limit.clock.control == mine.control and limit.clock.left == mine.left
        assert limit.opponent.left == theirs.left
    # moves per period: the mover's moves to go; the cap bounds the hard time
    limit = go_limit(["p1time", "20000", "p2time", "20000", "movestogo", "4"], True, 30, 1.5)
    assert limit.clock is not None and limit.clock.control.kind == "moves"
    assert limit.clock.moves_left == 4 and limit.time == 1.5
    want = Limit().with_clocks(limit.clock).on_clock(30)  # 5 s a move, not 20/30
    assert limit.target == pytest.approx(min(1.5, want.target or 0))
    assert go_limit(["movetime", "250", "depth", "4"], True) == Limit(time=0.25, depth=4)
    assert go_limit(["nodes", "1000"], False) == Limit(nodes=1000)
    assert go_limit(["depth", "7", "p2time", "5000"], True) == Limit(depth=7)  # not my clock
    assert go_limit(["infinite"], True).unbounded
    for bad in (["p1time"], ["p1time", "-1"], ["p1time", "soon"], ["bogus", "1"],
                ["movestogo", "x"], ["p1time", "1e400"]):  # fmt: skip
        with pytest.raises(ValueError):
            go_limit(bad, True)


class Recorder:
    """A player that records the limits it is given and plays the first legal move."""

    name = "recorder"

    def __init__(self) -> None:
        self.limits: list[Limit | None] = []

    def warm_up(self) -> None:
        pass

    def new_game(self) -> None:
        pass

    def think(self, board: Any, limit: Limit | None = None, *_: Any) -> Result:
        self.limits.append(limit)
        return Result(board.move_name(board.legal_moves[0]))


def test_a_ugi_session_searches_on_the_clock_it_is_told() -> None:
    game = get_game("othello")
    out = io.StringIO()
    engine = Recorder()
    s = UGISession(out, game, engine, max_move_time=30)  # type: ignore[arg-type]
    s.handle("position startpos")
    s.handle("go p1time 10000 p2time 8000 p1inc 100 p2inc 100")
    s.finish()
    limit = engine.limits[-1]
    want = go_limit(["p1time", "10000", "p2time", "8000", "p1inc", "100", "p2inc", "100"],
                    s.board.turn == 1, moves_ahead(s.board), 30)  # fmt: skip
    assert limit is not None and limit.clock is not None
    assert (limit.time, limit.target) == (want.time, want.target)
    assert "bestmove" in out.getvalue()
    before, count = out.getvalue(), len(engine.limits)
    for bad in ("go p1time", "go p1time -5 p2time 3", "go wtime 100", "go movestogo many"):
        s.handle(bad)
        s.finish()
    lines = out.getvalue()[len(before) :].splitlines()
    assert len(lines) == 4 and all(x.startswith("info string error: go") for x in lines)
    assert len(engine.limits) == count  # nothing was searched


# --------------------------------------------------------------------------- NBoard


def othello_game(*moves: str) -> OthelloBoard:
    b = OthelloBoard()
    for m in moves:
        b.push_name(m)
    return b


def test_ggf_clocks_count_as_nboard_does() -> None:
    b = othello_game("f5", "d6", "c3")
    ggf = b.to_ggf({"TI": "5:00/2"}).replace("B[F5]", "B[F5/0.5/10.5]")
    ggf = ggf.replace("W[D6]", "W[D6//3]").replace("B[C3]", "B[C3/1/0]")
    clocks = ggf_clocks(ggf)
    assert clocks[OTHELLO_BLACK].left == pytest.approx(300 - 10.5 + 2 + 0 + 2)
    assert clocks[OTHELLO_WHITE].left == pytest.approx(300 - 3 + 2)
    assert clocks[OTHELLO_BLACK].control == parse_time_control("300+2")
    odds = ggf_clocks(b.to_ggf({"TB": "1:00:00", "TW": "90"}))
    assert odds[OTHELLO_BLACK].left == 3600 and odds[OTHELLO_WHITE].left == 90
    assert ggf_clocks(b.to_ggf()) == {} and ggf_clocks(b.to_ggf({"TI": "0"})) == {}
    for bad in ("x", "5:-1", "1:2:3:4", "5:00/y"):
        with pytest.raises(ValueError):
            ggf_clocks(b.to_ggf({"TI": bad}))


def test_the_nboard_client_tells_the_clocks_in_the_ggf() -> None:
    """What the ``nboard:`` client writes, NBoard's way of counting reads back."""
    b = othello_game("f5", "d6", "c3", "d3")  # black to move
    mine, theirs = fischer(100.7, 2), fischer(55)
    text = ggf_with_clocks(b, Limit().with_clocks(mine, theirs))
    assert "TB[100/2]TW[55]" in text and "B[F5//2]W[D6//0]" in text
    clocks = ggf_clocks(text)
    assert (clocks[OTHELLO_BLACK].left, clocks[OTHELLO_WHITE].left) == (100, 55)
    b.push_name("c4")  # white to move: its clock is the limit's own
    text = ggf_with_clocks(b, Limit().with_clocks(fischer(30), fischer(20)))
    assert "TB[20]TW[30]" in text and "//" not in text
    assert ggf_with_clocks(b, Limit(time=1.0)) == b.to_ggf()  # no clock: the game alone


def test_an_nboard_session_searches_on_the_ggf_clock() -> None:
    out = io.StringIO()
    engine = Recorder()
    s = NBoardSession(out, max_move_time=20, engine=engine)  # type: ignore[arg-type]
    s.handle("set depth 12")
    s.handle(f"set game {othello_game('f5').to_ggf({'TI': '1:00/1'})}")
    s.handle("go")
    want = Limit(time=20, depth=12).with_clocks(fischer(60, 1), fischer(60, 1))
    want = want.on_clock(s.board.moves_ahead())
    limit = engine.limits[-1]
    assert limit is not None and limit.depth == 12 and limit.clock is not None
    assert (limit.time, limit.target) == pytest.approx((want.time, want.target))
    s.handle("move d6/0.5/12.25")  # white's move and its time
    assert s.clocks[OTHELLO_WHITE].left == pytest.approx(60 - 12.25 + 1)
    before = (str(s.board), {c: k.left for c, k in s.clocks.items()})
    for bad in ("move c3/0/soon", "move c3/0/-4", f"set game {s.board.to_ggf({'TI': '1:x'})}"):
        s.handle(bad)
    assert (str(s.board), {c: k.left for c, k in s.clocks.items()}) == before
    errors = [x for x in out.getvalue().splitlines() if x.startswith("status error")]
    assert len(errors) == 3
    s.handle(f"set game {othello_game().to_ggf()}")  # no clock: the depth alone
    s.handle("go")
    assert engine.limits[-1] == Limit(depth=12) and s.clocks == {}

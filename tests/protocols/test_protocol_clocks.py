"""Clocks over the protocols, both ways (issue 39): what banmen's clients tell another
program of the match's clock, and what banmen's front ends make of what they are told.
Every check is on the commands sent, the limits computed and the clocks' state; none on
a wall time."""

from __future__ import annotations

import sys
from pathlib import Path

import paths
import pytest

from banmen.clock import Clock, parse_time_control
from banmen.games.go import Board
from banmen.games.go.gtp_client import GTPEngine, gtp_time_settings
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
    # one that does not (it answers '?'): time_settings with a one-move period; in
    # overtime, the periods left
    sent = gtp_log(tmp_path, "byoyomi=30+3x5", "--time", overtime=True, left=5.0,
                   periods_left=2)  # fmt: skip
    assert sent == ["kgs-time_settings byoyomi 30 5 3", "time_settings 30 5 1",
                    "time_left b 5 2", "genmove b", "time_left b 5 2", "genmove b"]  # fmt: skip
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

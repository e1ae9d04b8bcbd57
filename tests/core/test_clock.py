"""banmen.clock (issue 39): a time control is parsed from one string and written back the
same way, a malformed one is one line saying what was expected, a clock charges moves by
the rules of its kind, and a move that keeps to its budget's maximum never drops the flag."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from banmen.clock import Clock, TimeControl, parse_time_control


@pytest.mark.parametrize(
    ("text", "kind", "written"),
    [
        ("inf", "none", "inf"),
        ("60", "sudden", "60"),
        ("1:30", "sudden", "90"),
        ("60+0.6", "fischer", "60+0.6"),
        ("40/60+0.6", "moves", "40/60+0.6"),
        ("40/1:00", "moves", "40/60"),
        ("st=1", "fixed", "st=1"),
        ("st=0.25", "fixed", "st=0.25"),
        ("byoyomi=600+5x30", "byoyomi", "byoyomi=600+5x30"),
        ("canadian=600+25/300", "canadian", "canadian=600+25/300"),
        ("  Byoyomi=0+1x3 ", "byoyomi", "byoyomi=0+1x3"),
    ],
)
def test_a_time_control_is_read_and_written_back(text: str, kind: str, written: str) -> None:
    tc = parse_time_control(text)
    assert tc.kind == kind and str(tc) == written
    assert parse_time_control(str(tc)) == tc
    assert TimeControl.from_dict(tc.to_dict()) == tc


@pytest.mark.parametrize(
    "text",
    ["", "0", "-5", "abc", "40/", "/60", "0/60", "st=0", "st=", "60+", "60+x", "byoyomi=600",
     "byoyomi=600+0x30", "byoyomi=600+5x0", "canadian=600+0/300", "1:2:3", "nan", "inf+1"],
)  # fmt: skip
def test_a_malformed_time_control_is_one_line(text: str) -> None:
    with pytest.raises(ValueError) as e:
        parse_time_control(text)
    msg = str(e.value)
    assert "\n" not in msg and "expected" in msg and "40/60+0.6" in msg


def test_each_kind_charges_a_move_by_its_rules() -> None:
    c = Clock.start(parse_time_control("10"))
    assert c.spend(4) and c.left == 6
    assert not c.spend(6.5) and c.flagged and not c.spend(0)  # the flag stays down

    c = Clock.start(parse_time_control("10+1"))
    assert c.spend(4) and c.left == 7  # the increment after the move
    assert not c.spend(7.01)

    c = Clock.start(parse_time_control("2/10"))
    assert c.spend(3) and c.moves_left == 1 and c.left == 7
    assert c.spend(5) and c.moves_left == 2 and c.left == 12  # the next period's 10 s

    c = Clock.start(parse_time_control("st=1"))
    assert c.spend(1) and c.spend(0.2) and not c.spend(1.01)

    c = Clock.start(parse_time_control("byoyomi=10+2x5"))
    assert c.spend(8) and not c.overtime and c.left == 2
    assert c.spend(6) and c.overtime and c.periods_left == 2  # 2 s of main, 4 of a period
    assert c.spend(5) and c.periods_left == 2  # exactly a period: kept
    assert c.spend(7) and c.periods_left == 1  # one period lost
    assert not c.spend(5.5) and c.flagged

    c = Clock.start(parse_time_control("canadian=0+2/10"))
    assert c.overtime and c.moves_left == 2 and c.left == 10
    assert c.spend(6) and c.moves_left == 1 and c.left == 4
    assert c.spend(3) and c.moves_left == 2 and c.left == 10  # a new period
    assert not c.spend(10.5)

    c = Clock.start(parse_time_control("inf"))
    assert c.spend(1e9) and c.budget().maximum == float("inf")


def test_a_clock_crosses_a_pipe_as_data() -> None:
    c = Clock.start(parse_time_control("byoyomi=10+2x5"))
    c.spend(12)
    d = c.to_dict()
    assert Clock.from_dict(d) == c
    with pytest.raises(ValueError, match="not a clock"):
        Clock.from_dict({"control": "60"})


CONTROLS = st.one_of(
    st.builds(lambda s: f"{s}", st.integers(1, 600)),
    st.builds(lambda s, i: f"{s}+{i}", st.integers(1, 600), st.sampled_from([0.1, 0.5, 2])),
    st.builds(
        lambda m, s, i: f"{m}/{s}+{i}",
        st.integers(1, 40),
        st.integers(1, 300),
        st.sampled_from([0, 0.1, 1]),
    ),  # fmt: skip
    st.builds(lambda s: f"st={s}", st.sampled_from([0.1, 1, 5])),
    st.builds(
        lambda m, n, p: f"byoyomi={m}+{n}x{p}",
        st.integers(0, 300),
        st.integers(1, 5),
        st.sampled_from([0.5, 1, 30]),
    ),  # fmt: skip
    st.builds(
        lambda m, n, p: f"canadian={m}+{n}/{p}",
        st.integers(0, 300),
        st.integers(1, 25),
        st.sampled_from([1, 30, 300]),
    ),  # fmt: skip
)


@settings(max_examples=300, deadline=None)
@given(text=CONTROLS, shares=st.lists(st.floats(0.0, 1.0), min_size=1, max_size=150),
       ahead=st.integers(1, 60))  # fmt: skip
def test_a_move_within_its_budget_never_drops_the_flag(text: str, shares: list[float],
                                                       ahead: int) -> None:  # fmt: skip
    """Whatever share of its hard maximum each move takes, the flag stays up: the budget
    is the engine's guarantee against losing on time."""
    tc = parse_time_control(text)
    assert parse_time_control(str(tc)) == tc
    c = Clock.start(tc)
    for share in shares:
        b = c.budget(ahead, safety=0.0)
        assert 0.0 <= b.minimum <= b.recommended <= b.maximum
        assert c.spend(share * b.maximum), (str(tc), c, b)


def test_a_limit_with_a_target_crosses_a_pipe_whole() -> None:
    """``Limit.to_dict`` used to drop ``target``: a soft target could not reach a worker.
    A limit without one is written as it always was."""
    from banmen.search.limits import Limit

    soft = Limit(time=2.0, target=0.5)
    assert Limit.from_dict(soft.to_dict()) == soft and Limit.from_dict(soft.to_dict()).target == 0.5
    assert Limit(time=1.0, depth=3).to_dict() == {"time": 1.0, "depth": 3, "nodes": None}


@settings(max_examples=200, deadline=None)
@given(text=CONTROLS, shares=st.lists(st.floats(0.0, 1.5), min_size=1, max_size=80))
def test_until_flag_is_exactly_where_the_flag_falls(text: str, shares: list[float]) -> None:
    """A move of ``until_flag()`` seconds keeps the flag up; a little more drops it —
    and within the expiry margin it does not (charged as if it had just made it)."""
    c = Clock.start(parse_time_control(text))
    for share in shares:
        edge = c.until_flag()
        over, within = c.copy(), c.copy()
        assert not over.spend(edge + 0.01)
        assert within.spend(edge + 0.2, margin=0.25)
        assert c.spend(min(edge, share * edge))


def test_a_limit_on_a_clock_takes_its_time_from_the_budget() -> None:
    """``Limit.on_clock``: the hard maximum and the recommended time of the mover's clock,
    within the limit's own time; the clocks cross the pipe; equality ignores them."""
    from banmen.search.limits import Limit

    clock = Clock.start(parse_time_control("60+1"))
    b = clock.budget(20)
    lim = Limit(depth=8).with_clocks(clock, Clock.start(parse_time_control("30")))
    on = lim.on_clock(20)
    assert on.time == pytest.approx(b.maximum) and on.target == pytest.approx(b.recommended)
    assert on.depth == 8 and on.clock is not None and on.clock.left == 60
    capped = Limit(time=0.5).with_clocks(clock).on_clock(20)
    assert capped.time == 0.5 and capped.target is not None and capped.target <= 0.5
    back = Limit.from_dict(on.to_dict())
    assert back == on and back.clock == on.clock and back.opponent == on.opponent
    assert back.opponent is not None and back.opponent.left == 30
    assert Limit().with_clocks(Clock.start(TimeControl())).on_clock(5) == Limit()
    assert not Limit().with_clocks(Clock.start(TimeControl())).timed
    assert Limit().with_clocks(clock).timed and not Limit().with_clocks(clock).unbounded


def test_a_spent_clock_still_gives_a_move_some_time() -> None:
    """A clock at zero (a move made it within the margin) gives a positive time, so a
    limit can be built; a flagged one is ``MoveTime(0, 0, 0)``."""
    from banmen.search.limits import Limit

    c = Clock.start(parse_time_control("1"))
    assert c.spend(1.1, margin=0.25) and c.left == 0
    on = Limit().with_clocks(c).on_clock()
    assert on.time is not None and 0 < on.time <= 0.01
    assert not c.spend(0.5)
    assert c.budget().maximum == 0

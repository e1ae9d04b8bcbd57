"""Time controls and game clocks (issue 39): one :class:`TimeControl`, parsed from the one
string a user types and written back the same way, and the :class:`Clock` that one side
runs on it.

The strings (cutechess-cli's where it has one, KGS's kinds of overtime otherwise):

``inf``
    no clock.
``60``, ``1:30``
    sudden death: the whole game in 60 s (1 min 30 s).
``60+0.6``
    Fischer: 0.6 s added after every move.
``40/60+0.6``
    moves per period: 60 s for every 40 moves (the time left carries over), 0.6 s a move.
``st=1``
    a fixed time per move: 1 s each, nothing saved.
``byoyomi=600+5x30``
    Japanese byo-yomi (GTP's ``kgs-time_settings byoyomi 600 30 5``): 600 s of main
    time, then five periods of 30 s; a move inside a period keeps it, a period used up is
    lost, and the flag falls when the last one is.
``canadian=600+25/300``
    Canadian overtime (``kgs-time_settings canadian 600 300 25``): 600 s of main time,
    then 25 moves in every 300 s.

A malformed string is a :class:`ValueError` of one line saying what was expected.

A :class:`Clock` holds one side's state — main time left, the moves to go in the period,
the overtime periods (or moves) left — spends a move's time (:meth:`Clock.spend`: ``False``
when the flag fell) and says, KataGo-style, how long the next move may take
(:meth:`Clock.budget`: a :class:`MoveTime` with a minimum, a recommended and a hard
maximum). A leaf of the ground floor: plain numbers, no import of banmen.
"""

from __future__ import annotations

import math
import re
from dataclasses import asdict, dataclass, replace
from typing import Any

__all__ = ["TimeControl", "Clock", "MoveTime", "parse_time_control", "EXPECTED",
           "EXPIRY_MARGIN", "DEFAULT_MOVES_AHEAD"]  # fmt: skip

#: seconds a move may overrun its clock before the flag falls (cutechess's expiry
#: margin): the referee measures a move from outside the engine (a worker's pipe, a
#: process waking up on a loaded machine); the clock is charged the whole time, and a
#: move within the margin leaves it at zero
EXPIRY_MARGIN = 0.25
#: moves of its own a side is expected still to play when its game says nothing
DEFAULT_MOVES_AHEAD = 30

#: what a time control looks like (the one-line error's second half)
EXPECTED = ("expected inf, SECONDS (sudden death: 60 or 1:30), SECONDS+INC (Fischer: 60+0.6), "
            "MOVES/SECONDS[+INC] (40/60+0.6), st=SECONDS (a fixed time a move), "
            "byoyomi=MAIN+PERIODSxSECONDS (600+5x30) or "
            "canadian=MAIN+MOVES/SECONDS (600+25/300)")  # fmt: skip

_KINDS = ("none", "sudden", "fischer", "moves", "fixed", "byoyomi", "canadian")


@dataclass(frozen=True)
class TimeControl:
    """A time control (module docstring); build one with :func:`parse_time_control`."""

    kind: str = "none"
    #: main time, seconds (a period's time for ``moves``)
    main: float = 0.0
    #: seconds added after each move (``fischer``, ``moves``)
    increment: float = 0.0
    #: moves a period (``moves``), moves an overtime period (``canadian``)
    moves: int = 0
    #: seconds a move (``fixed``), an overtime period's seconds (``byoyomi``, ``canadian``)
    period: float = 0.0
    #: byo-yomi periods
    periods: int = 0

    def __post_init__(self) -> None:
        if self.kind not in _KINDS:
            raise ValueError(f"unknown time control kind {self.kind!r}: expected one of "
                             f"{', '.join(_KINDS)}")  # fmt: skip
        for name in ("main", "increment", "period"):
            v = getattr(self, name)
            if not (math.isfinite(v) and v >= 0):
                raise ValueError(f"time control {name} {v!r}: expected a finite number of "
                                 "seconds, at least 0")  # fmt: skip

    @property
    def unlimited(self) -> bool:
        return self.kind == "none"

    def __str__(self) -> str:
        k = self.kind
        if k == "none":
            return "inf"
        if k == "fixed":
            return f"st={_num(self.period)}"
        if k == "byoyomi":
            return f"byoyomi={_num(self.main)}+{self.periods}x{_num(self.period)}"
        if k == "canadian":
            return f"canadian={_num(self.main)}+{self.moves}/{_num(self.period)}"
        text = _num(self.main)
        if k == "moves":
            text = f"{self.moves}/{text}"
        if self.increment:
            text += f"+{_num(self.increment)}"
        return text

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> TimeControl:
        """The control of :meth:`to_dict`'s dict (checked: one :class:`ValueError` line)."""
        known = {f: d[f] for f in cls.__dataclass_fields__ if f in d}
        try:
            return cls(**known)
        except TypeError as e:
            raise ValueError(f"not a time control: {e}") from None


def _num(x: float) -> str:
    """A number of seconds as a user writes it: ``60``, ``0.6``."""
    return f"{x:g}" if x != int(x) else str(int(x))


_SECONDS = r"(\d+(?:\.\d*)?|\.\d+|\d+:\d{1,2}(?:\.\d*)?)"


def _seconds(text: str) -> float:
    if ":" in text:
        minutes, seconds = text.split(":", 1)
        return int(minutes) * 60 + float(seconds)
    return float(text)


def parse_time_control(text: str) -> TimeControl:
    """The :class:`TimeControl` a string names (module docstring); ``str()`` writes it
    back. One :class:`ValueError` line for anything else."""
    t = text.strip().lower()
    try:
        if t in ("inf", "none", "infinite"):
            return TimeControl()
        m = re.fullmatch(r"st=" + _SECONDS, t)
        if m:
            per = _seconds(m.group(1))
            if per <= 0:
                raise ValueError
            return TimeControl("fixed", period=per)
        m = re.fullmatch(r"byoyomi=" + _SECONDS + r"\+(\d+)x" + _SECONDS, t)
        if m:
            main, periods, period = _seconds(m.group(1)), int(m.group(2)), _seconds(m.group(3))
            if periods < 1 or period <= 0:
                raise ValueError
            return TimeControl("byoyomi", main=main, period=period, periods=periods)
        m = re.fullmatch(r"canadian=" + _SECONDS + r"\+(\d+)/" + _SECONDS, t)
        if m:
            main, moves, period = _seconds(m.group(1)), int(m.group(2)), _seconds(m.group(3))
            if moves < 1 or period <= 0:
                raise ValueError
            return TimeControl("canadian", main=main, moves=moves, period=period)
        m = re.fullmatch(r"(?:(\d+)/)?" + _SECONDS + r"(?:\+" + _SECONDS + r")?", t)
        if m:
            moves = int(m.group(1)) if m.group(1) else 0
            main = _seconds(m.group(2))
            inc = _seconds(m.group(3)) if m.group(3) else 0.0
            if main <= 0 or (m.group(1) and moves < 1):
                raise ValueError
            kind = "moves" if moves else "fischer" if inc else "sudden"
            return TimeControl(kind, main=main, increment=inc, moves=moves)
    except ValueError:
        pass
    raise ValueError(f"time control {text.strip()[:60]!r}: {EXPECTED}")


@dataclass(frozen=True)
class MoveTime:
    """How long one move may take, seconds: at least ``minimum`` is worth spending,
    ``recommended`` is the aim, and past ``maximum`` the flag may fall (KataGo's three
    times)."""

    minimum: float
    recommended: float
    maximum: float


@dataclass
class Clock:
    """One side's clock on a :class:`TimeControl` (module docstring)."""

    control: TimeControl
    #: seconds left: the main time, or the current overtime period's
    left: float = 0.0
    #: moves to go in this period (``moves``; ``canadian`` once in overtime)
    moves_left: int = 0
    #: byo-yomi periods left
    periods_left: int = 0
    #: in overtime (``byoyomi``, ``canadian``: the main time is spent)
    overtime: bool = False
    #: the flag fell
    flagged: bool = False

    @classmethod
    def start(cls, control: TimeControl) -> Clock:
        """A clock at the start of a game."""
        c = control
        clock = cls(c, left=c.main, moves_left=c.moves if c.kind == "moves" else 0,
                    periods_left=c.periods)  # fmt: skip
        if c.kind in ("byoyomi", "canadian") and c.main == 0:
            clock._enter_overtime()
        return clock

    @classmethod
    def reported(cls, control: TimeControl, left: float, stones: int = 0) -> Clock:
        """The clock a controller reports the way GTP's ``time_left SECONDS STONES``
        does: ``stones`` 0 is main time (``left`` of it; byo-yomi's periods all still
        to come), else overtime — Canadian: ``stones`` moves to make in ``left``
        seconds; byo-yomi: ``stones`` periods, ``left`` seconds of the current one.
        No main time left (``0 0``) in byo-yomi or Canadian is the start of overtime.
        ``fixed`` and an unlimited control keep their only state; ``moves`` keeps its
        moves to go at a period's. Negative seconds count as 0.
        :meth:`report` gives the two numbers back."""
        c = control
        left = max(0.0, float(left))
        clock = cls.start(c)
        if c.kind in ("none", "fixed"):
            return clock
        if c.kind not in ("byoyomi", "canadian"):
            clock.left = left
            return clock
        if stones <= 0 and left > 0:
            clock.overtime, clock.left, clock.periods_left = False, left, c.periods
            clock.moves_left = 0
            return clock
        clock._enter_overtime()
        if stones > 0:
            clock.left = left
            if c.kind == "byoyomi":
                clock.periods_left = stones
            else:
                clock.moves_left = stones
        return clock

    def report(self) -> tuple[float, int]:
        """The clock as GTP's ``time_left`` tells it: seconds left and, in overtime,
        the Canadian moves to make or the byo-yomi periods left (0 in main time);
        :meth:`reported` reads them back. A fixed time a move is one move in its
        period; an unlimited clock has nothing to tell (``inf``, 0)."""
        c = self.control
        if c.kind == "none":
            return math.inf, 0
        if self.flagged:
            return 0.0, 0
        if c.kind == "fixed":
            return c.period, 1
        if c.kind in ("byoyomi", "canadian") and self.overtime:
            return self.left, self.periods_left if c.kind == "byoyomi" else self.moves_left
        return self.left, 0

    def _enter_overtime(self) -> None:
        self.overtime = True
        self.left = self.control.period
        if self.control.kind == "canadian":
            self.moves_left = self.control.moves

    def until_flag(self) -> float:
        """The longest the next move may take before the flag falls (infinite with no
        clock): the main time left and, in byo-yomi, the periods after it."""
        c = self.control
        if c.kind == "none":
            return math.inf
        if self.flagged:
            return 0.0
        if c.kind == "fixed":
            return c.period
        if c.kind == "byoyomi":
            periods = self.periods_left if self.overtime else c.periods
            return (0.0 if self.overtime else self.left) + periods * c.period
        if c.kind == "canadian" and not self.overtime:
            return self.left + c.period
        return self.left

    def spend(self, seconds: float, margin: float = 0.0) -> bool:
        """Charge one move of ``seconds``; ``False`` (and :attr:`flagged`) if the flag
        fell on it. A move that overran by no more than ``margin`` seconds (the
        referee's expiry margin) is charged as if it had just made it. A clock whose
        flag fell stays so."""
        if self.flagged:
            return False
        c = self.control
        t = max(0.0, float(seconds))
        if margin > 0 and c.kind != "none":
            t = min(t, max(self.until_flag(), t - margin))
        if c.kind == "none":
            return True
        if c.kind == "fixed":
            self.flagged = t > c.period
            return not self.flagged
        if c.kind in ("sudden", "fischer", "moves"):
            self.left -= t
            if self.left < 0:
                self.flagged = True
                return False
            self.left += c.increment
            if c.kind == "moves":
                self.moves_left -= 1
                if self.moves_left == 0:
                    self.left += c.main
                    self.moves_left = c.moves
            return True
        if not self.overtime:  # byoyomi, canadian: the main time first
            if t <= self.left:
                self.left -= t
                if self.left == 0:
                    self._enter_overtime()
                return True
            t -= self.left
            self._enter_overtime()
        if c.kind == "byoyomi":
            # a move that fits in a period keeps it; each period overrun is lost
            # (exactly a period's time keeps that period; a rounding error of the
            # main time's subtraction above does not cost one)
            lost = max(0, math.ceil(t / c.period - 1e-9) - 1) if t > 0 else 0
            self.periods_left -= lost
            if self.periods_left <= 0:
                self.periods_left = 0
                self.flagged = True
                return False
            self.left = c.period
            return True
        self.left -= t  # canadian: so many moves in the period
        if self.left < -1e-9:  # (not a rounding error of the main time's subtraction)
            self.flagged = True
            return False
        self.left = max(0.0, self.left)
        self.moves_left -= 1
        if self.moves_left == 0:
            self.left = c.period
            self.moves_left = c.moves
        return True

    def budget(self, moves_ahead: int = 30, safety: float = 0.05) -> MoveTime:
        """How long the next move may take (:class:`MoveTime`). ``moves_ahead``: how many
        more moves of this side the game is expected to need (the game's estimate: a
        sudden-death clock's time is shared among them); ``safety``: seconds kept back
        from the hard maximum (a move's time is measured from outside: pipes, waking up).
        An unlimited clock's times are infinite."""
        c = self.control
        if c.kind == "none":
            return MoveTime(0.0, math.inf, math.inf)
        if self.flagged:
            return MoveTime(0.0, 0.0, 0.0)
        ahead = max(1, int(moves_ahead))
        if c.kind == "fixed":
            hard = max(0.0, c.period - safety)
            return MoveTime(0.0, hard * 0.9, hard)
        if c.kind in ("sudden", "fischer", "moves"):
            togo = min(ahead, self.moves_left) if c.kind == "moves" else ahead
            rec = self.left / togo + 0.8 * c.increment
            if c.kind == "moves" and togo == self.moves_left == 1:
                rec = self.left  # the period's last move may use what is left
            hard = max(0.0, min(self.left - safety, max(rec * 4, rec + c.increment)))
            if c.kind == "moves" and self.moves_left == 1:
                hard = max(0.0, self.left - safety)
            return MoveTime(0.0, min(rec, hard), hard)
        if not self.overtime:
            # main time shared out, each move's share topped with a period's time
            # (byo-yomi: a period; Canadian: one move's share of a period)
            extra = c.period if c.kind == "byoyomi" else c.period / max(c.moves, 1)
            rec = self.left / ahead + 0.8 * extra
            hard = max(0.0, min(self.left + extra - safety, max(rec * 4, rec)))
            return MoveTime(0.0, min(rec, hard), hard)
        if c.kind == "byoyomi":  # (a controller may say a period is partly spent)
            hard = max(0.0, min(self.left, c.period) - safety)
            return MoveTime(0.0, 0.8 * hard, hard)
        share = self.left / max(self.moves_left, 1)
        hard = max(0.0, min(self.left - safety, share * 3))
        return MoveTime(0.0, min(0.9 * share, hard), hard)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["control"] = str(self.control)
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Clock:
        """The clock of :meth:`to_dict`'s dict (one :class:`ValueError` line if not)."""
        try:
            control = parse_time_control(str(d["control"]))
            return cls(control, float(d["left"]), int(d["moves_left"]),
                       int(d["periods_left"]), bool(d["overtime"]),
                       bool(d["flagged"]))  # fmt: skip
        except (KeyError, TypeError) as e:
            raise ValueError(f"not a clock: {e}") from None

    def copy(self) -> Clock:
        return replace(self)

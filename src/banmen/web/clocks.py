"""The game clocks of a web game session (issue 39): the server is the referee.

A :class:`GameClocks` holds both sides' :class:`~banmen.clock.Clock` on one
:class:`~banmen.clock.TimeControl` and which side's move is being timed. The session
(:mod:`banmen.web.session`) runs the clock of the side to move (a human's from the moment
it is to move; a CPU's while its search runs: not while it waits for an engine, for the
delay between CPU moves or in a pause), charges each move's real time to the mover's
clock when the move is played (:meth:`GameClocks.charge`, with
:data:`~banmen.clock.EXPIRY_MARGIN`), and ends the game on time when the running clock
passes its flag (:meth:`GameClocks.expired`, :meth:`GameClocks.flag`). The browser only
shows what the state says.

Times are read from the session's wall clock (``time.time``; a test gives its own): the
time the running clock started is saved with the game, so a reload — or a server restart —
finds the clock where it was and a human's clock goes on running meanwhile (the flag
falls on a game left on a clock). Each move keeps the mover's clock as it was before the
move (:attr:`GameClocks.before`), so an undo gives the undone moves' time back
(:meth:`GameClocks.undo_to`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from banmen.clock import EXPIRY_MARGIN, Clock, TimeControl, parse_time_control

__all__ = ["GameClocks"]


@dataclass
class GameClocks:
    """Both sides' clocks of one game, and the move being timed (module docstring)."""

    control: TimeControl
    clocks: dict[int, Clock]
    #: the side whose move is being timed (``None``: none yet, or the last one charged)
    side: int | None = None
    #: when the running clock started or resumed (wall clock, seconds); ``None``: stopped
    since: float | None = None
    #: seconds of the timed move spent before the clock was stopped (a pause)
    used: float = 0.0
    #: the side whose flag fell
    flagged: int | None = None
    #: the mover's clock before each move (by ply; ``None`` where not known: a loaded
    #: game's moves), for undo
    before: list[dict[str, Any] | None] = field(default_factory=list)
    #: the flagged side's clock as it was before the move its flag fell on (for undo)
    unflagged: dict[str, Any] | None = None

    @classmethod
    def start(cls, control: TimeControl) -> GameClocks:
        """Both clocks at the start of a game on ``control``."""
        return cls(control, {1: Clock.start(control), 2: Clock.start(control)})

    # ------------------------------------------------------------------ running

    @property
    def running(self) -> int | None:
        """The side whose clock runs now, if any."""
        return self.side if self.since is not None else None

    def elapsed(self, now: float) -> float:
        """Seconds the timed move has taken so far."""
        run = 0.0 if self.since is None else max(0.0, now - self.since)
        return self.used + run

    def resume(self, side: int, now: float) -> None:
        """Run ``side``'s clock (already running: nothing changes). A move of another side
        than the one timed so far starts from nothing."""
        if self.flagged is not None:
            return
        if self.side != side:
            self.side, self.used, self.since = side, 0.0, None
        if self.since is None:
            self.since = now

    def halt(self, now: float) -> None:
        """Stop the running clock; the time its move took so far is kept."""
        if self.since is not None:
            self.used = self.elapsed(now)
            self.since = None

    def charge(self, side: int, ply: int, now: float) -> bool:
        """Charge the move ``side`` plays now (``ply`` moves were played before it) to its
        clock; ``False`` if its flag fell (the game is lost on time: :attr:`flagged`)."""
        spent = self.elapsed(now) if self.side == side else 0.0
        clock = self.clocks[side]
        if len(self.before) < ply:
            self.before.extend([None] * (ply - len(self.before)))
        del self.before[ply:]
        self.before.append(clock.to_dict())
        self.side, self.since, self.used = None, None, 0.0
        if not clock.spend(spent, EXPIRY_MARGIN):
            self.flagged = side
            self.unflagged = self.before[-1]
            return False
        return True

    def until_expiry(self, now: float) -> float | None:
        """Seconds until the running clock's flag falls, the expiry margin included
        (``None``: no clock runs, or it cannot fall)."""
        if self.since is None or self.side is None or self.flagged is not None:
            return None
        left = self.clocks[self.side].until_flag()
        if math.isinf(left):
            return None
        return max(0.0, left + EXPIRY_MARGIN - self.elapsed(now))

    def expired(self, now: float) -> bool:
        """Has the running clock passed its flag (and the expiry margin)?"""
        if self.since is None or self.side is None or self.flagged is not None:
            return False
        return self.elapsed(now) > self.clocks[self.side].until_flag() + EXPIRY_MARGIN

    def flag(self, now: float) -> int:
        """The running clock's flag falls: its move is charged (the clock at zero) and the
        side is :attr:`flagged`; returns that side."""
        assert self.side is not None
        side = self.side
        self.unflagged = self.clocks[side].to_dict()
        self.clocks[side].spend(self.elapsed(now), EXPIRY_MARGIN)
        self.clocks[side].flagged = True
        self.flagged = side
        self.since, self.used = None, 0.0
        return side

    def undo_to(self, ply: int, mover: Callable[[int], int]) -> None:
        """The moves from ``ply`` on are taken back: each mover's clock (``mover(k)``: who
        played move ``k``) is as it was before them, and no move is timed. A flag that
        fell is up again: the move it fell on is taken back too."""
        if self.flagged is not None and self.unflagged is not None:
            self.clocks[self.flagged] = Clock.from_dict(self.unflagged)
        self.unflagged = None
        for k in range(len(self.before) - 1, ply - 1, -1):
            saved = self.before[k]
            if saved is not None:
                self.clocks[mover(k)] = Clock.from_dict(saved)
        del self.before[ply:]
        self.side, self.since, self.used = None, None, 0.0
        self.flagged = next((s for s in (1, 2) if self.clocks[s].flagged), None)

    # ------------------------------------------------------------------ data

    def view(self, now: float) -> dict[str, Any]:
        """The state's ``clocks``: the control (its string and its fields), each side's
        clock as it stood when its move began, which side's clock runs and how long the
        timed move has taken so far — the page counts down from there."""
        sides = {}
        for s in (1, 2):
            c = self.clocks[s]
            sides[str(s)] = {
                "left": round(max(0.0, c.left), 3),
                "moves_left": c.moves_left,
                "periods_left": c.periods_left,
                "overtime": c.overtime,
                "flagged": c.flagged,
            }
        return {
            "control": str(self.control),
            **self.control.to_dict(),
            **sides,
            "running": self.running,
            "side": self.side,
            "elapsed": round(self.elapsed(now), 3),
            "flagged": self.flagged,
        }

    def to_dict(self) -> dict[str, Any]:
        """What the saved game keeps (:meth:`from_dict` reads it back)."""
        return {
            "control": str(self.control),
            "clocks": {str(s): self.clocks[s].to_dict() for s in (1, 2)},
            "side": self.side,
            "since": self.since,
            "used": self.used,
            "flagged": self.flagged,
            "before": self.before,
            "unflagged": self.unflagged,
        }

    @classmethod
    def from_dict(cls, d: Any) -> GameClocks:
        """The clocks of :meth:`to_dict`'s dict; one :class:`ValueError` line if not."""
        try:
            control = parse_time_control(str(d["control"]))
            clocks = {s: Clock.from_dict(d["clocks"][str(s)]) for s in (1, 2)}
            side, flagged = d.get("side"), d.get("flagged")
            since, used = d.get("since"), d.get("used", 0.0)
            before = d.get("before") or []
            unflagged = d.get("unflagged")
            if unflagged is not None:
                Clock.from_dict(unflagged)
            if side not in (None, 1, 2) or flagged not in (None, 1, 2):
                raise ValueError("a side is 1, 2 or null")
            if since is not None:
                since = float(since)
            used = float(used)
            if not (math.isfinite(used) and used >= 0) or (
                since is not None and not math.isfinite(since)
            ):
                raise ValueError("times are finite seconds")
            if not isinstance(before, list) or not all(
                b is None or isinstance(b, dict) for b in before
            ):
                raise ValueError("'before' is a list of clocks")
            for b in before:  # each must read back
                if b is not None:
                    Clock.from_dict(b)
        except (KeyError, TypeError, AttributeError) as e:
            raise ValueError(f"not a game's clocks: {e!r}") from None
        return cls(control, clocks, side, since, used, flagged, list(before), unflagged)

"""The GTP session's clock: one side's time as the controller reports it and the time a
move gets from it (``time_settings``, ``time_left``, ``kgs-time_settings``; the rules are
described in :mod:`banmen.protocols.gtp`). Pure bookkeeping, no GTP syntax, as KataGo keeps
its time controls apart (``search/timecontrols.h``).

The settings are ``(main, byo, stones)``: main time, then byo-yomi of ``byo`` seconds for
``stones`` moves (``system`` ``"canadian"``) or of ``stones`` periods of ``byo`` seconds
each (``system`` ``"byoyomi"``, Japanese byo-yomi).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

__all__ = ["Clock", "TimeSettings", "move_time", "hard_time"]

#: (main time, byo-yomi time, byo-yomi stones or periods), in seconds
TimeSettings = tuple[float, float, int]


@dataclass
class Clock:
    """One side's clock as the controller reports it: ``left`` seconds, for ``stones``
    moves of a byo-yomi period (``stones`` 0: main or absolute time; in Japanese
    byo-yomi, the periods left)."""

    left: float
    stones: int = 0

    @classmethod
    def at_start(cls, settings: TimeSettings) -> Clock:
        """The clock when the settings are given: the main time, or byo-yomi at once when
        there is none."""
        main, byo, stones = settings
        return cls(main) if main > 0 or stones == 0 else cls(byo, stones)

    def spend(self, seconds: float, settings: TimeSettings | None, system: str) -> None:
        """Count a move of ``seconds`` down, entering (or starting again) a byo-yomi
        period as the settings say."""
        if system == "byoyomi" and settings is not None:
            self._spend_byoyomi(seconds, settings[1], settings[2])
            return
        self.left -= seconds
        byo = settings is not None and settings[2] > 0
        if self.stones > 0:
            self.stones -= 1
            if self.stones == 0 and byo and self.left >= 0:
                assert settings is not None
                self.left, self.stones = settings[1], settings[2]
        elif self.left <= 0 and byo:
            assert settings is not None
            self.left, self.stones = settings[1], settings[2]
        self.left = max(self.left, 0.0)

    def _spend_byoyomi(self, seconds: float, period: float, periods: int) -> None:
        """Japanese byo-yomi: main time first; then a move within the period keeps it
        (the period starts again), one that overruns it uses up a period per ``period``
        seconds over."""
        if self.stones == 0:  # main time
            self.left -= seconds
            if self.left > 0:
                return
            seconds, self.left, self.stones = -self.left, period, periods
            if seconds <= 0:
                return
        if seconds <= self.left:
            self.left = period
            return
        lost = math.ceil((seconds - self.left) / period)
        self.stones = max(self.stones - lost, 0)
        self.left = period if self.stones > 0 else 0.0


def move_time(
    clock: Clock, settings: TimeSettings | None, system: str, empty_points: int, cap: float
) -> float:
    """Seconds for the next move (the *target*): in main time, the time left divided by
    ``max(20, empty_points // 2)``, but at least the byo-yomi time per stone; in byo-yomi,
    the period's time left divided by its stones left (Japanese: the period's time left).
    90% of that less 0.05 s, at least 0.05 s, at most ``cap``."""
    byoyomi = system == "byoyomi"
    if clock.stones > 0:  # in byo-yomi: Canadian stones, or Japanese periods left
        raw = clock.left if byoyomi else clock.left / clock.stones
    else:
        raw = clock.left / max(20, empty_points // 2)
        if settings is not None and settings[1] > 0 and settings[2] > 0:
            raw = max(raw, settings[1] if byoyomi else settings[1] / settings[2])
    return min(max(0.05, 0.9 * raw - 0.05), cap)


def hard_time(clock: Clock, system: str, target: float, cap: float) -> float:
    """How long a move with ``target`` seconds may take while the engine's search is
    unsettled: up to 2.5 times the target, within a quarter of the main time left, half a
    Canadian period's time left and ``cap``; the target itself in Japanese byo-yomi."""
    if system == "byoyomi" and clock.stones > 0:
        return target  # an overrun costs a period
    share = clock.left / 2 if clock.stones > 0 else clock.left / 4
    return max(target, min(2.5 * target, share, cap))

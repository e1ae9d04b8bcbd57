"""The wall-clock cap a protocol front end puts on every search it starts.

:func:`capped` is a :class:`~banmen.search.limits.Deadline` that sets the search's stop flag
after the session's maximum thinking time as a request to stop (``STOP_REQUESTED``), not as
a timeout mark (``STOP_TIME``): engines treat a ``STOP_TIME`` on the flag as their own
deadline's and clear it when their search ends, so a cap set that way would be lost after
the first of several searches (a ``hint`` searches each move; the Othello engine runs its
endgame solver, then its midgame search). A stop request stays until the session has read
it, so every later search of the command stops at once as well.
"""

from __future__ import annotations

from banmen.search.limits import STOP_REQUESTED, Deadline, StopFlag

__all__ = ["capped", "SHORTEST", "LONGEST", "check_cap"]

#: the shortest and the longest cap a session accepts, in seconds (a day)
SHORTEST, LONGEST = 0.05, 86400.0


def check_cap(seconds: float, name: str = "max_move_time") -> float:
    """``seconds`` if it is a usable cap (:data:`SHORTEST` to :data:`LONGEST`), else
    ``ValueError`` naming the setting ``name``."""
    if not SHORTEST <= seconds <= LONGEST:  # (nan fails too)
        raise ValueError(f"{name} must be {SHORTEST:g} to {LONGEST:g} seconds, got {seconds!r}")
    return seconds


def capped(stop: StopFlag, seconds: float) -> Deadline:
    """Context manager: ``stop`` is asked to stop after ``seconds`` (checked by
    :func:`check_cap`), unless the block ended first."""
    return Deadline(stop, check_cap(seconds), reason=STOP_REQUESTED)

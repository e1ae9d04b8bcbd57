"""The wall-clock cap a protocol front end puts on every search it starts.

:class:`Cap` sets the search's stop flag after the session's maximum thinking time, as a
request to stop (``STOP_REQUESTED``), not as a timeout mark (``STOP_TIME``): engines treat a
``STOP_TIME`` on the flag as their own deadline's and clear it when their search ends, so a
cap set that way would be lost after the first of several searches (a ``hint`` searches
each move; the Othello engine runs its endgame solver, then its midgame search). A stop
request stays until the session has read it, so every later search of the command stops
at once as well.
"""

from __future__ import annotations

import threading
from types import TracebackType

from banmen.search.limits import StopFlag

__all__ = ["Cap", "LONGEST", "check_cap"]

#: the longest cap a session accepts, in seconds (a day)
LONGEST = 86400.0


def check_cap(seconds: float) -> float:
    """``seconds`` if it is a usable cap (more than 0, at most :data:`LONGEST`), else
    ``ValueError``."""
    if not 0 < seconds <= LONGEST:  # (nan fails too)
        raise ValueError(
            f"max_move_time must be more than 0 and at most {LONGEST:g} s, got {seconds!r}"
        )
    return seconds


class Cap:
    """Context manager: ``stop.set()`` after ``seconds`` (checked by :func:`check_cap`),
    unless the block ended first."""

    def __init__(self, stop: StopFlag, seconds: float) -> None:
        self._timer = threading.Timer(check_cap(seconds), stop.set)
        self._timer.daemon = True

    def __enter__(self) -> Cap:
        self._timer.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._timer.cancel()

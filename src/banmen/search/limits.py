"""Search limits and cooperative cancellation.

A search stops at the first bound it meets — time, depth or nodes — or when someone sets
its :class:`StopFlag`. Compiled searches cannot read a clock cheaply, so time is enforced by
a :class:`Deadline`: a timer thread that sets the stop flag when time is up, while the
compiled search (which releases the GIL) polls the flag every few hundred nodes. The same
flag, placed in shared memory, lets another process stop a search running in a worker.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from dataclasses import dataclass, field
from types import TracebackType
from typing import TYPE_CHECKING, Any

from banmen.clock import DEFAULT_MOVES_AHEAD, Clock

if TYPE_CHECKING:  # numpy is imported by the first StopFlag: a Limit alone needs none
    import numpy as np
    import numpy.typing as npt

__all__ = ["Limit", "StopFlag", "Deadline", "STOP_REQUESTED", "STOP_TIME"]

#: Values a :class:`StopFlag` can hold: why the search was asked to stop.
STOP_NONE = 0
STOP_REQUESTED = 1
STOP_TIME = 2


@dataclass(frozen=True)
class Limit:
    """Bounds for one search; ``None`` means unbounded.

    ``time`` is in seconds (wall clock), ``depth`` in plies, ``nodes`` in visited nodes.
    With no bound at all a search runs to the end of the game (an exact solve).
    ``target`` (seconds, at most ``time``) is what a clock-driven controller would like
    the move to take: an engine that can tell an unsettled search from a settled one
    (the Go engine) stops near it and goes on towards ``time`` only while the search
    is unsettled; ``time`` stays the hard bound for every engine.

    ``clock`` is the mover's game clock (:class:`banmen.clock.Clock`) and ``opponent``
    the other side's, when the game is played on one (python-chess's ``white_clock``,
    ``white_inc``, ``remaining_moves``: here the whole state, byo-yomi periods included).
    :meth:`on_clock` turns them into this move's ``time`` and ``target`` — one
    computation for every engine (:meth:`banmen.engine.Engine.think` calls it); a
    program over a protocol is told the clocks themselves (GTP's ``time_left``, UGI's
    ``p1time``). Two limits that differ only in their clocks compare equal.

    >>> Limit(time=0.5)
    Limit(time=0.5, depth=None, nodes=None)
    """

    time: float | None = None
    depth: int | None = None
    nodes: int | None = None
    target: float | None = field(default=None, repr=False)
    clock: Clock | None = field(default=None, repr=False, compare=False)
    opponent: Clock | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.time is not None and not (self.time > 0 and math.isfinite(self.time)):
            raise ValueError(f"time limit must be a positive number of seconds, got {self.time!r}")
        if self.depth is not None and (not isinstance(self.depth, int) or self.depth < 1):
            raise ValueError(f"depth limit must be a positive integer, got {self.depth!r}")
        if self.nodes is not None and (not isinstance(self.nodes, int) or self.nodes < 1):
            raise ValueError(f"node limit must be a positive integer, got {self.nodes!r}")
        if self.target is not None and not (self.time is not None and 0 < self.target <= self.time):
            raise ValueError(f"target time must be positive and at most the time limit, "
                             f"got {self.target!r} with time {self.time!r}")  # fmt: skip

    @property
    def unbounded(self) -> bool:
        return (
            self.time is None
            and self.depth is None
            and self.nodes is None
            and (self.clock is None or self.clock.control.unlimited)
        )

    @property
    def timed(self) -> bool:
        """Is the move on a game clock (a limited one)?"""
        return self.clock is not None and not self.clock.control.unlimited

    def on_clock(self, moves_ahead: int | None = None) -> Limit:
        """This limit with the move's ``time`` (the hard maximum) and ``target`` (the
        recommended time) taken from :attr:`clock`'s budget
        (:meth:`banmen.clock.Clock.budget`), each within the limit's own ``time``;
        ``moves_ahead``: the mover's moves the game expects still to play (``None``:
        :data:`~banmen.clock.DEFAULT_MOVES_AHEAD`). The clocks are kept. A limit on no
        clock is returned as it is."""
        if not self.timed:
            return self
        assert self.clock is not None
        ahead = DEFAULT_MOVES_AHEAD if moves_ahead is None else moves_ahead
        b = self.clock.budget(ahead)
        hard = max(0.001, b.maximum)
        if self.time is not None:
            hard = min(hard, self.time)
        target = min(hard, max(0.001, b.recommended))
        return Limit(hard, self.depth, self.nodes, target, self.clock, self.opponent)

    def with_clocks(self, clock: Clock | None, opponent: Clock | None = None) -> Limit:
        """This limit with the mover's clock (copied) and the opponent's."""
        return Limit(self.time, self.depth, self.nodes, self.target,
                     None if clock is None else clock.copy(),
                     None if opponent is None else opponent.copy())  # fmt: skip

    def to_dict(self) -> dict[str, Any]:
        """The limit as JSON-ready data (``target`` and the clocks only when set: a limit
        without them is written as it always was), read back by :meth:`from_dict`."""
        d: dict[str, Any] = {"time": self.time, "depth": self.depth, "nodes": self.nodes}
        if self.target is not None:
            d["target"] = self.target
        if self.clock is not None:
            d["clock"] = self.clock.to_dict()
        if self.opponent is not None:
            d["opponent"] = self.opponent.to_dict()
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Limit:
        clock, opponent = d.get("clock"), d.get("opponent")
        return cls(time=d.get("time"), depth=d.get("depth"), nodes=d.get("nodes"),
                   target=d.get("target"),
                   clock=None if clock is None else Clock.from_dict(clock),
                   opponent=None if opponent is None else Clock.from_dict(opponent))  # fmt: skip


class StopFlag:
    """A one-cell int64 array a compiled search polls; nonzero means "stop now".

    ``StopFlag()`` lives in this process (stop from another thread);
    ``StopFlag.shared()`` lives in shared memory and can be handed to a child process
    at start-up, so the parent can stop the child's search.
    """

    __slots__ = ("array", "_raw")

    def __init__(self, raw: Any = None) -> None:
        import numpy as np

        self._raw = raw
        if raw is None:
            self.array: npt.NDArray[np.int64] = np.zeros(1, dtype=np.int64)
        else:
            self.array = np.frombuffer(raw, dtype=np.int64, count=1)

    @classmethod
    def shared(cls) -> StopFlag:
        import multiprocessing

        return cls(multiprocessing.get_context("spawn").RawArray("q", 1))

    def __reduce__(self) -> tuple[Any, ...]:
        if self._raw is None:
            raise TypeError("only StopFlag.shared() can be sent to another process")
        return (StopFlag, (self._raw,))

    def set(self, reason: int = STOP_REQUESTED) -> None:
        if self.array[0] == STOP_NONE:
            self.array[0] = reason

    def clear(self) -> None:
        self.array[0] = STOP_NONE

    @property
    def reason(self) -> int:
        return int(self.array[0])

    def is_set(self) -> bool:
        return self.reason != STOP_NONE


class Deadline:
    """Context manager that sets ``flag`` to ``reason`` (:data:`STOP_TIME` unless told
    otherwise) after ``seconds``.

    Used around a compiled (GIL-releasing) search, it stops the search within the time
    the search needs to reach its next poll of the flag — well under a millisecond.

    The timer waits on the monotonic clock in steps of at most :attr:`STEP` seconds, so any
    finite number of seconds works (``threading.Timer`` dies with ``OverflowError`` beyond
    ``threading.TIMEOUT_MAX``, and a dead timer would let a search run forever). If the timer
    thread fails for any reason it sets the flag: a search stops early rather than never.
    """

    #: the longest single wait of the timer thread, in seconds
    STEP = 3600.0

    def __init__(self, flag: StopFlag, seconds: float | None, reason: int = STOP_TIME) -> None:
        if seconds is not None and not seconds == seconds:  # NaN: no promise can be kept
            raise ValueError("a deadline needs a number of seconds, got nan")
        self.flag = flag
        self.seconds = seconds
        self.reason = reason
        self._cancel = threading.Event()
        self._thread: threading.Thread | None = None
        self._end = 0.0

    def __enter__(self) -> Deadline:
        if self.seconds is not None:
            self._end = time.monotonic() + max(0.0, self.seconds)
            self._thread = threading.Thread(target=self._run, name="deadline", daemon=True)
            self._thread.start()
        return self

    def _run(self) -> None:
        try:
            while True:
                left = self._end - time.monotonic()
                if left <= 0:
                    self.flag.set(self.reason)
                    return
                if self._cancel.wait(min(left, self.STEP)):
                    return
        except BaseException as e:  # fail safe: a timer that cannot keep time stops the search
            self.flag.set(self.reason)
            logging.getLogger("banmen").error(
                "the search's deadline timer failed (%s: %s); the search was stopped",
                type(e).__name__,
                e,
            )

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._cancel.set()

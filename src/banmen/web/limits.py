"""Every cap of the web server in one place: :class:`Limits`, and the small helpers that
enforce the per-address ones.

One server is shared by every page that reaches it, so nothing a client can ask for is
unbounded: WebSocket connections (in all and per client address), games being viewed,
CPU moves and tsume solves waiting for a process (each waiter is told its place in line),
the time a solve may take, how fast one address may create saved games, how fast one
WebSocket may send messages, how long a connection may take to send a request head, and
how many connections may wait for one. Saved games that are abandoned expire, and what
the server logs about refused clients is one line a minute at most (:class:`LogThrottle`).
The defaults suit a machine shared by a few people; every field can be set with
``banmen serve --limit NAME=VALUE`` or ``create_app(limits=...)``.

A "client address" is the peer address of the connection: behind a reverse proxy every
client has the proxy's address, so raise the per-address caps there.
"""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from starlette.requests import HTTPConnection

__all__ = ["Limits", "RateLimit", "LogThrottle", "ordinal", "busy_line", "client_address"]


@dataclass(frozen=True)
class Limits:
    """The server's caps (see the module docstring); every field must be positive."""

    #: WebSocket connections open at once, from all clients together
    max_connections: int = 256
    #: WebSocket connections open at once from one client address (tabs, pages)
    max_connections_per_client: int = 16
    #: games being viewed at once (live sessions; each connection views at most one)
    max_sessions: int = 128
    #: CPU moves waiting for an engine worker, all games together (a game has at most
    #: one move waiting; games take turns in the order they asked)
    max_queued_moves: int = 128
    #: tsume solves waiting for a solver, all clients together (one address has at most
    #: one solve running or waiting)
    max_queued_solves: int = 32
    #: the longest time limit a tsume solve may ask for, in seconds
    max_solve_seconds: float = 300.0
    #: saved games one client address may create at once (new, load, or a page opening
    #: without a game) ...
    new_game_burst: int = 200
    #: ... and then one more every this many seconds
    new_game_interval: float = 2.0
    #: an unfinished saved game nobody has opened or changed for this many days is deleted
    keep_unfinished_days: float = 30.0
    #: a saved game without a single move, untouched this many days, is deleted
    keep_empty_days: float = 1.0
    #: seconds between runs of the expiry of saved games (it also runs at start)
    expiry_interval: float = 3600.0
    #: messages one WebSocket may send at once (a page sends a few a second at most) ...
    message_burst: int = 500
    #: ... and then this many a second; beyond, it gets one error and is closed (1008)
    message_rate: float = 100.0
    #: seconds a connection has to send a whole request head (from its opening, or from
    #: the end of its previous response); then it is closed (a 408 if it sent a part)
    request_head_timeout: float = 10.0
    #: HTTP connections waiting for a request head at once (new, half-sent, idle between
    #: requests); one more closes the one that has waited longest
    max_waiting_connections: int = 256

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
                raise ValueError(f"limit {f.name} must be a positive number, got {value!r}")
            if f.type == "int" and not isinstance(value, int):
                raise ValueError(f"limit {f.name} must be a whole number, got {value!r}")

    def replace(self, overrides: Mapping[str, str]) -> Limits:
        """A copy with the fields named in ``overrides`` (NAME -> text, as typed on the
        command line) changed; ``ValueError`` with a one-line message on a bad name or
        value."""
        types = {f.name: f.type for f in dataclasses.fields(self)}
        changes: dict[str, Any] = {}
        for name, text in overrides.items():
            if name not in types:
                raise ValueError(f"unknown limit {name!r}: expected one of {', '.join(types)}")
            try:
                changes[name] = int(text) if types[name] == "int" else float(text)
            except ValueError:
                kind = "a whole number" if types[name] == "int" else "a number"
                raise ValueError(f"limit {name} must be {kind}, got {text!r}") from None
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict[str, int | float]:
        return dataclasses.asdict(self)


def client_address(conn: HTTPConnection) -> str:
    """The peer address the per-address limits count ``conn`` under ("" if unknown)."""
    return conn.client.host if conn.client is not None else ""


def ordinal(n: int) -> str:
    """``1st``, ``2nd``, ``3rd``, ``4th``, ..., ``11th``, ``21st``."""
    if 10 <= n % 100 <= 20:
        suffix = "th"
    else:
        suffix = {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def busy_line(position: int, what: str) -> str:
    """The line a waiting client is shown: its place in line and what it waits for."""
    return f"the server is busy: you are {ordinal(position)} in line for {what}"


class RateLimit:
    """A token bucket per key (a client address): ``burst`` at once, then one more every
    ``interval`` seconds of ``clock``. Full buckets are forgotten, so memory stays bounded
    by the clients active in the last ``burst * interval`` seconds."""

    def __init__(
        self, burst: int, interval: float, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.burst = burst
        self.interval = interval
        self._clock = clock
        self._buckets: dict[str, tuple[float, float]] = {}  # key -> (tokens, at)

    def _tokens(self, key: str, now: float) -> float:
        tokens, at = self._buckets.get(key, (float(self.burst), now))
        # max(): a clock stepping back gives no tokens, and takes none either.
        return min(float(self.burst), tokens + max(0.0, now - at) / self.interval)

    def take(self, key: str) -> float:
        """Use one token of ``key``: 0.0 if there was one, else the seconds until there
        is one (nothing is used)."""
        now = self._clock()
        tokens = self._tokens(key, now)
        if tokens < 1.0:
            self._buckets[key] = (tokens, now)
            return (1.0 - tokens) * self.interval
        self._buckets[key] = (tokens - 1.0, now)
        if len(self._buckets) > 1024:
            self._forget_full(now)
        return 0.0

    def _forget_full(self, now: float) -> None:
        for key in [k for k in self._buckets if self._tokens(k, now) >= self.burst]:
            del self._buckets[key]


class LogThrottle:
    """At most one log line per kind of event every ``interval`` seconds of ``clock``:
    the first is logged at once, the rest are counted and the count is given with the
    next line logged (so a client repeating a refused request cannot fill the disk, and
    the log still says how often it happened)."""

    def __init__(
        self,
        logger: logging.Logger,
        interval: float = 60.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.logger = logger
        self.interval = interval
        self._clock = clock
        self._last: dict[str, float] = {}  # kind -> when its last line was logged
        self._held: dict[str, int] = {}  # kind -> events not logged since

    def log(self, level: int, kind: str, message: str) -> bool:
        """Log ``message`` (one line) unless a line of ``kind`` was logged less than
        ``interval`` seconds ago; whether it was logged."""
        now = self._clock()
        last = self._last.get(kind)
        if last is not None and 0.0 <= now - last < self.interval:
            self._held[kind] = self._held.get(kind, 0) + 1
            return False
        held = self._held.pop(kind, 0)
        if held:
            message += f"; {held} more like it since the last such line, not logged"
        self._last[kind] = now
        self.logger.log(level, "%s", message)
        return True

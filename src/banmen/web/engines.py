"""The engines' warm-up, told to every open page.

The pool's workers load their compiled code before they take a job — compiling it, on a
first run, for up to a minute or more (:mod:`banmen.warm`). Meanwhile pages are served,
CPU moves and solves wait in the pool's line, and every connected page gets an
``{"type": "engines", "ready": false, "message": ...}`` with the progress (at most two a
second), then ``{"type": "engines", "ready": true}``; a page that connects meanwhile gets
the current one. A job waiting in line is told the same instead of its place in a line.
"""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, Any

from banmen.web.limits import busy_line

if TYPE_CHECKING:
    from banmen.web.client import Client
    from banmen.worker import EnginePool

__all__ = ["EngineNews", "warming_line", "waiting_for"]

#: seconds between two progress messages to the pages
PERIOD = 0.5


def warming_line(status: dict[str, Any]) -> str:
    """The engines' warm-up in words (``status``: :meth:`EnginePool.warm_status`)."""
    what = status.get("compiling") or []
    if status.get("cold") or what:
        doing = f"compiling {' and '.join(what)}" if what else "compiling"
        head = f"the engines are warming up (first run only: {doing})"
    else:
        head = "the engines are starting"
    return f"{head}, {status.get('percent', 0)}% done after {status.get('seconds', 0):.0f} s"


def waiting_for(pool: EnginePool, position: int, what: str) -> str:
    """What a job ``position``-th in the pool's line is told: the warm-up while there is
    one, else its place in line for ``what``."""
    status = pool.warm_status()
    if status is not None:
        return f"waiting: {warming_line(status)}"
    return busy_line(position, what)


class EngineNews:
    """Sends the pool's warm-up progress to every open page (module docstring)."""

    def __init__(self, pool: EnginePool) -> None:
        self.pool = pool
        self.clients: set[Client] = set()
        self._sent = 0.0
        self._later: asyncio.TimerHandle | None = None
        self._was_ready = pool.warm_status() is None
        pool.on_status = self.changed

    def message(self) -> dict[str, Any]:
        status = self.pool.warm_status()
        if status is None:
            return {"type": "engines", "ready": True}
        return {"type": "engines", "ready": False, "message": warming_line(status), **status}

    def opened(self, client: Client) -> None:
        self.clients.add(client)
        msg = self.message()
        if not msg["ready"]:
            client.send(msg)

    def closed(self, client: Client) -> None:
        self.clients.discard(client)

    def changed(self) -> None:
        """The pool's warm-up moved: tell the pages now, or within :data:`PERIOD`."""
        ready = self.pool.warm_status() is None
        if ready and self._was_ready:
            return
        now = time.monotonic()
        if ready or now - self._sent >= PERIOD:
            self._send()
        elif self._later is None:
            loop = asyncio.get_running_loop()
            self._later = loop.call_later(PERIOD - (now - self._sent), self._send)

    def _send(self) -> None:
        if self._later is not None:
            self._later.cancel()
            self._later = None
        self._sent = time.monotonic()
        msg = self.message()
        self._was_ready = bool(msg["ready"])
        for client in list(self.clients):
            client.send(msg)

    def close(self) -> None:
        if self._later is not None:
            self._later.cancel()
            self._later = None

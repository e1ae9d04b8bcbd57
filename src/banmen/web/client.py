"""One WebSocket connection as the server's pages see it: a :class:`Client` sends its
messages through a queue of its own, so they keep their order and a slow or vanished
connection never holds up a game or other clients. The socket loop that reads its frames
is :func:`banmen.web.sockets.serve_socket`."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from banmen.web.session import GameSession

__all__ = ["Client"]


class Client:
    """One WebSocket connection, seen from the game.

    Outgoing messages go through a queue drained by the client's own task, so they keep
    their order and a slow or vanished client never holds up the game or other clients.
    """

    #: Live-thinking messages are dropped beyond this backlog; state and errors never are.
    MAX_BACKLOG = 256

    def __init__(
        self,
        send_text: Callable[[str], Awaitable[None]],
        game: str,
        address: str = "",
    ) -> None:
        self.game = game  # the only game this client's socket plays
        self.address = address  # the peer's address, for the per-address limits
        self._send_text = send_text
        self._queue: asyncio.Queue[str | None] = asyncio.Queue()
        self._closed = False
        self.session: GameSession | None = None
        #: whether this connection wants the analysis of the position shown
        self.analysis = False
        self._task = asyncio.get_running_loop().create_task(self._pump())

    def send(self, msg: dict[str, Any]) -> None:
        if self._closed:
            return
        if self._queue.qsize() >= self.MAX_BACKLOG and _live(msg):
            return
        self._queue.put_nowait(json.dumps(msg, separators=(",", ":")))

    def error(self, message: str) -> None:
        self.send({"type": "error", "message": message})

    async def _pump(self) -> None:
        while True:
            text = await self._queue.get()
            if text is None:
                return
            try:
                await self._send_text(text)
            except Exception:
                # Any failure here means the connection is gone; the reader side notices
                # the disconnect and detaches the client.
                self._closed = True
                return

    async def close(self) -> None:
        """Flush what is queued (briefly) and stop the sender task."""
        if not self._task.done():
            self._queue.put_nowait(None)
            try:
                await asyncio.wait_for(self._task, timeout=1.0)
            except (TimeoutError, asyncio.CancelledError):
                self._task.cancel()
        self._closed = True


def _live(msg: dict[str, Any]) -> bool:
    """Whether ``msg`` is one of the live messages a later one supersedes (dropped for a
    client that has fallen far behind)."""
    kind = msg.get("type")
    return kind in ("info", "progress") or (kind == "analysis" and msg.get("status") == "running")

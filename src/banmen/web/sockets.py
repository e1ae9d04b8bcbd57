"""The one socket loop every page's WebSocket runs through (:func:`serve_socket`), and what
serves a kind of socket (:class:`SocketHandler`: the game pages' :class:`~banmen.web.hub.Hub`,
the tsume page's :class:`~banmen.web.tsume.SolverService`).

Fairness: the loop hands one frame to its handler per turn of the event loop (a socket
whose frames are all buffered already still lets every other connection have its turn in
between), and a socket may send :attr:`Limits.message_burst` frames at once, then
:attr:`Limits.message_rate` a second: one more gets an ``error`` saying so and the socket
is closed (1008, "too many messages"). A page sends a few a second at most."""

from __future__ import annotations

import asyncio
import logging
from typing import Protocol

from starlette.websockets import WebSocket

from banmen.web.client import Client
from banmen.web.engines import EngineNews
from banmen.web.limits import Limits, LogThrottle, RateLimit, client_address

__all__ = ["SocketHandler", "serve_socket", "flood_line", "FLOOD_CLOSE"]

log = logging.getLogger("banmen.web")
_log_once = LogThrottle(log)

#: the close code and reason of a socket that sent too many messages
FLOOD_CLOSE = (1008, "too many messages")


class SocketHandler(Protocol):
    """What serves one kind of socket: the game pages' :class:`~banmen.web.hub.Hub`, the
    tsume page's service. ``opened`` greets a new client, ``handle`` carries out one of its frames
    (never raising: a problem becomes an ``error`` reply), ``closed`` forgets it."""

    def opened(self, client: Client) -> None: ...

    async def handle(self, client: Client, raw: str | bytes | None) -> None: ...

    async def closed(self, client: Client) -> None: ...


def flood_line(limits: Limits) -> str:
    """The error a socket gets when it sends beyond its message budget."""
    return (
        f"too many messages: a connection may send {limits.message_burst} at once, then "
        f"{limits.message_rate:g} a second; closing it"
    )


async def serve_socket(
    websocket: WebSocket,
    name: str,
    handler: SocketHandler,
    news: EngineNews | None = None,
    limits: Limits | None = None,
) -> None:
    """Serve one WebSocket of the app until it closes: every frame (text, or bytes to be
    refused) goes to ``handler`` in order, one per turn of the event loop and within the
    socket's message budget (``limits``, see the module docstring), every reply through
    the client's own queue; ``news`` tells the client how the engines' warm-up goes while
    it lasts. (The app's SocketGuard has already checked the origin and the connection
    limits.)"""
    lim = limits if limits is not None else Limits()
    budget = RateLimit(lim.message_burst, 1.0 / lim.message_rate)
    await websocket.accept()
    client = Client(websocket.send_text, name, client_address(websocket))
    handler.opened(client)
    if news is not None:
        news.opened(client)
    flooded = False
    try:
        while True:
            message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                break
            if budget.take("") > 0:
                flooded = True
                client.error(flood_line(lim))
                who = client.address or "an unknown address"
                _log_once.log(
                    logging.WARNING,
                    "flood",
                    f"closed a WebSocket on /ws/{name} from {who}: over its message budget "
                    f"({lim.message_burst} at once, then {lim.message_rate:g} a second)",
                )
                break
            raw = message.get("text")
            await handler.handle(client, raw if raw is not None else message.get("bytes"))
            # One frame per turn: the other connections' frames and requests come between.
            await asyncio.sleep(0)
    finally:
        if news is not None:
            news.closed(client)
        await handler.closed(client)
        await client.close()
        if flooded:
            try:  # a client that reads nothing may never take the close frame: don't wait
                await asyncio.wait_for(websocket.close(*FLOOD_CLOSE), timeout=1.0)
            except Exception:
                pass

"""The one socket loop every page's WebSocket runs through (:func:`serve_socket`), and what
serves a kind of socket (:class:`SocketHandler`: the game pages' :class:`~banmen.web.hub.Hub`,
the tsume page's :class:`~banmen.web.tsume.SolverService`)."""

from __future__ import annotations

from typing import Protocol

from starlette.websockets import WebSocket

from banmen.web.client import Client
from banmen.web.engines import EngineNews
from banmen.web.limits import client_address

__all__ = ["SocketHandler", "serve_socket"]


class SocketHandler(Protocol):
    """What serves one kind of socket: the game pages' :class:`~banmen.web.hub.Hub`, the
    tsume page's service. ``opened`` greets a new client, ``handle`` carries out one of its frames
    (never raising: a problem becomes an ``error`` reply), ``closed`` forgets it."""

    def opened(self, client: Client) -> None: ...

    async def handle(self, client: Client, raw: str | bytes | None) -> None: ...

    async def closed(self, client: Client) -> None: ...


async def serve_socket(
    websocket: WebSocket, name: str, handler: SocketHandler, news: EngineNews | None = None
) -> None:
    """Serve one WebSocket of the app until it closes: every frame (text, or bytes to be
    refused) goes to ``handler`` in order, every reply through the client's own queue;
    ``news`` tells the client how the engines' warm-up goes while it lasts. (The app's
    SocketGuard has already checked the origin and the connection limits.)"""
    await websocket.accept()
    client = Client(websocket.send_text, name, client_address(websocket))
    handler.opened(client)
    if news is not None:
        news.opened(client)
    try:
        while True:
            message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                break
            raw = message.get("text")
            await handler.handle(client, raw if raw is not None else message.get("bytes"))
    finally:
        if news is not None:
            news.closed(client)
        await handler.closed(client)
        await client.close()

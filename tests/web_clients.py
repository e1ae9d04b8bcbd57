"""Test helper: many client addresses through one Starlette TestClient.

The TestClient gives every request and WebSocket the same client address, so the
per-address limits would see a single client. :class:`AddressFromHeader` wraps the app and
takes the address from an ``x-test-address`` header instead, when a test sends one.
"""

from __future__ import annotations

from typing import Any

from starlette.types import ASGIApp, Receive, Scope, Send

HEADER = "x-test-address"


class AddressFromHeader:
    """``app`` with ``scope["client"]`` set from the ``x-test-address`` header, if any;
    ``state`` is the app's, so tests reach its services as before."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.state: Any = getattr(app, "state", None)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket"):
            for key, value in scope["headers"]:
                if key == HEADER.encode():
                    scope = {**scope, "client": (value.decode(), 50000)}
        await self.app(scope, receive, send)


def address(addr: str) -> dict[str, str]:
    """Headers that make a request or WebSocket come from ``addr``."""
    return {HEADER: addr}


def wait_engines_ready(client: Any, timeout: float = 900.0) -> None:
    """Wait until the app's engine workers have warmed up (``/api/health``): until then a
    CPU move waits in the pool's line, told of the warm-up, instead of starting."""
    import time

    deadline = time.monotonic() + timeout
    while not client.get("/api/health").json()["engines_ready"]:
        assert time.monotonic() < deadline, "the engines did not warm up"
        time.sleep(0.05)

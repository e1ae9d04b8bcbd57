"""uvicorn's connection protocols with banmen's limits on them (:func:`uvicorn_protocols`,
which :func:`banmen.web.server.run_uvicorn` passes to uvicorn).

HTTP (:class:`GuardedH11Protocol`, over uvicorn's h11 protocol): uvicorn times out a
connection only between requests (its keep-alive, 5 s); one that opens and sends nothing,
or half a request head, is held for ever (slowloris), and its ``limit_concurrency`` counts
a connection only once its head is complete. Here a connection that waits for a request
head — new, half-sent, or idle after a response — has
:attr:`~banmen.web.limits.Limits.request_head_timeout` seconds to send it whole (else it is
closed: with a one-line 408 if it had sent part of one), and at most
:attr:`~banmen.web.limits.Limits.max_waiting_connections` wait at once: one more closes
the one that has waited longest, so a newcomer always gets its turn.

WebSockets (:class:`FairWebSocketProtocol`, over uvicorn's websockets-sansio protocol):
uvicorn parses all it reads at once — 256 KB of one-byte frames is 36,000 frames and
some 0.15 s of the event loop — and queues every message for the app. Here at most
:data:`PARSE_SLICE` bytes are parsed per turn of the event loop, and the next slice only
once the app has taken every message of the last: what one socket sends waits in its own
buffer (reading pauses beyond :data:`MAX_UNPARSED`), not in the loop. A WebSocket the app
refuses with an HTTP answer (a foreign ``Host``: 400) is logged as one warning line a
minute at most (uvicorn logged an error per attempt: "ASGI callable returned without
completing handshake").

Every log line of these (timeouts, evictions, refusals) goes through a
:class:`~banmen.web.limits.LogThrottle`: one line per kind a minute, counting the rest.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, ClassVar

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

from banmen.web.limits import Limits, LogThrottle

__all__ = [
    "GuardedH11Protocol",
    "FairWebSocketProtocol",
    "uvicorn_protocols",
    "PARSE_SLICE",
    "MAX_UNPARSED",
]

log = logging.getLogger("banmen.web")
_log_once = LogThrottle(log)

#: bytes of one WebSocket parsed per turn of the event loop (some 600 short frames, ~3 ms)
PARSE_SLICE = 4096
#: bytes of one WebSocket read but not parsed yet beyond which it stops being read
MAX_UNPARSED = 64 * 1024


def _peer(client: tuple[str, int] | None) -> str:
    return client[0] if client else "an unknown address"


class GuardedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with a time limit on the request head and a cap on the
    connections waiting for one (see the module docstring). Subclassed per server by
    :func:`uvicorn_protocols`, which sets :attr:`limits` and a :attr:`waiting` of its own."""

    limits: ClassVar[Limits] = Limits()
    #: the connections of this server waiting for a request head, the longest-waiting first
    waiting: ClassVar[dict[GuardedH11Protocol, None]] = {}

    _head_timer: asyncio.TimerHandle | None = None
    _served = False  # whether a response was sent on it

    def on_response_complete(self) -> None:
        self._served = True
        super().on_response_complete()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)  # type: ignore[arg-type]
        self._start_waiting()

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_waiting()
        super().connection_lost(exc)

    def handle_events(self) -> None:
        super().handle_events()
        # Called on every read and after each response: waiting while no head has come.
        if self.transport.is_closing() or self.conn.their_state is not h11.IDLE:
            self._stop_waiting()
        else:
            self._start_waiting()

    def _start_waiting(self) -> None:
        waiting = self.waiting
        if self in waiting or self.transport.is_closing():
            return
        while len(waiting) >= self.limits.max_waiting_connections:
            # the longest-waiting of those that never sent a request (a slow or stalled
            # one), else the longest idle after a response (its client opens another)
            first = next((c for c in waiting if not c._served), None)
            (first if first is not None else next(iter(waiting)))._evict()
        waiting[self] = None
        self._head_timer = self.loop.call_later(
            self.limits.request_head_timeout, self._head_timed_out
        )

    def _stop_waiting(self) -> None:
        self.waiting.pop(self, None)
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _close(self, answer: bytes = b"") -> None:
        self._stop_waiting()
        if self.transport.is_closing():
            return
        if answer:
            self.transport.write(answer)
        try:
            self.conn.send(h11.ConnectionClosed())
        except h11.LocalProtocolError:
            pass
        self.transport.close()

    def _evict(self) -> None:
        cap = self.limits.max_waiting_connections
        _log_once.log(
            logging.WARNING,
            "http-evicted",
            f"closed a connection from {_peer(self.client)} that waited for a request head: "
            f"{cap} connections were waiting, the most there may be",
        )
        self._close()

    def _head_timed_out(self) -> None:
        self._head_timer = None
        sent, _ = self.conn.trailing_data
        seconds = f"{self.limits.request_head_timeout:g} s"
        if not sent:  # an idle connection (a browser's spare one): closed without a word
            self._close()
            return
        _log_once.log(
            logging.WARNING,
            "http-head-timeout",
            f"closed a connection from {_peer(self.client)}: no whole request head in "
            f"{seconds} (408)",
        )
        body = f"request timeout: the request head did not arrive whole within {seconds}\n"
        self._close(
            b"HTTP/1.1 408 Request Timeout\r\ncontent-type: text/plain; charset=utf-8\r\n"
            b"connection: close\r\ncontent-length: %d\r\n\r\n%s" % (len(body), body.encode())
        )


class FairWebSocketProtocol(WebSocketsSansIOProtocol):
    """uvicorn's websockets-sansio protocol parsing a socket's bytes a slice per turn of
    the event loop, and logging a refused handshake as one throttled line (see the module
    docstring)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._unparsed = bytearray()
        self._parse_scheduled = False
        self._paused_by_us = False

    def data_received(self, data: bytes) -> None:
        self._unparsed += data
        if len(self._unparsed) > MAX_UNPARSED and not self._paused_by_us:
            self._paused_by_us = True
            self.transport.pause_reading()
        self._schedule_parse()

    def _schedule_parse(self) -> None:
        # The next slice once the app has taken every message of the last one.
        # (After the close, uvicorn drops the messages but must find the peer's close.)
        if self._unparsed and not self._parse_scheduled and (self.queue.empty() or self.close_sent):
            self._parse_scheduled = True
            self.loop.call_soon(self._parse_slice)

    def _parse_slice(self) -> None:
        self._parse_scheduled = False
        if self.disconnected:
            self._unparsed.clear()
            return
        data = bytes(self._unparsed[:PARSE_SLICE])
        del self._unparsed[:PARSE_SLICE]
        super().data_received(data)
        if self._paused_by_us and len(self._unparsed) <= MAX_UNPARSED // 2:
            self._paused_by_us = False
            if not self.read_paused:  # else uvicorn resumes once the app has read
                self.transport.resume_reading()
        self._schedule_parse()

    def connection_lost(self, exc: Exception | None) -> None:
        self._unparsed.clear()
        super().connection_lost(exc)

    async def receive(self) -> Any:
        message = await super().receive()
        self._schedule_parse()
        return message

    async def send(self, message: Any) -> None:
        kind = message["type"]
        refusal = self.initial_response is None and kind == "websocket.http.response.start"
        await super().send(message)
        if refusal:
            _log_once.log(
                logging.WARNING,
                "ws-refused",
                f"refused a WebSocket on {self.scope.get('path', '?')!r} from "
                f"{_peer(self.client)} with {message.get('status')} (Host "
                f"{_host(self.scope)!r})",
            )
        if (
            message["type"] == "websocket.http.response.body"
            and not message.get("more_body", False)
            and self.close_sent
        ):
            # The refusal is sent: the handshake is over (uvicorn would log an error).
            self.handshake_complete = True


def _host(scope: Any) -> str:
    for key, value in scope.get("headers", ()):
        if key == b"host":
            text: str = value.decode("latin-1")[:80]
            return text
    return ""


def uvicorn_protocols(
    limits: Limits,
) -> tuple[type[GuardedH11Protocol], type[FairWebSocketProtocol]]:
    """The HTTP and WebSocket protocol classes for one server with ``limits``."""
    lim = limits

    class Http(GuardedH11Protocol):
        limits = lim
        waiting = {}

    return Http, FairWebSocketProtocol

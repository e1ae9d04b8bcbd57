"""A game WebSocket for the web tests (Starlette's TestClient): helpers that read up to
the message a test waits for. Each page's tests subclass it with that game's moves."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

Msg = dict[str, Any]


class WsConn:
    """A joined game socket; ``state`` is the last state received (``{}`` before one)."""

    #: messages read while waiting for one before a test gives up
    limit = 5000

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.state: Msg = {}

    def send(self, msg: Msg | str) -> None:
        self.ws.send_text(msg if isinstance(msg, str) else json.dumps(msg))

    def recv(self) -> Msg:
        msg: Msg = self.ws.receive_json()
        if msg["type"] == "state":
            self.state = msg
        return msg

    def until(self, pred: Callable[[Msg], bool]) -> Msg:
        for _ in range(self.limit):
            msg = self.recv()
            if pred(msg):
                return msg
        raise AssertionError(f"no matching message in {self.limit}; last state: {self.state}")

    def next_state(self, pred: Callable[[Msg], bool] = lambda s: True) -> Msg:
        return self.until(lambda m: m["type"] == "state" and pred(m))

    def next_error_text(self) -> str:
        """The next error's one-line text; a state arriving first means the message was
        acted on."""
        msg = self.until(lambda m: m["type"] in ("error", "state"))
        assert msg["type"] == "error", f"expected an error, got a new state: {msg}"
        assert set(msg) == {"type", "message"}
        text: str = msg["message"]
        assert "\n" not in text and "Traceback" not in text and "internal" not in text
        assert 0 < len(text) < 300
        return text

    def analysis(self, pred: Callable[[Msg], bool] = lambda m: True) -> Msg:
        """The next ``analysis`` message matching ``pred`` (others are skipped)."""
        return self.until(lambda m: m["type"] == "analysis" and pred(m))

    def valued(self, position: int, pred: Callable[[Msg], bool] = lambda m: True) -> Msg:
        """The next analysis message with values, for ``position`` (checked: every one on
        the way is of the game shown, and none of an older position follows the state of a
        newer one)."""

        def wanted(m: Msg) -> bool:
            if m["type"] != "analysis":
                return False
            assert m["id"] == self.state["id"], m
            assert m["position"] == len(self.state["history"]), (m["position"], m["status"])
            return m["position"] == position and m["data"] is not None and pred(m)

        return self.until(wanted)

    def join(self, game_id: str | None = None) -> Msg:
        self.send({"type": "join", "id": game_id} if game_id else {"type": "join"})
        return self.next_state()

    def resync(self) -> Msg:
        """Ask for the current state again (a re-join of the same game)."""
        return self.join(self.state["id"])

    def new(self, **fields: Any) -> Msg:
        old = self.state.get("id")
        self.send({"type": "new", **fields})
        return self.next_state(lambda s: s["id"] != old)

    def load(self, text: str) -> Msg:
        old = self.state.get("id")
        self.send({"type": "load", "text": text})
        return self.next_state(lambda s: s["id"] != old)


def stable(state: Msg) -> Msg:
    """A state without its clock reading, for before/after comparisons."""
    s = dict(state)
    if s.get("thinking"):
        s["thinking"] = {k: v for k, v in s["thinking"].items() if k != "seconds"}
    s.pop("info", None)
    if s.get("clocks"):  # the timed move's time so far: a clock reading too
        s["clocks"] = {k: v for k, v in s["clocks"].items() if k != "elapsed"}
    return s

"""The WebSocket protocol of a game view: parsing and validating client messages.

Every client message is one JSON object with a ``type``; anything else is answered with
``{"type": "error", "message": ...}`` — one line saying what was wrong and what was expected
— and changes nothing. Client → server:

``{"type": "join", "id"?: str}``
    attach to saved game ``id`` (a new game if absent, unknown or another game's);
    answered with ``state``.
``{"type": "new", "size"?: 4|6, "seed"?: int|digits|null, "players"?: {"1"?: level, "2"?: level}}``
    start a new game (a new id). Mattix: a null or missing seed picks a random deal.
    Othello takes only ``players`` (a new game is the standard start).
``{"type": "move", "square": "c2"}``
    the human to move plays that square (Mattix: takes the piece there; Othello: puts a
    disc there, or ``"pass"`` when it has no move).
``{"type": "load", "text": "f5d6c3..."}``
    Othello only: a new game (a new id, same players) from a pasted transcript or board
    string (64 squares ``X``/``O``/``-`` and the side to move); bad text gets the board's
    one-line error and changes nothing.
``{"type": "undo"}``
    take back moves to the previous human turn (stops a running search first).
``{"type": "stop"}``
    the thinking CPU moves at once with its best move so far.
``{"type": "settings", "players"?: {...}, "delay_ms"?: int, "paused"?: bool}``
    change who plays each side, the delay between CPU moves, or pause / resume the CPU.

Server → client: ``state`` (the whole game view, after every change), ``info`` and
``progress`` (live thinking), ``notice`` and ``error`` (one line each).

Which messages and fields a game takes is given by its :class:`GameRules` (see
:mod:`banmen.web.games`); each game has its own socket, ``/ws/<game>``.
"""

from __future__ import annotations

import json
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "MAX_MESSAGE_BYTES",
    "MAX_DELAY_MS",
    "MAX_SEED",
    "MAX_LOAD_CHARS",
    "ProtocolError",
    "GameRules",
    "Join",
    "NewGame",
    "Move",
    "Undo",
    "Stop",
    "Settings",
    "Load",
    "Message",
    "parse_message",
]

#: Longest accepted message; real ones are well under 200 bytes.
MAX_MESSAGE_BYTES = 4096
MAX_DELAY_MS = 10_000
MAX_SEED = 2**64 - 1
#: Longest pasted text for 'load' (a full Othello transcript is 120 characters).
MAX_LOAD_CHARS = 1000


class ProtocolError(ValueError):
    """A client message that cannot be carried out; ``str(e)`` is the one-line reply."""


@dataclass(frozen=True)
class GameRules:
    """What one game's socket accepts, beyond the messages every game has."""

    #: level names a side may be given
    levels: Collection[str]
    #: board sizes 'new' may ask for (empty: the game has one size, and no 'size' field)
    sizes: Collection[int] = ()
    #: whether 'new' takes a 'seed' (a Mattix deal)
    seeds: bool = False
    #: whether the game has a 'load' message (paste a position or a game record)
    load: bool = False
    #: a square name for the examples in error messages
    example: str = "c2"
    #: the message types this game accepts, in the order error messages list them
    types: tuple[str, ...] = field(init=False)

    def __post_init__(self) -> None:
        types = tuple(t for t in _FIELDS if t != "load" or self.load)
        object.__setattr__(self, "types", types)

    def fields(self, kind: str) -> tuple[str, ...]:
        if kind != "new":
            return _FIELDS[kind]
        return tuple(
            f for f in _FIELDS["new"] if (f != "size" or self.sizes) and (f != "seed" or self.seeds)
        )


@dataclass(frozen=True)
class Join:
    id: str | None


@dataclass(frozen=True)
class NewGame:
    size: int | None
    seed: int | None
    players: dict[int, str] | None


@dataclass(frozen=True)
class Move:
    square: str


@dataclass(frozen=True)
class Undo:
    pass


@dataclass(frozen=True)
class Stop:
    pass


@dataclass(frozen=True)
class Settings:
    players: dict[int, str] | None
    delay_ms: int | None
    paused: bool | None


@dataclass(frozen=True)
class Load:
    text: str


Message = Join | NewGame | Move | Undo | Stop | Settings | Load

_FIELDS: dict[str, tuple[str, ...]] = {
    "join": ("id",),
    "new": ("size", "seed", "players"),
    "move": ("square",),
    "undo": (),
    "stop": (),
    "settings": ("players", "delay_ms", "paused"),
    "load": ("text",),
}


def _example(square: str) -> str:
    return f'{{"type": "move", "square": "{square}"}}'


def _kind(value: Any) -> str:
    """How JSON calls ``value``, for error messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"


def _int(value: Any, field: str, lo: int, hi: int) -> int:
    # bool is an int in Python but not in JSON: true is not a board size.
    if not isinstance(value, int) or isinstance(value, bool):
        raise ProtocolError(f"'{field}' must be an integer from {lo} to {hi}, got {_kind(value)}")
    if not lo <= value <= hi:
        raise ProtocolError(f"'{field}' must be from {lo} to {hi}, got {value}")
    return value


def _seed(value: Any) -> int | None:
    if value is None:
        return None
    # JavaScript numbers lose precision above 2**53, so seeds may come as digit strings.
    if isinstance(value, str):
        text = value.strip()
        if text == "":
            return None
        if not text.isascii() or not text.isdigit() or len(text) > 20:
            raise ProtocolError(
                f"'seed' must be a whole number from 0 to {MAX_SEED} (or empty for random), "
                f"got {value[:24]!r}"
            )
        value = int(text)
    return _int(value, "seed", 0, MAX_SEED)


def _players(value: Any, levels: Collection[str]) -> dict[int, str]:
    names = ", ".join(levels)
    if not isinstance(value, dict):
        raise ProtocolError(
            f'\'players\' must be an object like {{"1": "human", "2": "normal"}}, '
            f"got {_kind(value)}"
        )
    if not value:
        raise ProtocolError('\'players\' is empty: give a level for side "1" and/or "2"')
    out: dict[int, str] = {}
    for key, level in value.items():
        if key not in ("1", "2"):
            raise ProtocolError(f'bad side {key[:16]!r} in \'players\': expected "1" or "2"')
        if not isinstance(level, str) or level not in levels:
            shown = repr(level[:24]) if isinstance(level, str) else _kind(level)
            raise ProtocolError(f"bad level {shown} for player {key}: expected one of {names}")
        out[int(key)] = level
    return out


def _decode(raw: str | bytes | None, square: str) -> dict[str, Any]:
    example = _example(square)
    if raw is None:
        raise ProtocolError(f"empty message: expected a JSON object like {example}")
    if isinstance(raw, bytes):
        raise ProtocolError(
            f"binary frame: expected a text frame holding a JSON object like {example}"
        )
    # len() counts characters; UTF-8 needs at least as many bytes, so check that first
    # and only encode messages that might be short enough.
    size = len(raw) if len(raw) > MAX_MESSAGE_BYTES else len(raw.encode("utf-8", "replace"))
    if size > MAX_MESSAGE_BYTES:
        raise ProtocolError(
            f"message too long ({size} bytes): the limit is {MAX_MESSAGE_BYTES} bytes"
        )
    try:
        data = json.loads(raw, parse_constant=_reject_constant)
    except json.JSONDecodeError as e:
        raise ProtocolError(
            f"not valid JSON ({e.msg} at position {e.pos}): expected an object like {example}"
        ) from None
    except (RecursionError, ValueError):
        raise ProtocolError(f"not usable JSON: expected a flat object like {example}") from None
    if not isinstance(data, dict):
        raise ProtocolError(
            f'message is {_kind(data)}: expected a JSON object with a "type" field, like {example}'
        )
    return data


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def parse_message(raw: str | bytes | None, rules: GameRules) -> Message:
    """Validate one client message for a game with ``rules``; raises
    :class:`ProtocolError` with the reply text."""
    data = _decode(raw, rules.example)
    kind = data.get("type")
    levels, sizes, ex = rules.levels, rules.sizes, rules.example
    if not isinstance(kind, str) or kind not in rules.types:
        shown = repr(kind[:24]) if isinstance(kind, str) else _kind(kind)
        what = 'missing "type"' if "type" not in data else f"unknown message type {shown}"
        raise ProtocolError(f"{what}: expected one of {', '.join(rules.types)}")
    allowed = rules.fields(kind)
    for key in data:
        if key != "type" and key not in allowed:
            expected = ", ".join(allowed) if allowed else "no other fields"
            raise ProtocolError(f"unknown field {key[:24]!r} in '{kind}': expected {expected}")

    if kind == "join":
        gid = data.get("id")
        if gid is not None and not isinstance(gid, str):
            raise ProtocolError(f"'id' must be a string (a saved game's id), got {_kind(gid)}")
        return Join(gid or None)
    if kind == "new":
        size = data.get("size")
        if size is not None and sizes:
            lo, hi = min(sizes), max(sizes)
            size = _int(size, "size", lo, hi)
            if size not in sizes:
                raise ProtocolError(
                    f"'size' must be one of {', '.join(map(str, sorted(sizes)))}, got {size}"
                )
        players = data.get("players")
        return NewGame(
            size, _seed(data.get("seed")), None if players is None else _players(players, levels)
        )
    if kind == "move":
        if "square" not in data:
            raise ProtocolError(f"'move' needs a 'square', like {_example(ex)}")
        square = data["square"]
        if not isinstance(square, str):
            raise ProtocolError(f"'square' must be a string like '{ex}', got {_kind(square)}")
        if len(square) > 8:
            raise ProtocolError(f"bad square {square[:12]!r}...: expected a name like '{ex}'")
        return Move(square)
    if kind == "load":
        text = data.get("text")
        if not isinstance(text, str):
            raise ProtocolError(
                "'load' needs a 'text': a transcript like f5d6c3 or a board string, "
                f"got {_kind(text)}"
            )
        if len(text) > MAX_LOAD_CHARS:
            raise ProtocolError(
                f"'text' is too long ({len(text)} characters): the limit is {MAX_LOAD_CHARS}"
            )
        return Load(text)
    if kind == "undo":
        return Undo()
    if kind == "stop":
        return Stop()
    # settings
    players = data.get("players")
    delay = data.get("delay_ms")
    paused = data.get("paused")
    if paused is not None and not isinstance(paused, bool):
        raise ProtocolError(f"'paused' must be true or false, got {_kind(paused)}")
    if players is None and delay is None and paused is None:
        raise ProtocolError("'settings' changes nothing: give players, delay_ms and/or paused")
    return Settings(
        None if players is None else _players(players, levels),
        None if delay is None else _int(delay, "delay_ms", 0, MAX_DELAY_MS),
        paused,
    )

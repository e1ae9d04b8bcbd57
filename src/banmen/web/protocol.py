"""The WebSocket protocol of a game view: parsing and validating client messages.

Every client message is one JSON object with a ``type``; anything else is answered with
``{"type": "error", "message": ...}`` — one line saying what was wrong and what was expected
— and changes nothing. Client → server:

``{"type": "join", "id"?: str}``
    attach to saved game ``id`` (a new game if absent, unknown or another game's);
    answered with ``state``.
``{"type": "new", "size"?: 4|6, "seed"?: int|digits|null, "players"?: {"1"?: level, "2"?: level}}``
    start a new game (a new id). Mattix: a null or missing seed picks a random deal.
    Othello takes only ``players`` (a new game is the standard start). Go takes ``size``
    (9, 13 or 19), ``rules`` (a preset: ``chinese``, ``japanese``, ``tromp-taylor``,
    ``aga``, ``new-zealand``), ``komi`` (whole or half points; default: the preset's) and
    ``handicap`` (0, or 2 to 9 black stones on the fixed points, white to move; with a
    handicap the komi defaults to half a point); what is not given carries over from the
    present game, except the handicap (none unless asked for).
``{"type": "move", "square": "c2"}``
    the human to move plays that square (Mattix: takes the piece there; Othello: puts a
    disc there, or ``"pass"`` when it has no move; Go: a GTP vertex like ``"D4"``,
    ``"pass"`` or ``"resign"``; a game on the generic board page: a move's name, as the
    state's ``clicks`` give them). A game played from cell to cell on the generic board
    page (:attr:`GameRules.cell_pairs`) also takes ``{"type": "move", "from": 12, "to":
    20}``: the cells clicked, numbered row by row from the top.
``{"type": "load", "text": "f5d6c3..."}``
    Othello and Go: a new game (a new id, same players) from pasted text — Othello: a
    transcript or a board string (64 squares ``X``/``O``/``-`` and the side to move); Go:
    an SGF record. Bad text gets the board's one-line error and changes nothing.
``{"type": "undo"}``
    take back moves to the previous human turn (stops a running search first).
``{"type": "stop"}``
    the thinking CPU moves at once with its best move so far.
``{"type": "settings", "players"?: {...}, "delay_ms"?: int, "paused"?: bool}``
    change who plays each side, the delay between CPU moves, or pause / resume the CPU.
``{"type": "analysis", "on": true|false}``
    Mattix, Othello and Go: switch this connection's analysis on or off (a connection
    starts with it off; the pages send their choice after every ``join``). While on, the
    game's position — whoever is to move — is analysed in the engine pool
    (:attr:`banmen.games.GameDef.analyse`: every legal move's value for the mover; Go:
    the win rate and visits of each move the tree search looked at) and the client gets
    ``analysis`` messages as the values deepen. A move, undo, new game or load stops it
    at once and starts the new position's; a finished game has none (Go: nor a resigned
    game or one being counted). CPU moves
    keep priority: an analysis waits while the game's CPU (or any search in the pool)
    needs the engine, and is stopped for it.

Go's own messages (see :class:`banmen.web.games.GoGame`): ``{"type": "score"}`` (stop
playing and count the game now; two passes do the same), ``{"type": "toggle", "square":
"D4"}`` (while counting: mark the group on that point dead, or alive again) and
``{"type": "done"}`` (accept the count: the result is recorded).

Server → client: ``state`` (the whole game view, after every change), ``info`` and
``progress`` (live thinking), ``notice`` and ``error`` (one line each), and for a client
with analysis on, ``{"type": "analysis", "id": game id, "position": plies played (the
state's history length), "on": bool, "status": ..., "data": Analysis.to_dict() | null}``
— ``status`` ``waiting`` (for an engine: CPU moves first), ``running`` (``data``: the
latest values), ``done`` (``data``: the final values; ``data.stopped_by`` ``exact`` when
every value is proved, else ``time``; Go's are never proved), ``over`` (a finished game,
or a Go game being counted: nothing to analyse),
``failed`` (a one-line ``message`` says why) or ``off``; a ``message`` may say what a
waiting analysis waits for. Messages of another position than the one shown are stale:
the page ignores them.

Which messages and fields a game takes is given by its :class:`GameRules` (see
:mod:`banmen.web.games`); each game has its own socket, ``/ws/<game>``.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Any

from banmen.clock import TimeControl, parse_time_control
from banmen.numbers import Bounded, NumberError, shown

__all__ = [
    "MAX_MESSAGE_BYTES",
    "MAX_DELAY_MS",
    "MAX_SEED",
    "MAX_LOAD_CHARS",
    "MAX_KOMI",
    "MAX_CELLS",
    "MAX_CLOCK_CHARS",
    "ProtocolError",
    "GameRules",
    "Join",
    "NewGame",
    "Move",
    "Undo",
    "Stop",
    "Settings",
    "Load",
    "Action",
    "AnalysisSwitch",
    "Message",
    "decode_object",
    "parse_message",
]

#: Longest accepted message; real ones are well under 200 bytes.
MAX_MESSAGE_BYTES = 4096
MAX_DELAY_MS = 10_000
MAX_SEED = 2**64 - 1
#: Longest pasted text for 'load' (a full Othello transcript is 120 characters).
MAX_LOAD_CHARS = 1000
#: Largest 'komi' a new game may ask for, either sign.
MAX_KOMI = 100
#: Cells of the largest board a 'move' from cell to cell may name.
MAX_CELLS = 10_000


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
    #: rule sets 'new' may ask for (Go's presets); empty: no 'rules' field
    rule_sets: Collection[str] = ()
    #: whether 'new' takes a 'komi' and a 'handicap' (Go)
    komi: bool = False
    #: the game's own messages, type -> fields (only 'square' is supported), carried out by
    #: the game's adapter (:meth:`banmen.web.games.WebGame.act`)
    actions: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    #: what 'load' takes, for its error messages
    load_hint: str = "a transcript like f5d6c3 or a board string"
    #: the longest message and the longest 'load' text the game accepts
    max_message: int = MAX_MESSAGE_BYTES
    max_load: int = MAX_LOAD_CHARS
    #: whether the game has an 'analysis' message (its GameDef.analyse)
    analysis: bool = False
    #: whether 'move' also takes two cells, 'from' and 'to' (a game played from cell to
    #: cell on the generic board page)
    cell_pairs: bool = False
    #: the longest move name (a 'square') the game takes
    max_square: int = 8
    #: the message types this game accepts, in the order error messages list them
    types: tuple[str, ...] = field(init=False)

    def __post_init__(self) -> None:
        offered = {"load": self.load, "analysis": self.analysis}
        types = tuple(t for t in _FIELDS if offered.get(t, True))
        object.__setattr__(self, "types", types + tuple(self.actions))

    def fields(self, kind: str) -> tuple[str, ...]:
        if kind in self.actions:
            return self.actions[kind]
        if kind == "move" and self.cell_pairs:
            return ("square", "from", "to")
        if kind != "new":
            return _FIELDS[kind]
        wanted = {"size": bool(self.sizes), "seed": self.seeds, "rules": bool(self.rule_sets)}
        wanted["komi"] = wanted["handicap"] = self.komi
        return tuple(f for f in _FIELDS["new"] if wanted.get(f, True))


@dataclass(frozen=True)
class Join:
    id: str | None


@dataclass(frozen=True)
class NewGame:
    size: int | None
    seed: int | None
    players: dict[int, str] | None
    rules: str | None = None
    komi: float | None = None
    handicap: int = 0
    #: the game's time control (``None``: the present game's)
    clock: TimeControl | None = None


@dataclass(frozen=True)
class Move:
    """'move': a move's name, or (games played from cell to cell) the two cells clicked."""

    square: str
    cells: tuple[int, int] | None = None


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


@dataclass(frozen=True)
class Action:
    """One of the game's own messages (:attr:`GameRules.actions`), e.g. Go's 'toggle'."""

    kind: str
    square: str | None = None


@dataclass(frozen=True)
class AnalysisSwitch:
    """'analysis': this connection's analysis on or off."""

    on: bool


Message = Join | NewGame | Move | Undo | Stop | Settings | Load | Action | AnalysisSwitch

_FIELDS: dict[str, tuple[str, ...]] = {
    "join": ("id",),
    "new": ("size", "seed", "rules", "komi", "handicap", "players", "clock"),
    "move": ("square",),
    "undo": (),
    "stop": (),
    "settings": ("players", "delay_ms", "paused"),
    "load": ("text",),
    "analysis": ("on",),
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


def _number(value: Any, bounded: Bounded) -> Any:
    """A JSON value (or a form field's text) read by ``bounded`` (:mod:`banmen.numbers`): a
    number it cannot take (``1e400``, 400 digits, ``true``) is one ``ProtocolError`` line."""
    try:
        return bounded(value)
    except NumberError:
        got = _kind(value) if isinstance(value, bool | list | dict) else shown(value)
        raise ProtocolError(f"'{bounded.what}' must be {bounded.expected()}, got {got}") from None


def _int(value: Any, field: str, lo: int, hi: int, text: bool = False) -> int:
    """A JSON integer (bool is an int in Python but not in JSON: true is not a board size),
    or with ``text`` its digits as a string, from ``lo`` to ``hi``."""
    bounded = Bounded(field, lo, hi, integer=True)
    if not (isinstance(value, int) and not isinstance(value, bool)) and not (
        text and isinstance(value, str)
    ):
        raise ProtocolError(f"'{field}' must be {bounded.expected()}, got {_kind(value)}")
    return int(_number(value, bounded))


def _seed(value: Any) -> int | None:
    # JavaScript numbers lose precision above 2**53, so seeds may come as digit strings.
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    return _int(value, "seed", 0, MAX_SEED, text=True)


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


def _square(value: Any, ex: str, longest: int = 8) -> str:
    if not isinstance(value, str):
        raise ProtocolError(f"'square' must be a string like '{ex}', got {_kind(value)}")
    if len(value) > longest:
        raise ProtocolError(f"bad square {value[:12]!r}...: expected a name like '{ex}'")
    return value


def _rule_set(value: Any, allowed: Collection[str]) -> str | None:
    if value is None:
        return None
    names = ", ".join(allowed)
    if not isinstance(value, str):
        raise ProtocolError(f"'rules' must be a string, one of {names}; got {_kind(value)}")
    name = value.strip().lower()
    if name not in allowed:
        raise ProtocolError(f"unknown rules {value[:24]!r}: expected one of {names}")
    return name


_HALF_POINTS = "whole or half points, like 6.5"


def _komi(value: Any) -> float | None:
    if value is None or (isinstance(value, str) and not value.strip()):  # a form field's text
        return None
    k = float(_number(value, Bounded("komi", -MAX_KOMI, MAX_KOMI, note=_HALF_POINTS)))
    if (2 * k) != int(2 * k):
        raise ProtocolError(f"'komi' must be {_HALF_POINTS}; got {k:g}")
    return k + 0.0  # no -0.0


def _handicap(value: Any) -> int:
    """0 (none) or 2-9 stones; a form field may send its text. Whether the board takes
    that many is the game's to say (a 9x9 takes 9, a 13x13 too, a 19x19 too)."""
    if value is None:
        return 0
    n = _int(value, "handicap", 0, 9, text=True)
    if n == 1:
        raise ProtocolError("'handicap' must be 0 (none) or 2 to 9 stones, got 1")
    return n


#: the longest 'clock' a 'new' may give (the longest real one is about 30 characters)
MAX_CLOCK_CHARS = 64


def _clock(value: Any) -> TimeControl | None:
    """A time control's text (:func:`banmen.clock.parse_time_control`), or ``None``."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise ProtocolError(f'\'clock\' must be a string like "3+2" or "inf", got {_kind(value)}')
    if len(value) > MAX_CLOCK_CHARS:
        raise ProtocolError(
            f"'clock' is too long ({len(value)} characters): a time control like \"3+2\""
        )
    try:
        return parse_time_control(value)
    except ValueError as e:
        raise ProtocolError(str(e)) from None


def decode_object(
    raw: str | bytes | None, example: str, limit: int = MAX_MESSAGE_BYTES
) -> dict[str, Any]:
    """One WebSocket frame as a JSON object, for every socket of the app (its ``type`` is
    the caller's to check); :class:`ProtocolError` with a one-line reply otherwise, quoting
    ``example`` (a message the socket takes) as what was expected."""
    if raw is None:
        raise ProtocolError(f"empty message: expected a JSON object like {example}")
    if isinstance(raw, bytes):
        raise ProtocolError(
            f"binary frame: expected a text frame holding a JSON object like {example}"
        )
    # len() counts characters; UTF-8 needs at least as many bytes, so check that first
    # and only encode messages that might be short enough.
    size = len(raw) if len(raw) > limit else len(raw.encode("utf-8", "replace"))
    if size > limit:
        raise ProtocolError(f"message too long ({size} bytes): the limit is {limit} bytes")
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
    data = decode_object(raw, _example(rules.example), rules.max_message)
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
            size,
            _seed(data.get("seed")),
            None if players is None else _players(players, levels),
            _rule_set(data.get("rules"), rules.rule_sets),
            _komi(data.get("komi")),
            _handicap(data.get("handicap")),
            _clock(data.get("clock")),
        )
    if kind == "move":
        if rules.cell_pairs and ("from" in data or "to" in data):
            if "square" in data:
                raise ProtocolError("'move' takes a 'square' or 'from' and 'to', not both")
            cells = (
                _int(data.get("from"), "from", 0, MAX_CELLS - 1),
                _int(data.get("to"), "to", 0, MAX_CELLS - 1),
            )
            return Move("", cells)
        if "square" not in data:
            raise ProtocolError(f"'move' needs a 'square', like {_example(ex)}")
        return Move(_square(data["square"], ex, rules.max_square))
    if kind in rules.actions:
        if "square" not in allowed:
            return Action(kind)
        if "square" not in data:
            raise ProtocolError(
                f'\'{kind}\' needs a \'square\', like {{"type": "{kind}", "square": "{ex}"}}'
            )
        return Action(kind, _square(data["square"], ex))
    if kind == "load":
        text = data.get("text")
        if not isinstance(text, str):
            raise ProtocolError(f"'load' needs a 'text': {rules.load_hint}, got {_kind(text)}")
        if len(text) > rules.max_load:
            raise ProtocolError(
                f"'text' is too long ({len(text)} characters): the limit is {rules.max_load}"
            )
        return Load(text)
    if kind == "analysis":
        on = data.get("on")
        if not isinstance(on, bool):
            got = "it is missing" if "on" not in data else f"got {_kind(on)}"
            example = '{"type": "analysis", "on": true}'
            raise ProtocolError(f"'analysis' needs 'on': true or false, like {example}; {got}")
        return AnalysisSwitch(on)
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

"""The engine contract every front end drives: ``think(board, limit, on_info) -> Result``.

Modelled on python-chess's ``engine`` module: a :class:`~banmen.search.limits.Limit` bounds
a search, ``on_info`` receives :class:`Info` progress (at least after every completed
iteration), and the :class:`Result` says what was *proved*: ``exact`` is true only when the
score is the game-theoretic value; a search cut short by a limit reports its best move and a
heuristic score, and ``stopped_by`` says which limit ended it. An engine subclasses
:class:`Engine` and implements :meth:`Engine.choose`; :meth:`Engine.think` makes the
caller's arguments whole (a :class:`Request`) in one place for all of them.

This module is a leaf: it imports only ``banmen.search.limits``. Games declare the engines
they offer (``GameDef.engines``, a spec kind to a factory); the registry
(:func:`banmen.games.registry.make_engine`) builds one from a player spec::

    >>> spec = parse_spec("alphabeta:depth=3")
    >>> spec.kind, spec.limit
    ('alphabeta', Limit(time=None, depth=3, nodes=None))

Specs: ``alphabeta[:depth=N,time=S,nodes=N]`` (alias ``cpu``; default ``time=1``),
``perfect[:time=S]`` (exact solve), ``random[:seed=N]``, ``mcts[:time=S,playouts=N]``,
``mate[:time=S,nodes=N,hash=MB]`` (shogi mate problems), ``nboard:COMMAND``, ``gtp:COMMAND``.
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Generic, Protocol, TypeVar

from banmen.search.limits import Limit, StopFlag

__all__ = [
    "GameBoard",
    "Info",
    "Result",
    "Request",
    "Engine",
    "SpecError",
    "PlayerSpec",
    "parse_spec",
    "ENGINE_KINDS",
    "USER_KINDS",
    "EngineFailure",
    "FORFEIT_MARGIN",
    "UNTIMED_MOVE",
    "allowance",
]


#: the board type an engine plays on (contravariant: an engine for any board plays Othello)
BoardT = TypeVar("BoardT", bound="GameBoard", contravariant=True)


class GameBoard(Protocol):
    """The board API engines and front ends rely on (python-chess style ``push`` / ``pop``).

    Moves are ints in the game's own encoding; ``move_name`` / ``parse_move`` convert
    to and from the game's notation, and ``push_name`` plays the move a name gives."""

    @property
    def move_stack(self) -> list[int]: ...

    @property
    def legal_moves(self) -> Sequence[int]: ...

    @property
    def turn(self) -> int: ...

    def push(self, move: int) -> None: ...

    def pop(self) -> int: ...

    def is_game_over(self) -> bool: ...

    def result(self) -> str: ...

    def winner(self) -> int | None: ...

    def move_name(self, move: int) -> str: ...

    def parse_move(self, text: str) -> int: ...

    def push_name(self, text: str) -> None: ...

    def to_dict(self) -> dict[str, Any]: ...


@dataclass(frozen=True)
class Info:
    """Search progress, for live display. Moves are in the game's notation; ``extra``
    holds what a search of another kind reports besides (a mate search: the root's proof
    and disproof numbers and its phase)."""

    depth: int
    score: int
    nodes: int
    nps: float
    pv: list[str]
    seconds: float
    exact: bool = False
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return _without_empty_extra(asdict(self))


@dataclass
class Result:
    """The outcome of :meth:`Engine.think`.

    ``move`` is ``None`` only if the game is over, or if the engine offers no move (a mate
    solver that found no mate). ``score`` is from the mover's point of view in the game's
    own unit (Mattix: the final score margin; a mate: its length in plies); it is the
    proved value when ``exact`` is true and an estimate otherwise. ``stopped_by`` is one of
    ``exact`` (solved), ``depth``, ``time``, ``nodes``, ``stop``, ``memory``,
    ``game_over``, ``random``, ``player`` (a user's Python player's answer). ``extra``
    holds an engine's own details (a mate solver: its record of what was proved, and the
    line's steps).
    """

    move: str | None
    score: int | None = None
    depth: int = 0
    nodes: int = 0
    nps: float = 0.0
    pv: list[str] = field(default_factory=list)
    exact: bool = False
    stopped_by: str = "depth"
    seconds: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return _without_empty_extra(asdict(self))

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Result:
        return cls(**d)


def _without_empty_extra(d: dict[str, Any]) -> dict[str, Any]:
    """A record without ``extra`` when it holds nothing (most engines': nothing to show)."""
    if not d.get("extra"):
        d.pop("extra", None)
    return d


@dataclass(frozen=True)
class Request:
    """One call of :meth:`Engine.think`, its arguments made whole: ``limit`` is the
    engine's own default when the caller gave none, ``started`` the clock
    (``time.perf_counter()``) when the call came."""

    limit: Limit
    on_info: Callable[[Info], None] | None = None
    stop: StopFlag | None = None
    started: float = field(default_factory=time.perf_counter)

    def elapsed(self) -> float:
        """Seconds since the call came."""
        return time.perf_counter() - self.started

    def stopped(self) -> bool:
        """Has the caller asked the search to stop?"""
        return self.stop is not None and self.stop.is_set()


class Engine(ABC, Generic[BoardT]):
    """Anything that can choose a move: :meth:`think` is the call every front end makes.

    A subclass implements :meth:`choose` (one search, its arguments in a :class:`Request`)
    and may set :attr:`limit` (its default), :attr:`ends_at_game_over` (a finished game is
    answered by :meth:`game_over` without searching) and override :meth:`warm_up`, which
    loads (or compiles, or starts) whatever the first search would otherwise pay for, and
    :meth:`new_game`, which forgets what earlier games taught it (tables), so a game's
    moves depend only on its own seed."""

    name: str
    #: the limit of a :meth:`think` given none
    limit: Limit = Limit()
    #: answer a finished game with :meth:`game_over` (else the search answers it)
    ends_at_game_over: bool = False

    def think(
        self,
        board: BoardT,
        limit: Limit | None = None,
        on_info: Callable[[Info], None] | None = None,
        stop: StopFlag | None = None,
    ) -> Result:
        """The move for the side to move of ``board``, searched within ``limit`` (none:
        the engine's own); ``on_info`` receives progress; ``stop`` ends the search early.

        The first call runs :meth:`warm_up` before the clock starts: no limit pays for
        loading (or compiling) the engine's code."""
        if not self.__dict__.get("_warmed"):
            self.__dict__["_warmed"] = True
            self.warm_up()
        request = Request(self.limit_for(limit), on_info, stop)
        if self.ends_at_game_over and board.is_game_over():
            return self.game_over(board, request)
        return self.choose(board, request)

    @abstractmethod
    def choose(self, board: BoardT, request: Request) -> Result:
        """One search (see :meth:`think`)."""

    def limit_for(self, limit: Limit | None) -> Limit:
        """The limit a search runs under when :meth:`think` is given ``limit``."""
        return self.limit if limit is None else limit

    def game_over(self, board: BoardT, request: Request) -> Result:
        """The answer for a finished game (with :attr:`ends_at_game_over`)."""
        return Result(None, stopped_by="game_over")

    def warm_up(self) -> None:
        """Load whatever the first search would otherwise pay for (default: nothing): the
        compiled code of the engine's kernel sets (:func:`banmen.warm.ensure`), a program
        to start. Front ends call it before a clock starts (a GTP or USI session at its
        start, the web app's workers before they take a job); :meth:`think` calls it once
        itself. Calling it again costs nothing."""

    def new_game(self) -> None:
        """Forget what earlier games taught the engine (default: nothing to forget)."""

    def close(self) -> None:
        """Stop what the engine runs outside this process (default: nothing; a client of
        another program ends it). The engine may be used again: it starts afresh."""

    def reseed(self, seed: int) -> None:
        """After :meth:`new_game`: make this game's random choices a function of the
        engine's own seed and ``seed`` (the arena passes one per game and side, so that
        games under a fixed budget differ from deal to deal and replay the same).
        Default: nothing random to seed."""


# --------------------------------------------------------------------------- the referee


class EngineFailure(RuntimeError):
    """A user's engine failed (one line naming it and what it did): it could not start,
    exited, broke its protocol, answered an illegal move, overran its allowance, or
    (a ``python:`` player) raised. The clients' own errors (``UGIError``, ``GTPError``,
    ``NBoardError``, ``PlayerError``) are these; the arena records one as that player's
    forfeit, a front end answers it in one line."""


#: seconds past its time limit a user's engine may take for a move, at least: the
#: limit's half if that is more (a process answering on a loaded machine)
FORFEIT_MARGIN = 2.0
#: the longest a user's engine may take for a move with no time limit (a depth, its own
#: settings), in seconds; the protocol front ends' ``--max-move-time`` by default
UNTIMED_MOVE = 60.0


def allowance(seconds: float | None) -> float:
    """The longest a user's engine (a ``python:``, ``ugi:``, ``gtp:`` or ``nboard:``
    player) may take for a move whose time limit is ``seconds``: the limit plus its half,
    at least :data:`FORFEIT_MARGIN`; :data:`UNTIMED_MOVE` with no time limit. Its client
    gives up then, and the arena records the move as lost on time.

    >>> allowance(0.5), allowance(10.0), allowance(None)
    (2.5, 15.0, 60.0)
    """
    if seconds is None:
        return UNTIMED_MOVE
    return seconds + max(FORFEIT_MARGIN, seconds / 2)


# --------------------------------------------------------------------------- specs


class SpecError(ValueError):
    """A player spec string that does not name a player."""


#: every player kind a spec may name, with its form. Which games offer a kind, and which
#: options it takes there, each game declares (``GameDef.engines``, ``EngineKind``;
#: ``banmen players GAME`` prints them).
ENGINE_KINDS = {
    "alphabeta": "alphabeta[:key=value,...]",
    "perfect": "perfect[:key=value,...]",
    "random": "random[:seed=N]",
    "mcts": "mcts[:key=value,...]",
    "mate": "mate[:key=value,...]",
    "nboard": "nboard:[depth=N ]COMMAND",
    "gtp": "gtp:[time=SECONDS ]COMMAND",
    "ugi": "ugi:[time=SECONDS ][depth=N ][nodes=N ]COMMAND",
    "python": "python:FILE.py:NAME[,time=SECONDS][,key=value...]",
}
#: the kinds of player a user brings (their own code, or another program): the arena
#: judges them (a fault loses the game, not the run) and the web checks them at start
USER_KINDS = frozenset({"python", "ugi", "gtp", "nboard"})

_ALIASES = {"cpu": "alphabeta", "ab": "alphabeta"}
_FLAGS = {"learned", "nakade", "probcut"}  #: options that are 0 or 1
_ZERO_OK = {"seed", "widen"}  #: whole-number options that may be 0
_OPTIONS: dict[str, dict[str, type[int] | type[float]]] = {
    "alphabeta": {"depth": int, "time": float, "nodes": int, "learned": int, "probcut": int},
    "perfect": {"time": float, "nodes": int},
    "random": {"seed": int},
    "mcts": {
        "time": float,
        "playouts": int,
        "seed": int,
        "learned": int,
        "threads": int,
        "nakade": int,
        "widen": int,
    },
    "mate": {"time": float, "nodes": int, "hash": int},
}


@dataclass(frozen=True)
class PlayerSpec:
    kind: str
    options: dict[str, Any]
    text: str

    @property
    def limit(self) -> Limit:
        o = self.options
        if self.kind in ("perfect", "mate"):  # a solve: no bound unless one is given
            return Limit(time=o.get("time"), nodes=o.get("nodes"))
        if self.kind == "python":  # time=S if given (its think() gets it), else none
            return Limit(time=o.get("time"))
        if self.kind == "gtp":  # time=S sent as the engine's time settings, else its own
            return Limit(time=o.get("time"))
        if self.kind == "mcts":  # playouts are the search's nodes
            if not any(k in o for k in ("time", "playouts")):
                return Limit(time=1.0)
            return Limit(time=o.get("time"), nodes=o.get("playouts"))
        if not any(k in o for k in ("depth", "time", "nodes")):
            return Limit(time=1.0)
        return Limit(time=o.get("time"), depth=o.get("depth"), nodes=o.get("nodes"))


def _accepted() -> str:
    return ", ".join(ENGINE_KINDS.values()) + " (banmen players GAME: what each game offers)"


def parse_spec(text: str) -> PlayerSpec:
    """Parse ``KIND[:key=value,...]``; ``cpu:perfect`` is accepted for ``perfect``.

    >>> parse_spec("alphabeta:depth=3").limit
    Limit(time=None, depth=3, nodes=None)
    """
    if not isinstance(text, str) or not text.strip():
        raise SpecError(f"empty player spec: expected one of {_accepted()}")
    raw = text.strip()
    kind, _, rest = raw.partition(":")
    kind = _ALIASES.get(kind.strip().lower(), kind.strip().lower())
    if kind == "nboard":
        return _parse_nboard(raw, rest)
    if kind in ("gtp", "ugi"):
        return _parse_program(kind, raw, rest)
    if kind == "python":
        return _parse_python(raw, rest)
    items = [p.strip() for p in rest.split(",") if p.strip()] if rest else []
    if kind == "alphabeta" and "perfect" in items:
        kind = "perfect"
        items.remove("perfect")
    if kind not in ENGINE_KINDS:
        raise SpecError(f"unknown player {raw!r}: expected one of {_accepted()}")
    allowed = _OPTIONS[kind]
    options: dict[str, Any] = {}
    for item in items:
        key, eq, value = item.partition("=")
        key = key.strip().lower()
        if not eq or key not in allowed:
            names = ", ".join(f"{k}=" for k in allowed)
            raise SpecError(f"bad option {item!r} in {raw!r}: {kind} takes {names}")
        conv = allowed[key]
        try:
            v = conv(value.strip())
        except ValueError:
            what = "an integer" if conv is int else "a number"
            raise SpecError(f"bad value in {item!r}: {key} must be {what}") from None
        if key in _FLAGS:
            if v not in (0, 1):
                raise SpecError(f"bad value in {item!r}: {key} must be 0 or 1")
        elif key in _ZERO_OK:
            if v < 0:
                raise SpecError(f"bad value in {item!r}: {key} must be 0 or more")
        elif (conv is float and not v > 0) or (conv is int and v < 1):
            raise SpecError(f"bad value in {item!r}: {key} must be positive")
        if conv is float and v > 1e6:
            raise SpecError(f"bad value in {item!r}: {key} must be at most 1000000 seconds")
        options[key] = v
    return PlayerSpec(kind, options, raw)


def _parse_nboard(raw: str, rest: str) -> PlayerSpec:
    words = rest.split()
    depth = 8
    if words and words[0].lower().startswith("depth="):
        value = words.pop(0).split("=", 1)[1]
        if not value.isdigit() or not 1 <= int(value) <= 60:
            raise SpecError(f"bad depth in {raw!r}: expected a number from 1 to 60")
        depth = int(value)
    if not words:
        raise SpecError(f"{raw!r} names no command: expected nboard:[depth=N ]COMMAND")
    return PlayerSpec("nboard", {"depth": depth, "command": " ".join(words)}, raw)


#: the limits an external program's spec may give, before its command
_PROGRAM_LIMITS: dict[str, dict[str, type[int] | type[float]]] = {
    "gtp": {"time": float},
    "ugi": {"time": float, "depth": int, "nodes": int},
}


def _parse_program(kind: str, raw: str, rest: str) -> PlayerSpec:
    """``gtp:[time=S ]COMMAND``, ``ugi:[time=S ][depth=N ][nodes=N ]COMMAND``."""
    allowed = _PROGRAM_LIMITS[kind]
    keys = "".join(f"[{k}=N ]" for k in allowed)
    words = rest.split()
    options: dict[str, Any] = {}
    while words and "=" in words[0] and words[0].split("=", 1)[0].lower() in allowed:
        key, value = words.pop(0).split("=", 1)
        key = key.lower()
        try:
            v = allowed[key](value)
        except ValueError:
            v = 0
        if not 0 < v <= 1e6:
            raise SpecError(f"bad {key} in {raw!r}: expected a positive number, got {value!r}")
        options[key] = v
    if not words:
        raise SpecError(f"{raw!r} names no command: expected {kind}:{keys}COMMAND")
    return PlayerSpec(kind, {**options, "command": " ".join(words)}, raw)


def _option_value(text: str) -> int | float | str:
    """A ``python:`` option's value: a whole number, a number, else the text."""
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        return text


def _parse_python(raw: str, rest: str) -> PlayerSpec:
    """``python:FILE.py:NAME`` or ``python:package.module:NAME``, then ``,key=value``
    options passed to ``NAME`` as keyword arguments — but ``time=SECONDS``, the player's
    time a move (its ``think`` gets it as the limit; the referee judges it).

    >>> parse_spec("python:me.py:Bot,time=2,level=3").options["time"]
    2.0
    """
    target, *items = [p.strip() for p in rest.split(",")]
    where, _, name = target.rpartition(":")
    expected = "expected python:FILE.py:NAME or python:package.module:NAME[,key=value...]"
    if not where or not name.isidentifier():
        raise SpecError(f"{raw!r} names no player: {expected}")
    kwargs: dict[str, Any] = {}
    limit: dict[str, float] = {}
    for item in items:
        key, eq, value = item.partition("=")
        if not eq or not key.strip().isidentifier():
            raise SpecError(f"bad option {item!r} in {raw!r}: options are key=value")
        if key.strip() == "time":
            seconds = _option_value(value.strip())
            if isinstance(seconds, str) or not 0 < seconds <= 1e6:
                raise SpecError(f"bad time in {raw!r}: expected a positive number of "
                                f"seconds, got {value.strip()!r}")  # fmt: skip
            limit = {"time": float(seconds)}
            continue
        kwargs[key.strip()] = _option_value(value.strip())
    return PlayerSpec("python", {"where": where, "name": name, "kwargs": kwargs, **limit}, raw)

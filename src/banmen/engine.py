"""The engine contract every front end drives: ``think(board, limit, on_info) -> Result``.

Modelled on python-chess's ``engine`` module: a :class:`~banmen.search.limits.Limit` bounds
a search, ``on_info`` receives :class:`Info` progress (at least after every completed
iteration), and the :class:`Result` says what was *proved*: ``exact`` is true only when the
score is the game-theoretic value; a search cut short by a limit reports its best move and a
heuristic score, and ``stopped_by`` says which limit ended it. An engine subclasses
:class:`Engine` and implements :meth:`Engine.choose`; :meth:`Engine.think` makes the
caller's arguments whole (a :class:`Request`) in one place for all of them.

This module is a leaf: it imports only ``banmen.search.limits`` and the game clock
``banmen.clock``. It holds what a player
spec *is* once read (:class:`PlayerSpec`: typed data), not what any kind is: each kind of
search, player and evaluator declares its own options (:mod:`banmen.kinds`) and the
registry finds them by entry point and reads a spec's text once
(:func:`banmen.games.registry.parse_spec`), then builds the engine
(:func:`banmen.games.registry.make_engine`)::

    >>> from banmen.games.registry import parse_spec
    >>> spec = parse_spec("alphabeta:depth=3")
    >>> spec.kind, spec.limit
    ('alphabeta', Limit(time=None, depth=3, nodes=None))
    >>> PlayerSpec.from_dict(spec.to_dict()) == spec
    True

``banmen players GAME`` lists the kinds a game offers, with their options.
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Generic, Protocol, TypeVar

from banmen.clock import EXPIRY_MARGIN
from banmen.search.limits import Limit, StopFlag

__all__ = [
    "GameBoard",
    "Info",
    "Result",
    "Request",
    "Engine",
    "SpecError",
    "Part",
    "PlayerSpec",
    "EngineFailure",
    "FORFEIT_MARGIN",
    "UNTIMED_MOVE",
    "allowance",
    "move_allowance",
    "moves_ahead",
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
        request = Request(self.limit_for(limit).on_clock(moves_ahead(board)), on_info, stop)
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


def moves_ahead(board: object) -> int | None:
    """How many more moves the side to move of ``board`` is expected to play: the board's
    own estimate (an optional ``moves_ahead()`` method: Othello's half the empty squares,
    Go's third of the empty points), else ``None`` (the clock's default is used)."""
    estimate = getattr(board, "moves_ahead", None)
    if estimate is None:
        return None
    try:
        return max(1, int(estimate()))
    except Exception:  # a board's estimate is advice: a broken one is none
        return None


def move_allowance(limit: Limit) -> float:
    """How long a user's engine may take for a move under ``limit`` before its client
    gives it up: on a game clock, until its flag falls plus the referee's expiry margin
    (:data:`banmen.clock.EXPIRY_MARGIN`) and a little more, so that the referee, not the
    client, calls the loss on time; otherwise :func:`allowance` of its time limit."""
    if limit.timed:
        assert limit.clock is not None
        return limit.clock.until_flag() + EXPIRY_MARGIN + 0.5
    return allowance(limit.time)


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
    """A player spec string that does not name a player (one line saying what is wrong and
    what was expected)."""


@dataclass(frozen=True)
class Part:
    """One side of a spec read: a kind and its typed options (the evaluator of
    ``alphabeta:depth=6+patterns:weights=w.npz`` is ``Part("patterns", {"weights":
    "w.npz"})``)."""

    kind: str
    options: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "options": dict(self.options)}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Part:
        return cls(str(d["kind"]), dict(d.get("options") or {}))


@dataclass(frozen=True)
class PlayerSpec:
    """A player spec, read once (:func:`banmen.games.registry.parse_spec`): the search or
    player ``kind`` and its typed ``options``, the ``evaluator`` it was given (``None``:
    the game's default), its ``limit`` (what its options bound; a front end may bring its
    own), whether it is a ``user``'s player (their code or another program: judged by the
    referee, never trusted) and the ``text`` it was read from (its name in records). It
    crosses process pipes and SQLite as data (:meth:`to_dict`), never as text to read
    again."""

    kind: str
    options: dict[str, Any]
    text: str
    evaluator: Part | None = None
    limit: Limit = Limit()
    user: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "options": dict(self.options),
            "text": self.text,
            "evaluator": None if self.evaluator is None else self.evaluator.to_dict(),
            "limit": self.limit.to_dict(),
            "user": self.user,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> PlayerSpec:
        """The spec :meth:`to_dict` wrote (``ValueError`` if ``d`` is not one)."""
        try:
            ev = d.get("evaluator")
            options = d["options"]
            if not isinstance(options, dict):
                raise TypeError("options")
            part = None if ev is None else Part.from_dict(ev)
            limit = Limit.from_dict(d.get("limit") or {})
            return cls(str(d["kind"]), dict(options), str(d["text"]), part, limit,
                       bool(d.get("user", False)))  # fmt: skip
        except (KeyError, TypeError, AttributeError, ValueError) as e:
            raise ValueError(f"not a player spec record: {type(e).__name__}: {e}") from None

    def __hash__(self) -> int:
        return hash(self.text)

"""What every game tells the rest of banmen about itself."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, Protocol, Self, TypeVar

from banmen.engine import Engine, GameBoard, Part, PlayerSpec, Result
from banmen.games.outcome import Outcome, Termination
from banmen.kinds import Option
from banmen.warm import KernelSet

if TYPE_CHECKING:  # annotations only: importing a game's definition loads no numpy or numba
    import numpy as np
    import numpy.typing as npt

    from banmen.analysis import Analysis, OnUpdate
    from banmen.search.alphabeta import Kernels
    from banmen.search.limits import Limit, StopFlag

__all__ = [
    "GameBoard",
    "GameDef",
    "EngineFactory",
    "EngineKind",
    "Forfeit",
    "GridView",
    "Outcome",
    "Termination",
    "SolveLimits",
    "Solver",
    "Referee",
    "TextFormat",
    "StackBoard",
    "parse_json",
    "read_record",
    "replay_names",
    "board_outcome",
]

B = TypeVar("B", bound=GameBoard)
U = TypeVar("U")

#: builds an engine for a game from a parsed player spec
EngineFactory = Callable[["GameDef[Any]", PlayerSpec], Engine[Any]]


def _no_scores(board: GameBoard) -> tuple[int, int]:
    """A game's ``scores`` when it sets none: it counts no points."""
    return (0, 0)


#: a spec's keys that are not options a user writes as key=value: a program's command,
#: a python: player's file, name and keyword arguments
_SPEC_PARTS = frozenset({"command", "where", "name", "kwargs"})

#: ``migrate(options) -> (options, evaluator)``: an older spec's options read anew (an
#: option that became an evaluator: Othello's ``learned=0`` is ``+handset``)
Migrate = Callable[[dict[str, Any]], tuple[dict[str, Any], "Part | None"]]


@dataclass(frozen=True)
class EngineKind:
    """A game's own engine for a player kind: how to build it, a line of help, the
    options it takes.

    The kind itself (:class:`banmen.kinds.Kind`, found by the registry) declares its
    options, typed; ``options`` here names those this game's engine takes (a name), and
    adds any of its own (an :class:`~banmen.kinds.Option`: Go's ``learned=``). ``legacy``
    options are still read from older specs and handed to ``migrate``, which may turn them
    into an evaluator. Called as an :data:`EngineFactory` (``kind(game, spec)``); it
    refuses, with one line naming what it takes, an option the game's engine does not take
    (``alphabeta:widen=4`` is Go's mcts's, not Mattix's alpha-beta's)::

        >>> from banmen.games.registry import get_game, make_engine
        >>> get_game("mattix").engines["alphabeta"].names()
        ('depth', 'time', 'nodes')
    """

    build: EngineFactory
    help: str
    options: tuple[str | Option, ...] = ()
    legacy: tuple[Option, ...] = ()
    migrate: Migrate | None = None
    #: ``build(game, spec, evaluator)``: the registry builds the spec's evaluator (its
    #: ``+EVALUATOR``, ``None`` without one) and hands it over
    takes_evaluator: bool = False

    def names(self) -> tuple[str, ...]:
        """The options this engine takes, by name."""
        return tuple(o if isinstance(o, str) else o.name for o in self.options)

    def own(self) -> tuple[Option, ...]:
        """The options this game's engine adds to its kind's."""
        return tuple(o for o in self.options if not isinstance(o, str))

    def __call__(self, game: GameDef[Any], spec: PlayerSpec, evaluator: Any = None) -> Engine[Any]:
        from banmen.engine import SpecError

        names = self.names()
        extra = [k for k in spec.options if k not in names and k not in _SPEC_PARTS]
        if extra:
            takes = ", ".join(f"{k}=" for k in names) or "no options"
            raise SpecError(
                f"{spec.text!r}: {game.title}'s {spec.kind} takes no {extra[0]}=: it takes {takes}"
            )
        if self.takes_evaluator:
            return self.build(game, spec, evaluator)  # type: ignore[call-arg]
        if spec.evaluator is not None:
            raise SpecError(f"{spec.text!r}: {game.title}'s {spec.kind} takes no evaluator")
        return self.build(game, spec)


class Forfeit(Exception):
    """A player lost the game on the spot while a ``settle`` hook played on (the arena's
    forfeits, :mod:`banmen.arena.play`): ``info`` is the forfeit as the arena records it
    (``side``, ``player``, ``reason``), ``extra`` what the hook keeps of the game so
    far (it adds it before the exception leaves it)."""

    def __init__(self, info: dict[str, Any], extra: dict[str, Any] | None = None) -> None:
        super().__init__(str(info.get("reason", "")))
        self.info = info
        self.extra: dict[str, Any] = dict(extra or {})


class Referee(Protocol):
    """Who asks the players for their moves once a game has ended, for a ``settle`` hook
    that plays on (Go's cleanup, :mod:`banmen.games.go.settle`): the arena times, judges
    and records each such move as it does the game's own."""

    def move(self, side: int, board: GameBoard, think: Callable[[], Result]) -> Result:
        """``think()``: the answer of side ``side``'s engine (1 or 2) for ``board``, with
        its ``seconds`` measured, and checked: its move is ``None`` or legal on
        ``board``. A user's player (``python:``, ``gtp:``, …) that raises, answers an
        illegal move or overruns its stated time raises :class:`Forfeit`; any other
        failure is raised as it is."""
        ...

    def played(self, move: str, seconds: float) -> None:
        """Record a move the hook played on the game after its moves (with the time it
        took): the arena appends it to the game's moves and times."""
        ...


@dataclass(frozen=True)
class TextFormat(Generic[B]):
    """One of a game's text formats: ``write(board)`` and ``read(text)``.

    The contract (tests/test_games_contract.py): ``write(read(write(board)))`` is
    ``write(board)``, and with ``game`` (a game record, not a position) the board read
    back has the same ``to_dict()``: the same start, moves and position.
    """

    write: Callable[[B], str]
    read: Callable[[str], B]
    game: bool = False


@dataclass(frozen=True)
class SolveLimits:
    """What ``banmen solve`` asks of a game's :class:`Solver`: give up after ``time``
    seconds or ``nodes`` nodes (``None``: no bound), a table of ``hash_mb`` MB (``None``:
    the solver's default), and ``all_best``: every move that reaches the value."""

    time: float | None = None
    nodes: int | None = None
    hash_mb: int | None = None
    all_best: bool = False


@dataclass(frozen=True)
class Solver(Generic[B]):
    """A game's exact solver, for ``banmen solve GAME POSITION`` (the position read by
    :attr:`GameDef.board_from_text`).

    ``solve(board, limits)`` returns a JSON-ready record with at least ``status``
    (``"solved"`` — or the game's own proved words, such as ``"mate"`` / ``"no_mate"`` —
    or ``"unknown"`` when a limit came first: then nothing is claimed), ``nodes`` and
    ``seconds`` (the solve's own time, compiled code loaded before its clock);
    ``lines(record)`` is the record for people, a line each; ``takes`` names the
    :class:`SolveLimits` fields beyond ``time`` it honours (``"nodes"``, ``"hash_mb"``,
    ``"all_best"``): the CLI refuses the others in one line."""

    solve: Callable[[B, SolveLimits], dict[str, Any]]
    lines: Callable[[dict[str, Any]], list[str]]
    takes: tuple[str, ...] = ()


@dataclass(frozen=True)
class GridView(Generic[B]):
    """How a game that brings no web page of its own is drawn on the generic board page
    (:mod:`banmen.web.grid`): a grid of ``rows`` × ``cols`` cells, square or hex.

    * ``cells(board)``: one key per cell, row by row from the top, ``""`` for an empty
      cell; ``pieces`` maps each key to how it is drawn: ``(colour, letter)`` — a CSS
      colour for a disc and a letter written on it (either may be ``""``);
    * ``click``: what a click means, ``"cell"`` (one click, one move: ``move_at(board,
      cell)`` gives the move's name, ``None`` if a click there is no legal move) or
      ``"from-to"`` (two clicks: ``move_between(board, a, b)``);
    * ``cell_of(board, move)``: the cell where a move's name is shown (its analysis value,
      the last-move mark; ``None``: nowhere, e.g. a pass);
    * ``origin_of(board, move)`` (optional): the cell a move starts from (``None``: none,
      e.g. a pass or a drop). Asked, like ``cell_of``, on the position before the move.
      With it, a ``"from-to"`` page knows each piece's targets — a first click picks a
      piece that can move and shows its targets only, a second on one of them plays —
      and every game's last move marks its origin too; without it a ``"from-to"`` page
      takes any two cells and the server judges the pair;
    * ``side_pieces`` (optional): the keys of side 1's and side 2's pieces; the page
      colours each side (its card, the move list, the markers, the last move) in its
      piece's colour from the first position on. ``None`` (or ``""`` for one side): the
      key each side's first move leaves on its cell, once it has moved;
    * ``coordinates(board)`` (optional, square grids only): the labels drawn around the
      board, ``(files, ranks)`` — one per column from the left (over the board), one per
      row from the top (left of it) — the names the game's moves use (Ataxx's ``g1e3``:
      files ``a``…``g``, ranks ``7``…``1``). ``None``: no coordinates.

    ``rows``, ``cols`` and ``coordinates`` are functions of the board (a game may have
    sizes)."""

    rows: Callable[[B], int]
    cols: Callable[[B], int]
    cells: Callable[[B], list[str]]
    pieces: Mapping[str, tuple[str, str]]
    move_at: Callable[[B, int], str | None]
    cell_of: Callable[[B, str], int | None]
    shape: str = "square"
    click: str = "cell"
    move_between: Callable[[B, int, int], str | None] | None = None
    origin_of: Callable[[B, str], int | None] | None = None
    side_pieces: tuple[str, str] | None = None
    coordinates: Callable[[B], tuple[Sequence[str], Sequence[str]]] | None = None


@dataclass(frozen=True)
class GameDef(Generic[B]):
    """A game as the engine layer and the front ends see it.

    ``engines`` maps each player kind the game offers (``alphabeta``, ``mcts``, ``gtp``,
    …) to the factory that builds it; the registry's ``make_engine`` is a lookup there.

    ``search_position(board)`` gives ``(ctx, state)`` for the compiled kernels;
    ``score_offset(board)`` converts a search value (the rest of the game, from the side
    to move's view) into the score users see (Mattix: plus the current score margin).
    """

    name: str
    title: str
    board_from_dict: Callable[[Any], B]
    #: the players this game offers: spec kind -> :class:`EngineKind` (its factory, help
    #: and options; see banmen.games.engines). ``python:`` and ``ugi:`` are every game's.
    engines: Mapping[str, EngineKind] = field(default_factory=dict)
    kernels: Kernels | None = None
    search_position: Callable[[B], tuple[npt.NDArray[np.int64], tuple[Any, ...]]] | None = None
    score_offset: Callable[[B], int] = lambda board: 0
    #: a small position, searched once to load (or compile) the kernels before timing
    sample: Callable[[], B] | None = None
    tt_bits: int = 20
    #: with at most this many plies left, alpha-beta jumps to an exact solve (see AlphaBeta)
    solve_horizon: int = 0
    #: ``new_board(seed, size)``: the starting position a seed names (a deal, an opening):
    #: the arena's paired games start from it, both games of a pair from one seed;
    #: ``size`` ``None`` means the game's default size
    new_board: Callable[[int, int | None], B] | None = None
    #: ``start(size)``: the game's standard start position (Othello's four discs, Go's
    #: empty board, shogi's hirate, Connect Four's empty board), ``size`` ``None`` the
    #: default size: UGI's ``position startpos``, the web's New game. ``None``: see
    #: :meth:`start_position` (``new_board(0, size)``, else ``sample()``)
    start: Callable[[int | None], B] | None = None
    #: ``scores(board)``: the two sides' points at the end (Mattix: pieces taken)
    scores: Callable[[B], tuple[int, int]] = _no_scores
    #: ``outcome(board)``: how the game on ``board`` ended by its own account
    #: (:class:`~banmen.games.outcome.Outcome`: the termination — the rules, a
    #: resignation —, the winner, the final scores), ``None`` while it goes on. ``None``:
    #: the default, :func:`board_outcome` (the board's ``is_game_over`` and ``winner``, and
    #: :attr:`scores` if the game counts points); read it through :meth:`outcome_of`
    outcome: Callable[[B], Outcome | None] | None = None
    #: the pass's move name, when a player may (or must) pass: a move like any other on
    #: the move stack, named so in ``legal_moves`` / ``move_name`` / ``parse_move`` —
    #: the front ends show it as a Pass button, and the analysis plays a forced pass
    #: through. ``None``: the game has no pass
    pass_name: str | None = "pass"
    #: ``settle(board, (first, second), recorded, referee)``: once a game has ended,
    #: settle with its two players' engines (sides 1 and 2) what the count needs, before
    #: :attr:`scores` and the result are read, and return what to keep with the game
    #: (``{}``: nothing). Go: the dead stones — the players' agreement, or else a cleanup
    #: played on from the final position (:mod:`banmen.games.go.settle`), its moves asked
    #: for through ``referee`` (:class:`Referee`: the arena judges and records them; a
    #: player that forfeits there raises :class:`Forfeit`; ``None``: the engines are
    #: asked directly). Given what an earlier ``settle`` returned (``recorded``), it
    #: applies that again instead of asking (the engines are then ``None``): how a report
    #: re-counts, after replaying the game's moves up to its end.
    settle: (
        Callable[[B, tuple[Any, Any], dict[str, Any], Referee | None], dict[str, Any]] | None
    ) = None
    #: the longest possible game in plies (a guard for the arena)
    max_plies: int = 1000
    #: the engine kind a worker loads (and compiles) ahead of the first request
    default_engine: str = "alphabeta"
    #: ``write_record(board, first, second)``: the game on ``board`` as a file of the
    #: game's own record format (Go: SGF), naming the players of sides 1 and 2 (the
    #: arena writes one per game); ``None``: the game has no record format
    write_record: Callable[[B, str, str], str] | None = None
    #: the file name suffix of those records (Go: ``".sgf"``)
    record_suffix: str = ""
    #: ``kernel_moves(board)``: the moves the compiled rules find (in any order), checked
    #: against ``board.legal_moves`` by the contract test; ``None``: no compiled rules
    kernel_moves: Callable[[B], Sequence[int]] | None = None
    #: how terminal play (``banmen play``) and its messages name side 1 and side 2
    sides: tuple[str, str] = ("player 1", "player 2")
    #: ``diagram(board)``: the position as plain text for the terminal; ``None``: the
    #: game cannot be played in the terminal
    diagram: Callable[[B], str] | None = None
    #: ``board_from_text(text)``: a position typed as text (a Mattix layout, an Othello
    #: board string or transcript); ``None``: the game reads none
    board_from_text: Callable[[str], B] | None = None
    #: the game's text formats by name (Mattix: layout; Othello: board string, GGF)
    text_formats: Mapping[str, TextFormat[B]] = field(default_factory=dict)
    #: the engine kinds that answer only with what they prove (shogi's mate solver): no
    #: move from them means nothing was proved, not that there is none to play
    proof_engines: tuple[str, ...] = ()
    #: ``analyse(board, limit, on_update, stop)``: the value of every legal move, live
    #: (:mod:`banmen.analysis`); ``None``: the game offers no analysis
    analyse: Callable[[B, Limit, OnUpdate | None, StopFlag | None], Analysis] | None = None
    #: the :class:`~banmen.search.limits.Limit` fields :attr:`analyse` honours (Go's MCTS
    #: has no depth): a front end refuses a bound the analysis would ignore
    analysis_limits: tuple[str, ...] = ("time", "depth", "nodes")
    #: the game's compiled code, in the sets its engines, analysis and boards load before a
    #: clock starts (:mod:`banmen.warm`; ``banmen warm-up`` compiles them ahead). The set
    #: named ``"alphabeta"`` — or, in a game that has none, ``"search"`` — is the alpha-beta
    #: search of :attr:`kernels` (Go's ``"search"`` is its MCTS); ``"mcts"`` the generic
    #: tree searches over them; ``"rules"`` is the code the board itself runs (a front end
    #: loads it before it serves a board)
    kernel_sets: tuple[KernelSet, ...] = ()
    #: the position as UGI's ``position fen FEN`` gives it (Mattix: the layout string;
    #: Othello: the board string; Go: :func:`~banmen.games.go.formats.write_position`;
    #: shogi: SFEN): what ``ugi:`` players are sent and ``banmen ugi`` reads; ``None``:
    #: the game is not played over UGI
    ugi: TextFormat[B] | None = None
    #: ``record(board)``: a copy of what a front end holds as the game's own board type
    #: (Go: a ``Game`` record from a bare ``Board``, which GTP keeps); ``None``: the
    #: front ends hold the game's boards already (a copy is ``board.copy()``)
    record: Callable[[Any], B] | None = None
    #: how a position is typed for ``board_from_text`` (``banmen analyse`` / ``solve``
    #: help and errors): "a Mattix layout string"
    position_hint: str = ""
    #: the exact solver ``banmen solve`` runs (:class:`Solver`); ``None``: none
    solver: Solver[B] | None = None
    #: one or two sentences for the web app's home page
    summary: str = ""
    #: the game's own web page adapter, ``"module:Class"`` (a
    #: :class:`banmen.web.games.WebGame` subclass; the web layer imports it, the game
    #: never does); ``None``: the generic board page drawn from :attr:`grid`, or no page
    web: str | None = None
    #: how the generic board page draws the game (:class:`GridView`); ``None`` with no
    #: :attr:`web` either: the game has no web page
    grid: GridView[B] | None = None

    def kernel_set(self, name: str) -> KernelSet | None:
        """The set called ``name`` (``None``: the game has none)."""
        return next((k for k in self.kernel_sets if k.name == name), None)

    @property
    def has_scores(self) -> bool:
        """Whether the game counts points (it sets :attr:`scores`)."""
        return self.scores is not _no_scores

    def start_position(self, size: int | None = None) -> B:
        """The board a game of ``size`` starts from when nobody deals: :attr:`start`;
        for a game that sets none, ``new_board(0, size)`` (a game whose start a seed
        does not change: that start; one that deals: the deal of seed 0), else
        ``sample()``. ``ValueError`` if the game has none of the three."""
        if self.start is not None:
            return self.start(size)
        if self.new_board is not None:
            return self.new_board(0, size)
        if self.sample is not None:
            if size is None:
                return self.sample()
            raise ValueError(f"{self.title} has no start position of size {size}")
        raise ValueError(
            f"{self.title} names no start position: its GameDef sets none of start, "
            "new_board, sample (docs/ADDING_A_GAME.md)"
        )

    def outcome_of(self, board: B) -> Outcome | None:
        """How the game on ``board`` ended (:attr:`outcome`, or :func:`board_outcome`);
        ``None`` while it goes on."""
        if self.outcome is not None:
            return self.outcome(board)
        return board_outcome(board, self.scores if self.has_scores else None)

    def is_pass(self, board: B, move: int) -> bool:
        """Whether ``move`` is the pass (:attr:`pass_name`), named by ``board`` (a board
        of the game: a pass's name does not depend on the position). A move the board
        cannot name is no pass."""
        if self.pass_name is None:
            return False
        try:
            return board.move_name(move) == self.pass_name
        except Exception:  # the game's own error for a move it cannot name
            return False


def board_outcome(
    board: GameBoard, scores: Callable[[Any], tuple[int, int]] | None = None
) -> Outcome | None:
    """A game's outcome from the board protocol alone: once ``board.is_game_over()``, an
    end by the rules won by ``board.winner()`` (``None``: a draw), with ``scores(board)``
    as its final scores if the game counts points; ``None`` before. The default of
    :attr:`GameDef.outcome`."""
    if not board.is_game_over():
        return None
    won = board.winner()
    winner = None if won is None else int(won)
    counted = None if scores is None else scores(board)
    final = None if counted is None else (counted[0], counted[1])
    return Outcome(Termination.RULES, winner, final)


def parse_json(text: str, error: type[ValueError]) -> Any:
    """``json.loads`` with a bad document reported as one line of ``error``."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise error(f"not valid JSON: {e.msg} at position {e.pos}") from None


def read_record(d: Any, game: str, what: str, error: type[ValueError]) -> dict[str, Any]:
    """``d`` as a JSON record of ``game``: an object whose ``"game"`` (if any) is
    ``game``; otherwise ``error`` (``what`` names the record: "a Mattix record")."""
    if not isinstance(d, dict):
        raise error(f"{what} must be a JSON object")
    if d.get("game", game) != game:
        raise error(f"record is for game {d.get('game')!r}, not {game!r}")
    return d


def replay_names(board: GameBoard, moves: Any, error: type[ValueError],
                 catch: type[Exception]) -> None:  # fmt: skip
    """Play ``moves`` (a list of move names) on ``board`` with ``push_name``; a bad list
    or move raises ``error`` naming the move's number (``catch``: the game's errors)."""
    if not isinstance(moves, list) or not all(isinstance(m, str) for m in moves):
        raise error("'moves' must be a list of move names")
    for i, m in enumerate(moves):
        try:
            board.push_name(m)
        except catch as e:
            raise error(f"move {i + 1} ({m!r}): {e}") from None


class StackBoard(Generic[U]):
    """What the two-player boards share (python-chess style): a move stack with one undo
    record ``U`` per move, sides 1 and 2 taking turns, ``push_name`` and JSON text.

    A subclass's ``push`` ends with :meth:`_pushed` and its ``pop`` starts with
    :meth:`_popped`; ``_record_error`` is the error a bad JSON document raises.
    """

    turn: int
    move_stack: list[int]
    _undo: list[U]
    _record_error: type[ValueError] = ValueError

    def push(self, move: int) -> None:
        raise NotImplementedError

    def parse_move(self, text: str) -> int:
        raise NotImplementedError

    def to_dict(self) -> dict[str, Any]:
        raise NotImplementedError

    @classmethod
    def from_dict(cls, d: Any) -> Self:
        raise NotImplementedError

    def _pushed(self, move: int, undo: U) -> None:
        """Record a move made: its undo record, the stack, the other side to move."""
        self._undo.append(undo)
        self.move_stack.append(move)
        self.turn = 3 - self.turn

    def _popped(self) -> U:
        """Take the last move off the stack (the side to move is its mover again) and
        return its undo record; ``IndexError`` if there is none."""
        if not self._undo:
            raise IndexError("no move to undo")
        u = self._undo.pop()
        self.move_stack.pop()
        self.turn = 3 - self.turn
        return u

    def push_name(self, text: str) -> None:
        """Play the move named ``text`` (checked for legality)."""
        self.push(self.parse_move(text))

    def to_json(self) -> str:
        return json.dumps(self.to_dict())

    @classmethod
    def from_json(cls, text: str) -> Self:
        return cls.from_dict(parse_json(text, cls._record_error))

"""The web adapter contract: what the web sessions need to know about each game.

A :class:`GameSession` (see :mod:`banmen.web.session`) is the same for every game: it
holds a board with python-chess style ``push`` / ``pop`` / ``move_stack`` / ``turn``,
validates and applies moves, runs the CPU in the engine pool (:mod:`banmen.web.cpu_turns`),
saves and broadcasts. What differs between games is small and lives in a :class:`WebGame`:

- how a new game starts (``new_board``: by default the game's standard start,
  ``GameDef.start``; Mattix deals from a seed and a size, Go takes its rules, komi and
  handicap) and how a saved board is read back (``board_from_record``);
- how a move is read (``parse_move``, with the board's one-line error on bad input),
  and which moves are passes (``is_pass``: undo never stops at a forced pass);
- how the position is described to the page (``describe``: the game's own part of the
  ``state`` message, see :meth:`banmen.web.session.GameSession.view`);
- how a CPU result reads (``verdict``), what the sides are called, which levels exist and
  which messages the socket takes (``rules``);
- optionally, ``load``: a new game from pasted text (Othello transcripts and board strings,
  Go SGF records), ``record_file``: the game in its own record format (Go: SGF; by
  default :attr:`banmen.games.GameDef.write_record`), ``act``: the game's own messages
  (Go's scoring: ``score``, ``toggle``, ``done``), and ``unwind``: undo steps that are not
  moves (a resignation, the counting of a Go game).

An adapter also brings what its page is made of: its levels (:attr:`WebGame.base_levels`,
before the server's extra levels and the user's players), its page's parts
(:meth:`WebGame.parts`: the blocks of the game frame made in Python, see
:mod:`banmen.web.parts`), its body and script (:attr:`WebGame.template`) and the data its
script reads (:meth:`WebGame.page_data`). Nothing outside the adapter names the game.

A game names its adapter in :attr:`banmen.games.GameDef.web` (``"module:Class"``); a game
with a :attr:`~banmen.games.GameDef.grid` and no adapter of its own gets the generic board
page's (:class:`banmen.web.grid.GridGame`). :func:`banmen.web.catalog.make_games` builds
one adapter per game the app serves, with :meth:`WebGame.from_game`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, NamedTuple, TypeVar

from banmen.engine import GameBoard, Result
from banmen.web import parts as html_parts
from banmen.web.levels import HUMAN, Level, Specs, make_levels
from banmen.web.protocol import GameRules, NewGame, ProtocolError

if TYPE_CHECKING:
    from banmen.games import GameDef

__all__ = ["AdapterError", "Defaults", "RecordFile", "WebGame", "STOPPED_BY"]

#: the game's board type (its own ``Board``; Go: the game record ``Game``)
B = TypeVar("B", bound=GameBoard)


@dataclass(frozen=True)
class Defaults:
    """Settings of a game nobody has configured yet."""

    players: tuple[str, str] = (HUMAN, "normal")
    delay_ms: int = 700


#: Why a search ended (``Result.stopped_by``), in words: in the verdicts, and on the game
#: pages, which get it rendered into the page (:mod:`banmen.web.pages`).
STOPPED_BY = {
    "exact": "solved",
    "depth": "depth-limited search",
    "time": "time limit",
    "nodes": "node limit",
    "stop": "Stop pressed",
    "game_over": "game over",
    "forced": "forced",
    "random": "random",
}


class AdapterError(ValueError):
    """A game's web adapter that cannot be made; the message is one line naming the game."""


class RecordFile(NamedTuple):
    """A game as a file of its own record format: the text, the file name's suffix
    (``".sgf"``) and the media type it is served as."""

    text: str
    suffix: str
    media_type: str = "text/plain; charset=utf-8"


class WebGame(ABC, Generic[B]):
    """One game as the web sessions see it. Boards are the game's own ``Board`` class.

    Made with the server's ``extra_levels`` (name -> spec, added to every game's levels)
    and the user's ``players`` of this game (name -> spec: ``banmen serve --player``);
    raises ``SpecError`` on a bad spec."""

    #: the game's registry name (:func:`banmen.games.registry.get_game`), store column, socket path
    #: (``/ws/<name>``) and page (``/<name>``)
    name: str
    title: str
    #: how the page and error messages name side 1 and side 2
    sides: tuple[str, str]
    defaults: Defaults = Defaults()
    #: the levels the page offers, Human first (the server's extra levels and the user's
    #: players come after them)
    base_levels: tuple[Level, ...] = ()
    #: the page's own body and script, ``static/pages/<template>.html`` and
    #: ``static/js/<template>.js`` (``None``: the game's name); also the ``<body>``'s class
    template: str | None = None
    #: the page's own stylesheets (``static/css/<style>.css``), after ``app.css``
    styles: tuple[str, ...] = ()
    #: the clocks the new-game form offers, (label, time control) each, "no clock" first
    #: (any other can be typed: :func:`banmen.clock.parse_time_control`)
    clock_presets: tuple[tuple[str, str], ...] = (
        ("no clock", "inf"),
        ("1 min", "60"),
        ("3 min + 2 s a move", "3:00+2"),
        ("5 min", "5:00"),
        ("10 min", "10:00"),
    )

    def __init__(self, extra_levels: Specs | None = None, players: Specs | None = None) -> None:
        self.levels = make_levels(extra_levels, self.base_levels, players, self.name)
        self.rules = self.make_rules(self.levels)

    @classmethod
    def from_game(
        cls, game: GameDef[Any], extra_levels: Specs | None = None, players: Specs | None = None
    ) -> WebGame[Any]:
        """The adapter of ``game`` (whose :attr:`~banmen.games.GameDef.web` names this
        class); an adapter that needs the game's definition overrides this."""
        return cls(extra_levels, players)

    @abstractmethod
    def make_rules(self, levels: Mapping[str, Level]) -> GameRules:
        """What the game's socket accepts (``levels``: the names a side may be given)."""

    @property
    def definition(self) -> GameDef[Any]:
        """The game's :class:`~banmen.games.GameDef` (from the registry)."""
        from banmen.games.registry import get_game

        return get_game(self.name)

    def side_name(self, side: int) -> str:
        return self.sides[side - 1]

    # ------------------------------------------------------------------ the page

    @property
    def page_script(self) -> str:
        """The page's body, script and ``<body>`` class (see :attr:`template`)."""
        return self.template or self.name

    def parts(self) -> dict[str, str]:
        """The blocks of the game frame made in Python (:mod:`banmen.web.parts`), by
        marker name: ``cards`` (the scoreboard), ``buttons``, ``analysis`` (the switch, for
        a game with an analysis), ``thinking`` (the CPU panel) and ``players``. By default
        a card per side with its name, Undo / Stop / Pause, and an alpha-beta CPU panel."""
        names = [s[:1].upper() + s[1:] for s in self.sides]
        out = {
            "cards": html_parts.player_cards(
                (("p1", html_parts.text(names[0])), ("p2", html_parts.text(names[1]))),
                lambda side: [],
            ),
            "buttons": html_parts.buttons("undo", "stop", "pause"),
            "thinking": html_parts.thinking_panel((*html_parts.SEARCH_FIGURES, html_parts.NPS)),
            "players": html_parts.players_panel(((names[0], ""), (names[1], ""))),
        }
        if self.rules.analysis:
            out["analysis"] = html_parts.analysis_switch()
        return out

    def page_data(self) -> dict[str, object]:
        """JSON for the page's script beyond what every game page gets (``<body data-*>``,
        by name)."""
        return {}

    def warm(self) -> None:
        """Run, before the app serves, the code a page's first requests run (a new
        board, its description): the event loop then imports and compiles nothing for
        it. Raises whatever the game raises (the app then leaves the game out)."""
        board, _ = self.new_board(NewGame(None, None, None), None)
        self.describe(board, self.start_of(board))

    # ------------------------------------------------------------------ boards

    def start_of(self, board: B) -> B:
        """The position ``board``'s move stack starts from (a board of its own)."""
        start: B = board.start_board()  # type: ignore[attr-defined]
        return start

    def new_board(self, msg: NewGame, current: B | None) -> tuple[B, int | None]:
        """The board of a new game asked for by ``msg`` (``current``: the board of the
        client's present game, whose options carry over) and its seed, if it has one. By
        default the game's standard start (:meth:`~banmen.games.GameDef.start_position`,
        of ``msg``'s size), no seed: a game that deals (Mattix) or takes options (Go's
        rules, komi, handicap) says how."""
        try:
            board: B = self.definition.start_position(msg.size)
        except ValueError as e:  # a size the game does not have
            raise ProtocolError(str(e)) from None
        return board, None

    @abstractmethod
    def board_from_record(self, data: Any) -> B:
        """The board saved as ``data`` (``board.to_dict()``); raises ``ValueError``."""

    #: the game's own error class: what a board raises for a bad or illegal move
    errors: type[Exception] = ValueError

    def parse_move(self, board: B, text: str) -> int:
        """The legal move ``text`` names; raises :class:`ProtocolError` (the board's one-line
        message) if it is not one."""
        try:
            move: int = board.parse_move(text)
        except self.errors as e:
            raise ProtocolError(str(e)) from None
        return move

    def is_pass(self, move: int) -> bool:
        """Whether ``move`` is a pass (legal only when the mover has nothing else)."""
        return False

    #: what to paste for :meth:`load`, for its message when nothing was (None: this game
    #: loads nothing from text)
    load_hint: str | None = None

    @property
    def max_plies(self) -> int:
        """The most moves a loaded game may hold: the game's longest game
        (:attr:`banmen.games.GameDef.max_plies`). Everything the server does with a game
        (its state, its save, its undo) costs time in proportion to its moves."""
        return self.definition.max_plies

    def load(self, text: str) -> B:
        """A board from pasted text; raises :class:`ProtocolError` (the board's one-line
        message) if it cannot be read, or holds more than :attr:`max_plies` moves. The
        hub calls it off the event loop (:mod:`banmen.web.offload`): it may take as long
        as reading the text takes."""
        if self.load_hint is None:
            raise ProtocolError(f"{self.title} games cannot be loaded from text")
        if not text.strip():
            raise ProtocolError(f"nothing to load: {self.load_hint}")
        try:
            board = self.read(text)
        except self.errors as e:
            raise ProtocolError(str(e)) from None
        moves = len(board.move_stack)
        if moves > self.max_plies:
            raise ProtocolError(
                f"the game has {moves} moves: a {self.title} game here has at most {self.max_plies}"
            )
        return board

    def read(self, text: str) -> B:
        """The board in pasted text (not blank) for :meth:`load`, in a game with a
        :attr:`load_hint`; raises the game's :attr:`errors` if it cannot be read. A reader
        that can tell a record's length before replaying it refuses one longer than
        :attr:`max_plies` at once (Go's SGF reader)."""
        raise NotImplementedError

    def act(self, board: B, kind: str, square: str | None) -> None:
        """Carry out one of the game's own messages (:attr:`GameRules.actions`) on
        ``board``; raises :class:`ProtocolError` and changes nothing if it cannot."""
        raise ProtocolError(f"{self.title} has no {kind!r} message")

    def over_message(self, board: B) -> str:
        """Why a move is refused once ``board.is_game_over()``."""
        return "the game is over: start a new game or undo"

    def can_unwind(self, board: B) -> bool:
        """Whether undo has a step to take back that is not a move (see :meth:`unwind`)."""
        return False

    def unwind(self, board: B) -> bool:
        """Take back the latest step that is not a move (Go: the recorded result, the
        counting, a resignation); only called if :meth:`can_unwind`. Returns whether the
        undo goes on to the last human turn if that leaves a CPU to move against a human
        (after a CPU's resignation: it would only resign again)."""
        raise ProtocolError("nothing to undo")

    def move_between(self, board: B, a: int, b: int) -> int:
        """The legal move a click on cell ``a`` then cell ``b`` means (games played from
        cell to cell: :attr:`GameRules.cell_pairs`); raises :class:`ProtocolError` (one
        line) if there is none."""
        raise ProtocolError(f"{self.title} moves are named, not played from cell to cell")

    def player_names(self, record: Mapping[str, Any]) -> dict[int, str | None]:
        """Who played sides 1 and 2 of the saved game ``record``, for its record file:
        a level's label (a CPU's with its spec); ``None``: unknown."""
        players = record.get("players")
        names: dict[int, str | None] = {1: None, 2: None}
        if isinstance(players, dict):
            for side in (1, 2):
                lv = self.levels.get(str(players.get(str(side))))
                if lv is not None:
                    names[side] = lv.label if lv.spec is None else f"banmen {lv.label} ({lv.spec})"
        return names

    def record_file(self, record: Mapping[str, Any], date: str | None = None) -> RecordFile | None:
        """The saved game ``record`` (a session record) as a file of the game's own record
        format (:attr:`banmen.games.GameDef.write_record`), or ``None`` if the game has
        none; raises ``ValueError`` (or ``TypeError``, ``KeyError``) if the record cannot
        be read."""
        game = self.definition
        if game.write_record is None:
            return None
        board = self.board_from_record(record.get("board"))
        names = self.player_names(record)
        text = game.write_record(board, names[1] or "?", names[2] or "?")
        return RecordFile(text, game.record_suffix or ".txt")

    @abstractmethod
    def describe(self, board: B, start: B) -> dict[str, Any]:
        """The game's own fields of the ``state`` message (``start``: the position the move
        stack starts from). Must include ``size``, ``legal``, ``history`` and ``last``."""

    @abstractmethod
    def verdict(self, player: int, result: Result) -> str:
        """One line on what a CPU result by ``player`` says about the game's outcome."""

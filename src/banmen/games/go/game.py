"""The game record: a :class:`~.board.Board` and how its game ends (the role KataGo's
``BoardHistory`` plays beside its ``Board``).

The board knows the rules: legal moves, captures, ko and superko, two passes in a row.
The record knows what the rules leave to the players and to the tools around them:

* **tolerant replay**: :meth:`Game.play` plays a move as a record has it, out of turn and
  after two passes or a resignation (GTP ``play``, SGF files); the rules' legality
  (occupied, suicide, ko, superko) still holds;
* **resignation**: :meth:`Game.resign`. Engines answer the move name ``"resign"`` (as GTP's
  ``genmove`` does); :meth:`Game.parse_move` reads it as :data:`RESIGN`, which
  :meth:`Game.push` takes. :func:`is_resignation` is the one place that reads the word.
  A resignation is not a move: it never goes on the move stack;
* **counting**: two passes in a row (or :meth:`Game.request_count`) start it; the players
  mark dead groups (:meth:`Game.toggle`; with ``propose_dead`` the marks start from
  :func:`~.estimate.estimate_dead`'s guess, else every stone counts as alive) and
  :meth:`Game.finish` records the result; :meth:`Game.reopen` takes such steps back;
* **the outcome**: :meth:`Game.outcome`, banmen's :class:`~banmen.games.Outcome` (who won,
  how — the rules' count, or a resignation — and the count's points); :func:`sgf_result`
  writes it as SGF's ``RE`` does, which is what :meth:`Game.result` gives.

    >>> game = Game(Board(9, komi=6.5))
    >>> for name in ("E5", "pass", "pass"):
    ...     game.push_name(name)
    >>> game.counting, game.result()
    (True, 'B+74.5')
    >>> game.pop()
    0
    >>> game.push(game.parse_move("resign"))  # black, to move, resigns
    >>> game.outcome()
    Outcome(termination=<Termination.RESIGNATION: 'resignation'>, winner=2, scores=None)
    >>> game.result(), [game.move_name(m) for m in game.move_stack]
    ('W+R', ['E5', 'pass'])
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
import numpy.typing as npt

from banmen.games.go import kernels as K
from banmen.games.go.board import (
    BLACK,
    EMPTY,
    PASS,
    WHITE,
    Board,
    color_name,
    parse_color,
    parse_vertex,
)
from banmen.games.go.errors import GoError, IllegalMoveError, InvalidBoardError, ScoringError
from banmen.games.go.estimate import estimate_dead
from banmen.games.go.rules import Rules
from banmen.games.go.scoring import Score, result_string
from banmen.games.outcome import Outcome, Termination

__all__ = [
    "Game",
    "Outcome",
    "RESIGN",
    "RESIGN_NAME",
    "DEAD_PLAYOUTS",
    "is_resignation",
    "sgf_result",
    "board_of",
    "kernel_moves",
]

#: the resignation as a move number (not a point, never on the move stack)
RESIGN = -1
#: the resignation's move name: what GTP's ``genmove`` and banmen's engines answer
RESIGN_NAME = "resign"
#: random playouts behind a proposal of dead stones (a few ms on 9x9, ~20 ms on 19x19)
DEAD_PLAYOUTS = 1024


def is_resignation(text: str | None) -> bool:
    """Whether ``text`` (a move name, an engine's answer) is the resignation,
    ``"resign"`` in any case."""
    return isinstance(text, str) and text.strip().lower() == RESIGN_NAME


def board_of(board: Board | Game) -> Board:
    """The board of a game record, or the board itself: what engines and the SGF writer
    read (they take either)."""
    return board.board if isinstance(board, Game) else board


def resignation(loser: int) -> Outcome:
    """The outcome of ``loser``'s resignation: the other colour wins."""
    return Outcome(Termination.RESIGNATION, WHITE if loser == BLACK else BLACK)


def counted(score: Score) -> Outcome:
    """The outcome of a count: the rules end the game, the points are black's and
    white's (white's with komi)."""
    return Outcome(Termination.RULES, score.winner, (score.black, score.white))


def sgf_result(outcome: Outcome | None) -> str:
    """``outcome`` as SGF's ``RE`` writes it: ``"B+R"``, ``"W+3.5"``, ``"0"`` (jigo),
    ``"B+T"`` (on time), ``"W+F"`` (forfeit); ``"?"`` for a game stopped unfinished,
    ``"*"`` for no outcome (a game going on)."""
    if outcome is None:
        return "*"
    t = outcome.termination
    if outcome.winner is None:
        return "?" if t is Termination.PLY_CAP else "0"
    side = "B" if outcome.winner == BLACK else "W"
    if t is Termination.RULES and outcome.scores is not None:
        return result_string(outcome.scores[0] - outcome.scores[1])
    letter = {Termination.RESIGNATION: "R", Termination.TIME: "T"}.get(t, "F")
    return f"{side}+{letter}"


def kernel_moves(game: Game) -> list[int]:
    """The legal moves as the compiled rules find them: :func:`~.kernels.gen_moves`'s
    points (occupied, suicide, simple ko), those the rules' superko allows (the kernels
    keep no history of positions: the board does), then :data:`PASS`; ``[]`` once the
    game is over. The same list as ``game.legal_moves`` (tests/test_games_contract.py)."""
    if game.is_game_over():
        return []
    board = game.board
    pos = board.position
    out = np.empty(board.size * board.size, dtype=np.int64)
    n = K.gen_moves(pos.board, pos.grp, pos.meta, board.turn, board.rules.suicide, out)
    points = [int(p) for p in out[:n]]
    if board.rules.superko:
        points = [p for p in points if board.why_illegal(p) != "superko"]
    return [*points, PASS]


class Game:
    """The record of a Go game: its :attr:`board` and how the game ends (module
    docstring).

    ``Game(board)`` is the record of ``board``'s game: a copy of its start position with
    its moves replayed (as recorded), which also learns the stones each move took off
    the board (:attr:`removed`). ``propose_dead``: when counting starts, mark the stones
    :func:`~.estimate.estimate_dead` takes for dead, for the players to correct (the web
    page does); otherwise every stone counts as alive until marked (the arena, GTP).

    The record is a board for the engine layer (``push`` / ``pop`` / ``move_stack`` /
    ``turn`` / ``legal_moves`` / ``result`` / ``to_dict``, as python-chess): it is what
    :data:`banmen.games.go.GAME` plays, and engines take it or its board.
    """

    def __init__(self, board: Board, *, propose_dead: bool = False) -> None:
        #: the position and its moves (the rules): read it, set it up (handicap) before
        #: the first move; moves go through the record, which keeps :attr:`removed`
        self.board = board.start_board()
        #: the stones each move took off the board (its captures, or its own stones for
        #: a suicide), in point order
        self.removed: list[list[int]] = []
        #: counting was asked for by :meth:`request_count` (not by two passes)
        self.requested = False
        #: the result is recorded (:meth:`finish`)
        self.done = False
        self._resigned: int | None = None
        self._dead: frozenset[int] = frozenset()
        #: the last count: (marks, rules) and the score (moves clear it)
        self._score: tuple[tuple[frozenset[int], Rules], Score] | None = None
        self._propose = False
        for move, color in zip(board.move_stack, board.colors, strict=True):
            self._apply(move, color, tolerant=True)
        if self.board.is_game_over() and not board.is_game_over():
            # a board going on after two passes (:meth:`position_for`): so does the record
            self.board.position.meta[K.M_PASSES] = board.position.meta[K.M_PASSES]
        self.propose_dead = propose_dead

    # ---- the board API the front ends use

    @property
    def turn(self) -> int:
        return self.board.turn

    @property
    def move_stack(self) -> list[int]:
        return self.board.move_stack

    @property
    def legal_moves(self) -> list[int]:
        """The board's legal moves; ``[]`` once the game is over."""
        return [] if self.is_game_over() else self.board.legal_moves

    def move_name(self, move: int) -> str:
        """The move's GTP vertex, or ``"resign"`` for :data:`RESIGN`."""
        return RESIGN_NAME if move == RESIGN else self.board.move_name(move)

    def parse_move(self, text: str) -> int:
        """The legal move ``text`` names: a GTP vertex, ``pass``, or ``resign``
        (:data:`RESIGN`). Raises :class:`~.errors.GoError`, and
        :class:`~.errors.IllegalMoveError` for anything once the game is over."""
        if self.is_game_over():
            shown = text.strip() if isinstance(text, str) else repr(text)
            raise IllegalMoveError(f"{shown} cannot be played: {self._over()}", "game over")
        return RESIGN if is_resignation(text) else self.board.parse_move(text)

    def push_name(self, text: str) -> None:
        self.push(self.parse_move(text))

    def start_board(self) -> Game:
        """The record of this game's start position (no moves)."""
        return Game(self.board.start_board(), propose_dead=self._propose)

    # ---- moves

    def push(self, move: int) -> None:
        """Play ``move`` (a point or :data:`PASS`) for the side to move, or resign
        (:data:`RESIGN`). Raises :class:`~.errors.IllegalMoveError` once the game is
        over (a resignation, counting)."""
        if move == RESIGN:
            self.resign()
            return
        if self.is_game_over():
            name = self.board.move_name(move)
            raise IllegalMoveError(f"{name} cannot be played: {self._over()}", "game over")
        self._apply(move, None, tolerant=False)

    def play(self, move: int, color: int) -> None:
        """Play ``move`` for ``color`` as a record has it (GTP ``play``, SGF): out of turn
        and after two passes; after a resignation or while counting, the game goes on.
        Raises :class:`~.errors.IllegalMoveError` (the record unchanged) if the rules
        forbid the move itself (occupied, suicide, ko, superko)."""
        self._apply(move, color, tolerant=True)
        self._resigned = None

    def _apply(self, move: int, color: int | None, tolerant: bool) -> None:
        b = self.board
        before = b.grid()
        if tolerant:
            b._push(move, b.turn if color is None else color)
        else:
            b.push(move)
        self.removed.append(_removed(before, b.grid(), int(move)))
        self._reset_count()
        if self._propose and self.counting:
            self.propose()

    def pop(self) -> int:
        """Take back the last move and return it; a resignation or counting after it is
        taken back with it."""
        move = self.board.pop()
        self.removed.pop()
        self._resigned = None
        self._reset_count()
        return move

    def resign(self, color: int | None = None, *, tolerant: bool = False) -> None:
        """``color`` (default: the side to move) resigns: the game is over. Raises
        :class:`~.errors.IllegalMoveError` once it is over, unless ``tolerant`` and it is
        only being counted: a record's resignation after two passes, as :meth:`play`
        takes a record's moves there (the arena's cleanup, :mod:`.settle`)."""
        if self._resigned is not None or (self.is_game_over() and not tolerant):
            raise IllegalMoveError(f"cannot resign: {self._over()}", "game over")
        who = self.turn if color is None else parse_color(color)
        self._reset_count()
        self._resigned = who

    @property
    def resigned(self) -> int | None:
        """The colour that resigned, if one did."""
        return self._resigned

    def moves_ahead(self) -> int:
        """The side to move's moves still to come, about: the board's estimate."""
        return self.board.moves_ahead()

    # ---- the end

    def is_game_over(self) -> bool:
        """After a resignation, and while counting (two passes, or asked for)."""
        return self._resigned is not None or self.counting

    def _over(self) -> str:
        """Why no move can be played (once the game is over)."""
        if self._resigned is not None:
            return f"the game is over ({color_name(self._resigned)} resigned)"
        if self.board.is_game_over():
            return "the game is over (both sides passed): it is being counted"
        return "the game is being counted"

    @property
    def counting(self) -> bool:
        """Whether the game is being (or has been) counted: two passes, or
        :meth:`request_count`, and no resignation."""
        return self._resigned is None and (self.requested or self.board.is_game_over())

    @property
    def dead(self) -> frozenset[int]:
        """The stones marked dead (every stone of a marked group)."""
        return self._dead

    @property
    def propose_dead(self) -> bool:
        """Whether counting starts from :func:`~.estimate.estimate_dead`'s guess; turning
        it on while counting marks that guess at once."""
        return self._propose

    @propose_dead.setter
    def propose_dead(self, on: bool) -> None:
        self._propose = on
        if on and self.counting and not self.done:
            self.propose()

    def _reset_count(self) -> None:
        self.requested = self.done = False
        self._dead = frozenset()
        self._score = None

    def request_count(self) -> None:
        """Count the game now, without two passes (a move takes it back)."""
        if self._resigned is not None:
            raise ScoringError(f"cannot count: {color_name(self._resigned)} resigned")
        if self.counting:
            raise ScoringError("the game is already being counted")
        self.requested = True
        if self._propose:
            self.propose()

    def propose(self) -> frozenset[int]:
        """Mark the stones :func:`~.estimate.estimate_dead` takes for dead (and only
        those); returns them."""
        self._dead = estimate_dead(self.board, playouts=DEAD_PLAYOUTS)
        return self._dead

    def _check_counting(self, what: str) -> None:
        if not self.counting:
            raise ScoringError(f"{what}: the game is not being counted (pass twice first)")
        if self.done:
            raise ScoringError(f"{what}: the result is recorded ({self.result()})")

    def mark_dead(self, points: Iterable[int]) -> frozenset[int]:
        """Mark exactly the groups on ``points`` dead (an agreement reached elsewhere: the
        players', or the arena's); returns every marked stone. Raises
        :class:`~.errors.ScoringError` and changes nothing for an empty point or a
        pass-alive group, or unless counting goes on."""
        self._check_counting("cannot mark dead stones")
        dead: set[int] = set()
        for p in points:
            stones, _ = self.board.group(p)
            if not stones:
                raise ScoringError(f"no stone on {self.board.move_name(p)} to mark dead")
            dead |= set(stones)
        marks = frozenset(dead)
        self.count(marks)  # refuses pass-alive stones
        self._dead = marks
        return marks

    def toggle(self, p: int) -> None:
        """Mark the group on point ``p`` dead, or alive again. Raises
        :class:`~.errors.ScoringError` and changes nothing for an empty point or a
        pass-alive group, or unless counting goes on."""
        self._check_counting("cannot mark dead stones")
        stones, _ = self.board.group(p)
        if not stones:
            raise ScoringError(
                f"no stone on {self.board.move_name(p)}: only a stone's group can be marked "
                "dead or alive"
            )
        group = frozenset(stones)
        dead = self._dead - group if group & self._dead else self._dead | group
        self.count(dead)  # refuses pass-alive stones
        self._dead = dead

    def finish(self) -> None:
        """Record the result of the counting (the stones marked dead are agreed)."""
        self._check_counting("cannot record the result")
        self.done = True

    def end_step(self) -> str | None:
        """The latest step that ended (or counts) the game and is not a move:
        ``"done"``, ``"resignation"`` or ``"counting"`` (asked for); ``None`` if there
        is none. :meth:`reopen` takes it back."""
        if self.done:
            return "done"
        if self._resigned is not None:
            return "resignation"
        if self.requested:
            return "counting"
        return None

    def reopen(self) -> str | None:
        """Take back :meth:`end_step`: a recorded result (counting again), a resignation
        or the counting asked for (playing again). Returns what it took back."""
        step = self.end_step()
        if step == "done":
            self.done = False
        elif step == "resignation":
            self._resigned = None
        elif step == "counting":
            self._reset_count()
        return step

    def count(self, dead: frozenset[int] | None = None) -> Score:
        """The score with the stones marked dead (or ``dead``); raises
        :class:`~.errors.ScoringError` for pass-alive stones marked dead."""
        marks = self._dead if dead is None else dead
        key = (marks, self.board.rules)  # (GTP's komi command changes the rules)
        if self._score is None or self._score[0] != key:
            self._score = (key, self.board.score(marks))
        return self._score[1]

    def outcome(self) -> Outcome | None:
        """How the game ended: a resignation, or the count with the stones marked dead
        (final once :meth:`finish` recorded it); ``None`` while playing."""
        if self._resigned is not None:
            return resignation(self._resigned)
        if self.counting:
            return counted(self.count())
        return None

    def result(self) -> str:
        """``sgf_result(outcome())``: ``"B+R"``, ``"W+3.5"``, ``"0"``; ``"*"`` while
        playing."""
        return sgf_result(self.outcome())

    def winner(self) -> int | None:
        outcome = self.outcome()
        return None if outcome is None else outcome.winner

    # ---- engines

    def position_for(self, color: int) -> Board:
        """A copy of the board with ``color`` to move and the game going on: what an
        engine thinks about when a controller asks it for ``color``'s move (GTP
        ``genmove``). Out of turn, the simple-ko point is lifted (as for a move out of
        turn); after two or more passes it sees one, so that its own pass would end the
        game again."""
        view = self.board.copy()
        meta = view.position.meta
        if view.turn != color:
            meta[K.M_TURN] = color
            meta[K.M_KO] = 0
        if meta[K.M_PASSES] >= 2:
            meta[K.M_PASSES] = 1
        return view

    def going_on(self) -> Game:
        """A copy of the record with the game going on, the side to move to play: after
        two passes too (as :meth:`position_for` gives the board, its own pass would end
        the game again). What the arena's cleanup asks players about (:mod:`.settle`)."""
        return Game(self.position_for(self.turn))

    # ---- records

    def to_dict(self) -> dict[str, Any]:
        """The board's record (:meth:`Board.to_dict`) plus the resignation, the result
        and the counting."""
        d = self.board.to_dict()
        d["resigned"] = None if self._resigned is None else color_name(self._resigned)
        d["result"] = self.result()
        d["counting"] = (
            {
                "requested": self.requested,
                "dead": [self.board.move_name(p) for p in sorted(self._dead)],
                "done": self.done,
            }
            if self.counting
            else None
        )
        return d

    @classmethod
    def from_dict(cls, d: Any, *, propose_dead: bool = False) -> Game:
        """Rebuild a record from :meth:`to_dict` output (or a board's record). Raises
        :class:`~.errors.InvalidBoardError`."""
        game = cls(Board.from_dict(d))
        try:
            resigned = d.get("resigned")
            if resigned is not None:
                game._resigned = parse_color(resigned)
            counting = d.get("counting")
            marks = None
            if isinstance(counting, dict) and game._resigned is None:
                if counting.get("requested") is True and not game.board.is_game_over():
                    game.requested = True
                dead = counting.get("dead")
                if game.counting and isinstance(dead, list):
                    if all(isinstance(v, str) for v in dead):
                        marks = frozenset(parse_vertex(v, game.board.size) for v in dead)
                        game.count(marks)  # stones that cannot be dead: refused
                game.done = game.counting and counting.get("done") is True
        except InvalidBoardError:
            raise
        except GoError as e:
            raise InvalidBoardError(str(e)) from None
        game._propose = propose_dead
        if marks is not None:
            game._dead = marks
        elif propose_dead and game.counting:
            game.propose()
        return game

    # ---- comparison and display

    def __eq__(self, other: object) -> bool:
        """The same position (:meth:`Board.__eq__`) and the same end: resignation,
        counting, marks."""
        if not isinstance(other, Game):
            return NotImplemented
        return self.board == other.board and self._end() == other._end()

    __hash__ = None  # type: ignore[assignment]

    def _end(self) -> tuple[int | None, bool, bool, bool, frozenset[int]]:
        return (self._resigned, self.counting, self.requested, self.done, self._dead)

    def __repr__(self) -> str:
        return f"<go.Game {self.board!r}: {self.result()}>"

    def __str__(self) -> str:
        return self.board.diagram(self.result() if self.is_game_over() else None)


def _removed(before: npt.NDArray[np.int8], after: npt.NDArray[np.int8], move: int) -> list[int]:
    """Points whose stones ``move`` took off the board (with its own point if it was a
    suicide), given the colour grids before and after it."""
    gone = (before != EMPTY) & (after == EMPTY)
    if move != PASS and after[move] == EMPTY:
        gone[move] = True
    return [int(p) for p in np.flatnonzero(gone)]


def _load_rules() -> None:
    """Moves, a capture, superko's check, the legal moves and a count, on 9x9 under each
    ko rule (the kernels take the rules as numbers: one compiled version serves all)."""
    for rules in ("chinese", "japanese", "tromp-taylor"):
        game = Game(Board(9, rules))
        for name in ("D5", "E5", "E4", "F4", "E6", "F6", "C4", "E3", "F5"):  # a capture
            game.push(game.board.parse_move(name))
        assert kernel_moves(game) and game.legal_moves
        game.board.score()
        game.pop()


def _load_scoring() -> None:
    board = Board(9)
    for name in ("C3", "G7", "C7", "G3", "E5"):
        board.push(board.parse_move(name))
    estimate_dead(board, playouts=8)

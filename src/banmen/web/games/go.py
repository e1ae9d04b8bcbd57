"""Go in the web app: the game record with counting (GoPlay) and the adapter."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from banmen.engine import Result
from banmen.games import go
from banmen.web.games._base import STOPPED_BY, WebGame
from banmen.web.levels import GO_LEVELS, make_levels
from banmen.web.protocol import GameRules, NewGame, ProtocolError

#: how a resignation travels as a move (``{"type": "move", "square": "resign"}``, or the
#: engine's ``"resign"``): not a point, and never on the move stack
RESIGN = -1
#: the Go presets the page offers, in its order
GO_RULES = ("chinese", "japanese", "tromp-taylor", "aga", "new-zealand")
GO_SIZES = (9, 13, 19)
#: random playouts behind the dead-stone proposal (a few ms on 9x9, ~20 ms on 19x19)
DEAD_PLAYOUTS = 256
#: the longest SGF record 'load' takes (a 19x19 game with comments); the WebSocket frame
#: limit of the server (64 KiB) is above the message limit
GO_MAX_LOAD = 50_000
GO_MAX_MESSAGE = 60_000


def _side(color: int) -> str:
    return "Black" if color == go.BLACK else "White"


class GoPlay:
    """A Go game as the web session holds it: a :class:`banmen.games.go.Board` plus the
    end of the game, which the board does not keep.

    The game ends by a resignation, or by counting: two passes in a row (or the
    ``score`` message) start it, :func:`banmen.games.go.estimate_dead` proposes the dead
    stones, the players mark groups dead or alive, and ``done`` records the result. While
    counting no move can be played (``is_game_over()``); undo steps back through the
    recorded result, the counting and the resignation before it takes back moves.

    The session sees the python-chess style API of the other games' boards (``push``,
    ``pop``, ``move_stack``, ``turn``, ``result``, ``winner``, ``to_dict``); ``push``
    takes :data:`RESIGN` too. It also remembers which stones each move captured, for the
    page.
    """

    def __init__(self, board: go.Board) -> None:
        self.board = board
        #: stones each move removed (its captures, or its own stones for a suicide)
        self.removed: list[list[int]] = []
        #: counting started by the 'score' message (not by two passes)
        self.requested = False
        #: the stones marked dead while counting
        self.dead: frozenset[int] = frozenset()
        #: the result is recorded ('done')
        self.done = False
        self._score: go.Score | None = None

    @classmethod
    def wrap(cls, board: go.Board) -> GoPlay:
        """``board``'s game (its moves replayed to learn their captures); a game that
        ended by two passes is being counted, with the proposed dead stones."""
        start = board.start_board()
        play = cls(start)
        for move, color in zip(board.move_stack, board.colors, strict=True):
            before = start.grid()
            # As recorded (SGF allows moves out of turn and after two passes).
            start._push(move, color)
            play.removed.append(_removed(before, start.grid(), move))
        start.resigned = board.resigned
        if play.counting:
            play.dead = play.propose()
        return play

    # ---- the board API the session uses

    @property
    def size(self) -> int:
        return self.board.size

    @property
    def rules(self) -> go.Rules:
        return self.board.rules

    @property
    def komi(self) -> float:
        return self.board.komi

    @property
    def move_stack(self) -> list[int]:
        return self.board.move_stack

    @property
    def turn(self) -> int:
        return self.board.turn

    @property
    def resigned(self) -> int | None:
        return self.board.resigned

    @property
    def counting(self) -> bool:
        """Whether the game is being (or has been) counted: two passes, or 'score'."""
        b = self.board
        return b.resigned is None and (self.requested or b.is_game_over())

    def is_game_over(self) -> bool:
        return self.board.is_game_over() or self.requested

    @property
    def legal_moves(self) -> list[int]:
        return self.board.legal_moves

    def move_name(self, move: int) -> str:
        return self.board.move_name(move)

    def parse_move(self, text: str) -> int:
        return self.board.parse_move(text)

    def start_board(self) -> GoPlay:
        return GoPlay(self.board.start_board())

    def push(self, move: int) -> None:
        """Play ``move`` (or resign, :data:`RESIGN`) for the side to move."""
        if move == RESIGN:
            self.board.resign()
            return
        before = self.board.grid()
        self.board.push(move)
        self.removed.append(_removed(before, self.board.grid(), move))
        self._reset_count()
        if self.board.is_game_over():
            self.dead = self.propose()

    def pop(self) -> int:
        move = self.board.pop()
        self.removed.pop()
        self._reset_count()
        return move

    def _reset_count(self) -> None:
        self.requested = self.done = False
        self.dead = frozenset()
        self._score = None

    # ---- counting

    def propose(self) -> frozenset[int]:
        """The stones :func:`banmen.games.go.estimate_dead` takes for dead."""
        return go.estimate_dead(self.board, playouts=DEAD_PLAYOUTS)

    def count(self) -> go.Score:
        """The score with the stones marked dead."""
        if self._score is None:
            self._score = self.board.score(self.dead)
        return self._score

    def request_count(self) -> None:
        self.requested = True
        self.dead = self.propose()
        self._score = None

    def toggle(self, p: int) -> None:
        """Mark the group on point ``p`` dead, or alive again; raises ``GoError``
        (``ScoringError``) and changes nothing for an empty point or a pass-alive group."""
        stones, _ = self.board.group(p)
        if not stones:
            raise go.ScoringError(
                f"no stone on {go.vertex_name(p, self.size)}: click a stone to mark its "
                "group dead or alive"
            )
        group = frozenset(stones)
        dead = self.dead - group if group & self.dead else self.dead | group
        score = self.board.score(dead)  # refuses pass-alive stones
        self.dead, self._score = dead, score

    # ---- result

    def result(self) -> str:
        """``B+R``/``W+R`` after a resignation; while counting the count with the stones
        marked dead (final once recorded); ``*`` while playing."""
        if self.board.resigned is not None:
            return self.board.result()
        if self.counting:
            return self.count().result
        return "*"

    def winner(self) -> int | None:
        r = self.result()
        return go.BLACK if r.startswith("B+") else go.WHITE if r.startswith("W+") else None

    # ---- records

    def to_dict(self) -> dict[str, Any]:
        """The board's record plus the counting (``banmen.games.go.Board.from_dict``
        reads it, ignoring the counting)."""
        n = self.size
        d = self.board.to_dict()
        d["result"] = self.result()
        d["counting"] = (
            {
                "requested": self.requested,
                "dead": [go.vertex_name(p, n) for p in sorted(self.dead)],
                "done": self.done,
            }
            if self.counting
            else None
        )
        return d

    @classmethod
    def from_dict(cls, d: Any) -> GoPlay:
        """Raises ``ValueError`` (a ``GoError``) if ``d`` is not a Go record."""
        play = cls.wrap(go.Board.from_dict(d))
        counting = d.get("counting")
        if not isinstance(counting, dict) or play.board.resigned is not None:
            return play
        if counting.get("requested") is True and not play.board.is_game_over():
            play.requested = True
        if play.counting:
            dead = counting.get("dead")
            if isinstance(dead, list) and all(isinstance(v, str) for v in dead):
                marked = frozenset(go.parse_vertex(v, play.size) for v in dead)
                play.board.score(marked)  # a record of stones that cannot be dead: refused
                play.dead, play._score = marked, None
            else:
                play.dead = play.propose()
            play.done = counting.get("done") is True
        return play


def _removed(before: Any, after: Any, move: int) -> list[int]:
    """Points whose stones ``move`` took off the board (with its own point if it was a
    suicide), given the colour grids before and after it."""
    gone = (before != go.EMPTY) & (after == go.EMPTY)
    if move != go.PASS and after[move] == go.EMPTY:
        gone[move] = True
    return [int(p) for p in np.flatnonzero(gone)]


class GoGame(WebGame[GoPlay]):
    """Go on 9x9, 13x13 and 19x19 boards (any size 5-19 loads from SGF), with a rules
    preset and komi per game; the end of a game is counted by the players (see
    :class:`GoPlay`)."""

    name = "go"
    title = "Go"
    errors = go.GoError
    sides = ("Black", "White")
    default_size = 9

    def __init__(self, extra_levels: Mapping[str, str] | None = None) -> None:
        levels = make_levels(extra_levels, GO_LEVELS)
        rules = GameRules(
            levels,
            sizes=GO_SIZES,
            load=True,
            example="D4",
            rule_sets=GO_RULES,
            komi=True,
            actions={"score": (), "toggle": ("square",), "done": ()},
            load_hint="an SGF record like (;GM[1]SZ[9];B[ee];W[gc])",
            max_message=GO_MAX_MESSAGE,
            max_load=GO_MAX_LOAD,
        )
        super().__init__(levels, rules)

    def new_board(self, msg: NewGame, current: GoPlay | None) -> tuple[GoPlay, int | None]:
        size = msg.size or (current.size if current is not None else self.default_size)
        if msg.rules is not None:
            rules = go.parse_rules(msg.rules)
        elif current is not None:
            rules = current.rules
        else:
            rules = go.CHINESE
        komi = msg.komi
        if komi is None and msg.rules is None and current is not None:
            komi = current.komi  # the same rules: the same komi
        return GoPlay(go.Board(size, rules, komi)), None

    def board_from_record(self, data: Any) -> GoPlay:
        return GoPlay.from_dict(data)

    def parse_move(self, board: GoPlay, text: str) -> int:
        if board.is_game_over():
            raise ProtocolError(self.over_message(board))
        if text.strip().lower() == "resign":
            return RESIGN
        try:
            return board.board.parse_move(text)
        except self.errors as e:
            raise ProtocolError(str(e)) from None

    def over_message(self, board: GoPlay) -> str:
        if board.resigned is not None:
            return f"the game is over: {_side(board.resigned)} resigned (undo to take it back)"
        if board.done:
            return f"the game is over ({board.result()}): start a new game or undo"
        if board.counting:
            return (
                "the game is being counted: mark the dead stones and press Done, or undo to play on"
            )
        return super().over_message(board)

    def load(self, text: str) -> GoPlay:
        if not text.strip():
            raise ProtocolError(
                "nothing to load: paste an SGF record like (;GM[1]SZ[9];B[ee];W[gc]) "
                "or choose a .sgf file"
            )
        try:
            game = go.read_sgf(text)
        except go.GoError as e:
            raise ProtocolError(str(e)) from None
        except (ValueError, IndexError, RecursionError):  # not expected: still one line
            raise ProtocolError("not a usable SGF record") from None
        return GoPlay.wrap(game.board)

    def act(self, board: GoPlay, kind: str, square: str | None) -> None:
        play: GoPlay = board
        if kind == "score":
            if play.resigned is not None:
                raise ProtocolError(self.over_message(play))
            if play.counting:
                raise ProtocolError("the game is already being counted")
            play.request_count()
            return
        if not play.counting:
            raise ProtocolError(
                f"'{kind}' is for counting the game: pass twice or press Score first"
            )
        if play.done:
            raise ProtocolError(
                f"the result is recorded ({play.result()}): undo to change the dead stones"
            )
        if kind == "done":
            play.done = True
            return
        assert kind == "toggle" and square is not None
        try:
            p = go.parse_vertex(square, play.size)
            if p == go.PASS:
                raise go.ScoringError("toggle needs a stone's point, like 'D4', not 'pass'")
            play.toggle(p)
        except go.GoError as e:
            raise ProtocolError(str(e)) from None

    def can_unwind(self, board: GoPlay) -> bool:
        play: GoPlay = board
        return play.done or play.resigned is not None or play.requested

    def unwind(self, board: GoPlay) -> bool:
        play: GoPlay = board
        if play.done:
            play.done = False  # counting again
        elif play.resigned is not None:
            play.board.resigned = None
            return True
        elif play.requested:
            play._reset_count()  # playing again, from where 'score' was pressed
        return False

    def describe(self, board: GoPlay, start: GoPlay) -> dict[str, Any]:
        play: GoPlay = board
        b = play.board
        n = b.size

        def name(p: int) -> str:
            return go.vertex_name(p, n)

        grid = b.grid()
        cells = [int(grid[go.point(c, n - 1 - r, n)]) for r in range(n) for c in range(n)]
        history = []
        for k, (m, c) in enumerate(zip(b.move_stack, b.colors, strict=True)):
            history.append(
                {"ply": k + 1, "player": c, "square": name(m), "captured": len(play.removed[k])}
            )
        last = None
        if history:
            last = {**history[-1], "removed": [name(p) for p in play.removed[-1]]}
        legal: list[str] = []
        illegal: dict[str, str] = {}
        if not play.is_game_over():
            moves = b.legal_moves
            legal = [name(p) for p in moves if p != go.PASS]
            ok = set(moves)
            for p in b.points:
                if p not in ok and grid[p] == go.EMPTY:
                    why = b.why_illegal(p)
                    if why is not None:
                        illegal[name(p)] = why
        ko = b.ko_point
        rules = b.rules
        return {
            "size": n,
            "cells": cells,
            "legal": legal,
            "illegal": illegal,
            "ko": name(ko) if ko is not None and not play.is_game_over() else None,
            "prisoners": list(b.prisoners),
            "rules": {
                "name": rules.preset_name() or "custom",
                "scoring": rules.scoring,
                "ko": rules.ko,
                "suicide": rules.suicide,
                "text": rules.describe(),
            },
            "komi": b.komi,
            "handicap": b.handicap,
            "presets": [
                {"name": k, "komi": go.PRESETS[k].komi, "scoring": go.PRESETS[k].scoring}
                for k in GO_RULES
            ],
            "resigned": b.resigned,
            "counting": self._counting(play) if play.counting else None,
            "history": history,
            "last": last,
        }

    def _counting(self, play: GoPlay) -> dict[str, Any]:
        n = play.size

        def names(points: Iterable[int]) -> list[str]:
            return [go.vertex_name(p, n) for p in sorted(points)]

        s = play.count()
        return {
            "requested": play.requested,
            "done": play.done,
            "dead": names(s.dead),
            "territory": {"1": names(s.black_territory), "2": names(s.white_territory)},
            "dame": names(s.dame),
            "seki": names(s.seki),
            "scoring": s.scoring,
            "points": [s.black, s.white],
            "stones": [s.black_stones, s.white_stones],
            "prisoners": list(s.prisoners),
            "komi": s.komi,
            "handicap_bonus": s.handicap_bonus,
            "result": s.result,
        }

    def verdict(self, player: int, result: Result) -> str:
        side = self.side_name(player)
        if result.move == "resign":
            rate = "" if result.score is None else f" (win rate {result.score:g}%)"
            return f"{side} resigns{rate}"
        if result.score is None:
            return ""
        why = STOPPED_BY.get(result.stopped_by, result.stopped_by)
        return (
            f"{side}'s win rate {result.score:g}% after {result.nodes:,} playouts "
            f"(an estimate: {why})"
        )

    def sgf(self, record: Mapping[str, Any], date: str | None = None) -> str | None:
        play = GoPlay.from_dict(record.get("board"))
        players = record.get("players")
        names: dict[int, str | None] = {1: None, 2: None}
        if isinstance(players, dict):
            for side in (1, 2):
                lv = self.levels.get(str(players.get(str(side))))
                if lv is not None:
                    names[side] = lv.label if lv.spec is None else f"banmen {lv.label} ({lv.spec})"
        final = play.resigned is not None or play.done
        # An unrecorded count is no result: no RE (write_sgf would count every stone alive).
        info = {"result": play.result() if final else ""}
        for key, value in (("black", names[1]), ("white", names[2]), ("date", date)):
            if value:
                info[key] = value
        return play.board.to_sgf(**info)

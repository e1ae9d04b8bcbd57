"""Go in the web app: an adapter over the game record (:class:`banmen.games.go.Game`),
which holds the resignation, the counting and the result; this module only reads the
page's messages and describes the position to it."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from banmen.engine import Result
from banmen.games import go
from banmen.web import parts
from banmen.web.games._base import STOPPED_BY, RecordFile, WebGame
from banmen.web.levels import HUMAN, Level
from banmen.web.protocol import GameRules, NewGame, ProtocolError

__all__ = ["GO_LEVELS", "GO_RULES", "GO_SIZES", "GoGame"]

#: Go's levels: Monte-Carlo tree search by the time it may take a move (it passes and
#: resigns by itself), and random moves (for tests and demonstrations).
GO_LEVELS: tuple[Level, ...] = (
    Level(HUMAN, "Human", None),
    Level("random", "CPU random", "random", "plays uniformly random legal moves"),
    Level("quick", "CPU quick", "mcts:time=0.5", "Monte-Carlo tree search, half a second a move"),
    Level("normal", "CPU normal", "mcts:time=2", "Monte-Carlo tree search, two seconds a move"),
    Level("strong", "CPU strong", "mcts:time=5", "Monte-Carlo tree search, five seconds a move"),
)

#: the Go presets the page offers, in its order
GO_RULES = ("chinese", "japanese", "tromp-taylor", "aga", "new-zealand")
GO_SIZES = (9, 13, 19)
#: the longest SGF record 'load' takes (a 19x19 game with comments); the WebSocket frame
#: limit of the server (64 KiB) is above the message limit
GO_MAX_LOAD = 50_000
GO_MAX_MESSAGE = 60_000


def _side(color: int) -> str:
    return "Black" if color == go.BLACK else "White"


def _figures(side: int) -> list[str]:
    me, other = ("Black", "White") if side == 1 else ("White", "Black")
    what = f"{other} stones captured by {me}"
    return [
        f'<div class="score captures" title="{what}">',
        f'  <span class="cap-stone {other.lower()}" aria-hidden="true"></span>'
        f'<span id="prisoners-{side}" aria-label="{what}">0</span>',
        "</div>",
        f'<div class="taken points" id="points-{side}" hidden></div>',
    ]


class GoGame(WebGame[go.Game]):
    """Go on 9x9, 13x13 and 19x19 boards (any size 5-19 loads from SGF), with a rules
    preset and komi per game; the end of a game is counted by the players: two passes
    (or ``score``) start it with :func:`banmen.games.go.estimate_dead`'s guess marked,
    ``toggle`` marks groups dead or alive, ``done`` records the result; undo steps back
    through the recorded result, the counting and a resignation
    (:meth:`banmen.games.go.Game.reopen`) before it takes back moves. The analysis
    (:mod:`banmen.games.go.analysis`: the tree search's win rate and visits of the moves it
    looked at, the playouts' ownership and score estimate) is of a game still being played:
    a resignation or the counting ends it like the end of any game."""

    name = "go"
    title = "Go"
    errors = go.GoError
    sides = ("Black", "White")
    default_size = 9
    base_levels = GO_LEVELS
    #: main time and Japanese byo-yomi, as Go servers play (and one Canadian overtime)
    clock_presets = (
        ("no clock", "inf"),
        ("byo-yomi 3×10 s", "byoyomi=0+3x10"),
        ("1 min + byo-yomi 5×10 s", "byoyomi=60+5x10"),
        ("5 min + byo-yomi 3×30 s", "byoyomi=300+3x30"),
        ("10 min + byo-yomi 5×30 s", "byoyomi=600+5x30"),
        ("10 min + Canadian 25 moves / 5 min", "canadian=600+25/300"),
    )

    def make_rules(self, levels: Mapping[str, Level]) -> GameRules:
        return GameRules(
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
            analysis=True,
        )

    def parts(self) -> dict[str, str]:
        return {
            "cards": parts.player_cards(
                (
                    ("side-black", "Black <small>moves first</small>"),
                    ("side-white", 'White <small id="komi-note">komi</small>'),
                ),
                _figures,
            ),
            "buttons": parts.buttons("pass", "resign", "undo", "score", "stop", "pause"),
            "analysis": parts.analysis_switch(
                "win rates and visits of the best candidates (estimates)",
                '<label class="toggle"><input type="checkbox" id="analysis-territory" checked>'
                " Territory <small>each point's likely owner (an estimate)</small></label>",
            ),
            "thinking": parts.thinking_panel(
                (
                    ("think-playouts", "playouts"),
                    ("think-winrate", "win rate"),
                    ("think-nps", "playouts/s"),
                    ("think-time", "time"),
                ),
                pv_label="Best line",
            ),
            "players": parts.players_panel((("Black", "(moves first)"), ("White", ""))),
        }

    def new_board(self, msg: NewGame, current: go.Game | None) -> tuple[go.Game, int | None]:
        now = None if current is None else current.board
        size = msg.size or (now.size if now is not None else self.default_size)
        if msg.rules is not None:
            rules = go.parse_rules(msg.rules)
        elif now is not None:
            rules = now.rules
        else:
            rules = go.CHINESE
        komi = msg.komi
        if komi is None and msg.rules is None and now is not None and not msg.handicap:
            komi = now.komi  # the same rules: the same komi
        if komi is None and msg.handicap:
            komi = 0.5  # a handicap game: the stones are the compensation
        board = go.Board(size, rules, komi)
        if msg.handicap:
            try:
                board.fixed_handicap(msg.handicap)  # white to move
            except go.GoError as e:  # more stones than a small board (from SGF) has points
                raise ProtocolError(str(e)) from None
        return go.Game(board, propose_dead=True), None

    def board_from_record(self, data: Any) -> go.Game:
        return go.Game.from_dict(data, propose_dead=True)

    def parse_move(self, board: go.Game, text: str) -> int:
        if board.is_game_over():
            raise ProtocolError(self.over_message(board))
        return super().parse_move(board, text)  # a vertex, pass, or resign

    def over_message(self, board: go.Game) -> str:
        if board.resigned is not None:
            return f"the game is over: {_side(board.resigned)} resigned (undo to take it back)"
        if board.done:
            return f"the game is over ({board.result()}): start a new game or undo"
        if board.counting:
            return (
                "the game is being counted: mark the dead stones and press Done, or undo to play on"
            )
        return super().over_message(board)

    load_hint = "paste an SGF record like (;GM[1]SZ[9];B[ee];W[gc]) or choose a .sgf file"

    def read(self, text: str) -> go.Game:
        try:
            game = go.read_sgf(text, max_moves=self.max_plies).game  # (none replayed if longer)
        except go.GoError:
            raise  # load words it
        except (ValueError, IndexError, RecursionError):  # not expected: still one line
            raise ProtocolError("not a usable SGF record") from None
        game.propose_dead = True  # a record that ends with two passes is being counted
        return game

    def act(self, board: go.Game, kind: str, square: str | None) -> None:
        if kind == "score":
            if board.resigned is not None:
                raise ProtocolError(self.over_message(board))
        elif not board.counting:
            raise ProtocolError(
                f"'{kind}' is for counting the game: pass twice or press Score first"
            )
        elif board.done:
            raise ProtocolError(
                f"the result is recorded ({board.result()}): undo to change the dead stones"
            )
        try:
            if kind == "score":
                board.request_count()
            elif kind == "done":
                board.finish()
            else:
                assert kind == "toggle" and square is not None
                p = go.parse_vertex(square, board.board.size)
                if p == go.PASS:
                    raise go.ScoringError("toggle needs a stone's point, like 'D4', not 'pass'")
                board.toggle(p)
        except go.GoError as e:
            raise ProtocolError(str(e)) from None

    def can_unwind(self, board: go.Game) -> bool:
        return board.end_step() is not None

    def unwind(self, board: go.Game) -> bool:
        return board.reopen() == "resignation"

    def describe(self, board: go.Game, start: go.Game) -> dict[str, Any]:
        game = board
        b = game.board
        n = b.size

        def name(p: int) -> str:
            return go.vertex_name(p, n)

        grid = b.grid()
        cells = [int(grid[go.point(c, n - 1 - r, n)]) for r in range(n) for c in range(n)]
        history = []
        for k, (m, c) in enumerate(zip(b.move_stack, b.colors, strict=True)):
            history.append(
                {"ply": k + 1, "player": c, "square": name(m), "captured": len(game.removed[k])}
            )
        last = None
        if history:
            last = {**history[-1], "removed": [name(p) for p in game.removed[-1]]}
        legal: list[str] = []
        illegal: dict[str, str] = {}
        if not game.is_game_over():
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
            "ko": name(ko) if ko is not None and not game.is_game_over() else None,
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
            "resigned": game.resigned,
            "counting": self._counting(game) if game.counting else None,
            "history": history,
            "last": last,
        }

    def _counting(self, game: go.Game) -> dict[str, Any]:
        n = game.board.size

        def names(points: Iterable[int]) -> list[str]:
            return [go.vertex_name(p, n) for p in sorted(points)]

        s = game.count()
        return {
            "requested": game.requested,
            "done": game.done,
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
        if go.is_resignation(result.move):
            rate = "" if result.score is None else f" (win rate {result.score:g}%)"
            return f"{side} resigns{rate}"
        if result.score is None:
            return ""
        why = STOPPED_BY.get(result.stopped_by, result.stopped_by)
        return (
            f"{side}'s win rate {result.score:g}% after {result.nodes:,} playouts "
            f"(an estimate: {why})"
        )

    def record_file(self, record: Mapping[str, Any], date: str | None = None) -> RecordFile | None:
        game = go.Game.from_dict(record.get("board"))
        names = self.player_names(record)
        final = game.resigned is not None or game.done
        # An unrecorded count is no result: no RE (write_sgf would count every stone alive).
        info = {"result": game.result() if final else ""}
        for key, value in (("black", names[1]), ("white", names[2]), ("date", date)):
            if value:
                info[key] = value
        return RecordFile(go.write_sgf(game, **info), ".sgf", "application/x-go-sgf")

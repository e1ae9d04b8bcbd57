"""Othello in the web app."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from banmen.engine import Result
from banmen.games import othello
from banmen.web import parts
from banmen.web.games._base import STOPPED_BY, WebGame
from banmen.web.levels import HUMAN, MOVE_TIME_CAP, Level
from banmen.web.protocol import GameRules

__all__ = ["OTHELLO_LEVELS", "OthelloGame"]

#: Othello's levels. The exact solver only finishes near the end of a game; earlier it runs
#: into the move time cap and then plays a quick heuristic move (not called proved).
OTHELLO_LEVELS: tuple[Level, ...] = (
    Level(HUMAN, "Human", None),
    Level("easy", "CPU easy", "alphabeta:depth=1", "looks one move ahead"),
    Level("normal", "CPU normal", "alphabeta:depth=4", "looks four moves ahead"),
    Level("strong", "CPU strong", "alphabeta:time=1", "searches for one second a move"),
    Level(
        "perfect",
        "CPU perfect endgame",
        "perfect",
        f"exact solver, for positions with about 22 empty squares or fewer; with more it "
        f"stops at the {MOVE_TIME_CAP:g} s cap and plays a quick, unproved move",
    ),
)


def _figures(side: int) -> list[str]:
    name = ("Black", "White")[side - 1]
    return [f'<div class="score" id="discs-{side}" aria-label="{name} discs">2</div>']


class OthelloGame(WebGame[othello.Board]):
    name = "othello"
    title = "Othello"
    sides = ("Black", "White")
    errors = othello.OthelloError
    base_levels = OTHELLO_LEVELS
    #: sudden death, as Othello is played: 30 minutes a side in tournaments, less online
    clock_presets = (
        ("no clock", "inf"),
        ("1 min", "60"),
        ("2 min + 1 s a move", "2:00+1"),
        ("5 min", "5:00"),
        ("10 min", "10:00"),
        ("30 min (tournament)", "30:00"),
    )

    def make_rules(self, levels: Mapping[str, Level]) -> GameRules:
        return GameRules(levels, load=True, example="f5", analysis=True)

    def parts(self) -> dict[str, str]:
        return {
            "cards": parts.player_cards(
                (("side-black", "Black <small>moves first</small>"), ("side-white", "White")),
                _figures,
            ),
            "buttons": parts.buttons(
                "pass",
                "undo",
                "stop",
                "pause",
                titles={"pass": "Pass: only when you have no legal move"},
            ),
            "analysis": parts.analysis_switch(),
            "thinking": parts.thinking_panel(
                (
                    parts.SEARCH_FIGURES[0],
                    ("think-score", "score (discs)"),
                    parts.SEARCH_FIGURES[2],
                    parts.NPS,
                )
            ),  # fmt: skip
            "players": parts.players_panel((("Black", "(moves first)"), ("White", ""))),
        }

    # (a new game: the standard start, GameDef.start — WebGame.new_board)

    def board_from_record(self, data: Any) -> othello.Board:
        return othello.Board.from_dict(data)

    def is_pass(self, move: int) -> bool:
        return move == othello.PASS

    load_hint = (
        "paste a transcript like f5d6c3 or a board string "
        "(64 squares X, O or - and the side to move, X or O)"
    )

    def read(self, text: str) -> othello.Board:
        return othello.Board.from_text(text)

    def describe(self, board: othello.Board, start: othello.Board) -> dict[str, Any]:
        black, white = board.black, board.white
        cells = [1 if black >> i & 1 else 2 if white >> i & 1 else 0 for i in range(64)]
        history = []
        # Replay the moves on bare bitboards (no legality checks: they were checked when
        # played) to learn how many discs each one turned.
        b, w, turn = start.black, start.white, start.turn
        flipped = 0
        for k, mv in enumerate(board.move_stack):
            flipped = 0 if mv == othello.PASS else othello.Board(b, w, turn).flips(mv)
            history.append(
                {
                    "ply": k + 1,
                    "player": turn,
                    "square": othello.square_name(mv),
                    "sq": mv,
                    "flips": flipped.bit_count(),
                }
            )
            if mv != othello.PASS:
                if turn == othello.BLACK:
                    b, w = b | flipped | 1 << mv, w & ~flipped
                else:
                    w, b = w | flipped | 1 << mv, b & ~flipped
            turn = 3 - turn
        last = None
        if history:
            last = {**history[-1], "flipped": [i for i in range(64) if flipped >> i & 1]}
        legal = board.legal_moves
        standard = start == othello.Board()
        return {
            "size": 8,
            "cells": cells,
            "discs": list(board.discs()),
            "empties": board.empties(),
            "legal": [m for m in legal if m != othello.PASS],
            "must_pass": legal == [othello.PASS],
            "flips": {str(sq): n for sq, n in board.flip_counts().items()},
            "history": history,
            "last": last,
            "transcript": board.transcript(),
            "position": board.to_string(),
            "start": None if standard else start.to_string(),
        }

    def verdict(self, player: int, result: Result) -> str:
        if result.score is None:
            return ""
        s = result.score
        if result.exact:
            if s == 0:
                return "proved: a draw"
            winner = self.side_name(player if s > 0 else 3 - player)
            n = abs(int(s))
            return f"proved: {winner} wins by {n} disc{'s' if n != 1 else ''}"
        if s == 0:
            what = "even"
        else:
            lead = self.side_name(player if s > 0 else 3 - player)
            what = f"{lead} ahead by about {abs(s):g} discs"
        why = STOPPED_BY.get(result.stopped_by, result.stopped_by)
        return f"estimate: {what} (not proved: {why})"

"""Mattix in the web app."""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from typing import Any

from banmen.engine import Result
from banmen.games import mattix
from banmen.web import parts
from banmen.web.games._base import STOPPED_BY, WebGame
from banmen.web.levels import HUMAN, Level
from banmen.web.protocol import GameRules, NewGame

__all__ = ["MATTIX_LEVELS", "MattixGame"]

#: Mattix's levels: alpha-beta by depth or time, and the exact solver (a 6x6 game is
#: solved from its start within the move time cap)
MATTIX_LEVELS: tuple[Level, ...] = (
    Level(HUMAN, "Human", None),
    Level("normal", "CPU normal", "alphabeta:depth=1"),
    Level("strong", "CPU strong", "alphabeta:depth=3"),
    Level("1s", "CPU 1 s", "alphabeta:time=1"),
    Level("perfect", "CPU perfect", "perfect"),
)


def _figures(side: int) -> list[str]:
    return [
        f'<div class="score" id="score-{side}" aria-label="Player {side} score">0</div>',
        f'<div class="taken" id="taken-{side}" aria-label="Pieces taken by player {side}"></div>',
    ]


class MattixGame(WebGame[mattix.Board]):
    name = "mattix"
    title = "Mattix"
    sides = ("player 1", "player 2")
    default_size = 6
    errors = mattix.MattixError
    base_levels = MATTIX_LEVELS

    def make_rules(self, levels: Mapping[str, Level]) -> GameRules:
        return GameRules(levels, sizes=mattix.SIZES, seeds=True, example="c2", analysis=True)

    def parts(self) -> dict[str, str]:
        return {
            "cards": parts.player_cards(
                (("p1", "Player 1 <small>row</small>"), ("p2", "Player 2 <small>column</small>")),
                _figures,
            ),
            "buttons": parts.buttons("undo", "stop", "pause"),
            "analysis": parts.analysis_switch(),
            "thinking": parts.thinking_panel((*parts.SEARCH_FIGURES, parts.NPS)),
            "players": parts.players_panel(
                (
                    ("Player 1", "(takes from the chip's row)"),
                    ("Player 2", "(takes from the chip's column)"),
                )
            ),
        }

    def new_board(
        self, msg: NewGame, current: mattix.Board | None
    ) -> tuple[mattix.Board, int | None]:
        size = msg.size or (current.size if current is not None else self.default_size)
        # Short random seeds are easy to read out and type in again to replay a deal.
        seed = msg.seed if msg.seed is not None else secrets.randbelow(10**9)
        return mattix.Board.from_seed(seed, size), seed

    def board_from_record(self, data: Any) -> mattix.Board:
        return mattix.Board.from_dict(data)

    def describe(self, board: mattix.Board, start: mattix.Board) -> dict[str, Any]:
        history = []
        chip = start.chip
        turn = start.turn
        for k, sq in enumerate(board.move_stack):
            history.append(
                {
                    "ply": k + 1,
                    "player": turn,
                    "square": board.move_name(sq),
                    "sq": sq,
                    "from": chip,
                    "value": start.cells[sq],
                }
            )
            chip, turn = sq, 3 - turn
        return {
            "size": board.size,
            "cells": list(board.cells),
            "chip": board.chip,
            "scores": list(board.scores),
            "line": board.line(),
            "legal": [] if board.is_game_over() else board.legal_moves,
            "history": history,
            "last": history[-1] if history else None,
        }

    def verdict(self, player: int, result: Result) -> str:
        if result.score is None:
            return ""
        s = result.score
        what = "0 (a draw)" if s == 0 else f"+{abs(s)} for player {player if s > 0 else 3 - player}"
        if result.exact:
            return f"proven final margin: {what}"
        why = STOPPED_BY.get(result.stopped_by, result.stopped_by)
        return f"estimated final margin: {what} (not proven: {why})"

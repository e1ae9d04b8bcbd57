"""Mattix in the web app."""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from typing import Any

from banmen.engine import Result
from banmen.games import mattix
from banmen.web.games._base import STOPPED_BY, WebGame
from banmen.web.levels import DEFAULT_LEVELS, make_levels
from banmen.web.protocol import GameRules, NewGame


class MattixGame(WebGame[mattix.Board]):
    name = "mattix"
    title = "Mattix"
    sides = ("player 1", "player 2")
    default_size = 6
    errors = mattix.MattixError

    def __init__(
        self,
        extra_levels: Mapping[str, str] | None = None,
        players: Mapping[str, str] | None = None,
    ) -> None:
        levels = make_levels(extra_levels, DEFAULT_LEVELS, players)
        super().__init__(
            levels,
            GameRules(levels, sizes=mattix.SIZES, seeds=True, example="c2", analysis=True),
        )

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

"""Go rules: vertices, push/pop, ko, suicide, superko, handicap, rules presets, JSON,
scoring (area, territory, seki, dead stones), Benson, playouts, and random games against a
slow reference written here (plain flood fills, the whole history of boards for
superko)."""

from __future__ import annotations

import doctest
import importlib
import json
import random

import numpy as np
import pytest

from banmen.games.go import (
    AGA,
    BLACK,
    CHINESE,
    EMPTY,
    JAPANESE,
    NEW_ZEALAND,
    PASS,
    PRESETS,
    TROMP_TAYLOR,
    WHITE,
    Board,
    GoError,
    HandicapError,
    IllegalMoveError,
    InvalidBoardError,
    InvalidMoveError,
    Rules,
    RulesError,
    ScoringError,
    benson,
    estimate_dead,
    handicap_points,
    parse_rules,
    parse_vertex,
    pass_alive,
    vertex_name,
)
from banmen.games.go import kernel as K
from banmen.games.go.scoring import ownership, result_string

# --------------------------------------------------------------------------- helpers


def diagram(text: str, rules: Rules | str = "chinese", turn: int = BLACK, komi: float | None = None) -> Board:
    """A board from rows of ``X`` (black), ``O`` (white) and ``.``, top row first."""
    rows = [line.replace(" ", "") for line in text.strip().splitlines()]
    n = len(rows)
    board = Board(n, rules, komi)
    black, white = [], []
    for i, row in enumerate(rows):
        assert len(row) == n, row
        for c, ch in enumerate(row):
            p = (n - i) * (n + 2) + c + 1
            if ch == "X":
                black.append(p)
            elif ch == "O":
                white.append(p)
    board.setup(black, white, turn=turn)
    return board


def v(board: Board, name: str) -> int:
    return parse_vertex(name, board.size)


def play(board: Board, *names: str) -> None:
    for name in names:
        board.push(board.parse_move(name))


def state(board: Board) -> tuple[object, ...]:
    pos = board.position
    return (
        pos.board.tobytes(),
        pos.meta.tobytes(),
        tuple(board.move_stack),
        tuple(board.colors),
        board.resigned,
        json.dumps(board.to_dict()),
    )


# --------------------------------------------------------------------------- the reference

Grid = tuple[int, ...]  # size*size colours, row 0 = the first line (bottom), 0/1/2


def neighbours(i: int, n: int) -> list[int]:
    r, c = divmod(i, n)
    out = []
    if c > 0:
        out.append(i - 1)
    if c < n - 1:
        out.append(i + 1)
    if r > 0:
        out.append(i - n)
    if r < n - 1:
        out.append(i + n)
    return out


def group(grid: Grid | list[int], n: int, i: int) -> tuple[set[int], set[int]]:
    color = grid[i]
    stones, libs, todo = {i}, set(), [i]
    while todo:
        q = todo.pop()
        for r in neighbours(q, n):
            if grid[r] == color and r not in stones:
                stones.add(r)
                todo.append(r)
            elif grid[r] == 0:
                libs.add(r)
    return stones, libs


def place(grid: Grid, n: int, i: int, color: int, suicide_ok: bool) -> tuple[Grid, int] | str:
    """The grid after ``color`` plays ``i`` and the stones captured (negative: own stones
    lost to suicide), or the reason it is illegal ("occupied"/"suicide")."""
    if grid[i]:
        return "occupied"
    g = list(grid)
    g[i] = color
    captured = 0
    for q in neighbours(i, n):
        if g[q] == 3 - color:
            stones, libs = group(g, n, q)
            if not libs:
                captured += len(stones)
                for s in stones:
                    g[s] = 0
    stones, libs = group(g, n, i)
    if not libs:
        if len(stones) == 1 or not suicide_ok:
            return "suicide"
        for s in stones:
            g[s] = 0
        return tuple(g), -len(stones)
    return tuple(g), captured


class RefGame:
    """Positions as grids; ``ko`` is "simple", "positional" or "situational"."""

    def __init__(self, n: int, ko: str, suicide_ok: bool) -> None:
        self.n = n
        self.ko = ko
        self.suicide_ok = suicide_ok
        self.grid: Grid = (0,) * (n * n)
        self.turn = 1
        self.before_last: Grid | None = None  # the grid before the last move
        self.history: list[tuple[Grid, int]] = [(self.grid, self.turn)]
        self.caps = [0, 0]
        self.passes = 0

    def reason(self, i: int) -> str | None:
        res = place(self.grid, self.n, i, self.turn, self.suicide_ok)
        if isinstance(res, str):
            return res
        new, _ = res
        if new == self.before_last:
            return "ko"
        if self.ko == "positional" and any(new == g for g, _ in self.history):
            return "superko"
        if self.ko == "situational" and (new, 3 - self.turn) in self.history:
            return "superko"
        return None

    def legal(self) -> set[int]:
        return {i for i in range(self.n * self.n) if self.reason(i) is None}

    def play(self, i: int | None) -> None:
        """A legal move, or ``None`` to pass."""
        before = self.grid
        if i is None:
            self.passes += 1
        else:
            res = place(self.grid, self.n, i, self.turn, self.suicide_ok)
            assert not isinstance(res, str)
            self.grid, captured = res
            if captured >= 0:
                self.caps[self.turn - 1] += captured
            else:
                self.caps[2 - self.turn] -= captured
            self.passes = 0
        self.before_last = before if i is not None else None
        self.turn = 3 - self.turn
        self.history.append((self.grid, self.turn))

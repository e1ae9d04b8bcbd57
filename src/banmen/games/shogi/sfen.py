"""SFEN parsing with every error caught in Python.

cshogi's ``Board.set_sfen`` aborts the whole process (a C++ ``std::runtime_error``) on some
malformed strings and silently accepts others (two kings of one side, 99 pawns in hand), so a
string from a user is checked here first and only a well-formed, legal-looking position ever
reaches cshogi. Every problem is reported as one :class:`ShogiError` line naming what was wrong
and what was expected.
"""

from __future__ import annotations

import re

import cshogi

__all__ = ["ShogiError", "parse_sfen", "normalize_sfen", "STARTPOS"]

STARTPOS: str = str(cshogi.STARTING_SFEN)

#: how many of each piece kind a shogi set has (promoted pieces count as their base kind)
_SET = {"P": 18, "L": 4, "N": 4, "S": 4, "G": 4, "B": 2, "R": 2, "K": 2}
_PROMOTABLE = set("PLNSBR")
_HAND_ORDER = "RBGSNLP"
_HAND_RE = re.compile(r"([0-9]*)([A-Za-z])")
_DIGITS = "123456789"


class ShogiError(ValueError):
    """A move, SFEN or position that is not valid, with what was expected."""


def _board_rows(text: str) -> list[list[str | None]]:
    rows = text.split("/")
    if len(rows) != 9:
        raise ShogiError(f"SFEN board has {len(rows)} ranks, expected 9 separated by '/'")
    grid: list[list[str | None]] = []
    for r, row in enumerate(rows, start=1):
        cells: list[str | None] = []
        i = 0
        while i < len(row):
            c = row[i]
            if c == "0":
                raise ShogiError(f"SFEN rank {r}: '0' is not a run of empty squares (1-9)")
            if c in _DIGITS:
                cells.extend([None] * int(c))
                i += 1
                continue
            promoted = c == "+"
            if promoted:
                i += 1
                if i >= len(row):
                    raise ShogiError(f"SFEN rank {r}: '+' must be followed by a piece letter")
                c = row[i]
            if c.upper() not in _SET:
                raise ShogiError(
                    f"SFEN rank {r}: {c!r} is not a piece (expected one of PLNSGBRK, "
                    "upper case for black/sente, lower case for white/gote)"
                )
            if promoted and c.upper() not in _PROMOTABLE:
                raise ShogiError(f"SFEN rank {r}: {c!r} cannot be promoted")
            cells.append(("+" if promoted else "") + c)
            i += 1
        if len(cells) != 9:
            raise ShogiError(f"SFEN rank {r} covers {len(cells)} files, expected 9")
        grid.append(cells)
    return grid


def _hand(text: str) -> dict[str, int]:
    if text == "-":
        return {}
    counts: dict[str, int] = {}
    pos = 0
    for m in _HAND_RE.finditer(text):
        if m.start() != pos:
            break
        pos = m.end()
        n = int(m.group(1)) if m.group(1) else 1
        p = m.group(2)
        if p.upper() not in _SET or p.upper() == "K":
            raise ShogiError(f"SFEN hand: {p!r} cannot be held in hand (expected RBGSNLP/rbgsnlp)")
        if n < 1:
            raise ShogiError(f"SFEN hand: count {m.group(1)!r} for {p!r} must be at least 1")
        if p in counts:
            raise ShogiError(f"SFEN hand: {p!r} is listed twice")
        counts[p] = n
    if pos != len(text) or not text:
        raise ShogiError(f"SFEN hand {text!r} is not '-' or counts and pieces like 2P or Sb")
    return counts


def _check_position(grid: list[list[str | None]], hand: dict[str, int]) -> None:
    totals = {k: 0 for k in _SET}
    kings = {"b": 0, "w": 0}
    for r, row in enumerate(grid, start=1):
        for f_index, cell in enumerate(row):
            if cell is None:
                continue
            base = cell[-1]
            totals[base.upper()] += 1
            if base == "K":
                kings["b"] += 1
            elif base == "k":
                kings["w"] += 1
            if cell.startswith("+"):
                continue
            file_ = 9 - f_index
            # ranks a piece could never move from (counted from its owner's side)
            far = r if base.isupper() else 10 - r
            if base.upper() in "PL" and far == 1 or base.upper() == "N" and far <= 2:
                raise ShogiError(
                    f"an unpromoted {base} on {file_}{chr(ord('a') + r - 1)} could never move"
                )
    for p, n in hand.items():
        totals[p.upper()] += n
    for kind, n in totals.items():
        if n > _SET[kind]:
            raise ShogiError(f"the position has {n} pieces of kind {kind}, a set has {_SET[kind]}")
    if kings["b"] > 1 or kings["w"] > 1:
        raise ShogiError("a side has more than one king")
    where = {
        cell: (r, f)
        for r, row in enumerate(grid)
        for f, cell in enumerate(row)
        if cell is not None and cell in ("K", "k")
    }
    if len(where) == 2:
        (r1, f1), (r2, f2) = where["K"], where["k"]
        if max(abs(r1 - r2), abs(f1 - f2)) == 1:
            raise ShogiError("the two kings stand next to each other")
    for side, letter in (("black", "P"), ("white", "p")):
        for f_index in range(9):
            pawns = sum(1 for row in grid if row[f_index] == letter)
            if pawns > 1:
                raise ShogiError(f"{side} has two unpromoted pawns on file {9 - f_index} (nifu)")


def normalize_sfen(text: str) -> str:
    """Check ``text`` and return it as canonical SFEN (``startpos`` accepted).

    >>> normalize_sfen("startpos")
    'lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1'
    >>> normalize_sfen("9/9/9 b - 1")
    Traceback (most recent call last):
    ...
    banmen.games.shogi.sfen.ShogiError: SFEN board has 3 ranks, expected 9 separated by '/'
    """
    if not isinstance(text, str):
        raise ShogiError("SFEN must be a string")
    s = text.strip()
    if s.startswith("sfen "):
        s = s[5:].strip()
    if s == "startpos":
        return STARTPOS
    parts = s.split()
    if len(parts) not in (3, 4):
        raise ShogiError(
            f"SFEN has {len(parts)} fields, expected 'BOARD SIDE HAND [MOVE_NUMBER]' "
            "as in 'lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1'"
        )
    board, side, hand_text = parts[:3]
    number = parts[3] if len(parts) == 4 else "1"
    if side not in ("b", "w"):
        raise ShogiError(f"SFEN side to move {side!r}, expected 'b' (black/sente) or 'w'")
    if not (number.isascii() and number.isdigit()) or int(number) < 1:
        raise ShogiError(f"SFEN move number {number!r}, expected a positive integer")
    grid = _board_rows(board)
    hand = _hand(hand_text)
    _check_position(grid, hand)
    black = "".join((str(hand[p]) if hand[p] > 1 else "") + p for p in _HAND_ORDER if p in hand)
    white = "".join(
        (str(hand[p]) if hand[p] > 1 else "") + p for p in _HAND_ORDER.lower() if p in hand
    )
    return f"{_board_text(grid)} {side} {(black + white) or '-'} {int(number)}"


def _board_text(grid: list[list[str | None]]) -> str:
    rows = []
    for row in grid:
        out, empty = "", 0
        for cell in row:
            if cell is None:
                empty += 1
                continue
            if empty:
                out += str(empty)
                empty = 0
            out += cell
        rows.append(out + (str(empty) if empty else ""))
    return "/".join(rows)


def parse_sfen(text: str) -> cshogi.Board:
    """A cshogi board for ``text``, or :class:`ShogiError` (never a crash).

    Beyond the syntax, the side that is not to move must not be in check. (cshogi's own
    ``Board.is_ok`` is not used: it prints a board dump to standard output.)
    """
    sfen = normalize_sfen(text)
    board = cshogi.Board()
    board.set_sfen(sfen)
    parts = sfen.split()
    other = "k" if parts[1] == "b" else "K"
    if other not in parts[0]:
        side = "white" if other == "k" else "black"
        raise ShogiError(f"{side} (the side not to move) has no king on the board")
    # ask cshogi whether the side not to move would be in check if it were to move
    parts[1] = "w" if parts[1] == "b" else "b"
    flipped = cshogi.Board()
    flipped.set_sfen(" ".join(parts))
    if flipped.is_check():
        raise ShogiError("the side not to move is in check (its king could be taken)")
    return board

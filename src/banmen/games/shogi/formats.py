"""Shogi's record formats: SFEN in and out, USI moves in, KIF and CSA out.

**SFEN**, with every error caught in Python. cshogi's ``Board.set_sfen`` aborts the whole
process (a C++ ``std::runtime_error``) on some malformed strings and silently accepts others
(two kings of one side, 99 pawns in hand), so a string from a user is checked here first and
only a well-formed, legal-looking position ever reaches cshogi. Every problem is reported as
one :class:`~banmen.games.shogi.errors.InvalidBoardError` line naming what was wrong and what
was expected.

**Moves.** A solver speaks USI (``7e7b+``, ``P*5e``): that is what engines and GUIs exchange.
People read KIF (``▲７二香成(75)``, the Japanese notation of Kakinoki's format) and programs
archive CSA (``+7572NY``). Both need the position a move is played from (the piece that
moves, the square it comes from, whether it is a recapture), so every function here takes
the starting SFEN and the whole line, checks each move against the legal moves, and
reports the first bad one as a :class:`~banmen.games.shogi.errors.ShogiError`.

>>> line = ["7e7b+", "6d5d", "7f5f"]
>>> problem = "9/9/3pp4/+r2k1p3/2L1+p4/2+R6/B8/B8/9 b 4g4s4n3l14p 1"
>>> kif_moves(problem, line)
['▲７二香成(75)', '△５四玉(64)', '▲５六龍(76)']
>>> csa_moves(problem, line)
['+7572NY', '-6454OU', '+7656RY']
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

import cshogi
import cshogi.KIF

from banmen.games.shogi.errors import IllegalMoveError, InvalidBoardError, InvalidMoveError

__all__ = [
    "STARTPOS",
    "parse_sfen",
    "normalize_sfen",
    "parse_usi_move",
    "usi_line",
    "kif_move",
    "kif_moves",
    "csa_moves",
    "bod",
    "kif_document",
    "KIF_MOVES_HEADER",
]

STARTPOS: str = str(cshogi.STARTING_SFEN)

#: how many of each piece kind a shogi set has (promoted pieces count as their base kind)
_SET = {"P": 18, "L": 4, "N": 4, "S": 4, "G": 4, "B": 2, "R": 2, "K": 2}
_PROMOTABLE = set("PLNSBR")
_HAND_ORDER = "RBGSNLP"
_HAND_RE = re.compile(r"([0-9]*)([A-Za-z])")
_DIGITS = "123456789"


def _board_rows(text: str) -> list[list[str | None]]:
    rows = text.split("/")
    if len(rows) != 9:
        raise InvalidBoardError(f"SFEN board has {len(rows)} ranks, expected 9 separated by '/'")
    grid: list[list[str | None]] = []
    for r, row in enumerate(rows, start=1):
        cells: list[str | None] = []
        i = 0
        while i < len(row):
            c = row[i]
            if c == "0":
                raise InvalidBoardError(f"SFEN rank {r}: '0' is not a run of empty squares (1-9)")
            if c in _DIGITS:
                cells.extend([None] * int(c))
                i += 1
                continue
            promoted = c == "+"
            if promoted:
                i += 1
                if i >= len(row):
                    raise InvalidBoardError(
                        f"SFEN rank {r}: '+' must be followed by a piece letter"
                    )
                c = row[i]
            if c.upper() not in _SET:
                raise InvalidBoardError(
                    f"SFEN rank {r}: {c!r} is not a piece (expected one of PLNSGBRK, "
                    "upper case for black/sente, lower case for white/gote)"
                )
            if promoted and c.upper() not in _PROMOTABLE:
                raise InvalidBoardError(f"SFEN rank {r}: {c!r} cannot be promoted")
            cells.append(("+" if promoted else "") + c)
            i += 1
        if len(cells) != 9:
            raise InvalidBoardError(f"SFEN rank {r} covers {len(cells)} files, expected 9")
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
            raise InvalidBoardError(
                f"SFEN hand: {p!r} cannot be held in hand (expected RBGSNLP/rbgsnlp)"
            )
        if n < 1:
            raise InvalidBoardError(f"SFEN hand: count {m.group(1)!r} for {p!r} must be at least 1")
        if p in counts:
            raise InvalidBoardError(f"SFEN hand: {p!r} is listed twice")
        counts[p] = n
    if pos != len(text) or not text:
        raise InvalidBoardError(f"SFEN hand {text!r} is not '-' or counts and pieces like 2P or Sb")
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
                raise InvalidBoardError(
                    f"an unpromoted {base} on {file_}{chr(ord('a') + r - 1)} could never move"
                )
    for p, n in hand.items():
        totals[p.upper()] += n
    for kind, n in totals.items():
        if n > _SET[kind]:
            raise InvalidBoardError(
                f"the position has {n} pieces of kind {kind}, a set has {_SET[kind]}"
            )
    if kings["b"] > 1 or kings["w"] > 1:
        raise InvalidBoardError("a side has more than one king")
    where = {
        cell: (r, f)
        for r, row in enumerate(grid)
        for f, cell in enumerate(row)
        if cell is not None and cell in ("K", "k")
    }
    if len(where) == 2:
        (r1, f1), (r2, f2) = where["K"], where["k"]
        if max(abs(r1 - r2), abs(f1 - f2)) == 1:
            raise InvalidBoardError("the two kings stand next to each other")
    for side, letter in (("black", "P"), ("white", "p")):
        for f_index in range(9):
            pawns = sum(1 for row in grid if row[f_index] == letter)
            if pawns > 1:
                raise InvalidBoardError(
                    f"{side} has two unpromoted pawns on file {9 - f_index} (nifu)"
                )


def normalize_sfen(text: str) -> str:
    """Check ``text`` and return it as canonical SFEN (``startpos`` accepted).

    >>> normalize_sfen("startpos")
    'lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1'
    >>> normalize_sfen("9/9/9 b - 1")
    Traceback (most recent call last):
    ...
    banmen.games.shogi.errors.InvalidBoardError: SFEN board has 3 ranks, expected 9 separated by '/'
    """
    if not isinstance(text, str):
        raise InvalidBoardError("SFEN must be a string")
    s = text.strip()
    if s.startswith("sfen "):
        s = s[5:].strip()
    if s == "startpos":
        return STARTPOS
    parts = s.split()
    if len(parts) not in (3, 4):
        raise InvalidBoardError(
            f"SFEN has {len(parts)} fields, expected 'BOARD SIDE HAND [MOVE_NUMBER]' "
            "as in 'lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1'"
        )
    board, side, hand_text = parts[:3]
    number = parts[3] if len(parts) == 4 else "1"
    if side not in ("b", "w"):
        raise InvalidBoardError(f"SFEN side to move {side!r}, expected 'b' (black/sente) or 'w'")
    if not (number.isascii() and number.isdigit()) or int(number) < 1:
        raise InvalidBoardError(f"SFEN move number {number!r}, expected a positive integer")
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
    """A cshogi board for ``text``, or :class:`InvalidBoardError` (never a crash).

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
        raise InvalidBoardError(f"{side} (the side not to move) has no king on the board")
    # ask cshogi whether the side not to move would be in check if it were to move
    parts[1] = "w" if parts[1] == "b" else "b"
    flipped = cshogi.Board()
    flipped.set_sfen(" ".join(parts))
    if flipped.is_check():
        raise InvalidBoardError("the side not to move is in check (its king could be taken)")
    return board


# --------------------------------------------------------------------------- moves

#: the line that opens the moves section of a KIF file
KIF_MOVES_HEADER = "手数----指手---------消費時間--"

_USI_MOVE = re.compile(r"[1-9][a-i][1-9][a-i]\+?|[PLNSGBR]\*[1-9][a-i]")
#: cshogi writes the board diagram's one-character names of promoted silver, knight and
#: lance; a KIF move uses the two-character names that Kifu for Windows writes and reads
_KIF_PIECE_NAMES = str.maketrans({"全": "成銀", "圭": "成桂", "杏": "成香"})
#: display columns a KIF move and the spaces after it take before the time column, as
#: Kifu for Windows aligns them: ``７六歩(77)   (``, ``２二角成(88) (``
_KIF_MOVE_COLUMNS = 13


def _side(board: cshogi.Board) -> str:
    return "black/sente" if board.turn == cshogi.BLACK else "white/gote"


def parse_usi_move(board: cshogi.Board, text: str) -> int:
    """The cshogi move ``text`` (USI: ``7g7f``, ``8h2b+``, ``P*5e``) names on ``board``.

    Raises :class:`InvalidMoveError` when ``text`` is not a USI move and
    :class:`IllegalMoveError` when it is not a legal move in the position, each with a
    one-line message (a non-promotion is a move of its own: ``7e7b`` and
    ``7e7b+`` are different moves, each legal or not).

    >>> board = parse_sfen("startpos")
    >>> cshogi.move_to_usi(parse_usi_move(board, "7g7f"))
    '7g7f'
    >>> parse_usi_move(board, "7g7e")
    Traceback (most recent call last):
    ...
    banmen.games.shogi.errors.IllegalMoveError: 7g7e is not a legal move here (black/sente to move)
    """
    if not isinstance(text, str) or not _USI_MOVE.fullmatch(text):
        shown = text if isinstance(text, str) else type(text).__name__
        raise InvalidMoveError(
            f"{shown[:40]!r} is not a USI move: expected a move like 7g7f, 8h2b+ or P*5e"
        )
    # compare with the legal moves' names rather than asking cshogi to parse the text:
    # it never sees anything but its own output
    for move in board.legal_moves:
        if cshogi.move_to_usi(move) == text:
            return int(move)
    raise IllegalMoveError(f"{text} is not a legal move here ({_side(board)} to move)")


def usi_line(sfen: str, pv: Sequence[str]) -> tuple[cshogi.Board, list[int]]:
    """The board of ``sfen`` and the cshogi moves of ``pv``, each checked in turn.

    The board is returned at the start position (the moves are not left on it).
    Raises :class:`InvalidMoveError` or :class:`IllegalMoveError` naming the ply of the
    first bad move.
    """
    board = parse_sfen(sfen)
    moves: list[int] = []
    for ply, text in enumerate(pv, start=1):
        try:
            move = parse_usi_move(board, text)
        except (InvalidMoveError, IllegalMoveError) as e:
            raise type(e)(f"move {ply}: {e}") from None
        board.push(move)
        moves.append(move)
    for _ in moves:
        board.pop()
    return board, moves


def kif_move(move: int, prev_move: int | None = None) -> str:
    """The KIF text of ``move`` without a side mark: ``７二香成(75)``, ``同　玉(61)``
    (a recapture on the square of ``prev_move``), ``５二金打``."""
    return str(cshogi.KIF.move_to_kif(move, prev_move)).translate(_KIF_PIECE_NAMES)


def kif_moves(sfen: str, pv: Sequence[str]) -> list[str]:
    """The KIF names of the line ``pv`` from ``sfen``, each marked ▲ (black/sente) or
    △ (white/gote): ``['▲７二香成(75)', '△５四玉(64)', ...]``."""
    board, moves = usi_line(sfen, pv)
    marks = ("▲", "△") if board.turn == cshogi.BLACK else ("△", "▲")
    prev: int | None = None
    out: list[str] = []
    for i, move in enumerate(moves):
        out.append(marks[i % 2] + kif_move(move, prev))
        prev = move
    return out


def csa_moves(sfen: str, pv: Sequence[str]) -> list[str]:
    """The CSA names of the line ``pv`` from ``sfen``: ``['+7572NY', '-6454OU', ...]``
    (``+`` black/sente, ``-`` white/gote; from-square ``00`` for a drop; the piece as it
    stands after the move)."""
    board, moves = usi_line(sfen, pv)
    signs = ("+", "-") if board.turn == cshogi.BLACK else ("-", "+")
    return [signs[i % 2] + str(cshogi.move_to_csa(m)) for i, m in enumerate(moves)]


def bod(sfen: str) -> str:
    """The position as a KIF board diagram (BOD): hands, the board with white's pieces
    marked ``v``, and ``後手番`` when white is to move."""
    return str(cshogi.KIF.board_to_bod(parse_sfen(sfen)))


def _columns(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(c) in "FW" else 1 for c in text)


def kif_document(sfen: str, pv: Sequence[str], *, mate: bool = True) -> str:
    """A KIF file of the problem ``sfen`` and its line ``pv``.

    A problem does not start from the initial position, so the header is the board
    diagram (:func:`bod`) rather than a ``手合割`` line. The moves are numbered from 1, as
    KIF readers expect, with zero times; with ``mate`` the file ends ``まで3手で詰み``,
    otherwise ``まで3手で中断`` (a line that is not proved to mate); an empty line gives
    the diagram alone.
    """
    board, moves = usi_line(sfen, pv)
    lines = [
        "# KIF形式棋譜ファイル",
        "# banmen: tsume-shogi",
        str(cshogi.KIF.board_to_bod(board)),
        KIF_MOVES_HEADER,
    ]
    prev: int | None = None
    for n, move in enumerate(moves, start=1):
        text = kif_move(move, prev)
        padding = " " * max(_KIF_MOVE_COLUMNS - _columns(text), 1)
        lines.append(f"{n:>4} {text}{padding}( 0:00/00:00:00)")
        prev = move
    if moves:
        lines.append(f"まで{len(moves)}手で{'詰み' if mate else '中断'}")
    return "\n".join(lines) + "\n"

"""Shogi move notation: USI in, KIF and CSA out.

A solver speaks USI (``7e7b+``, ``P*5e``): that is what engines and GUIs exchange. People
read KIF (``▲７二香成(75)``, the Japanese notation of Kakinoki's format) and programs
archive CSA (``+7572NY``). Both need the position a move is played from (the piece that
moves, the square it comes from, whether it is a recapture), so every function here takes
the starting SFEN and the whole line, checks each move against the legal moves, and
reports the first bad one as a :class:`~banmen.games.shogi.sfen.ShogiError`.

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
from typing import Any

import cshogi
import cshogi.KIF

from banmen.games.shogi.sfen import ShogiError, parse_sfen

__all__ = [
    "parse_usi_move",
    "usi_line",
    "kif_move",
    "kif_moves",
    "csa_moves",
    "bod",
    "kif_document",
    "KIF_MOVES_HEADER",
]

#: the line that opens the moves section of a KIF file
KIF_MOVES_HEADER = "手数----指手---------消費時間--"

_USI_MOVE = re.compile(r"[1-9][a-i][1-9][a-i]\+?|[PLNSGBR]\*[1-9][a-i]")
#: cshogi writes the board diagram's one-character names of promoted silver, knight and
#: lance; a KIF move uses the two-character names that Kifu for Windows writes and reads
_KIF_PIECE_NAMES = str.maketrans({"全": "成銀", "圭": "成桂", "杏": "成香"})
#: display columns a KIF move and the spaces after it take before the time column, as
#: Kifu for Windows aligns them: ``７六歩(77)   (``, ``２二角成(88) (``
_KIF_MOVE_COLUMNS = 13

# cshogi has no type information: a board is Any to mypy
_Board = Any


def _side(board: _Board) -> str:
    return "black/sente" if board.turn == cshogi.BLACK else "white/gote"


def parse_usi_move(board: _Board, text: str) -> int:
    """The cshogi move ``text`` (USI: ``7g7f``, ``8h2b+``, ``P*5e``) names on ``board``.

    Raises :class:`ShogiError` with a one-line message when ``text`` is not a USI move or
    not a legal move in the position (a non-promotion is a move of its own: ``7e7b`` and
    ``7e7b+`` are different moves, each legal or not).

    >>> board = parse_sfen("startpos")
    >>> cshogi.move_to_usi(parse_usi_move(board, "7g7f"))
    '7g7f'
    >>> parse_usi_move(board, "7g7e")
    Traceback (most recent call last):
    ...
    banmen.games.shogi.sfen.ShogiError: 7g7e is not a legal move here (black/sente to move)
    """
    if not isinstance(text, str) or not _USI_MOVE.fullmatch(text):
        shown = text if isinstance(text, str) else type(text).__name__
        raise ShogiError(
            f"{shown[:40]!r} is not a USI move: expected a move like 7g7f, 8h2b+ or P*5e"
        )
    # compare with the legal moves' names rather than asking cshogi to parse the text:
    # it never sees anything but its own output
    for move in board.legal_moves:
        if cshogi.move_to_usi(move) == text:
            return int(move)
    raise ShogiError(f"{text} is not a legal move here ({_side(board)} to move)")


def usi_line(sfen: str, pv: Sequence[str]) -> tuple[_Board, list[int]]:
    """The board of ``sfen`` and the cshogi moves of ``pv``, each checked in turn.

    The board is returned at the start position (the moves are not left on it).
    Raises :class:`ShogiError` naming the ply of the first bad move.
    """
    board = parse_sfen(sfen)
    moves: list[int] = []
    for ply, text in enumerate(pv, start=1):
        try:
            move = parse_usi_move(board, text)
        except ShogiError as e:
            raise ShogiError(f"move {ply}: {e}") from None
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

"""The Go board: rules, notation, handicap and JSON over the compiled kernels.

Moves are point numbers of the padded layout described in :mod:`.kernels`: the point in
column ``col`` (0 = A) and row ``row`` (0 = the first line, at the bottom) is
``(row + 1) * (size + 2) + col + 1``, and the pass is :data:`PASS` (0, a border point).
:func:`point` and :func:`coords` convert. The same numbers drive the kernels, so engines
and the board share moves without translation.

Vertex notation (GTP): a column letter ``A``-``T`` without ``I`` (A-J on 9x9) and a row
number counted from the bottom, 1 to the board size: ``D4``, ``Q16``; ``pass``. Case does
not matter.

    >>> board = Board(9, rules="japanese")
    >>> board.push(board.parse_move("E5"))
    >>> board.push(board.parse_move("pass"))
    >>> board.move_name(board.move_stack[0]), board.turn == BLACK
    ('E5', True)
    >>> parse_vertex("I5", 9)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    banmen.games.go.errors.InvalidMoveError: bad vertex 'I5': there is no column I in Go ...
    >>> [vertex_name(p, 9) for p in Board(9).fixed_handicap(3)]
    ['C3', 'G7', 'C7']
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from banmen.games._base import parse_json
from banmen.games.go import kernels as K
from banmen.games.go.errors import (
    GoError,
    HandicapError,
    IllegalMoveError,
    InvalidBoardError,
    InvalidMoveError,
)
from banmen.games.go.rules import Rules, parse_rules
from banmen.games.go.scoring import Score, chain_at, score
from banmen.games.go.sets import RULES
from banmen.warm import ensure

__all__ = [
    "Board",
    "BLACK",
    "WHITE",
    "EMPTY",
    "PASS",
    "MIN_SIZE",
    "MAX_SIZE",
    "COLUMNS",
    "point",
    "coords",
    "vertex_name",
    "parse_vertex",
    "color_name",
    "parse_color",
    "handicap_points",
    "free_handicap_points",
]

EMPTY, BLACK, WHITE = K.EMPTY, K.BLACK, K.WHITE
PASS = K.PASS
MIN_SIZE, MAX_SIZE = K.MIN_SIZE, K.MAX_SIZE
#: column letters of GTP vertices: A-T without I
COLUMNS = "ABCDEFGHJKLMNOPQRST"

_REASON_TEXT = {
    "occupied": "the point is occupied",
    "suicide": "suicide (the stones would have no liberties)",
    "ko": "ko (the ko cannot be retaken at once; play elsewhere first)",
    "superko": "superko (it would repeat an earlier position)",
}


def _check_size(size: Any) -> int:
    if isinstance(size, bool) or not isinstance(size, int | np.integer):
        raise InvalidBoardError(f"board size must be an integer, got {size!r}")
    if not MIN_SIZE <= size <= MAX_SIZE:
        raise InvalidBoardError(
            f"board size {size} is not supported: expected {MIN_SIZE} to {MAX_SIZE}"
        )
    return int(size)


def point(col: int, row: int, size: int) -> int:
    """The point of column ``col`` and row ``row`` (both 0-based; row 0 at the bottom)."""
    if not (0 <= col < size and 0 <= row < size):
        raise InvalidMoveError(f"({col}, {row}) is off the {size}x{size} board")
    return (row + 1) * (size + 2) + col + 1


def coords(p: int, size: int) -> tuple[int, int]:
    """``(col, row)`` of board point ``p`` (0-based, row 0 at the bottom)."""
    r, c = divmod(p, size + 2)
    if not (1 <= r <= size and 1 <= c <= size):
        raise InvalidMoveError(f"{p!r} is not a point of the {size}x{size} board")
    return c - 1, r - 1


def _is_point(p: Any, size: int) -> bool:
    if isinstance(p, bool) or not isinstance(p, int | np.integer):
        return False
    r, c = divmod(int(p), size + 2)
    return 1 <= r <= size and 1 <= c <= size


def vertex_name(p: int, size: int) -> str:
    """GTP vertex of point ``p`` (``"D4"``), or ``"pass"``."""
    if p == PASS:
        return "pass"
    c, r = coords(p, size)
    return f"{COLUMNS[c]}{r + 1}"


def parse_vertex(text: str, size: int) -> int:
    """Point of a GTP vertex like ``"D4"`` (case-insensitive); ``"pass"`` is
    :data:`PASS`."""
    if not isinstance(text, str):
        raise InvalidMoveError(f"a vertex must be text, got {type(text).__name__}")
    t = text.strip().upper()
    last = COLUMNS[size - 1]
    cols = f"A-{last}, skipping I" if size > 8 else f"A-{last}"
    if t == "PASS":
        return PASS
    shown = text.strip()
    if len(t) < 2 or not t[0].isalpha() or not t[1:].isdigit():
        raise InvalidMoveError(
            f"bad vertex {shown!r}: expected a column letter ({cols}) and a row number "
            f"1-{size}, like 'D4', or 'pass'"
        )
    letter = t[0]
    if letter == "I":
        raise InvalidMoveError(
            f"bad vertex {shown!r}: there is no column I in Go notation (columns {cols})"
        )
    col = COLUMNS.find(letter)
    if not 0 <= col < size:
        raise InvalidMoveError(
            f"bad vertex {shown!r}: column {letter} is off the {size}x{size} board (columns {cols})"
        )
    row = int(t[1:])
    if not 1 <= row <= size:
        raise InvalidMoveError(
            f"bad vertex {shown!r}: row {row} is off the {size}x{size} board (rows 1-{size})"
        )
    return point(col, row - 1, size)


def color_name(color: int) -> str:
    return "black" if color == BLACK else "white"


def parse_color(value: Any) -> int:
    """:data:`BLACK` or :data:`WHITE` from 1/2 or ``b``/``black``/``w``/``white``."""
    if isinstance(value, str):
        v = value.strip().lower()
        if v in ("b", "black"):
            return BLACK
        if v in ("w", "white"):
            return WHITE
    elif not isinstance(value, bool) and value in (BLACK, WHITE):
        return int(value)
    raise InvalidMoveError(f"bad colour {value!r}: expected black or white")


# --------------------------------------------------------------------------- handicap


def handicap_points(n: int, size: int) -> list[int]:
    """The fixed handicap placement of the GTP v2 specification (section 4.1.1, the layout
    GNU Go's ``fixed_handicap`` uses): stones on the 3-3 points of boards 7x7 to 11x11 and
    on the 4-4 points of larger boards; 2 to 4 stones on 7x7 and even sizes, 2 to 9 on odd
    sizes from 9x9; none below 7x7. Order: the corners (2: lower left and upper right; 3:
    and upper left; 4: all), then the centre for 5 and 7, the side midpoints left and right
    for 6 and 7, all four for 8 and 9, and the centre for 9."""
    size = _check_size(size)
    if isinstance(n, bool) or not isinstance(n, int):
        raise HandicapError(f"handicap must be a whole number of stones, got {n!r}")
    if size < 7:
        raise HandicapError(
            f"fixed handicap is not defined on {size}x{size}: the GTP layout needs 7x7 or larger"
        )
    most = 4 if size == 7 or size % 2 == 0 else 9
    if not 2 <= n <= most:
        raise HandicapError(
            f"fixed handicap of {n} stones is not defined on {size}x{size}: expected 2 to {most}"
        )
    e = 2 if size <= 11 else 3  # 0-based line of the corner points
    lo, mid, hi = e, size // 2, size - 1 - e
    corners = [(lo, lo), (hi, hi), (lo, hi), (hi, lo)]  # (col, row): D4, Q16, D16, Q4
    order = corners[: min(n, 4)]
    if n >= 6:
        order += [(lo, mid), (hi, mid)]
    if n >= 8:
        order += [(mid, lo), (mid, hi)]
    if n % 2 == 1 and n >= 5:
        order.append((mid, mid))
    return [point(c, r, size) for c, r in order]


def free_handicap_points(n: int, size: int) -> list[int]:
    """Up to ``n`` handicap points: the fixed layout as far as it goes, then points of the
    third and fourth lines (then the others), none next to another handicap stone."""
    chosen: list[int] = []
    if size >= 7:
        most = 4 if size == 7 or size % 2 == 0 else 9
        chosen = handicap_points(min(n, most), size) if n >= 2 else []
    stride = size + 2

    def line(p: int) -> int:
        r, c = divmod(p, stride)
        return min(r, c, size + 1 - r, size + 1 - c)  # 1 on the edge

    points = [(r + 1) * stride + c + 1 for r in range(size) for c in range(size)]
    # third and fourth lines first, then the centre, then the second line, the edge last;
    # within a class, the point farthest from the stones already placed
    rank = {p: {3: 0, 4: 0, 2: 2, 1: 3}.get(line(p), 1) for p in points}
    far = dict.fromkeys(points, 4 * size)
    taken: set[int] = set()

    def place(q: int) -> None:
        taken.update((q, q - 1, q + 1, q - stride, q + stride))
        qr, qc = divmod(q, stride)
        for p in points:
            r, c = divmod(p, stride)
            far[p] = min(far[p], abs(r - qr) + abs(c - qc))

    for q in chosen:
        place(q)
    while len(chosen) < n:
        candidates = [p for p in points if p not in taken]
        if not candidates:
            break
        best = min(candidates, key=lambda p: (rank[p], -far[p], p))
        chosen.append(best)
        place(best)
    return chosen


# --------------------------------------------------------------------------- the board


class Board:
    """A Go position with its move history (``push`` / ``pop``, as in python-chess).

    ``turn`` is :data:`BLACK` or :data:`WHITE`; ``move_stack`` holds the moves played
    (points, :data:`PASS`), ``colors`` the colour that played each. Two passes in a row
    end the game; after that no move is legal. An illegal move raises
    :class:`IllegalMoveError` and leaves the board unchanged. How a game ends beyond the
    rules (a resignation, the dead stones agreed when counting) is the game record's
    business: :class:`banmen.games.go.game.Game`.
    """

    def __init__(
        self, size: int = 19, rules: Rules | str = "chinese", komi: float | None = None
    ) -> None:
        ensure(RULES)  # (the first board of a process loads the compiled rules: banmen.warm)
        self.size = _check_size(size)
        r = parse_rules(rules)
        self.rules: Rules = r if komi is None else r.with_komi(komi)
        self._pos = K.Position.empty(self.size)
        self.move_stack: list[int] = []
        self.colors: list[int] = []
        #: number of handicap stones (for the white handicap bonus, SGF HA)
        self.handicap = 0
        self._undo: list[tuple[npt.NDArray[np.int8], npt.NDArray[np.int64]]] = []
        self._keys: list[tuple[int, int]] = []  # (stone hash, side to move) per position
        self._hist: dict[int, npt.NDArray[np.int64]] = {}
        self._codes = np.zeros(len(self._pos.board), dtype=np.int8)
        self._points = K.board_points(self.size)
        self._reset_history()

    # ---- basic state

    @property
    def komi(self) -> float:
        return self.rules.komi

    @property
    def turn(self) -> int:
        return int(self._pos.meta[K.M_TURN])

    @property
    def stride(self) -> int:
        return self.size + 2

    @property
    def points(self) -> list[int]:
        """All board points, A1, B1, ... row by row from the bottom."""
        return [int(p) for p in self._points]

    @property
    def position(self) -> K.Position:
        """The kernel state (read it, or copy it for a search; do not modify it)."""
        return self._pos

    @property
    def ko_point(self) -> int | None:
        """The point the side to move may not play because of the simple ko rule."""
        ko = int(self._pos.meta[K.M_KO])
        return ko or None

    @property
    def ply(self) -> int:
        return len(self.move_stack)

    def color_at(self, p: int) -> int:
        """:data:`EMPTY`, :data:`BLACK` or :data:`WHITE` on point ``p``."""
        self._require_point(p)
        return int(self._pos.board[p])

    def stones(self, color: int) -> list[int]:
        """The points holding ``color``'s stones, in point order."""
        b = self._pos.board
        return [int(p) for p in self._points if b[p] == color]

    def grid(self) -> npt.NDArray[np.int8]:
        """A copy of the padded colour array (see :mod:`.kernels`)."""
        return self._pos.board.copy()

    def captures(self, color: int) -> int:
        """Stones captured *by* ``color`` so far (its prisoners, as GTP's ``captures``)."""
        return self._pos.captures(parse_color(color))

    @property
    def prisoners(self) -> tuple[int, int]:
        """(stones captured by black, stones captured by white)."""
        return (self._pos.captures(BLACK), self._pos.captures(WHITE))

    def zobrist(self, situational: bool = False) -> int:
        """Zobrist hash of the stones; with ``situational``, of the stones and the side to
        move (the keys superko compares)."""
        h = self._pos.hash
        return h ^ K.TURN_KEY if situational and self.turn == WHITE else h

    def liberties(self, p: int) -> int:
        """Number of liberties of the group on ``p`` (0 for an empty point)."""
        return len(self.group(p)[1])

    def group(self, p: int) -> tuple[list[int], list[int]]:
        """(stones, liberties) of the group on ``p``, each in point order; empty lists for
        an empty point."""
        self._require_point(p)
        b = self._pos.board
        c = b[p]
        if c == EMPTY:
            return [], []
        stones, libs = chain_at(b, p, self.stride)
        return sorted(stones), sorted(libs)

    # ---- history for superko

    def _reset_history(self) -> None:
        self._keys = [(self._pos.hash, self.turn)]
        self._hist.clear()

    def _history(self, mode: int) -> npt.NDArray[np.int64]:
        h = self._hist.get(mode)
        if h is None:
            if mode == 2:
                keys = [k ^ K.TURN_KEY if t == WHITE else k for k, t in self._keys]
            else:
                keys = [k for k, _ in self._keys]
            h = self._hist[mode] = np.unique(np.array(keys, dtype=np.int64))
        return h

    # ---- legality

    def _require_point(self, p: Any) -> None:
        if not _is_point(p, self.size):
            raise InvalidMoveError(f"{p!r} is not a point of the {self.size}x{self.size} board")

    def _require_move(self, move: Any) -> int:
        if isinstance(move, bool) or not isinstance(move, int | np.integer):
            raise InvalidMoveError(f"a move must be a point number or PASS, got {move!r}")
        m = int(move)
        if m != PASS and not _is_point(m, self.size):
            raise InvalidMoveError(
                f"move {m} is not a point of the {self.size}x{self.size} board or PASS"
            )
        return m

    def _code(self, m: int, color: int) -> int:
        pos = self._pos
        if m == PASS:
            return K.LEGAL
        if color != self.turn:  # out of turn: the ko point binds the other side only
            meta = pos.meta.copy()
            meta[K.M_TURN] = color
            meta[K.M_KO] = 0
        else:
            meta = pos.meta
        mode = self.rules.superko
        return int(
            K.move_code_superko(
                pos.board, pos.grp, meta, m, color, self.rules.suicide, mode, self._history(mode)
            )
        )

    def why_illegal(self, move: int, color: int | None = None) -> str | None:
        """Why the rules forbid ``move`` for ``color`` (default: the side to move):
        ``"occupied"``, ``"suicide"``, ``"ko"``, ``"superko"``, or ``None`` if they allow
        it. Whether the game has ended is not considered (see :meth:`is_legal`)."""
        m = self._require_move(move)
        c = self.turn if color is None else parse_color(color)
        code = self._code(m, c)
        return K.REASONS.get(code)

    def is_legal(self, move: int, color: int | None = None) -> bool:
        """May ``color`` (default: the side to move) play ``move`` now? ``False`` for
        anything that is not a move of this board, and once the game is over."""
        try:
            m = self._require_move(move)
        except InvalidMoveError:
            return False
        if self.is_game_over():
            return False
        c = self.turn if color is None else parse_color(color)
        return self._code(m, c) == K.LEGAL

    @property
    def legal_moves(self) -> list[int]:
        """The side to move's legal points in point order, then :data:`PASS` (always
        legal); ``[]`` once the game is over."""
        if self.is_game_over():
            return []
        pos = self._pos
        mode = self.rules.superko
        K.legal_codes(
            pos.board,
            pos.grp,
            pos.meta,
            self.turn,
            self.rules.suicide,
            mode,
            self._history(mode),
            self._codes,
        )
        codes = self._codes[self._points]
        return [int(p) for p in self._points[codes == K.LEGAL]] + [PASS]

    def moves_ahead(self) -> int:
        """The side to move's moves still to come, about (a game clock shares its time
        among them): a third of the empty points, at least ten (a game's end is filled in
        quickly, and passes): a 9×9 game runs about 60 plies, 30 a side, from 81 empty
        points; 19×19 about 250 from 361. Half the empty points, as before, gave 0.8 s a
        move on a 60 s clock for 9×9, and games ended with 65% of it unused (issue 39's
        match against Pachi, whose first moves took 1.3 s)."""
        empty = self.size * self.size - len(self.stones(1)) - len(self.stones(2))
        return max(10, empty // 3)

    def is_game_over(self) -> bool:
        return int(self._pos.meta[K.M_PASSES]) >= 2

    # ---- moves

    def push(self, move: int, color: int | None = None) -> None:
        """Play ``move`` (a point or :data:`PASS`) for the side to move, or for ``color``
        out of turn (GTP ``play`` and SGF records allow that). Raises
        :class:`IllegalMoveError` (the board is unchanged) if the rules forbid it or the
        game is over."""
        m = self._require_move(move)
        c = self.turn if color is None else parse_color(color)
        if self.is_game_over():
            raise IllegalMoveError(
                f"{self.move_name(m)} cannot be played: the game is over (both sides passed)",
                "game over",
            )
        self._play(m, c)

    def _push(self, move: int, color: int) -> None:
        """:meth:`push` without the game-over check: a record may go on after two passes
        (the game record's tolerant :meth:`Game.play <banmen.games.go.game.Game.play>`)."""
        self._play(self._require_move(move), parse_color(color))

    def _play(self, m: int, c: int) -> None:
        code = self._code(m, c)
        if code != K.LEGAL:
            reason = K.REASONS[code]
            raise IllegalMoveError(
                f"{self.move_name(m)} is illegal for {color_name(c)}: {_REASON_TEXT[reason]}",
                reason,
            )
        pos = self._pos
        self._undo.append((pos.board.copy(), pos.meta.copy()))
        if c != self.turn:
            pos.meta[K.M_TURN] = c
            pos.meta[K.M_KO] = 0
        K.play(pos.board, pos.grp, pos.meta, m, c)
        self.move_stack.append(m)
        self.colors.append(c)
        self._keys.append((pos.hash, self.turn))
        self._hist.clear()

    def push_name(self, text: str) -> None:
        """Play a move given as a GTP vertex (``"D4"``, ``"pass"``)."""
        self.push(self.parse_move(text))

    def pop(self) -> int:
        """Undo the last move and return it."""
        if not self._undo:
            raise IndexError("no move to undo")
        board, meta = self._undo.pop()
        pos = self._pos
        pos.board[:] = board
        pos.meta[:] = meta
        K.rebuild(pos.board, pos.grp, pos.meta)
        self._keys.pop()
        self._hist.clear()
        self.colors.pop()
        return self.move_stack.pop()

    # ---- set-up and handicap

    def _require_fresh(self, what: str) -> None:
        if self.move_stack:
            raise InvalidBoardError(f"{what} must come before the first move")

    def setup(
        self,
        black: Iterable[int] = (),
        white: Iterable[int] = (),
        empty: Iterable[int] = (),
        turn: int | None = None,
    ) -> None:
        """Add stones (and clear points) before the first move: the start position
        changes, the history of earlier positions is forgotten. A point may be listed once
        only; every group must keep a liberty."""
        self._require_fresh("setting up stones")
        lists = {BLACK: list(black), WHITE: list(white), EMPTY: list(empty)}
        seen: set[int] = set()
        for pts in lists.values():
            for p in pts:
                self._require_point(p)
                if p in seen:
                    raise InvalidBoardError(
                        f"{vertex_name(p, self.size)} is set up twice: list a point once"
                    )
                seen.add(p)
        new_turn = self.turn if turn is None else parse_color(turn)
        pos = self._pos
        board = pos.board.copy()
        for color, pts in lists.items():
            for p in pts:
                board[p] = color
        meta = pos.meta.copy()
        trial = K.Position(board, pos.grp.copy(), meta)
        K.rebuild(trial.board, trial.grp, trial.meta)
        for p in self._points:
            if board[p] != EMPTY:
                head = trial.grp[K.G_HEAD * len(board) + p]
                if trial.grp[K.G_LIBS * len(board) + head] == 0:
                    raise InvalidBoardError(
                        f"the {color_name(int(board[p]))} stone on "
                        f"{vertex_name(int(p), self.size)} would have no liberty"
                    )
        trial.meta[K.M_TURN] = new_turn
        trial.meta[K.M_KO] = 0
        trial.meta[K.M_PASSES] = 0
        self._pos = trial
        self._reset_history()

    def fixed_handicap(self, n: int) -> list[int]:
        """Place ``n`` black handicap stones by the GTP fixed layout
        (:func:`handicap_points`) on the empty board; white moves next. Returns the
        points."""
        pts = handicap_points(n, self.size)
        self._place_handicap(pts)
        return pts

    def set_free_handicap(self, points: Sequence[int]) -> None:
        """Place black handicap stones on the given points (at least two, distinct, on the
        empty board, leaving one point empty); white moves next."""
        pts = list(points)
        for p in pts:
            if not _is_point(p, self.size):
                raise HandicapError(
                    f"handicap point {p!r} is not a point of the {self.size}x{self.size} board"
                )
        if len(set(pts)) != len(pts):
            raise HandicapError("a handicap point is listed twice")
        if not 2 <= len(pts) < self.size * self.size:
            raise HandicapError(
                f"free handicap of {len(pts)} stones: expected 2 to {self.size * self.size - 1}"
            )
        self._place_handicap([int(p) for p in pts])

    def _place_handicap(self, pts: list[int]) -> None:
        if self.move_stack or self.stones(BLACK) or self.stones(WHITE):
            raise HandicapError("handicap stones go on an empty board before the first move")
        self.setup(black=pts, turn=WHITE)
        self.handicap = len(pts)

    # ---- end of game

    def score(self, dead: Iterable[int] = ()) -> Score:
        """The score under the board's rules with ``dead`` stones removed (see
        :func:`banmen.games.go.scoring.score`)."""
        return score(self, dead)

    def result(self) -> str:
        """After two passes the score with every stone taken as alive (``"B+3.5"``,
        ``"W+0.5"``, ``"0"``); ``"*"`` while playing."""
        if not self.is_game_over():
            return "*"
        return self.score().result

    def winner(self) -> int | None:
        """:data:`BLACK` or :data:`WHITE` by :meth:`result`; ``None`` while playing or on
        a draw (the game record, :class:`~banmen.games.go.game.Game`, adds resignation)."""
        return self.score().winner if self.is_game_over() else None

    # ---- notation

    def move_name(self, move: int) -> str:
        return vertex_name(self._require_move(move), self.size)

    def parse_move(self, text: str) -> int:
        """The move a GTP vertex names, checked for legality (raises a
        :class:`GoError`)."""
        m = parse_vertex(text, self.size)
        if self.is_game_over():
            raise IllegalMoveError(
                f"{text.strip()} cannot be played: the game is over", "game over"
            )
        why = self.why_illegal(m)
        if why is not None:
            raise IllegalMoveError(
                f"{vertex_name(m, self.size)} is illegal for {color_name(self.turn)}: "
                f"{_REASON_TEXT[why]}",
                why,
            )
        return m

    # ---- copies, records

    def copy(self) -> Board:
        b = Board.__new__(Board)
        b.size = self.size
        b.rules = self.rules
        b._pos = self._pos.copy()
        b.move_stack = list(self.move_stack)
        b.colors = list(self.colors)
        b.handicap = self.handicap
        b._undo = list(self._undo)  # snapshots are never modified: share them
        b._keys = list(self._keys)
        b._hist = dict(self._hist)
        b._codes = np.zeros_like(self._codes)
        b._points = self._points
        return b

    def start_board(self) -> Board:
        """A board at this one's start position (setup and handicap, no moves)."""
        b = self.copy()
        while b.move_stack:
            b.pop()
        return b

    def _rows(self) -> list[str]:
        b = self._pos.board
        n = self.size
        rows = []
        for r in range(n - 1, -1, -1):
            cells = []
            for c in range(n):
                v = b[(r + 1) * (n + 2) + c + 1]
                cells.append("X" if v == BLACK else "O" if v == WHITE else ".")
            rows.append("".join(cells))
        return rows

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready record: the start position, the moves, and the current state."""
        start = self.start_board()
        n = self.size
        return {
            "game": "go",
            "size": n,
            "rules": self.rules.name if self.rules.name != "custom" else self.rules.describe(),
            "komi": self.komi,
            "handicap": self.handicap,
            "setup": {
                "black": [vertex_name(p, n) for p in start.stones(BLACK)],
                "white": [vertex_name(p, n) for p in start.stones(WHITE)],
                "turn": color_name(start.turn),
            },
            "moves": [
                [color_name(c), vertex_name(m, n)]
                for c, m in zip(self.colors, self.move_stack, strict=True)
            ],
            "board": self._rows(),
            "turn": color_name(self.turn),
            "passes": int(self._pos.meta[K.M_PASSES]),
            "captures": {"black": self.captures(BLACK), "white": self.captures(WHITE)},
            "result": self.result(),
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict())

    def _as_viewed(self, turn: Any, passes: Any) -> None:
        """The position as a record's ``turn`` and ``passes`` say, where they differ from
        its moves': a view of the game going on (:meth:`Game.position_for
        <banmen.games.go.game.Game.position_for>`: another side to move, fewer passes
        counted) comes back as it was sent (a ``python:`` player's process gets one)."""
        meta = self._pos.meta
        if turn is not None:
            color = parse_color(turn)
            if color != self.turn:
                meta[K.M_TURN] = color
                meta[K.M_KO] = 0
        if passes is not None:
            if isinstance(passes, bool) or not isinstance(passes, int) or passes < 0:
                raise InvalidBoardError(f"'passes' must be a count of passes, got {passes!r}")
            meta[K.M_PASSES] = min(int(meta[K.M_PASSES]), passes)

    @classmethod
    def from_dict(cls, d: Any) -> Board:
        """Rebuild a board from :meth:`to_dict` output by replaying its moves. ``moves``
        may also be plain vertices (colours alternate). The fields of a game record
        (:meth:`Game.to_dict <banmen.games.go.game.Game.to_dict>`: ``resigned``,
        ``counting``) are left to it."""
        if not isinstance(d, dict):
            raise InvalidBoardError("a Go record must be a JSON object")
        if d.get("game", "go") != "go":
            raise InvalidBoardError(f"record is for game {d.get('game')!r}, not 'go'")
        try:
            rules = d.get("rules", "chinese")
            rules = Rules.from_dict(rules) if isinstance(rules, dict) else rules
            board = cls(d.get("size", 19), rules, d.get("komi"))
            n = board.size
            setup = d.get("setup") or {}
            if not isinstance(setup, dict):
                raise InvalidBoardError("'setup' must be an object with black, white, turn")
            black = [parse_vertex(v, n) for v in _str_list(setup.get("black", []), "black")]
            white = [parse_vertex(v, n) for v in _str_list(setup.get("white", []), "white")]
            board.setup(black, white, turn=setup.get("turn"))
            handicap = d.get("handicap", 0)
            if isinstance(handicap, bool) or not isinstance(handicap, int) or handicap < 0:
                raise InvalidBoardError(f"'handicap' must be a count of stones, got {handicap!r}")
            board.handicap = handicap
            moves = d.get("moves", [])
            if not isinstance(moves, list):
                raise InvalidBoardError("'moves' must be a list")
            for i, item in enumerate(moves):
                try:
                    if isinstance(item, str):
                        board.push(board.parse_move(item))
                    elif isinstance(item, list) and len(item) == 2:
                        board._push(parse_vertex(item[1], n), parse_color(item[0]))
                    else:
                        raise InvalidBoardError(
                            f"{item!r} is not a move: expected 'D4' or ['black', 'D4']"
                        )
                except GoError as e:
                    raise InvalidBoardError(f"move {i + 1} ({item!r}): {e}") from None
            board._as_viewed(d.get("turn"), d.get("passes"))
        except InvalidBoardError:
            raise
        except GoError as e:
            raise InvalidBoardError(str(e)) from None
        return board

    @classmethod
    def from_json(cls, text: str) -> Board:
        return cls.from_dict(parse_json(text, InvalidBoardError))

    # ---- comparison and display

    def __eq__(self, other: object) -> bool:
        """Same size, stones, side to move and ko point (the position, not the history)."""
        if not isinstance(other, Board):
            return NotImplemented
        return (
            self.size == other.size
            and bool(np.array_equal(self._pos.board, other._pos.board))
            and self.turn == other.turn
            and self.ko_point == other.ko_point
        )

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (
            f"<go.Board {self.size}x{self.size} {self.rules.name} komi {self.komi:g}, "
            f"{len(self.move_stack)} moves, {color_name(self.turn)} to move>"
        )

    def __str__(self) -> str:
        return self.diagram(self.result() if self.is_game_over() else None)

    def diagram(self, result: str | None = None) -> str:
        """The board in text (``X`` black, ``O`` white, the last move in lower case) and a
        status line: ``game over: RESULT`` if ``result`` is given, else who is to move."""
        n = self.size
        letters = "   " + " ".join(COLUMNS[:n])
        lines = [letters]
        last = self.move_stack[-1] if self.move_stack else PASS
        for i, row in enumerate(self._rows()):
            r = n - i
            cells = []
            for c, ch in enumerate(row):
                p = (r) * (n + 2) + c + 1
                cells.append(ch.lower() if p == last and ch != "." else ch)
            lines.append(f"{r:>2} " + " ".join(cells) + f" {r}")
        lines.append(letters)
        b, w = self.prisoners
        status = f"{color_name(self.turn)} to move" if result is None else f"game over: {result}"
        lines.append(
            f"{status}; captures black {b}, white {w}; komi {self.komi:g} ({self.rules.name})"
        )
        return "\n".join(lines)


def _str_list(value: Any, what: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise InvalidBoardError(f"setup '{what}' must be a list of vertices")
    return value

"""The tests' shogi oracle: the position the reference df-pn proves mates on (over cshogi),
and the tsume backend over the two.

:class:`ShogiPosition` implements :class:`dfpn_reference.Position` (tests/dfpn_reference.py).
cshogi (a C++ move generator) does the work per node: the attacker's legal checks, the
defender's legal replies, a Zobrist key, and a mate-in-one test. What is shogi-specific in
the *counting* lives here too: which defender replies are futile interpositions (無駄合).

:class:`ReferenceBackend` is :class:`banmen.games.shogi.tsume.Backend` over them, and
:func:`solve_reference` runs :func:`banmen.games.shogi.tsume.solve` on it: the same counting
as the compiled solver, over the oracle. No module of banmen imports this one.
"""

from __future__ import annotations

from typing import Any

import cshogi
from dfpn_reference import DfPn, no_cyclic_gc

from banmen.games.shogi.tsume import Progress, TsumeResult, solve
from banmen.search.limits import Limit, StopFlag
from banmen.search.proof import INF, ProofResult

__all__ = ["ShogiPosition", "ReferenceBackend", "solve_reference"]

_SLIDERS = {
    cshogi.LANCE,
    cshogi.BISHOP,
    cshogi.ROOK,
    cshogi.PROM_BISHOP,
    cshogi.PROM_ROOK,
}


def _sign(x: int) -> int:
    return (x > 0) - (x < 0)


class ShogiPosition:
    """A tsume-shogi position: the side to move at creation is the attacker."""

    __slots__ = ("board", "attacker")

    def __init__(self, board: cshogi.Board) -> None:
        self.board = board
        self.attacker: int = board.turn

    @classmethod
    def from_sfen(cls, sfen: str) -> ShogiPosition:
        return cls(cshogi.Board(sfen))

    def key(self) -> int:
        return int(self.board.zobrist_hash())

    def attacker_moves(self) -> list[int]:
        return list(self.board.check_moves)

    def defender_moves(self) -> list[int]:
        return list(self.board.legal_moves)

    def play(self, move: int) -> None:
        self.board.push(move)

    def undo(self) -> None:
        self.board.pop()

    def quick_win(self) -> int | None:
        m = self.board.mate_move_in_1ply()
        return int(m) if m else None

    def group(self, move: int) -> int | None:
        return int(cshogi.move_to(move)) if cshogi.move_is_drop(move) else None

    def material(self) -> int:
        return sum(self.board.pieces_in_hand[self.attacker])

    def futile_test(self, move: int) -> list[ShogiPosition]:
        """The position that decides whether the defender's drop ``move`` is a futile
        interposition (無駄合): the drop taken by the sliding piece that gives check, with
        check (the attacker keeps the piece it took); empty if the drop is not between
        that piece and the king or cannot be taken so.

        The solver calls the drop futile when that position is no harder than the
        defender's other resistance — already mate, or mate within the same number of
        plies as the best other reply — so the drop gains nothing but its own two plies
        (docs/TSUME.md). Moves of pieces already on the board (移動合) always count.
        """
        if not cshogi.move_is_drop(move):
            return []
        b = self.board
        defender = b.turn
        king = b.king_square(defender)
        s = cshogi.move_to(move)
        kf, kr = divmod(king, 9)
        sf, sr = divmod(s, 9)
        df, dr = _sign(sf - kf), _sign(sr - kr)
        if not (sf == kf or sr == kr or abs(sf - kf) == abs(sr - kr)):
            return []
        f, r = sf + df, sr + dr
        checker = -1
        while 0 <= f < 9 and 0 <= r < 9:
            sq = f * 9 + r
            piece = b.piece(sq)
            if piece:
                color = cshogi.WHITE if piece >= 16 else cshogi.BLACK
                if color != defender and cshogi.piece_to_piece_type(piece) in _SLIDERS:
                    checker = sq
                break
            f, r = f + df, r + dr
        if checker < 0:
            return []
        out: list[ShogiPosition] = []
        b.push(move)
        try:
            for c in b.check_moves:
                if cshogi.move_from(c) == checker and cshogi.move_to(c) == s:
                    b.push(c)
                    sfen = b.sfen()
                    b.pop()
                    p = ShogiPosition(cshogi.Board(sfen))
                    p.attacker = self.attacker
                    out.append(p)
        finally:
            b.pop()
        return out


class ReferenceBackend:
    """The pure-Python df-pn over cshogi, as :func:`banmen.games.shogi.tsume.solve` counts
    on it (its ``backend`` argument)."""

    def __init__(
        self,
        board: cshogi.Board,
        limit: Limit | None,
        stop: StopFlag | None,
        progress: Progress | None,
        hash_mb: int,
    ) -> None:
        self.solver: DfPn[int] = DfPn(limit=limit, stop=stop, progress=progress, hash_mb=hash_mb)
        self.pos = ShogiPosition(board)

    def prove(self, r: int = INF, *, or_node: bool = True, nodes: int | None = None) -> ProofResult:
        # (the reference solver has no budget: it searches on, as a budget may)
        return self.solver.prove(self.pos, r, or_node=or_node)

    def lookup(self, r: int) -> tuple[int, int, int, int]:
        return self.solver.lookup(self.pos.key(), r)

    def is_futile(self, move: int, r: int) -> bool:
        self.pos.play(move)
        k = self.pos.key()
        self.pos.undo()
        return self.solver.is_futile(self.pos, move, k, r)

    def was_futile(self) -> bool:
        return self.pos.key() in self.solver.futile_keys

    def key(self) -> int:
        return self.pos.key()

    def attacker_moves(self) -> list[int]:
        return self.pos.attacker_moves()

    def defender_moves(self) -> list[int]:
        return self.pos.defender_moves()

    def play(self, move: int) -> None:
        self.pos.play(move)

    def undo(self) -> None:
        self.pos.undo()

    def quick_win(self) -> int | None:
        return self.pos.quick_win()

    def group(self, move: int) -> int | None:
        return self.pos.group(move)

    def material(self) -> int:
        return self.pos.material()

    def usi(self, move: int) -> str:
        return str(cshogi.move_to_usi(move))


def solve_reference(sfen: str, limit: Limit | None = None, **kw: Any) -> TsumeResult:
    """:func:`banmen.games.shogi.tsume.solve` over the reference df-pn, with Python's cyclic
    collector off (its pauses grow with the table: see :func:`dfpn_reference.no_cyclic_gc`)."""
    with no_cyclic_gc():
        return solve(sfen, limit, backend=ReferenceBackend, **kw)

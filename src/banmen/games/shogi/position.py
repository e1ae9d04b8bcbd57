"""The shogi position the reference df-pn proves mates on (over cshogi).

It implements :class:`banmen.search.dfpn_reference.Position`.

cshogi (a C++ move generator) does the work per node: the attacker's legal checks, the
defender's legal replies, a Zobrist key, and a mate-in-one test. What is shogi-specific in
the *counting* lives here too: which defender replies are futile interpositions (無駄合).
"""

from __future__ import annotations

import cshogi

__all__ = ["ShogiPosition"]

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

"""The tsume solver's backend on the compiled df-pn over banmen's own shogi kernels.

:mod:`banmen.games.shogi.kernels` holds the rules as numba kernels (checks, evasions, keys
without the hand, mate in one, futile interpositions); :mod:`banmen.search.dfpn` proves
over them. This module binds the two for :func:`banmen.games.shogi.tsume.solve`, which
reads the composer's main line through the small :class:`~banmen.games.shogi.tsume.Backend`
interface.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import cshogi
import numpy as np

from banmen.games.shogi import kernels as K
from banmen.search.dfpn import DfPn, Kernels, full_key
from banmen.search.limits import Limit, StopFlag
from banmen.search.proof import INF, ProofResult, Unknown

__all__ = ["KERNELS", "CompiledBackend"]

#: the attacker plays checks, the defender every legal reply
KERNELS = Kernels(
    K.gen_checks, K.gen_legal, K.play, K.undo, K.key, K.hand, K.outcome, K.quick_win,
    K.group, K.futile_replies, K.hand_delta, K.and_need, max_moves=K.MAX_MOVES,
    # the node function compiles apart from the move generators (beside them)
    pointers=("or_moves", "and_moves", "quick_win", "futile_replies", "and_need"),
)  # fmt: skip


def _solver() -> DfPn:
    return DfPn(KERNELS, K.CTX, hash_mb=1, workspace=1 << 10)


def compile_kernels() -> None:
    """Compile (or load) the solver's kernels (the node function calls them through
    pointers: :data:`KERNELS`)."""
    _solver().compile_kernels(np.zeros(1, dtype=np.int64))


def _load_node() -> None:
    """The ``node`` kernel set: df-pn's node function for shogi's kernels' types, and not
    the kernels (:meth:`DfPn.compile_node <banmen.search.dfpn.DfPn.compile_node>`): a
    helper process compiles it while the solver's process compiles the kernels."""
    _solver().compile_node(np.zeros(1, dtype=np.int64))


#: plies of the position's stack kept free below the deepest search node (see _room)
_PLY_MARGIN = 8


class CompiledBackend:
    """A problem's position (one kernel state array) and the compiled solver working on it."""

    def __init__(
        self,
        board: cshogi.Board,
        limit: Limit | None,
        stop: StopFlag | None,
        progress: Callable[[dict[str, Any]], None] | None,
        hash_mb: int,
    ) -> None:
        self.ctx = K.CTX
        self.st = K.from_board(board)
        self.solver = DfPn(
            KERNELS, self.ctx, limit=limit, stop=stop, progress=progress, hash_mb=hash_mb
        )
        self._buf = np.zeros(K.MAX_MOVES, dtype=np.int64)

    def _room(self) -> None:
        # the position's stack of moves holds K.MAX_PLY plies, of which the moves played on
        # it use some; a search node plays up to two more below its own depth (a child's
        # key, a futility test's answer, a reply and a check at the horizon). Past the
        # stack, play would write over the scratch space and the heap: false answers, then
        # a crash (a bounded search of 5,001 plies on Astral Traveler, issue 40)
        self.solver.set_room(K.MAX_PLY - _PLY_MARGIN - int(self.st[K.PLY]))

    def prove(self, r: int = INF, *, or_node: bool = True, nodes: int | None = None) -> ProofResult:
        self._room()
        return self.solver.prove(self.st, r, or_node=or_node, nodes=nodes)

    def lookup(self, r: int) -> tuple[int, int, int, int]:
        return self.solver.lookup(self._key(), self._hand(), r)

    def is_futile(self, move: int, r: int) -> bool:
        self._room()
        verdict = self.solver.is_futile(self.st, move, r)
        if verdict is None:
            raise Unknown(self.solver.last_reason or "stopped")
        return verdict

    def was_futile(self) -> bool:
        return self.solver.was_futile(self._key(), self._hand())

    def _key(self) -> int:
        return int(K.key(self.ctx, self.st))

    def _hand(self) -> int:
        return int(K.hand(self.ctx, self.st))

    def key(self) -> int:
        # the board and the attacker's hand fix the defender's hand too (the pieces that
        # are neither on the board nor the attacker's)
        return full_key(self._key(), self._hand())

    def attacker_moves(self) -> list[int]:
        n = K.gen_checks(self.ctx, self.st, self._buf)
        return [int(m) for m in self._buf[:n]]

    def defender_moves(self) -> list[int]:
        n = K.gen_legal(self.ctx, self.st, self._buf)
        return [int(m) for m in self._buf[:n]]

    def play(self, move: int) -> None:
        K.play(self.ctx, self.st, move)

    def undo(self) -> None:
        K.undo(self.ctx, self.st)

    def quick_win(self) -> int | None:
        n = K.gen_checks(self.ctx, self.st, self._buf)
        m = int(K.quick_win(self.ctx, self.st, self._buf, n))
        return m if m >= 0 else None

    def group(self, move: int) -> int | None:
        g = int(K.group(self.ctx, self.st, move))
        return g if g >= 0 else None

    def material(self) -> int:
        h = self._hand()
        return sum((h >> (8 * i)) & 0xFF for i in range(7))

    def usi(self, move: int) -> str:
        return str(cshogi.move_to_usi(move))

"""Scoring a finished game: area and territory counting, seki, Benson's pass-alive groups.
Counting works on the board's plain arrays; which stones are dead is given (a
playout-based guess is :func:`.estimate.estimate_dead`).

Given the dead stones (any stone of a chain marks the whole chain), :func:`score` removes
them and looks at each empty region (a maximal connected set of empty points):

* bordered by one colour only: that colour's territory;
* bordered by both: dame, nobody's.

**Area** scoring (Chinese, AGA, New Zealand, Tromp-Taylor) gives each side its stones on
the board plus its territory. **Territory** scoring (Japanese) gives each side its
territory plus its prisoners: stones it captured during the game and the opponent's dead
stones. White adds komi and, in handicap games, the rules' white handicap bonus.

**Seki** (``tax="seki"``, the Japanese preset): territory surrounded by a group in seki
counts for nobody. A group is taken to be in seki when it touches a *seki point*: an empty
point next to stones of both colours where a stone of either colour would be left with at
most one liberty without capturing anything — the shared liberties of the standard sekis
(two groups with no eyes and two shared liberties; one eye each and one shared liberty;
an eye against no eye). Neutral points next to strong groups are plain dame. Sekis whose
shared liberties are larger regions (three or more shared points) are not recognised.

**Benson's algorithm** (Benson 1976, "Life in the game of Go") finds the chains of a colour
that no sequence of opponent moves can capture even if their owner always passes: start
with all chains of the colour and all regions (maximal connected sets of points not of
that colour); repeatedly drop chains with fewer than two *vital* regions (regions all of
whose empty points are liberties of the chain) and regions that border a dropped chain.
The surviving chains are pass-alive; a surviving region whose every empty point is a
liberty of a surviving chain is pass-alive territory, and opponent stones in it are dead.
Pass-alive stones can never be marked dead.

    >>> from banmen.games.go.board import Board
    >>> b = Board(5, rules="chinese", komi=0.5)
    >>> b.setup(
    ...     black=[b.parse_move(f"B{r}") for r in range(1, 6)],
    ...     white=[b.parse_move(f"D{r}") for r in range(1, 6)],
    ... )
    >>> s = b.score()
    >>> s.black, s.white, s.result, len(s.dame)
    (10.0, 10.5, 'W+0.5', 5)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from banmen.games.go import kernels as K
from banmen.games.go.errors import ScoringError
from banmen.games.go.kernels import BLACK, EMPTY, WHITE

if TYPE_CHECKING:  # the board is counted through its public API; board.py imports this
    from banmen.games.go.board import Board

__all__ = [
    "Score",
    "score",
    "chain_at",
    "result_string",
    "chains",
    "benson",
    "pass_alive",
    "seki_stones",
    "capturing_move",
]


def result_string(margin: float) -> str:
    """``"B+3.5"``, ``"W+0.5"`` or ``"0"`` (jigo) for black's score minus white's."""
    if margin > 0:
        return f"B+{margin:g}"
    if margin < 0:
        return f"W+{-margin:g}"
    return "0"


@dataclass(frozen=True)
class Score:
    """A counted position. ``black`` and ``white`` are the two sides' points (white's
    include komi and the handicap bonus); ``black_territory``/``white_territory`` the empty
    points counted for each, ``dame`` the empty points counted for nobody (seki eyes
    included under the seki tax), ``seki`` the stones found in seki, ``dead`` the stones
    removed as dead, ``prisoners`` (black's, white's) captures plus dead stones."""

    scoring: str
    black: float
    white: float
    komi: float
    handicap_bonus: int
    black_stones: int
    white_stones: int
    black_territory: frozenset[int]
    white_territory: frozenset[int]
    dame: frozenset[int]
    seki: frozenset[int]
    dead: frozenset[int]
    prisoners: tuple[int, int]

    @property
    def margin(self) -> float:
        """Black's points minus white's."""
        return self.black - self.white

    @property
    def result(self) -> str:
        return result_string(self.margin)

    @property
    def winner(self) -> int | None:
        m = self.margin
        return BLACK if m > 0 else WHITE if m < 0 else None


# --------------------------------------------------------------------------- analysis


def _neighbours(p: int, s: int) -> tuple[int, int, int, int]:
    return (p - 1, p + 1, p - s, p + s)


def chain_at(grid: Sequence[int] | npt.NDArray[np.int8], p: int,
             stride: int) -> tuple[set[int], set[int]]:  # fmt: skip
    """(stones, liberties) of the chain on point ``p`` of a padded colour grid (``p``
    holds a stone; ``stride`` = size + 2)."""
    c = grid[p]
    stones = {p}
    libs: set[int] = set()
    todo = [p]
    while todo:
        q = todo.pop()
        for r in _neighbours(q, stride):
            v = grid[r]
            if v == c and r not in stones:
                stones.add(r)
                todo.append(r)
            elif v == EMPTY:
                libs.add(r)
    return stones, libs


def chains(grid: Sequence[int], size: int) -> list[tuple[int, frozenset[int], frozenset[int]]]:
    """Every chain on a padded colour grid as ``(colour, stones, liberties)``."""
    s = size + 2
    seen: set[int] = set()
    out = []
    for p in K.board_points(size).tolist():
        c = grid[p]
        if c not in (BLACK, WHITE) or p in seen:
            continue
        stones, libs = chain_at(grid, p, s)
        seen |= stones
        out.append((int(c), frozenset(stones), frozenset(libs)))
    return out


def _regions(grid: Sequence[int], size: int, inside: set[int]) -> list[frozenset[int]]:
    """Maximal connected sets of board points whose colour is in ``inside``."""
    s = size + 2
    seen: set[int] = set()
    out = []
    for p in K.board_points(size).tolist():
        if grid[p] not in inside or p in seen:
            continue
        region = {p}
        todo = [p]
        while todo:
            q = todo.pop()
            for r in _neighbours(q, s):
                if r not in region and grid[r] in inside:
                    region.add(r)
                    todo.append(r)
        seen |= region
        out.append(frozenset(region))
    return out


def benson(grid: Sequence[int], size: int, color: int) -> tuple[frozenset[int], frozenset[int]]:
    """Benson's algorithm for ``color`` on a padded colour grid: (pass-alive stones,
    pass-alive territory — the points of the regions they enclose, opponent stones
    included)."""
    s = size + 2
    own = [(st, lb) for c, st, lb in chains(grid, size) if c == color]
    chain_of = {p: i for i, (st, _) in enumerate(own) for p in st}
    regions = _regions(grid, size, {EMPTY, 3 - color})
    empties = [frozenset(p for p in r if grid[p] == EMPTY) for r in regions]
    borders: list[set[int]] = []
    for r in regions:
        b = set()
        for p in r:
            for q in _neighbours(p, s):
                i = chain_of.get(q)
                if i is not None:
                    b.add(i)
        borders.append(b)
    vital: list[list[int]] = [[] for _ in own]
    for ri, b in enumerate(borders):
        if not empties[ri]:
            continue
        for ci in b:
            if empties[ri] <= own[ci][1]:
                vital[ci].append(ri)
    alive = set(range(len(own)))
    live = set(range(len(regions)))
    while True:
        drop = {ci for ci in alive if sum(1 for ri in vital[ci] if ri in live) < 2}
        if not drop:
            break
        alive -= drop
        live = {ri for ri in live if borders[ri] <= alive}
    stones = frozenset(p for ci in alive for p in own[ci][0])
    libs: set[int] = set()
    for ci in alive:
        libs |= own[ci][1]
    territory = frozenset(
        p for ri in live if borders[ri] and empties[ri] <= libs for p in regions[ri]
    )
    return stones, territory


def pass_alive(board: Board, color: int) -> tuple[frozenset[int], frozenset[int]]:
    """:func:`benson` on a board: (pass-alive stones, pass-alive territory) of ``color``."""
    return benson(board.grid().tolist(), board.size, color)


def seki_stones(grid: Sequence[int], size: int) -> frozenset[int]:
    """Stones of chains touching a seki point (see the module docstring)."""
    s = size + 2
    cs = chains(grid, size)
    chain_of = {p: i for i, (_, st, _) in enumerate(cs) for p in st}
    out: set[int] = set()
    for d in K.board_points(size).tolist():
        if grid[d] != EMPTY:
            continue
        near = {chain_of[q] for q in _neighbours(d, s) if q in chain_of}
        if {cs[i][0] for i in near} != {BLACK, WHITE}:
            continue
        if all(_self_atari(grid, s, cs, near, d, c) for c in (BLACK, WHITE)):
            for i in near:
                out |= cs[i][1]
    return frozenset(out)


def _self_atari(
    grid: Sequence[int],
    s: int,
    cs: list[tuple[int, frozenset[int], frozenset[int]]],
    near: set[int],
    d: int,
    color: int,
) -> bool:
    """Would a ``color`` stone on ``d`` capture nothing and keep at most one liberty?"""
    libs = {q for q in _neighbours(d, s) if grid[q] == EMPTY}
    for i in near:
        c, _, lb = cs[i]
        if c == color:
            libs |= lb
        elif lb == {d}:
            return False  # it captures
    libs.discard(d)
    return len(libs) <= 1


# --------------------------------------------------------------------------- scoring


def _dead_chains(board: Board, dead: Iterable[int]) -> frozenset[int]:
    grid = board.grid().tolist()
    cs = chains(grid, board.size)
    chain_of = {p: i for i, (_, st, _) in enumerate(cs) for p in st}
    alive_b, _ = pass_alive(board, BLACK)
    alive_w, _ = pass_alive(board, WHITE)
    out: set[int] = set()
    for p in dead:
        if isinstance(p, bool) or not isinstance(p, int | np.integer):
            raise ScoringError(f"dead stone {p!r} is not a point")
        i = chain_of.get(int(p))
        if i is None:
            try:
                name = board.move_name(int(p))
            except ValueError:
                name = repr(p)
            raise ScoringError(f"no stone on {name} to mark dead")
        if int(p) in alive_b or int(p) in alive_w:
            raise ScoringError(
                f"the stones on {board.move_name(int(p))} are pass-alive: they cannot be dead"
            )
        out |= cs[i][1]
    return frozenset(out)


def score(board: Board, dead: Iterable[int] = ()) -> Score:
    """Count ``board`` under its rules with ``dead`` stones removed (module docstring)."""
    rules = board.rules
    dead_set = _dead_chains(board, dead)
    grid = board.grid().tolist()
    caps = [board.captures(BLACK), board.captures(WHITE)]
    for p in dead_set:
        caps[2 - grid[p]] += 1  # a dead white stone is black's prisoner, and vice versa
        grid[p] = EMPTY
    s = board.size + 2
    seki = seki_stones(grid, board.size) if rules.tax == "seki" else frozenset()
    terr: dict[int, set[int]] = {BLACK: set(), WHITE: set()}
    dame: set[int] = set()
    for region in _regions(grid, board.size, {EMPTY}):
        colors = set()
        in_seki = False
        for p in region:
            for q in _neighbours(p, s):
                v = grid[q]
                if v in (BLACK, WHITE):
                    colors.add(v)
                    in_seki = in_seki or q in seki
        if len(colors) == 1 and not in_seki:
            terr[colors.pop()] |= region
        else:
            dame |= region
    nb = sum(1 for p in K.board_points(board.size).tolist() if grid[p] == BLACK)
    nw = sum(1 for p in K.board_points(board.size).tolist() if grid[p] == WHITE)
    bonus = rules.handicap_bonus(board.handicap)
    if rules.scoring == "area":
        black = float(nb + len(terr[BLACK]))
        white = float(nw + len(terr[WHITE]))
    else:
        black = float(len(terr[BLACK]) + caps[0])
        white = float(len(terr[WHITE]) + caps[1])
    white += rules.komi + bonus
    return Score(
        scoring=rules.scoring,
        black=black,
        white=white,
        komi=rules.komi,
        handicap_bonus=bonus,
        black_stones=nb,
        white_stones=nw,
        black_territory=frozenset(terr[BLACK]),
        white_territory=frozenset(terr[WHITE]),
        dame=frozenset(dame),
        seki=seki,
        dead=dead_set,
        prisoners=(caps[0], caps[1]),
    )


def capturing_move(board: Board, dead: Iterable[int], color: int) -> int:
    """A move for ``color`` that takes ``dead`` stones of the other colour off the board:
    a legal liberty of such a chain, the chains with the fewest liberties first (then by
    point); :data:`~.kernels.PASS` when none of them is left or none has a legal liberty.
    What a player in a cleanup plays instead of passing (GTP ``kgs-genmove_cleanup``,
    :meth:`GoEngine.think_cleanup <banmen.games.go.engine.GoEngine.think_cleanup>`).

    >>> from banmen.games.go.board import Board, parse_vertex
    >>> b = Board(5)
    >>> b.setup(black=[parse_vertex(v, 5) for v in ("B2", "C3", "D2")],
    ...         white=[parse_vertex("C2", 5)])
    >>> b.move_name(capturing_move(b, [parse_vertex("C2", 5)], BLACK))
    'C1'
    """
    other = WHITE if color == BLACK else BLACK
    seen: set[int] = set()
    found: list[tuple[int, int, list[int]]] = []
    for p in sorted(set(dead)):
        if p in seen or board.color_at(p) != other:
            continue
        stones, libs = board.group(p)
        seen.update(stones)
        found.append((len(libs), min(stones), sorted(libs)))
    for _, _, libs in sorted(found):
        for q in libs:
            if board.why_illegal(q, color) is None:
                return q
    return K.PASS

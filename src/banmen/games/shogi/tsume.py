"""Tsume-shogi: prove mate problems with df-pn and count the answer as composers do.

The solve runs in three phases (``progress`` reports which):

1. ``proof`` — the compiled df-pn (:mod:`banmen.search.dfpn`) over banmen's shogi kernels
   (:mod:`banmen.games.shogi.kernels`) looks for any mate at all, counting every ply. It
   ends in a proof, a proof that there is no mate (``no_mate``), or a limit (``unknown``).
2. ``shortest`` — the same search with a bound on the *counted* length: is there a mate
   within ``L - 2`` plies, then within the new length ``- 2``, … until the bound is disproved.
   Counting follows composition rules (docs/TSUME.md): futile interpositions (無駄合) are
   not counted, and a check whose only answers are futile interpositions is mate.
3. ``pv`` — the main line: the attacker picks the shortest mate, the defender the longest
   resistance (each reply's own shortest mate is proved); among equal lengths, the line that
   leaves the attacker fewest pieces in hand at the end; then the first in move order.

If a limit stops phase 2, the result is still ``mate`` with ``shortest=False``: a mate was
proved, and ``length`` is the shortest bound a search proved (the attacker mates within it
whatever the defence), not proved shortest. Its line is one the table knows, whose
defence is not proved longest: its plies may differ from ``length`` (fewer, or more when
only the first, longer line is left), so they are never
given as the length (ACT-no-yume's line of 317 plies once was; its shortest mate is 467).

The counting (phases 2 and 3) is written once over a small :class:`Backend`: by default it
runs on the compiled df-pn (:class:`~banmen.games.shogi.compiled.CompiledBackend`); a caller
may pass another (``solve(..., backend=...)``) — the tests pass their pure-Python oracle
(tests/shogi_position.py), which banmen itself never imports.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any, Literal, Protocol

import cshogi

from banmen.games.shogi.compiled import CompiledBackend, compile_kernels
from banmen.games.shogi.formats import normalize_sfen, parse_sfen
from banmen.games.shogi.sets import MATE, NODE
from banmen.search.limits import Limit, StopFlag
from banmen.search.proof import INF, ProofResult, Unknown
from banmen.warm import beside, ensure

__all__ = ["TsumeResult", "solve", "warm_up", "Progress", "Backend", "BackendFactory"]

Status = Literal["mate", "no_mate", "unknown"]
#: ``progress(info)`` is called about every 0.1 s with ``nodes``, ``seconds``, ``nps``,
#: ``pn``, ``dn`` (the root's proof and disproof numbers) and ``phase`` (``"proof"`` while
#: looking for any mate, ``"shortest"`` while shortening it, ``"pv"`` while reading the line)
Progress = Callable[[dict[str, Any]], None]


@dataclass
class TsumeResult:
    """What the solver proved about one problem.

    ``status``: ``mate`` (``pv`` is the composer's main line in USI, ``length`` its plies),
    ``no_mate`` (proved: there is no mate at all), ``unknown`` (a limit was reached first;
    ``reason`` is ``timeout``, ``node_limit``, ``memory`` or ``stopped``).
    ``shortest`` tells whether ``length`` was proved to be the shortest mate under the
    counting rules. A mate found but not shortened in time keeps ``shortest=False``; its
    ``length`` is then a bound a search proved (a mate within that many plies whatever the
    defence) and ``pv`` a mating line whose plies may differ (its defence not proved longest).
    When a limit stops the main line's phase, ``length`` is the proved shortest and ``pv``
    the best line the table still holds (its plies may differ from ``length``).
    ``first_seconds``: when the first mate (of any length) was proved.
    """

    sfen: str
    status: Status
    pv: list[str] = field(default_factory=list)
    length: int | None = None
    shortest: bool = False
    reason: str | None = None
    nodes: int = 0
    seconds: float = 0.0
    first_seconds: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def solve(
    sfen: str,
    limit: Limit | None = None,
    *,
    stop: StopFlag | None = None,
    progress: Progress | None = None,
    hash_mb: int = 256,
    backend: BackendFactory | None = None,
) -> TsumeResult:
    """Solve the mate problem ``sfen`` (the attacker is the side to move).

    Raises :class:`~banmen.games.shogi.errors.ShogiError` for a bad SFEN; never anything else for
    bad input. ``limit.time`` / ``limit.nodes`` bound the whole solve; ``stop`` stops it
    from another thread or process; ``hash_mb`` bounds the transposition table.
    ``backend``: makes the solver the counting runs on (see :data:`BackendFactory`); None,
    the compiled df-pn.
    """
    return _solve_problem(sfen, limit, stop, progress, hash_mb, backend)


def _solve_problem(
    sfen: str,
    limit: Limit | None,
    stop: StopFlag | None,
    progress: Progress | None,
    hash_mb: int,
    make: BackendFactory | None,
) -> TsumeResult:
    board = parse_sfen(sfen)
    sfen = normalize_sfen(sfen)
    if make is not None:
        return _solve(make(board, limit, stop, progress, hash_mb), sfen)
    backend = CompiledBackend(board, limit, stop, progress, hash_mb)
    try:
        # the whole solve in one search thread (deep stack, one deadline, progress here)
        return backend.solver.session(lambda: _solve(backend, sfen))
    finally:
        backend.solver.release()  # the table unmapped off the caller's clock


#: a mate in three with a futile interposition: solving it runs every compiled path once
_WARM_UP_SFEN = "3sks3/9/4+P4/9/9/9/9/9/9 b 2G2r2b2g2s4n4l17p 1"


def _load_mate() -> None:
    # the kernels first, then the node function that calls them through pointers (which a
    # helper process may be compiling meanwhile: warm_up), then a solve
    compile_kernels()
    ensure(NODE)
    _solve_problem(_WARM_UP_SFEN, None, None, None, 1, None)


def warm_up() -> None:
    """Load the solver's code now (or compile it, the first time ever: :data:`MATE`)
    rather than in the first solve; the node function in a second process meanwhile:
    :func:`banmen.warm.beside`)."""
    beside(NODE, while_=MATE)
    ensure(MATE)


class Counters(Protocol):
    """What both df-pn solvers count: nodes, seconds, and the phase they report."""

    phase: str

    @property
    def nodes(self) -> int: ...

    def elapsed(self) -> float: ...


class Backend(Protocol):
    """A df-pn solver and the position it works on, as the counting needs them.

    Position: ``key`` (of everything: board, hands, side to move), ``attacker_moves``,
    ``defender_moves``, ``play``, ``undo``, ``quick_win``, ``group``, ``material``.
    Solver (on the current position): ``prove``, ``lookup``, ``is_futile`` (raises
    :class:`Unknown` when a limit stops it), ``was_futile`` (the position follows a reply
    found futile); ``solver`` itself keeps the counts."""

    @property
    def solver(self) -> Counters: ...

    def prove(self, r: int = INF, *, or_node: bool = True, nodes: int | None = None) -> ProofResult:
        """``nodes``: a budget for this call (unknown with the reason ``budget`` when spent;
        a backend may search on instead)."""

    def lookup(self, r: int) -> tuple[int, int, int, int]: ...

    def is_futile(self, move: int, r: int) -> bool:
        """Raises :class:`Unknown` when a limit stops the test."""

    def was_futile(self) -> bool: ...

    def key(self) -> int: ...

    def attacker_moves(self) -> list[int]: ...

    def defender_moves(self) -> list[int]: ...

    def play(self, move: int) -> None: ...

    def undo(self) -> None: ...

    def quick_win(self) -> int | None: ...

    def group(self, move: int) -> int | None: ...

    def material(self) -> int: ...

    def usi(self, move: int) -> str: ...


#: ``backend(board, limit, stop, progress, hash_mb)``: a :class:`Backend` for one problem (the
#: position from ``board``, the solver bound by the rest): what ``solve(..., backend=)`` takes
BackendFactory = Callable[
    [cshogi.Board, Limit | None, StopFlag | None, Progress | None, int], Backend
]


def _solve(b: Backend, sfen: str) -> TsumeResult:
    first_seconds: float | None = None

    def done(status: Status, **kw: Any) -> TsumeResult:
        return TsumeResult(
            sfen=sfen,
            status=status,
            nodes=int(b.solver.nodes),
            seconds=round(b.solver.elapsed(), 3),
            first_seconds=first_seconds,
            **kw,
        )

    first, lo = _first_mate(b)
    if first.status == "unknown":
        return done("unknown", reason=first.reason)
    if first.status == "disproved":
        return done("no_mate")
    assert first.length is not None
    first_seconds = round(b.solver.elapsed(), 3)
    line = _Lines(b)
    try:
        fallback = line.walk()
    except _LineLost:
        # proved, but the line is gone and the limits came first: say what is known
        return done("mate", length=first.length, reason=b.prove().reason or "timeout")

    # phase 2: the shortest under the counting rules. A short first mate: bounded searches
    # of growing length from the first bound not yet disproved up to the mate's (a bound
    # searched from a table the shorter bounds have warmed took a fraction of the time of
    # the same bound searched right after the first mate: zukou-013's 21 plies 4 s against
    # over 16 s). A long one: bounded searches of falling length from it (each proof a
    # shorter mate, mostly read from the table) until one is disproved.
    b.solver.phase = "shortest"
    best = first.length
    shortest = lo + 2 >= best
    reason: str | None = None
    if best <= _FROM_BELOW + 2:
        r = lo + 2
        while not shortest:
            res = b.prove(r)
            if res.status == "unknown":
                reason = res.reason
                break
            if res.status == "proved":
                assert res.length is not None
                best = res.length
                shortest = True
                break
            r += 2
            shortest = r >= best
    while not shortest:
        res = b.prove(best - 2)
        if res.status == "unknown":
            reason = res.reason
            break
        if res.status == "disproved":
            shortest = True
            break
        assert res.length is not None
        best = res.length
        shortest = best < 3 or lo + 2 >= best
    if not shortest:
        pv = fallback
        if best != len(fallback):
            try:
                pv = line.walk(bound=best)
            except _LineLost:
                pass  # the longer line found first is still a proved mate
        # the length is the bound proved, not the line's plies: the line's defence is
        # the longest the table knows, not proved longest (a line can be far shorter than
        # any mate the attacker can force: ACT-no-yume's 317 plies, its shortest mate 467)
        return done("mate", pv=[b.usi(m) for m in pv], length=best, reason=reason)

    # a shortest line read from the table now, while it is fresh: if phase 3 runs out of
    # time, this is the answer (the attacker's shortest, the defender's longest as the
    # table knows them)
    try:
        short_line: list[int] | None = line.walk(bound=best)
    except _LineLost:
        short_line = None

    # phase 3: the main line
    b.solver.phase = "pv"
    try:
        pv, _ = line.exact_or(best)
    except _NoTime as e:
        if short_line is None:
            try:
                short_line = line.walk(bound=best)
            except _LineLost:
                # no shortest line left in the table and no time to prove one: the first
                # line found is given (a mating line, not the shortest); the length proved
                # shortest is still the answer
                short_line = fallback
        pv = short_line
        return done("mate", pv=[b.usi(m) for m in pv], length=best, shortest=True, reason=e.reason)
    return done("mate", pv=[b.usi(m) for m in pv], length=best, shortest=True)


#: the unbounded search's first budget, in nodes (about a second): see :func:`_first_mate`
_FIRST_BUDGET = 200_000
#: bounded searches from below run up to this many plies (the short problems': beyond, a
#: sum over every shorter bound costs more than the one search it would save)
_FROM_BELOW = 31


def _first_mate(b: Backend) -> tuple[ProofResult, int]:
    """The first mate (or no mate, or unknown) and the largest bound within which no mate
    is proved (-1: none).

    The unbounded search finds most first mates at once (14 of the 17 problems of 13-31
    plies in under a quarter of a second), but on some it wanders (zukou-079: 12 s) where
    bounded searches of growing length (1, 3, 5, ... plies, one table) reach the shortest
    mate in a third of the time. So the two take turns with equal budgets of nodes, which
    double each round: the unbounded search, then the bounded searches (one cut short by
    the budget goes on in the next round), up to :data:`_FROM_BELOW` plies. A bounded
    search's proof is a shortest mate: every shorter bound was disproved before it."""
    budget = _FIRST_BUDGET
    r = 1
    while True:
        res = b.prove(nodes=budget)
        if res.status != "unknown" or res.reason != "budget":
            return res, r - 2
        left = budget
        while r <= _FROM_BELOW and left > 0:
            n0 = b.solver.nodes
            res = b.prove(r, nodes=left)
            left -= b.solver.nodes - n0
            if res.status == "unknown" and res.reason == "budget":
                break
            if res.status != "disproved":
                return res, r - 2
            r += 2
        budget *= 2


class _LineLost(Exception):
    """The table no longer holds a proved line, and the limits leave no time to prove it."""


class _NoTime(Exception):
    def __init__(self, reason: str | None) -> None:
        super().__init__(reason)
        self.reason = reason


class _Lines:
    """Reading lines out of the solver's table (and proving what the table lacks)."""

    def __init__(self, b: Backend) -> None:
        self.b = b

    def walk(self, bound: int = INF) -> list[int]:
        """A mating line from the table: the attacker's shortest proved check, the defender's
        longest proved reply. Used when there is no time for exact lengths. A node whose
        children the table has let go is proved again (within what the limits leave);
        :class:`_LineLost` if even that fails."""
        b = self.b
        line: list[int] = []
        seen: set[int] = set()
        r = bound
        try:
            while True:
                seen.add(b.key())
                if len(line) % 2 == 0:
                    win = b.quick_win()
                    if win is not None:
                        b.play(win)
                        line.append(win)
                        return list(line)
                    best, best_len = self._attacker_choice(r, seen)
                    if best is None and b.prove(r).status == "proved":
                        best, best_len = self._attacker_choice(r, seen)
                    if best is None:
                        raise _LineLost
                else:
                    moves = b.defender_moves()
                    if not moves:
                        return list(line)
                    best, best_len, open_replies = self._defender_choice(moves, r)
                    if best is None and open_replies:
                        # no reply proved in the table, and some not known to be futile
                        if b.prove(r, or_node=False).status != "proved":
                            raise _LineLost
                        best, best_len, open_replies = self._defender_choice(moves, r)
                    if best is None:
                        return list(line)  # every reply is a futile interposition
                r = best_len
                b.play(best)
                line.append(best)
        finally:
            for _ in line:
                b.undo()

    def _attacker_choice(self, r: int, seen: set[int]) -> tuple[int | None, int]:
        b = self.b
        best, best_len = None, INF
        for m in b.attacker_moves():
            b.play(m)
            k = b.key()
            pn, _, length, _ = b.lookup(r - 1)
            b.undo()
            if pn == 0 and length < best_len and k not in seen:
                best, best_len = m, length
        return best, best_len

    def _defender_choice(self, moves: list[int], r: int) -> tuple[int | None, int, bool]:
        """(longest proved reply, its length, whether a counted reply is not proved)."""
        b = self.b
        best, best_len = None, -1
        open_replies = False
        for m in moves:
            b.play(m)
            futile = b.was_futile()
            pn, _, length, _ = b.lookup(INF if futile else r - 1)
            b.undo()
            if futile:
                continue
            if pn != 0:
                open_replies = True
            elif length > best_len:
                best, best_len = m, length
        return best, best_len, open_replies

    def exact_or(self, length: int) -> tuple[list[int], int]:
        """The main line from an attacker node whose shortest mate is ``length`` plies:
        (moves, attacker's pieces in hand at the end)."""
        b = self.b

        def known() -> bool | None:  # does the check mate within the length?
            pn, dn, _, _ = b.lookup(length - 1)
            return True if pn == 0 else False if dn == 0 else None

        def mates() -> bool:
            res = b.prove(length - 1, or_node=False)
            if res.status == "unknown":
                raise _NoTime(res.reason)
            return res.status == "proved"

        return self._fewest_left(
            b.attacker_moves(), known, mates, lambda: self.exact_and(length - 1),
            "no mating move within the proved length",
        )  # fmt: skip

    def exact_and(self, bound: int) -> tuple[list[int], int]:
        """The main line from a defender node whose counted length is exactly ``bound``
        (``exact_or`` only comes here with the exact length of a shortest mate).

        The longest resistance is then a counted reply lasting ``bound - 1`` plies, and
        those are the replies with no mate within ``bound - 3``: one bounded proof per
        reply says which (lengths have the parity of the side to move, so no reply lies
        between), instead of shortening each reply's mate to its exact length."""
        b = self.b
        moves = b.defender_moves()
        if not moves:
            return [], b.material()
        counted: list[int] = []
        for m in moves:
            if b.group(m) is not None:
                try:
                    if b.is_futile(m, bound):
                        continue
                except Unknown as u:
                    raise _NoTime(u.reason) from None
            counted.append(m)
        if not counted:
            return [], b.material()  # only futile interpositions: mate here

        def known() -> bool | None:  # does the reply hold out to the length?
            if len(counted) <= 1 or bound - 3 < 1:
                # one reply (forced: it is the longest), or bound 2 (each lasts one ply)
                return True
            pn, dn, _, _ = b.lookup(bound - 3)
            return True if dn == 0 else False if pn == 0 else None

        def holds_out() -> bool:
            res = b.prove(bound - 3)
            if res.status == "unknown":
                raise _NoTime(res.reason)
            return res.status == "disproved"

        return self._fewest_left(
            counted, known, holds_out, lambda: self.exact_or(bound - 1),
            "no reply of a proved node holds out to its length",
        )  # fmt: skip

    def _fewest_left(
        self,
        moves: list[int],
        known: Callable[[], bool | None],
        prove: Callable[[], bool],
        follow: Callable[[], tuple[list[int], int]],
        none: str,
    ) -> tuple[list[int], int]:
        """Of the lines that play one of ``moves`` that qualifies and go on with
        ``follow()``, the one that leaves the attacker fewest pieces in hand. Asked with the
        move played, ``known()`` (a table lookup) says True for a move that qualifies, False
        for one that does not, None when only ``prove()`` (a bounded proof) can tell. The
        moves known to qualify are taken first, then the open ones, each in move order (the
        first in this order among equals), and each is tested only when it comes: once a
        line leaves no piece in hand, none after it can do better, and the moves left are
        not proved at all. In most problems the table's own mating move leaves nothing,
        and the main line costs no bounded proof at an attacker node, where taking the
        moves in generation order paid a disproof (of every check before the mating one)
        each."""
        b = self.b
        verdicts: list[tuple[int, bool | None]] = []
        for m in moves:
            b.play(m)
            try:
                verdicts.append((m, known()))
            finally:
                b.undo()
        order = [v for v in verdicts if v[1]] + [v for v in verdicts if v[1] is None]
        best: tuple[list[int], int] | None = None
        for m, verdict in order:
            b.play(m)
            try:
                if verdict is None:  # (the lines taken meanwhile may have answered it)
                    verdict = known()
                if verdict is None:
                    verdict = prove()
                if verdict:
                    tail, hand = follow()
                    if best is None or hand < best[1]:
                        best = ([m, *tail], hand)
            finally:
                b.undo()
            if best is not None and best[1] == 0:
                break
        if best is None:
            raise AssertionError(none)
        return best

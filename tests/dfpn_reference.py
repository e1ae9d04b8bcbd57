"""The tests' oracle: a pure-Python depth-first proof-number search (df-pn), over a
:class:`Position` protocol.

It is the solver the compiled df-pn (:mod:`banmen.search.dfpn`) replaced, kept as the tests'
oracle: tests/search/test_dfpn.py checks it against a brute-force one on random graphs, and
tests/games/shogi/test_tsume.py checks the compiled solver against it on shogi problems
(through tests/shogi_position.py). No module of banmen imports it.

The attacker (OR node) must prove a win — in tsume-shogi a mate, playing only checks — and
the defender (AND node) tries every legal reply. ``prove`` answers with a proof (and the length
of the line it found), a disproof, or "unknown" when a limit stopped it; a limit is never
reported as a result.

What the implementation takes care of (each point has a test):

* **Repetition and graph-history interaction.** A position repeated on the current path is a
  failure for the attacker (perpetual check is not mate). Such a disproof depends on the path,
  so it is never stored as a disproof in the transposition table: it is handed up with the depth
  of the ancestor that was repeated, and only the node at that depth (whose own subtree holds
  the whole cycle) may store it. Proofs never depend on the path, so they are stored.
* **Counting once in DAGs.** An AND node's proof number is the sum over its replies — but drops
  of different pieces on the same square (interpositions) lead to nearly the same subtrees,
  so they count as one group (the group's largest number). The OR side groups its drops the
  same way for the disproof number.
* **Lengths.** Proof entries carry the length of the line proved (OR: 1 + shortest proved
  child; AND: 1 + longest counted reply, 0 at mate). With a finite depth bound ``r`` the
  search proves "a win within ``r`` plies" and its disproofs carry the bound they hold for, so
  ``shortest()`` can lower the bound until the win is disproved and the length is exact.
* **Replies that do not count.** A position may mark a defender's reply as possibly futile
  (``futile_test``); with a finite bound the reply is tested (by separate proofs: the
  position the game returns is a win at once, or within the node's bound while another
  reply holds out beyond it) and, if futile, it is proved at once and not counted in
  lengths. Tsume-shogi uses this for futile interpositions (無駄合). An AND node whose every
  reply is futile counts as a win at that ply.
* **Limits.** Time, nodes, a stop flag, and a memory bound on the table with garbage
  collection of the entries that cost least to recompute; an exhausted limit raises
  :class:`Unknown` internally and ``prove`` returns status ``unknown`` with the reason.
"""

from __future__ import annotations

import gc
import itertools
import sys
import threading
import time
from collections.abc import Callable, Hashable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, Generic, Protocol, TypeVar

import numpy as np

from banmen.search.limits import STOP_TIME, Limit, StopFlag
from banmen.search.proof import INF, ProofResult, Unknown

__all__ = ["Position", "DfPn", "ProofResult", "Unknown", "INF"]

Move = TypeVar("Move")

#: the length field of an entry with no proof (longer than any bound)
_NO_PROOF = 1 << 50
_PN, _DN, _LEN, _DDEPTH, _WORK = range(5)
#: rough bytes one table entry costs (dict slot, key int, 5-slot list and its ints)
ENTRY_BYTES = 200
#: nodes between two looks at the clock and the stop flag: at a few thousand nodes a second
#: on a busy machine, 64 keeps a time limit within a few hundredths of a second
_CHECK_EVERY = 64


class Position(Protocol[Move]):
    """What df-pn needs from a game. ``play``/``undo`` change the position in place."""

    def key(self) -> int:
        """A hash of the position (including side to move and anything in hand)."""

    def attacker_moves(self) -> Sequence[Move]:
        """The attacker's candidate moves (tsume-shogi: the legal checks)."""

    def defender_moves(self) -> Sequence[Move]:
        """All the defender's legal replies."""

    def play(self, move: Move) -> None: ...

    def undo(self) -> None: ...

    # Optional accelerations and rules. A game that lacks them returns None / 0.

    def quick_win(self) -> Move | None:
        """An attacker move that wins at once (a mate in one), if the game can see one cheaply."""

    def group(self, move: Move) -> Hashable | None:
        """Moves with the same non-None group lead to near-identical subtrees (drops on one
        square): they are counted once in the proof/disproof sums."""

    def futile_test(self, move: Move) -> Sequence[Position[Move]]:
        """For a defender reply that may be futile, positions (new objects, the defender to
        move: the reply answered the intended way) any one of which, if it is won no later
        than the defender's other replies hold out, proves the reply futile (see
        :meth:`DfPn.is_futile`); empty if the reply always counts."""

    def material(self) -> int:
        """Attacker's pieces in hand (to prefer lines that leave fewer of them)."""


_gc_lock = threading.Lock()
_gc_holders = 0  # blocks inside no_cyclic_gc() now
_gc_was_enabled = True  # the collector's state when the first of them began


@contextmanager
def no_cyclic_gc() -> Iterator[None]:
    """Python's cyclic garbage collector off for the block (and back on after, if it was).

    The table holds a list per position — a million containers in a long solve — and every
    full collection walks all of them: pauses of 20-60 ms at 50 k entries, seconds at a
    million, long enough to break a time limit. The solver makes no reference cycles
    (entries are lists of ints), so nothing waits on the collector. Blocks may nest and
    run in several threads: the last one out restores the collector."""
    global _gc_holders, _gc_was_enabled
    with _gc_lock:
        if _gc_holders == 0:
            _gc_was_enabled = gc.isenabled()
            gc.disable()
        _gc_holders += 1
    try:
        yield
    finally:
        with _gc_lock:
            _gc_holders -= 1
            if _gc_holders == 0 and _gc_was_enabled:
                gc.enable()


class _Limits:
    __slots__ = ("deadline", "max_nodes", "stop")

    def __init__(self, limit: Limit | None, stop: StopFlag | None, start: float) -> None:
        self.deadline = start + limit.time if limit and limit.time else None
        self.max_nodes = limit.nodes if limit and limit.nodes else None
        self.stop = stop


class DfPn(Generic[Move]):
    """One solver: a transposition table, counters and limits shared by its proofs.

    >>> # see tests/search/test_dfpn.py for a toy game; tests/shogi_position.py for shogi
    """

    def __init__(
        self,
        *,
        limit: Limit | None = None,
        stop: StopFlag | None = None,
        progress: Callable[[dict[str, Any]], None] | None = None,
        hash_mb: int = 256,
        epsilon: float = 0.25,
    ) -> None:
        self.tt: dict[int, list[int]] = {}
        self.nodes = 0
        self.start = time.monotonic()
        self.limits = _Limits(limit, stop, self.start)
        self.progress = progress
        self.max_entries = max(1024, hash_mb * 1024 * 1024 // ENTRY_BYTES)
        self.epsilon = epsilon
        self.phase = "proof"
        self.root_pn = 1
        self.root_dn = 1
        self.gc_runs = 0
        self._last_gc = 0
        self._gc_seconds_per_entry = 1e-6
        self._next_check = _CHECK_EVERY
        self._next_report = self.start + 0.1
        #: futility verdicts by (key of the position after the reply, bound)
        self._futile: dict[tuple[int, int], bool] = {}
        #: keys of positions after a reply found futile (within some bound)
        self.futile_keys: set[int] = set()

    # ----------------------------------------------------------------- bookkeeping
    def elapsed(self) -> float:
        return time.monotonic() - self.start

    def _tick(self) -> None:
        """Every `_CHECK_EVERY` nodes: limits, the memory bound, progress."""
        self._next_check = self.nodes + _CHECK_EVERY
        lim = self.limits
        if lim.stop is not None and lim.stop.is_set():
            raise Unknown("timeout" if lim.stop.reason == STOP_TIME else "stopped")
        if lim.max_nodes is not None and self.nodes >= lim.max_nodes:
            raise Unknown("node_limit")
        now = time.monotonic()
        if lim.deadline is not None and now >= lim.deadline:
            raise Unknown("timeout")
        if len(self.tt) > self.max_entries:
            # a collection cannot be interrupted: start one only if it ends in time
            if lim.deadline is not None and now + self._gc_estimate() > lim.deadline:
                raise Unknown("timeout")
            self.collect_garbage()
        if self.progress is not None and now >= self._next_report:
            self._next_report = now + 0.1
            self.progress(self.info())

    def info(self) -> dict[str, Any]:
        seconds = self.elapsed()
        return {
            "nodes": self.nodes,
            "seconds": round(seconds, 3),
            "nps": int(self.nodes / seconds) if seconds > 0 else 0,
            "pn": self.root_pn if self.root_pn < INF else "inf",
            "dn": self.root_dn if self.root_dn < INF else "inf",
            "phase": self.phase,
            "entries": len(self.tt),
        }

    def _gc_estimate(self) -> float:
        """Seconds a collection of the table is expected to take: the last one's rate, or
        a cautious 2 µs an entry before the first (about twice that of a busy machine)."""
        return 2 * len(self.tt) * self._gc_seconds_per_entry

    def collect_garbage(self) -> None:
        """Drop the cheaper half of the table (by the work spent below each entry; proofs
        and disproofs count four times their work, so they outlive open entries).

        If the table fills again within 1/64 of its size in nodes, the problem does
        not fit: the search gives up with ``unknown(memory)`` rather than thrash.
        """
        if self.gc_runs and self.nodes - self._last_gc < self.max_entries // 64:
            raise Unknown("memory")
        self.gc_runs += 1
        self._last_gc = self.nodes
        tt = self.tt

        def weight(e: list[int]) -> int:
            return e[_WORK] * (4 if (e[_LEN] < _NO_PROOF or e[_DDEPTH] >= 0) else 1)

        t0 = time.monotonic()
        n = len(tt)
        half = n // 2
        if half:
            # A linear-time selection and a rebuilt dict, not a sort and deletions: at a
            # million entries those took seconds, long enough to break a time limit.
            weights = np.fromiter((weight(e) for e in tt.values()), dtype=np.int64, count=n)
            keep = np.ones(n, dtype=np.bool_)
            keep[np.argpartition(weights, half - 1)[:half]] = False
            self.tt = dict(itertools.compress(tt.items(), keep.tolist()))
        self._gc_seconds_per_entry = (time.monotonic() - t0) / max(1, n)

    # ----------------------------------------------------------------- table access
    def lookup(self, key: int, r: int) -> tuple[int, int, int, int]:
        """(pn, dn, length, disproof depth) of ``key`` as seen with ``r`` plies left.

        An entry keeps the shortest win proved (``length``, ``INF`` if none), the largest
        bound within which a win was disproved (``ddepth``, ``INF`` for "no win at all",
        -1 if none) and the open numbers of the last unfinished search, so one entry can
        answer searches with different bounds.
        """
        e = self.tt.get(key)
        if e is None:
            return 1, 1, 0, 0
        if e[_LEN] <= r:
            return 0, INF, e[_LEN], 0
        if e[_DDEPTH] >= r:
            return INF, 0, 0, e[_DDEPTH]
        return e[_PN], e[_DN], 0, 0

    def _entry(self, key: int) -> list[int]:
        e = self.tt.get(key)
        if e is None:
            e = [1, 1, _NO_PROOF, -1, 0]
            self.tt[key] = e
        return e

    def store_proof(self, key: int, length: int, work: int) -> None:
        e = self._entry(key)
        if length < e[_LEN]:
            e[_LEN] = length
        e[_WORK] += work

    def store_disproof(self, key: int, ddepth: int, work: int) -> None:
        e = self._entry(key)
        if ddepth > e[_DDEPTH]:
            e[_DDEPTH] = ddepth
        e[_WORK] += work

    def store_open(self, key: int, pn: int, dn: int, work: int) -> None:
        e = self._entry(key)
        e[_PN] = pn
        e[_DN] = dn
        e[_WORK] += work

    # ----------------------------------------------------------------- proving
    def prove(self, pos: Position[Move], r: int = INF, *, or_node: bool = True) -> ProofResult:
        """Prove or disprove an attacker win from ``pos`` within ``r`` plies (``INF``: at any
        length), sharing this solver's table and limits. ``or_node=False``: the defender is
        to move in ``pos``."""
        # one Python frame per ply: problems of over a thousand plies need a deep stack
        # (raised for the search only; the rest of the process keeps its own limit)
        old_limit = sys.getrecursionlimit()
        if old_limit < 100_000:
            sys.setrecursionlimit(100_000)
        try:
            with no_cyclic_gc():
                self._tick()
                pn, dn, length, _, _ = self._mid(pos, or_node, INF, INF, r, {}, 0, True)
        except Unknown as u:
            return ProofResult("unknown", reason=u.reason)
        finally:
            if old_limit < 100_000:
                sys.setrecursionlimit(old_limit)
        if pn == 0:
            return ProofResult("proved", length=length)
        if dn == 0:
            return ProofResult("disproved")
        raise AssertionError("df-pn returned with both numbers open at infinite thresholds")

    def is_futile(self, pos: Position[Move], move: Move, child_key: int, r: int) -> bool:
        """Whether the defender's reply ``move`` in ``pos`` (an AND node searched within
        ``r`` plies, the reply disproved there when counted) is futile.

        The reply is futile when one of the game's test positions (the reply answered in
        the intended way, the defender to move) is no harder than the defender's other
        resistance: already a win, or a win within ``r`` while one of the replies that
        always count (those outside any group) holds out beyond ``r - 2`` — so the reply
        gains nothing but its own two plies.
        """
        verdict = self._futile.get((child_key, r))
        if verdict is None:
            verdict = False
            for test in pos.futile_test(move):
                if self._prove_nested(test, 0):
                    verdict = True
                elif r >= 2 and self._prove_nested(test, r):
                    verdict = self._holds_out(pos, r - 3)
                if verdict:
                    break
            self._futile[(child_key, r)] = verdict
            if verdict:
                self.futile_keys.add(child_key)
        return verdict

    def _prove_nested(self, pos: Position[Move], r: int) -> bool:
        """Whether ``pos`` (the defender to move) is a win within ``r`` plies (``0``: no
        reply, or only futile ones — the test recurses through chains of interpositions)."""
        pn, _, _, _, _ = self._mid(pos, False, INF, INF, r, {}, 0, False)
        return pn == 0

    def _holds_out(self, pos: Position[Move], r: int) -> bool:
        """Whether one of the defender's replies in ``pos`` that always count (outside any
        group) leaves no win within ``r``."""
        replies = [m for m in pos.defender_moves() if pos.group(m) is None]
        if r < 1:
            return bool(replies)
        for m in replies:
            pos.play(m)
            try:
                pn, dn, _, _, _ = self._mid(pos, True, INF, INF, r, {}, 0, False)
            finally:
                pos.undo()
            if dn == 0:
                return True
        return False

    def _mid(
        self,
        pos: Position[Move],
        is_or: bool,
        th_pn: int,
        th_dn: int,
        r: int,
        path: dict[int, int],
        depth: int,
        at_root: bool,
    ) -> tuple[int, int, int, int, int]:
        """One df-pn node: returns (pn, dn, length, disproof depth, repetition depth).

        ``repetition depth`` is the shallowest path depth a disproof relied on being repeated
        (``INF`` if none); ``length``/``disproof depth`` are meaningful for proofs/disproofs.
        """
        self.nodes += 1
        if self.nodes >= self._next_check:
            self._tick()
        key = pos.key()
        work0 = self.nodes

        if is_or:
            if r < 1:
                return INF, 0, 0, r, INF
            moves = pos.attacker_moves()
            if not moves:
                self.store_disproof(key, INF, 1)
                return INF, 0, 0, INF, INF
            win = pos.quick_win()
            if win is not None:
                self.store_proof(key, 1, 1)
                return 0, INF, 1, 0, INF
        else:
            moves = pos.defender_moves()
            if not moves:
                self.store_proof(key, 0, 1)
                return 0, INF, 0, 0, INF

        # Expand: the children's keys, groups and (for finite r) futility
        n = len(moves)
        keys = [0] * n
        groups: list[Hashable | None] = [None] * n
        child_r = [r - 1 if r < INF else INF] * n
        rep = [INF] * n  # path depth of a repeated child, INF if none
        futile_proved = [False] * n
        finite = r < INF
        for i, m in enumerate(moves):
            groups[i] = pos.group(m)
            pos.play(m)
            k = pos.key()
            keys[i] = k
            d = path.get(k)
            if d is not None:
                rep[i] = d
            elif k not in self.tt:
                self._seed(pos, k, not is_or)
            pos.undo()
        # A reply that may be futile is tested only when it matters: when, counted as an
        # ordinary reply, it is disproved within the bound (see the loop below).
        tested = [is_or or not finite or groups[i] is None for i in range(n)]

        path[key] = depth
        local_disproof: dict[int, tuple[int, int]] = {}  # child index -> (ddepth, rep depth)
        try:
            while True:
                # gather the children's numbers
                pns = [0] * n
                dns = [0] * n
                lens = [0] * n
                ddeps = [0] * n
                reps = [INF] * n
                for i in range(n):
                    if rep[i] < INF:
                        # repeated position: the attacker fails on this path
                        pns[i], dns[i], ddeps[i], reps[i] = INF, 0, INF, rep[i]
                        continue
                    if futile_proved[i]:
                        pns[i], dns[i] = 0, INF
                        continue
                    ld = local_disproof.get(i)
                    if ld is not None:
                        pns[i], dns[i], ddeps[i], reps[i] = INF, 0, ld[0], ld[1]
                        continue
                    if not is_or and child_r[i] < 1:
                        # an attacker with no plies left cannot win
                        pns[i], dns[i], ddeps[i] = INF, 0, child_r[i]
                        continue
                    pns[i], dns[i], lens[i], ddeps[i] = self.lookup(keys[i], child_r[i])
                if not is_or and finite:
                    # a reply that counts and is disproved settles the node: test nothing
                    if not any(dns[i] == 0 and tested[i] for i in range(n)):
                        i = next((i for i in range(n) if dns[i] == 0 and not tested[i]), -1)
                        if i >= 0:
                            tested[i] = True
                            if self.is_futile(pos, moves[i], keys[i], r):
                                futile_proved[i] = True
                            continue
                if is_or:
                    pn, dn = self._or_numbers(pns, dns, groups)
                else:
                    dn, pn = self._or_numbers(dns, pns, groups)
                if at_root and depth == 0:
                    self.root_pn, self.root_dn = pn, dn
                if pn == 0 or dn == 0 or pn >= th_pn or dn >= th_dn:
                    break
                # select the most proving child and the runner-up
                best = -1
                best_v = INF + 1
                second_v = INF + 1
                sel = pns if is_or else dns
                for i in range(n):
                    v = sel[i]
                    if v < best_v:
                        second_v = best_v
                        best_v = v
                        best = i
                    elif v < second_v:
                        second_v = v
                limit_second = (
                    second_v + 1 if second_v >= INF else int(second_v * (1.0 + self.epsilon)) + 1
                )
                if is_or:
                    c_th_pn = min(th_pn, limit_second)
                    c_th_dn = min(INF, th_dn - dn + dns[best])
                else:
                    c_th_dn = min(th_dn, limit_second)
                    c_th_pn = min(INF, th_pn - pn + pns[best])
                m = moves[best]
                pos.play(m)
                try:
                    cpn, cdn, _clen, cdd, crep = self._mid(
                        pos, not is_or, c_th_pn, c_th_dn, child_r[best], path, depth + 1, at_root
                    )
                finally:
                    pos.undo()
                if cdn == 0 and crep <= depth:
                    # disproved only because of this path: remember it here, not in the table
                    local_disproof[best] = (cdd, crep)
        finally:
            del path[key]

        work = self.nodes - work0 + 1
        if pn == 0:
            if is_or:
                length = 1 + min(lens[i] for i in range(n) if pns[i] == 0)
            else:
                c = [lens[i] for i in range(n) if not futile_proved[i]]
                length = 1 + max(c) if c else 0
            self.store_proof(key, length, work)
            return 0, INF, length, 0, INF
        if dn == 0:
            if is_or:
                ddepth = 1 + min(ddeps)
                rdep = min(reps)
            else:
                cands = [i for i in range(n) if dns[i] == 0]
                # prefer a disproof that does not rest on the path, then the deepest bound
                i = min(cands, key=lambda j: (reps[j] < INF, -ddeps[j]))
                ddepth = 1 + ddeps[i]
                rdep = reps[i]
            ddepth = min(ddepth, INF)
            if rdep >= depth:
                # the cycle lies inside this node's subtree: the disproof is path-free
                self.store_disproof(key, ddepth, work)
                rdep = INF
            return INF, 0, 0, ddepth, rdep
        self.store_open(key, pn, dn, work)
        return pn, dn, 0, 0, INF

    def _seed(self, pos: Position[Move], key: int, child_is_or: bool) -> None:
        """Initial numbers for a new child (df-pn+ style, one cheap look ahead)."""
        if child_is_or:
            if pos.quick_win() is not None:
                self.tt[key] = [1, 1, 1, -1, 1]
                return
            n = len(pos.attacker_moves())
            if n == 0:
                self.tt[key] = [1, 1, _NO_PROOF, INF, 1]
            else:
                self.tt[key] = [1, n, _NO_PROOF, -1, 1]
        else:
            replies = pos.defender_moves()
            if not replies:
                self.tt[key] = [1, 1, 0, -1, 1]
            else:
                # drops on one square count once, as in the sums: a check that many
                # interpositions answer is no harder to prove than one with a single
                # reply per square
                groups = [pos.group(m) for m in replies]
                singles = groups.count(None)
                n = singles + len(set(groups)) - (1 if singles else 0)
                self.tt[key] = [n, 1, _NO_PROOF, -1, 1]

    @staticmethod
    def _or_numbers(
        pns: list[int], dns: list[int], groups: list[Hashable | None]
    ) -> tuple[int, int]:
        """(min of ``pns``, grouped sum of ``dns``), capped at ``INF``."""
        pn = min(pns)
        total = 0
        seen: dict[Hashable, int] = {}
        for i, d in enumerate(dns):
            g = groups[i]
            if g is None:
                total += d
            else:
                prev = seen.get(g)
                if prev is None:
                    seen[g] = d
                elif d > prev:
                    seen[g] = d
        total += sum(seen.values())
        if total >= INF:
            # INF means "disproved" (or proved, on the other side): a large sum of open
            # numbers saturates just below it, or the search would stop as if solved
            total = INF if max(dns) >= INF else INF - 1
        return pn, total

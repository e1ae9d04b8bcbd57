"""The generic alpha-beta driver: limits, cancellation, iterative deepening, the table."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from banmen.games.mattix import KERNELS, Board, kernel_position
from banmen.games.registry import get_game
from banmen.search.alphabeta import AlphaBeta, SearchInfo
from banmen.search.limits import STOP_REQUESTED, STOP_TIME, Deadline, Limit, StopFlag

# An 8x8 layout: far too big to solve, so only limits end the search.
BIG = Board.from_layout(
    "/".join(
        ",".join("X" if (r, c) == (3, 4) else str((r * 8 + c) * 37 % 23 - 9) for c in range(8))
        for r in range(8)
    )
)


@pytest.fixture(scope="module")
def search() -> AlphaBeta:
    s = AlphaBeta(KERNELS, tt_bits=16)
    s.solve_horizon = get_game("mattix").solve_horizon
    s.search(*kernel_position(Board.from_seed(0, 4)), Limit(depth=2))  # load the compiled code
    return s


def test_limit_validation() -> None:
    assert Limit().unbounded and not Limit(depth=3).unbounded
    for bad in (dict(time=0), dict(time=-1.0), dict(time=float("nan")), dict(depth=0),
                dict(nodes=0), dict(depth=2.5)):  # fmt: skip
        with pytest.raises(ValueError):
            Limit(**bad)  # type: ignore[arg-type]
    assert Limit.from_dict(Limit(time=0.5, depth=3).to_dict()) == Limit(time=0.5, depth=3)


def test_time_limit_stops_the_search_at_the_deadline(search: AlphaBeta) -> None:
    infos: list[SearchInfo] = []
    t0 = time.perf_counter()
    r = search.search(*kernel_position(BIG), Limit(time=0.3), on_info=infos.append)
    elapsed = time.perf_counter() - t0
    # The deadline, not anything else, ended it: never before the time is up. How soon after
    # is measured on a loaded machine by `banmen bench time-limits`, not asserted here.
    assert r.stopped_by == "time" and not r.exact and elapsed >= 0.3
    # Iterative deepening keeps the last *completed* iteration.
    assert infos and r.depth == infos[-1].depth and r.move == infos[-1].pv[0]
    assert [i.depth for i in infos] == list(range(1, len(infos) + 1))
    assert r.pv == infos[-1].pv and r.score == infos[-1].score


def test_deadline_sets_the_flag_and_is_cancelled_on_exit() -> None:
    flag = StopFlag()
    with Deadline(flag, 0.05) as d:
        assert d._thread is not None
        d._thread.join(60)
    assert flag.reason == STOP_TIME
    flag = StopFlag()
    with Deadline(flag, 3600) as d:
        pass
    assert d._thread is not None
    d._thread.join(60)  # cancelled: it ends without setting the flag
    assert not d._thread.is_alive() and not flag.is_set()
    with Deadline(flag, None) as d:
        assert d._thread is None
    flag = StopFlag()
    with Deadline(flag, 0.01, reason=STOP_REQUESTED) as d:  # a protocol's cap: a request
        assert d._thread is not None
        d._thread.join(60)
    assert flag.reason == STOP_REQUESTED


@pytest.mark.parametrize("seconds", [1e20, 2.0**63, float("inf")])
def test_deadline_of_any_length_keeps_time(seconds: float) -> None:
    """threading.Timer dies with OverflowError past TIMEOUT_MAX, and a search it was meant
    to stop would run forever; the deadline's thread must stay alive and cancellable."""
    flag = StopFlag()
    with Deadline(flag, seconds) as d:
        assert d._thread is not None
        d._thread.join(0.2)
        assert d._thread.is_alive() and not flag.is_set()
    d._thread.join(60)
    assert not d._thread.is_alive() and not flag.is_set()


def test_a_failing_deadline_timer_stops_the_search() -> None:
    class BrokenEvent(threading.Event):
        def wait(self, timeout: float | None = None) -> bool:
            raise OverflowError("timeout value is too large")

    flag = StopFlag()
    d = Deadline(flag, 5.0)
    d._cancel = BrokenEvent()
    with d:
        assert d._thread is not None
        d._thread.join(60)
    assert flag.reason == STOP_TIME  # stopped early rather than never


def test_node_limit(search: AlphaBeta) -> None:
    r = search.search(*kernel_position(BIG), Limit(nodes=20_000))
    assert r.stopped_by == "nodes" and r.move is not None
    assert 20_000 <= r.nodes < 20_000 + 1024 + 100


def test_stop_flag_from_another_thread(search: AlphaBeta) -> None:
    flag = StopFlag()
    threading.Timer(0.1, flag.set).start()
    t0 = time.perf_counter()
    r = search.search(*kernel_position(BIG), Limit(time=30), stop=flag)
    assert time.perf_counter() - t0 < 60  # a hang guard: the stop came at 0.1 s
    assert r.stopped_by == "stop" and r.move is not None
    assert flag.reason == STOP_REQUESTED  # a caller's stop request is not cleared


def test_a_stop_before_the_start_still_yields_a_move(search: AlphaBeta) -> None:
    flag = StopFlag()
    flag.set()
    r = search.search(*kernel_position(BIG), stop=flag)
    assert r.move is not None and r.depth == 1 and r.stopped_by == "stop"


def test_deadline_mark_is_cleared_after_the_search(search: AlphaBeta) -> None:
    flag = StopFlag()
    search.search(*kernel_position(BIG), Limit(time=0.05), stop=flag)
    assert not flag.is_set()  # the flag can be reused for the next search
    with Deadline(flag, 0.01) as d:
        assert d._thread is not None
        d._thread.join(60)
    assert flag.reason == STOP_TIME


def test_depth_limit_and_game_over(search: AlphaBeta) -> None:
    r = search.search(*kernel_position(BIG), Limit(depth=4))
    assert r.depth == 4 and r.stopped_by == "depth" and len(r.pv) == 4
    over = Board.from_layout("X,./5,2")
    r = search.search(*kernel_position(over))
    assert r.move is None and r.exact and r.stopped_by == "game_over" and r.score == 0


def test_table_is_salted_per_deal() -> None:
    # Two deals with the same piece positions but different values must not share entries.
    a = Board.from_layout("1,X,9/8,2,3/4,5,6")
    b = Board.from_layout("9,X,1/8,2,3/4,5,6")
    s = AlphaBeta(KERNELS, tt_bits=8)
    va = s.search(*kernel_position(a)).score
    vb = s.search(*kernel_position(b)).score
    fresh = AlphaBeta(KERNELS, tt_bits=8)
    assert vb == fresh.search(*kernel_position(b)).score
    assert va != vb


def test_tiny_table_still_exact() -> None:
    # Heavy replacement in a 16-bucket table must cost time, never correctness.
    board = Board.from_seed(5, 4)
    small = AlphaBeta(KERNELS, tt_bits=4)
    big = AlphaBeta(KERNELS, tt_bits=16)
    assert small.search(*kernel_position(board)).score == big.search(*kernel_position(board)).score


def test_shared_stop_flag_pickles_only_when_shared() -> None:
    import pickle

    with pytest.raises(TypeError):
        pickle.dumps(StopFlag())
    shared = StopFlag.shared()
    shared.set()
    assert shared.is_set()
    assert isinstance(shared.array, np.ndarray)


_CACHE_CHECK = """
import banmen.search.alphabeta as ab
from banmen.games.registry import get_game, make_engine
from banmen.search.limits import Limit
for name in ("mattix", "othello"):
    g = get_game(name)
    make_engine(g, "alphabeta").think(g.sample(), Limit(depth=3))
fns = [getattr(ab, n) for n in dir(ab) if hasattr(getattr(ab, n), "stats")]
print(sorted(f.__name__ for f in fns if f.stats.cache_misses))
"""


def test_a_fresh_process_loads_the_search_from_numbas_cache() -> None:
    """The shared alpha-beta takes its kernels as arguments, and numba keys its cache by
    their identities: a kernel compiled without a stable identity (``banmen._jit.kernel``)
    makes every process compile the search again and add to the cache without end (the
    default order and ProbCut kernels once did). The second of two fresh processes must
    compile nothing."""
    import subprocess
    import sys

    for _ in range(2):
        out = subprocess.run([sys.executable, "-c", _CACHE_CHECK], capture_output=True,
                             text=True, check=True, timeout=600)  # fmt: skip
    assert out.stdout.strip() == "[]", out.stdout

"""Player specs, the engine interface, and engines in worker processes."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

from banmen.engine import Info, Result, SpecError
from banmen.games.engines import AlphaBetaEngine, RandomEngine
from banmen.games.mattix import Board
from banmen.games.registry import UnknownGameError, get_game, make_engine, parse_spec
from banmen.search.limits import Limit
from banmen.worker import EngineError, EnginePool, EngineWorker


@pytest.mark.parametrize(
    ("spec", "kind", "limit"),
    [
        ("alphabeta:depth=3", "alphabeta", Limit(depth=3)),
        ("cpu:depth=1", "alphabeta", Limit(depth=1)),
        ("alphabeta", "alphabeta", Limit(time=1.0)),
        ("alphabeta:time=0.1", "alphabeta", Limit(time=0.1)),
        ("AlphaBeta:depth=2,time=5", "alphabeta", Limit(time=5.0, depth=2)),
        ("perfect", "perfect", Limit()),
        ("cpu:perfect", "perfect", Limit()),
        ("perfect:time=10", "perfect", Limit(time=10.0)),
        ("random:seed=4", "random", Limit(time=1.0)),
    ],
)
def test_specs(spec: str, kind: str, limit: Limit) -> None:
    s = parse_spec(spec)
    assert s.kind == kind
    if kind != "random":
        assert s.limit == limit


@pytest.mark.parametrize(
    ("spec", "fragment"),
    [
        ("", "empty player spec"),
        ("chess-engine", "unknown player 'chess-engine': expected one of alphabeta"),
        ("alphabeta:depth=x", "depth must be an integer"),
        ("alphabeta:depth=0", "depth must be positive"),
        ("alphabeta:time=-1", "time must be positive"),
        ("alphabeta:speed=3", "alphabeta takes depth=, time=, nodes="),
        ("perfect:depth=3", "perfect takes time=, nodes="),
        ("alphabeta:depth", "bad option 'depth'"),
    ],
)
def test_bad_specs_name_what_is_accepted(spec: str, fragment: str) -> None:
    with pytest.raises(SpecError) as e:
        make_engine("mattix", spec)
    assert fragment in str(e.value) and "\n" not in str(e.value)


def test_unknown_game() -> None:
    with pytest.raises(
        UnknownGameError, match="unknown game 'chess': expected one of .*go, mattix, othello"
    ):
        make_engine("chess", "random")


def test_random_engine_is_seeded_and_legal() -> None:
    board = Board.from_seed(2, 6)
    moves_a, moves_b = [], []
    for moves in (moves_a, moves_b):
        b = board.copy()
        e = RandomEngine(seed=9)
        while not b.is_game_over():
            r = e.think(b)
            assert r.move is not None
            moves.append(r.move)
            b.push_name(r.move)
        assert e.think(b).move is None
    assert moves_a == moves_b


def test_scores_are_final_margins_from_the_movers_view() -> None:
    board = Board.from_seed(4, 4)
    for sq in (board.legal_moves[0],):
        board.push(sq)
    engine = AlphaBetaEngine(get_game("mattix"), Limit())
    r = engine.think(board)
    # Play the PV out: the final margin for the side that was to move equals the score.
    b = board.copy()
    mover = b.turn
    for m in r.pv:
        b.push_name(m)
    assert b.is_game_over() and b.margin(mover) == r.score and r.exact


def test_on_info_reports_every_iteration() -> None:
    infos: list[Info] = []
    engine = make_engine("mattix", "alphabeta:depth=5")
    r = engine.think(Board.from_seed(1, 6), on_info=infos.append)
    assert [i.depth for i in infos] == [1, 2, 3, 4, 5]
    assert infos[-1].pv == r.pv and infos[-1].score == r.score
    assert all(i.nodes > 0 and i.nps >= 0 for i in infos)
    assert Result.from_dict(r.to_dict()) == r


@pytest.fixture(scope="module")
def worker() -> EngineWorker:
    w = EngineWorker()
    assert w.wait_ready(120), "the worker process did not start"
    yield w
    w.close()


def test_worker_thinks_like_the_in_process_engine(worker: EngineWorker) -> None:
    board = Board.from_seed(6, 6)
    infos: list[Info] = []
    r = worker.think("mattix", board.to_dict(), "perfect", on_info=infos.append)
    local = AlphaBetaEngine(get_game("mattix"), Limit()).think(board)
    assert r.exact and r.score == local.score and r.move == local.move
    assert infos and infos[-1].depth == r.depth


def test_worker_stop_returns_best_so_far(worker: EngineWorker) -> None:
    big = "/".join(",".join("X" if (r, c) == (0, 0) else str((r * 8 + c) % 17 - 6)
                            for c in range(8)) for r in range(8))  # fmt: skip
    board = Board.from_layout(big)
    threading.Timer(0.3, worker.stop).start()
    t0 = time.perf_counter()
    r = worker.think("mattix", board.to_dict(), "alphabeta:time=30")
    assert time.perf_counter() - t0 < 60  # a hang guard: the stop came at 0.3 s
    assert r.stopped_by == "stop" and r.move in [board.move_name(s) for s in board.legal_moves]
    # The worker is usable again, and its stop flag was reset for the new job.
    r2 = worker.think("mattix", Board.from_seed(0, 4).to_dict(), "alphabeta:depth=2")
    assert r2.stopped_by == "depth"


def test_worker_reports_bad_requests_and_survives(worker: EngineWorker) -> None:
    with pytest.raises(EngineError, match="no cross chip"):
        worker.think("mattix", {"start": "1,2/3,4"}, "perfect")
    # a spec is read where the job is asked for: a bad one never reaches the worker
    with pytest.raises(SpecError, match="unknown player"):
        worker.think("mattix", Board.from_seed(0, 4).to_dict(), "nonsense")
    with pytest.raises(ValueError, match="unknown game"):
        worker.think("chess", {}, "perfect")
    spec = parse_spec("perfect", "mattix")
    with pytest.raises(EngineError, match="unknown game"):  # (a spec read for another game)
        worker.think("chess", {}, spec)
    assert worker.think("mattix", Board.from_seed(0, 4).to_dict(), "random:seed=1").move


def test_worker_restarts_after_a_crash() -> None:
    with EngineWorker(warm=()) as w:
        assert w.wait_ready(60)
        w.proc.kill()
        w.proc.join()
        # The next job starts a fresh process instead of hanging.
        r = w.think("mattix", Board.from_seed(0, 4).to_dict(), "alphabeta:depth=1")
        assert r.move is not None


def test_pool_runs_jobs_concurrently_and_stops_them() -> None:
    async def main() -> None:
        pool = EnginePool(2)
        await pool.start()
        try:
            boards = [Board.from_seed(s, 4) for s in range(6)]
            jobs = [pool.submit("mattix", b.to_dict(), "perfect") for b in boards]
            results = await asyncio.gather(*(j.future for j in jobs))
            for b, r in zip(boards, results, strict=True):
                assert r.exact
                assert r.score == AlphaBetaEngine(get_game("mattix"), Limit()).think(b).score
            big = "/".join(",".join("X" if (r, c) == (2, 2) else str((r * 8 + c) % 13 - 4)
                                    for c in range(8)) for r in range(8))  # fmt: skip
            infos: list[Info] = []
            job = pool.submit("mattix", Board.from_layout(big).to_dict(), "alphabeta:time=30",
                              on_info=infos.append)  # fmt: skip
            for _ in range(600):  # until the search reports (a hang guard of 60 s)
                if infos:
                    break
                await asyncio.sleep(0.1)
            job.stop()
            r = await asyncio.wait_for(job.future, 60)
            assert r.stopped_by == "stop" and infos
        finally:
            await pool.close()

    asyncio.run(main())


def test_a_worker_whose_parent_is_gone_ends_quietly(capfd: pytest.CaptureFixture[str]) -> None:
    """Issue 32: workers killed with the server wrote BrokenPipeError tracebacks. A worker
    whose pipe's other end is closed drops what it would send and returns at its next read."""
    from multiprocessing import Pipe

    from banmen.search.limits import StopFlag
    from banmen.worker import child

    parent, end = Pipe()
    parent.close()
    child.main(end, StopFlag(), ())  # sends Ready into a closed pipe, then reads: returns
    out, err = capfd.readouterr()
    assert "Traceback" not in err and "BrokenPipeError" not in err, err

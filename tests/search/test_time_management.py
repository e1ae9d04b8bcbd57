"""Engines on a game clock (issue 39): the limit an engine searches under comes from its
clock's budget (one computation, :meth:`banmen.search.limits.Limit.on_clock`, for every
engine), a board's estimate of the moves ahead shares the time, and iterative deepening
does not start an iteration it cannot finish."""

from __future__ import annotations

import pytest

from banmen.clock import Clock, parse_time_control
from banmen.engine import Engine, Request, Result, moves_ahead
from banmen.games.othello import Board
from banmen.search.alphabeta import _next_fits
from banmen.search.limits import Limit


class _Seen(Engine[Board]):
    name = "seen"

    def __init__(self) -> None:
        self.limits: list[Limit] = []

    def choose(self, board: Board, request: Request) -> Result:
        self.limits.append(request.limit)
        return Result(board.move_name(board.legal_moves[0]))


def test_think_turns_the_clock_into_the_moves_time() -> None:
    board = Board()
    clock = Clock.start(parse_time_control("10+0.1"))
    engine = _Seen()
    engine.think(board, Limit().with_clocks(clock, clock))
    b = clock.budget(moves_ahead(board))
    (seen,) = engine.limits
    assert seen.time == pytest.approx(b.maximum) and seen.target == pytest.approx(b.recommended)
    assert moves_ahead(board) == 30  # 60 empty squares, half of them Black's
    engine.think(board, Limit(time=0.3))
    assert engine.limits[-1] == Limit(time=0.3) and engine.limits[-1].target is None


def test_the_games_estimate_the_moves_ahead() -> None:
    from banmen.games.registry import get_game

    for name, lo, hi in (("othello", 25, 32), ("go", 10, 41), ("mattix", 1, 18)):
        game = get_game(name)
        assert game.new_board is not None
        n = moves_ahead(game.new_board(0, None))
        assert n is not None and lo <= n <= hi, (name, n)

    class NoEstimate:
        pass

    assert moves_ahead(NoEstimate()) is None


def test_the_next_iteration_starts_only_if_it_can_finish() -> None:
    lim = Limit(time=4.0, target=1.0)
    assert _next_fits([0.01, 0.04], lim)  # 0.04 + 0.03 * 3 < 1
    assert not _next_fits([0.1, 0.5], lim)  # growth 4: ends at 2.1 > 2 * target
    assert not _next_fits([1.0], lim)  # the target is spent
    assert not _next_fits([0.2, 0.9], Limit(time=1.0, target=1.0))  # past the hard time
    assert _next_fits([0.001], lim)  # one iteration seen: 4 times it


def test_alphabeta_stops_deepening_at_the_target() -> None:
    """A target already spent after the first iteration: the search stops there, said to
    be stopped by time, far inside its hard time."""
    from banmen.games.registry import get_game, make_engine, parse_spec

    game = get_game("mattix")
    engine = make_engine(game, parse_spec("alphabeta", game))
    assert game.new_board is not None
    board = game.new_board(1, None)
    r = engine.think(board, Limit(time=30.0, target=1e-6))
    assert r.depth == 1 and r.stopped_by == "time"
    r = engine.think(board, Limit(depth=3))
    assert r.depth == 3


ENGINES = [("go", "mcts"), ("go", "puct"), ("mattix", "mcts"), ("mattix", "puct"),
           ("othello", "alphabeta"), ("mattix", "alphabeta"), ("mattix", "dfpn")]  # fmt: skip


@pytest.mark.parametrize(("game_name", "spec"), ENGINES)
def test_every_engine_keeps_a_limit_with_only_a_clock(game_name: str, spec: str) -> None:
    """A limit with only a clock is a bound: no engine takes it for "none given" and
    falls back to its own default time."""
    from banmen.games.registry import get_game, make_engine, parse_spec

    game = get_game(game_name)
    engine = make_engine(game, parse_spec(spec, game))
    clock = Clock.start(parse_time_control("100"))
    kept = engine.limit_for(Limit().with_clocks(clock))
    assert kept.clock is not None and kept.time is None
    on = kept.on_clock(20)
    assert on.time == pytest.approx(clock.budget(20).maximum)

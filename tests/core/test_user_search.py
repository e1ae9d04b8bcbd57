"""Your own search over the rules contract (``search:FILE.py:NAME``, issue 37): the example
in examples/search plays Othello, Mattix and Connect Four in the arena, and a search that
misbehaves is a one-line error or a forfeit, never a crash."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from banmen.arena.report import build_report
from banmen.arena.runner import run_arena
from banmen.arena.store import ArenaStore, RunConfig
from banmen.engine import SpecError
from banmen.games.registry import get_game, make_engine, parse_spec, why_not
from banmen.python_player import PlayerError
from tests import paths

EXAMPLE = paths.ROOT / "examples" / "search" / "my_search.py"

BAD = """
import numpy as np
from banmen.jit import njit


@njit(cache=True)
def outside(rules, ctx, state):
    return 999  # never a legal move


def text(rules, ctx, state):
    return "a1"


def raises(rules, ctx, state):
    raise RuntimeError("no idea")


COUNT = [0]


def late(rules, ctx, state):  # fine on the sample position, then wrong
    COUNT[0] += 1
    if COUNT[0] > 1:
        return -5
    buf = np.empty(rules.max_moves, dtype=np.int64)
    rules.gen_moves(ctx, state, buf)
    return int(buf[0])
"""


def _has_connect_four() -> bool:
    return importlib.util.find_spec("banmen_connect_four") is not None


_NO_C4 = pytest.mark.skipif(
    not _has_connect_four(), reason="examples/connect-four is not installed"
)
GAMES = ["othello", "mattix", pytest.param("connect-four", marks=_NO_C4)]


@pytest.mark.parametrize("game", GAMES)
def test_the_example_search_plays_in_the_arena(game: str, tmp_path: Path) -> None:
    store = ArenaStore(tmp_path / "a.db")
    run = store.create_run(RunConfig(game=game, games=4, seed=11, players=[
        {"name": "beam", "spec": f"search:{EXAMPLE}:beam,width=4,depth=3"},
        {"name": "greedy", "spec": f"search:{EXAMPLE}:greedy"},
        {"name": "random", "spec": "random:seed=5"}]))  # fmt: skip
    run_arena(store, run, workers=1)
    games = store.games(run)
    assert len(games) == 12
    assert not [g for g in games if "forfeit" in g.extra], [g.extra for g in games]
    rep = build_report(store, run)
    score = {p["name"]: p["score"] for p in rep["players"]}
    # a search that reads the game's rules and evaluation beats random moves
    assert score["beam"] > score["random"] and score["greedy"] > score["random"], score
    store.close()


def test_the_search_gets_the_rules_and_its_options() -> None:
    spec = parse_spec(f"search:{EXAMPLE}:beam,width=2,depth=1,time=3", "othello")
    assert spec.kind == "search" and spec.user
    assert spec.options["kwargs"] == {"width": 2, "depth": 1} and spec.limit.time == 3
    from banmen.games.othello import Board

    board = Board()
    result = make_engine("othello", spec.text).think(board)
    assert result.move in {board.move_name(m) for m in board.legal_moves}
    # depth 1, width 2 is greedy over the two best-looking moves: the greedy's own choice
    assert result.move == make_engine("othello", f"search:{EXAMPLE}:greedy").think(board).move


@pytest.mark.parametrize(
    ("name", "says"),
    [("outside", "returned move 999, not a legal move here"),
     ("late", "returned move -5, not a legal move here")],
)  # fmt: skip
def test_a_search_that_returns_no_legal_move_loses_with_one_line(
    tmp_path: Path, name: str, says: str
) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text(BAD)
    from banmen.games.mattix import Board

    engine = make_engine("mattix", f"search:{bad}:{name}")
    engine.warm_up()
    with pytest.raises(PlayerError) as e:
        engine.think(Board.from_seed(2, 4))
    text = str(e.value)
    assert says in text and "\n" not in text, text
    engine.close()


def test_a_search_that_cannot_run_is_a_spec_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text(BAD)
    for spec, says in (
        (f"search:{bad}:nobody", "has no function 'nobody'"),
        (f"search:{bad}:COUNT", "not a function"),
        (f"search:{bad}:raises", "failed on Mattix's sample position: RuntimeError: no idea"),
        (f"search:{bad}:text", "returned 'a1': expected a move"),
    ):
        engine = make_engine("mattix", spec)
        with pytest.raises(SpecError) as e:
            engine.warm_up()
        assert says in str(e.value) and "\n" not in str(e.value), (spec, str(e.value))
        engine.close()
    with pytest.raises(SpecError, match="expected search:FILE.py:NAME"):
        parse_spec("search:nothing", "mattix")


def test_a_game_without_rules_kernels_does_not_offer_it() -> None:
    reason = why_not(get_game("shogi"), "search")
    assert reason is not None and "rules kernels" in reason
    with pytest.raises(SpecError):
        make_engine("shogi", f"search:{EXAMPLE}:greedy")

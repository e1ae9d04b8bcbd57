"""The Go player: tactics found by the search, passing, resigning, limits, tree reuse, the
playout policy (eyes, liberties, patterns), the arena and the player specs."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from banmen.arena.play import EngineCache, play_game
from banmen.arena.schedule import Job
from banmen.engine import Info, Result, SpecError
from banmen.games import Outcome, Termination
from banmen.games.engines import AlphaBetaEngine
from banmen.games.go import BLACK, PASS, WHITE, Board, parse_vertex, settle_dead
from banmen.games.go import kernels as K
from banmen.games.go import policy as P
from banmen.games.go import tactics as T
from banmen.games.go.engine import GoEngine
from banmen.games.registry import get_game, make_engine, parse_spec
from banmen.search.limits import Limit, StopFlag


def diagram(
    text: str, turn: int = BLACK, komi: float | None = None, rules: str = "chinese"
) -> Board:
    """A board (Chinese rules unless ``rules``) from rows of ``X`` (black), ``O``
    (white), ``.``, top row first."""
    rows = [line.replace(" ", "") for line in text.strip().splitlines()]
    n = len(rows)
    board = Board(n, rules, komi)
    black, white = [], []
    for i, row in enumerate(rows):
        for c, ch in enumerate(row):
            p = (n - i) * (n + 2) + c + 1
            if ch == "X":
                black.append(p)
            elif ch == "O":
                white.append(p)
    board.setup(black, white, turn=turn)
    return board


@pytest.fixture(scope="module")
def engine() -> GoEngine:
    e = GoEngine(seed=3)
    e.warm_up()
    return e


# --------------------------------------------------------------------------- tactics

ATARI = """
. . . . . . .
. . . . . . .
. . . . . . .
X X X X . . .
O O O O . . .
X X X X . . .
. . . . . . .
"""


@pytest.mark.parametrize("turn", [BLACK, WHITE])
def test_captures_or_saves_the_group_in_atari(engine: GoEngine, turn: int) -> None:
    # black captures four stones on E3; white saves them there. The last move is the
    # one that made the atari (white's D3, black's D4), as in a game: the learned
    # weights value answering it (a capture of four stones nobody just touched is
    # rare in GNU Go's games, whose opponents do not leave big groups in atari)
    engine.new_game()
    board = diagram(ATARI, turn, komi=0.5)
    board.position.meta[K.M_LAST] = parse_vertex("D3" if turn == BLACK else "D4", 7)
    r = engine.think(board, Limit(nodes=1500))
    assert r.move == "E3"
    assert r.nodes == 1500 and r.stopped_by == "nodes" and not r.exact
    assert 0 <= (r.score or 0) <= 100 and r.pv[0] == "E3"


def test_passes_when_the_game_is_over(engine: GoEngine) -> None:
    board = diagram(
        """
        . X X O .
        X . X O O
        X X X O .
        . X X O O
        X X . X O
        """,
        WHITE,
        komi=0.5,
    )
    board.push(PASS)  # white passes; black wins by counting as the board stands
    r = engine.think(board, Limit(nodes=500))
    assert r.move == "pass" and r.stopped_by == "game_over"
    board.push(PASS)
    assert engine.think(board).move is None


DEAD_B4 = """
        . . X O .
        . O X O O
        . . X O .
        . . X O O
        . . X O .
        """  # the white stone on B4 is dead; left on the board, black's area is neutral


def test_does_not_pass_when_passing_loses(engine: GoEngine) -> None:
    # Tromp-Taylor: the board is counted as it stands (no dead-stone removal, KataGo's
    # friendly_pass_ok off), so passing before capturing B4 loses.
    board = diagram(DEAD_B4, WHITE, komi=0.5, rules="tromp-taylor")
    board.push(PASS)
    engine.new_game()
    r = engine.think(board, Limit(nodes=1500))
    assert r.move not in ("pass", "resign")


def test_passes_instead_of_capturing_dead_stones_when_they_are_removed(engine: GoEngine) -> None:
    # Chinese rules: dead stones are removed at the count, so capturing B4 (or filling
    # black's own area) would only waste moves once white has passed.
    board = diagram(DEAD_B4, WHITE, komi=0.5)
    board.push(PASS)
    engine.new_game()
    r = engine.think(board, Limit(nodes=1500))
    assert r.move == "pass" and r.stopped_by == "game_over"


def test_passes_when_only_own_eyes_are_left(engine: GoEngine) -> None:
    board = diagram(
        """
        X X X X X
        X . X . X
        X X X X X
        X . X . X
        X X X X X
        """,
        BLACK,
    )
    assert engine.think(board, Limit(nodes=100)).move == "pass"


def test_resigns_when_hopeless() -> None:
    board = diagram(
        """
        O O O O O
        O . O . O
        O O O O O
        . . . . .
        . . . . .
        """,
        BLACK,
    )
    e = GoEngine(seed=1, resign_visits=500)
    r = e.think(board, Limit(nodes=1000))
    assert r.move == "resign" and (r.score or 0) < 5
    assert GoEngine(seed=1, resign=0.0).think(board, Limit(nodes=1000)).move != "resign"


# --------------------------------------------------------------------------- limits, reuse


def test_time_limit_and_info(engine: GoEngine) -> None:
    infos: list[Info] = []
    t0 = time.perf_counter()
    r = engine.think(Board(9), Limit(time=0.6), on_info=infos.append)
    assert time.perf_counter() - t0 < 60  # a hang guard; `banmen bench time-limits` measures
    assert r.stopped_by == "time" and r.nodes > 0 and r.move not in (None, "pass", "resign")
    assert infos and infos[-1].nodes == r.nodes and infos[-1].pv == r.pv
    assert all(0 <= i.score <= 100 for i in infos)


def test_unsettled_searches_go_past_the_target() -> None:
    """With a clock's target, an open choice (the empty board: many moves alike) goes on
    past the target towards the hard limit; a forced one (saving a big group in atari)
    stops near its target."""
    e = GoEngine(seed=5)
    r = e.think(Board(9), Limit(nodes=300))
    assert e._unsettled()  # most visited move has < 1.5x the second's visits
    e.new_game()
    board = diagram(ATARI, turn=BLACK)
    board.position.meta[K.M_LAST] = parse_vertex("D3", 7)
    e.think(board, Limit(nodes=3000))
    assert not e._unsettled() and e.search.children()[0].move == board.parse_move("E3")
    # the think loop: past the target while unsettled (forced here), else not
    for unsettled in (True, False):
        e.new_game()
        e._unsettled = lambda u=unsettled: u  # type: ignore[method-assign]
        r = e.think(Board(9), Limit(time=0.6, target=0.1))
        assert e.extended is unsettled and r.stopped_by == "time"
        assert r.nodes > 0 and r.move not in (None, "pass", "resign")
    with pytest.raises(ValueError, match="target"):
        Limit(time=1.0, target=2.0)


def test_stop_flag(engine: GoEngine) -> None:
    flag = StopFlag()
    flag.set()
    r = engine.think(Board(9), Limit(time=30), stop=flag)
    assert r.stopped_by == "stop" and r.move is not None and r.seconds < 60


def test_tree_reuse_keeps_visits() -> None:
    e = GoEngine(seed=2)
    board = Board(9)
    r = e.think(board, Limit(nodes=3000))
    assert r.move is not None and len(r.pv) >= 2
    board.push(board.parse_move(r.pv[0]))
    board.push(board.parse_move(r.pv[1]))
    r2 = e.think(board, Limit(nodes=500))
    assert r2.nodes == 500 and e.search.root_visits > 500  # the subtree came along
    # a position the tree never saw starts afresh
    other = Board(9)
    other.push(other.parse_move("A1"))
    e.think(other, Limit(nodes=200))
    assert e.search.root_visits == 200


def test_same_seed_same_game() -> None:
    def moves() -> list[str]:
        e = GoEngine(seed=5)
        board = Board(7)
        out = []
        for _ in range(6):
            r = e.think(board, Limit(nodes=300))
            assert r.move is not None
            out.append(r.move)
            board.push(board.parse_move(r.move))
        return out

    assert moves() == moves()


# --------------------------------------------------------------------------- the policy


def _random_position(seed: int, plies: int, size: int = 9) -> Board:
    rng = np.random.default_rng(seed)
    board = Board(size)
    for _ in range(plies):
        legal = [m for m in board.legal_moves if m != PASS]
        if not legal or board.is_game_over():
            break
        board.push(int(rng.choice(legal)))
    return board


@settings(max_examples=25)
@given(st.integers(0, 10_000), st.integers(0, 60))
def test_playout_policy_never_fills_own_eye(seed: int, plies: int) -> None:
    board = _random_position(seed, plies)
    pos = board.position.copy()
    pos.meta[K.M_RNG] = seed
    ctx = P.context(9, 7.5)
    params, pat = ctx[0], ctx[1]
    cand = np.zeros(32, dtype=np.int64)
    s = board.stride
    prev = PASS
    for _ in range(250):
        if pos.meta[K.M_PASSES] >= 2:
            break
        color = int(pos.meta[K.M_TURN])
        p = int(P.policy_move(params, pat, pos.board, pos.grp, pos.meta, prev, cand))
        if p != PASS:
            assert not K.is_eye(pos.board, p, color, s)
            assert K.move_code(pos.board, pos.grp, pos.meta, p, color, False) == K.LEGAL
        prev = int(pos.meta[K.M_LAST])
        K.play(pos.board, pos.grp, pos.meta, p, color)


@settings(max_examples=15)
@given(st.integers(0, 10_000), st.integers(10, 70))
def test_libs_after_matches_a_slow_count(seed: int, plies: int) -> None:
    board = _random_position(seed, plies)
    pos = board.position
    for p in board.legal_moves:
        if p == PASS:
            continue
        trial = board.copy()
        trial.push(p)
        libs = len(trial.group(p)[1])
        got = T.libs_after(pos.board, pos.grp, pos.meta, p, board.turn)
        assert got == min(libs, 2), board.move_name(p)


def test_area_score_matches_the_board_count() -> None:
    for seed in range(20):
        board = _random_position(seed, 200, size=7)
        pos = board.position
        s = board.score()
        assert P.area_score(pos.board, pos.meta) == s.black - (s.white - board.komi)


def test_pattern_table() -> None:
    table = P.pattern_table()
    assert table.shape == (1 << 16,)

    def code(rows: list[str], me: int) -> int:
        val = {"X": me, "O": 3 - me, ".": K.EMPTY, "#": K.BORDER}
        cells = [rows[1 - dr][1 + dc] for dr, dc in P._CELLS]
        return sum(val[ch] << (2 * i) for i, ch in enumerate(cells))

    hane = ["XOX", "...", "..."]
    turned = ["X..", "O..", "X.."]  # a quarter turn
    for me in (BLACK, WHITE):
        bit = 1 << (me - 1)
        assert table[code(hane, me)] & bit and table[code(turned, me)] & bit
        assert not table[code(hane, 3 - me)] & bit  # the colours matter
        assert not table[code(["...", "...", "..."], me)]
    with pytest.raises(ValueError, match="centre"):
        P.pattern_table({"bad": ("...", ".X.", "...")})


def test_context_rejects_bad_parameters() -> None:
    with pytest.raises(ValueError, match="unknown Go search parameter"):
        GoEngine(nonsense=3)
    with pytest.raises(ValueError, match="half points"):
        P.context(9, 7.25)


# --------------------------------------------------------------------------- specs, arena


def test_specs() -> None:
    assert parse_spec("mcts:time=2").options == {"time": 2.0}
    assert parse_spec("mcts:playouts=2000,seed=1").options == {"playouts": 2000, "seed": 1}
    e = make_engine("go", "mcts:playouts=2000,seed=1")
    assert isinstance(e, GoEngine) and e.limit == Limit(nodes=2000) and e.seed == 1
    assert isinstance(e, GoEngine) and e.name == "mcts:playouts=2000,seed=1"
    e = make_engine("go", "mcts")
    assert isinstance(e, GoEngine) and e.limit == Limit(time=1.0)
    for other in ("alphabeta:depth=3", "perfect", "cpu"):  # over Go's rules contract
        assert isinstance(make_engine("go", other), AlphaBetaEngine)
    with pytest.raises(SpecError, match="mcts") as info:
        make_engine("go", "mate")
    assert "\n" not in str(info.value)
    with pytest.raises(SpecError, match="mcts") as info:  # no rules kernels: no tree search
        make_engine("shogi", "mcts")
    assert "\n" not in str(info.value)
    with pytest.raises(SpecError, match="mcts takes"):
        parse_spec("mcts:depth=3")


def test_game_definition() -> None:
    game = get_game("go")
    assert game.new_board is not None
    record = game.new_board(7, None)  # a game record (Game)
    board = record.board
    assert board.size == 9 and board.komi == 7.5 and board.rules.name == "chinese"
    assert game.new_board(0, 13).board.size == 13
    assert game.scores(record) == (0, 7)
    assert game.max_plies >= 3 * 9 * 9 and game.default_engine == "mcts"
    assert game.board_from_dict(record.to_dict()) == record


def test_results_from_the_first_movers_side() -> None:
    """The arena's result is the outcome's, black (side 1) first: no "B+" is read."""
    game = get_game("go")
    record = game.start_position(9)
    assert game.outcome_of(record) is None
    record.push_name("E5")
    record.push(record.parse_move("resign"))  # white resigns
    outcome = game.outcome_of(record)
    assert outcome == Outcome(Termination.RESIGNATION, BLACK) and outcome.result() == "1-0"
    assert record.result() == "B+R"  # (for SGF and people)
    record.reopen()
    record.push_name("pass")
    record.push_name("pass")  # counted: black's stone owns the board, komi 7.5
    outcome = game.outcome_of(record)
    assert outcome is not None and outcome.termination is Termination.RULES
    assert outcome.winner == BLACK and outcome.scores == (81.0, 7.5) and outcome.margin == 73.5
    assert outcome.result() == "1-0" and record.result() == "B+73.5"


def test_mcts_beats_random_in_the_arena() -> None:
    specs = {"a": "mcts:playouts=200,seed=1", "b": "random"}
    cache = EngineCache()
    for swapped in (False, True):
        first, second = ("b", "a") if swapped else ("a", "b")
        rec = play_game("go", 9, Job(0, 0, swapped, first, second, 11), specs, cache)
        assert rec.result == ("0-1" if swapped else "1-0"), rec.moves
        assert rec.moves[-1] in ("pass", "resign")


class _Resigner:
    name = "resigner"

    def new_game(self) -> None:
        pass

    def reseed(self, seed: int) -> None:
        pass

    def think(self, board: Any, *args: Any, **kwargs: Any) -> Result:
        return Result("resign")


def test_a_resignation_ends_an_arena_game() -> None:
    cache = EngineCache()
    specs = {"a": "mcts:playouts=50", "b": "random:seed=1"}
    cache._engines[("go", specs["a"])] = _Resigner()
    rec = play_game("go", 9, Job(0, 0, False, "a", "b", 1), specs, cache)
    assert rec.result == "0-1" and rec.moves == ["resign"]


def test_engine_cache_builds_go_engines() -> None:
    game = get_game("go")
    e = EngineCache().get(game, "mcts:playouts=10")
    assert isinstance(e, GoEngine)
    assert parse_vertex("E5", 9) in Board(9).legal_moves


def test_a_depth_limit_means_the_default() -> None:
    e = GoEngine(Limit(nodes=100), seed=1)
    assert e.think(Board(7), Limit(depth=3)).nodes == 100
    assert GoEngine(Limit(depth=3)).limit == Limit(time=1.0)


def test_mcts_spec_limits() -> None:

    assert parse_spec("mcts:playouts=500").limit == Limit(nodes=500)
    assert parse_spec("mcts:time=2").limit == Limit(time=2.0)
    assert parse_spec("mcts").limit == Limit(time=1.0)


def test_arena_report_writes_each_go_game_as_sgf(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from banmen.cli import app
    from banmen.games.go.formats import read_sgf

    runner = CliRunner()
    db = tmp_path / "go.db"
    # deal seed 7: one game ends in two passes, the other's cleanup at its ply cap
    args = ["arena", "go", "--size", "5", "-p", "a=random:seed=1", "-p", "b=random:seed=2",
            "--games", "2", "--workers", "1", "--name", "g", "--db", str(db), "--json",
            "--seed", "7"]  # fmt: skip
    res = runner.invoke(app, args)
    assert res.exit_code == 0, res.output
    out = tmp_path / "rep"
    res = runner.invoke(app, ["arena", "report", "g", "--db", str(db), "--out", str(out),
                              "--no-plots"])  # fmt: skip
    assert res.exit_code == 0, res.output
    files = sorted((out / "games").glob("*.sgf"))
    assert len(files) == 2
    from banmen.arena.store import ArenaStore

    games = ArenaStore(db).games("g")
    ends: list[str] = []
    for path, g in zip(files, sorted(games, key=lambda g: (g.pairing, g.pair, g.swapped)),
                       strict=True):  # fmt: skip
        rec = read_sgf(path.read_text())
        played = [rec.board.move_name(m) for m in rec.board.move_stack]
        assert [m.upper() for m in played] == [m.upper() for m in g.moves if m != "resign"]
        assert rec.properties["PB"][0].startswith(f"{g.first} (random")
        # The result is the arena's count: the game re-counted with its recorded dead stones.
        game = rec.game
        if g.extra:  # random players cannot say which stones are dead: a cleanup
            assert g.extra["settled"] == "cleanup"
            # the cleanup ends in two passes (counted), a resignation, or at its ply cap,
            # where the replay of the record starts the count (go.settle's docstring)
            capped = g.extra["cleanup_end"] == "ply cap"
            assert game.counting or game.resigned is not None or capped, g.extra["cleanup_end"]
            settle_dead(game, (None, None), g.extra)
            assert game.counting or game.resigned is not None
            ends.append(g.extra["cleanup_end"])
        assert rec.properties["SZ"] == ["5"] and rec.properties["RE"] == [game.result()]
    assert sorted(ends) == ["ply cap", "two passes"], ends


def test_handicap_games_search_with_a_dynamic_komi() -> None:
    board = Board(9, "chinese", 0.5)
    board.fixed_handicap(3)  # white to move, three stones behind
    engine = GoEngine(Limit(nodes=300), seed=1)
    # komi 0.5, Chinese rules' bonus of a point a stone, and 7 points a stone at the start
    assert engine.search_komi(board) == 0.5 + 3 + 21
    params = engine._context(board)[0]
    assert params[P.P_KOMI2] == 2 * 24.5  # the search counts with it
    r = engine.think(board)
    assert r.extra == {"search_komi": 24.5}  # and says its win rate is counted so
    plain = GoEngine(Limit(nodes=300), seed=1, dynamic_komi=False)
    assert plain.search_komi(board) == 3.5 and plain.think(board).extra == {}
    even = Board(9)
    assert engine.search_komi(even) == 7.5 and engine.think(even).extra == {}


# --------------------------------------------------------------------------- the one MCTS

#: Go's search before the loop served every game (main at bf34236, issue 37): per
#: configuration (size, seed, playouts) the first four moves of a self-played game, each
#: with the root's visits (reused ones included), the tree's nodes and the most visited
#: move's (vertex index, visits, AMAF visits). The same loop must find them again.
#: Re-recorded when the playouts' nakade step (off, but drawing a random number after
#: every capture of three or more stones) was removed: with that one draw put back, the
#: search found bf34236's table again, move for move (checked 2026-11-30).
MAINS_SEARCHES = {
    (9, 1, 500): [("G5", 500, 11170, (62, 315, 390)), ("C6", 815, 18211, (69, 319, 540)),
                  ("D3", 819, 18798, (37, 327, 561)), ("C4", 827, 18546, (47, 430, 604))],
    (13, 3, 1500): [("D10", 1500, 42876, (154, 544, 932)), ("C4", 2044, 60547, (63, 1202, 1641)),
                    ("E3", 2702, 80458, (50, 1563, 2088)), ("E4", 3063, 90101, (65, 2038, 2406))],
    (19, 5, 600): [("R4", 600, 23747, (101, 224, 426)), ("O3", 824, 34443, (77, 172, 475)),
                   ("Q16", 772, 31467, (352, 172, 462)), ("R14", 772, 34914, (311, 368, 536))],
}  # fmt: skip


@pytest.mark.parametrize("config", sorted(MAINS_SEARCHES))
def test_the_search_is_mains_move_for_move(config: tuple[int, int, int]) -> None:
    """UCT-RAVE with Go's kernels (13x13 and 19x19: progressive widening with the pass
    kept first) finds the very moves, visits and AMAF counts it found before the loop
    learned PUCT and the generic adapter."""
    size, seed, playouts = config
    e = GoEngine(seed=seed, capacity=1 << 18)
    board = Board(size)
    found = []
    for _ in range(4):
        r = e.think(board, Limit(nodes=playouts))
        assert r.move is not None
        top = e.search.children()[0]
        found.append((r.move, e.search.root_visits, e.search.nodes,
                      (top.move, top.visits, top.amaf_visits)))  # fmt: skip
        board.push(board.parse_move(r.move))
    assert found == MAINS_SEARCHES[config]


def test_puct_plays_go_and_beats_random() -> None:
    """PUCT with Go's kernels: the learned policy's priors, each leaf valued by one
    playout of the policy (``GoEngine(puct=True)``, or a ``puct`` spec's kind), in the
    arena (which settles the dead stones of a passed-out game)."""
    from banmen.engine import PlayerSpec

    spec = PlayerSpec("puct", {"playouts": 200, "seed": 2}, "puct:playouts=200,seed=2")
    engine = GoEngine.from_spec(spec)
    assert engine.puct and engine.search.puct and engine.limit == Limit(nodes=200)
    specs = {"a": "mcts:playouts=200,seed=2", "b": "random"}
    cache = EngineCache()
    cache._engines[("go", specs["a"])] = engine  # (the registry has no puct kind yet)
    for swapped in (False, True):
        first, second = ("b", "a") if swapped else ("a", "b")
        rec = play_game("go", 9, Job(0, 0, swapped, first, second, 11), specs, cache)
        assert rec.result == ("0-1" if swapped else "1-0"), rec.moves
    assert engine.search.children() and engine.search.children()[0].prior > 0


@pytest.mark.parametrize("threads", [1, 2])
def test_warm_up_hands_the_estimate_to_a_helper_before_compiling_the_search(
    monkeypatch: Any, threads: int
) -> None:
    """The dead-stone estimate and the search's loop go to a helper process first
    (banmen.warm.beside, while the search is cold), then the search is ensured, then the
    estimate (loaded, or waited for)."""
    import banmen.games.go.engine as E
    from banmen.games.go.sets import LOOP, SCORING, SEARCH, THREADS

    calls: list[tuple[str, ...]] = []
    monkeypatch.setattr(E, "beside", lambda *sets, while_: calls.append(
        ("beside", *(s.id for s in sets), while_.id)) or False)  # fmt: skip
    monkeypatch.setattr(E, "ensure", lambda ks: calls.append(("ensure", ks.id)) or False)
    GoEngine(threads=threads).warm_up()
    search = (SEARCH if threads == 1 else THREADS).id
    assert calls == [
        ("beside", SCORING.id, LOOP.id, search),
        ("ensure", search),
        ("ensure", SCORING.id),
    ]


def test_the_search_through_pointers_is_the_linked_search() -> None:
    """Go's kernels are called through function pointers (``MctsKernels.pointers``: the
    loop's compile links none of Go's code); the same search with the loop linking them
    grows the same tree, visit for visit, from a middle-game position."""
    board = Board(9)
    for name in ("E5", "C3", "G7", "C7", "G3", "D5", "E3", "F4"):
        board.push(board.parse_move(name))
    trees = []
    for pointers in (True, False):
        engine = GoEngine(seed=3, capacity=1 << 16)
        assert engine.search.kernels.pointers
        engine.search.kernels = engine.search.kernels._replace(pointers=pointers)
        r = engine.think(board, Limit(nodes=2_000))
        used = engine.search.nodes
        trees.append((r.move, used, engine.search._ist[:used].copy(),
                      engine.search._fs[:used].copy()))  # fmt: skip
    (m1, n1, i1, f1), (m2, n2, i2, f2) = trees
    assert m1 == m2 and n1 == n2 > 100
    assert np.array_equal(i1, i2) and np.array_equal(f1, f2)

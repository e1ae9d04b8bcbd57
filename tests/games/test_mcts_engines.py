"""MCTS and PUCT over every game with alpha-beta kernels (:mod:`banmen.games.mcts_engines`,
through :mod:`banmen.search.mcts_rules`): legal, complete, reproducible games against
random players that they win; forced wins found; tree reuse; the specs' factories; a game
whose kernels declare AMAF."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pytest

from banmen.engine import Engine, PlayerSpec, SpecError
from banmen.games import GameDef
from banmen.games.engines import RandomEngine
from banmen.games.mcts_engines import TreeEngine, mcts_engine, puct_engine
from banmen.games.registry import GAME_NAMES, get_game
from banmen.search.limits import Limit, StopFlag
from banmen.search.mcts_rules import RulesTree

#: (game, board size) pairs: every game with alpha-beta kernels, Mattix at both sizes
GAMES = [("othello", None), ("mattix", 4), ("mattix", 6), ("connect-four", None)]
#: games against a random player, per game and search
MATCH_GAMES = 20
#: simulations a move in those games
SIMULATIONS = 300


def _game(name: str) -> GameDef[Any]:
    if name not in GAME_NAMES:  # the example package, when it is not installed
        pytest.skip(f"{name} is not installed")
    return get_game(name)


def _play(game: GameDef[Any], size: int | None, seed: int, first: Engine[Any],
          second: Engine[Any]) -> tuple[list[str], int | None]:  # fmt: skip
    """A whole game from ``game``'s seeded start: its moves (each checked legal) and the
    winner (``None``: a draw)."""
    board = game.new_board(seed, size) if game.new_board is not None else game.sample()
    for e in (first, second):
        e.new_game()
        e.reseed(seed)
    moves = []
    while not board.is_game_over():
        r = (first if board.turn == 1 else second).think(board)
        assert r.move is not None
        legal = {board.move_name(m) for m in board.legal_moves}
        assert r.move in legal, f"{r.move} is not legal in {legal}"
        moves.append(r.move)
        board.push_name(r.move)
        assert len(moves) <= game.max_plies
    return moves, board.winner()


def _tree(game: GameDef[Any], puct: bool, seed: int = 7, nodes: int = SIMULATIONS) -> TreeEngine:
    return TreeEngine(game, Limit(nodes=nodes), seed=seed, puct=puct)


@pytest.mark.parametrize("puct", [False, True], ids=["mcts", "puct"])
@pytest.mark.parametrize(("name", "size"), GAMES)
def test_wins_clearly_against_random(name: str, size: int | None, puct: bool) -> None:
    """A statistical test that can fail: a reward counted for the wrong player (a broken
    sign, the turn's parity) loses most of these games; every move is checked legal and
    every game played to its end. Perfect play scores 1.0 against this random player; the
    tree searches score 0.9 and more (Mattix 4x4 gives a few draws)."""
    game = _game(name)
    points = 0.0
    for i in range(MATCH_GAMES):
        tree, rand = _tree(game, puct), RandomEngine(3)
        first, second = (tree, rand) if i % 2 == 0 else (rand, tree)
        _, winner = _play(game, size, i, first, second)
        mine = 1 if i % 2 == 0 else 2
        points += 0.5 if winner is None else float(winner == mine)
    assert points >= 0.75 * MATCH_GAMES, f"{points} of {MATCH_GAMES}"


@pytest.mark.parametrize("puct", [False, True], ids=["mcts", "puct"])
@pytest.mark.parametrize(("name", "size"), GAMES)
def test_fixed_seeds_replay_the_same_game(name: str, size: int | None, puct: bool) -> None:
    game = _game(name)
    games = [_play(game, size, 5, _tree(game, puct, 3), _tree(game, puct, 4))[0]
             for _ in range(2)]  # fmt: skip
    assert games[0] == games[1]
    # one engine over two games: new_game and reseed restart its random numbers
    a, b = _tree(game, puct, 3), _tree(game, puct, 4)
    assert _play(game, size, 5, a, b)[0] == _play(game, size, 5, a, b)[0] == games[0]


def test_the_seed_steers_the_playouts() -> None:
    game = _game("othello")
    lines = {tuple(_play(game, None, 5, _tree(game, False, s), _tree(game, False, 4))[0])
             for s in range(3)}  # fmt: skip
    assert len(lines) > 1


#: Connect Four: red wins at once in column 1; red's 6 makes two threats at once (on 6's
#: row and the diagonal; every other move loses, by the exact solve)
C4_WIN_IN_ONE = "121212"
C4_DOUBLE_THREAT = "2535413647776164"
#: Othello, 12 empties, black to move: h1 wins by 2 discs, each of the nine other moves
#: loses by 8 discs or more (exact solves; checked below by the alpha-beta)
OTHELLO_ONLY_WIN = "XXX-XOX--O--OOOOOOOOXOOO-OXXOOXX-O-OO-XX-OOXOOXXXXXXXOX--XXXXXXO X"


@pytest.mark.parametrize("puct", [False, True], ids=["mcts", "puct"])
@pytest.mark.parametrize(("moves", "best"), [(C4_WIN_IN_ONE, "1"), (C4_DOUBLE_THREAT, "6")])
def test_connect_four_forced_wins_are_found(moves: str, best: str, puct: bool) -> None:
    game = _game("connect-four")
    assert game.board_from_text is not None
    board = game.board_from_text(moves)
    r = _tree(game, puct, nodes=3000).think(board)
    assert r.move == best and r.score is not None and r.score >= 90


def test_othello_position_has_one_winning_move() -> None:
    from banmen.games.othello import Board
    from banmen.games.othello.evaluation import ALPHABETA_KERNELS, search_position
    from banmen.search.alphabeta import AlphaBeta

    board = Board.from_string(OTHELLO_ONLY_WIN)
    solver = AlphaBeta(ALPHABETA_KERNELS, tt_bits=16)
    values = {}
    for m in board.legal_moves:
        board.push(m)
        solver.clear()
        values[board.move_name(m)] = -solver.search(*search_position(board), Limit()).score
        board.pop()
    assert len(values) == 10 and values.pop("h1") == 200
    assert max(values.values()) <= -800


@pytest.mark.parametrize("puct", [False, True], ids=["mcts", "puct"])
def test_othello_forced_winning_move_is_found(puct: bool) -> None:
    from banmen.games.othello import Board

    r = _tree(_game("othello"), puct, nodes=3000).think(Board.from_string(OTHELLO_ONLY_WIN))
    assert r.move == "h1"


def test_a_finished_game_has_no_move_and_limits_are_honoured() -> None:
    game = _game("mattix")
    board = game.new_board(2, 4)
    while not board.is_game_over():
        board.push(board.legal_moves[0])
    e = _tree(game, False)
    assert e.think(board).move is None
    board = game.new_board(2, 6)
    r = e.think(board, Limit(nodes=1234))
    assert (
        r.nodes == 1234
        and r.stopped_by == "nodes"
        and not r.exact
        and r.move in {board.move_name(m) for m in board.legal_moves}
    )
    r = e.think(board, Limit(time=0.2))
    assert r.stopped_by == "time" and r.nodes > 0
    # a limit with neither time nor simulations means the engine's own
    assert e.limit_for(Limit(depth=3)) == e.limit
    flag = StopFlag()
    flag.set()
    r = e.think(board, Limit(time=30), stop=flag)
    assert r.stopped_by == "stop" and r.move is not None


def test_the_tree_is_kept_between_moves_of_one_game() -> None:
    game = _game("othello")
    e = _tree(game, False, nodes=2000)
    board = game.sample()
    e.think(board)
    kids = {c.move: c.visits for c in e.search.children()}
    move = max(kids, key=lambda m: kids[m])
    board.push(move)
    e.think(board, Limit(nodes=10))
    assert e.search.root_visits >= kids[move] + 10 > 10
    # a position of another game (its own start): a fresh tree
    e.think(game.sample(), Limit(nodes=10))
    assert e.search.root_visits == 10
    e.new_game()
    assert e.search.root_visits == 0 and e.search.nodes == 1


def test_mattix_counts_the_points_already_banked() -> None:
    """The reward of a finished game counts the points banked before the search started
    (``score_offset``): player 2, 10 points behind, takes 5 and player 1 then 1 — more
    for player 2 from here on, and still a loss."""
    game = _game("mattix")
    assert game.board_from_text is not None
    board = game.board_from_text("10,X/5,1 1")
    board.push(board.legal_moves[0])  # player 1 takes the 10
    assert board.turn == 2 and game.score_offset(board) == -10
    for puct in (False, True):
        r = _tree(game, puct).think(board)
        assert r.move == "a2" and r.score == 0, r  # its only move, and a sure loss


@pytest.mark.parametrize("puct", [False, True], ids=["mcts", "puct"])
def test_amaf_where_the_kernels_declare_it(puct: bool) -> None:
    """A game whose kernels say a move means the same everywhere gathers AMAF statistics
    (Othello's squares, its pass left out): legal, winning games all the same."""
    game = _game("othello")
    assert game.kernels is not None
    amaf = dataclasses.replace(game, kernels=game.kernels._replace(amaf=True))
    tree = _tree(amaf, puct)
    assert tree.search.kernels.amaf and tree.search.kernels.amaf_skip == 64
    points = 0.0
    for i in range(6):
        first, second = (tree, RandomEngine(1)) if i % 2 == 0 else (RandomEngine(1), tree)
        _, winner = _play(game, None, i, first, second)
        points += 0.5 if winner is None else float(winner == 1 + i % 2)
    assert points >= 5
    kids = tree.search.children()
    assert (sum(c.amaf_visits for c in kids) > 0) != puct  # PUCT gathers none


def test_specs_build_the_players() -> None:
    game = _game("mattix")
    e = mcts_engine(game, PlayerSpec("mcts", {"playouts": 100, "seed": 3}, "mcts:playouts=100"))
    assert not e.puct and e.limit == Limit(nodes=100) and e.seed == 3
    assert e.name == "mcts:playouts=100"
    p = puct_engine(game, PlayerSpec("puct", {"time": 0.5, "threads": 2}, "puct:time=0.5"))
    assert p.puct and p.limit == Limit(time=0.5) and p.threads == 2
    board = game.new_board(1, 6)
    assert p.think(board, Limit(nodes=200)).move in {board.move_name(m) for m in board.legal_moves}
    assert mcts_engine(game, PlayerSpec("mcts", {}, "mcts")).limit == Limit(time=1.0)
    with pytest.raises(SpecError, match="no alpha-beta kernels"):
        mcts_engine(get_game("shogi"), PlayerSpec("mcts", {}, "mcts"))  # (a mate solver only)


def test_the_adapter_keeps_each_members_type() -> None:
    """Othello's state is two uint64 bitboards and an int64: each member is held in an
    array of its own dtype, and a state made from a board reads back unchanged."""
    from banmen.games.othello.evaluation import ALPHABETA_KERNELS, search_position

    game = _game("othello")
    tree = RulesTree(ALPHABETA_KERNELS)
    _, state = search_position(game.sample())
    comps, meta, _ = tree.state(state, 1, 0)
    assert [c.dtype for c in comps] == [np.uint64, np.uint64, np.int64]
    assert tuple(c[0] for c in comps) == state and meta[0] == 1

"""One contract over every registered game (``banmen.games.registry.GAME_NAMES``).

As OpenSpiel runs ``RandomSimTest`` for every game, each game here plays seeded random
games, and along them: ``push``/``pop`` restore the record exactly, every legal move's
name reads back as that move, the JSON record and each text format round-trip, the
board's legal moves are the compiled rules' (``GameDef.kernel_moves``), and every engine
the game offers answers with a legal move (an engine that answers only what it proves,
``GameDef.proof_engines``, may answer none); the game's hooks: its standard start
(``GameDef.start``, or what stands for it) is a fresh start, every position's outcome
(``GameDef.outcome_of``) follows the board, and a move named like a pass is the pass the
game names (``GameDef.pass_name``). What a game does not have, its
:class:`~banmen.games.GameDef` says (a hook left ``None`` or empty): the test skips that
part with the hook's name, never by the game's name.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

import pytest

from banmen.engine import SpecError
from banmen.games import GameDef, Outcome, Termination
from banmen.games.registry import GAME_NAMES, get_game, make_engine
from banmen.search.limits import Limit

#: random games per game, and their longest stretch in plies (Go's games are long)
GAMES_PER_GAME = 2
MAX_PLIES = 60
#: engines that are external programs: tests/test_nboard.py and tests/test_gtp.py
EXTERNAL = ("nboard", "gtp")
#: a tiny search: an engine must still answer with a legal move
TINY = Limit(depth=2, nodes=500)


def _start(g: GameDef[Any], seed: int) -> Any:
    return g.new_board(seed, None) if g.new_board is not None else g.sample()  # type: ignore[misc]


def _random_game(g: GameDef[Any], seed: int) -> Iterator[Any]:
    """The positions of a seeded random game (the board itself, moved on after each
    yield), up to its end or :data:`MAX_PLIES`."""
    rng = random.Random(seed)
    board = _start(g, seed)
    for _ in range(MAX_PLIES):
        yield board
        legal = list(board.legal_moves)
        if board.is_game_over() or not legal:
            return
        board.push(rng.choice(legal))
    yield board


def _positions(g: GameDef[Any]) -> Iterator[Any]:
    for seed in range(GAMES_PER_GAME):
        yield from _random_game(g, seed)


@pytest.fixture(params=GAME_NAMES)
def game(request: pytest.FixtureRequest) -> GameDef[Any]:
    return get_game(request.param)


def test_every_game_is_registered_under_its_name() -> None:
    assert list(GAME_NAMES) == sorted(GAME_NAMES)
    for name in GAME_NAMES:
        assert get_game(name).name == name


def test_push_pop_restores_the_record(game: GameDef[Any]) -> None:
    for seed in range(GAMES_PER_GAME):
        rng = random.Random(seed)
        board = _start(game, seed)
        first = board.to_dict()
        records = []
        for _ in range(MAX_PLIES):
            legal = list(board.legal_moves)
            if board.is_game_over() or not legal:
                assert board.result() != "*"
                break
            assert board.result() == "*"
            before = board.to_dict()
            move = rng.choice(legal)
            board.push(move)
            assert board.move_stack[-1] == move
            assert board.pop() == move
            assert board.to_dict() == before
            board.push(move)
            records.append(before)
        for before in reversed(records):
            board.pop()
            assert board.to_dict() == before
        assert board.to_dict() == first and list(board.move_stack) == []


def test_every_legal_move_reads_back_from_its_name(game: GameDef[Any]) -> None:
    for board in _positions(game):
        for move in board.legal_moves:
            name = board.move_name(move)
            assert board.parse_move(name) == move, name
        if board.legal_moves:
            move = board.legal_moves[-1]
            board.push(move)
            pushed = board.to_dict()
            board.pop()
            board.push_name(board.move_name(move))
            assert board.to_dict() == pushed
            board.pop()


def test_json_records_round_trip(game: GameDef[Any]) -> None:
    for board in _positions(game):
        record = board.to_dict()
        again = game.board_from_dict(json.loads(json.dumps(record)))
        assert again.to_dict() == record
        assert list(again.move_stack) == list(board.move_stack)


def test_text_formats_round_trip(game: GameDef[Any]) -> None:
    if not game.text_formats:
        pytest.skip(f"{game.name}: GameDef.text_formats is empty")
    for board in _positions(game):
        for name, fmt in game.text_formats.items():
            text = fmt.write(board)
            again = fmt.read(text)
            assert fmt.write(again) == text, (name, text)
            if fmt.game:
                assert again.to_dict() == board.to_dict(), (name, text)


def test_the_ugi_position_round_trips_and_plays_on(game: GameDef[Any]) -> None:
    """What ``ugi:`` players are sent (``position fen START moves ...``): the position read
    back is the same position, and the start position read back with the game's moves
    played on it is the position again (a position alone keeps no history: Go's superko
    needs the moves)."""
    assert game.ugi is not None, f"{game.name} names no UGI position (GameDef.ugi)"
    for board in _positions(game):
        text = game.ugi.write(board)
        assert game.ugi.write(game.ugi.read(text)) == text
        start = board.start_board()
        replay = game.ugi.read(game.ugi.write(start))
        for m in board.move_stack:
            replay.push_name(start.move_name(m))
            start.push(m)
        assert game.ugi.write(replay) == text


def test_legal_moves_are_the_compiled_rules_moves(game: GameDef[Any]) -> None:
    if game.kernel_moves is None:
        pytest.skip(f"{game.name}: GameDef.kernel_moves is None (no compiled rules)")
    for board in _positions(game):
        assert sorted(game.kernel_moves(board)) == sorted(board.legal_moves), board.to_dict()


def test_every_engine_answers_with_a_legal_move(game: GameDef[Any]) -> None:
    kinds = [k for k in game.engines if k not in EXTERNAL]
    assert kinds, f"{game.name} offers no engine of its own"
    from banmen.games.registry import search_kinds

    assert set(kinds) <= set(search_kinds()), "a kind no search declares (banmen.searches)"
    positions = [b.to_dict() for b in _random_game(game, 7)]
    picked = positions[:: max(1, len(positions) // 3)][:3]
    for kind in kinds:
        engine = make_engine(game, kind)
        for record in picked:
            board = game.board_from_dict(record)
            if board.is_game_over():
                continue
            r = engine.think(board, TINY)
            if r.move is None and kind in game.proof_engines:
                continue  # nothing proved (a mate solver finds no mate): no move to check
            assert r.move is not None, (kind, record)
            assert board.parse_move(r.move) in board.legal_moves, (kind, r.move)


def test_dfpn_plays_its_alpha_beta_kernels(game: GameDef[Any]) -> None:
    """The df-pn player plays every game whose contract offers alpha-beta kernels (the
    generic adapter, banmen.search.dfpn_rules): a legal move from positions along a random
    game, within a few hundred nodes; what it says it proved is what its result says."""
    if game.kernels is None or game.search_position is None:
        pytest.skip(f"{game.name}: GameDef.kernels is None (no alpha-beta kernels)")
    engine = make_engine(game, "dfpn")
    positions = [b.to_dict() for b in _random_game(game, 7)]
    for record in positions[:: max(1, len(positions) // 3)][:3]:
        board = game.board_from_dict(record)
        r = engine.think(board, Limit(nodes=500))
        if board.is_game_over():
            assert r.move is None
            continue
        assert r.move is not None and board.parse_move(r.move) in board.legal_moves
        proved = r.extra["proof"] in ("win", "draw", "loss")
        assert r.exact == proved and (r.score is None) == (not proved)


def test_the_tree_searches_play_its_alpha_beta_kernels(game: GameDef[Any]) -> None:
    """MCTS and PUCT play every game whose contract offers alpha-beta kernels (the
    generic adapter, banmen.search.mcts_rules): a legal move from positions along a
    random game, a few seeded simulations each."""
    if game.kernels is None or game.search_position is None:
        pytest.skip(f"{game.name}: GameDef.kernels is None (no alpha-beta kernels)")
    from banmen.engine import PlayerSpec
    from banmen.games.mcts_engines import mcts_engine, puct_engine

    positions = [b.to_dict() for b in _random_game(game, 7)]
    picked = positions[:: max(1, len(positions) // 3)][:3]
    for build in (mcts_engine, puct_engine):
        engine = build(game, PlayerSpec("tree", {"playouts": 200, "seed": 1}, "tree"))
        for record in picked:
            board = game.board_from_dict(record)
            r = engine.think(board)
            if board.is_game_over():
                assert r.move is None
            else:
                assert r.move is not None and board.parse_move(r.move) in board.legal_moves


def test_the_game_declares_its_kinds_with_help_and_options(game: GameDef[Any]) -> None:
    """Every kind a game offers is declared there, with a help line and the options it
    takes; python: and ugi: are every game's; an option the game's kind does not take is
    one line naming what it takes."""
    from banmen.games import EngineKind
    from banmen.games.registry import kinds, kinds_help

    offered = kinds(game)
    assert {"python", "ugi"} <= set(offered) and game.default_engine in offered
    for name, kind in offered.items():
        assert isinstance(kind, EngineKind), name
        assert kind.help and "\n" not in kind.help
        for option in kind.names():
            assert f"{option}=" in kind.help, f"{game.name}'s {name} does not explain {option}="
    assert kinds_help(game).count("\n") == len(offered) - 1
    own = next(k for k in offered if k not in EXTERNAL and offered[k].options)
    older = {o.name for o in offered[own].legacy}  # (an older spec's options: still read)
    foreign = next(o for o in ("learned", "playouts", "hash", "seed", "depth")
                   if o not in offered[own].names() and o not in older)  # fmt: skip
    value = {"learned": 0}.get(foreign, 1)
    with pytest.raises(SpecError) as e:
        make_engine(game, f"{own}:{foreign}={value}")
    assert f"{own} takes" in str(e.value) and "\n" not in str(e.value)


def test_the_start_position_is_a_fresh_start(game: GameDef[Any]) -> None:
    """``start_position()``: the game's standard start (``GameDef.start``; for a game
    that sets none, ``new_board(0, None)`` or ``sample()``) — no moves on its stack, the
    game not over, the same every time, and a JSON record that reads back."""
    board = game.start_position()
    assert list(board.move_stack) == [] and not board.is_game_over()
    assert list(board.legal_moves) and game.outcome_of(board) is None
    assert game.start_position().to_dict() == board.to_dict()
    assert game.board_from_dict(json.loads(json.dumps(board.to_dict()))).to_dict() == (
        board.to_dict()
    )
    if game.start is not None and game.new_board is not None:
        # the arena's deals are the game's, apart from the start: of the same kind
        dealt = game.new_board(1, None)
        assert type(dealt) is type(board) and list(dealt.move_stack) == []


def test_the_outcome_follows_the_board(game: GameDef[Any]) -> None:
    """``outcome_of(board)``: ``None`` while the game goes on; once it is over, an
    :class:`~banmen.games.Outcome` the game's own rules gave (by the rules, or a
    resignation), whose winner is the board's and whose scores — for a game that counts
    points — are the game's ``scores``; it reads back from its JSON."""
    ended = 0
    for seed in range(GAMES_PER_GAME + 4):
        for board in _random_game(game, seed):
            outcome = game.outcome_of(board)
            if not board.is_game_over():
                assert outcome is None, (outcome, board.to_dict())
                continue
            ended += 1
            assert isinstance(outcome, Outcome), board.to_dict()
            assert outcome.termination in (Termination.RULES, Termination.RESIGNATION)
            assert outcome.winner == board.winner()
            assert outcome.result() in ("1-0", "0-1", "1/2-1/2")
            if game.has_scores and outcome.termination is Termination.RULES:
                assert outcome.scores is not None
                s1, s2 = game.scores(board)
                assert (int(outcome.scores[0]), int(outcome.scores[1])) == (s1, s2)
            assert Outcome.from_dict(json.loads(json.dumps(outcome.to_dict()))) == outcome
    if not ended:
        pytest.skip(f"{game.name}: no random game ended within {MAX_PLIES} plies")


def test_a_pass_is_named_as_the_game_says(game: GameDef[Any]) -> None:
    """A move named ``pass`` is the game's pass (``GameDef.pass_name`` says so: the front
    ends show it as a Pass button and play a forced one through); the pass's name reads
    back as the pass."""
    named = game.pass_name
    assert named is None or (isinstance(named, str) and named.strip() == named and named)
    for board in _positions(game):
        for move in board.legal_moves:
            name = board.move_name(move)
            if name == named:
                assert game.is_pass(board, move) and board.parse_move(named) == move
            else:
                assert not game.is_pass(board, move)
                assert name.lower() != "pass", f"{name!r} is a pass the GameDef does not name"

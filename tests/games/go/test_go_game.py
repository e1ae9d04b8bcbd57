"""The Go game record (banmen.games.go.game): tolerant replay, resignation by name,
counting with dead-stone marks, the outcome, records."""

from __future__ import annotations

import json

import pytest

from banmen.games import Outcome as ContractOutcome
from banmen.games import Termination
from banmen.games.go import (
    BLACK,
    PASS,
    RESIGN,
    WHITE,
    Board,
    Game,
    IllegalMoveError,
    InvalidBoardError,
    Outcome,
    ScoringError,
    board_of,
    is_resignation,
    parse_vertex,
    sgf_result,
)
from banmen.games.go import kernels as K


def game_of(*names: str, size: int = 9, komi: float = 7.5, **kw: bool) -> Game:
    game = Game(Board(size, "chinese", komi), **kw)
    for name in names:
        game.push_name(name)
    return game


def test_outcome_reads_as_sgf_results() -> None:
    assert Outcome is ContractOutcome  # Go's outcome is banmen's: one idea, not two
    assert sgf_result(Outcome(Termination.RESIGNATION, BLACK)) == "B+R"
    assert sgf_result(Outcome(Termination.RULES, WHITE, (40.0, 43.5))) == "W+3.5"
    assert sgf_result(Outcome(Termination.RULES, None, (40.5, 40.5))) == "0"
    assert sgf_result(Outcome(Termination.FORFEIT, WHITE)) == "W+F"
    assert sgf_result(Outcome(Termination.TIME, BLACK)) == "B+T"
    assert sgf_result(Outcome(Termination.PLY_CAP, None)) == "?"
    assert sgf_result(None) == "*"
    game = game_of("E5")
    game.push(game.parse_move("resign"))  # white resigns
    assert game.outcome() == Outcome(Termination.RESIGNATION, BLACK)
    assert game.result() == "B+R" and game.outcome().result() == "1-0"  # type: ignore[union-attr]


def test_resignation_is_read_in_one_place() -> None:
    assert all(is_resignation(t) for t in ("resign", "RESIGN", " Resign\n"))
    assert not any(is_resignation(t) for t in (None, "pass", "resigned", ""))
    game = game_of("E5")
    assert game.parse_move("resign") == RESIGN and game.move_name(RESIGN) == "resign"
    game.push(RESIGN)  # white, to move, resigns; not a move
    assert game.resigned == WHITE and game.result() == "B+R" and game.winner() == BLACK
    assert game.is_game_over() and game.legal_moves == [] and len(game.move_stack) == 1
    with pytest.raises(IllegalMoveError, match="the game is over"):
        game.parse_move("D4")
    with pytest.raises(IllegalMoveError, match="white resigned"):
        game.parse_move("resign")
    with pytest.raises(IllegalMoveError, match="cannot resign"):
        game.resign()
    assert game.reopen() == "resignation" and not game.is_game_over()
    assert game.reopen() is None


def test_a_record_goes_on_after_two_passes_for_a_cleanup() -> None:
    game = game_of("E5", "pass", "pass")
    view = game.going_on()  # what the arena's cleanup asks players about
    assert game.counting and not view.is_game_over() and view.turn == WHITE
    assert view.legal_moves and view.move_stack == game.move_stack
    assert not Game(view.board).is_game_over()  # (a record of it goes on too)
    assert game.counting  # the record itself is still being counted
    view.push(PASS)  # a pass there ends the game again
    assert view.is_game_over()
    with pytest.raises(IllegalMoveError, match="cannot resign"):
        game.resign()
    game.resign(WHITE, tolerant=True)  # a resignation in the cleanup
    assert game.result() == "B+R" and not game.counting
    with pytest.raises(IllegalMoveError, match="cannot resign"):
        game.resign(BLACK, tolerant=True)


def test_tolerant_play_goes_on_where_push_stops() -> None:
    game = game_of("E5", "pass", "pass")
    assert game.counting and game.board.is_game_over()
    with pytest.raises(IllegalMoveError, match="game is over"):
        game.push(game.board.points[0])
    game.play(parse_vertex("D4", 9), WHITE)  # a record goes on after two passes
    game.play(parse_vertex("C3", 9), WHITE)  # and out of turn
    assert not game.counting and game.board.colors[-2:] == [WHITE, WHITE]
    game.resign(BLACK)
    game.play(PASS, BLACK)  # a move after a resignation: the game went on
    assert game.resigned is None
    with pytest.raises(IllegalMoveError) as e:
        game.play(parse_vertex("E5", 9), BLACK)  # the rules still hold
    assert e.value.reason == "occupied"


def test_counting_marks_and_the_recorded_result() -> None:
    # black lives in the lower half, a lone white stone sits inside it
    names = ["A2", "F8", "B2", "G8", "C2", "H8", "D2", "J8", "E2", "B1", "F2", "pass",
             "G2", "pass", "H2", "pass", "J2", "pass", "pass"]  # fmt: skip
    game = game_of(*names, komi=0.5)
    assert game.counting and game.dead == frozenset() and game.result() == game.board.result()
    all_alive = game.count()
    b1 = parse_vertex("B1", 9)
    game.toggle(b1)
    assert game.dead == {b1} and game.count().margin > all_alive.margin
    score = game.count()
    assert game.outcome() == Outcome(Termination.RULES, score.winner, (score.black, score.white))
    with pytest.raises(ScoringError, match="no stone"):
        game.toggle(parse_vertex("E5", 9))
    game.finish()
    with pytest.raises(ScoringError, match="recorded"):
        game.toggle(b1)
    assert game.end_step() == "done" and game.reopen() == "done" and game.counting
    game.toggle(b1)
    assert game.dead == frozenset()
    game.pop()  # a move taken back: playing again
    assert not game.counting and game.result() == "*" and game.outcome() is None


def test_counting_asked_for_and_proposals() -> None:
    game = game_of("E5", "D5", propose_dead=True)
    with pytest.raises(ScoringError, match="not being counted"):
        game.finish()
    game.request_count()
    assert game.counting and game.requested and game.is_game_over()
    with pytest.raises(ScoringError, match="already being counted"):
        game.request_count()
    with pytest.raises(IllegalMoveError, match="being counted"):
        game.push(parse_vertex("A1", 9))
    assert game.reopen() == "counting" and not game.is_game_over()
    plain = game_of("E5", "pass", "pass")
    assert plain.dead == frozenset()
    plain.propose_dead = True  # turning proposals on while counting proposes
    assert plain.dead == plain.propose()


def test_records_round_trip_with_the_end() -> None:
    game = game_of("E5", "E6", "pass", "pass", size=9, propose_dead=True)
    game.toggle(parse_vertex("E6", 9))
    game.finish()
    d = json.loads(json.dumps(game.to_dict()))
    back = Game.from_dict(d)
    assert back == game and back.to_dict() == d and back.done and back.dead == game.dead
    resigned = game_of("E5")
    resigned.resign()
    again = Game.from_dict(resigned.to_dict())
    assert again.resigned == WHITE and again.result() == "B+R" and again == resigned
    with pytest.raises(InvalidBoardError, match="bad colour"):
        Game.from_dict({**resigned.to_dict(), "resigned": "green"})
    with pytest.raises(InvalidBoardError, match="no stone on"):
        Game.from_dict({**d, "counting": {"dead": ["A1"], "done": True}})


def test_the_record_learns_what_each_move_removed() -> None:
    a1 = parse_vertex("A1", 9)
    capture = game_of("A2", "A1", "B1")  # black B1 takes white A1
    assert capture.removed == [[], [], [a1]]
    assert Game(capture.board).removed == capture.removed  # replayed from a board
    suicide = Game(Board(9, "tromp-taylor"))
    for name in ("A1", "A2", "pass", "B2", "pass", "C1", "B1"):  # black B1 takes A1 and B1
        suicide.push_name(name)
    assert suicide.removed[-1] == [a1, a1 + 1] and suicide.board.color_at(a1) == 0
    capture.pop()
    assert len(capture.removed) == 2


def test_engines_see_a_position_for_either_colour() -> None:
    game = game_of("E5", "pass", "pass")
    view = game.position_for(WHITE)
    assert isinstance(view, Board) and view.turn == WHITE and not view.is_game_over()
    assert int(view.position.meta[K.M_PASSES]) == 1 and game.board.is_game_over()
    assert board_of(game) is game.board and board_of(view) is view

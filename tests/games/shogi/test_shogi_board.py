"""The shogi :class:`Board` (python-chess style, over cshogi) and shogi's :data:`GAME`:
moves in and out, the end of a game (mate, sennichite, perpetual check), records, errors."""

from __future__ import annotations

import random

import cshogi
import pytest

from banmen.games.registry import get_game, make_engine
from banmen.games.shogi import (
    BLACK,
    STARTPOS,
    WHITE,
    Board,
    IllegalMoveError,
    InvalidBoardError,
    InvalidMoveError,
    ShogiError,
)

#: mate in 1: the pawn on 9c steps to 9b, guarded by the king
ONE = "k8/9/PK7/9/9/9/9/9/9 b 2r2b4g4s4n4l17p 1"


def test_moves_in_and_out() -> None:
    board = Board()
    assert board.turn == BLACK and board.sfen() == STARTPOS
    assert len(board.legal_moves) == 30
    board.push_name("7g7f")
    assert board.turn == WHITE
    move = board.parse_move("3c3d")
    assert board.move_name(move) == "3c3d"
    board.push(move)
    assert [board.move_name(m) for m in board.move_stack] == ["7g7f", "3c3d"]
    assert board.pop() == move and board.turn == WHITE
    assert board.start_board().sfen() == STARTPOS
    assert board.copy().to_dict() == board.to_dict()


@pytest.mark.parametrize(
    ("text", "error", "says"),
    [
        ("zz", InvalidMoveError, "not a USI move"),
        ("7g7e", IllegalMoveError, "not a legal move here (black/sente to move)"),
        ("P*5e", IllegalMoveError, "not a legal move"),
    ],
)
def test_bad_moves_are_one_line_errors(text: str, error: type[ShogiError], says: str) -> None:
    board = Board()
    with pytest.raises(error) as e:
        board.push_name(text)
    assert says in str(e.value) and "\n" not in str(e.value)
    assert board.move_stack == []
    with pytest.raises(IllegalMoveError, match="not a legal move"):
        board.push(12345)


def test_records_round_trip_and_bad_ones_say_why() -> None:
    board = Board()
    for usi in ("7g7f", "3c3d", "8h2b+", "3a2b", "B*4e"):
        board.push_name(usi)
    again = Board.from_dict(board.to_dict())
    assert again.sfen() == board.sfen() and again.move_stack == board.move_stack
    assert Board.from_json('{"sfen": "startpos", "moves": ["2g2f"]}').turn == WHITE
    with pytest.raises(InvalidBoardError, match="object"):
        Board.from_dict([1, 2])
    with pytest.raises(InvalidBoardError, match=r"move 2 \('2g2f'\)"):
        Board.from_dict({"sfen": STARTPOS, "moves": ["7g7f", "2g2f"]})
    with pytest.raises(InvalidBoardError, match="ranks"):
        Board("9/9/9 b - 1")
    with pytest.raises(InvalidBoardError, match="not valid JSON"):
        Board.from_json("{")


def test_mate_ends_the_game() -> None:
    board = Board(ONE)
    assert not board.is_game_over() and board.result() == "*" and board.winner() is None
    board.push_name("9c9b+")
    assert board.is_check() and board.legal_moves == []
    assert board.is_game_over() and board.result() == "1-0" and board.winner() == BLACK


def test_a_fourth_repetition_is_a_draw() -> None:
    board = Board("4k4/9/9/9/9/9/9/9/4K4 b - 1")
    shuffle = ["5i5h", "5a5b", "5h5i", "5b5a"]
    for ply in range(12):
        assert not board.is_game_over(), ply
        board.push_name(shuffle[ply % 4])
    assert board.is_game_over() and board.result() == "1/2-1/2" and board.winner() is None
    board.pop()
    assert not board.is_game_over()


def test_perpetual_check_loses() -> None:
    # black's rook checks with every move, white's king steps back and forth
    board = Board("4k4/9/9/9/9/9/9/9/3R5 b - 1")
    line = ["6i5i"] + ["5a4a", "5i4i", "4a5a", "4i5i"] * 3
    for usi in line[:-1]:
        board.push_name(usi)
        assert not board.is_game_over(), usi
    board.push_name(line[-1])
    assert board.is_game_over() and board.winner() == WHITE and board.result() == "0-1"


def test_random_games_match_cshogi() -> None:
    rng = random.Random(7)
    for _ in range(3):
        board, theirs = Board(), cshogi.Board()
        for _ in range(120):
            moves = board.legal_moves
            assert sorted(moves) == sorted(int(m) for m in theirs.legal_moves)
            if not moves:
                break
            move = rng.choice(moves)
            board.push(move)
            theirs.push(move)
            assert board.sfen() == theirs.sfen()
        while board.move_stack:
            board.pop()
        assert board.sfen() == STARTPOS


def test_the_game_and_its_players() -> None:
    game = get_game("shogi")
    assert game.default_engine == "mate" and set(game.engines) == {"mate", "random"}
    assert game.new_board is None  # mate problems are not played out in the arena
    board = game.board_from_dict({"sfen": ONE, "moves": []})
    assert make_engine(game, "random:seed=1").think(board).move in {
        board.move_name(m) for m in board.legal_moves
    }
    with pytest.raises(ValueError, match="Shogi offers mate, random, python, ugi"):
        make_engine(game, "alphabeta")
    with pytest.raises(ValueError, match="mate players play Shogi only"):
        make_engine("mattix", "mate")

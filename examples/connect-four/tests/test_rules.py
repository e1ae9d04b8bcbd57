"""The board's rules, and the compiled rules, against the brute-force oracle."""

from __future__ import annotations

from collections.abc import Callable

import oracle
import pytest
from helpers import one_line_value_error, random_game

from banmen_connect_four import (
    Board,
    ConnectFourError,
    IllegalMoveError,
    InvalidMoveError,
    InvalidPositionError,
)
from banmen_connect_four.board import WIN
from banmen_connect_four.formats import parse_moves
from banmen_connect_four.kernels import kernel_moves

GAMES = 80
#: a game of the alpha-beta against itself that fills the board without four in a row
DRAWN_GAME = "314544432441116333166663617555552222277777"
#: games ending in four in a row in each direction (the oracle's (dc, dr)), red winning
FOURS = {
    (0, 1): "1212121",  # up a column
    (1, 0): "1122334",  # along the bottom row
    (1, 1): "12234334544",  # rising to the right
    (1, -1): "76654554344",  # falling to the right (the mirror image)
}


def _check_position(board: Board, p: oracle.Position) -> None:
    assert board.cells() == oracle.cells(p)
    assert board.legal_moves == oracle.legal(p)
    assert board.winner() == oracle.winner(p)
    assert board.is_game_over() == oracle.is_over(p)
    assert board.turn == oracle.to_move(p)
    assert board.empties() == 42 - oracle.count(p)
    assert kernel_moves(board) == oracle.legal(p)
    w = oracle.winner(p)
    expected = "*" if not oracle.is_over(p) else {1: "1-0", 2: "0-1", None: "1/2-1/2"}[w]
    assert board.result() == expected


def test_random_games_follow_the_oracle() -> None:
    ends = {"1-0": 0, "0-1": 0, "1/2-1/2": 0}
    directions: set[tuple[int, int]] = set()
    for seed in range(GAMES):
        for board, p in random_game(seed):
            _check_position(board, p)
        ends[board.result()] += 1
        directions |= oracle.fours_by_direction(p)
    # the random games reached both kinds of win, and fours in every direction
    assert ends["1-0"] and ends["0-1"]
    assert directions == {(0, 1), (1, 0), (1, 1), (1, -1)}


@pytest.mark.parametrize("direction", sorted(FOURS))
def test_four_in_a_row_in_each_direction_ends_the_game(direction: tuple[int, int]) -> None:
    moves = FOURS[direction]
    board = Board()
    p = oracle.EMPTY
    for i, col in enumerate(parse_moves(moves)):
        assert not board.is_game_over(), (moves, i)
        board.push(col)
        p = oracle.play(p, col)
        _check_position(board, p)
    assert oracle.fours_by_direction(p) == {direction}
    assert board.winner() == 1 and board.result() == "1-0" and board.legal_moves == []
    assert board.scores() == (WIN + 42 - len(moves), 0)
    with pytest.raises(IllegalMoveError, match="game is over"):
        board.push(0)


def test_a_full_board_without_four_is_a_draw() -> None:
    board = Board()
    p = oracle.EMPTY
    for col in parse_moves(DRAWN_GAME):
        board.push(col)
        p = oracle.play(p, col)
        _check_position(board, p)
    assert len(DRAWN_GAME) == 42 and oracle.winner(p) is None
    assert board.result() == "1/2-1/2" and board.winner() is None and board.is_game_over()
    assert board.scores() == (0, 0)
    with pytest.raises(IllegalMoveError, match="full"):
        board.push(3)


def test_push_and_pop_restore_the_position() -> None:
    for seed in range(10):
        board = Board()
        records = []
        for b, _ in random_game(seed):
            if b.is_game_over():
                break
            records.append((b.to_dict(), list(b.legal_moves)))
        for record, legal in reversed(records):
            board = Board.from_dict(record)
            for col in legal:
                before = board.to_dict()
                board.push(col)
                assert board.pop() == col
                assert board.to_dict() == before


def test_bad_moves_are_one_line_value_errors() -> None:
    board = Board.from_moves("444444")
    cases: list[tuple[Callable[[], object], type[ConnectFourError], str]] = [
        (lambda: board.push(3), IllegalMoveError, "column 4 is full"),
        (lambda: board.push(7), InvalidMoveError, "off the board"),
        (lambda: board.push(-1), InvalidMoveError, "off the board"),
        (lambda: board.push("4"), InvalidMoveError, "not a column"),  # type: ignore[arg-type]
        (lambda: board.parse_move("4"), IllegalMoveError, "full"),
        (lambda: board.parse_move("8"), InvalidMoveError, "1-7"),
        (lambda: board.parse_move("d"), InvalidMoveError, "1-7"),
        (lambda: board.parse_move(""), InvalidMoveError, "1-7"),
        (lambda: board.move_name(9), InvalidMoveError, "off the board"),
    ]
    for action, error, words in cases:
        with pytest.raises(error) as e:
            action()
        assert words in str(e.value) and one_line_value_error(e.value)
        assert isinstance(e.value, ConnectFourError)
    assert board.to_dict() == Board.from_moves("444444").to_dict()  # nothing changed


@pytest.mark.parametrize(
    ("fen", "words"),
    [
        ("7/7/7/7/3x3/7 o", "above an empty cell"),  # a floating disc
        ("7/7/7/7/7/xx5 o", "red has 2 discs and yellow 0"),
        ("7/7/7/7/7/o6 x", "red has 0 discs and yellow 1"),
        ("7/7/7/7/7/x6 x", "red cannot be to move"),
        ("7/7/7/7/7/7 o", "yellow cannot be to move"),
        ("7/7/x6/x6/xo5/xooo3 x", "red has four in a row but yellow moved last"),
        # red's last disc cannot have made both fours (columns 1 and 7)
        ("7/7/x5x/x5x/xooo2x/xooo1ox o", "cannot all have been made by its last disc"),
    ],
)
def test_positions_no_game_reaches_are_refused(fen: str, words: str) -> None:
    with pytest.raises(InvalidPositionError) as e:
        Board.from_fen(fen)
    assert words in str(e.value) and one_line_value_error(e.value)


def test_a_finished_position_is_read_as_finished() -> None:
    board = Board.from_fen("7/7/x6/x6/xo5/xoo4 o")
    assert board.winner() == 1 and board.is_game_over() and board.legal_moves == []
    assert kernel_moves(board) == []
    assert board.scores() == (WIN + 42 - 7, 0)

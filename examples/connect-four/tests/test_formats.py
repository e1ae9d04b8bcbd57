"""Text and JSON: FEN (the UGI position), move sequences, diagrams, records; bad text."""

from __future__ import annotations

import json

import oracle
import pytest
from helpers import one_line_value_error, random_game

from banmen_connect_four import GAME, Board, ConnectFourError, InvalidPositionError
from banmen_connect_four.formats import parse_fen, write_fen


def _boards() -> list[Board]:
    return [b.copy() for seed in range(25) for b, _ in random_game(seed)]


BOARDS = _boards()


def test_the_fen_round_trips_and_shows_the_cells() -> None:
    assert GAME.ugi is not None
    for board in BOARDS:
        fen = GAME.ugi.write(board)
        again = GAME.ugi.read(fen)
        assert GAME.ugi.write(again) == fen
        assert again == board and again.turn == board.turn
        assert again.winner() == board.winner() and again.legal_moves == board.legal_moves
        rows, side = fen.split()
        assert "".join(rows.split("/")) == "".join(
            oracle.cells(oracle.from_moves(board.move_stack))
        )
        assert side == ("x" if board.turn == 1 else "o")


def test_the_ugi_start_and_moves_give_the_position() -> None:
    assert GAME.ugi is not None
    for board in BOARDS[::7]:
        start = board.start_board()
        replay = GAME.ugi.read(GAME.ugi.write(start))
        for m in board.move_stack:
            replay.push_name(start.move_name(m))
            start.push(m)
        assert GAME.ugi.write(replay) == GAME.ugi.write(board)


def test_every_text_format_round_trips() -> None:
    for board in BOARDS:
        for name, fmt in GAME.text_formats.items():
            text = fmt.write(board)
            again = fmt.read(text)
            assert fmt.write(again) == text, (name, text)
            assert again == board, (name, text)
            if fmt.game:
                assert again.to_dict() == board.to_dict(), (name, text)


def test_board_from_text_reads_moves_fen_and_diagrams() -> None:
    assert GAME.board_from_text is not None
    for board in BOARDS[::5]:
        for text in (board.moves(), board.fen(), str(board), " ".join(board.moves())):
            if not text:
                continue
            assert GAME.board_from_text(text) == board, text
    assert GAME.board_from_text("4453").fen() == "......./......./......./......./...o.../..oxx.. x"
    # digits for runs of empty cells, upper case, as in chess FEN
    assert GAME.board_from_text("7/7/7/7/3O3/2OXX2 X") == Board.from_moves("4453")


def test_json_records_round_trip() -> None:
    for board in BOARDS[::3]:
        record = json.loads(json.dumps(board.to_dict()))
        again = GAME.board_from_dict(record)
        assert again.to_dict() == record and again.move_stack == board.move_stack
        assert Board.from_json(board.to_json()).to_dict() == record
    # a seeded opening: a fresh start that knows the moves that led to it
    opened = GAME.new_board(5, None) if GAME.new_board is not None else Board()
    opened.push_name("4")
    again = Board.from_dict(json.loads(json.dumps(opened.to_dict())))
    assert again.to_dict() == opened.to_dict() and again.move_stack == [3]
    assert again.moves() == opened.moves() == opened.to_dict()["opening"] + "4"
    fen_start = Board.from_fen("7/7/7/7/3o3/2oxx2 x")
    fen_start.push(3)
    again = Board.from_dict(fen_start.to_dict())
    assert again.to_dict() == fen_start.to_dict() and again.move_stack == [3]


def test_a_game_from_a_fen_has_no_move_sequence() -> None:
    board = Board.from_fen("7/7/7/7/3o3/2oxx2 x")
    with pytest.raises(InvalidPositionError, match="FEN"):
        board.moves()


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "4458",  # not a column
        "44a5",
        "4444444",  # column 4 full at the seventh disc
        "1212121" + "2",  # red has won: the game is over
        "7/7/7/7/7/7",  # no side to move
        "7/7/7/7/7/7 x extra",
        "7/7/7/7/7 x",  # five rows
        "7/7/7/7/7/8 x",  # a row of eight
        "7/7/7/7/7/3q3 x",
        "7/7/7/7/7/7 z",
        "x\n.\n",  # a diagram with rows too short
        " 1 2 3 4 5 6 7\n . . . . . . .\n",  # a diagram with one row
    ],
)
def test_bad_text_is_a_one_line_value_error(text: str) -> None:
    assert GAME.board_from_text is not None
    with pytest.raises(ConnectFourError) as e:
        GAME.board_from_text(text)
    assert one_line_value_error(e.value)


@pytest.mark.parametrize(
    "record",
    [
        [],
        "4453",
        {"game": "othello"},
        {"moves": "4453"},
        {"moves": ["4", "4", "9"]},
        {"moves": ["4"] * 7},
        {"start": 3},
        {"start": "7/7/7/7/7/xx5 o"},
        {"opening": 45},
        {"opening": "45", "start": "7/7/7/7/7/3ox2 x"},  # the opening leads elsewhere
    ],
)
def test_bad_records_are_one_line_value_errors(record: object) -> None:
    with pytest.raises(ConnectFourError) as e:
        Board.from_dict(record)
    assert one_line_value_error(e.value)
    with pytest.raises(ConnectFourError):
        Board.from_json("{not json")


def test_a_fen_writes_back_as_read() -> None:
    grid = parse_fen("......./......./......./......./...o.../..oxx.. x")
    assert write_fen(grid.cells, 1) == "......./......./......./......./...o.../..oxx.. x"

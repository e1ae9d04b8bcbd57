"""The generic web board's view of the game (``GameDef.grid``): cells, clicks, the cell
of a move."""

from __future__ import annotations

from helpers import random_game

from banmen_connect_four import GAME, GRID, Board


def test_the_game_names_its_grid() -> None:
    assert GAME.grid is GRID and GAME.web is None
    assert GRID.shape == "square" and GRID.click == "cell"
    assert set(GRID.pieces) == {"x", "o"}
    # red (x) moves first: side 1's pieces are x, side 2's o
    assert GRID.side_pieces == ("x", "o") and Board().turn == 1
    assert Board.from_moves("4").cells().count("x") == 1
    for colour, letter in GRID.pieces.values():
        assert colour.startswith("#") and letter == ""


def test_every_legal_move_has_a_cell_and_lands_where_the_grid_says() -> None:
    for seed in range(20):
        for board, _ in random_game(seed):
            rows, cols = GRID.rows(board), GRID.cols(board)
            assert (rows, cols) == (6, 7)
            cells = GRID.cells(board)
            assert len(cells) == rows * cols and set(cells) <= {"", *GRID.pieces}
            clickable: dict[str, list[int]] = {}
            for cell in range(rows * cols):
                move = GRID.move_at(board, cell)
                if move is not None:
                    clickable.setdefault(move, []).append(cell)
            names = {board.move_name(c) for c in board.legal_moves}
            assert set(clickable) == names
            for col in board.legal_moves:
                name = board.move_name(col)
                # any cell of the column plays it
                assert clickable[name] == [r * cols + col for r in range(rows)]
                landing = GRID.cell_of(board, name)
                assert landing is not None and cells[landing] == ""
                mover = "x" if board.turn == 1 else "o"
                after = board.copy()
                after.push(col)
                now = GRID.cells(after)
                changed = [i for i in range(rows * cols) if cells[i] != now[i]]
                assert changed == [landing] and now[landing] == mover


def test_a_full_column_and_bad_input_give_no_move() -> None:
    board = Board.from_moves("444444")
    assert all(GRID.move_at(board, r * 7 + 3) is None for r in range(6))
    assert GRID.cell_of(board, "4") is None
    for cell in (-1, 42, 100):
        assert GRID.move_at(board, cell) is None
    for name in ("8", "", "x", "44"):
        assert GRID.cell_of(board, name) is None
    assert GRID.cell_of(board, "1") == 35  # the bottom-left cell

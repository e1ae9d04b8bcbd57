"""Othello / Reversi: bitboard rules (compiled), notation, formats, AI and solver."""

from banmen.engine import Engine, PlayerSpec
from banmen.games._base import GameDef
from banmen.games.engines import STANDARD_ENGINES
from banmen.games.othello.board import (
    BLACK,
    PASS,
    WHITE,
    Board,
    IllegalMoveError,
    InvalidBoardError,
    InvalidMoveError,
    OthelloError,
    parse_square,
    square_name,
)


def _new_board(seed: int, size: int | None) -> Board:
    """The standard start and then ``OPENING_PLIES`` random moves chosen by ``seed`` (the
    arena's seeded openings; both games of a pair start from the same one)."""
    from banmen.games.mattix import SplitMix64

    if size not in (None, 8):
        raise InvalidBoardError(f"Othello is played on 8x8 only, got size {size}")
    rng = SplitMix64(seed)
    b = Board()
    for _ in range(OPENING_PLIES):
        legal = b.legal_moves
        if not legal:
            break
        b.push(legal[rng.below(len(legal))])
    return Board(b.black, b.white, b.turn)  # a fresh start: the opening is the deal


def _alphabeta(game: GameDef[Board], spec: PlayerSpec) -> Engine[Board]:
    from banmen.games.othello.engine import OthelloEngine

    return OthelloEngine(spec.limit, perfect=spec.kind == "perfect", name=spec.text)


def _nboard(game: GameDef[Board], spec: PlayerSpec) -> Engine[Board]:
    from banmen.protocols.nboard_client import NBoardEngine

    return NBoardEngine(spec.options["command"], depth=spec.options["depth"], name=spec.text)


OPENING_PLIES = 6

GAME: GameDef[Board] = GameDef(
    name="othello",
    title="Othello",
    board_from_dict=Board.from_dict,
    sample=Board,
    new_board=_new_board,
    scores=lambda board: board.discs(),
    max_plies=130,
    engines={
        "alphabeta": _alphabeta,
        "perfect": _alphabeta,
        "random": STANDARD_ENGINES["random"],
        "nboard": _nboard,
    },
)

__all__ = [
    "GAME",
    "Board",
    "OthelloError",
    "InvalidBoardError",
    "InvalidMoveError",
    "IllegalMoveError",
    "BLACK",
    "WHITE",
    "PASS",
    "square_name",
    "parse_square",
]

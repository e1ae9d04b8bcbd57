"""Othello / Reversi: rules over compiled bitboards, notation, formats, player and solvers.

``board`` (the rules; its legal moves come from the compiled ``kernels``), ``formats``
(squares, board strings, transcripts, GGF), ``errors``; the player: ``engine`` (midgame
alpha-beta over ``evaluation``'s kernels, then the exact ``endgame`` solver), ``wld``
(win/loss/draw proofs by df-pn)::

    >>> board = Board.from_transcript("f5d6")
    >>> board.discs(), board.turn == BLACK
    ((3, 3), True)
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, Any

from banmen._random import SplitMix64
from banmen.clients.nboard import NBoardEngine
from banmen.engine import Engine, Part, PlayerSpec
from banmen.games._base import EngineKind, GameDef, TextFormat
from banmen.games.engines import STANDARD_ENGINES
from banmen.games.othello.board import Board
from banmen.games.othello.engine import OthelloEngine
from banmen.games.othello.errors import (
    IllegalMoveError,
    InvalidBoardError,
    InvalidMoveError,
    OthelloError,
)
from banmen.games.othello.evaluation import ALPHABETA_KERNELS, kernel_moves, search_position
from banmen.games.othello.formats import BLACK, PASS, WHITE, parse_square, square_name
from banmen.games.othello.sets import KERNEL_SETS
from banmen.games.othello.solve import SOLVER
from banmen.kinds import FLAG, Evaluator, Option

if TYPE_CHECKING:
    from banmen.analysis import Analysis, OnUpdate
    from banmen.search.limits import Limit, StopFlag

__all__ = [
    "GAME",
    "Board",
    "OthelloEngine",
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

#: random plies of a seeded opening (see ``new_board``)
OPENING_PLIES = 6


def _start(size: int | None) -> Board:
    """The standard start: four discs in the centre, black to move."""
    if size not in (None, 8):
        raise InvalidBoardError(f"Othello is played on 8x8 only, got size {size}")
    return Board()


def _new_board(seed: int, size: int | None) -> Board:
    """The standard start and then ``OPENING_PLIES`` random moves chosen by ``seed`` (the
    arena's seeded openings; both games of a pair start from the same one)."""
    if size not in (None, 8):
        raise InvalidBoardError(f"Othello is played on 8x8 only, got size {size}")
    rng = SplitMix64(seed)
    b = Board()
    for _ in range(OPENING_PLIES):
        legal = b.legal_moves
        if not legal:
            break
        b.push(legal[rng.below(len(legal))])
    return Board(*b.position())  # a fresh start: the opening is the deal


def _alphabeta(
    game: GameDef[Board], spec: PlayerSpec, evaluator: Evaluator | None = None
) -> Engine[Board]:
    o = spec.options
    return OthelloEngine(spec.limit, perfect=spec.kind == "perfect", name=spec.text,
                         evaluator=evaluator, probcut=bool(o.get("probcut", True)))  # fmt: skip


def _migrate(options: dict[str, Any]) -> tuple[dict[str, Any], Part | None]:
    """An older spec's ``learned=0|1``: the evaluator it meant (``handset`` or the
    learned ``patterns``)."""
    rest = dict(options)
    old = rest.pop("learned", None)
    if old is None:
        return rest, None
    return rest, Part("patterns" if old else "handset")


def _nboard(game: GameDef[Board], spec: PlayerSpec) -> Engine[Board]:
    return NBoardEngine(spec.options["command"], depth=spec.options["depth"], name=spec.text)


#: Up to this many empties, an analysis solves every move exactly after two plies of
#: deepening; above it, it deepens ply by ply.
ANALYSIS_EXACT_EMPTIES = 26


@cache
def _analysis_engines() -> tuple[OthelloEngine, OthelloEngine]:
    engines = OthelloEngine(name="analysis"), OthelloEngine(perfect=True, name="analysis-exact")
    for e in engines:
        e.warm_up()  # (before any analysis's clock starts)
    return engines


def analyse(
    board: Board, limit: Limit, on_update: OnUpdate | None = None, stop: StopFlag | None = None
) -> Analysis:
    """A value on every legal square, in discs for the mover: exact once the endgame
    solver has proved it, otherwise the learned evaluation's at the depth reached
    (:func:`banmen.analysis.analyse_children`)."""
    from banmen.analysis import analyse_children

    search, exact = _analysis_engines()
    near_end = board.empties() <= ANALYSIS_EXACT_EMPTIES
    return analyse_children("othello", search, board, limit, on_update, stop,
                            exact_after=2 if near_end else None, exact_engine=exact,
                            pass_name=GAME.pass_name)  # fmt: skip


def _load_wld() -> None:
    from banmen.games.othello.wld import prove_wld

    b = Board()
    while b.empties() > 12 and not b.is_game_over():
        b.push(b.legal_moves[0])
    prove_wld(b, hash_mb=1)


def _load_mcts() -> None:
    from banmen.games.mcts_engines import load_tree

    load_tree(GAME)


def _load_dfpn() -> None:
    from banmen.games.dfpn_engines import load_dfpn

    load_dfpn(GAME)


GAME: GameDef[Board] = GameDef(
    name="othello",
    title="Othello",
    board_from_dict=Board.from_dict,
    # the rules as alpha-beta kernels (the hand-set evaluation): what the generic searches
    # read (MCTS and PUCT, banmen.games.mcts_engines); the players above are Othello's own
    kernels=ALPHABETA_KERNELS,
    search_position=search_position,
    sample=Board,
    new_board=_new_board,
    start=_start,
    scores=lambda board: board.discs(),
    max_plies=130,
    engines={
        "alphabeta": EngineKind(
            _alphabeta,
            "negamax alpha-beta over bitboards with iterative deepening, a transposition "
            "table, ProbCut and an exact endgame; depth=N, time=SECONDS, nodes=N (default "
            "time=1), probcut=0 (no ProbCut); +patterns[:weights=FILE] (the learned "
            "evaluation: the default), +handset, or any evaluator below",
            ("depth", "time", "nodes", "probcut"),
            legacy=(Option("learned", FLAG, "the learned patterns (1) or +handset (0)"),),
            migrate=_migrate,
            takes_evaluator=True,
        ),
        "perfect": EngineKind(
            _alphabeta,
            "exact endgame solve (perfect play); time=SECONDS, nodes=N cap it",
            ("time", "nodes"),
            takes_evaluator=True,
        ),
        "random": STANDARD_ENGINES["random"],
        "nboard": EngineKind(
            _nboard,
            "an external Othello engine over NBoard 2: nboard:[depth=N ]COMMAND (default "
            "depth 8; docs/YOUR_AI.md lists what banmen sends)",
            ("depth",),
        ),
    },
    kernel_moves=kernel_moves,
    sides=("black", "white"),
    diagram=str,
    board_from_text=Board.from_text,
    # (Transcripts name no start position and leave passes out: they are checked from the
    # standard start in tests/test_othello.py.)
    text_formats={
        "board string": TextFormat(Board.to_string, Board.from_string),
        "GGF": TextFormat(Board.to_ggf, Board.from_ggf, game=True),
    },
    analyse=analyse,
    kernel_sets=KERNEL_SETS,
    ugi=TextFormat(Board.to_string, Board.from_string),
    solver=SOLVER,
    position_hint="an Othello board string (64 squares X/O/- and X or O) or a transcript",
    summary=(
        "The classic 8×8 disc-flipping game. Play the CPU with either colour, watch two CPUs, "
        "solve endgames exactly, or paste a transcript or position to study."
    ),
    web="banmen.web.games.othello:OthelloGame",
)

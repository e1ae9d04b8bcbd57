"""Go: rules (compiled kernels), rule-set presets, scoring, the game record, SGF.

From the bottom up:

* :mod:`.errors` — the :class:`GoError` family;
* :mod:`.kernels` — the padded board layout and the compiled kernels (play, legality,
  hashing, random playouts);
* :mod:`.kernels_ab` — the rules as the contract every search reads (an immutable tuple
  of bitboards; values in half points): what the ``alphabeta`` and ``perfect`` players
  search;
* :mod:`.rules` — :class:`Rules` and the presets ``chinese``, ``japanese``,
  ``tromp-taylor``, ``aga``, ``new-zealand`` (after KataGo's rules page);
* :mod:`.scoring` — area/territory counting, seki, Benson's pass-alive groups;
* :mod:`.estimate` — ownership and a dead-stone guess from playouts of the policy;
* :mod:`.board` — :class:`Board` (python-chess style): the rules, GTP vertices, fixed
  handicap;
* :mod:`.game` — :class:`Game`, the game record (KataGo's ``BoardHistory``): tolerant
  replay, resignation, counting with dead-stone marks, the :class:`Outcome`;
* :mod:`.formats` — reading and writing SGF FF[4];
* :mod:`.tactics` (liberties, ataris, ladders, eye shapes), :mod:`.features` (learned
  move weights), :mod:`.policy` (the playout policy, the search's kernels) and
  :mod:`.engine` — the Monte-Carlo tree search player (``mcts``);
* :mod:`.settle` — how the arena settles a passed-out game: the players' agreement on
  the dead stones, or else a cleanup played on and the Tromp-Taylor count.

:data:`GAME` registers Go with the engine layer and the arena: its boards are game
records (:class:`Game`, so a resignation ends an arena game like a move), empty (the
arena's seed picks nothing: games of a pair differ by colour, and seeded players by their
seeds; ``start`` is the same board), Chinese rules with komi 7.5, 9x9 unless a size is
given; its ``outcome`` is the record's (:meth:`Game.outcome`: a resignation, or the count
with the dead stones marked, in banmen's :class:`~banmen.games.Outcome`); ``scores`` are the two
sides' area points by the board as it stands (white's with komi, rounded down); the
arena's ``settle`` hook is :func:`.settle.settle_dead`; its records are SGF (its text
format too); ``kernel_moves`` are the compiled rules' moves (:func:`.game.kernel_moves`);
``kernels`` and ``search_position`` are :mod:`.kernels_ab`'s (so the registry offers
``alphabeta`` and ``perfect``, their scores in half points; ``mcts`` stays Go's own);
terminal play draws the board as :class:`Game`'s ``str``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from banmen.engine import Engine, PlayerSpec
from banmen.kinds import FLAG, Option
from banmen.search.kinds import WIDEN

if TYPE_CHECKING:
    from banmen.analysis import Analysis, OnUpdate
    from banmen.search.limits import Limit, StopFlag
from banmen.games._base import EngineKind, GameDef, TextFormat
from banmen.games.engines import STANDARD_ENGINES
from banmen.games.go.board import (
    BLACK,
    COLUMNS,
    EMPTY,
    MAX_SIZE,
    MIN_SIZE,
    PASS,
    WHITE,
    Board,
    color_name,
    coords,
    free_handicap_points,
    handicap_points,
    parse_color,
    parse_vertex,
    point,
    vertex_name,
)
from banmen.games.go.engine import GoEngine
from banmen.games.go.errors import (
    GoError,
    HandicapError,
    IllegalMoveError,
    InvalidBoardError,
    InvalidMoveError,
    RulesError,
    ScoringError,
    SgfError,
)
from banmen.games.go.estimate import estimate_dead
from banmen.games.go.formats import SgfGame, read_position, read_sgf, write_position, write_sgf
from banmen.games.go.game import (
    RESIGN,
    Game,
    Outcome,
    board_of,
    is_resignation,
    kernel_moves,
    sgf_result,
)
from banmen.games.go.kernels_ab import KERNELS, score_offset, search_position
from banmen.games.go.rules import (
    AGA,
    CHINESE,
    JAPANESE,
    NEW_ZEALAND,
    PRESETS,
    TROMP_TAYLOR,
    Rules,
    parse_rules,
)
from banmen.games.go.scoring import Score, benson, pass_alive, score
from banmen.games.go.sets import KERNEL_SETS
from banmen.games.go.settle import settle_dead

#: the arena's default board size
DEFAULT_SIZE = 9


def _start(size: int | None) -> Game:
    """The empty board of ``size`` (default 9), Chinese rules, komi 7.5."""
    return Game(Board(DEFAULT_SIZE if size is None else size, "chinese"))


def _new_board(seed: int, size: int | None) -> Game:
    """The start (:func:`_start`): ``seed`` is unused (Go deals nothing)."""
    return _start(size)


def _outcome(game: Game) -> Outcome | None:
    return game.outcome()


def _scores(game: Game) -> tuple[int, int]:
    s = game.count() if game.counting else game.board.score()
    return int(s.black), int(s.white)


def _write_record(game: Game, black: str, white: str) -> str:
    return write_sgf(game, black=black, white=white, result=game.result())


def _read_sgf(text: str) -> Game:
    return read_sgf(text).game


def _from_text(text: str) -> Game:
    """A game typed as text: an SGF record, or the name of a file holding one (a short
    text that is not SGF and names a file: a regular one of 4 MB at most); the position
    after its main line."""
    from pathlib import Path

    from banmen._files import FileRefused, read_small_text

    if len(text) < 4096 and not text.lstrip().startswith("("):
        try:
            if Path(text).exists():
                text = read_small_text(text)
        except (FileRefused, OSError) as e:
            raise GoError(str(e)) from None
    return read_sgf(text).game


def _write_sgf(game: Game) -> str:
    return write_sgf(game)


def _mcts(game: GameDef[Game], spec: PlayerSpec, evaluator: Any = None) -> Engine[Game]:
    return GoEngine.from_spec(spec, evaluator)


def _gtp(game: GameDef[Game], spec: PlayerSpec) -> Engine[Game]:
    # (imported when a GTP player is built: a subprocess client nobody else needs)
    from banmen.games.go.gtp_client import GTPEngine

    return GTPEngine(spec.options["command"], name=spec.text, limit=spec.limit)


def analyse(
    board: Game, limit: Limit, on_update: OnUpdate | None = None, stop: StopFlag | None = None
) -> Analysis:
    """The search's win rate and visits for every move it looked at, the principal
    variations, and the playouts' ownership and score estimate (:mod:`.analysis`)."""
    from banmen.games.go.analysis import analyse as run  # (numba loads with the first)

    return run(board, limit, on_update, stop)


def _load_alphabeta() -> None:
    """The ``alphabeta`` kernel set: the shared alpha-beta over :mod:`.kernels_ab` (a few
    plies on 9x9 under superko with a capture on the board, a territory count) and the
    conversions from a board."""
    from banmen.games.engines import AlphaBetaEngine
    from banmen.games.go.kernels_ab import evaluate_value, final_value, search_moves
    from banmen.search.limits import Limit

    engine = AlphaBetaEngine(GAME, tt_bits=10)
    game = Game(Board(9, "tromp-taylor"))
    for name in ("D5", "E5", "E4", "F4", "E6", "F6", "C4", "E3", "F5"):
        game.push(game.board.parse_move(name))
    engine.think(game, Limit(depth=2))
    game = Game(Board(9, "japanese"))
    engine.think(game, Limit(depth=1))
    final_value(game)
    evaluate_value(game)
    search_moves(game)


def _load_tree() -> None:
    """The ``mcts`` kernel set: the generic MCTS and PUCT over :mod:`.kernels_ab`."""
    from banmen.games.mcts_engines import load_tree

    load_tree(GAME)


def _load_dfpn() -> None:
    """The ``dfpn`` kernel set: the generic df-pn player over :mod:`.kernels_ab` — a
    proof stopped by its node limit on the empty 9x9 board, and a settled 5x5 position
    proved (the answers, the line read back). (Not the generic loader, which plays the
    first legal move until the game ends: a Go game played so need not end.)"""
    from banmen.games.dfpn_engines import ProofEngine
    from banmen.search.limits import Limit

    engine = ProofEngine(GAME, hash_mb=1)
    engine.__dict__["_warmed"] = True  # (this is the warm-up)
    engine.think(Game(Board(9)), Limit(nodes=300))
    board = Board(5, komi=0.5)
    rows = ("XXOOO", ".XOO.", "XXOOO", ".XOO.", "XX.OO")  # top row first; C1 dame
    black = [point(c, 4 - r, 5) for r, row in enumerate(rows) for c, v in enumerate(row)
             if v == "X"]  # fmt: skip
    white = [point(c, 4 - r, 5) for r, row in enumerate(rows) for c, v in enumerate(row)
             if v == "O"]  # fmt: skip
    board.setup(black, white)
    engine.think(Game(board), Limit(nodes=1 << 16))


#: what Go's tree search takes, as ``mcts`` and as ``puct``
_TREE_OPTIONS = (
    "time",
    "playouts",
    "seed",
    "threads",
    WIDEN,
    Option("learned", FLAG, "the learned priors (1) or hand-set ones (0)"),
)

GAME: GameDef[Game] = GameDef(
    name="go",
    title="Go",
    board_from_dict=Game.from_dict,
    sample=lambda: Game(Board(DEFAULT_SIZE)),
    kernels=KERNELS,
    search_position=search_position,
    score_offset=score_offset,
    new_board=_new_board,
    start=_start,
    scores=_scores,
    outcome=_outcome,
    settle=settle_dead,
    max_plies=3 * MAX_SIZE * MAX_SIZE,
    engines={
        "mcts": EngineKind(
            _mcts,
            "Monte-Carlo tree search with learned priors; time=SECONDS, playouts=N, seed=N, "
            "threads=N (one tree), learned=0 (hand-set priors), widen=N (progressive "
            "widening from N moves; 0: off; default 8 on 13x13 and up) (default time=1)",
            _TREE_OPTIONS,
            takes_evaluator=True,
        ),
        "puct": EngineKind(
            _mcts,
            "the same tree search with AlphaZero's selection (PUCT): the learned policy's "
            "priors, each new leaf valued by one playout; time=SECONDS, playouts=N, seed=N, "
            "threads=N, widen=N, learned=0 as mcts's (default time=1)",
            _TREE_OPTIONS,
            takes_evaluator=True,
        ),
        "gtp": EngineKind(
            _gtp,
            "an external Go engine over GTP 2: gtp:[time=SECONDS ]COMMAND (default 1 s a "
            "move, sent as time_settings 0 SECONDS 1; docs/YOUR_AI.md lists what banmen sends)",
            ("time",),
        ),
        "random": STANDARD_ENGINES["random"],
    },
    default_engine="mcts",
    write_record=_write_record,
    record_suffix=".sgf",
    kernel_moves=kernel_moves,
    sides=("black", "white"),
    diagram=str,
    text_formats={"SGF": TextFormat(_write_sgf, _read_sgf, game=True)},
    analyse=analyse,
    analysis_limits=("time", "nodes"),  # playouts; a tree search has no depth to stop at
    kernel_sets=KERNEL_SETS,
    ugi=TextFormat(write_position, read_position),
    record=lambda board: Game(board_of(board)),
    board_from_text=_from_text,
    position_hint="an SGF record (text or a file name): the position after its main line",
    summary=(
        "Go on 9×9, 13×13 or 19×19 under Chinese, Japanese, AGA, New Zealand or Tromp-Taylor "
        "rules: play the Monte-Carlo CPU or a friend on one screen, watch two CPUs, count the "
        "end with dead stones marked, save and load SGF."
    ),
    web="banmen.web.games.go:GoGame",
)

__all__ = [
    "GAME",
    "settle_dead",
    "AGA",
    "BLACK",
    "CHINESE",
    "COLUMNS",
    "EMPTY",
    "JAPANESE",
    "MAX_SIZE",
    "MIN_SIZE",
    "NEW_ZEALAND",
    "PASS",
    "PRESETS",
    "RESIGN",
    "TROMP_TAYLOR",
    "WHITE",
    "Board",
    "Game",
    "GoEngine",
    "GoError",
    "HandicapError",
    "IllegalMoveError",
    "InvalidBoardError",
    "InvalidMoveError",
    "Outcome",
    "Rules",
    "RulesError",
    "Score",
    "ScoringError",
    "SgfError",
    "SgfGame",
    "benson",
    "board_of",
    "color_name",
    "coords",
    "estimate_dead",
    "free_handicap_points",
    "handicap_points",
    "is_resignation",
    "kernel_moves",
    "parse_color",
    "parse_rules",
    "parse_vertex",
    "pass_alive",
    "point",
    "read_sgf",
    "score",
    "sgf_result",
    "vertex_name",
    "write_sgf",
]

"""Go: rules (compiled kernels), rule-set presets, scoring, SGF.

* :mod:`.kernel` — the padded board layout and the compiled kernels (play, legality,
  hashing, random playouts);
* :mod:`.rules` — :class:`Rules` and the presets ``chinese``, ``japanese``,
  ``tromp-taylor``, ``aga``, ``new-zealand`` (after KataGo's rules page);
* :mod:`.board` — :class:`Board` (python-chess style), GTP vertices, fixed handicap;
* :mod:`.scoring` — area/territory counting, seki, Benson's pass-alive groups, a
  playout-based dead-stone estimate;
* :mod:`.sgf` — reading and writing SGF FF[4].
"""

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
    handicap_points,
    parse_color,
    parse_vertex,
    point,
    vertex_name,
)
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
from banmen.games.go.scoring import Score, benson, estimate_dead, pass_alive, score
from banmen.games.go.sgf import SgfGame, read_sgf, write_sgf

__all__ = [
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
    "TROMP_TAYLOR",
    "WHITE",
    "Board",
    "GoError",
    "HandicapError",
    "IllegalMoveError",
    "InvalidBoardError",
    "InvalidMoveError",
    "Rules",
    "RulesError",
    "Score",
    "ScoringError",
    "SgfError",
    "SgfGame",
    "benson",
    "color_name",
    "coords",
    "estimate_dead",
    "handicap_points",
    "parse_color",
    "parse_rules",
    "parse_vertex",
    "pass_alive",
    "point",
    "read_sgf",
    "score",
    "vertex_name",
    "write_sgf",
]

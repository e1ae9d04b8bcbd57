"""Who plays a side in the web app: a human or a CPU level, and the caps on CPU moves.

A level is a name the page shows plus a player spec (see :func:`banmen.engine.parse_spec`).
Every CPU move runs under a time cap, whatever its spec says, so one request can never keep
a worker busy for long; the size of the engine pool caps how many searches run at once.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from banmen.engine import SpecError, parse_spec
from banmen.search.limits import Limit

__all__ = [
    "Level",
    "DEFAULT_LEVELS",
    "OTHELLO_LEVELS",
    "GO_LEVELS",
    "MOVE_TIME_CAP",
    "HUMAN",
    "capped_limit",
    "make_levels",
]

#: Seconds any single CPU move may take. An exact solve cut off by it reports
#: ``exact=False``, so the page never calls such a result proven.
MOVE_TIME_CAP = 30.0

HUMAN = "human"


@dataclass(frozen=True)
class Level:
    name: str
    label: str
    spec: str | None  # None: a human plays this side
    note: str = ""  # a line the page may show about the level

    @property
    def is_cpu(self) -> bool:
        return self.spec is not None

    def to_dict(self) -> dict[str, str | None]:
        return {"name": self.name, "label": self.label, "spec": self.spec, "note": self.note}


DEFAULT_LEVELS: tuple[Level, ...] = (
    Level(HUMAN, "Human", None),
    Level("normal", "CPU normal", "alphabeta:depth=1"),
    Level("strong", "CPU strong", "alphabeta:depth=3"),
    Level("1s", "CPU 1 s", "alphabeta:time=1"),
    Level("perfect", "CPU perfect", "perfect"),
)

#: Othello's levels. The exact solver only finishes near the end of a game; earlier it runs
#: into the move time cap and then plays a quick heuristic move (not called proved).
OTHELLO_LEVELS: tuple[Level, ...] = (
    Level(HUMAN, "Human", None),
    Level("easy", "CPU easy", "alphabeta:depth=1", "looks one move ahead"),
    Level("normal", "CPU normal", "alphabeta:depth=4", "looks four moves ahead"),
    Level("strong", "CPU strong", "alphabeta:time=1", "searches for one second a move"),
    Level(
        "perfect",
        "CPU perfect endgame",
        "perfect",
        f"exact solver, for positions with about 22 empty squares or fewer; with more it "
        f"stops at the {MOVE_TIME_CAP:g} s cap and plays a quick, unproved move",
    ),
)


#: Go's levels: Monte-Carlo tree search by the time it may take a move (it passes and
#: resigns by itself), and random moves (for tests and demonstrations).
GO_LEVELS: tuple[Level, ...] = (
    Level(HUMAN, "Human", None),
    Level("random", "CPU random", "random", "plays uniformly random legal moves"),
    Level("quick", "CPU quick", "mcts:time=0.5", "Monte-Carlo tree search, half a second a move"),
    Level("normal", "CPU normal", "mcts:time=2", "Monte-Carlo tree search, two seconds a move"),
    Level("strong", "CPU strong", "mcts:time=5", "Monte-Carlo tree search, five seconds a move"),
)


def capped_limit(spec: str, cap: float = MOVE_TIME_CAP) -> Limit:
    """The spec's own limit with its time bound lowered to ``cap`` seconds."""
    own = parse_spec(spec).limit
    time = cap if own.time is None else min(own.time, cap)
    return Limit(time=time, depth=own.depth, nodes=own.nodes)


def make_levels(
    extra: Mapping[str, str] | None = None,
    base: tuple[Level, ...] = DEFAULT_LEVELS,
    players: Mapping[str, str] | None = None,
) -> dict[str, Level]:
    """The ``base`` levels (Mattix's by default) plus ``extra`` (name -> spec) and the
    user's ``players`` (name -> spec: ``banmen serve --player``); raises ``SpecError`` on
    a bad spec."""
    levels = {lv.name: lv for lv in base}
    for name, spec in (players or {}).items():
        if not name or name == HUMAN:
            raise SpecError(
                f"bad player name {name!r}: expected a non-empty name other than 'human'"
            )
        parse_spec(spec)
        levels[name] = Level(name, f"CPU {name}", spec, f"your player: {spec}")
    for name, spec in (extra or {}).items():
        if not name or name == HUMAN:
            raise SpecError(
                f"bad level name {name!r}: expected a non-empty name other than 'human'"
            )
        parse_spec(spec)  # fail at start-up, not on the first CPU move
        levels[name] = Level(name, f"CPU {name}", spec)
    return levels

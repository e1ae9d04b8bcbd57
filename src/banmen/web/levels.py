"""Who plays a side in the web app: a human or a CPU level, and the caps on CPU moves.

A level is a name the page shows plus a player spec (see
:func:`banmen.games.registry.parse_spec`).
Each game's own levels come with its web adapter (:attr:`banmen.web.games.WebGame.base_levels`;
the generic board page's from the engines its game offers, :mod:`banmen.web.grid`).
Every CPU move runs under a time cap, whatever its spec says, so one request can never keep
a worker busy for long; the size of the engine pool caps how many searches run at once.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from banmen.engine import SpecError
from banmen.search.limits import Limit

__all__ = [
    "Level",
    "MOVE_TIME_CAP",
    "HUMAN",
    "Specs",
    "capped_limit",
    "make_levels",
]

#: Seconds any single CPU move may take. An exact solve cut off by it reports
#: ``exact=False``, so the page never calls such a result proven.
MOVE_TIME_CAP = 30.0

HUMAN = "human"

#: CPU levels or players by name: name -> player spec
Specs = Mapping[str, str]


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


def capped_limit(spec: str, cap: float = MOVE_TIME_CAP, game: str | None = None) -> Limit:
    """The spec's own limit (as ``game`` reads it) with its time bound lowered to ``cap``
    seconds."""
    from banmen.games.registry import parse_spec

    own = parse_spec(spec, game).limit
    time = cap if own.time is None else min(own.time, cap)
    return Limit(time=time, depth=own.depth, nodes=own.nodes)


def make_levels(
    extra: Specs | None,
    base: tuple[Level, ...],
    players: Specs | None = None,
    game: str | None = None,
) -> dict[str, Level]:
    """The ``base`` levels (a game's own) plus ``extra`` (name -> spec) and the user's
    ``players`` (name -> spec: ``banmen serve --player``); raises ``SpecError`` on a bad
    spec."""
    levels = {lv.name: lv for lv in base}
    for name, spec in (players or {}).items():
        if not name or name == HUMAN:
            raise SpecError(
                f"bad player name {name!r}: expected a non-empty name other than 'human'"
            )
        _check(spec, game)
        levels[name] = Level(name, f"CPU {name}", spec, f"your player: {spec}")
    for name, spec in (extra or {}).items():
        if not name or name == HUMAN:
            raise SpecError(
                f"bad level name {name!r}: expected a non-empty name other than 'human'"
            )
        _check(spec, game)  # fail at start-up, not on the first CPU move
        levels[name] = Level(name, f"CPU {name}", spec)
    return levels


def _check(spec: str, game: str | None) -> None:
    from banmen.games.registry import parse_spec

    parse_spec(spec, game)

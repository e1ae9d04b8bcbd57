"""How a game ended, as data: :class:`Outcome` and its :class:`Termination` (after
python-chess's ``chess.Outcome`` and ``chess.Termination``).

A game's :class:`~banmen.games.GameDef` gives the outcome of a board
(:meth:`~banmen.games.GameDef.outcome_of`: its ``outcome`` hook, or the default built from
the board's ``is_game_over`` / ``winner`` and the game's ``scores``); the arena adds the
endings only it can see — a forfeit, the ply cap — and stores the outcome beside each
game. No front end reads a game's result string to learn who won::

    >>> o = Outcome(Termination.RULES, 1, (40.0, 36.5))
    >>> o.result(), o.margin, o.points(2), o.words(("black", "white"))
    ('1-0', 3.5, 0.0, 'black wins by the rules, 40 : 36.5')
    >>> capped = Outcome(Termination.PLY_CAP, None)
    >>> capped.result(), capped.points(1), capped.is_draw, capped.words(("red", "yellow"))
    ('*', 0.5, False, 'stopped at the ply cap: no result by the rules')
    >>> Outcome.from_dict(capped.to_dict()) == capped
    True
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass
from typing import Any

__all__ = ["Outcome", "Termination"]


class Termination(enum.Enum):
    """Why a game ended. The value is how it is stored (the arena's ``outcome`` column,
    reports, JSON)."""

    #: the game's rules ended it: a win, a draw, a count (Go: after two passes)
    RULES = "rules"
    #: a player resigned (Go's engines answer ``resign``)
    RESIGNATION = "resignation"
    #: a user's player lost on the spot in the arena: it raised, broke its protocol,
    #: answered an illegal move or overran its allowance (:mod:`banmen.arena.play`)
    FORFEIT = "forfeit"
    #: the arena stopped the game at the game's ``max_plies``: not a result by the rules
    #: (no winner; counted as half a point for each side, and reported apart from draws)
    PLY_CAP = "ply_cap"
    #: a player's game clock ran out (:mod:`banmen.clock`): the game pages' referee
    #: (:mod:`banmen.web.clocks`) records a loss on time as this, as any front end with
    #: clocks does (a time limit per move overrun by a user's player is a :attr:`FORFEIT`)
    TIME = "time"

    @property
    def words(self) -> str:
        """How a game that ended so is told: "by the rules", "stopped at the ply cap"…"""
        return _WORDS[self]


_WORDS = {
    Termination.RULES: "by the rules",
    Termination.RESIGNATION: "by resignation",
    Termination.FORFEIT: "by forfeit",
    Termination.PLY_CAP: "stopped at the ply cap",
    Termination.TIME: "on time",
}


def _number(x: float) -> str:
    return f"{x:g}"


def _points(scores: Any) -> tuple[float, float]:
    """``scores`` as two plain numbers (an int stays an int); ``ValueError`` otherwise."""
    try:
        a, b = (float(x) for x in scores)
    except (TypeError, ValueError):
        raise ValueError(f"an outcome's scores are two numbers, not {scores!r}") from None
    if not (math.isfinite(a) and math.isfinite(b)):
        raise ValueError(f"an outcome's scores are two finite numbers, not {scores!r}")
    return (int(a) if a.is_integer() else a, int(b) if b.is_integer() else b)


@dataclass(frozen=True)
class Outcome:
    """How a game ended: its :class:`Termination`, the ``winner`` (side 1 or 2; ``None``:
    a draw by the rules — or no result at all, for a game stopped at the ply cap) and the
    final ``scores`` of sides 1 and 2 as the game counts them (Go: the area count with
    komi; Connect Four: the winner's points; ``None``: the game counts no points, or the
    end counted none — a resignation, a forfeit). A game not over has no outcome: its
    :class:`~banmen.games.GameDef` gives ``None``."""

    termination: Termination
    winner: int | None
    scores: tuple[float, float] | None = None

    def __post_init__(self) -> None:
        if self.scores is not None:  # plain numbers (a game's may be numpy's), JSON-ready
            object.__setattr__(self, "scores", _points(self.scores))
        if not isinstance(self.termination, Termination):
            raise ValueError(f"an outcome's termination is a Termination, not {self.termination!r}")
        if self.winner not in (None, 1, 2):
            raise ValueError(f"an outcome's winner is 1, 2 or None, not {self.winner!r}")
        if self.termination is Termination.PLY_CAP and self.winner is not None:
            raise ValueError("a game stopped at the ply cap has no winner")
        if self.termination in (Termination.RESIGNATION, Termination.FORFEIT, Termination.TIME):
            if self.winner is None:
                raise ValueError(f"a game that ended {self.termination.words} has a winner")

    @property
    def margin(self) -> float | None:
        """The winner's lead in the game's points (0 for a draw); ``None`` without scores."""
        if self.scores is None:
            return None
        return abs(self.scores[0] - self.scores[1])

    @property
    def is_draw(self) -> bool:
        """Whether the rules drew the game (not a game stopped at the ply cap)."""
        return self.winner is None and self.termination is not Termination.PLY_CAP

    def result(self) -> str:
        """``"1-0"``, ``"0-1"``, ``"1/2-1/2"`` (side 1's score first, as PGN writes it), or
        ``"*"`` for a game stopped at the ply cap: it has no result."""
        if self.winner is not None:
            return "1-0" if self.winner == 1 else "0-1"
        return "*" if self.termination is Termination.PLY_CAP else "1/2-1/2"

    def points(self, side: int) -> float:
        """What the game is worth to ``side`` (1 or 2) in a tournament's count: 1 for a
        win, 0 for a loss, a half for a draw — and for a game stopped at the ply cap,
        which decided nothing."""
        if self.winner is None:
            return 0.5
        return 1.0 if self.winner == side else 0.0

    def words(self, sides: tuple[str, str] = ("player 1", "player 2")) -> str:
        """The outcome in a line, the sides named as ``sides``: "red wins by the rules,
        122 : 0", "a draw by the rules", "white wins by resignation"."""
        if self.termination is Termination.PLY_CAP:
            return f"{self.termination.words}: no result by the rules"
        who = "a draw" if self.winner is None else f"{sides[self.winner - 1]} wins"
        points = ""
        if self.scores is not None:
            points = f", {_number(self.scores[0])} : {_number(self.scores[1])}"
        return f"{who} {self.termination.words}{points}"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: ``termination`` (its value), ``winner``, ``scores``."""
        return {
            "termination": self.termination.value,
            "winner": self.winner,
            "scores": None if self.scores is None else list(self.scores),
        }

    @classmethod
    def from_dict(cls, d: Any) -> Outcome:
        """The outcome :meth:`to_dict` wrote; ``ValueError`` (one line) for anything else."""
        if not isinstance(d, dict):
            raise ValueError("an outcome is a JSON object")
        try:
            termination = Termination(d.get("termination"))
        except ValueError:
            known = ", ".join(t.value for t in Termination)
            raise ValueError(
                f"unknown termination {d.get('termination')!r}: expected one of {known}"
            ) from None
        scores = d.get("scores")
        if scores is not None and (
            not isinstance(scores, list)
            or len(scores) != 2
            or any(not isinstance(x, int | float) or isinstance(x, bool) for x in scores)
        ):
            raise ValueError("an outcome's scores are two numbers")
        return cls(termination, d.get("winner"), None if scores is None else tuple(scores))

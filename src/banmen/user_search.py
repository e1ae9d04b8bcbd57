"""Your own search over the rules contract: the ``search:`` player spec.

``search:FILE.py:NAME`` (or ``search:package.module:NAME``), then ``,key=value`` options
and ``,time=SECONDS``, plays ``NAME`` — a function over a game's compiled rules, the
contract every banmen search reads (:mod:`banmen.search.alphabeta`'s ``Kernels``;
docs/ADDING_A_GAME.md, "The rules contract") — in every game that fills that contract:

``NAME(rules, ctx, state, **options) -> move`` or ``-> (move, score)``
    ``rules`` is the game's :class:`~banmen.search.alphabeta.Kernels` (``rules.gen_moves``,
    ``rules.play``, ``rules.gain``, ``rules.evaluate``, ``rules.final``, ``rules.key``,
    ``rules.horizon``, ``rules.max_moves``), ``ctx`` and ``state`` the position
    (``GameDef.search_position``); ``options`` are the spec's ``key=value`` pairs, as
    numbers where they read as numbers. The move is one of those ``rules.gen_moves``
    writes; ``score`` (optional) is the search's value for the side to move, in
    ``evaluate``'s units.

Compile ``NAME`` with :func:`banmen.jit.njit` and it runs at the speed of banmen's own
searches; a plain Python function works too (slowly: each kernel call crosses into
Python). It is built and run once on the game's sample position when the player is
loaded — a compile happens there, before any clock — and then plays where any player
does: ``banmen arena``, ``banmen play``, ``serve --player``, behind ``gtp``, ``nboard`` and
``ugi``.

Like a ``python:`` player (:mod:`banmen.python_player`) it runs in a process of its own:
a search that hangs, crashes or returns something that is not a legal move loses its
game, with a one-line reason, and the run goes on. A compiled loop cannot be interrupted
from outside: give it a budget in its options (a node count, a depth); the referee's
allowance (``time=S`` plus the margin; a minute without one) bounds it in any case.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from banmen.engine import GameBoard, Result, SpecError

if TYPE_CHECKING:
    from banmen.games import GameDef
    from banmen.search.limits import Limit

__all__ = ["RulesSearch", "load_search"]


class RulesSearch:
    """A user's search function ``fn`` as a player of ``game`` (``think(board, limit)``):
    the module docstring's contract, checked move by move."""

    def __init__(self, game: GameDef[Any], fn: Any, options: dict[str, Any], label: str) -> None:
        if game.kernels is None or game.search_position is None:
            raise SpecError(f"{label}: {game.title} has no rules kernels for a search to read")
        self.game = game
        self.fn = fn
        self.options = dict(options)
        self.label = label

    def _run(self, board: GameBoard) -> tuple[int, float | None]:
        ctx, state = self.game.search_position(board)  # type: ignore[misc]
        out = self.fn(self.game.kernels, ctx, state, **self.options)
        score: float | None = None
        if isinstance(out, tuple):
            if len(out) != 2:
                raise ValueError(f"{self.label} returned {out!r}: expected a move or (move, score)")
            out, raw = out
            score = float(raw)
        try:
            move = int(out)
        except (TypeError, ValueError):
            raise ValueError(
                f"{self.label} returned {out!r}: expected a move (an int from rules.gen_moves)"
            ) from None
        return move, score

    def warm_up(self) -> None:
        """Run once on the game's sample position: the compile happens now, not on a
        clock; a function that fails at once fails here, before any game."""
        if self.game.sample is None:
            return
        board = self.game.sample()
        if not board.is_game_over():
            self._run(board)

    def think(self, board: GameBoard, limit: Limit) -> Result:
        move, score = self._run(board)
        legal = list(board.legal_moves)
        if move not in legal:
            shown = ", ".join(str(m) for m in legal[:8]) + (", …" if len(legal) > 8 else "")
            raise ValueError(
                f"{self.label} returned move {move}, not a legal move here (legal: {shown})"
            )
        return Result(board.move_name(move), None if score is None else round(score))


def load_search(game: GameDef[Any], fn: Any, options: dict[str, Any], label: str) -> RulesSearch:
    """The player of ``search:…`` for ``game``: ``fn`` checked to be callable, wrapped and
    run once (:meth:`RulesSearch.warm_up`)."""
    if not callable(fn):
        raise SpecError(f"{label}: not a function: expected NAME(rules, ctx, state, **options)")
    player = RulesSearch(game, fn, options, label)
    try:
        player.warm_up()
    except SpecError:
        raise
    except Exception as e:
        text = " ".join(str(e).split())[:300]
        raise SpecError(f"{label} failed on {game.title}'s sample position: "
                        f"{type(e).__name__}: {text}") from None  # fmt: skip
    return player

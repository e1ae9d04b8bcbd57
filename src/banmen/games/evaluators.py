"""The evaluators every game with rules kernels offers, as kinds a spec names
(:mod:`banmen.kinds`): ``+default``, ``+ntuple:weights=FILE``, ``+rollout[:playouts=N,
seed=N]`` — what they are, :mod:`banmen.search.evaluators`; which games they serve, from
the rules contract alone (``GameDef.kernels``; the n-tuple evaluation, a grid game's
cells: ``Kernels.cell``). No game writes evaluation code for them.

Each is built for a game with its compiled code as kernel sets (``<game>.<name>-search``,
``<game>.<name>-mcts``: :mod:`banmen.warm`), which an engine's ``warm_up`` loads before any
clock starts; their loader is :func:`banmen.games.registry.load_evaluator_set`.

:func:`new_ntuple_file` writes a game's n-tuple file with zero weights — the usual tuples
of its grid (:func:`banmen.weights.default_tuples`) or the caller's — which loads and
plays (it values every position 0) and which training fills in.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from banmen.kinds import EvaluatorKind, Option, needs_rules
from banmen.warm import KernelSet

if TYPE_CHECKING:
    from banmen.games._base import GameDef
    from banmen.search.evaluators import RulesEvaluator
    from banmen.weights import NTuple

__all__ = [
    "DEFAULT",
    "NTUPLE",
    "ROLLOUT",
    "SEARCHES",
    "evaluator_sets",
    "default_evaluator",
    "ntuple",
    "rollout",
    "new_ntuple_file",
    "game_grid",
]

#: the searches that take these evaluators
SEARCHES = ("alphabeta", "perfect", "mcts", "puct")
#: what the sets' loader is (``module:function``; the game, evaluator and purpose follow)
LOADER = "banmen.games.registry:load_evaluator_set"


def _cells(game: Any) -> str | None:
    why = needs_rules(game)
    if why is not None:
        return why
    k = game.kernels
    if k.cell is None or k.grid is None or k.cell_values < 2:
        return "its rules kernels declare no cells (Kernels.cell, cell_values, grid)"
    return None


def _package(game: GameDef[Any]) -> str:
    """The top package of the game's kernels (its compiled files stamp the sets)."""
    assert game.kernels is not None
    fn = getattr(game.kernels.gen_moves, "py_func", game.kernels.gen_moves)
    return str(getattr(fn, "__module__", "banmen")).split(".")[0]


def evaluator_sets(game: GameDef[Any], name: str) -> dict[str, KernelSet]:
    """The kernel sets of evaluator ``name`` for ``game``: ``"search"`` (alpha-beta) and
    ``"mcts"`` (MCTS and PUCT)."""
    package = _package(game)
    extra = () if package == "banmen" else (package,)
    return {
        "search": KernelSet(game.name, f"{name}-search",
                            f"the {game.title} search with the {name} evaluator",
                            f"{LOADER}:{game.name}:{name}:search", estimate=8, default=False,
                            packages=extra),
        "mcts": KernelSet(game.name, f"{name}-mcts",
                          f"the {game.title} MCTS and PUCT with the {name} evaluator",
                          f"{LOADER}:{game.name}:{name}:mcts", estimate=14, default=False,
                          packages=extra),
    }  # fmt: skip


def default_evaluator(game: GameDef[Any], options: dict[str, Any] | None = None) -> RulesEvaluator:
    """The game's own evaluation, as an evaluator: searches with it are the searches
    without one."""
    from banmen.search.evaluators import own_evaluator

    assert game.kernels is not None
    return own_evaluator(game.kernels, evaluator_sets(game, "default"))


def game_grid(game: GameDef[Any], ctx: Any) -> tuple[int, int]:
    """The grid of the positions of ``ctx`` (``Kernels.grid``)."""
    assert game.kernels is not None and game.kernels.grid is not None
    rows, cols = game.kernels.grid(ctx)
    return int(rows), int(cols)


def _check(game: GameDef[Any], nt: NTuple, source: str) -> Any:
    want = (nt.rows, nt.cols)

    def check(ctx: Any) -> str | None:
        got = game_grid(game, ctx)
        if got == want:
            return None
        return (f"weights file {source}: made for a {nt.rows}x{nt.cols} grid, the position "
                f"is on {got[0]}x{got[1]}")  # fmt: skip

    return check


def ntuple_from(
    game: GameDef[Any], nt: NTuple, source: str | None = None, scale: float | None = None
) -> RulesEvaluator:
    """The n-tuple evaluator of ``nt``'s tables for ``game``."""
    from banmen.search.evaluators import ntuple_evaluator, ntuple_value

    k = game.kernels
    assert k is not None
    data = ntuple_value(nt.tuples, nt.offsets, nt.weights, nt.values, k.eval_bound)
    return ntuple_evaluator(k, data, scale, evaluator_sets(game, "ntuple"), source,
                            _check(game, nt, source or "(in memory)"))  # fmt: skip


@cache
def _read(path: str, stamp: tuple[int, int], game: str, values: int, title: str) -> NTuple:
    from banmen.weights import read_ntuple

    return read_ntuple(Path(path), game, values, title)


def ntuple(game: GameDef[Any], options: dict[str, Any] | None = None) -> RulesEvaluator:
    """The n-tuple evaluation in ``options["weights"]`` (a file, read once per process
    while it is unchanged), for ``game``; ``scale=`` its units to one logistic unit of win
    probability for the tree searches (default: the game's value scale)."""
    from banmen.weights import WeightsError, checked_file

    o = options or {}
    if not o.get("weights"):
        raise WeightsError("the ntuple evaluator needs its weights: ntuple:weights=FILE")
    path = str(Path(o["weights"]).expanduser().resolve())
    checked_file(Path(path), f"an .npz of n-tuple weights for {game.title} (banmen.weights)")
    st = os.stat(path)
    assert game.kernels is not None
    nt = _read(path, (st.st_size, st.st_mtime_ns), game.name, game.kernels.cell_values,
               game.title)  # fmt: skip
    return ntuple_from(game, nt, path, o.get("scale"))


def rollout(game: GameDef[Any], options: dict[str, Any] | None = None) -> RulesEvaluator:
    """``options["playouts"]`` random playouts (default 16) from each position valued,
    drawn from a generator seeded with ``options["seed"]`` (default 0)."""
    from banmen.search.evaluators import rollout_evaluator

    o = options or {}
    assert game.kernels is not None
    return rollout_evaluator(game.kernels, int(o.get("playouts", DEFAULT_PLAYOUTS)),
                             int(o.get("seed", 0)), evaluator_sets(game, "rollout"))  # fmt: skip


#: the rollout's playouts when its spec says none
DEFAULT_PLAYOUTS = 16


def new_ntuple_file(
    game: GameDef[Any],
    path: Path | str,
    tuples: Sequence[Sequence[int]] | None = None,
    size: int | None = None,
    meta: dict[str, Any] | None = None,
) -> Path:
    """Write an n-tuple file for ``game`` with zero weights (it loads, plays and values
    every position 0) on the grid of its start position of ``size`` (``None``: its
    default): ``tuples`` (cell lists), or the usual tuples of the grid whose tables fit
    :data:`banmen.weights.DEFAULT_BUDGET` (:func:`banmen.weights.default_tuples`).
    Returns the path. ``ValueError`` for a game without cells."""
    from banmen.weights import default_tuples, write_ntuple

    why = _cells(game)
    if why is not None:
        raise ValueError(f"{game.title} has no n-tuple evaluation: {why}")
    assert game.kernels is not None and game.search_position is not None
    ctx, _ = game.search_position(game.start_position(size))
    rows, cols = game_grid(game, ctx)
    values = game.kernels.cell_values
    chosen = list(tuples) if tuples is not None else default_tuples(rows, cols, values)
    write_ntuple(path, game.name, rows, cols, values, chosen, None, meta)
    return Path(path)


def _example_ntuple(game: GameDef[Any]) -> RulesEvaluator:
    """An n-tuple evaluator of zero weights on the usual tuples of the game's start grid
    (what its kernel sets compile: the code is the same for every file)."""
    from banmen.weights import default_tuples, make_ntuple

    assert game.kernels is not None and game.search_position is not None
    ctx, _ = game.search_position(game.sample() if game.sample else game.start_position())
    rows, cols = game_grid(game, ctx)
    values = game.kernels.cell_values
    return ntuple_from(game, make_ntuple(game.name, rows, cols, values,
                                         default_tuples(rows, cols, values)))  # fmt: skip


def _sets(name: str) -> Any:
    """The warm-up's sets of evaluator ``name`` for a game: its alpha-beta's and its
    generic tree search's; a game whose tree search is its own (Go's MCTS, which takes its
    own evaluator) gets the alpha-beta's only, and random playouts are not warmed there
    (a game of no known length: its playouts' length is the game's)."""

    def sets(game: GameDef[Any]) -> tuple[KernelSet, ...]:
        found = evaluator_sets(game, name)
        if "mcts" not in game.engines:
            return tuple(found.values())
        return () if name == "rollout" else (found["search"],)

    return sets


DEFAULT = EvaluatorKind(
    "default",
    "the game's own evaluation (GameDef.kernels' evaluate): the same search as none",
    build=default_evaluator,
    applies=needs_rules,
    searches=SEARCHES,
    sets=_sets("default"),
)
NTUPLE = EvaluatorKind(
    "ntuple",
    "an n-tuple network over the grid's cells: the sum of the weights each tuple's "
    "contents index, in the game's units; weights=FILE (.npz: banmen.weights, "
    "banmen.games.evaluators.new_ntuple_file), scale=X (tree searches: its units to one "
    "logistic unit of win probability; default the game's)",
    build=ntuple,
    options=(
        Option("weights", Path, "an n-tuple weights file (.npz, header evaluator=ntuple)"),
        Option("scale", float, "its units to one logistic unit of win probability", lo=1e-9),
    ),
    applies=_cells,
    searches=SEARCHES,
    sets=_sets("ntuple"),
    example=_example_ntuple,
    trainer="banmen.games.training:NTupleTrainer",
)
ROLLOUT = EvaluatorKind(
    "rollout",
    "random playouts: (wins - losses) / N of N playouts times the game's value scale "
    "(1000 if it has none), in the game's units; tree searches take the playouts' mean "
    "reward; playouts=N (default 16), seed=N",
    build=rollout,
    options=(
        Option("playouts", int, "random playouts a position", lo=1, hi=1_000_000),
        Option("seed", int, "the seed of the playouts' random numbers", lo=0, hi=2**63 - 1),
    ),
    applies=needs_rules,
    searches=SEARCHES,
    sets=_sets("rollout"),
)

"""The tree searches and the mate search as kinds (:mod:`banmen.kinds`): their options,
typed, with help. Which games they play: the games that bring an engine of their own for
them (Go's MCTS over its playout policy; shogi's mate solver), and, where a kind has a
generic builder, every game whose rules contract offers what it needs.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from banmen.kinds import Kind, Option
from banmen.search.limits import Limit

__all__ = ["MCTS", "MATE", "TIME", "PLAYOUTS", "SEED", "THREADS", "WIDEN"]

TIME = Option("time", float, "seconds a move", lo=0.001, hi=1e6)
PLAYOUTS = Option("playouts", int, "playouts a move", lo=1, hi=2**62)
SEED = Option("seed", int, "the seed of its random choices", lo=0, hi=2**63 - 1)
THREADS = Option("threads", int, "threads searching one tree", lo=1, hi=256)
WIDEN = Option("widen", int, "progressive widening from N moves (0: off)", lo=0, hi=10_000)


def _mate_limit(options: Mapping[str, Any]) -> Limit:
    return Limit(time=options.get("time"), nodes=options.get("nodes"))


MCTS = Kind(
    "mcts",
    "Monte-Carlo tree search (UCT with playouts); time=SECONDS, playouts=N, seed=N, "
    "threads=N (one tree), widen=N (default time=1)",
    options=(TIME, PLAYOUTS, SEED, THREADS, WIDEN),
    needs="an MCTS engine of its own",
)
MATE = Kind(
    "mate",
    "a mate solver (df-pn with tsume counting); time=SECONDS, nodes=N, hash=MB (no limit "
    "by default)",
    options=(
        TIME,
        Option("nodes", int, "nodes to search", lo=1, hi=2**62),
        Option("hash", int, "the table's size in MB", lo=1, hi=2**20),
    ),
    limit=_mate_limit,
    evaluators=False,
    needs="a mate solver of its own",
)

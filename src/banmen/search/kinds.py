"""The tree searches and the mate search as kinds (:mod:`banmen.kinds`): their options,
typed, with help. Which games they play: the games that bring an engine of their own for
them (Go's MCTS over its playout policy; shogi's mate solver), and, where a kind has a
generic builder, every game whose rules contract offers what it needs (df-pn: every game
with alpha-beta kernels, :mod:`banmen.games.dfpn_engines`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from banmen.kinds import Kind, Option, needs_rules
from banmen.search.limits import Limit

__all__ = ["MCTS", "PUCT", "MATE", "DFPN", "TIME", "PLAYOUTS", "SEED", "THREADS", "WIDEN"]

TIME = Option("time", float, "seconds a move", lo=0.001, hi=1e6)
PLAYOUTS = Option("playouts", int, "playouts a move", lo=1, hi=2**62)
SEED = Option("seed", int, "the seed of its random choices", lo=0, hi=2**63 - 1)
THREADS = Option("threads", int, "threads searching one tree", lo=1, hi=256)
WIDEN = Option("widen", int, "progressive widening from N moves (0: off)", lo=0, hi=10_000)


def _mate_limit(options: Mapping[str, Any]) -> Limit:
    return Limit(time=options.get("time"), nodes=options.get("nodes"))


#: the df-pn player's limit when its spec states neither a time nor nodes
DFPN_DEFAULT_LIMIT = Limit(time=10.0)


def _dfpn_limit(options: Mapping[str, Any]) -> Limit:
    limit = _mate_limit(options)
    return DFPN_DEFAULT_LIMIT if limit.time is None and limit.nodes is None else limit


MCTS = Kind(
    "mcts",
    "Monte-Carlo tree search (UCT with playouts; AMAF where the game allows it); "
    "time=SECONDS, playouts=N, seed=N, threads=N (one tree) (default time=1); "
    "+EVALUATOR: leaves valued by it instead of a playout",
    options=(TIME, PLAYOUTS, SEED, THREADS),
    build="banmen.games.mcts_engines:mcts_engine",
    needs="rules kernels (GameDef.kernels) or an MCTS engine of its own",
    applies=needs_rules,
)
PUCT = Kind(
    "puct",
    "tree search with AlphaZero's selection (PUCT): priors and a leaf value (the game's "
    "evaluation, else one random playout); time=SECONDS, playouts=N, seed=N, threads=N "
    "(default time=1); +EVALUATOR: the leaf value",
    options=(TIME, PLAYOUTS, SEED, THREADS),
    build="banmen.games.mcts_engines:puct_engine",
    needs="rules kernels (GameDef.kernels) or a PUCT engine of its own",
    applies=needs_rules,
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
DFPN = Kind(
    "dfpn",
    "proof-number search (df-pn): proves a win, a draw or a loss for the side to move and "
    "plays the move that keeps it; unproved within its limit it says so (never a false "
    "claim) and plays its most promising move; time=SECONDS, nodes=N, hash=MB (default "
    "time=10)",
    options=(
        TIME,
        Option("nodes", int, "df-pn nodes a move", lo=1, hi=2**62),
        Option("hash", int, "the table's size in MB", lo=1, hi=2**20),
    ),
    limit=_dfpn_limit,
    build="banmen.games.dfpn_engines:dfpn_engine",
    needs="alpha-beta kernels (GameDef.kernels)",
    applies=needs_rules,
    evaluators=False,
)

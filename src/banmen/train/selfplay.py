"""Self-play: games of the current weights against themselves, every position labelled.

A game starts from the arena's deal of its seed (``GameDef.new_board``); each move is the
player's (``alphabeta:depth=D+EVAL:weights=F``), except that with probability
``randomness`` a legal move is drawn at random instead (a generator seeded by the game's
seed: the same game every time). Every position before the end is kept with

* its **search label**: the player's score for it (a search with the current weights,
  in the evaluator's units, what is banked already taken away: ``GameDef.score_offset``),
  exact when the search proved it (every line ended within its depth), or the exact
  solver's when the position is within ``exact_plies`` of the end
  (``horizon``; a game whose contract bounds no game's length has none) and it proves
  the value (``exact``);
* its **outcome label**: the game's result seen from that position's mover, in the same
  units — the final margin less what was banked, for a game that counts points, else
  the bound of a win (the evaluator's ``bound``) or 0 for a draw;
* its **choice**: the move the player's search chose there (``best``), which is the move
  played unless a random one was drawn — what a choice model (a search's priors,
  :class:`banmen.trainable.ChoiceTrainer`) is fitted to.

The labels are clipped to the evaluator's bound. :func:`play_batch` runs in a worker
process or on a Dask worker; its engines are kept for the process's next batch.
"""

from __future__ import annotations

import io
import random
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from banmen._random import mix_seed

__all__ = ["Settings", "SelfPlayGame", "play_batch", "deal_seed", "pack_ctx", "unpack_ctx",
           "state_row", "state_of"]  # fmt: skip


@dataclass(frozen=True)
class Settings:
    """What a self-play task needs (it crosses process pipes and Dask as it is)."""

    game: str
    size: int | None
    #: the player's spec (``alphabeta:depth=4+ntuple:weights=/…/iter-0.npz``)
    player: str
    #: the exact solver's spec (``perfect``), or ``None``
    exact: str | None
    exact_plies: int
    randomness: float
    units: float
    bound: float
    seed: int
    iteration: int


@dataclass
class SelfPlayGame:
    """One game's positions and labels (module docstring)."""

    index: int
    seed: int
    #: the game's ``ctx`` (numpy's npz bytes: arrays and numbers, no pickle)
    ctx: bytes
    #: the state tuple's member types (``int64``, ``uint64``…)
    types: list[str]
    #: one row a position: its state's members as int64
    states: npt.NDArray[np.int64]
    search: npt.NDArray[np.float64]
    outcome: npt.NDArray[np.float64]
    exact: npt.NDArray[np.bool_]
    #: the first mover's points (1, 0.5, 0)
    first_points: float
    moves: list[str] = field(default_factory=list)
    seconds: float = 0.0
    #: the search's choice at each position (``""``: it named none)
    best: list[str] = field(default_factory=list)


def deal_seed(seed: int, iteration: int, index: int) -> int:
    """The deal of game ``index`` of ``iteration`` of a run seeded ``seed`` (non-negative)."""
    return mix_seed(mix_seed(seed * 1_000_003 + iteration) + index) & 0x7FFFFFFFFFFFFFFF


def pack_ctx(ctx: Any) -> bytes:
    """A game's ``ctx`` (an array, a number, or a tuple of them) as npz bytes."""
    members = ctx if isinstance(ctx, tuple) else (ctx,)
    arrays = {f"m{i}": np.asarray(m) for i, m in enumerate(members)}
    arrays["tuple"] = np.array(isinstance(ctx, tuple))
    buf = io.BytesIO()
    np.savez(buf, **arrays)  # type: ignore[arg-type]
    return buf.getvalue()


def unpack_ctx(blob: bytes) -> Any:
    """The ``ctx`` :func:`pack_ctx` packed (read without pickles)."""
    with np.load(io.BytesIO(blob), allow_pickle=False) as z:
        n = len(z.files) - 1
        members = []
        for i in range(n):
            a = z[f"m{i}"]
            members.append(a[()] if a.ndim == 0 else a)
        return tuple(members) if bool(z["tuple"]) else members[0]


def state_row(st: tuple[Any, ...]) -> list[int]:
    """A state's members as int64 values (an unsigned member wraps)."""
    return [int(np.asarray(x).astype(np.int64)) for x in st]


def state_of(row: npt.NDArray[np.int64], types: list[str]) -> tuple[Any, ...]:
    """The state tuple of a stored row (:func:`state_row`) and its member types."""
    return tuple(
        np.int64(v).astype(t)[()] if t != "bool" else np.bool_(v)
        for v, t in zip(row, types, strict=True)
    )


#: this process's engines (a worker plays batch after batch with them)
_cache: Any = None


def _engines() -> Any:
    global _cache
    if _cache is None:
        from banmen.arena.play import EngineCache

        _cache = EngineCache()
    return _cache


def play_game(s: Settings, index: int) -> SelfPlayGame:
    """Game ``index`` of the iteration (module docstring)."""
    import time

    from banmen.arena.play import start_board
    from banmen.games.registry import get_game

    t0 = time.perf_counter()
    game = get_game(s.game)
    assert game.kernels is not None and game.search_position is not None
    k = game.kernels
    seed = deal_seed(s.seed, s.iteration, index)
    board = start_board(game, s.size, seed)
    cache = _engines()
    player = cache.get(game, s.player)
    exact = cache.get(game, s.exact) if s.exact else None
    for e in (player, exact):
        if e is not None:
            e.new_game()
            e.reseed(seed & 0x7FFFFFFF)
    rng = random.Random(seed)
    rows: list[list[int]] = []
    search: list[float] = []
    proved: list[bool] = []
    offsets: list[int] = []
    movers: list[int] = []
    moves: list[str] = []
    best: list[str] = []
    ctx0: Any = None
    types: list[str] = []
    while not board.is_game_over() and len(moves) < game.max_plies:
        ctx, st = game.search_position(board)
        if ctx0 is None:
            ctx0, types = ctx, [np.asarray(x).dtype.name for x in st]
        offset = int(game.score_offset(board))
        result = None
        left = int(k.horizon(ctx, st))  # (-1: a game that says no bound)
        if exact is not None and 0 <= left <= s.exact_plies:
            result = exact.think(board)
            if not result.exact:
                result = None
        if result is None:
            result = player.think(board)
        is_exact = bool(result.exact)  # the solver's proof, or the player's search's
        value = 0.0 if result.score is None else (int(result.score) - offset) * s.units
        rows.append(state_row(st))
        search.append(value)
        proved.append(is_exact)
        offsets.append(offset)
        movers.append(int(board.turn))
        chosen = board.parse_move(result.move) if result.move else None
        best.append("" if chosen is None else board.move_name(chosen))
        if chosen is not None and rng.random() >= s.randomness:
            move = chosen
        else:
            legal = list(board.legal_moves)
            move = legal[rng.randrange(len(legal))]
        moves.append(board.move_name(move))
        board.push(move)
    ended = game.outcome_of(board) if board.is_game_over() else None
    winner = None if ended is None else ended.winner
    first_points = 0.5 if winner is None else 1.0 if winner == 1 else 0.0
    scores = game.scores(board) if game.has_scores else None
    outcome = []
    for offset, mover in zip(offsets, movers, strict=True):
        if ended is None:
            value = 0.0  # stopped at the ply cap: no result
        elif scores is not None:
            mine, theirs = (scores[0], scores[1]) if mover == 1 else (scores[1], scores[0])
            value = (mine - theirs - offset) * s.units
        else:
            value = 0.0 if winner is None else s.bound if winner == mover else -s.bound
        outcome.append(value)
    lab = np.array(search, dtype=np.float64)
    out = np.array(outcome, dtype=np.float64)
    if s.bound > 0:
        np.clip(lab, -s.bound, s.bound, out=lab)
        np.clip(out, -s.bound, s.bound, out=out)
    width = len(types)
    return SelfPlayGame(
        index, seed, pack_ctx(ctx0) if ctx0 is not None else b"", types,
        np.array(rows, dtype=np.int64).reshape(len(rows), width), lab, out,
        np.array(proved, dtype=bool), first_points, moves, time.perf_counter() - t0, best,
    )  # fmt: skip


def play_batch(s: Settings, indices: list[int]) -> list[SelfPlayGame]:
    """Games ``indices`` of the iteration, one after another in this process."""
    return [play_game(s, i) for i in indices]


def warm(s: Settings) -> None:
    """Start (and load the compiled code of) the engines before the first game."""
    from banmen.games.registry import get_game

    game = get_game(s.game)
    cache = _engines()
    cache.get(game, s.player)
    if s.exact:
        cache.get(game, s.exact)

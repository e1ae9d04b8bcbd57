"""Go analysis: the Monte-Carlo tree search's value of every move it looked at, live.

:func:`analyse` grows the Go engine's tree (:meth:`GoEngine.search_position
<banmen.games.go.engine.GoEngine.search_position>`) from a position and reads the root's
children (:mod:`banmen.analysis`'s records):

* one row per root move with at least one visit (the pass included), most visited first:
  kind ``"winrate"`` (never ``"exact"``), ``value`` the share of the simulations through
  the move that the side to move won (0-1; in a handicap game counted with the search's
  dynamic komi, ``Analysis.extra["search_komi"]``), ``visits``, ``pv`` the most visited
  line from the move (GTP vertices, the move first; ``depth`` its length), and ``extra``:

  - ``prior``: the search's prior knowledge of the move as a probability over the root's
    moves: the softmax of its prior win rate's log-odds divided by the policy's prior
    slope (``prior_scale``). With the learned priors (the default) that is the learned
    move weights' share of the candidate moves, the pass counted alike;
  - ``prior_winrate``: the prior win rate itself (the tree's virtual wins over virtual
    visits before any simulation);
  - ``lcb``: the Wilson lower bound (95%) of the win rate from ``visits`` simulations;

* ``Analysis.extra``: ``to_move`` (``"black"``/``"white"``), ``root_visits`` (the root's
  simulations, those of an earlier search of the same game kept in the tree included)
  and, with ``ownership_playouts``, the **estimates** of the position itself from that
  many playouts of the search's policy, the side to move moving first: ``ownership``,
  ``size * size`` floats in [-1, 1] from the **side to move's** point of view (+1: the
  point ends as the mover's in every playout), row by row from the **top** row (A19 on
  19x19 first, as KataGo's ``kata-analyze`` prints it), left to right; ``score_lead``,
  the side to move's lead in points: the playouts' mean final score, counted by area
  with the board's komi and handicap bonus; ``score_stdev``, its standard deviation over
  the playouts; and ``estimate_playouts``. They are what a cheap policy makes of the
  position, not a proof and not the search's opinion.

The tree keeps no final positions or scores of its playouts, so the estimates come from
playouts of their own (about 35 µs each on 9x9, 150 µs on 19x19), run once before the
search. There is no score per move: the same kind of playouts from the position after
each move were measured to be noise — 2,048 of them after five different second moves
on 9x9 agree within 1.5 points, while 64 of them scatter by about 5 points from one run
to the next (the final scores spread by some 33 points).

``on_update`` receives the whole table about every ``period`` seconds (never less than
0.95 of it apart) while the search runs (``stopped_by`` empty) and once at the end
(``stopped_by``: ``"time"``, ``"nodes"``, ``"stop"``, or ``"game_over"`` when the
position has no move to search). A limit with neither time nor playouts runs until
``stop`` is set (with no ``stop`` either, the engine's own limit applies). A time limit
is spent whole: the analysis does not end when the most visited move is settled, as a
move choice would.
"""

from __future__ import annotations

import math
import threading
import time
from typing import Any

import numpy as np
import numpy.typing as npt

from banmen.analysis import Analysis, MoveValue, OnUpdate
from banmen.games.go import kernels as K
from banmen.games.go import policy
from banmen.games.go.board import BLACK, Board, color_name, vertex_name
from banmen.games.go.engine import GoEngine
from banmen.games.go.game import Game, board_of
from banmen.games.go.sets import SCORING
from banmen.search.limits import Limit, StopFlag
from banmen.search.mcts import MctsInfo
from banmen.warm import ensure

__all__ = [
    "analyse",
    "estimate",
    "ownership_rows",
    "OWNERSHIP_PLAYOUTS",
    "PERIOD",
]

#: playouts of the ownership and score estimates of the position
OWNERSHIP_PLAYOUTS = 256
#: least seconds between two updates (at most ten a second)
PERIOD = 0.1
#: the longest principal variation reported
PV_LENGTH = 20
#: the normal quantile of the win rate's lower confidence bound (95%, one-sided 97.5%)
LCB_Z = 1.96


_local = threading.local()


def _default_engine() -> GoEngine:
    """The analyses' engine when none is given: one per thread (a tree is searched by
    one analysis at a time), kept for the thread's next analysis."""
    engine: GoEngine | None = getattr(_local, "engine", None)
    if engine is None:
        engine = _local.engine = GoEngine(name="analysis")
    return engine


def _lcb(p: float, n: int, z: float = LCB_Z) -> float:
    """Wilson's lower confidence bound of a win rate ``p`` from ``n`` simulations."""
    if n <= 0:
        return 0.0
    z2 = z * z
    centre = p + z2 / (2 * n)
    margin = z * math.sqrt(max(p * (1 - p), 0.0) / n + z2 / (4 * n * n))
    return max(0.0, (centre - margin) / (1 + z2 / n))


#: the fewest playouts an estimate makes, whatever its deadline
ESTIMATE_LEAST = 16
#: the share of an analysis's time its ownership estimate may take (the search gets the rest)
ESTIMATE_SHARE = 0.25


def estimate(
    ctx: Any,
    pos: K.Position,
    playouts: int,
    seed: int,
    komi: float,
    until: float | None = None,
) -> tuple[npt.NDArray[np.int64], list[float]]:
    """``playouts`` playouts of the policy (``ctx``: :func:`.policy.context`) from
    ``pos``, its side to move first: the summed final ownership of every point (+1 black,
    -1 white, per playout, by the stride's point index) and each playout's final score
    for black (area, less ``komi``). With ``until`` (``time.perf_counter()``), fewer once
    it has passed (at least :data:`ESTIMATE_LEAST`): ``len(scores)`` says how many."""
    own = np.zeros(len(pos.board), dtype=np.int64)
    one = np.zeros_like(own)
    scores: list[float] = []
    for i in range(playouts):
        if until is not None and i >= ESTIMATE_LEAST and time.perf_counter() > until:
            break
        one[:] = 0
        policy.playout_ownership(ctx, pos, 1, seed + i, one)
        own += one
        scores.append(float(one.sum()) - komi)  # a point's owner is +1, -1 or 0
    return own, scores


def ownership_rows(own: npt.NDArray[np.int64], size: int, playouts: int, sign: int) -> list[float]:
    """The summed ownership ``own`` of ``playouts`` playouts as ``size * size`` means
    from one side's view (``sign`` +1 black, -1 white), row by row from the top."""
    s = size + 2
    return [
        round(sign * float(own[r * s + c]) / playouts, 3)
        for r in range(size, 0, -1)
        for c in range(1, size + 1)
    ]


def _priors(engine: GoEngine, ctx: Any, pos: K.Position) -> dict[int, tuple[float, float]]:
    """Each root move's prior: (probability, prior win rate); see the module docstring."""
    k = engine.search.kernels
    moves = np.zeros(k.max_moves, dtype=np.int64)
    pn = np.zeros(k.max_moves, dtype=np.float64)
    pw = np.zeros(k.max_moves, dtype=np.float64)
    n = int(k.expand(ctx, pos.copy().arrays(), moves, pn, pw))
    if n == 0:
        return {}
    q = np.clip(pw[:n] / np.maximum(pn[:n], 1e-9), 1e-6, 1 - 1e-6)
    slope = max(engine.params.get("prior_scale", policy.PARAMS["prior_scale"]), 1) / 1000
    logits = np.log(q / (1 - q)) / slope
    share = np.exp(logits - logits.max())
    share /= share.sum()
    return {int(m): (float(p), float(w)) for m, p, w in zip(moves[:n], share, q, strict=True)}


def analyse(
    board: Board | Game,
    limit: Limit,
    on_update: OnUpdate | None = None,
    stop: StopFlag | None = None,
    engine: GoEngine | None = None,
    *,
    period: float = PERIOD,
    ownership_playouts: int = OWNERSHIP_PLAYOUTS,
    max_moves: int | None = None,
) -> Analysis:
    """The value of the moves of ``board``'s side to move by the engine's tree search
    (module docstring), within ``limit`` (``time`` wall-clock seconds, ``nodes``
    playouts; ``depth`` is ignored) or until ``stop``. ``engine`` (a
    :class:`~banmen.games.go.engine.GoEngine`; by default one per thread, kept for the
    analyses) keeps its tree for its next search of the same game.
    ``ownership_playouts`` (0: none) are the estimates' playouts; ``max_moves`` keeps
    that many rows at most."""
    eng = engine if engine is not None else _default_engine()
    eng.warm_up()  # the search's code loaded, and the estimate's, before the clock starts
    if ownership_playouts > 0:
        ensure(SCORING)
    t0 = time.perf_counter()
    b = board_of(board)
    size = b.size
    mover = b.turn
    sign = 1 if mover == BLACK else -1
    flag = stop if stop is not None else StopFlag()
    if stop is None and limit.time is None and limit.nodes is None:
        limit = eng.limit  # nothing would end it
    period = max(period, 0.01)
    pos = b.position
    search_komi = eng.search_komi(b)
    komi = b.komi + b.rules.handicap_bonus(b.handicap)
    ctx = policy.context(size, search_komi, eng.weights, **eng.params)
    seed = (eng.seed * 1_000_003 + len(b.move_stack)) & 0xFFFFFFFF

    extra: dict[str, Any] = {"to_move": color_name(mover)}
    if search_komi != komi:
        extra["search_komi"] = search_komi
    if ownership_playouts > 0:
        # the estimate takes at most its share of the time: the limit holds on any machine
        until = None if limit.time is None else t0 + ESTIMATE_SHARE * limit.time
        own, scores = estimate(ctx, pos, ownership_playouts, seed, komi, until)
        mean = sum(scores) / len(scores)
        var = sum((x - mean) ** 2 for x in scores) / len(scores)
        extra["ownership"] = ownership_rows(own, size, len(scores), sign)
        extra["score_lead"] = round(sign * mean, 2)
        extra["score_stdev"] = round(math.sqrt(var), 2)
        extra["estimate_playouts"] = len(scores)
    priors = _priors(eng, ctx, pos)

    def table() -> list[MoveValue]:
        rows: list[MoveValue] = []
        search = eng.search
        for c in search.children():
            if c.visits == 0:
                continue
            if max_moves is not None and len(rows) >= max_moves:
                break
            pv = [vertex_name(m, size) for m in search.child_pv(c.move, PV_LENGTH)]
            more: dict[str, Any] = {}
            if c.move in priors:
                p, q = priors[c.move]
                more["prior"] = round(p, 4)
                more["prior_winrate"] = round(q, 4)
            more["lcb"] = round(_lcb(c.winrate, c.visits), 4)
            name = vertex_name(c.move, size)
            rows.append(
                MoveValue(name, round(c.winrate, 4), "winrate", len(pv), c.visits, pv, more)
            )
        return rows

    last = [0.0]

    def publish(playouts: int, why: str) -> Analysis:
        out = Analysis("go", table(), time.perf_counter() - t0, playouts, why,
                       {**extra, "root_visits": eng.search.root_visits})  # fmt: skip
        last[0] = time.perf_counter()
        if on_update is not None:
            on_update(out)
        return out

    def relay(mi: MctsInfo) -> None:
        # the search reports twice a period: an update comes every 0.95-1.5 periods
        if on_update is not None and time.perf_counter() - last[0] >= 0.95 * period:
            publish(mi.playouts, "")

    seconds = limit.time
    if seconds is not None:
        seconds = max(0.005, seconds - (time.perf_counter() - t0))
    last[0] = time.perf_counter()
    r = eng.search_position(
        b, Limit(time=seconds, nodes=limit.nodes), stop=flag, on_info=relay, info_period=period / 2
    )
    return publish(r.playouts, r.stopped_by)

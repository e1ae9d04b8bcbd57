"""The Go player: Monte-Carlo tree search (:mod:`banmen.search.mcts`) with the Go playout
policy and priors of :mod:`.policy`.

What :meth:`GoEngine.think` returns:

* ``move``: a GTP vertex, ``"pass"``, ``"resign"``, or ``None`` once the game is over.
  ``"resign"`` is not a board move: a game record reads it
  (:meth:`Game.parse_move <banmen.games.go.game.Game.parse_move>`) and ends the game.
* ``score``: the chosen move's **win rate** for the player to move, in per cent (0-100):
  the share of simulations through that move that it won. Never exact (``exact`` is
  false); ``nodes`` counts playouts, ``depth`` is the length of the principal variation.

It thinks about a board or a game record (:class:`~.game.Game`, as the arena and the web
app hold it). Moves the engine never considers: filling its own single-point eye (see
:func:`.kernels.is_eye`); illegal moves by the board's rules (superko included, at the
root); in the tree and the playouts, superko is ignored and suicide is never played.

Passing and resigning:

* If the opponent has just passed and the engine wins the count with the stones
  :func:`~banmen.games.go.estimate.estimate_dead` calls dead removed (how the game is
  counted when the players agree on them: the arena asks both, GTP tools ask
  ``final_status_list``), it passes at once, rather than capturing dead stones or filling
  its own area; under rules that count the board as it stands (``friendly_pass_ok`` off:
  Tromp-Taylor) it must win that count too. If the players disagree, the arena plays the
  game on (:mod:`~banmen.games.go.settle`), and :meth:`GoEngine.think_cleanup` then
  captures those stones instead of passing.
* Otherwise the pass is one of the root's moves; a finished game (two passes) inside the
  tree is scored by area counting with every stone alive (Tromp-Taylor), so the search
  only passes when the game as it stands is won — or when nothing else is better.
* It resigns when the best move's win rate is below ``resign`` (default 5%) after at
  least ``resign_visits`` simulations through the root (reused ones included).

Handicap games: the search adds a *dynamic komi* for white (:func:`dynamic_komi`: 7
points a handicap stone, falling linearly to nothing over about 200 moves on 19x19), so that
neither side's search sees every move as won or lost while the handicap decides the
count; the win rate it reports is then counted with that komi (``Result.extra``'s
``search_komi``).

PUCT (``GoEngine(puct=True)``, a ``puct`` spec's kind through :meth:`GoEngine.from_spec`):
the same loop with AlphaZero's selection (:mod:`banmen.search.mcts`): the priors are the
learned policy's move probabilities (its virtual win rates read back:
:func:`~banmen.search.mcts.visit_priors`), each new leaf is valued by one playout of the
policy, and there is no AMAF. At equal playouts it is weaker than the default UCT-RAVE
(2 of 10 games at 1,000 playouts on 9x9): an option for an evaluator to come, not the
default.

Counting: playouts and finished games in the tree are counted by area, with the board's
komi and handicap bonus for white — the Chinese rules the engine is made for; under
territory rules the search's count differs from the rules' by prisoners and seki.

Time: ``Limit(time=S)`` is spent on the move, minus a few milliseconds for the work around
the search, unless the most visited move can no longer be overtaken
(:attr:`MCTS.early_stop <banmen.search.mcts.MCTS.early_stop>`: less time on obvious
moves). With a ``target`` (a clock-driven controller's wish, GTP's ``time_settings``) it
aims at the target — stopping early only past half of it (:data:`EARLY_STOP_FLOOR`) —
and goes on towards ``time`` in steps of the target while the choice is unsettled
(:meth:`GoEngine._unsettled`: more time on critical moves). Tree reuse: after the moves
played since its last search (its own and the opponent's), the engine keeps the
subtree under them; :meth:`GoEngine.new_game` clears it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import numpy as np

from banmen._random import mix_seed
from banmen.engine import Engine, Info, PlayerSpec, Request, Result
from banmen.games.go import kernels as K
from banmen.games.go import policy
from banmen.games.go.board import BLACK, PASS, Board, vertex_name
from banmen.games.go.estimate import estimate_dead
from banmen.games.go.features import Weights
from banmen.games.go.game import RESIGN_NAME, Game, board_of
from banmen.games.go.scoring import capturing_move
from banmen.games.go.sets import LOOP, SCORING, SEARCH, THREADS
from banmen.search.limits import Limit, StopFlag
from banmen.search.mcts import MCTS, MctsInfo, MctsResult
from banmen.warm import beside, ensure

__all__ = ["GoEngine", "DEFAULT_LIMIT", "dynamic_komi"]

#: the limit when neither the spec nor the caller gives one
DEFAULT_LIMIT = Limit(time=1.0)
#: seconds kept back from a time limit for the work around the search
_MARGIN = 0.03
#: PUCT's exploration constant (``puct=True``)
PUCT_C = 2.5
#: on a clock, a search stops early (its best move cannot be overtaken) only after this
#: share of its target: on 9x9 the early stop ended moves at 0.8 s of a 2.2 s target, and
#: games were decided with most of the clock unused (issue 40)
EARLY_STOP_FLOOR = 0.5
#: past a clock's target a search goes on while the most visited move has fewer than
#: this many times the visits of the second (or the second wins more often)
SETTLED_LEAD = 1.5


#: Linear dynamic komi (as Pachi's ``dynkomi=linear`` for handicap games): each handicap
#: stone is worth about 7 points, and the extra komi falls to nothing over the first
#: ``DYNKOMI_SHARE`` of the board's points in moves (200 moves on 19x19).
DYNKOMI_PER_STONE = 7.0
DYNKOMI_SHARE = 200 / 361


def dynamic_komi(board: Board) -> float:
    """The extra komi for white the search adds in a handicap game after
    ``len(board.move_stack)`` moves, in whole points (0 in an even game).

    >>> b = Board(19, "chinese", 0.5)
    >>> _ = b.fixed_handicap(4)
    >>> dynamic_komi(b)
    28.0
    >>> for _ in range(100):
    ...     b.push(next(m for m in b.legal_moves if m != PASS))
    >>> dynamic_komi(b), dynamic_komi(Board(9))
    (14.0, 0.0)
    """
    if board.handicap < 2:
        return 0.0
    horizon = DYNKOMI_SHARE * board.size * board.size
    left = max(0.0, 1.0 - len(board.move_stack) / horizon)
    return float(round(DYNKOMI_PER_STONE * board.handicap * left))


def widen_for(size: int) -> int:
    """The progressive widening the engine uses on a board of ``size`` by default
    (:attr:`MCTS.widen`; 0: none): from the 8 best moves by prior on 13x13 and larger,
    none on smaller boards, where the priors and AMAF already cover the few moves. On
    19x19 at 3,000 playouts it picks GNU Go level 10's move in 70 of 561 positions
    against 57 without (``tools/go_agreement.py``, docs/BENCHMARKS.md)."""
    return 8 if size >= 13 else 0


def _no_bound(limit: Limit) -> bool:
    """Neither a time nor a playout limit (a depth means nothing to this search)."""
    return limit.time is None and limit.nodes is None and not limit.timed


class GoEngine(Engine[Board | Game]):
    """``think(board, limit, on_info, stop) -> Result`` for Go (module docstring).

    ``limit`` is the player's default (``Limit(time=...)`` seconds per move,
    ``Limit(nodes=...)`` playouts; a limit with neither, given here or to :meth:`think`,
    means the default, one second); ``seed`` fixes the playouts' random numbers (with a
    playout limit the games are then reproducible); ``resign`` and ``resign_visits``
    set the resignation rule; ``capacity`` the tree's size in nodes; ``params`` override
    the policy's prior weights and probabilities (:data:`.policy.PARAMS`).
    """

    ends_at_game_over = True  # a record's end (a resignation, counting) included

    def __init__(
        self,
        limit: Limit | None = None,
        seed: int | None = None,
        name: str = "mcts",
        *,
        resign: float = 0.05,
        resign_visits: int = 500,
        capacity: int = 1 << 22,
        dynamic_komi: bool = True,
        threads: int = 1,
        widen: int | None = None,
        puct: bool = False,
        weights: Weights | None = None,
        **params: int,
    ) -> None:
        self.limit = DEFAULT_LIMIT if limit is None or _no_bound(limit) else limit
        self.seed = 0 if seed is None else seed
        self.name = name
        self.resign = resign
        self.resign_visits = resign_visits
        self.dynamic_komi = dynamic_komi
        self.params = params
        #: the learned move weights the priors and playouts use (the ``policy`` evaluator's
        #: file); ``None``: those banmen ships for the board's size
        self.weights = weights
        #: the last move's search went on past its limit's target (it was unsettled)
        self.extended = False
        policy.context(9, 7.5, **params)  # a bad parameter name fails here
        #: PUCT instead of UCT-RAVE (:class:`~banmen.search.mcts.MCTS`'s ``puct``): the
        #: policy's priors as probabilities, each new leaf valued by one playout
        self.puct = puct
        self.search = MCTS(policy.kernels(), capacity, threads=threads, puct=puct,
                           c_puct=PUCT_C)  # fmt: skip
        #: progressive widening (:attr:`MCTS.widen`); ``None``: by board size
        #: (:data:`WIDEN`)
        self.widen = widen
        self._ctx: dict[tuple[int, float], Any] = {}
        self._scratch: dict[int, list[tuple[Any, Any, Any]]] = {}
        self._root: tuple[int, float, list[int], list[int], K.Position] | None = None
        self._rng = mix_seed(self.seed)

    @property
    def threads(self) -> int:
        """Threads searching one tree for a move (:attr:`MCTS.threads`)."""
        return self.search.threads

    @classmethod
    def from_spec(cls, spec: PlayerSpec, evaluator: Any = None) -> GoEngine:
        """The engine of an ``mcts:time=S,playouts=N,seed=N,threads=N,learned=0|1,widen=N``
        player spec; a spec of kind ``puct`` (same options) searches by PUCT; ``evaluator``
        (``+policy:weights=FILE``: a :class:`~banmen.games.go.evaluators.GoPolicy`) brings the
        move weights."""
        o = spec.options
        limit = Limit(time=o.get("time"), nodes=o.get("playouts"))
        params = {"learned": o["learned"]} if "learned" in o else {}
        return cls(limit, seed=o.get("seed"), name=spec.text, threads=o.get("threads", 1),
                   widen=o.get("widen"), puct=spec.kind == "puct",
                   weights=None if evaluator is None else evaluator.weights,
                   **params)  # fmt: skip

    def final_dead(self, board: Board | Game) -> list[str]:
        """The stones this engine calls dead in ``board``'s position
        (:func:`~banmen.games.go.estimate.estimate_dead`), as sorted vertices."""
        b = board_of(board)
        return sorted(vertex_name(p, b.size) for p in estimate_dead(b, seed=self.seed))

    def think_cleanup(self, board: Board | Game, limit: Limit | None = None) -> Result:
        """The move in a cleanup (the game goes on after two passes because the players
        named different dead stones, and is then counted with every stone alive: the
        arena's :mod:`~banmen.games.go.settle`): :meth:`think`'s, except that a pass is
        replaced by a capture while stones of the opponent that this engine calls dead
        (:meth:`final_dead`'s estimate of the position) remain — a legal liberty of such
        a chain (:func:`~banmen.games.go.scoring.capturing_move`). ``board`` is a position
        going on (:meth:`Game.going_on <banmen.games.go.game.Game.going_on>`)."""
        result = self.think(board, limit)
        if result.move is None or result.move.lower() != "pass":
            return result
        b = board_of(board)
        move = capturing_move(b, estimate_dead(b, seed=self.seed), b.turn)
        if move == PASS:
            return result
        name = vertex_name(move, b.size)
        return replace(result, move=name, pv=[name], depth=1)

    def new_game(self) -> None:
        """Forget the tree and restart the random numbers: the next game depends on
        nothing played before."""
        self.search.clear()
        self._root = None
        self._rng = mix_seed(self.seed)
        self._seed_scratch()

    def reseed(self, seed: int) -> None:
        """Make the playouts' random numbers a function of the engine's seed and ``seed``
        (after :meth:`new_game`; the arena gives one per game and side)."""
        self._rng = mix_seed(self.seed ^ mix_seed(seed))
        self._seed_scratch()

    def _seed_scratch(self) -> None:
        """Each thread's playouts draw from their own generator, seeded from the engine's."""
        for states in self._scratch.values():
            for t, st in enumerate(states):
                st[2][K.M_RNG] = self._rng if t == 0 else mix_seed(self._rng + t)

    def warm_up(self) -> None:
        """Load (or compile, the first time ever) the search and the tree reuse now (the
        dead-stone estimate, then the search's loop, in a second process meanwhile:
        :func:`banmen.warm.beside`)."""
        search = SEARCH if self.threads == 1 else THREADS
        beside(SCORING, LOOP, while_=search)
        ensure(search)
        ensure(SCORING)  # (its moves after a pass count the board: estimate_dead)

    # ---- helpers

    def search_komi(self, board: Board) -> float:
        """The komi the search counts with: the board's, plus the handicap bonus, plus in
        a handicap game a *dynamic komi* for white that shrinks linearly to nothing
        (:func:`dynamic_komi`), so that the search keeps telling good moves from bad
        while one side leads by the handicap."""
        komi = board.komi + board.rules.handicap_bonus(board.handicap)
        return komi + (dynamic_komi(board) if self.dynamic_komi else 0.0)

    def _context(self, board: Board) -> Any:
        komi = self.search_komi(board)
        key = (board.size, komi)
        ctx = self._ctx.get(key)
        if ctx is None:
            ctx = self._ctx[key] = policy.context(board.size, komi, self.weights, **self.params)
        return ctx

    def _scratch_for(self, pos: K.Position) -> Any:
        """The playouts' scratch state (one per thread: a list with threads > 1)."""
        states = self._scratch.get(pos.size)
        if states is None:
            states = self._scratch[pos.size] = [pos.copy().arrays() for _ in range(self.threads)]
            self._seed_scratch()
        return states if self.threads > 1 else states[0]

    def _reuse(self, board: Board) -> bool:
        """Move the tree's root to ``board``'s position if the tree was searched from an
        earlier position of the same game."""
        if self._root is None:
            return False
        size, komi, stack, colors, pos = self._root
        n = len(stack)
        if (
            size != board.size
            or komi != board.komi
            or len(board.move_stack) < n
            or board.move_stack[:n] != stack
            or board.colors[:n] != colors
        ):
            return False
        new = board.move_stack[n:]
        trial = pos.copy()
        for m, c in zip(new, board.colors[n:], strict=True):
            if c != trial.turn:
                return False
            K.play(trial.board, trial.grp, trial.meta, m, c)
        now = board.position
        same = (
            np.array_equal(trial.board, now.board)
            and trial.turn == now.turn
            and trial.ko == now.ko
            and int(trial.meta[K.M_PASSES]) == int(now.meta[K.M_PASSES])
        )
        return same and self.search.advance(new)

    def _unsettled(self) -> bool:
        """Is the root's choice still open: the most visited move has less than
        :data:`SETTLED_LEAD` times the second's visits, or the second has the better win
        rate? (Then a clock-driven search goes on past its target.)"""
        kids = self.search.children()
        if len(kids) < 2 or kids[0].visits == 0:
            return False
        a, b = kids[0], kids[1]
        return a.visits < SETTLED_LEAD * b.visits or b.winrate > a.winrate

    def _pass_is_safe(self, board: Board) -> bool:
        """Does the side to move win by passing now (the opponent having passed), counted
        with the dead stones :func:`estimate_dead` names removed — as the game is counted
        when the players agree on them (the arena asks both, GTP tools ask
        ``final_status_list``)? Then capturing dead stones or filling its own area
        would only waste moves. Under rules that count the board as it stands
        (``friendly_pass_ok`` off: Tromp-Taylor) it must also win that count."""
        me = board.turn
        sign = 1 if me == BLACK else -1
        if not board.rules.friendly_pass_ok and board.score().margin * sign <= 0:
            return False  # counted as the board stands (Tromp-Taylor): capture them first
        try:
            dead = estimate_dead(board, playouts=256, seed=self.seed)
            return board.score(dead).margin * sign > 0
        except ValueError:  # pragma: no cover - the estimate never marks pass-alive stones
            return False

    def root_moves(self, board: Board) -> set[int]:
        """The moves the search considers at the root of ``board``: every legal move
        (superko included) but filling the mover's own single-point eye; the pass always."""
        pos = board.position
        turn = board.turn
        s = board.stride
        return {
            int(p)
            for p in board.legal_moves
            if p == PASS or not K.is_eye(pos.board, int(p), turn, s)
        }

    def _prepare(self, board: Board) -> tuple[Any, Any, Any]:
        """Make ``board``'s position the tree's root (keeping the subtree of an earlier
        search of the same game) and set the search up for its size: (ctx, root state,
        scratch state)."""
        pos = board.position
        if not self._reuse(board):
            self.search.clear()
        self._root = (board.size, board.komi, list(board.move_stack), list(board.colors),
                      pos.copy())  # fmt: skip
        ctx = self._context(board)
        self.search.widen = self.widen if self.widen is not None else widen_for(board.size)
        # bigger boards: more children per node, fewer playouts; expand less eagerly
        size = board.size
        self.search.expand_threshold = 2 if size <= 9 else 3 if size <= 13 else 4
        return ctx, pos.copy().arrays(), self._scratch_for(pos)

    def search_position(
        self,
        board: Board | Game,
        limit: Limit,
        *,
        stop: StopFlag | None = None,
        on_info: Callable[[MctsInfo], None] | None = None,
        info_period: float = 0.25,
    ) -> MctsResult:
        """Grow the tree of ``board``'s position within ``limit`` without choosing a move
        (an analysis: :mod:`.analysis`), then read it through :attr:`search`
        (:meth:`MCTS.children <banmen.search.mcts.MCTS.children>`, ...). Unlike
        :meth:`think` it never passes or resigns at once and never stops early because
        the most visited move is settled: a time limit is spent whole; a limit with
        neither time nor playouts runs until ``stop`` is set. The tree is kept for the
        next search of the same game, as after :meth:`think`."""
        b = board_of(board)
        allowed = self.root_moves(b)
        ctx, root, scratch = self._prepare(b)
        bound = Limit(time=limit.time, nodes=limit.nodes)
        if _no_bound(bound):
            bound = Limit(nodes=1 << 62)  # until stopped
        early = self.search.early_stop
        self.search.early_stop = False
        try:
            return self.search.search(ctx, root, scratch, bound, stop=stop, on_info=on_info,
                                      allowed=allowed, info_period=info_period)  # fmt: skip
        finally:
            self.search.early_stop = early

    # ---- thinking

    def limit_for(self, limit: Limit | None) -> Limit:
        return self.limit if limit is None or _no_bound(limit) else limit

    def choose(self, board: Board | Game, request: Request) -> Result:
        def early(move: str, stopped_by: str) -> Result:
            return Result(move, stopped_by=stopped_by, seconds=request.elapsed())

        board = board_of(board)
        allowed = self.root_moves(board)
        if allowed == {PASS}:
            return early("pass", "game_over")
        if board.move_stack and board.move_stack[-1] == PASS and self._pass_is_safe(board):
            return early("pass", "game_over")

        ctx, root, scratch = self._prepare(board)
        size = board.size

        def names(pv: list[int]) -> list[str]:
            return [vertex_name(m, size) for m in pv]

        relay = None
        if request.on_info is not None:
            callback = request.on_info

            def relay(mi: MctsInfo) -> None:
                callback(Info(len(mi.pv), round(100 * mi.winrate), mi.playouts, mi.nps,
                              names(mi.pv), mi.seconds))  # fmt: skip

        limit = request.limit
        seconds = limit.time
        if seconds is not None:
            aim = limit.target if limit.target is not None else seconds
            seconds = max(0.005, aim - request.elapsed() - _MARGIN)
        floor = 0.0 if limit.target is None or seconds is None else EARLY_STOP_FLOOR * seconds
        r = self.search.search(
            ctx, root, scratch, Limit(time=seconds, nodes=limit.nodes),
            stop=request.stop, on_info=relay, allowed=allowed, min_seconds=floor,
        )  # fmt: skip
        playouts = r.playouts
        self.extended = False
        # past the target, while the search is unsettled: up to the hard limit
        while (
            limit.target is not None
            and limit.time is not None
            and r.stopped_by == "time"
            and self._unsettled()
            and (limit.nodes is None or playouts < limit.nodes)
        ):
            left = limit.time - request.elapsed() - _MARGIN
            if left < 0.05:
                break
            nodes = None if limit.nodes is None else limit.nodes - playouts
            self.extended = True
            r = self.search.search(
                ctx, root, scratch, Limit(time=min(left, limit.target), nodes=nodes),
                stop=request.stop, on_info=relay, allowed=allowed, min_playouts=1,
            )  # fmt: skip
            playouts += r.playouts
        if r.move is None:  # pragma: no cover - the root always has the pass
            return early("pass", r.stopped_by)
        move = vertex_name(r.move, size)
        if r.winrate < self.resign and self.search.root_visits >= self.resign_visits:
            move = RESIGN_NAME
        search_komi = self.search_komi(board)
        real_komi = board.komi + board.rules.handicap_bonus(board.handicap)
        return Result(
            move=move,
            score=round(100 * r.winrate),
            depth=len(r.pv),
            nodes=playouts,
            nps=playouts / max(request.elapsed(), 1e-9),
            pv=names(r.pv),
            exact=False,
            stopped_by=r.stopped_by,
            seconds=request.elapsed(),
            # the win rate is counted with this komi, not the game's
            extra={"search_komi": search_komi} if search_komi != real_komi else {},
        )

    def analysis(self, board: Board) -> list[tuple[str, int, float]]:
        """After :meth:`think` on ``board``: its root moves as (vertex, visits, win
        rate), most visited first."""
        return [(vertex_name(c.move, board.size), c.visits, c.winrate)
                for c in self.search.children()]  # fmt: skip


def _load_search(threads: int = 1) -> None:
    """The expansion called from Python, then three moves of a few playouts each on 9x9:
    the search, its tree reuse, the learned priors' features (ladders included) and the
    playouts."""
    engine = GoEngine(threads=threads, capacity=1 << 14)
    board = Board(9)
    # First what needs no playout: the expansion (the learned priors), as the analysis's
    # priors call it from Python (banmen._jit makes a callee's machine code only then),
    # while a helper process may compile the playouts (the estimate: GoEngine.warm_up);
    # the search's own compile then finds them in the cache.
    k = engine.search.kernels
    moves, pn, pw = np.zeros(k.max_moves, np.int64), np.zeros(k.max_moves), np.zeros(k.max_moves)
    k.expand(engine._context(board), board.position.copy().arrays(), moves, pn, pw)
    ensure(SCORING)
    # then the other kernels (the playouts' code from the estimate's cache), and the loop
    # that calls them through pointers (compiled apart: a helper may have it by now)
    ctx, root, scratch = engine._prepare(board)
    engine.search.compile_kernels(ctx, root, scratch[0] if threads > 1 else scratch)
    ensure(LOOP)
    for _ in range(3):
        r = engine.think(board, Limit(nodes=64))
        board.push(board.parse_move(r.move or "pass"))


def _load_loop() -> None:
    """The search's loop (:meth:`MCTS.compile_loop <banmen.search.mcts.MCTS.compile_loop>`)
    for Go's kernels, from the types of a position alone: nothing of Go compiles with it,
    so a helper process can do it while another compiles the rules and the priors."""
    engine = GoEngine(capacity=1 << 14)
    s = K.MAX_SIZE + 2
    pos = K.Position(np.zeros(s * s, np.int8), np.zeros(8 * s * s, np.int32),
                     np.zeros(K.META_LEN, np.int64))  # fmt: skip
    engine.search.compile_loop(policy.context(9, 7.5), pos.copy().arrays(), pos.arrays())


def _load_threads() -> None:
    _load_search(2)

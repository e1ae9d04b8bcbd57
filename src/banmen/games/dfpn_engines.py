"""The df-pn player for any game with alpha-beta kernels: proofs of a win, a draw or a loss.

:class:`ProofEngine` runs the compiled df-pn (:mod:`banmen.search.dfpn`) over a game's
alpha-beta kernels (``GameDef.kernels``) through the generic adapter
(:mod:`banmen.search.dfpn_rules`). It asks "does the side to move win?" — the game's value
of the position (the points banked so far, ``GameDef.score_offset``, and what the rest of
the game banks and ends with) greater than 0 — and, when that is disproved, "does it at
least draw?" (the value 0 or more). What :meth:`ProofEngine.think` returns says what was
proved, in :attr:`Result.extra["proof"] <banmen.engine.Result.extra>`:

* ``"win"``: a forced win, proved. ``move`` wins (every reply loses), ``exact``,
  ``score`` 1, ``pv`` a line the proof holds for (the winner's proved moves and, at the
  loser's turns, the reply that holds out longest in the proof: not necessarily the
  quickest win nor the longest defence), ``depth`` its plies.
* ``"draw"``: no win (disproved), a draw held (proved): ``move`` keeps it, ``exact``,
  ``score`` 0, ``pv`` a line as above.
* ``"loss"``: no move escapes a loss (both questions disproved): ``exact``, ``score`` -1;
  ``move`` is the game's first move in its own order (any move loses to perfect play).
* ``"no win"``: no win (disproved), but the draw question was stopped by the limit: a
  loss or a draw, unknown which. Not ``exact``; ``score`` ``None``.
* ``"unproved"``: the limit stopped the first question: nothing is claimed — a limit is
  never "no win". Not ``exact``, ``score`` ``None``; ``move`` is the root's most proving
  child for the question it was on (the least proof number), a guess.

``score`` is the sign of a proved value (df-pn proves who wins, not by how much);
``stopped_by`` is ``"exact"`` for a proved answer, else the limit that stopped it
(``time``, ``nodes``, ``stop``, ``memory``); ``extra`` also holds ``length`` (the plies of
the line df-pn proved), ``asked`` (the questions settled), ``reason`` (the solver's word
for the limit) and, unproved, the root's ``pn``/``dn``. Progress comes every 0.1 s as
:class:`~banmen.engine.Info` with ``extra`` ``pn``, ``dn`` (``"inf"`` when infinite) and
``phase`` (``win`` or ``draw``: the question being asked).

Limits: ``Limit(time=S)`` and ``Limit(nodes=N)`` (df-pn's nodes) bound both questions
together; a depth means nothing here. With neither, the engine's own (default
:data:`DEFAULT_LIMIT`). Each move is proved afresh, in a table of ``hash_mb`` MB given
back when it ends. :func:`dfpn_engine` builds one from a player spec (``time``,
``nodes``, ``hash``); each game's ``dfpn`` kernel set (:func:`load_dfpn`) compiles it
before any clock starts.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from banmen.engine import Engine, GameBoard, Info, PlayerSpec, Request, Result, SpecError
from banmen.search.kinds import DFPN_DEFAULT_LIMIT
from banmen.search.limits import Limit

if TYPE_CHECKING:  # the compiled search is imported by the first engine built
    from banmen.games._base import GameDef
    from banmen.search.dfpn_rules import ProofAnswer, RulesProof

__all__ = ["ProofEngine", "dfpn_engine", "load_dfpn", "proof_result", "DEFAULT_LIMIT",
           "DEFAULT_HASH_MB"]  # fmt: skip

#: the limit when neither the spec nor the caller gives a time or a node bound
DEFAULT_LIMIT = DFPN_DEFAULT_LIMIT
#: the table of one move's proof, in MB
DEFAULT_HASH_MB = 64
#: the solver's reasons for stopping, as ``Result.stopped_by`` says them
_STOPPED_BY = {"timeout": "time", "node_limit": "nodes", "stopped": "stop", "memory": "memory"}
#: the sign of each proved answer (``Result.score``)
_SIGN = {"win": 1, "draw": 0, "loss": -1}


def _no_bound(limit: Limit) -> bool:
    """Neither a time nor a node limit (a depth means nothing to df-pn)."""
    return limit.time is None and limit.nodes is None and not limit.timed


class ProofEngine(Engine[GameBoard]):
    """``think(board, limit, on_info, stop) -> Result`` by df-pn over ``game``'s alpha-beta
    kernels (module docstring). ``limit`` is the player's default (``Limit()``: prove to
    the end, however long); ``hash_mb`` sizes each move's table."""

    ends_at_game_over = True

    def __init__(
        self,
        game: GameDef[Any],
        limit: Limit | None = None,
        name: str | None = None,
        hash_mb: int = DEFAULT_HASH_MB,
    ) -> None:
        if game.kernels is None or game.search_position is None:
            raise SpecError(f"{game.title} has no alpha-beta kernels: no df-pn over them")
        from banmen.search.dfpn_rules import RulesProof  # (see the note at the imports)

        self.game = game
        self.limit = DEFAULT_LIMIT if limit is None else limit
        self.name = name or "dfpn"
        self.hash_mb = hash_mb
        self.rules: RulesProof = RulesProof(game.kernels)

    def warm_up(self) -> None:
        """Load (or compile, the first time ever) the solver now: the game's ``dfpn``
        kernel set, or :func:`load_dfpn` if it names none."""
        ks = self.game.kernel_set("dfpn")
        if ks is not None:
            from banmen.warm import ensure

            ensure(ks)
        else:
            load_dfpn(self.game)

    def limit_for(self, limit: Limit | None) -> Limit:
        return self.limit if limit is None or _no_bound(limit) else limit

    def choose(self, board: GameBoard, request: Request) -> Result:
        from banmen.search.dfpn_rules import ProofAnswer, prove

        assert self.game.search_position is not None and self.game.kernels is not None
        gctx, state = self.game.search_position(board)
        banked = int(self.game.score_offset(board))
        # the game's bound on the plies left (-1: none), from its compiled kernel
        horizon = int(self.game.kernels.horizon(gctx, state))
        progress: Callable[[dict[str, Any]], None] | None = None
        if request.on_info is not None:
            callback = request.on_info

            def progress(info: dict[str, Any]) -> None:
                callback(progress_info(info))

        limit = request.limit
        seconds = limit.time if limit.target is None else limit.target  # (a clock's aim)
        if seconds is not None:
            seconds = max(0.001, seconds - request.elapsed())
        try:
            answer = prove(self.rules, gctx, state, banked, Limit(time=seconds, nodes=limit.nodes),
                           stop=request.stop, progress=progress, hash_mb=self.hash_mb,
                           horizon=horizon)  # fmt: skip
        except MemoryError:  # the table itself could not be had
            answer = ProofAnswer("unknown", board.legal_moves[0], reason="memory")
        return proof_result(answer, board.move_name, request.elapsed())


def progress_info(info: dict[str, Any]) -> Info:
    """The solver's progress report as :class:`Info` (``pn``, ``dn``, ``phase`` in
    ``extra``; a proof search has no score or depth: both 0)."""
    return Info(
        depth=0,
        score=0,
        nodes=int(info.get("nodes") or 0),
        nps=float(info.get("nps") or 0),
        pv=[],
        seconds=float(info.get("seconds") or 0.0),
        extra={"pn": info.get("pn"), "dn": info.get("dn"), "phase": info.get("phase")},
    )


def proof_result(answer: ProofAnswer, name: Callable[[int], str], seconds: float) -> Result:
    """The engine's :class:`Result` of a prover's answer (see the module docstring);
    ``name`` names a move of the game."""
    proved = answer.answer in _SIGN
    words = "unproved" if answer.answer == "unknown" else answer.answer
    extra: dict[str, Any] = {"proof": words, "asked": list(answer.asked)}
    if answer.length is not None:
        extra["length"] = answer.length
    if answer.reason is not None:
        extra["reason"] = answer.reason
    if not proved and answer.pn is not None:
        extra["pn"] = answer.pn if answer.pn < (1 << 40) else "inf"
        extra["dn"] = answer.dn if answer.dn is not None and answer.dn < (1 << 40) else "inf"
    pv = [name(m) for m in answer.line]
    return Result(
        move=None if answer.move is None else name(answer.move),
        score=_SIGN.get(answer.answer) if proved else None,
        depth=len(pv),
        nodes=answer.nodes,
        nps=answer.nodes / seconds if seconds > 0 else 0.0,
        pv=pv,
        exact=proved,
        stopped_by="exact" if proved else _STOPPED_BY.get(str(answer.reason), "stop"),
        seconds=seconds,
        extra=extra,
    )


def dfpn_engine(game: GameDef[Any], spec: PlayerSpec) -> ProofEngine:
    """The df-pn player of ``spec`` for ``game``: options ``time=S``, ``nodes=N``,
    ``hash=MB``."""
    return ProofEngine(game, spec.limit, name=spec.text,
                       hash_mb=spec.options.get("hash", DEFAULT_HASH_MB))  # fmt: skip


def load_dfpn(game: GameDef[Any]) -> None:
    """Compile (or load) what the df-pn player of ``game`` runs: a proof stopped by its
    node limit on the game's sample position (the unproved answer), and the proofs of a
    position a few plies before the end of a game played from it (the answers, the line
    read back). A game's ``dfpn`` kernel set's loader calls it."""
    if game.sample is None:
        return
    engine = ProofEngine(game, hash_mb=1)
    engine.__dict__["_warmed"] = True  # (this is the warm-up)
    board = game.sample()
    if board.is_game_over():
        return
    engine.think(board, Limit(nodes=300))
    plies = 0
    while not board.is_game_over():
        board.push(board.legal_moves[0])
        plies += 1
    for _ in range(min(plies, 6)):
        board.pop()
    engine.think(board, Limit(nodes=1 << 20))

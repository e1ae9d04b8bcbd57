"""One game, and a worker's batch of games: what the local runner's processes and a Dask
cluster's workers both run.

Each worker keeps one engine per player spec (an :class:`EngineCache`) and clears its
table before every game, so a game depends only on its seed and the two specs — never on
which worker played it or what that worker played before.

**Forfeits**, as tournament managers record them. A player of the user's own — a
``python:`` player, or a program over UGI, GTP or NBoard — that raises, exits, breaks its
protocol, sends a line longer than :data:`~banmen.clients._lines.MAX_LINE`, answers an
illegal move, or takes longer than its allowance (:func:`banmen.engine.allowance`: the
time its spec states, ``ugi:time=0.5 …``, plus half of it, at least
:data:`~banmen.engine.FORFEIT_MARGIN`; a minute with no time stated) loses that game on
the spot. Its client gives up at the allowance (the process and whatever it started are
ended with its process group), whatever the engine does meanwhile: talking counts, as
does silence. The game is recorded with the result
against it and ``extra["forfeit"]`` (its side, name and the reason, one line), its engine
is dropped (the next game starts it afresh), and the run goes on. banmen's own engines
are not judged so: an exception there is a bug, and fails the run (:class:`GameFailed`).
The moves a game's ``settle`` hook plays on after its end (Go's cleanup of a dispute over
dead stones, :mod:`banmen.games.go.settle`) are asked for through the arena
(:class:`~banmen.games.Referee`): judged alike, and recorded after the game's moves; a
forfeit there keeps what the hook had settled beside ``forfeit``.

**Starts.** A game starts from the game's seeded deal (``GameDef.new_board``: both games
of a pair from the same one), or, when the run names one, from a given position
(:func:`start_board`: ``GameDef.board_from_text``) — every game of the run from the same.

**Proofs.** An engine whose :class:`~banmen.engine.Result` says what it proved —
``extra["proof"]``, as the df-pn player (:mod:`banmen.games.dfpn_engines`) does: ``win``,
``draw``, ``loss``, ``no win``, ``unproved`` — has each such answer kept in the game's
record, ``extra["proofs"]``: the ply, the side, the player, the move, the word, whether
it was ``exact`` and what stopped the search. The report counts them per player
(:func:`banmen.arena.report.proof_counts`), with the proofs the game's result contradicts.

**Outcomes.** Each game is recorded with its :class:`~banmen.games.Outcome`: the game's
own (:meth:`~banmen.games.GameDef.outcome_of`: the rules ended it, or a player resigned),
a forfeit (won by the other side), or — a game still going after the game's
``max_plies`` moves — stopped at the ply cap: no winner and no result by the rules
(``"*"``), half a point to each side in the count, and reported apart from draws. The
arena reads no game's result string.
"""

from __future__ import annotations

import time
import zlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import replace
from typing import Any

from banmen.arena.schedule import Job
from banmen.arena.store import GameRecord
from banmen.clock import EXPIRY_MARGIN, Clock
from banmen.engine import (
    FORFEIT_MARGIN,
    Engine,
    GameBoard,
    PlayerSpec,
    Result,
    allowance,
)
from banmen.games import Forfeit, GameDef, Outcome, Termination
from banmen.games.engines import RandomEngine
from banmen.games.registry import get_game, make_engine, parse_spec
from banmen.kinds import clock_base

__all__ = [
    "EngineCache",
    "FORFEIT_MARGIN",
    "GameFailed",
    "describe",
    "play_game",
    "play_games",
    "start_board",
    "warm_up",
]


class EngineCache:
    """One engine per (game, spec) in this process, reused across games."""

    def __init__(self) -> None:
        self._engines: dict[tuple[str, str], Engine[Any]] = {}

    def get(self, game: GameDef[Any], spec: PlayerSpec | str) -> Engine[Any] | None:
        """The engine for ``spec``, started and warmed up (compiled kernels loaded,
        external programs running) before any clock runs; ``None`` for ``random``,
        which is built per game, seeded from the deal."""
        spec = _read(game, spec)
        key = (game.name, spec.text)
        engine = self._engines.get(key)
        if engine is None:
            if spec.kind == "random":
                return None
            # (built without the run's clock: the referee hands each move its clocks)
            engine = make_engine(game, replace(spec, limit=spec.limit.with_clocks(None)))
            engine.warm_up()  # kept only once it runs: a failed start is tried again
            self._engines[key] = engine
        return engine

    def close(self) -> None:
        """Stop the engines that run something (external programs); forget them all."""
        for engine in self._engines.values():
            _stop(engine)
        self._engines.clear()

    def drop(self, game: GameDef[Any], spec: PlayerSpec) -> None:
        """Forget (and stop) the engine of ``spec``: the next game starts it afresh
        (after a forfeit: its state is unknown)."""
        engine = self._engines.pop((game.name, spec.text), None)
        if engine is not None:
            _stop(engine)


def _stop(engine: Engine[Any]) -> None:
    try:
        engine.close()
    except Exception:  # pragma: no cover - already gone: nothing to stop
        pass


def _read(game: GameDef[Any], spec: PlayerSpec | str) -> PlayerSpec:
    """``spec`` as read: the arena's runs hand over specs read once
    (:func:`~banmen.arena.schedule.player_specs`); a text (a caller of its own) is read
    here."""
    return spec if isinstance(spec, PlayerSpec) else parse_spec(spec, game)


def _random_engine(spec: PlayerSpec, deal_seed: int, side: int) -> RandomEngine:
    base = spec.options.get("seed", 0)
    # A fixed function of (spec seed, deal, side): reproducible, and different per game.
    return RandomEngine(zlib.crc32(f"{base}:{deal_seed}:{side}".encode()), name=spec.text)


def start_board(
    game: GameDef[Any], size: int | None, deal_seed: int, start: str | None = None
) -> GameBoard:
    """The board a game of a run starts from: the position ``start`` (in the game's own
    text, ``GameDef.board_from_text``) when the run gives one, else the deal of
    ``deal_seed`` (``GameDef.new_board``). ``ValueError`` (the game's own message) if
    ``start`` is not a position of the game."""
    if start is not None:
        if game.board_from_text is None:
            raise ValueError(f"{game.title} reads no position from text: no --start")
        given: GameBoard = game.board_from_text(start)
        return given
    assert game.new_board is not None
    dealt: GameBoard = game.new_board(deal_seed, size)
    return dealt


def _proof(result: Result, ply: int, side: int, name: str) -> dict[str, Any] | None:
    """What ``result`` says it proved (``extra["proof"]``), as a game's record keeps it;
    ``None`` for an engine that says nothing of proofs."""
    word = result.extra.get("proof") if result.extra else None
    if word is None:
        return None
    return {"ply": ply, "side": side, "player": name, "move": result.move, "proof": str(word),
            "exact": bool(result.exact), "stopped_by": result.stopped_by}  # fmt: skip


def play_game(
    game_name: str,
    size: int | None,
    job: Job,
    specs: Mapping[str, PlayerSpec | str],
    cache: EngineCache,
    start: str | None = None,
) -> GameRecord:
    """Play ``job`` to the end and return its record (from the position ``start``, in the
    game's text, if given: :func:`start_board`)."""
    game = get_game(game_name)
    board = start_board(game, size, job.deal_seed, start)
    engines: dict[int, Engine[Any]] = {}
    parsed = {name: _read(game, specs[name]) for name in (job.first, job.second)}
    moves: list[str] = []
    times: list[float] = []
    proofs: list[dict[str, Any]] = []
    forfeit: dict[str, Any] | None = None
    flag: dict[str, Any] | None = None  # a loss on time: who, and the move's time
    clocks = {side: _start_clock(parsed[name])
              for side, name in ((1, job.first), (2, job.second))}  # fmt: skip
    left: list[float | None] = []  # each move's mover's clock left after it

    def lost(side: int, name: str, e: Exception) -> dict[str, Any]:
        cache.drop(game, parsed[name])
        reason = " ".join(str(e).split()) or type(e).__name__
        return {"side": side, "player": name, "reason": reason[:500]}

    for side, name in ((1, job.first), (2, job.second)):
        try:
            cached = cache.get(game, parsed[name])
            if cached is None:
                engines[side] = _random_engine(parsed[name], job.deal_seed, side)
            else:
                cached.new_game()
                cached.reseed(zlib.crc32(f"{job.deal_seed}:{side}".encode()))
                engines[side] = cached
        except Exception as e:
            if not parsed[name].user:
                raise
            forfeit = forfeit or lost(side, name, e)
    capped = False
    while forfeit is None and flag is None and not board.is_game_over():
        if len(moves) >= game.max_plies:
            capped = True  # stopped: no result by the rules
            break
        side = board.turn
        name = job.first if side == 1 else job.second
        spec = parsed[name]
        judged = spec.user
        clock = clocks[side]
        limit = None
        if clock is not None:
            limit = clock_base(spec.limit, spec.options).with_clocks(clock, clocks[3 - side])
        t0 = time.perf_counter()
        try:
            result = engines[side].think(board, limit)
            took = time.perf_counter() - t0
            move = _checked(board, result, took, spec.limit.time if judged else None,
                            judged and clock is None)  # fmt: skip
            if move is None:  # a live game with legal moves: no answer is no move
                raise ValueError("gave no move in a game that goes on")
        except Exception as e:
            took = time.perf_counter() - t0
            if not judged:
                raise  # banmen's own engine failed: a bug, not a forfeit
            times.append(round(took, 6))
            if clock is not None and not clock.copy().spend(took, EXPIRY_MARGIN):
                flag = _flag_fell(clock, side, name, took)  # its client gave up: on time
                cache.drop(game, spec)
                left.append(0.0)
            else:
                forfeit = lost(side, name, e)
            break
        times.append(round(took, 6))
        if clock is not None:
            before = clock.copy()
            if not clock.spend(took, EXPIRY_MARGIN):
                flag = _flag_fell(before, side, name, took)
                left.append(0.0)
                break
            left.append(round(clock.left, 6))
        else:
            left.append(None)
        proof = _proof(result, len(moves), side, name)
        if proof is not None:
            proofs.append(proof)
        board.push(move)  # Go's "resign" too: it ends the game
        moves.append(result.move or "")
    extra: dict[str, Any] = {}
    if forfeit is None and flag is None and not capped and game.settle is not None:
        referee = _Referee((job.first, job.second), parsed, moves, times, lost)
        try:
            extra = game.settle(board, (engines[1], engines[2]), {}, referee)
        except Forfeit as e:  # a player failed in what settling played on (Go's cleanup)
            forfeit, extra = e.info, e.extra
    if proofs:
        extra = {**extra, "proofs": proofs}
    if clocks[1] is not None or clocks[2] is not None:
        extra = {**extra, "clock": {
            "controls": [None if c is None else str(c.control) for c in (clocks[1], clocks[2])],
            "margin": EXPIRY_MARGIN, "left": left}}  # fmt: skip
    s1, s2 = game.scores(board)
    if flag is not None:
        outcome = Outcome(Termination.TIME, 3 - int(flag["side"]))
        extra = {**extra, "flag": flag}
    elif forfeit is not None:
        outcome = Outcome(Termination.FORFEIT, 3 - int(forfeit["side"]))
        extra = {**extra, "forfeit": forfeit}
    elif capped:
        counted = (s1, s2) if game.has_scores else None
        outcome = Outcome(Termination.PLY_CAP, None, counted)
    else:
        ended = game.outcome_of(board)
        if ended is None:
            raise RuntimeError(
                f"{game.title}'s board says the game is over but its GameDef gives no outcome"
            )
        outcome = ended
    return GameRecord(job.pairing, job.pair, job.swapped, job.first, job.second, job.deal_seed,
                      outcome.result(), int(s1), int(s2), moves, times, extra,
                      outcome)  # fmt: skip


def _start_clock(spec: PlayerSpec) -> Clock | None:
    """The game clock a player starts on: its run's time control (``--tc``, carried by
    its spec's limit), or ``None`` (its spec's own limit, move by move)."""
    clock = spec.limit.clock
    if clock is None or clock.control.unlimited:
        return None
    return Clock.start(clock.control)


def _flag_fell(clock: Clock, side: int, name: str, took: float) -> dict[str, Any]:
    """The record of a loss on time: the side, the player, the move's time and what its
    clock allowed (until the flag, and the margin)."""
    allowed = clock.until_flag()
    reason = (f"lost on time: took {took:.2f} s for a move with {allowed:.2f} s on its "
              f"clock ({clock.control}) and a margin of {EXPIRY_MARGIN:g} s")  # fmt: skip
    return {"side": side, "player": name, "took": round(took, 6),
            "allowed": round(allowed, 6), "margin": EXPIRY_MARGIN, "reason": reason}  # fmt: skip


class _Referee:
    """The arena as a :class:`~banmen.games.Referee`: the moves a ``settle`` hook plays on
    after a game's end (Go's cleanup) are timed and judged as the game's own (a user's
    player that fails there forfeits: :class:`~banmen.games.Forfeit`), and recorded
    after the game's moves."""

    def __init__(self, names: tuple[str, str], parsed: dict[str, PlayerSpec], moves: list[str],
                 times: list[float], lost: Callable[[int, str, Exception], dict[str, Any]],
                 ) -> None:  # fmt: skip
        self.names, self.parsed, self.moves, self.times = names, parsed, moves, times
        self.lost = lost

    def move(self, side: int, board: GameBoard, think: Callable[[], Result]) -> Result:
        name = self.names[side - 1]
        spec = self.parsed[name]
        judged = spec.user
        t0 = time.perf_counter()
        try:
            result = think()
            took = time.perf_counter() - t0
            _checked(board, result, took, spec.limit.time if judged else None, judged)
        except Exception as e:
            if not judged:
                raise  # banmen's own engine failed: a bug, not a forfeit
            self.times.append(round(time.perf_counter() - t0, 6))
            raise Forfeit(self.lost(side, name, e)) from None
        return replace(result, seconds=took)

    def played(self, move: str, seconds: float) -> None:
        self.moves.append(move)
        self.times.append(round(seconds, 6))


def _checked(board: GameBoard, result: Result, took: float, limit_time: float | None,
             judged: bool = False) -> int | None:  # fmt: skip
    """The move ``result`` names on ``board`` (``ValueError`` if it is not a legal one),
    and, for a ``judged`` player, ``TimeoutError`` if it came past its allowance."""
    allowed = allowance(limit_time)
    if judged and took > allowed:
        over = ("the most a move with no time limit may take" if limit_time is None
                else f"its limit of {limit_time:g} s plus {allowed - limit_time:g} s")  # fmt: skip
        raise TimeoutError(f"took {took:.2f} s for a move: over {allowed:g} s, {over}")
    if result.move is None:
        return None
    try:
        move = board.parse_move(result.move)
    except ValueError as e:
        raise ValueError(f"illegal move {result.move!r}: {e}") from None
    return move


class GameFailed(RuntimeError):
    """A game could not be played to its end where it ran (an engine that would not start,
    a protocol error, an illegal move): the message says which game, where, and why."""


def describe(job: Job) -> str:
    """``pair 12 of d1 vs d3 (d3 first, deal 41)``: a game as a user finds it again."""
    a, b = (job.second, job.first) if job.swapped else (job.first, job.second)
    return f"pair {job.pair} of {a} vs {b} ({job.first} first, deal {job.deal_seed})"


def play_games(
    game_name: str,
    size: int | None,
    jobs: list[Job],
    specs: Mapping[str, PlayerSpec | str],
    cache: EngineCache,
    where: str,
    before_each: Callable[[], None] | None = None,
    start: str | None = None,
) -> Iterator[GameRecord]:
    """Play ``jobs`` one after another with the engines of ``cache`` (from the position
    ``start`` if given), yielding each record (``seconds`` set) as its game ends; a game
    that fails raises :class:`GameFailed` naming the game and ``where`` it ran."""
    for job in jobs:
        if before_each is not None:
            before_each()
        t0 = time.perf_counter()
        try:
            record = play_game(game_name, size, job, specs, cache, start)
        except Exception as e:
            raise GameFailed(
                f"{describe(job)} failed on {where}: {type(e).__name__}: {e}"
            ) from None
        yield replace(record, seconds=time.perf_counter() - t0)


def warm_up(
    cache: EngineCache, game_name: str, specs: Sequence[PlayerSpec | str], where: str
) -> None:
    """Build and warm up every player's engine before the first timed game (numba's
    compiled kernels loaded, external programs started); :class:`GameFailed` names
    ``where`` and the player that cannot start."""
    game = get_game(game_name)
    for spec in specs:
        text = spec.text if isinstance(spec, PlayerSpec) else spec
        try:
            cache.get(game, spec)
        except Exception as e:
            raise GameFailed(
                f"{where} cannot start player {text!r}: {type(e).__name__}: {e}"
            ) from None

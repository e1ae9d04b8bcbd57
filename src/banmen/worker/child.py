"""The loop of a worker process: it warms up, then runs one job at a time.

:func:`main` is the process's target (:class:`~banmen.worker.process.EngineWorker` spawns
it): it loads the kernel sets it is given, says :class:`~.messages.Ready`, then answers
each :class:`~.messages.Run` with the job's messages until :class:`~.messages.Quit` or
the parent's end of the pipe closes. A shared :class:`~banmen.search.limits.StopFlag`
stops the running search from the parent.
"""

from __future__ import annotations

import importlib
import json
import os
import signal
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from multiprocessing.connection import Connection
from typing import TYPE_CHECKING, Any

from banmen.engine import (
    Engine,
    GameBoard,
    PlayerSpec,
    Result,
    SpecError,
)
from banmen.games import GameDef
from banmen.games.registry import get_game, make_engine, parse_spec
from banmen.kinds import LIMIT_OPTIONS
from banmen.search.limits import Limit, StopFlag
from banmen.worker.messages import (
    Answer,
    Failure,
    FromChild,
    Iteration,
    Log,
    Nodes,
    Notice,
    Quit,
    Ready,
    Run,
    Started,
    Update,
    Warmed,
    Warming,
    receive,
)

if TYPE_CHECKING:
    from banmen.analysis import Analysis

__all__ = ["ANALYSIS_PERIOD", "ANALYSIS_SECONDS", "kernel_set_ids", "main"]

#: The longest an analysis runs (seconds) unless it proves every value or is stopped first.
ANALYSIS_SECONDS = 60.0
#: At most one analysis update per this many seconds goes to the parent (the last always).
ANALYSIS_PERIOD = 0.125

_PROGRESS_PERIOD = 0.25  # seconds between node-count updates during a long iteration

#: how the child's threads send a message to the parent (one at a time)
Send = Callable[[FromChild], None]


def _engine_spec(spec: PlayerSpec) -> tuple[str, PlayerSpec]:
    """The engine ``spec`` names with its limit left out, and a key for it: specs that
    differ only in their limit (``alphabeta:depth=1``, ``alphabeta:time=1``) share one
    engine and its table; every other option (``+handset``, ``threads=2``, a
    ``python:`` player's file and options) makes an engine of its own."""
    options = {k: v for k, v in spec.options.items() if k not in LIMIT_OPTIONS}
    ev = None if spec.evaluator is None else spec.evaluator.to_dict()
    key = json.dumps([spec.kind, options, ev], sort_keys=True, default=str)
    return key, replace(spec, options=options)


def _drop_user_engine(
    cache: dict[tuple[str, str, str], Engine[GameBoard]],
    game_name: str,
    spec: PlayerSpec | None,
    factory: str | None,
) -> None:
    """After a failed move, forget the engine of a user's player (``python:``, ``ugi:``,
    ``gtp:``, ``nboard:``): its program may have died or its state gone wrong, so the
    next move starts it afresh. banmen's own engines are kept (their failure is a bug)."""
    if spec is None or not spec.user:
        return
    key = (game_name, factory or "", _engine_spec(spec)[0])
    engine = cache.pop(key, None)
    if engine is not None:
        try:
            engine.close()
        except Exception:  # its process is gone already: nothing to close
            pass


def _engine_for(
    cache: dict[tuple[str, str, str], Engine[GameBoard]],
    game: GameDef[Any],
    spec: PlayerSpec | str,
    factory: str | None = None,
) -> Engine[GameBoard]:
    """One engine per (game, engine spec) in this process (:func:`_engine_spec`: a
    job's limit comes with the job), built from the whole spec and warmed up on first
    use. Its table persists between jobs (keys are salted per deal). ``factory``
    (``module:function``, called as the registry's factories are) builds an engine the
    registry does not list — a test's stand-in."""
    shape, whole = _engine_spec(parse_spec(spec, game) if isinstance(spec, str) else spec)
    key = (game.name, factory or "", shape)
    engine = cache.get(key)
    if engine is None:
        if factory is None:
            engine = make_engine(game, whole)
        else:
            module, _, name = factory.partition(":")
            engine = getattr(importlib.import_module(module), name)(game, whole)
        engine.warm_up()
        cache[key] = engine
    return engine


def _think_with_progress(
    engine: Engine[GameBoard],
    board: GameBoard,
    limit: Limit,
    stop: StopFlag,
    job_id: int,
    send: Send,
) -> Result:
    """Run one search, relaying each iteration's info and, every quarter second, the
    node count (a long iteration is otherwise silent)."""
    done = threading.Event()
    t0 = time.perf_counter()
    search = getattr(engine, "search", None)  # alpha-beta's: its node count is ctl[0]

    def progress() -> None:
        while not done.wait(_PROGRESS_PERIOD):
            if search is not None:
                send(Nodes(job_id, int(search.ctl[0]), time.perf_counter() - t0))

    ticker = threading.Thread(target=progress, daemon=True)
    ticker.start()
    try:
        result = engine.think(
            board, limit, lambda info: send(Iteration(job_id, info.to_dict())), stop
        )
    finally:
        done.set()
        ticker.join()
    return result


def _analyse_with_updates(
    game: GameDef[Any],
    board: GameBoard,
    limit: Limit,
    stop: StopFlag,
    job_id: int,
    send: Send,
    warmed: set[str],
) -> dict[str, Any]:
    """Run ``game``'s analysis of ``board``, sending its updates (``Analysis.to_dict()``)
    at most one per :data:`ANALYSIS_PERIOD` — the latest one when the period is up, by a
    ticker if the analysis is quiet meanwhile — and return the final one (which supersedes
    any update still held back)."""
    if game.analyse is None:
        raise ValueError(f"{game.title} has no analysis")
    if game.name not in warmed:
        # Loads (or compiles) the analysis's engines before the job's clock starts: a
        # stop cannot reach a search that is still being loaded. Its own flag: a stop
        # meanwhile is for the analysis proper, which then returns at once. One node
        # too: a depth alone does not bound a tree search (Go's would run for ever).
        game.analyse(board, Limit(depth=1, nodes=1), None, StopFlag())
        warmed.add(game.name)
    send(Started(job_id))
    lock = threading.Lock()
    held: list[dict[str, Any]] = []  # the latest update not yet sent (at most one)
    sent_at = [-ANALYSIS_PERIOD]
    done = threading.Event()

    def flush(now: float) -> None:  # (under the lock)
        if held and now - sent_at[0] >= ANALYSIS_PERIOD:
            send(Update(job_id, held.pop()))
            sent_at[0] = now

    def on_update(a: Analysis) -> None:
        d = a.to_dict()  # now: the analysis goes on changing its record
        with lock:
            held[:] = [d]
            flush(time.monotonic())

    def ticker() -> None:
        while not done.wait(ANALYSIS_PERIOD / 2):
            with lock:
                flush(time.monotonic())

    thread = threading.Thread(target=ticker, daemon=True)
    thread.start()
    try:
        final = game.analyse(board, limit, on_update, stop)
    finally:
        done.set()
        thread.join()
    return final.to_dict()


def _describe(e: Exception) -> str:
    """One line for a failed job: a bad request's own message (a ``ValueError`` names the
    fix); for anything else, the exception's type too."""
    text = " ".join(str(e).split())
    if isinstance(e, ValueError):
        return text or type(e).__name__
    return f"{type(e).__name__}: {text}" if text else type(e).__name__


def kernel_set_ids(warm: Sequence[str]) -> list[str]:
    """The kernel sets (ids, ``game.name``) ``warm`` names: a set id as it is, a game's
    name as the game's default sets, in its order."""
    out: list[str] = []
    for name in warm:
        ids = [name] if "." in name else [k.id for k in get_game(name).kernel_sets if k.default]
        out += [i for i in ids if i not in out]
    return out


def _warm_up(warm: Sequence[str], send: Send) -> None:
    """Load ``warm``'s kernel sets (compiling the cold ones), saying what each is doing:
    :class:`~.messages.Warming` before, :class:`~.messages.Warmed` after,
    :class:`~.messages.Notice` for what a user would be told; then each game's default
    engine."""
    from banmen.warm import ensure, is_warm, set_notice

    set_notice(lambda line: send(Notice(line)))
    for set_id in kernel_set_ids(warm):
        game_name, _, name = set_id.partition(".")
        try:
            ks = get_game(game_name).kernel_set(name)
            if ks is None:
                raise ValueError(f"{game_name} has no kernel set {name!r}")
            send(Warming(set_id, ks.label, not is_warm(ks)))
            t0 = time.monotonic()
            cold = ensure(ks)
            send(Warmed(set_id, time.monotonic() - t0, cold))
        except Exception as e:  # reported, not fatal: the jobs that need it will fail
            send(Log(f"warm-up of {set_id} failed: {_describe(e)}"))
            send(Warmed(set_id, 0.0, False))


def _run(
    run: Run,
    engines: dict[tuple[str, str, str], Engine[GameBoard]],
    analysed: set[str],
    stop: StopFlag,
    send: Send,
) -> None:
    """Run one job, ending it with an :class:`~.messages.Answer` or a
    :class:`~.messages.Failure`."""
    job_id = run.job_id
    try:
        game = get_game(run.game)
        board = game.board_from_dict(run.board)
        if run.task == "analyse":
            limit = Limit.from_dict(run.limit) if run.limit else Limit(time=ANALYSIS_SECONDS)
            final = _analyse_with_updates(game, board, limit, stop, job_id, send, analysed)
            send(Answer(job_id, final))
            return
        spec = run.spec
        if spec is None:
            raise SpecError("a search job came without a player spec")
        limit = Limit.from_dict(run.limit) if run.limit else spec.limit
        if spec.kind == "random" and run.factory is None:
            engine: Engine[GameBoard] = make_engine(game, spec)  # seeded per job
        else:
            engine = _engine_for(engines, game, spec, run.factory)
        send(Started(job_id))  # the search's own clock starts now
        result = _think_with_progress(engine, board, limit, stop, job_id, send)
        send(Answer(job_id, result.to_dict()))
    except Exception as e:
        send(Failure(job_id, _describe(e)))
        if run.task == "think":
            _drop_user_engine(engines, run.game, run.spec, run.factory)


def main(conn: Connection, stop: StopFlag, warm: Sequence[str]) -> None:
    """The worker process: warm up ``warm``, then run each job the parent sends on
    ``conn`` (``stop`` is shared with the parent)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides when we stop
    lock = threading.Lock()
    gone = threading.Event()

    def send(msg: FromChild) -> None:
        # The parent may be gone (killed with the server): what it would have read is
        # dropped, quietly — no BrokenPipeError traceback on its way out; the loop ends
        # at the next receive, which finds the pipe closed.
        if gone.is_set():
            return
        with lock:
            try:
                conn.send(msg)
            except (BrokenPipeError, ConnectionResetError, EOFError):
                gone.set()

    engines: dict[tuple[str, str, str], Engine[GameBoard]] = {}
    analysed: set[str] = set()  # the games whose analysis engines are loaded
    _warm_up(warm, send)
    for g in dict.fromkeys(s.partition(".")[0] for s in kernel_set_ids(warm)):
        try:
            game = get_game(g)
            _engine_for(engines, game, game.default_engine)
        except Exception as e:  # pragma: no cover - reported, not fatal
            send(Log(f"warm-up of {g} failed: {_describe(e)}"))
    send(Ready(os.getpid()))

    while (msg := receive(conn)) is not None and not isinstance(msg, Quit):
        if isinstance(msg, Run) and msg.task in ("think", "analyse"):
            _run(msg, engines, analysed, stop, send)

"""``banmen warm-up``: every game's compiled code, compiled ahead, in parallel processes.

The kernel sets (:mod:`banmen.warm`) that have no valid stamp are compiled by ``jobs``
spawned processes (default: one per core). A game's sets go to one process, in the order
the game lists them: they share compiled functions (the Go board's rules are inside the Go
search), which one process compiles once and the next set loads. Games go out longest
first (each set's last measured time, else its estimate), so the processes finish
together. Sets of different games may still share a function with different
specialisations (``search.alphabeta`` serves every alpha-beta game); numba's cache is
written under a lock for that (:mod:`banmen._jit`).

:func:`warm_up` reports each set as it starts and ends (:class:`Event`) to a callback: the
command draws a progress bar from them, the web app tells its pages.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import queue
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from banmen.warm import KernelSet, read_stamp

__all__ = ["Event", "Report", "kernel_sets", "plan", "warm_up"]


@dataclass(frozen=True)
class Event:
    """A step of the warm-up: ``kind`` is ``start`` (a set began compiling or loading),
    ``done`` (``cold``: it was compiled; ``seconds``) or ``failed`` (``error``)."""

    kind: str
    set_id: str
    label: str
    seconds: float = 0.0
    cold: bool = False
    error: str = ""


@dataclass
class Report:
    """What a warm-up did: per set id, ``warm`` (already, skipped), ``compiled``,
    ``loaded`` (its stamp had gone stale but the cache held it) or ``failed``."""

    outcome: dict[str, str] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)
    wall: float = 0.0

    @property
    def ok(self) -> bool:
        return not self.errors


def kernel_sets(games: Iterable[str] | None = None, everything: bool = False) -> list[KernelSet]:
    """The sets of ``games`` (default: every game), the default ones unless
    ``everything`` (then the evaluators' that serve them too)."""
    from banmen.games.registry import evaluator_sets, get_game, load_games

    out: list[KernelSet] = []
    for name in games if games is not None else list(load_games(on_broken=lambda _: None)):
        game = get_game(name)
        out += [k for k in game.kernel_sets if everything or k.default]
        if everything:  # (every game's evaluators: sets no default player needs)
            out += evaluator_sets(game)
    return out


def _cost(ks: KernelSet) -> float:
    """Seconds to expect: the last compile's, where a stamp (valid or stale) recorded one
    that compiled something, else the set's estimate."""
    from banmen.warm import _stamp_path

    try:
        stamp = json.loads(_stamp_path(ks).read_text())
        seconds = stamp.get("seconds")
        if stamp.get("compiled") and isinstance(seconds, int | float) and seconds > 0:
            return float(seconds)
    except (OSError, ValueError, AttributeError):
        pass
    return ks.estimate


def plan(sets: Sequence[KernelSet]) -> list[list[KernelSet]]:
    """The sets grouped by game (in the game's order), longest group first."""
    groups: dict[str, list[KernelSet]] = {}
    for ks in sets:
        groups.setdefault(ks.game, []).append(ks)
    return sorted(groups.values(), key=lambda g: -sum(_cost(k) for k in g))


def _child(tasks: Any, events: Any) -> None:
    """A warm-up process: takes groups (set ids) off ``tasks`` until it meets ``None``."""
    import warnings

    from banmen.warm import ensure, set_notice

    warnings.simplefilter("ignore")
    set_notice(lambda line: None)  # the parent reports
    while (group := tasks.get()) is not None:
        for set_id in group:
            game, _, name = set_id.partition(".")
            # (a game's own sets and its evaluators': the parent asked for either)
            found = [k for k in kernel_sets([game], everything=True) if k.id == set_id]
            if not found:
                events.put(("failed", set_id, set_id, 0.0, False, "no such kernel set here"))
                continue
            ks = found[0]
            events.put(("start", set_id, ks.label, 0.0, False, ""))
            t0 = time.perf_counter()
            try:
                cold = ensure(ks)
            except Exception as e:  # reported, and the other sets go on
                text = " ".join(str(e).split()) or type(e).__name__
                events.put(("failed", set_id, ks.label, time.perf_counter() - t0, False, text))
                continue
            events.put(("done", set_id, ks.label, time.perf_counter() - t0, cold, ""))


def warm_up(
    sets: Sequence[KernelSet],
    jobs: int | None = None,
    force: bool = False,
    on_event: Callable[[Event], None] | None = None,
) -> Report:
    """Compile (or load) ``sets`` in up to ``jobs`` processes; sets whose stamp is valid
    are skipped unless ``force``."""
    t0 = time.monotonic()
    report = Report()
    todo: list[KernelSet] = []
    for ks in sets:
        if not force and read_stamp(ks) is not None:
            report.outcome[ks.id] = "warm"
        else:
            todo.append(ks)
    groups = plan(todo)
    if groups:
        ctx = multiprocessing.get_context("spawn")
        tasks, events = ctx.Queue(), ctx.Queue()
        n = max(1, min(jobs or os.cpu_count() or 1, len(groups)))
        for item in [[k.id for k in g] for g in groups] + [None] * n:
            tasks.put(item)
        procs = [ctx.Process(target=_child, args=(tasks, events), daemon=True) for _ in range(n)]
        for p in procs:
            p.start()
        pending = {k.id for k in todo}
        while pending:
            try:
                kind, set_id, label, seconds, cold, error = events.get(timeout=0.5)
            except queue.Empty:
                if not any(p.is_alive() for p in procs):
                    for set_id in sorted(pending):  # a process died (killed, out of memory)
                        report.outcome[set_id] = "failed"
                        report.errors[set_id] = "the warm-up process died"
                    break
                continue
            event = Event(kind, set_id, label, seconds, cold, error)
            if kind != "start":
                pending.discard(set_id)
                report.seconds[set_id] = seconds
                if kind == "failed":
                    report.outcome[set_id] = "failed"
                    report.errors[set_id] = error
                else:
                    report.outcome[set_id] = "compiled" if cold else "loaded"
            if on_event is not None:
                on_event(event)
        for p in procs:
            p.join(timeout=10)
            if p.is_alive():
                p.kill()
    report.wall = time.monotonic() - t0
    return report

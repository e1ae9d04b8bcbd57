"""``banmen warm-up``: compile every game's code ahead, so no first move waits for it."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated

import typer

from banmen.cli._app import JsonOption, fail, number_option
from banmen.numbers import Bounded

if TYPE_CHECKING:
    from banmen.warmup import Event, Report


def warm_up(
    games: Annotated[
        list[str] | None,
        typer.Argument(help="Games to warm up (default: every game).", show_default=False),
    ] = None,
    everything: Annotated[
        bool,
        typer.Option(
            "--all",
            help="Also the code of options few use (Othello's hand-set evaluation and "
            "win/draw/loss prover, Go's threaded search, the MCTS, PUCT and df-pn "
            "players of the games with alpha-beta kernels, every game's evaluators).",
        ),
    ] = False,
    jobs: Annotated[
        int | None,
        number_option(
            Bounded("jobs", 1, 1024, integer=True),
            "Processes compiling at once (default: cores).",
            "--jobs",
            "-j",
        ),
    ] = None,
    force: Annotated[
        bool, typer.Option("--force", help="Load every set, even those already warm.")
    ] = False,
    as_json: JsonOption = False,
) -> None:
    """Compile the engines' code (numba) now, in parallel, instead of at the first move.

    numba keeps what it compiles on disk; each command then loads it in a fraction of a
    second. Sets already compiled (and unchanged since) are skipped.
    """
    from banmen.games.registry import UnknownGameError, get_game, load_games
    from banmen.warmup import kernel_sets
    from banmen.warmup import warm_up as run

    try:
        names = [get_game(g).name for g in games] if games else list(load_games())
    except UnknownGameError as e:
        raise fail(str(e)) from None
    sets = kernel_sets(names, everything)
    if as_json:
        report = run(sets, jobs, force)
        typer.echo(json.dumps(_record(report)))
    else:
        report = _with_progress(sets, jobs, force)
    if not report.ok:
        first = next(iter(report.errors.items()))
        raise fail(f"the warm-up of {first[0]} failed: {first[1]}")


def _record(report: Report) -> dict[str, object]:
    return {
        "sets": [
            {
                "set": k,
                "outcome": v,
                "seconds": round(report.seconds.get(k, 0.0), 3),
                **({"error": report.errors[k]} if k in report.errors else {}),
            }  # fmt: skip
            for k, v in report.outcome.items()
        ],
        "seconds": round(report.wall, 3),
        "ok": report.ok,
    }


def _with_progress(sets: list, jobs: int | None, force: bool) -> Report:  # type: ignore[type-arg]
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        SpinnerColumn,
        TextColumn,
        TimeElapsedColumn,
    )

    from banmen.cli._console import make_console
    from banmen.warm import read_stamp
    from banmen.warmup import warm_up as run

    console = make_console(stderr=True)
    todo = [k for k in sets if force or read_stamp(k) is None]
    if not todo:
        console.print(f"banmen warm-up: all {len(sets)} kernel sets are compiled already")
        return run(sets, 1, False)  # (a report that says so, nothing to do)
    running: dict[str, str] = {}
    progress = Progress(
        SpinnerColumn(),
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=False,
    )

    def describe() -> str:
        return "compiling " + ", ".join(running.values()) if running else "compiled"

    with progress:
        task = progress.add_task(describe(), total=len(todo))

        def on_event(e: Event) -> None:
            if e.kind == "start":
                running[e.set_id] = e.label
            else:
                running.pop(e.set_id, None)
                what = {"done": "compiled" if e.cold else "loaded", "failed": "FAILED"}[e.kind]
                extra = f": {e.error}" if e.error else ""
                progress.console.print(f"  {e.label}: {what} in {e.seconds:.1f} s{extra}")
                progress.advance(task)
            progress.update(task, description=describe())

        report = run(sets, jobs, force, on_event)
    done = sum(1 for v in report.outcome.values() if v in ("compiled", "loaded"))
    warm = sum(1 for v in report.outcome.values() if v == "warm")
    tail = f", {warm} already warm" if warm else ""
    console.print(f"banmen warm-up: {done} kernel sets ready{tail}, in {report.wall:.1f} s")
    return report

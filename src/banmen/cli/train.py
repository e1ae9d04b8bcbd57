"""``banmen train``: learn an evaluation by self-play, a fit and an arena gate.

banmen train GAME EVALUATOR --out FILE [--games N] [--iterations K]
             [--workers K | --cluster ADDRESS] [--seed S] [--from FILE] [--name RUN]
banmen train --resume RUN
banmen train report RUN [--json] [--out DIR]
banmen train list
"""

from __future__ import annotations

import datetime as _dt
import json
import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from banmen.cli._app import DefaultToRun, fail, number_option
from banmen.numbers import SEED, SIZE, WORKERS, Bounded

if TYPE_CHECKING:
    from banmen.train.store import TrainStore


app = typer.Typer(
    cls=DefaultToRun,
    help="Learn an evaluation: `banmen train GAME EVALUATOR --out FILE`, "
    "`banmen train --resume RUN`, `banmen train report RUN`, `banmen train list`.",
    no_args_is_help=True,
    rich_markup_mode=None,
)

DbOption = Annotated[
    Path | None,
    typer.Option("--db", help="SQLite file (default: the arena's: $BANMEN_DB, else "
                 "banmen.sqlite3 in the user data directory)."),
]  # fmt: skip


def _db(db: Path | None) -> Path:
    from banmen.arena.store import default_db_path

    return (db or default_db_path()).expanduser()


def _store(db: Path) -> TrainStore:
    from banmen.train.store import TrainStore

    try:
        return TrainStore(db)
    except sqlite3.Error as e:
        raise fail(f"{db}: cannot open it as a banmen database: {e}") from None


def _fmt(x: Any, digits: int = 1) -> str:
    if x is None:
        return "-"
    if isinstance(x, float) and x != x:
        return "-"
    return f"{x:.{digits}f}" if isinstance(x, float) else str(x)


#: what a fit's held-out error is, by its name (``rmse``: the root mean square error)
ERROR_NAMES = {"rmse": "root mean square error", "log-loss": "log-loss a choice (nats)"}


def summary_line(s: dict[str, Any]) -> str:
    """One iteration in one line: positions, held-out error by phase (new, previous),
    the gate's result and the Elo against the baseline."""
    error = s.get("error", "rmse")
    digits = 0 if error == "rmse" else 3  # (centi-discs and the like; a log-loss in nats)
    new = s.get("held_out_error", s.get("held_out_rmse")) or []
    old = s.get("held_out_error_before", s.get("held_out_rmse_before")) or []
    mae = "/".join(_fmt(v, digits) for v in new)
    before = "/".join(_fmt(v, digits) for v in old)
    what = "error" if error == "rmse" else ERROR_NAMES.get(error, error)
    gate = s.get("gate") or {}
    base = s.get("baseline") or {}
    verdict = "kept" if s.get("kept") else "not kept"
    decision = gate.get("decision") or "undecided"
    elo = base.get("elo")
    elo_text = "beyond measure" if elo is None and base.get("games") else _fmt(elo, 0)
    return (f"iteration {s['iteration']}: {s.get('positions') or 0:,} positions "
            f"({_fmt(s.get('positions_per_second'), 0)}/s a worker); held-out {what} by phase "
            f"{mae} (was {before}); gate {_fmt(100 * gate.get('score', 0.5), 1)}% over "
            f"{gate.get('games', 0)} games vs the previous weights, SPRT {decision}: "
            f"{verdict}; Elo vs baseline {elo_text} ({base.get('games', 0)} games)")  # fmt: skip


def _writable(out: Path) -> None:
    """Refuse (one line) an ``--out`` that cannot be written, before any game is played."""
    import os

    target = out.expanduser()
    folder = target.parent
    if target.is_dir():
        raise fail(f"--out {out}: a folder; give the weights file's name (e.g. {out}/w.npz)")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise fail(f"--out {out}: cannot make its folder ({e.strerror or e})") from None
    if not os.access(folder, os.W_OK):
        raise fail(f"--out {out}: its folder {folder} is not writable")


def _elo_bounds(text: str) -> tuple[float, float]:
    """``--gate-elo``'s ``ELO0,ELO1`` (one line if it is not two numbers, the first the
    smaller)."""
    try:
        lo, hi = (float(p) for p in text.split(","))
    except ValueError:
        raise fail(f"--gate-elo takes ELO0,ELO1 (two numbers, e.g. 0,40), got {text!r}") from None
    if not (lo < hi and abs(lo) < 1000 and abs(hi) < 1000):
        raise fail(f"--gate-elo {text}: ELO0 must be below ELO1, both within +-1000")
    return lo, hi


@app.command("run")
def run(
    game: Annotated[str | None, typer.Argument(help="Game, e.g. connect-four.")] = None,
    evaluator: Annotated[
        str | None, typer.Argument(help="Evaluator to train, e.g. ntuple, patterns.")
    ] = None,
    out: Annotated[
        Path | None, typer.Option("--out", help="Where the kept weights are written.")
    ] = None,
    games: Annotated[
        int,
        number_option(Bounded("games", 2, 10**7, integer=True), "Self-play games an iteration."),
    ] = 200,  # fmt: skip
    iterations: Annotated[
        int, number_option(Bounded("iterations", 1, 10**4, integer=True), "Iterations.")
    ] = 4,  # fmt: skip
    workers: Annotated[
        int | None, number_option(WORKERS, "Worker processes (default: cores).")
    ] = None,
    cluster: Annotated[
        str | None, typer.Option(help="A Dask cluster: tcp://HOST:8786, FILE.json or local:K.")
    ] = None,  # fmt: skip
    seed: Annotated[int, number_option(SEED, "The run's seed.")] = 1,
    source: Annotated[
        Path | None, typer.Option("--from", help="Start from these weights (default: zeros).")
    ] = None,  # fmt: skip
    name: Annotated[str | None, typer.Option("--name", help="The run's name.")] = None,
    resume: Annotated[str | None, typer.Option("--resume", help="Continue the run RUN.")] = None,
    depth: Annotated[
        int | None,
        number_option(Bounded("depth", 1, 64, integer=True), "Self-play and gate search depth."),
    ] = None,  # fmt: skip
    playouts: Annotated[
        int | None,
        number_option(
            Bounded("playouts", 1, 10**7, integer=True),
            "Self-play and gate playouts a move (a playout search: Go's policy).",
        ),
    ] = None,  # fmt: skip
    size: Annotated[int | None, number_option(SIZE, "Board size.")] = None,
    gate_games: Annotated[
        int,
        number_option(
            Bounded("gate games", 2, 10**6, integer=True),
            "The gate's most games a pairing.",
            "--gate-games",
        ),
    ] = 400,
    gate_elo: Annotated[
        str,
        typer.Option(
            "--gate-elo",
            help="The gate's SPRT Elo bounds ELO0,ELO1: kept when the SPRT accepts ELO1.",
        ),
    ] = "0,40",
    randomness: Annotated[
        float,
        number_option(Bounded("randomness", 0, 1), "Share of self-play moves played at random."),
    ] = 0.1,  # fmt: skip
    exact: Annotated[
        int | None,
        number_option(
            Bounded("exact", 0, 64, integer=True),
            "Label exactly within this many plies of the end.",
        ),
    ] = None,  # fmt: skip
    labels: Annotated[
        str,
        typer.Option(
            "--labels",
            help="A position's label: mix (the mean of the search's value and the outcome), "
            "search or outcome; a position solved exactly keeps its proved value.",
        ),
    ] = "mix",
    damp_toward: Annotated[
        str,
        typer.Option(
            "--damp-toward",
            help="What the fit's damping pulls a weight toward: previous (the weights the "
            "iteration starts from) or zero.",
        ),
    ] = "previous",
    db: DbOption = None,
) -> None:
    """Self-play, label, fit, gate: K iterations; the kept weights go to --out."""
    from banmen.engine import SpecError
    from banmen.games.registry import get_game
    from banmen.train.loop import RunSettings, TrainError, new_run, train
    from banmen.weights import WeightsError

    if workers is not None and cluster is not None:
        raise fail("--workers and --cluster: give one (local worker processes, or a cluster)")
    path = _db(db)
    if resume is None:
        if game is None or evaluator is None:
            raise fail("banmen train needs GAME and EVALUATOR (or --resume RUN), e.g. "
                       "banmen train connect-four ntuple --out c4.npz")  # fmt: skip
        if out is None:
            raise fail("banmen train needs --out FILE: where the kept weights are written")
        try:
            g = get_game(game)
        except (KeyError, ValueError) as e:
            raise fail(str(e).strip("'\"")) from None
        run_name = name or f"{g.name}-{evaluator}-{_dt.datetime.now().strftime('%Y%m%d-%H%M%S')}"
        bounds = _elo_bounds(gate_elo)
        if labels not in ("mix", "search", "outcome"):
            raise fail(f"--labels {labels!r}: expected mix, search or outcome")
        if damp_toward not in ("previous", "zero"):
            raise fail(f"--damp-toward {damp_toward!r}: expected previous or zero")
        _writable(out)
        settings = RunSettings(
            g.name, evaluator, str(out.expanduser().resolve()), games=games,
            iterations=iterations, seed=seed, size=size, depth=depth, playouts=playouts,
            exact_plies=exact,
            randomness=randomness, gate_games=gate_games, gate_elo=bounds,
            damp_toward=damp_toward, labels=labels,
            source=str(source.expanduser().resolve()) if source else None,
        )  # fmt: skip
        store = _store(path)
        try:
            new_run(store, run_name, settings)
        except (SpecError, WeightsError, ValueError, OSError) as e:
            raise fail(" ".join(str(e).split())) from None
        finally:
            store.close()
    else:
        if game is not None or evaluator is not None:
            raise fail("--resume RUN continues a run as it was recorded: give no GAME or EVALUATOR")
        store = _store(path)
        try:
            store.run(resume)
        except ValueError as e:
            raise fail(str(e)) from None
        finally:
            store.close()
        run_name = resume
    _train(path, run_name, workers, cluster, train, TrainError)


def _train(path: Path, name: str, workers: int | None, cluster: str | None,
           train: Any, train_error: type[Exception]) -> None:  # fmt: skip
    import os

    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from banmen.cli._console import make_console
    from banmen.engine import SpecError
    from banmen.train.loop import Event
    from banmen.weights import WeightsError

    console = make_console(stderr=True)
    console.print(f"banmen train: run {name!r} ({path})")
    progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                        TimeElapsedColumn(), console=console, transient=True)  # fmt: skip
    tasks: dict[tuple[str, int], Any] = {}

    def on_event(e: Event) -> None:
        if e.phase == "iteration":
            progress.console.print(summary_line(e.summary))
            return
        key = (e.phase, e.iteration)
        label = {"selfplay": "self-play", "fit": "fit", "gate": "gate"}[e.phase]
        if key not in tasks:
            tasks[key] = progress.add_task(
                f"iteration {e.iteration} {label}", total=e.total or None
            )
        step = e.summary.get("step")
        desc = f"iteration {e.iteration} {label}" + (f" ({step})" if step else "")
        progress.update(tasks[key], completed=e.done, total=e.total or None, description=desc)

    try:
        with progress:
            result = train(path, name, workers=workers or os.cpu_count() or 1, cluster=cluster,
                           on_event=on_event)  # fmt: skip
    except KeyboardInterrupt:
        console.print(f"interrupted: continue with banmen train --resume {name}")
        raise typer.Exit(130) from None
    except (SpecError, WeightsError, ValueError, train_error, OSError, sqlite3.Error) as e:
        raise fail(f"{' '.join(str(e).split())} (the run keeps what it stored: banmen train "
                   f"--resume {name})") from None  # fmt: skip
    kept = sum(1 for s in result["iterations"] if s.get("kept"))
    console.print(f"done: {kept} of {len(result['iterations'])} iterations kept; weights in "
                  f"{result['out']}")  # fmt: skip


@app.command("report")
def report(
    run_name: Annotated[str, typer.Argument(metavar="RUN", help="The training run.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
    out: Annotated[
        Path | None, typer.Option("--out", help="Write curves (PNG, SVG) and JSON to this folder.")
    ] = None,  # fmt: skip
    db: DbOption = None,
) -> None:
    """A run's iterations: positions, held-out error, the gate, Elo vs the baseline."""
    from banmen.train.report import report_data, write_report

    store = _store(_db(db))
    try:
        data = report_data(store, run_name)
    except ValueError as e:
        raise fail(str(e)) from None
    finally:
        store.close()
    if out is not None:
        try:
            written = write_report(data, out)
        except OSError as e:
            raise fail(f"{out}: cannot write the report there ({e.strerror or e})") from None
        typer.echo("wrote " + ", ".join(str(p) for p in written), err=True)
    if as_json:
        typer.echo(json.dumps(data, indent=1))
        return
    typer.echo(f"{data['name']}: {data['game']} {data['evaluator']}, {data['status']}; "
               f"weights {data['config'].get('out')}")  # fmt: skip
    for s in data["iterations"]:
        typer.echo(summary_line(s))


@app.command("list")
def list_runs(db: DbOption = None) -> None:
    """The training runs in the database."""
    store = _store(_db(db))
    try:
        runs = store.runs()
        if not runs:
            typer.echo(f"no training runs in {store.path}")
            return
        for r in runs:
            its = store.iterations(r.name)
            kept = sum(1 for i in its if i.kept)
            done = sum(1 for i in its if i.kept is not None)
            total = r.config.get("iterations")
            typer.echo(f"{r.name}  {r.game} {r.evaluator}  {r.status}  {done}/{total} "
                       f"iterations, {kept} kept  {r.created}")  # fmt: skip
    finally:
        store.close()

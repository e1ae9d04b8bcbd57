"""``banmen arena``: AI-vs-AI runs, their reports and plots."""

from __future__ import annotations

import datetime as dt
import json
import math
import secrets
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from typer.core import TyperGroup

from banmen.cli._app import fail
from banmen.cli._console import PIPE_WIDTH, make_console

# The arena (its runner, the engines, matplotlib) and rich are imported by the command
# that needs them, not by `banmen --help` or another command.
if TYPE_CHECKING:
    from rich.console import Group, RenderableType

    from banmen.arena.runner import Progress
    from banmen.arena.store import ArenaStore, RunConfig


class _DefaultToRun(TyperGroup):
    """``banmen arena GAME ...`` and ``banmen arena --resume RUN`` mean ``arena run ...``."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and args[0] not in ("--help", "-h"):
            args = ["run", *args]
        return super().parse_args(ctx, args)


app = typer.Typer(
    cls=_DefaultToRun,
    help="AI-vs-AI runs: `banmen arena GAME --player NAME=SPEC ...`, "
    "`banmen arena report RUN`, `banmen arena list`.",
    no_args_is_help=True,
    rich_markup_mode=None,  # plain help: see banmen.cli
)

DbOption = Annotated[
    Path | None,
    typer.Option(
        "--db",
        help="SQLite file (default: $BANMEN_DB, else banmen.sqlite3 in the user data "
        "directory; the web app's /arena page reads it too).",
    ),
]


def _store(db: Path | None) -> ArenaStore:
    from banmen.arena.store import ArenaStore, default_db_path

    return ArenaStore(db or default_db_path())


def fmt_elo(x: float | None, sign: float) -> str:
    """An Elo difference as the CLI prints it; ``None`` is an unbounded one (a 0% or 100%
    score, or an interval's open end), printed as ``+∞`` or ``-∞`` by the sign of
    ``sign``."""
    if x is None or not math.isfinite(x):
        negative = sign < 0 if x is None else x < 0
        return "-∞" if negative else "+∞"
    return f"{round(x):+d}"


def _elo_ci(lo: float | None, hi: float | None) -> str:
    return f"[{fmt_elo(lo, -1)}, {fmt_elo(hi, 1)}]"


def _pct_ci(ci: list[float]) -> str:
    return f"[{100 * ci[0]:.1f}, {100 * ci[1]:.1f}]"


def _fmt_seconds(s: float | None) -> str:
    if s is None:
        return ""
    return f"{s:.2f} s" if s >= 0.1 else f"{1000 * s:.2f} ms"


def report_tables(report: dict[str, Any]) -> Group:
    from rich.console import Group
    from rich.table import Table
    from rich.text import Text

    pairs = Table(title="pairings (score of the first-named player, 95% intervals)")
    for col in ("pairing", "games", "W-D-L", "score %", "Elo diff", "mean margin"):
        pairs.add_column(col, justify="right" if col != "pairing" else "left")
    sprt_col = any("sprt" in r for r in report["pairings"])
    if sprt_col:
        pairs.add_column("SPRT")
    for r in report["pairings"]:
        if not r["games"]:
            cells = [f"{r['a']} vs {r['b']}", "0", "", "", "", ""]
        else:
            elo = fmt_elo(r["elo_diff"], r["a_score"] - 0.5)
            cells = [
                f"{r['a']} vs {r['b']}",
                str(r["games"]),
                f"{r['a_wins']}-{r['draws']}-{r['a_losses']}",
                f"{100 * r['a_score']:.1f} {_pct_ci(r['a_score_ci95'])}",
                f"{elo} {_elo_ci(*r['elo_diff_ci95'])}",
                f"{r['mean_margin']:+.2f}",
            ]
        if sprt_col:
            s = r.get("sprt") or {}
            cells.append(f"{s.get('decision') or 'running'} (LLR {s.get('llr', 0):.2f})")
        pairs.add_row(*cells)
    players = Table(
        title=f"players (Elo fitted from all games, relative to {report['elo_anchor']})"
    )
    forfeits = report.get("forfeits") or []
    cols = ("player", "spec", "games", "score %", "Elo", "per move")
    for col in (*cols, "forfeits") if forfeits else cols:
        players.add_column(col, justify="left" if col in ("player", "spec") else "right")
    for p in report["players"]:
        players.add_row(
            p["name"],
            p["spec"],
            str(p["games"]),
            "" if p["score"] is None else f"{100 * p['score']:.1f}",
            f"{fmt_elo(p['elo'], 0)} {_elo_ci(*p['elo_ci95'])}",
            _fmt_seconds(p["mean_move_seconds"]),
            *([str(p.get("forfeits", 0))] if forfeits else []),
        )
    fp = report["first_player"]
    line = Text(
        f"games {report['games_played']}/{report['games_planned']}"
        + (
            f" · first player: {fp['wins']}-{fp['draws']}-{fp['losses']}, wins "
            f"{100 * fp['win_rate']:.1f}% {_pct_ci(fp['win_rate_ci95'])}"
            if fp["games"]
            else ""
        )
    )
    for f in forfeits:
        line.append(f"\nforfeit: {f['player']} lost {f['games']} game(s): {f['reason']}")
    ds = report.get("dead_stones")
    if ds:
        line.append(
            f"\ndead stones: {ds['counted_games']} counted games, both engines answered in "
            f"{ds['both_engines_answered']}, disagreed in {ds['engines_disagreed']}; "
            f"agreed in {ds['agreed']}, settled by a cleanup in {ds['cleanup']}"
            + (
                f", banmen's estimate counted in {ds['from_estimate']} (an older record)"
                if ds["from_estimate"]
                else ""
            )
        )
    return Group(pairs, players, line)


def _live_view(p: Progress, config: RunConfig) -> Group:
    from rich.console import Group
    from rich.table import Table
    from rich.text import Text

    from banmen.arena.schedule import Player, make_pairings

    eta = p.eta
    head = Text(
        f"games {p.done}/{p.total} · {p.rate:.1f} games/s · ETA "
        + ("—" if eta is None else time.strftime("%H:%M:%S", time.gmtime(eta)))
        + (f" · SPRT stopped {len(p.stopped_pairings)} pairing(s)" if p.stopped_pairings else "")
    )
    players = [Player(x["name"], x["spec"]) for x in config.players]
    table = Table(box=None)
    for col in ("pairing", "W-D-L", "score %"):
        table.add_column(col)
    for i, (a, b) in enumerate(make_pairings(players, config.gauntlet)):
        gs = [g for g in p.games if g.pairing == i]
        pts = [g.points_first() if g.first == a else 1 - g.points_first() for g in gs]
        w, lo = pts.count(1.0), pts.count(0.0)
        d = len(pts) - w - lo
        score = f"{100 * sum(pts) / len(pts):.1f}" if pts else ""
        table.add_row(f"{a} vs {b}", f"{w}-{d}-{lo}", score)
    return Group(head, table)


@app.command("run")
def run(
    game: Annotated[str | None, typer.Argument(help="Game, e.g. mattix.")] = None,
    player: Annotated[
        list[str] | None,
        typer.Option("--player", "-p", help="NAME=SPEC (repeat), e.g. d3=alphabeta:depth=3."),
    ] = None,
    games: Annotated[
        int, typer.Option(help="Games per pairing (even: games come in pairs).")
    ] = 100,
    workers: Annotated[
        int | None, typer.Option(help="Worker processes on this machine (default: cores).")
    ] = None,
    cluster: Annotated[
        str | None,
        typer.Option(
            help="Play on a Dask cluster: a scheduler's address (tcp://HOST:8786), its "
            "scheduler file (FILE.json), or local:K for K worker processes here. "
            "Needs pip install 'banmen[cluster]'."
        ),
    ] = None,
    seed: Annotated[int | None, typer.Option(help="First deal seed (default: random).")] = None,
    size: Annotated[int | None, typer.Option(help="Board size (Mattix: 4 or 6).")] = None,
    gauntlet: Annotated[
        str | None, typer.Option(help="Play this player against each of the others only.")
    ] = None,
    sprt: Annotated[
        str | None, typer.Option(help="ELO0,ELO1: stop a pairing once the SPRT decides.")
    ] = None,
    name: Annotated[str | None, typer.Option(help="Name for the run (default: generated).")] = None,
    resume: Annotated[str | None, typer.Option(help="Continue the run RUN.")] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the final report as JSON.")
    ] = False,
    db: DbOption = None,
) -> None:
    """Play a run: round robin (or gauntlet) of paired games, in parallel."""

    from rich.live import Live

    from banmen.arena.report import build_report
    from banmen.arena.runner import run_arena
    from banmen.arena.schedule import ScheduleError, make_pairings, parse_player
    from banmen.arena.store import RunConfig
    from banmen.games import get_game

    if workers is not None and workers < 1:
        raise fail(f"--workers must be at least 1, got {workers}")
    if cluster is not None:
        from banmen.arena.cluster import parse_cluster

        if workers is not None:
            raise fail("--workers is for the local runner; a cluster's workers are its own "
                       "(--cluster local:K starts K)")  # fmt: skip
        try:
            parse_cluster(cluster)
        except ValueError as e:
            raise fail(str(e)) from None
    store = _store(db)
    try:
        if resume:
            if game or player:
                raise fail("--resume continues a run as configured: give no GAME or --player")
            run_id = resume
            config = store.run_config(run_id)
        else:
            if not game:
                raise fail("give a GAME (e.g. mattix) and players, or --resume RUN")
            g = get_game(game)
            if g.new_board is None:
                raise fail(f"{g.name} cannot be played in the arena yet")
            players = [parse_player(p) for p in (player or [])]
            make_pairings(players, gauntlet)  # validates names, count, gauntlet
            sprt_pair = None
            if sprt is not None:
                try:
                    e0, e1 = (float(x) for x in sprt.split(","))
                except ValueError:
                    raise fail(f"--sprt takes ELO0,ELO1 (two numbers), got {sprt!r}") from None
                if not e1 > e0:
                    raise fail(f"--sprt needs ELO0 < ELO1, got {sprt!r}")
                sprt_pair = [e0, e1]
            if size is not None:
                g.new_board(0, size)  # a bad size fails here, with the game's own message
            config = RunConfig(
                game=g.name,
                players=[{"name": p.name, "spec": p.spec} for p in players],
                games=games,
                seed=seed if seed is not None else secrets.randbelow(1_000_000),
                size=size,
                gauntlet=gauntlet,
                sprt=sprt_pair,
            )
            from banmen.arena.runner import planned_jobs

            planned_jobs(config)  # validates --games
            run_id = store.create_run(config, name)
    except (ValueError, ScheduleError) as e:
        raise fail(str(e)) from None

    console = make_console(stderr=as_json)
    console.print(f"run [bold]{run_id}[/bold] · {config.game} · deals from seed {config.seed} "
                  f"· db {store.path}", soft_wrap=True)  # fmt: skip
    # The live table is for a terminal; piped or redirected, only the report is written.
    live = Live(console=console, refresh_per_second=4) if console.is_terminal else None
    last = [0.0]

    def show(p: Progress) -> None:
        now = time.monotonic()
        if live is not None and (now - last[0] >= 0.2 or p.done == p.total):
            last[0] = now
            live.update(_live_view(p, config))

    from banmen.arena.play import GameFailed

    def resume_hint() -> str:
        n = len(store.done_keys(run_id))
        where = f" --db {store.path}" if db else ""
        again = f" --cluster {cluster}" if cluster else ""
        return f"{n} games recorded. Continue with: banmen arena --resume {run_id}{where}{again}"

    try:
        if live is not None:
            with live:
                progress = run_arena(store, run_id, workers, show, cluster=cluster)
        else:
            progress = run_arena(store, run_id, workers, show, cluster=cluster)
    except KeyboardInterrupt:
        console.print(f"interrupted: {resume_hint()}", soft_wrap=True)
        raise typer.Exit(130) from None
    except (GameFailed, _cluster_error()) as e:
        text = str(e)
        raise fail(text + (" " if text.endswith((".", "?")) else ". ") + resume_hint()) from None
    report = build_report(store, run_id)
    report["this_session"] = {
        "played": progress.new_this_session,
        "replayed": progress.replayed,
        "games_per_second": progress.rate,
    }
    if as_json:
        typer.echo(json.dumps(_jsonable(report)))
    else:
        console.print(report_tables(report))
        console.print(
            f"report and plots: banmen arena report {run_id}" + (f" --db {db}" if db else ""),
            soft_wrap=True,
        )


def _cluster_error() -> type[Exception]:
    """:class:`banmen.arena.cluster.ClusterError` (the module imports no Dask by itself)."""
    from banmen.arena.cluster import ClusterError

    return ClusterError


def _jsonable(x: Any) -> Any:
    if isinstance(x, float) and not math.isfinite(x):
        return None
    if isinstance(x, dict):
        return {k: _jsonable(v) for k, v in x.items()}
    if isinstance(x, list):
        return [_jsonable(v) for v in x]
    return x


@app.command("report")
def report(
    run_id: Annotated[str, typer.Argument(metavar="RUN", help="The run's name.")],
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the report as one JSON object.")
    ] = False,
    out: Annotated[
        Path | None,
        typer.Option(
            help="Directory for report.json, games.csv, pairings.csv and the plots "
            "(default: arena-results/RUN)."
        ),
    ] = None,
    param: Annotated[
        str | None, typer.Option(help="Spec option to plot the score against (e.g. depth).")
    ] = None,
    plots: Annotated[bool, typer.Option(help="Write the plots (PNG and SVG).")] = True,
    db: DbOption = None,
) -> None:
    """Rebuild a run's tables, exports and plots from the database."""
    from banmen.arena.report import build_report, game_records, games_csv, pairings_csv

    store = _store(db)
    try:
        rep = _jsonable(build_report(store, run_id))
    except ValueError as e:
        raise fail(str(e)) from None
    folder = out or Path("arena-results") / run_id
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "report.json").write_text(json.dumps(rep, indent=1) + "\n")
    (folder / "games.csv").write_text(games_csv(store.games(run_id)))
    (folder / "pairings.csv").write_text(pairings_csv(rep))
    files = [folder / "report.json", folder / "games.csv", folder / "pairings.csv"]
    config = store.run_config(run_id)
    specs = {p["name"]: p["spec"] for p in config.players}
    records = game_records(config.game, config.size, store.games(run_id), specs)
    if records:
        (folder / "games").mkdir(exist_ok=True)
        for name, text in records:
            (folder / "games" / name).write_text(text)
        files.append(folder / "games" / f"({len(records)} game records)")
    if plots and rep["games_played"]:
        from banmen.arena.plots import write_plots

        files += write_plots(rep, folder, param)
    if as_json:
        typer.echo(json.dumps(rep))
        return
    console = make_console()
    console.print(report_tables(rep))
    console.print("written: " + ", ".join(str(f) for f in files), soft_wrap=True)


def _run_rows(store: ArenaStore) -> list[dict[str, Any]]:
    from banmen.arena.schedule import Player, make_jobs, make_pairings

    rows = []
    for r in store.runs():
        c = r["config"]
        try:  # as arena.runner.planned_jobs, without importing the runner
            players = [Player(p["name"], p["spec"]) for p in c["players"]]
            pairings = make_pairings(players, c.get("gauntlet"))
            planned: int | None = len(make_jobs(pairings, c["games"], c["seed"]))
        except Exception:  # a configuration this version cannot read: show what we can
            planned = None
        rows.append(
            {
                "id": r["id"],
                "game": c.get("game"),
                "size": c.get("size"),
                "players": c.get("players", []),
                "games_played": r["games_played"],
                "games_planned": planned,
                "status": r["status"],
                "created": r["created"],
                "updated": r["updated"],
            }
        )
    return rows


def _when(iso: str) -> str:
    """The store's UTC time stamp in local time, to the minute (``2026-11-22 17:19``)."""

    try:
        return dt.datetime.fromisoformat(iso).astimezone().strftime("%Y-%m-%d %H:%M")
    except (TypeError, ValueError):
        return str(iso)


def runs_view(rows: list[dict[str, Any]], width: int) -> RenderableType:
    """The runs as a table if it fits in ``width`` columns; otherwise each run's name on a
    line of its own and its details under it. A run's name is never cut, wrapped or
    abbreviated: it is what ``banmen arena report RUN`` takes."""
    from rich.console import Console, Group
    from rich.padding import Padding
    from rich.table import Table
    from rich.text import Text

    def games(r: dict[str, Any]) -> str:
        return f"{r['games_played']}/{'?' if r['games_planned'] is None else r['games_planned']}"

    def players(r: dict[str, Any]) -> str:
        return ", ".join(str(p.get("name")) for p in r["players"])

    table = Table(box=None, pad_edge=False)
    for col in ("run", "game", "players", "games", "status", "created"):
        table.add_column(col, justify="right" if col == "games" else "left", no_wrap=True)
    for r in rows:
        when = _when(r["created"])
        table.add_row(r["id"], str(r["game"]), players(r), games(r), r["status"], when)
    # The table only if it fits as it is (measured unclamped: a measure is capped at the
    # console's width); squeezed, rich would cut the run names.
    if Console(width=PIPE_WIDTH).measure(table).maximum <= width:
        return table
    lines: list[RenderableType] = []
    for r in rows:
        # Never wrapped nor cut (print with crop=False): wider than the terminal, the
        # terminal folds it, and copying it gives the whole name.
        lines.append(Text(r["id"], style="bold", no_wrap=True, overflow="ignore"))
        details = f"{r['game']} · {players(r)} · {games(r)} games · {r['status']} · "
        lines.append(Padding(Text(details + _when(r["created"])), (0, 0, 0, 4)))
    return Group(*lines)


@app.command("list")
def list_runs(
    as_json: Annotated[
        bool, typer.Option("--json", help='Print {"db": FILE, "runs": [...]} as JSON.')
    ] = False,
    db: DbOption = None,
) -> None:
    """The runs in the database, newest first."""

    with _store(db) as store:
        rows = _run_rows(store)
        path = store.path
    if as_json:
        typer.echo(json.dumps({"db": str(path), "runs": rows}))
        return
    console = make_console()
    if not rows:
        console.print(f"no arena runs in {path}", soft_wrap=True)
        return
    console.print(runs_view(rows, console.width), crop=False)

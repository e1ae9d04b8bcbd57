"""``banmen arena``: AI-vs-AI runs, their reports and plots."""

from __future__ import annotations

import datetime as dt
import json
import math
import re
import secrets
import shlex
import sqlite3
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from banmen.cli._app import DefaultToRun, fail, number_option
from banmen.cli._console import PIPE_WIDTH, make_console
from banmen.clock import EXPIRY_MARGIN as _MARGIN
from banmen.numbers import SEED, SIZE, WORKERS, Bounded

# The arena (its runner, the engines, matplotlib) and rich are imported by the command
# that needs them, not by `banmen --help` or another command.
if TYPE_CHECKING:
    from rich.console import Group, RenderableType
    from rich.table import Table

    from banmen.arena.runner import Progress
    from banmen.arena.schedule import Player
    from banmen.arena.store import ArenaStore, RunConfig
    from banmen.arena.trust import Verdict


app = typer.Typer(
    cls=DefaultToRun,
    help="AI-vs-AI runs: `banmen arena GAME --player NAME=SPEC ...`, "
    "`banmen arena report RUN [RUN ...]`, `banmen arena list`, `banmen arena delete RUN ...`.",
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

    path = db or default_db_path()
    try:
        return ArenaStore(path)
    except sqlite3.Error as e:  # not a database, a damaged one, a folder, no access
        raise fail(f"{path}: cannot open it as an arena database: {e}") from None


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


def _wdl(r: dict[str, Any]) -> str:
    """A pairing's wins, draws and losses, and the games stopped at the ply cap (not
    draws: no result) if any: "3-1-2 +1 stopped"."""
    stopped = r.get("stopped", 0)
    return f"{r['a_wins']}-{r['draws']}-{r['a_losses']}" + (
        f" +{stopped} stopped" if stopped else ""
    )


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
                _wdl(r),
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
    from banmen.arena.report import endings_words

    ended = endings_words(report.get("endings"))
    if ended:
        line.append(f"\n{ended}")
    for f in forfeits:
        line.append(f"\nforfeit: {f['player']} lost {f['games']} game(s): {f['reason']}")
    clock = report.get("clock")
    for c in (clock or {}).get("players", []):
        if not c["games"]:
            continue
        share = c["used_share"]
        line.append(
            f"\nclock: {c['name']} on {c['tc']}: lost {c['time_losses']} on time; worst "
            f"clock left {_fmt_seconds(c['worst_left'])}"
            + ("" if share is None else f"; used {100 * share:.0f}% of its time in the "
               f"games that went the distance (least {100 * c['used_share_min']:.0f}%)")
        )  # fmt: skip
    from banmen.arena.report import proofs_words

    for row in report.get("proofs") or []:
        line.append(f"\nproofs: {proofs_words(row)}")
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
    from banmen.games import Termination

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
        stopped = sum(1 for g in gs if g.termination is Termination.PLY_CAP)
        d = len(pts) - w - lo - stopped
        score = f"{100 * sum(pts) / len(pts):.1f}" if pts else ""
        wdl = f"{w}-{d}-{lo}" + (f" +{stopped} stopped" if stopped else "")
        table.add_row(f"{a} vs {b}", wdl, score)
    return Group(head, table)


def _on_clocks(players: list[Player], tc: str | None, tc_of: list[str]) -> list[Player]:
    """The players on their clocks: ``--tc`` for all, ``--tc-of NAME=TC`` for one (one
    line naming what is wrong otherwise)."""
    from banmen.arena.schedule import ScheduleError

    own: dict[str, str] = {}
    names = {p.name for p in players}
    for item in tc_of:
        name, eq, text = item.partition("=")
        name = name.strip()
        if not eq or not text.strip():
            raise ScheduleError(f"--tc-of takes NAME=TC (e.g. d3=10+0.1), got {item!r}")
        if name not in names:
            raise ScheduleError(f"--tc-of {item!r}: no player named {name!r} "
                                f"(players: {', '.join(sorted(names))})")  # fmt: skip
        own[name] = text
    out = []
    for p in players:
        mine = own.get(p.name, tc)
        out.append(p if mine is None else p.on_clock(mine))
    return out


@app.command("run")
def run(
    game: Annotated[str | None, typer.Argument(help="Game, e.g. mattix.")] = None,
    player: Annotated[
        list[str] | None,
        typer.Option("--player", "-p", help="NAME=SPEC (repeat), e.g. d3=alphabeta:depth=3."),
    ] = None,
    games: Annotated[
        int,
        number_option(
            Bounded("games", 1, 10**6, integer=True),
            "Games per pairing (even: games come in pairs).",
        ),
    ] = 100,
    workers: Annotated[
        int | None,
        number_option(WORKERS, "Worker processes on this machine (default: cores)."),
    ] = None,
    cluster: Annotated[
        str | None,
        typer.Option(
            help="Play on a Dask cluster: a scheduler's address (tcp://HOST:8786), its "
            "scheduler file (FILE.json), or local:K for K worker processes here. "
            "Needs pip install 'banmen[cluster]'."
        ),
    ] = None,
    seed: Annotated[int | None, number_option(SEED, "First deal seed (default: random).")] = None,
    size: Annotated[int | None, number_option(SIZE, "Board size (Mattix: 4 or 6).")] = None,
    start: Annotated[
        str | None,
        typer.Option(
            help="Start every game from this position, in the game's text (an Othello "
            "board string, a Connect Four FEN or moves: banmen players GAME); both games "
            "of a pair then differ only in who plays which side."
        ),
    ] = None,
    tc: Annotated[
        str | None,
        typer.Option(
            "--tc",
            help="Play every game on a clock: a time control for every player, e.g. 60 "
            "(sudden death), 10+0.1 (Fischer), 40/60+0.6, st=1, byoyomi=600+5x30, "
            "canadian=600+25/300. A player past its clock and a margin of "
            f"{_MARGIN:g} s loses on time.",
        ),
    ] = None,
    tc_of: Annotated[
        list[str] | None,
        typer.Option(
            "--tc-of",
            help="NAME=TC (repeat): that player's own time control (time odds); over --tc.",
        ),
    ] = None,
    gauntlet: Annotated[
        str | None, typer.Option(help="Play this player against each of the others only.")
    ] = None,
    sprt: Annotated[
        str | None, typer.Option(help="ELO0,ELO1: stop a pairing once the SPRT decides.")
    ] = None,
    name: Annotated[str | None, typer.Option(help="Name for the run (default: generated).")] = None,
    resume: Annotated[str | None, typer.Option(help="Continue the run RUN.")] = None,
    yes: Annotated[
        bool,
        typer.Option(
            "--yes",
            "-y",
            help="With --resume: start the run's players without asking, even if the run "
            "is not signed by you (it is then signed). Without it, such a run's programs "
            "and Python players are shown and confirmed first on a terminal, and refused "
            "otherwise.",
        ),
    ] = False,
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
    from banmen.games.registry import get_game

    if workers is not None and workers < 1:
        raise fail(f"--workers must be at least 1, got {workers}")
    if cluster is not None:
        from banmen.arena.cluster import parse_cluster, require_dask

        if workers is not None:
            raise fail("--workers is for the local runner; a cluster's workers are its own "
                       "(--cluster local:K starts K)")  # fmt: skip
        try:
            parse_cluster(cluster)
        except ValueError as e:
            raise fail(str(e)) from None
        try:  # before a run is recorded: without Dask, none is
            require_dask()
        except _cluster_error() as e:
            raise fail(str(e)) from None
    store = _store(db)
    try:
        if resume:
            if game or player or tc or tc_of:
                raise fail("--resume continues a run as configured: give no GAME, --player "
                           "or --tc")  # fmt: skip
            run_id = resume
            config = _resume_config(store, run_id, yes=yes, db=db, cluster=cluster)
        else:
            if not game:
                raise fail("give a GAME (e.g. mattix) and players, or --resume RUN")
            g = get_game(game)
            if g.new_board is None:
                raise fail(f"{g.name} cannot be played in the arena yet")
            players = [parse_player(p, g) for p in (player or [])]
            make_pairings(players, gauntlet)  # validates names, count, gauntlet
            players = _on_clocks(players, tc, tc_of or [])
            sprt_pair = None
            if sprt is not None:
                try:
                    e0, e1 = (float(x) for x in sprt.split(","))
                except ValueError:
                    raise fail(f"--sprt takes ELO0,ELO1 (two numbers), got {sprt!r}") from None
                if not e1 > e0:
                    raise fail(f"--sprt needs ELO0 < ELO1, got {sprt!r}")
                sprt_pair = [e0, e1]
            if start is not None and size is not None:
                raise fail("--start gives the position, its size with it: no --size")
            if size is not None:
                g.new_board(0, size)  # a bad size fails here, with the game's own message
            if start is not None:
                from banmen.arena.play import start_board

                if start_board(g, None, 0, start).is_game_over():
                    raise fail(f"--start {start!r}: the game is over there")
            config = RunConfig(
                game=g.name,
                players=[p.to_config() for p in players],
                games=games,
                seed=seed if seed is not None else secrets.randbelow(1_000_000),
                size=size,
                gauntlet=gauntlet,
                sprt=sprt_pair,
                start=start,
            )
            from banmen.arena.runner import planned_jobs

            planned_jobs(config)  # validates --games
            run_id = store.create_run(config, name)
            _unsigned_note(store, run_id)
    except (ValueError, ScheduleError) as e:
        raise fail(str(e)) from None

    console = make_console(stderr=as_json)
    from rich.markup import escape

    starts = (f"from {escape(repr(config.start))}" if config.start is not None
              else f"deals from seed {config.seed}")  # fmt: skip
    console.print(f"run [bold]{run_id}[/bold] · {config.game} · {starts} · db {store.path}",
                  soft_wrap=True)  # fmt: skip
    # The live table is for a terminal; piped or redirected, only the report is written.
    live = Live(console=console, refresh_per_second=4) if console.is_terminal else None
    last = [0.0]

    def show(p: Progress) -> None:
        now = time.monotonic()
        if live is not None and (now - last[0] >= 0.2 or p.done == p.total):
            last[0] = now
            live.update(_live_view(p, config))

    from banmen.arena.play import GameFailed
    from banmen.arena.runner import RunDeleted

    def resume_hint() -> str:
        n = len(store.done_keys(run_id))
        where = f" --db {store.path}" if db else ""
        again = f" --cluster {cluster}" if cluster else ""
        return f"{n} games recorded. Continue with: banmen arena --resume {run_id}{where}{again}"

    def discarded() -> bool:
        """A run this command recorded that failed (or was stopped) before its first
        game is deleted: it would only be an empty run in the list. A resumed run stays."""
        if resume:
            return False
        try:
            return store.delete_run_if_empty(run_id)
        except Exception:  # the database itself is failing: keep what is there
            return False

    def failed(text: str) -> typer.Exit:
        text = " ".join(text.split()) or "the run failed"
        sep = " " if text.endswith((".", "?")) else ". "
        if discarded():
            return fail(f"{text}{sep}No game was played: run {run_id} not kept.")
        return fail(text + sep + resume_hint())

    try:
        if live is not None:
            with live:
                progress = run_arena(store, run_id, workers, show, cluster=cluster)
        else:
            progress = run_arena(store, run_id, workers, show, cluster=cluster)
    except KeyboardInterrupt:
        if discarded():
            console.print(f"interrupted before the first game: run {run_id} not kept",
                          soft_wrap=True)  # fmt: skip
        else:
            console.print(f"interrupted: {resume_hint()}", soft_wrap=True)
        raise typer.Exit(130) from None
    except RunDeleted as e:
        raise fail(f"{e}: stopped (its games are deleted with it)") from None
    except (GameFailed, _cluster_error()) as e:
        raise failed(str(e)) from None
    except Exception as e:  # a worker process that died, a database that failed, ...
        raise failed(f"the run failed: {type(e).__name__}: {e}") from None
    try:
        report = build_report(store, run_id)
    except ValueError as e:  # deleted (with --force) just as it finished
        raise fail(str(e)) from None
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


def _resume_config(
    store: ArenaStore, run_id: str, *, yes: bool, db: Path | None, cluster: str | None
) -> RunConfig:
    """The configuration of the run to resume, once it may start: signed by this user, or
    of banmen's own engines only, or shown and confirmed (``--yes``, or a question on a
    terminal; without either, one line refusing). What it checked is pinned: a file
    changed after the check starts nothing (:meth:`ArenaStore.pin_config`). Nothing is
    started here."""
    from banmen.arena import trust

    try:
        text, signature = store.signed_config(run_id)
        store.pin_config(run_id, text)
        config = store.run_config(run_id)
        verdict = trust.check(run_id, text, signature, config.players)
        if not verdict.asks:
            return config
        if not yes:
            if not _stdin_is_terminal():
                raise fail(_refusal(store, run_id, verdict, db, cluster))
            typer.echo(_question(store, run_id, config, verdict), err=True)
            if not typer.confirm("start them?", default=False, err=True):
                typer.echo(f"nothing started: run {run_id} not resumed", err=True)
                raise typer.Exit(1)
        try:
            store.sign_run(run_id, text)  # so that the next resume does not ask
        except trust.KeyUnavailable as e:
            typer.echo(f"note: run {run_id} not signed ({e}): its next resume asks again",
                       err=True)  # fmt: skip
        return config
    except sqlite3.Error as e:
        raise fail(f"{store.path}: cannot read run {run_id!r}: {e}") from None


def _unsigned_note(store: ArenaStore, run_id: str) -> None:
    """Say so if the run just made could not be signed and its resume will ask."""
    from banmen.arena import trust

    text, signature = store.signed_config(run_id)
    if signature is not None:
        return
    if trust.check(run_id, text, signature, store.run_config(run_id).players).asks:
        why = trust.key_problem() or "no key"
        typer.echo(f"note: run {run_id} is not signed ({why}): resuming it will ask before "
                   "it starts its players", err=True)  # fmt: skip


def _refusal(
    store: ArenaStore, run_id: str, verdict: Verdict, db: Path | None, cluster: str | None
) -> str:
    """The one line refusing to resume a run that is not the user's without a terminal."""
    from banmen.arena.trust import shown

    starts = "; ".join(f"{shown(p.name)}={shown(p.spec)} ({shown(p.runs or '')})"
                       for p in verdict.flagged)  # fmt: skip
    again = shown(
        " ".join(
            ["banmen arena --resume", shlex.quote(run_id)]
            + (["--db", shlex.quote(str(db))] if db else [])
            + (["--cluster", shlex.quote(cluster)] if cluster else [])
            + ["--yes"]
        )
    )
    return (
        f"run {shown(repr(run_id))} in {shown(str(store.path))} is not trusted: "
        f"{shown(verdict.why or '')}; resuming it would start: {starts}. Nothing was started. "
        f"If you trust these, run: {again}"
    )


def _question(store: ArenaStore, run_id: str, config: RunConfig, verdict: Verdict) -> str:
    """What a terminal is shown before it is asked whether to start a run's players."""
    from banmen.arena.trust import shown

    size = shown(f" {config.size}x{config.size}") if config.size else ""
    lines = [
        f"run {shown(repr(run_id))} in {shown(str(store.path))} is not trusted: "
        f"{shown(verdict.why or '')}.",
        f"Resuming it plays {shown(str(config.game))}{size} with these players; those marked "
        "! run more than banmen's own engines:",
    ]
    width = max(len(shown(p.name)) for p in verdict.players)
    for p in verdict.players:
        mark = "!" if p.runs else " "
        lines.append(f"  {mark} {shown(p.name):<{width}} = {shown(p.spec)}")
        if p.runs:
            lines.append(f"    {'':<{width}}   {shown(p.runs)}")
    lines.append("Nothing has been started yet. Start them only if you trust every ! line.")
    return "\n".join(lines)


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


def _write_run_files(
    store: ArenaStore,
    run_id: str,
    rep: dict[str, Any],
    folder: Path,
    param: str | None,
    plots: bool,
) -> list[Path]:
    """A run's report.json, games.csv, pairings.csv, game records and plots in
    ``folder``; the files written (the game records as one entry)."""
    from banmen.arena.report import game_records, games_csv, pairings_csv

    folder.mkdir(parents=True, exist_ok=True)
    games = store.games(run_id)
    (folder / "report.json").write_text(json.dumps(rep, indent=1) + "\n")
    (folder / "games.csv").write_text(games_csv(games))
    (folder / "pairings.csv").write_text(pairings_csv(rep))
    files = [folder / "report.json", folder / "games.csv", folder / "pairings.csv"]
    config = store.run_config(run_id)
    specs = {p["name"]: p["spec"] for p in config.players}
    records = game_records(config.game, config.size, games, specs, config.start)
    if records:
        (folder / "games").mkdir(exist_ok=True)
        for name, text in records:
            (folder / "games" / name).write_text(text)
        files.append(folder / "games" / f"({len(records)} game records)")
    if plots and rep["games_played"]:
        from banmen.arena.plots import write_plots

        files += write_plots(rep, folder, param)
    return files


_UNSAFE = re.compile(r"[^A-Za-z0-9_.+-]")
#: the files a comparison writes beside its runs' folders
_COMPARISON_FILES = {"comparison.json", "comparison.csv", "comparison.png", "comparison.svg"}


def run_folders(run_ids: list[str]) -> dict[str, str]:
    """A folder name for each run of a comparison: the run's name where it makes a plain
    one, else with ``_`` for the characters that do not (``/``, spaces, ...), never
    hidden, never a comparison file's name, never twice.

    >>> run_folders(["a", "a/b", "a_b", "..", "comparison.json"])  # doctest: +NORMALIZE_WHITESPACE
    {'a': 'a', 'a/b': 'a_b', 'a_b': 'a_b-2', '..': 'run-..',
     'comparison.json': 'comparison.json-run'}
    """
    taken: set[str] = set()
    out = {}
    for rid in run_ids:
        name = _UNSAFE.sub("_", rid)
        if not name or name.startswith("."):
            name = "run-" + name
        if name in _COMPARISON_FILES:
            name += "-run"
        base, k = name, 2
        while name in taken:
            name, k = f"{base}-{k}", k + 1
        taken.add(name)
        out[rid] = name
    return out


def comparison_table(rows: list[dict[str, Any]]) -> Table:
    """:func:`banmen.arena.report.compare_rows` as a table: a row per run and pairing."""
    from rich.table import Table

    table = Table(
        title="runs compared (score of the first-named player, 95% intervals; "
        "forfeits and time per move: each player over its run)"
    )
    cols = ("run", "pairing", "games", "W-D-L", "score %", "Elo diff", "first mover %",
            "forfeits", "per move")  # fmt: skip
    for col in cols:
        table.add_column(col, justify="left" if col in ("run", "pairing") else "right",
                         overflow="fold")  # fmt: skip
    for i, r in enumerate(rows):
        first_of_run = i == 0 or rows[i - 1]["run"] != r["run"]
        if first_of_run and i:
            table.add_section()
        size = f" {r['size']}x{r['size']}" if r["size"] else ""
        planned = "?" if r["games_planned"] is None else r["games_planned"]
        run_cell = (
            f"{r['run']}\n{r['game']}{size} · {r['games_played']}/{planned} games · {r['status']}"
            if first_of_run
            else ""
        )
        pairing = f"{r['a']} vs {r['b']}\n{r['a_spec']} vs {r['b_spec']}"
        if not r["games"]:
            played = ["0", "", "", "", ""]
        else:
            fp = r["first_player_score"]
            played = [
                str(r["games"]),
                _wdl(r),
                f"{100 * r['a_score']:.1f} {_pct_ci(r['a_score_ci95'])}",
                f"{fmt_elo(r['elo_diff'], r['a_score'] - 0.5)} {_elo_ci(*r['elo_diff_ci95'])}",
                f"{100 * fp:.1f} {_pct_ci(r['first_player_score_ci95'])}",
            ]
        table.add_row(
            run_cell,
            pairing,
            *played,
            f"{r['a_forfeits']} / {r['b_forfeits']}",
            f"{_fmt_seconds(r['a_move_seconds']) or '–'} / "
            f"{_fmt_seconds(r['b_move_seconds']) or '–'}",
        )
    return table


def comparison_view(rows: list[dict[str, Any]], width: int) -> RenderableType:
    """:func:`comparison_table` if it fits in ``width`` columns; otherwise each run on a
    line of its own (its name whole) and each of its pairings in a paragraph under it."""
    from rich.console import Console, Group
    from rich.padding import Padding
    from rich.text import Text

    table = comparison_table(rows)
    if Console(width=PIPE_WIDTH).measure(table).maximum <= width:
        return table
    parts: list[RenderableType] = [Text(str(table.title), style="italic")]
    for i, r in enumerate(rows):
        if i == 0 or rows[i - 1]["run"] != r["run"]:
            size = f" {r['size']}x{r['size']}" if r["size"] else ""
            planned = "?" if r["games_planned"] is None else r["games_planned"]
            head = Text(r["run"], style="bold", no_wrap=True, overflow="ignore")
            head.append(f" · {r['game']}{size} · {r['games_played']}/{planned} games · "
                        f"{r['status']}", style="not bold")  # fmt: skip
            parts.append(head)
        line = f"{r['a']} vs {r['b']} ({r['a_spec']} vs {r['b_spec']}): {r['games']} games"
        if r["games"]:
            fp = r["first_player_score"]
            line += (
                f", W-D-L {_wdl(r)}, score "
                f"{100 * r['a_score']:.1f}% {_pct_ci(r['a_score_ci95'])}, Elo diff "
                f"{fmt_elo(r['elo_diff'], r['a_score'] - 0.5)} {_elo_ci(*r['elo_diff_ci95'])}, "
                f"first mover {100 * fp:.1f}% {_pct_ci(r['first_player_score_ci95'])}"
            )
        line += (
            f", forfeits {r['a_forfeits']} / {r['b_forfeits']}, per move "
            f"{_fmt_seconds(r['a_move_seconds']) or '–'} / "
            f"{_fmt_seconds(r['b_move_seconds']) or '–'}"
        )
        parts.append(Padding(Text(line), (0, 0, 0, 4)))
    return Group(*parts)


@app.command("report")
def report(
    run_ids: Annotated[
        list[str],
        typer.Argument(
            metavar="RUN",
            help="The run's name; two or more runs: them side by side, one table.",
        ),
    ],
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the report as one JSON object.")
    ] = False,
    out: Annotated[
        Path | None,
        typer.Option(
            help="Directory for report.json, games.csv, pairings.csv and the plots "
            "(default: arena-results/RUN). Comparing runs: for comparison.json, "
            "comparison.csv and the comparison's plot, each run's files in a folder of "
            "its own (default: none written)."
        ),
    ] = None,
    param: Annotated[
        str | None, typer.Option(help="Spec option to plot the score against (e.g. depth).")
    ] = None,
    plots: Annotated[bool, typer.Option(help="Write the plots (PNG and SVG).")] = True,
    db: DbOption = None,
) -> None:
    """Rebuild a run's tables, exports and plots from the database; compare runs."""
    if len(run_ids) > 1:
        _compare(run_ids, as_json, out, param, plots, db)
        return
    from banmen.arena.report import build_report

    (run_id,) = run_ids
    store = _store(db)
    try:
        rep = _jsonable(build_report(store, run_id))
    except ValueError as e:
        raise fail(str(e)) from None
    folder = out or Path("arena-results") / run_id
    try:
        files = _write_run_files(store, run_id, rep, folder, param, plots)
    except OSError as e:
        raise fail(_cannot_write(folder, e)) from None
    if as_json:
        typer.echo(json.dumps(rep))
        return
    console = make_console()
    console.print(report_tables(rep))
    console.print("written: " + ", ".join(str(f) for f in files), soft_wrap=True)


def _cannot_write(folder: Path, e: OSError) -> str:
    what = e.strerror or type(e).__name__
    where = f" ({e.filename})" if e.filename else ""
    return (
        f"cannot write the report to {folder}: {what}{where}; give --out a folder you can write to"
    )


def _compare(
    run_ids: list[str], as_json: bool, out: Path | None, param: str | None, plots: bool,
    db: Path | None,
) -> None:  # fmt: skip
    """``banmen arena report RUN RUN ...``: the runs side by side."""
    from banmen.arena.report import build_report, compare_rows, comparison_csv

    twice = sorted({r for r in run_ids if run_ids.count(r) > 1})
    if twice:
        raise fail(f"run {twice[0]!r} is named twice: name each run once")
    store = _store(db)
    reports = []
    for run_id in run_ids:  # every run is read before anything is written
        try:
            reports.append(_jsonable(build_report(store, run_id)))
        except ValueError as e:
            raise fail(str(e)) from None
    rows = compare_rows(reports)
    written: list[Path] = []
    if out is not None:
        folders = run_folders(run_ids)
        summary = {"runs": [{"run": r, "folder": folders[r]} for r in run_ids], "rows": rows}
        try:
            out.mkdir(parents=True, exist_ok=True)
            for run_id, rep in zip(run_ids, reports, strict=True):
                _write_run_files(store, run_id, rep, out / folders[run_id], param, plots)
            (out / "comparison.json").write_text(json.dumps(_jsonable(summary), indent=1) + "\n")
            (out / "comparison.csv").write_text(comparison_csv(rows))
            written = [out / "comparison.json", out / "comparison.csv"]
            if plots:
                from banmen.arena.plots import plot_comparison

                written += plot_comparison(rows, out)
        except OSError as e:
            raise fail(_cannot_write(out, e)) from None
        written += [out / folders[r] for r in run_ids]
    if as_json:
        typer.echo(json.dumps(_jsonable({"comparison": rows, "reports": reports})))
        return
    console = make_console()
    console.print(comparison_view(rows, console.width), crop=False)
    if written:
        console.print(
            "written: " + ", ".join(str(f) for f in written) + " (each run's report)",
            soft_wrap=True,
        )
    else:
        console.print("plots and each run's files: add --out DIR", soft_wrap=True)


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


def _stdin_is_terminal() -> bool:
    try:
        return sys.stdin.isatty()
    except (AttributeError, ValueError):  # no stdin, or a closed one
        return False


def _games(n: int) -> str:
    return f"{n} game{'' if n == 1 else 's'}"


@app.command("delete")
def delete(
    run_ids: Annotated[
        list[str], typer.Argument(metavar="RUN", help="The runs to delete, by name.")
    ],
    yes: Annotated[
        bool, typer.Option("--yes", "-y", help="Do not ask (it asks only on a terminal).")
    ] = False,
    force: Annotated[
        bool,
        typer.Option(
            "--force",
            help="Delete a run whose status is running too: one whose process was killed "
            "keeps that status; one still playing stops at its next batch of games.",
        ),
    ] = False,
    db: DbOption = None,
) -> None:
    """Delete runs and all their games from the database (in one transaction)."""
    from banmen.arena.store import ArenaStore, default_db_path

    ids = list(dict.fromkeys(run_ids))
    path = db or default_db_path()
    if not path.is_file():
        raise fail(f"nothing deleted: no database {path}")
    try:
        with ArenaStore(path) as store:
            deleted = _delete(store, ids, yes=yes, force=force)
    except sqlite3.Error as e:  # not a database, a read-only file, a lock held too long
        raise fail(f"nothing deleted: {path}: {e}") from None
    runs = f"{len(ids)} run{'' if len(ids) == 1 else 's'}"
    done = ", ".join(f"{r} ({_games(n)})" for r, n in deleted.items())
    typer.echo(f"deleted {runs} from {path}: {done}")


def _delete(store: ArenaStore, ids: list[str], *, yes: bool, force: bool) -> dict[str, int]:
    """``banmen arena delete``'s checks, question and deletion: each run's games deleted."""
    from banmen.arena.store import RunIsRunning

    known = {r["id"]: r for r in store.runs()}
    for run_id in ids:  # told before asking; checked again as it deletes
        if run_id not in known:
            try:
                store.run_config(run_id)
            except ValueError as e:
                raise fail(f"nothing deleted: {e}") from None
    if not yes and _stdin_is_terminal():
        what = ", ".join(
            f"{r} ({known[r]['status']}, {_games(known[r]['games_played'])})" for r in ids
        )
        total = sum(known[r]["games_played"] for r in ids)
        runs = f"{len(ids)} run{'' if len(ids) == 1 else 's'}"
        its = "its" if len(ids) == 1 else "their"
        question = f"delete {runs} and {its} {_games(total)} from {store.path}: {what}?"
        if not typer.confirm(question, default=False):
            typer.echo("nothing deleted", err=True)
            raise typer.Exit(1)
    try:
        return store.delete_runs(ids, force=force)
    except RunIsRunning as e:
        many = len(e.runs) > 1
        since = ", ".join(f"{r!r} (since {_when(t)})" for r, t in e.runs.items())
        raise fail(
            f"{'runs' if many else 'run'} {since} {'are' if many else 'is'} running: "
            "nothing deleted. Stop it first; a run whose process was killed stays "
            "running: delete it with --force"
        ) from None
    except ValueError as e:  # deleted meanwhile by someone else
        raise fail(str(e)) from None

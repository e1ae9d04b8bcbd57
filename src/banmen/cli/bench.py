"""``banmen bench``: run the benchmark suites and write their JSON."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from banmen.cli._app import fail
from banmen.cli._console import make_console

if TYPE_CHECKING:
    from rich.table import Table

#: How the tsume solvers are named in the summary.
_SOLVER_NAMES = {"banmen": "banmen", "cshogi": "cshogi DfPn", "kh": "KomoringHeights"}


def _secs(value: float | None) -> str:
    if value is None:
        return "-"
    # the short problems take well under a millisecond for the compiled solvers
    return (
        f"{value * 1e3:.2g} ms"
        if value < 0.01
        else f"{value:.2f} s"
        if value < 10
        else (f"{value:.0f} s")
    )


def _tsume_figures(solver: str, group: str, g: dict[str, Any]) -> str:
    """One solver's figures for one group of the tsume suites."""
    if group == "nomate":
        verdict = f"{g['nomate_right']} right, {g['false_mate']} false mate"
    elif group == "unpublished":
        verdict = f"{g['solved']} mate, {g['no_mate']} no_mate"
    else:
        verdict = (
            f"{g['solved']} mate, {g['length_equal']} of the published length, "
            f"{g['false_no_mate']} false no_mate"
        )
    nps = g["nodes_per_second"]
    text = (
        f"{verdict}; all: median {_secs(g['seconds_median'])}, p90 {_secs(g['seconds_p90'])}, "
        f"max {_secs(g['seconds_max'])}, total {g['seconds_total']:.0f} s"
        + (f"; {nps / 1e3:,.0f} k nodes/s" if nps else "")
    )
    for key, label in (("first_mate_seconds", "first mate"), ("shortest_seconds", "shortest")):
        t = g.get(key)  # absent from results written before KomoringHeights came in
        if t and t["problems"]:
            text += (
                f"; {label} ({t['problems']}): median {_secs(t['median'])}, "
                f"geomean {_secs(t['geomean'])}"
            )
    return text


def _ratio_figures(g: dict[str, Any]) -> str | None:
    """A solver's time ratios to KomoringHeights (geometric means), if it was in the run."""
    ratios = g.get("time_ratio_to_kh")
    if not ratios:
        return None
    parts = []
    for key, label in (("first_mate", "first mate"), ("shortest", "proved shortest")):
        r = ratios[key]
        if r["geomean"] is None:
            parts.append(f"{label} -")
        else:
            parts.append(f"{label} x{r['geomean']:.3g} over {r['problems']}")
    return "time / KomoringHeights' (geomean): " + ", ".join(parts)


def _tsume_rows(t: Table, name: str, r: dict[str, Any]) -> None:
    """The rows of a tsume suite: per group, a heading and one row per solver."""
    kh = r.get("kh") or {}
    if kh.get("left_out"):
        t.add_row(name, f"KomoringHeights left out: {kh['left_out']}")
    for group, by_solver in r["groups"].items():
        n = by_solver["banmen"]["problems"]
        lim = r.get("time_limit_over_40_plies") if group == "41+" else None
        t.add_row(f"{name} {group}", f"{n} problems, {lim or r['time_limit']:g} s each")
        for solver, g in by_solver.items():
            figures = _tsume_figures(solver, group, g)
            ratio = _ratio_figures(g)
            t.add_row(
                f"  {_SOLVER_NAMES.get(solver, solver)}",
                figures + (f"; {ratio}" if ratio else ""),
            )


def _overrun(row: dict[str, Any]) -> str:
    """One limit's line of the time-limits suite."""
    if "error" in row:
        return f"{row['limit_seconds']:g} s: {row['error']}"
    return (
        f"{row['limit_seconds']:g} s: over by median {row['overrun_ms_median']:+.0f} ms, "
        f"max {row['overrun_ms_max']:+.0f} ms ({row['over_allowed']} of {row['runs']} past "
        f"+{row['allowed_ms']:.0f} ms)"
    )


def _summary(record: dict[str, Any]) -> Table:
    from rich.table import Table

    t = Table(title="banmen bench", show_lines=False)
    t.add_column("suite")
    t.add_column("figure")
    res = record["results"]
    if "mattix-solve" in res:
        r = res["mattix-solve"]
        t.add_row(
            "mattix-solve",
            f"{r['boards']} boards: median {r['median_seconds']:.3f} s, "
            f"max {r['max_seconds']:.3f} s, median {r['median_nodes']:,.0f} nodes, "
            f"{r['nodes_per_second'] / 1e6:.1f} M nodes/s",
        )
    if "mattix-depth" in res:
        d = res["mattix-depth"]["median_depth"]
        t.add_row(
            "mattix-depth",
            f"median depth in 1 s: plain negamax {d['plain_negamax']}, plain alpha-beta "
            f"{d['plain_alphabeta']}, banmen {d['banmen']}",
        )
    if "mattix-first-player" in res:
        for k, r in res["mattix-first-player"].items():
            if not isinstance(r, dict):
                continue
            w, dr, lo = r["first_player_wins"], r["draws"], r["first_player_losses"]
            t.add_row(
                f"first player {k}",
                f"{r['boards']} boards: wins {w['share']:.1%}, draws {dr['share']:.1%}, "
                f"losses {lo['share']:.1%}, mean margin {r['mean_margin']:+.2f}",
            )
    if "search-deadline" in res:
        r = res["search-deadline"]
        t.add_row(
            "search-deadline",
            f"{r['runs']} searches of {r['limit_seconds']} s: overshoot median "
            f"{r['overshoot_ms_median']:.2f} ms, p90 {r['overshoot_ms_p90']:.2f} ms, "
            f"max {r['overshoot_ms_max']:.2f} ms",
        )
    if "shogi-kernel" in res:
        r = res["shogi-kernel"]
        p, c = r["perft"]["ours"], r["perft"]["cshogi_python_loop"]
        t.add_row(
            "shogi-kernel perft",
            f"depth {p['depth']} ({p['leaves']:,} leaves) in {p['seconds']:.2f} s: "
            f"{p['leaves_per_second'] / 1e6:.0f} M leaves/s, "
            f"{p['moves_made_per_second'] / 1e6:.1f} M moves made/s; cshogi from Python "
            f"(depth {c['depth']}): {c['leaves_per_second'] / 1e6:.0f} M leaves/s",
        )
        for name, k in r["calls"].items():
            t.add_row(
                f"  {name}",
                f"{k['positions']} positions: ours {k['ours_compiled_loop_per_second'] / 1e6:.2f}"
                f" M/s compiled, {k['ours_from_python_per_second'] / 1e6:.2f} M/s from Python; "
                f"cshogi {k['cshogi_from_python_per_second'] / 1e6:.2f} M/s from Python",
            )
    if "arena-scaling" in res:
        r = res["arena-scaling"]
        t.add_row(
            "arena-scaling",
            f"{r['games_per_second_1_worker']:.0f} games/s with 1 worker, "
            f"{r['games_per_second_2_workers']:.0f} with 2: scaling {r['scaling']:.2f}",
        )
    for load, r in res.get("train-selfplay", {}).get("loads", {}).items():
        p = r["positions_per_second"]
        t.add_row(
            f"train-selfplay {load}",
            f"{p['workers-1']:.0f} positions/s on 1 worker, {p['workers-2']:.0f} on 2, "
            f"{p['cluster-local-2']:.0f} on --cluster local:2 "
            f"({r['cluster_local_2_over_workers_1'] or 0:.2f}x the 1 worker's)",
        )
    for load, r in res.get("arena-cluster", {}).items():
        if not isinstance(r, dict):
            continue
        g = r["games_per_second"]

        def pct(x: float | None) -> str:
            return "n/a" if x is None else f"{100 * x:+.1f}%"

        def times(x: float | None) -> str:
            return "n/a" if x is None else f"{x:.2f}"

        t.add_row(
            f"arena-cluster {load}",
            f"games/s local {g['local-1']:.0f} / {g['local-2']:.0f}, cluster {g['cluster-1']:.0f}"
            f" / {g['cluster-2']:.0f} (1 / 2 workers); cluster overhead "
            f"{pct(r['cluster_overhead_1'])} / {pct(r['cluster_overhead_2'])}; scaling local "
            f"{times(r['scaling_local'])}, cluster {times(r['scaling_cluster'])}",
        )
    if "othello-perft" in res:
        r = res["othello-perft"]
        t.add_row(
            "othello-perft",
            f"perft({r['depth']}): {r['moves_made']:,} moves made in {r['seconds']:.2f} s = "
            f"{r['moves_per_second'] / 1e6:.1f} M/s",
        )
    for name in ("othello-ffo", "othello-ffo-hard"):
        if name in res:
            r = res[name]
            ids = [p["id"] for p in r["positions"]]
            t.add_row(
                name,
                f"FFO #{ids[0]}-#{ids[-1]}: {r['correct']}/{len(ids)} solved right, "
                f"{r['total_seconds_solved']:.1f} s and {r['total_nodes_solved']:,} nodes "
                "for the solved ones",
            )
    if "go-playouts" in res:
        r = res["go-playouts"]
        t.add_row(
            "go-playouts",
            f"random: 9x9 {r['random_9x9']['playouts_per_second']:,.0f}/s, 19x19 "
            f"{r['random_19x19']['playouts_per_second']:,.0f}/s; MCTS: 9x9 "
            f"{r['mcts_9x9']['playouts_per_second']:,.0f}/s, 19x19 "
            f"{r['mcts_19x19']['playouts_per_second']:,.0f}/s",
        )
    for name in ("tsume", "tsume-quick"):
        if name in res:
            _tsume_rows(t, name, res[name])
    if "cli-startup" in res:
        r = res["cli-startup"]
        t.add_row(
            "cli-startup",
            f"median of {r['runs_per_command']} fresh processes: "
            + ", ".join(
                f"{name} {row['wall_median_seconds']:.2f} s"
                for name, row in [*r["commands"].items(), *r["floors"].items()]
            ),
        )
    if "time-limits" in res:
        r = res["time-limits"]
        for name, case in r["cases"].items():
            t.add_row(f"time-limits {name}", "; ".join(_overrun(row) for row in case["limits"]))
    if "your-ai-routes" in res:
        r = res["your-ai-routes"]
        for route in ("in-process", "python", "ugi"):
            if isinstance(r.get(route), dict):
                row = r[route]
                x = row["x_in_process"]
                t.add_row(
                    f"your-ai-routes {route}",
                    f"{row['games_per_second']:.0f} games/s, {row['us_per_move']:.0f} us a move"
                    + (f" ({x:.2f}x in-process)" if x is not None else "")
                    + f"; {row['cpu_us_per_move']:.0f} us CPU a move",
                )
    if "web-lag" in res:
        r = res["web-lag"]
        t.add_row(
            "web-lag",
            ", ".join(f"{k}={v}" for k, v in r.items() if not isinstance(v, (dict, list))),
        )
    return t


def bench(
    suites: Annotated[
        list[str] | None,
        typer.Argument(
            help="Suites to run (default: all but othello-ffo-hard and tsume): mattix-solve, "
            "mattix-depth, mattix-first-player, search-deadline, arena-scaling, web-lag, "
            "othello-perft, othello-ffo, othello-ffo-hard, go-playouts, tsume, tsume-quick, "
            "cli-startup, your-ai-routes, train-selfplay; "
            "BANMEN_TSUME_LIMIT sets the tsume seconds per problem."
        ),
    ] = None,
    quick: Annotated[bool, typer.Option(help="Small sample sizes (a smoke test).")] = False,
    output: Annotated[Path, typer.Option(help="Directory for the JSON results.")] = Path(
        "bench/results"
    ),
    kh: Annotated[
        Path | None,
        typer.Option(
            help="KomoringHeights binary for the tsume suites (else BANMEN_KH, else the "
            "anchors' build directory if it is there; without one it is left out)."
        ),
    ] = None,
) -> None:
    """Measure speed and write the figures as JSON (see docs/BENCHMARKS.md)."""

    from banmen.bench import run_suites

    if kh is not None:
        # the suites read it from the environment, like BANMEN_TSUME_LIMIT
        os.environ["BANMEN_KH"] = str(kh)
    console = make_console()
    try:
        record, path = run_suites(list(suites or []), quick, output, console.print)
    except ValueError as e:
        raise fail(str(e)) from None
    console.print(_summary(record))
    console.print(f"written: {path}")

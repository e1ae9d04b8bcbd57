"""Plots of a run's report (matplotlib, written as PNG and SVG)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from banmen.arena.report import numeric_option

__all__ = [
    "write_plots", "varying_option", "render_svg", "heatmap_figure", "PLOTS",
    "comparison_figure", "plot_comparison", "render_comparison_svg", "clock_figure",
    "plot_clock",
]  # fmt: skip


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")  # files only: no display needed
    import matplotlib.pyplot as plt

    return plt


def varying_option(report: dict[str, Any]) -> str | None:
    """The numeric spec option (e.g. ``depth``) that differs between players, if one does."""
    specs = [p["spec"] for p in report["players"]]
    for key in ("depth", "time", "nodes", "playouts"):
        values = {numeric_option(s, key) for s in specs} - {None}
        if len(values) > 1:
            return key
    return None


def _save(fig: Any, out: Path, stem: str) -> list[Path]:
    paths = [out / f"{stem}.png", out / f"{stem}.svg"]
    for p in paths:
        fig.savefig(p, dpi=120, bbox_inches="tight")
    return paths


def plot_vs_param(report: dict[str, Any], out: Path, param: str) -> list[Path]:
    """Score rate against a spec parameter, with 95% Wilson error bars.

    In a gauntlet each point is an opponent's score against the gauntlet player; in a round
    robin, each player's score over all its games."""
    plt = _pyplot()
    spec_of = {p["name"]: p["spec"] for p in report["players"]}
    points = []
    gauntlet = report["config"].get("gauntlet")
    if gauntlet:
        for r in report["pairings"]:
            x = numeric_option(spec_of[r["b"]], param)
            if x is None or not r["games"]:
                continue
            y = 1 - r["a_score"]
            lo, hi = 1 - r["a_score_ci95"][1], 1 - r["a_score_ci95"][0]
            points.append((x, y, lo, hi, r["b"]))
        ylabel = f"score against {gauntlet}"
    else:
        from banmen.stats import wilson

        for p in report["players"]:
            x = numeric_option(p["spec"], param)
            if x is None or not p["games"]:
                continue
            lo, hi = wilson(p["points"], p["games"])
            points.append((x, p["score"], lo, hi, p["name"]))
        ylabel = "score over all games"
    if not points:
        return []
    points.sort()
    xs = [p[0] for p in points]
    ys = [p[1] for p in points]
    err = [[p[1] - p[2] for p in points], [p[3] - p[1] for p in points]]
    fig, ax = plt.subplots(figsize=(6.4, 4.0))
    ax.errorbar(xs, ys, yerr=err, fmt="o-", capsize=4, color="#1f5fbf")
    ax.axhline(0.5, color="grey", lw=0.8, ls="--")
    ax.set_xlabel(param)
    ax.set_ylabel(ylabel)
    ax.set_ylim(0, 1)
    ax.set_xticks(xs)
    ax.set_title(f"{report['run']}: score vs {param} (95% Wilson intervals)", fontsize=10)
    ax.grid(alpha=0.3)
    paths = _save(fig, out, f"score-vs-{param}")
    plt.close(fig)
    return paths


def heatmap_figure(report: dict[str, Any]) -> Any:
    """The heatmap as a matplotlib figure: cells and colour bar both in percent."""
    plt = _pyplot()
    names = [p["name"] for p in report["players"]]
    idx = {n: i for i, n in enumerate(names)}
    n = len(names)
    grid = [[float("nan")] * n for _ in range(n)]
    for r in report["pairings"]:
        if r["games"]:
            i, j = idx[r["a"]], idx[r["b"]]
            grid[i][j] = 100 * r["a_score"]
            grid[j][i] = 100 * (1 - r["a_score"])
    fig, ax = plt.subplots(figsize=(1.0 + 0.7 * n, 0.8 + 0.6 * n))
    im = ax.imshow(grid, cmap="RdYlGn", vmin=0, vmax=100)
    ax.set_xticks(range(n), names, rotation=45, ha="right")
    ax.set_yticks(range(n), names)
    for i in range(n):
        for j in range(n):
            v = grid[i][j]
            if v == v:  # not NaN
                ax.text(j, i, f"{v:.0f}", ha="center", va="center", fontsize=8)
    fig.colorbar(im, ax=ax, label="row player's score (%)")
    ax.set_title(f"{report['run']}: scores (%)", fontsize=10)
    return fig


def plot_heatmap(report: dict[str, Any], out: Path) -> list[Path]:
    """Row player's score against column player, every pairing of the run."""
    plt = _pyplot()
    fig = heatmap_figure(report)
    paths = _save(fig, out, "heatmap")
    plt.close(fig)
    return paths


def plot_margins(report: dict[str, Any], out: Path) -> list[Path]:
    """Histogram of final score margins, one panel per pairing (first-named player's view)."""
    plt = _pyplot()
    rows = [r for r in report["pairings"] if r["games"]][:12]
    if not rows:
        return []
    cols = min(3, len(rows))
    nrows = (len(rows) + cols - 1) // cols
    fig, axes = plt.subplots(nrows, cols, figsize=(3.4 * cols, 2.6 * nrows), squeeze=False)
    for ax, r in zip(axes.flat, rows, strict=False):
        m = r["margins"]
        lo, hi = min(m), max(m)
        ax.hist(m, bins=range(lo, hi + 2), align="left", color="#d08a2e", edgecolor="white")
        ax.axvline(0, color="grey", lw=0.8)
        ax.set_title(f"{r['a']} vs {r['b']}", fontsize=9)
        ax.set_xlabel(f"margin for {r['a']}", fontsize=8)
    for ax in list(axes.flat)[len(rows) :]:
        ax.axis("off")
    fig.suptitle(f"{report['run']}: final score margins", fontsize=10)
    fig.tight_layout()
    paths = _save(fig, out, "margins")
    plt.close(fig)
    return paths


def clock_figure(report: dict[str, Any]) -> Any:
    """A run on clocks: each player's mean time a move and mean clock left, by its move
    number (``None`` for a run on no clock)."""
    clock = report.get("clock")
    rows = [p for p in (clock or {}).get("players", []) if p["by_move"]]
    if not rows:
        return None
    plt = _pyplot()
    fig, (used, left) = plt.subplots(1, 2, figsize=(9.0, 3.4))
    for p in rows:
        moves = [r["move"] for r in p["by_move"]]
        label = f"{p['name']} ({p['tc']})" if p.get("tc") else p["name"]
        used.plot(moves, [r["mean_seconds"] for r in p["by_move"]], label=label, lw=1.2)
        pts = [(r["move"], r["mean_left"]) for r in p["by_move"] if r["mean_left"] is not None]
        if pts:
            left.plot([m for m, _ in pts], [v for _, v in pts], label=label, lw=1.2)
    used.set_xlabel("its move number", fontsize=8)
    used.set_ylabel("mean seconds a move", fontsize=8)
    left.set_xlabel("its move number", fontsize=8)
    left.set_ylabel("mean clock left after it, s", fontsize=8)
    left.set_ylim(bottom=0)
    used.set_ylim(bottom=0)
    used.legend(fontsize=7)
    fig.suptitle(f"{report['run']}: time a move and clock left", fontsize=10)
    fig.tight_layout()
    return fig


def plot_clock(report: dict[str, Any], out: Path) -> list[Path]:
    """:func:`clock_figure` as ``clock.png`` and ``clock.svg`` (none for a run on no clock)."""
    fig = clock_figure(report)
    if fig is None:
        return []
    paths = _save(fig, out, "clock")
    _pyplot().close(fig)
    return paths


def write_plots(report: dict[str, Any], out: Path, param: str | None = None) -> list[Path]:
    """Every plot that makes sense for this run; returns the files written."""
    out.mkdir(parents=True, exist_ok=True)
    files: list[Path] = []
    key = param or varying_option(report)
    if key:
        files += plot_vs_param(report, out, key)
    if len(report["players"]) >= 2:
        files += plot_heatmap(report, out)
    files += plot_margins(report, out)
    files += plot_clock(report, out)
    return files


#: The plots a run can have, by name (as in the files ``write_plots`` writes).
PLOTS = ("score-vs-param", "heatmap", "margins", "clock")


def render_svg(report: dict[str, Any], name: str, param: str | None = None) -> bytes | None:
    """One plot as SVG bytes (for the web app), or ``None`` if the run has no such plot."""
    import tempfile

    if name not in PLOTS:
        raise ValueError(f"unknown plot {name!r}: expected one of {', '.join(PLOTS)}")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        if name == "score-vs-param":
            key = param or varying_option(report)
            files = plot_vs_param(report, out, key) if key else []
        elif name == "heatmap":
            files = plot_heatmap(report, out)
        elif name == "clock":
            files = plot_clock(report, out)
        else:
            files = plot_margins(report, out)
        svg = [f for f in files if f.suffix == ".svg"]
        return svg[0].read_bytes() if svg else None


# --------------------------------------------------------------------------- runs compared


def comparison_figure(rows: Sequence[dict[str, Any]]) -> Any:
    """Runs side by side (the rows of :func:`banmen.arena.report.compare_rows`), one line
    per run and pairing, top to bottom in their order: the first-named player's score and
    the first mover's score, each with its 95% Wilson interval; ``None`` if no row has a
    game."""
    played = [r for r in rows if r["games"]]
    if not played:
        return None
    plt = _pyplot()
    labels = [f"{r['run']}\n{r['a']} vs {r['b']}" for r in played]
    ys = list(range(len(played)))
    fig, axes = plt.subplots(
        1, 2, figsize=(9.6, 1.2 + 0.55 * len(played)), sharey=True, squeeze=False
    )
    panels = (
        ("a_score", "a_score_ci95", "score of the first-named player", "#1f5fbf"),
        ("first_player_score", "first_player_score_ci95", "score of the first mover", "#d08a2e"),
    )
    for ax, (key, ci, title, colour) in zip(axes[0], panels, strict=True):
        xs = [r[key] for r in played]
        err = [[r[key] - r[ci][0] for r in played], [r[ci][1] - r[key] for r in played]]
        ax.errorbar(xs, ys, xerr=err, fmt="o", capsize=4, color=colour)
        ax.axvline(0.5, color="grey", lw=0.8, ls="--")
        ax.set_xlim(-0.03, 1.03)  # a 0% or 100% score stays in sight
        ax.set_title(title, fontsize=9)
        ax.grid(axis="x", alpha=0.3)
    axes[0][0].set_yticks(ys, labels, fontsize=8)
    axes[0][0].set_ylim(len(played) - 0.5, -0.5)  # the first run on top, as in the table
    fig.suptitle("runs compared (95% Wilson intervals)", fontsize=10)
    fig.tight_layout()
    return fig


def plot_comparison(rows: Sequence[dict[str, Any]], out: Path) -> list[Path]:
    """:func:`comparison_figure` as ``comparison.png`` and ``comparison.svg`` in ``out``
    (nothing if no run has a game); the files written."""
    fig = comparison_figure(rows)
    if fig is None:
        return []
    out.mkdir(parents=True, exist_ok=True)
    paths = _save(fig, out, "comparison")
    _pyplot().close(fig)
    return paths


def render_comparison_svg(rows: Sequence[dict[str, Any]]) -> bytes | None:
    """:func:`comparison_figure` as SVG bytes (for the web app), or ``None``."""
    import io

    fig = comparison_figure(rows)
    if fig is None:
        return None
    buf = io.BytesIO()
    fig.savefig(buf, format="svg", dpi=120, bbox_inches="tight")
    _pyplot().close(fig)
    return buf.getvalue()

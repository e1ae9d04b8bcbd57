"""A training run's report: its iterations as data (JSON) and curves (PNG, SVG).

The curves: the held-out error by iteration (each phase, the new weights), and the Elo
of the weights kept after each iteration against the run's fixed baseline, with its
95% interval (the gate's games against the baseline).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from banmen.train.store import TrainStore

__all__ = ["report_data", "write_report", "curves"]


def report_data(store: TrainStore, name: str) -> dict[str, Any]:
    """The run ``name`` as JSON-ready data; ``ValueError`` (one line) for no such run."""
    from banmen.train.loop import _summary

    run = store.run(name)
    its = store.iterations(name)
    rows = [_summary(i) for i in its if i.kept is not None]
    elo: float | None = 0.0
    ci: list[float | None] = [0.0, 0.0]
    for row in rows:
        base = row.get("baseline") or {}
        if row.get("kept"):
            elo, ci = base.get("elo"), base.get("elo_ci") or [None, None]
        row["kept_elo_vs_baseline"] = elo
        row["kept_elo_ci"] = ci
    return {"name": run.name, "game": run.game, "evaluator": run.evaluator,
            "status": run.status, "created": run.created, "updated": run.updated,
            "config": run.config, "positions": store.positions(name),
            "iterations": rows}  # fmt: skip


def curves(data: dict[str, Any]) -> Any:
    """The report's figure (matplotlib): held-out error and Elo against the baseline."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    rows = data["iterations"]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4))
    xs = [r["iteration"] for r in rows]
    errors = [r.get("held_out_error", r.get("held_out_rmse")) or [] for r in rows]
    phases = max((len(e) for e in errors), default=0)
    for p in range(phases):
        ys = [e[p] if p < len(e) else None for e in errors]
        ax1.plot(xs, ys, marker="o", label=f"phase {p + 1} of {phases}")
    ax1.set_xlabel("iteration")
    log_loss = any(r.get("error") == "log-loss" for r in rows)
    ax1.set_ylabel("held-out log-loss a choice (nats)" if log_loss
                   else "held-out root mean square error (evaluator units)")  # fmt: skip
    ax1.set_title(f"{data['game']} {data['evaluator']}: held-out error")
    if phases:
        ax1.legend(fontsize=8)
    elo = [r.get("kept_elo_vs_baseline") for r in rows]
    lo = [(r.get("kept_elo_ci") or [None, None])[0] for r in rows]
    hi = [(r.get("kept_elo_ci") or [None, None])[1] for r in rows]
    pts = [(x, e, a, b) for x, e, a, b in zip(xs, elo, lo, hi, strict=True) if e is not None]
    if pts:
        ax2.errorbar([p[0] for p in pts], [p[1] for p in pts],
                     yerr=[[p[1] - (p[2] if p[2] is not None else p[1]) for p in pts],
                           [(p[3] if p[3] is not None else p[1]) - p[1] for p in pts]],
                     marker="o", capsize=3)  # fmt: skip
    ax2.axhline(0, color="grey", lw=0.8)
    ax2.set_xlabel("iteration")
    ax2.set_ylabel("Elo of the kept weights vs the baseline")
    ax2.set_title("strength (95% interval)")
    for ax in (ax1, ax2):
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    fig.tight_layout()
    return fig


def write_report(data: dict[str, Any], folder: Path) -> list[Path]:
    """Write ``report.json``, ``curves.png`` and ``curves.svg`` to ``folder``."""
    import matplotlib.pyplot as plt

    folder.mkdir(parents=True, exist_ok=True)
    out = [folder / "report.json", folder / "curves.png", folder / "curves.svg"]
    out[0].write_text(json.dumps(data, indent=1))
    fig = curves(data)
    try:
        fig.savefig(out[1], dpi=100)
        fig.savefig(out[2])
    finally:
        plt.close(fig)
    return out

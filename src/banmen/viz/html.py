"""A walkthrough as one self-contained HTML file: every step's SVG, stepped through with
Prev / Next or the arrow keys (without JavaScript every step is shown, one after another).
No external resources: the file works offline and can be mailed around."""

from __future__ import annotations

from html import escape

from banmen.viz.svg import LEGEND
from banmen.viz.walkthroughs import Walkthrough

__all__ = ["walkthrough_html"]

_CSS = """
body { font: 15px/1.45 system-ui, sans-serif; margin: 1.5em auto; max-width: 56em;
  padding: 0 1em; color: #1b1b1b; background: #fbfaf7; }
h1 { font-size: 1.35em; margin-bottom: .2em; }
.meta, .legend { color: #555; font-size: .9em; margin: .2em 0; }
nav { display: flex; gap: .6em; align-items: center; margin: 1em 0;
  position: sticky; top: 0; background: #fbfaf7; padding: .4em 0; }
nav button { font: inherit; padding: .3em .9em; }
.step { border-top: 1px solid #ddd; padding: .6em 0 1em; }
.step h2 { font-size: 1.05em; margin: .2em 0; font-family: ui-monospace, monospace; }
.step .value { font-family: ui-monospace, monospace; margin: .2em 0; }
.step .op { color: #777; font-size: .85em; }
.js .step { display: none; border: 0; }
.js .step.current { display: block; }
"""

_JS = """
(function () {
  document.body.classList.add("js");
  var steps = Array.prototype.slice.call(document.querySelectorAll("section.step"));
  var pos = document.getElementById("pos");
  var i = 0;
  function show(k) {
    i = Math.max(0, Math.min(steps.length - 1, k));
    steps.forEach(function (s, j) { s.classList.toggle("current", j === i); });
    pos.textContent = (i + 1) + " / " + steps.length;
    document.getElementById("prev").disabled = i === 0;
    document.getElementById("next").disabled = i === steps.length - 1;
  }
  document.getElementById("prev").addEventListener("click", function () { show(i - 1); });
  document.getElementById("next").addEventListener("click", function () { show(i + 1); });
  document.addEventListener("keydown", function (e) {
    if (e.key === "ArrowLeft") { show(i - 1); e.preventDefault(); }
    else if (e.key === "ArrowRight") { show(i + 1); e.preventDefault(); }
    else if (e.key === "Home") { show(0); }
    else if (e.key === "End") { show(steps.length - 1); }
  });
  show(0);
})();
"""


def walkthrough_html(w: Walkthrough) -> str:
    """The whole walkthrough as one HTML page: a ``<section class="step">`` per step with
    its label, hex and decimal value, explanation and SVG board."""
    params = ", ".join(f"{k} = {v}" for k, v in w.params.items())
    parts = [
        "<!doctype html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{escape(w.title)} — banmen viz</title>",
        f"<style>{_CSS}</style></head><body>",
        f"<h1>{escape(w.title)}</h1>",
        f'<p class="meta">walkthrough <b>{escape(w.name)}</b>: {escape(params)}; '
        f"source squares coloured by {escape(w.colouring.kind)}</p>",
        f'<p class="legend">{escape(" ".join(LEGEND))}</p>',
        '<nav><button id="prev" type="button">◀ Prev</button>'
        '<span id="pos"></span><button id="next" type="button">Next ▶</button>'
        '<span class="meta">(← → keys)</span></nav>',
    ]
    for i, s in enumerate(w.steps):
        value = f"= {s.value}" if s.number is not None else f"{s.hex} = {s.value}"
        parts.append(
            f'<section class="step" id="step-{i + 1}" data-index="{i}">'
            f'<h2>{i + 1}. {escape(s.label)} <span class="op">({escape(s.op)})</span></h2>'
            f'<p class="value">{escape(value)}</p>'
            f"<p>{escape(s.explanation)}</p>"
            f"{w.step_svg(i)}</section>"
        )
    parts.append(f"<script>{_JS}</script></body></html>")
    return "\n".join(parts) + "\n"

"""The blocks every game page builds alike, as HTML: the scoreboard's cards, the row of
buttons, the analysis switch, the CPU panel and the players panel. A game's web adapter
(:meth:`banmen.web.games.WebGame.parts`) puts its page's parts together from these;
:mod:`banmen.web.pages` fills them into the game frame (``static/pages/game.html``).

Every text given here is plain text unless it says HTML; what ends up in an attribute or
in the page is escaped here.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Mapping, Sequence

__all__ = [
    "BUTTONS",
    "NPS",
    "SEARCH_FIGURES",
    "analysis_switch",
    "attr",
    "buttons",
    "clock_field",
    "player_cards",
    "players_panel",
    "text",
    "thinking_panel",
]


def attr(value: str) -> str:
    """``value`` escaped for an attribute in double quotes."""
    return html.escape(value, quote=True)


def text(value: str) -> str:
    """Plain text as HTML."""
    return html.escape(value, quote=False)


#: The game pages' buttons: id -> (label, tooltip).
BUTTONS = {
    "pass": ("Pass", ""),
    "resign": ("Resign", ""),
    "undo": ("Undo", ""),
    "score": ("Score", "Stop playing and count the game now"),
    "stop": ("Stop", "Make the thinking CPU move now"),
    "pause": ("Pause", ""),
}


def buttons(*names: str, titles: Mapping[str, str] | None = None) -> str:
    """A game page's row of buttons (:data:`BUTTONS`), all disabled until the first state;
    ``titles`` overrides tooltips."""
    rows = []
    for name in names:
        label, title = BUTTONS[name]
        title = (titles or {}).get(name, title)
        tip = f' title="{attr(title)}"' if title else ""
        rows.append(f'        <button id="{name}" type="button" disabled{tip}>{label}</button>')
    return "\n".join(['      <div class="actions">', *rows, "      </div>"])


def analysis_switch(hint: str = "each move's value for the side to move", extra: str = "") -> str:
    """The analysis switch under the buttons and its status line (filled by
    static/js/game-page.js): each legal move's value, drawn on the board. ``hint`` (HTML)
    says what is drawn; ``extra`` (HTML: the game's own options of the analysis) is shown
    only while the analysis is on."""
    more = f'\n        <div class="analysis-only">{extra}</div>' if extra else ""
    return f"""\
      <div class="analysis-bar" data-on="false">
        <label class="toggle"><input type="checkbox" id="analysis" role="switch">
          Analysis <small>{hint}</small></label>{more}
        <p id="analysis-status" class="analysis-status" role="status" aria-live="polite" hidden></p>
      </div>"""


def thinking_panel(stats: Sequence[tuple[str, str]], pv_label: str = "PV") -> str:
    """The CPU panel: its head line, the figures (element id, label), the line it expects
    and the verdict — filled by static/js/game-page.js."""
    figures = "\n".join(
        f'          <div><dt>{html.escape(label)}</dt><dd id="{attr(id_)}">–</dd></div>'
        for id_, label in stats
    )
    return f"""\
      <section class="panel thinking" aria-labelledby="thinking-title">
        <h2 id="thinking-title">CPU</h2>
        <p id="think-head" class="think-head">—</p>
        <dl class="stats">
{figures}
        </dl>
        <p class="pv"><span class="label">{html.escape(pv_label)}</span>
          <span id="think-pv">–</span></p>
        <p id="verdict" class="verdict"></p>
      </section>"""


def players_panel(sides: tuple[tuple[str, str], tuple[str, str]]) -> str:
    """The players panel: a level menu per side ((name, note) each), the levels' notes and
    the delay between CPU moves."""
    menus = "\n".join(
        f'        <label class="field">{html.escape(name)}'
        f"{f' <small>{html.escape(note)}</small>' if note else ''}\n"
        f'          <select id="level-{side}"></select>\n'
        "        </label>"
        for side, (name, note) in enumerate(sides, start=1)
    )
    return f"""\
      <div class="panel">
        <h2>Players</h2>
{menus}
        <p id="level-note" class="hint-text" hidden></p>
        <label class="field">Delay between CPU moves (CPU vs CPU): <output id="delay-out">–</output>
          <input type="range" id="delay" min="0" max="3000" step="100" value="700">
        </label>
      </div>"""


def player_cards(
    sides: tuple[tuple[str, str], tuple[str, str]], figures: Callable[[int], Sequence[str]]
) -> str:
    """The scoreboard: a card per side ((class, name) each; the name is HTML, a note in
    ``<small>`` may follow it) with the side's swatch and name, its controller (filled by
    static/js/game-page.js), its game clock (shown on a game with one: game-page.js) and
    the game's figures for the side: ``figures(side)``'s lines."""
    cards = []
    for side, (cls, name) in enumerate(sides, start=1):
        cards += [
            f'        <div class="player {cls}" id="player-{side}">',
            '          <div class="who"><span class="swatch" aria-hidden="true"></span>'
            f"{name}</div>",
            f'          <div class="ctl" id="ctl-{side}">…</div>',
            f'          <div class="clock" id="clock-{side}" role="timer" hidden>'
            '<span class="clock-time">–</span> <span class="clock-note"></span></div>',
            *(f"          {line}" for line in figures(side)),
            "        </div>",
        ]
    return "\n".join(cards)


#: The CPU figures of a game whose CPU is an alpha-beta search.
SEARCH_FIGURES = (("think-depth", "depth"), ("think-score", "score"), ("think-nodes", "nodes"))
NPS = ("think-nps", "nodes/s")


#: what the clock field says a time control may be (the forms of banmen.clock)
CLOCK_FORMS = "60, 3:00+2, 40/60+0.6, st=5, byoyomi=300+3x30, canadian=600+25/300 or inf"


def clock_field(presets: Sequence[tuple[str, str]]) -> str:
    """The new-game form's clock: a menu of ``presets`` ((label, time control) each, the
    control as :func:`banmen.clock.parse_time_control` reads it: written here as it
    writes it back, which is what a game's state says) and "other…", a text box for any
    time control (static/js/game-page.js sends it; a malformed one is the server's
    one-line error, shown under it)."""
    from banmen.clock import parse_time_control

    options = "\n".join(
        f'            <option value="{attr(str(parse_time_control(tc)))}">'
        f"{html.escape(label)}</option>"
        for label, tc in presets
    )
    return f"""\
        <label class="field">Clock <small>(each side's time)</small>
          <select id="clock-preset">
{options}
            <option value="custom">other…</option>
          </select>
        </label>
        <label class="field" id="clock-custom" hidden>Time control
          <small>{html.escape(CLOCK_FORMS)}</small>
          <input id="clock-text" type="text" autocomplete="off" spellcheck="false"
                 autocapitalize="off" placeholder="3:00+2">
        </label>
        <p id="clock-error" class="load-error" role="alert" hidden></p>"""

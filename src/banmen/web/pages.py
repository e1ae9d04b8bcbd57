"""The app's HTML pages: one shell around each page's own body, rendered by the server.

Every page has the same head (charset, viewport, colour schemes, icon, ``app.css``, its
own stylesheets and its one module script — no inline script: the pages' CSP forbids them)
and the same top bar (the brand, the page's title, its links, and for a page that holds a
socket, the connection badge). A :class:`Page` says what differs.

Its body comes from ``static/pages/``. A page of its own (home, tsume, viz, arena) has its
body in ``<name>.html``. The game pages share one frame, ``game.html`` (the scoreboard,
status line, board, result, buttons, CPU panel, new-game form, players and "This game"
panels), and ``<name>.html`` holds only the game's blocks: each starts at a marker line
``<!--BLOCK-->`` and fills the frame's line with the same marker (a marker left unfilled
is dropped). The blocks every game page has alike are made here (:data:`GAME_PARTS`: the
scoreboard's cards, the buttons, the analysis switch of the games that have one, the CPU
panel and the players panel). Data for a page's scripts goes into ``<body data-*>`` as
JSON: the game pages get :data:`~banmen.web.games.STOPPED_BY`, so the words for why a
search ended are written once, in Python.

The pages are rendered once, when the app is made (:func:`render_pages`): a request gets
the finished text, with no template work and no client-side templating.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route

from banmen.web.catalog import CATALOG, GameEntry
from banmen.web.games import STOPPED_BY

__all__ = [
    "Page",
    "PAGES",
    "PAGE_HEADERS",
    "STATIC_DIR",
    "blocks",
    "fill",
    "page_routes",
    "render_page",
    "render_pages",
    "shell",
]

STATIC_DIR = Path(__file__).parent / "static"
BODIES_DIR = STATIC_DIR / "pages"

#: The links of a game page's top bar.
ARENA_LINK = (("/arena", "Arena"),)


@dataclass(frozen=True)
class Page:
    """One page of the app."""

    #: its URL
    path: str
    #: its body (``static/pages/<name>.html``), its script (``static/js/<name>.js``, if it
    #: has one) and the class of its ``<body>``, which the stylesheets use
    name: str
    #: shown in the top bar and in the window's title (None: the home page, "banmen" alone)
    title: str | None
    #: its own stylesheets (``static/css/<style>.css``), after ``app.css``
    styles: tuple[str, ...] = ()
    script: bool = True
    #: the top bar's links: (href, text); the link to the page itself is marked current
    nav: tuple[tuple[str, str], ...] = ARENA_LINK
    #: a connection badge in the top bar (the page talks to the server over a socket)
    live: bool = False
    #: the frame its body's blocks fill (``static/pages/<frame>.html``), if any
    frame: str | None = None
    #: blocks made in Python, for the body's (or the frame's) ``<!--NAME-->`` markers
    parts: Mapping[str, str] = field(default_factory=dict)
    #: JSON for the page's scripts, as ``<body data-NAME>``
    data: Mapping[str, object] = field(default_factory=dict)


def _attr(value: str) -> str:
    return html.escape(value, quote=True)


def _json_attr(value: object) -> str:
    """``value`` as JSON for an attribute in single quotes (its double quotes stay)."""
    return html.escape(json.dumps(value), quote=False).replace("'", "&#x27;")


_MARKER = re.compile(r"\s*<!--([a-z][a-z-]*)-->\s*")


def blocks(text: str) -> dict[str, str]:
    """The blocks of a page that fills a frame: each runs from its marker line
    ``<!--NAME-->`` to the next (lines before the first are a note for the reader)."""
    found: dict[str, list[str]] = {}
    current: list[str] = []
    for line in text.split("\n"):
        m = _MARKER.fullmatch(line)
        if m is not None:
            current = found.setdefault(m.group(1), [])
        else:
            current.append(line)
    return {name: "\n".join(lines).strip("\n") for name, lines in found.items()}


def fill(template: str, parts: Mapping[str, str], page: str = "?") -> list[str]:
    """The lines of ``template`` with each marker line replaced by its part (a part brings
    its own indentation; a marker without one is dropped). Every part must have a place."""
    out: list[str] = []
    placed = set()
    for line in template.strip("\n").split("\n"):
        m = _MARKER.fullmatch(line)
        if m is None:
            out.append(line)
        elif parts.get(m.group(1)):
            out.append(parts[m.group(1)])
            placed.add(m.group(1))
    lost = sorted(set(parts) - placed)
    if lost:
        raise ValueError(f"page {page!r}: no <!--NAME--> line for its parts {lost}")
    return out


def _read(name: str) -> str:
    return (BODIES_DIR / f"{name}.html").read_text(encoding="utf-8")


def render_page(page: Page) -> str:
    """The whole HTML of ``page``."""
    if page.frame is None:
        lines = fill(_read(page.name), page.parts, page.name)
    else:
        lines = fill(_read(page.frame), {**blocks(_read(page.name)), **page.parts}, page.name)
    return shell(page, lines)


def shell(page: Page, body: Sequence[str]) -> str:
    """The shell of ``page`` (its head, its top bar) around ``body``'s lines."""
    head = [
        '<meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        '<meta name="color-scheme" content="light dark">',
        f"<title>{html.escape(page.title + ' · banmen' if page.title else 'banmen')}</title>",
        '<link rel="icon" href="/static/favicon.svg" type="image/svg+xml">',
        *(
            f'<link rel="stylesheet" href="/static/css/{_attr(s)}.css">'
            for s in ("app", *page.styles)
        ),
    ]
    if page.script:
        head.append(f'<script type="module" src="/static/js/{_attr(page.name)}.js"></script>')
    bar = ['<a class="brand" href="/">banmen</a>']
    if page.title:
        bar.append(f'<span class="page-title">{html.escape(page.title)}</span>')
    current = ' aria-current="page"'
    links = [
        f'<a href="{_attr(href)}"{current if href == page.path else ""}>{html.escape(text)}</a>'
        for href, text in page.nav
    ]
    bar.append(f'<nav class="nav">{"".join(links)}</nav>')
    if page.live:
        bar.append('<span id="conn" class="conn" data-status="connecting">connecting…</span>')
    data = "".join(f" data-{_attr(k)}='{_json_attr(v)}'" for k, v in page.data.items())
    return "\n".join(
        [
            "<!doctype html>",
            '<html lang="en">',
            "<head>",
            *(f"  {line}" for line in head),
            "</head>",
            f'<body class="{_attr(page.name)}"{data}>',
            '  <header class="topbar">',
            *(f"    {item}" for item in bar),
            "  </header>",
            *(['  <p id="engines" class="engines" role="status" hidden></p>'] if page.live else []),
            *body,
            "</body>",
            "</html>",
            "",
        ]
    )


# --------------------------------------------------------------------------- parts


def game_cards(entries: Sequence[GameEntry]) -> str:
    """The home page's list of games."""
    return "\n".join(
        f'      <li><a class="game-card" href="{_attr(e.path)}">'
        f"<strong>{html.escape(e.title)}</strong>"
        f"<span>{html.escape(e.summary)}</span></a></li>"
        for e in entries
    )


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
        tip = f' title="{_attr(title)}"' if title else ""
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
        f'          <div><dt>{html.escape(label)}</dt><dd id="{_attr(id_)}">–</dd></div>'
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
    static/js/game-page.js) and the game's figures for the side: ``figures(side)``'s lines."""
    cards = []
    for side, (cls, name) in enumerate(sides, start=1):
        cards += [
            f'        <div class="player {cls}" id="player-{side}">',
            '          <div class="who"><span class="swatch" aria-hidden="true"></span>'
            f"{name}</div>",
            f'          <div class="ctl" id="ctl-{side}">…</div>',
            *(f"          {line}" for line in figures(side)),
            "        </div>",
        ]
    return "\n".join(cards)


def _mattix_figures(side: int) -> list[str]:
    return [
        f'<div class="score" id="score-{side}" aria-label="Player {side} score">0</div>',
        f'<div class="taken" id="taken-{side}" aria-label="Pieces taken by player {side}"></div>',
    ]


def _othello_figures(side: int) -> list[str]:
    name = ("Black", "White")[side - 1]
    return [f'<div class="score" id="discs-{side}" aria-label="{name} discs">2</div>']


def _go_figures(side: int) -> list[str]:
    me, other = ("Black", "White") if side == 1 else ("White", "Black")
    what = f"{other} stones captured by {me}"
    return [
        f'<div class="score captures" title="{what}">',
        f'  <span class="cap-stone {other.lower()}" aria-hidden="true"></span>'
        f'<span id="prisoners-{side}" aria-label="{what}">0</span>',
        "</div>",
        f'<div class="taken points" id="points-{side}" hidden></div>',
    ]


def stats_table(table_id: str, heading: str) -> str:
    """A panel with an empty statistics table (``heading`` is HTML), filled by the page's
    script."""
    return f"""\
      <div class="panel">
        <h2>{heading}</h2>
        <div class="table-wrap">
          <table id="{_attr(table_id)}" class="stats-table">
            <thead><tr></tr></thead>
            <tbody></tbody>
          </table>
        </div>
      </div>"""


#: The CPU figures of a game whose CPU is an alpha-beta search.
SEARCH_FIGURES = (("think-depth", "depth"), ("think-score", "score"), ("think-nodes", "nodes"))
NPS = ("think-nps", "nodes/s")

#: Each game's parts (by catalog name): its buttons, CPU panel and players panel.
GAME_PARTS: dict[str, dict[str, str]] = {
    "mattix": {
        "cards": player_cards(
            (("p1", "Player 1 <small>row</small>"), ("p2", "Player 2 <small>column</small>")),
            _mattix_figures,
        ),
        "buttons": buttons("undo", "stop", "pause"),
        "analysis": analysis_switch(),
        "thinking": thinking_panel((*SEARCH_FIGURES, NPS)),
        "players": players_panel(
            (
                ("Player 1", "(takes from the chip's row)"),
                ("Player 2", "(takes from the chip's column)"),
            )
        ),
    },
    "othello": {
        "cards": player_cards(
            (("side-black", "Black <small>moves first</small>"), ("side-white", "White")),
            _othello_figures,
        ),
        "buttons": buttons(
            "pass",
            "undo",
            "stop",
            "pause",
            titles={"pass": "Pass: only when you have no legal move"},
        ),
        "analysis": analysis_switch(),
        "thinking": thinking_panel(
            (SEARCH_FIGURES[0], ("think-score", "score (discs)"), SEARCH_FIGURES[2], NPS)
        ),
        "players": players_panel((("Black", "(moves first)"), ("White", ""))),
    },
    "go": {
        "cards": player_cards(
            (
                ("side-black", "Black <small>moves first</small>"),
                ("side-white", 'White <small id="komi-note">komi</small>'),
            ),
            _go_figures,
        ),
        "buttons": buttons("pass", "resign", "undo", "score", "stop", "pause"),
        "analysis": analysis_switch(
            "win rates and visits of the best candidates (estimates)",
            '<label class="toggle"><input type="checkbox" id="analysis-territory" checked>'
            " Territory <small>each point's likely owner (an estimate)</small></label>",
        ),
        "thinking": thinking_panel(
            (
                ("think-playouts", "playouts"),
                ("think-winrate", "win rate"),
                ("think-nps", "playouts/s"),
                ("think-time", "time"),
            ),
            pv_label="Best line",
        ),
        "players": players_panel((("Black", "(moves first)"), ("White", ""))),
    },
}


def _game_page(entry: GameEntry) -> Page:
    return Page(
        entry.path,
        entry.name,
        entry.title,
        live=True,
        frame="game",
        parts=GAME_PARTS[entry.name],
        data={"stopped-by": STOPPED_BY},
    )


#: Every page of the app.
PAGES: tuple[Page, ...] = (
    Page(
        "/",
        "home",
        None,
        script=False,
        nav=(("/arena", "Arena results"),),
        parts={"games": game_cards(CATALOG)},
    ),
    *(_game_page(e) for e in CATALOG),
    Page("/tsume", "tsume", "Tsume-shogi", styles=("tsume",), live=True),
    Page(
        "/viz",
        "viz",
        "Bitboard visualiser",
        styles=("viz",),
        nav=(("/othello", "Othello"), *ARENA_LINK),
    ),
    Page(
        "/arena",
        "arena",
        "Arena results",
        parts={
            "pairings": stats_table(
                "pairings",
                "Pairings <small>score of the first-named player, 95% intervals</small>",
            ),
            "players": stats_table("players", 'Players <small id="players-note"></small>'),
            "comparison": stats_table(
                "comparison",
                "Side by side <small>score of the first-named player, 95% intervals; "
                "forfeits and time per move: each player over its run</small>",
            ),
        },
    ),
)


def render_pages(pages: Sequence[Page] = PAGES) -> dict[str, str]:
    """Each page's HTML by its path."""
    return {p.path: render_page(p) for p in pages}


#: The headers of every page: everything is served from here (no inline scripts, no
#: third-party hosts), nothing is sniffed, no referrer leaves, and a page is checked for a
#: newer version on every load.
PAGE_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        "connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-cache",
}


def page_routes(pages: Sequence[Page] = PAGES) -> list[Route]:
    """A route for every page, each answering with its finished HTML."""
    rendered = render_pages(pages)

    def route(page: Page) -> Route:
        body = rendered[page.path]

        async def endpoint(request: Request) -> Response:
            return HTMLResponse(body, headers=PAGE_HEADERS)

        return Route(page.path, endpoint, name=f"page-{page.name}")

    return [route(p) for p in pages]

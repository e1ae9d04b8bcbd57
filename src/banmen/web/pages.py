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
is dropped). A game page is made from its game's web adapter (:func:`game_page`): its
body and script (``mattix``, ``othello``, ``go``; ``grid``, the generic board page's, for
every game drawn from its ``GridView``), and the blocks it makes in Python
(:meth:`~banmen.web.games.WebGame.parts`, from :mod:`banmen.web.parts`: the
scoreboard's cards, the buttons, the analysis switch of the games that have one, the CPU
panel and the players panel). No game is named here: the home page lists, and the app
serves, the games the catalog finds (:mod:`banmen.web.catalog`). Data for a page's scripts
goes into ``<body data-*>`` as JSON: the game pages get
:data:`~banmen.web.games.STOPPED_BY`, so the words for why a search ended are written
once, in Python, and their adapter's :meth:`~banmen.web.games.WebGame.page_data`.

The pages are rendered once, when the app is made (:func:`render_pages`): a request gets
the finished text, with no template work and no client-side templating.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route

from banmen.web.catalog import GameEntry
from banmen.web.games import STOPPED_BY, WebGame
from banmen.web.parts import attr as _attr
from banmen.web.parts import clock_field

__all__ = [
    "Page",
    "app_pages",
    "default_pages",
    "game_page",
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


def game_page(game: WebGame[Any]) -> Page:
    """The page of ``game`` at ``/<name>``: the game frame filled with its adapter's
    blocks (its body, ``static/pages/<template>.html``, and its :meth:`~banmen.web.games.
    WebGame.parts`), its script, and the data its script reads."""
    return Page(
        f"/{game.name}",
        game.page_script,
        game.title,
        styles=game.styles,
        live=True,
        frame="game",
        parts={"clock": clock_field(game.clock_presets), **game.parts()},
        data={"stopped-by": STOPPED_BY, **game.page_data()},
    )


def app_pages(games: Mapping[str, WebGame[Any]]) -> tuple[Page, ...]:
    """Every page of an app serving ``games`` (by name, in the order the home page lists
    them): the home page, a page per game, and the tools."""
    from banmen.arena.report import ENDING_WORDS

    entries = [GameEntry.of(g.definition) for g in games.values()]
    return (
        Page(
            "/",
            "home",
            None,
            script=False,
            nav=(("/arena", "Arena results"),),
            parts={"games": game_cards(entries)},
        ),
        *(game_page(g) for g in games.values()),
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
            # how a run's games ended, in words (the report's "endings")
            data={"endings": ENDING_WORDS},
        ),
    )


def default_pages() -> tuple[Page, ...]:
    """The pages of an app serving every game that has a page (:mod:`banmen.web.catalog`)."""
    from banmen.web.catalog import make_games

    return app_pages(make_games())


def render_pages(pages: Sequence[Page] | None = None) -> dict[str, str]:
    """Each page's HTML by its path (default: :func:`default_pages`)."""
    return {p.path: render_page(p) for p in (default_pages() if pages is None else pages)}


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


def page_routes(pages: Sequence[Page] | None = None) -> list[Route]:
    """A route for every page (default: :func:`default_pages`), each answering with its
    finished HTML."""
    pages = default_pages() if pages is None else pages
    rendered = render_pages(pages)

    def route(page: Page) -> Route:
        body = rendered[page.path]

        async def endpoint(request: Request) -> Response:
            return HTMLResponse(body, headers=PAGE_HEADERS)

        return Route(page.path, endpoint, name=f"page-{page.path.strip('/') or 'home'}")

    return [route(p) for p in pages]


def __getattr__(name: str) -> Any:
    # PAGES (every page of an app serving every game that has one) is made when asked:
    # installed game packages count, and importing this module loads no game.
    if name == "PAGES":
        return default_pages()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

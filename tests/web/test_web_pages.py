"""The page shell (banmen.web.pages): every page rendered from one head and top bar, the game
pages from one frame, with the elements their scripts need and the data the server gives
them."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser

import pytest
from starlette.applications import Starlette
from starlette.testclient import TestClient

from banmen.web.catalog import CATALOG, GameEntry
from banmen.web.games import STOPPED_BY
from banmen.web.pages import (
    PAGES,
    Page,
    blocks,
    fill,
    page_routes,
    render_page,
    render_pages,
    shell,
)

#: What static/js/game-page.js fills on every game page.
GAME_PAGE_IDS = {
    "conn", "board", "board-svg", "status", "player-1", "player-2", "ctl-1", "ctl-2",
    "level-1", "level-2", "level-note", "delay", "delay-out", "undo", "stop", "pause",
    "gameover", "game-info", "moves", "message", "think-head", "think-pv", "verdict",
    "new-game", "new-button",
}  # fmt: skip


class Tags(HTMLParser):
    """The start tags of a page: (tag, attributes), in order."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def ids(self) -> list[str]:
        return [i for _, a in self.tags if (i := a.get("id"))]

    def first(self, tag: str) -> dict[str, str | None]:
        return next(a for t, a in self.tags if t == tag)


def test_every_page_has_the_shell() -> None:
    rendered = render_pages()
    # banmen's own pages, and a page per game the catalog finds (an installed package's too)
    assert {"/mattix", "/othello", "/go"} <= {e.path for e in CATALOG}
    assert set(rendered) == {"/", "/tsume", "/viz", "/arena"} | {e.path for e in CATALOG}
    for page in PAGES:
        text = rendered[page.path]
        assert text.startswith("<!doctype html>\n"), page.path
        assert 'name="viewport"' in text and 'name="color-scheme"' in text
        assert '<link rel="stylesheet" href="/static/css/app.css">' in text
        assert text.count('<header class="topbar">') == 1
        assert text.count("<main") == 1 and "<!--" not in text, page.path  # markers filled
        # the CSP allows no inline script: only the page's own module, by its address
        scripts = re.findall(r"<script[^>]*>", text)
        want = [f'<script type="module" src="/static/js/{page.name}.js">'] if page.script else []
        assert scripts == want, page.path
        assert "<script>" not in text and "onclick" not in text
        ids = Tags(text).ids()
        assert len(ids) == len(set(ids)), f"{page.path}: an id twice"
        assert ("conn" in ids) == page.live


def test_the_top_bar_marks_the_page_it_is_on() -> None:
    arena = render_page(next(p for p in PAGES if p.path == "/arena"))
    assert '<a href="/arena" aria-current="page">Arena</a>' in arena
    othello = render_page(next(p for p in PAGES if p.path == "/othello"))
    assert "aria-current" not in othello
    assert "<title>Othello · banmen</title>" in othello


@pytest.mark.parametrize("entry", CATALOG, ids=lambda e: e.name)
def test_game_pages_have_what_the_game_page_module_fills(entry: GameEntry) -> None:
    page = next(p for p in PAGES if p.path == entry.path)
    tags = Tags(render_page(page))
    assert GAME_PAGE_IDS <= set(tags.ids())
    # the words for why a search ended: from Python, as JSON in the body's data
    words = tags.first("body")["data-stopped-by"]
    assert words is not None and json.loads(words) == STOPPED_BY


def test_the_home_page_lists_the_catalog() -> None:
    home = render_page(PAGES[0])
    for e in CATALOG:
        assert f'<a class="game-card" href="{e.path}"><strong>{e.title}</strong>' in home


def test_blocks_fill_their_frame() -> None:
    found = blocks("<!-- a note -->\n<!--a-->\n  one\n<!--b-->\n  two\n  three\n")
    assert found == {"a": "  one", "b": "  two\n  three"}
    frame = "<x>\n  <!--a-->\n  <!--c-->\n  <!--b-->\n</x>"
    assert fill(frame, found) == ["<x>", "  one", "  two\n  three", "</x>"]
    with pytest.raises(ValueError, match=r"no <!--NAME--> line for its parts \['d'\]"):
        fill(frame, {**found, "d": "four"}, "p")


def test_data_is_escaped_in_its_attribute() -> None:
    words = {"q": "it's <b>&\"</b>", "n": [1, None]}
    page = Page("/x", "x", "X", script=False, data={"words": words})
    text = shell(page, ["<main></main>"])
    assert json.loads(Tags(text).first("body")["data-words"] or "") == words
    assert "<b>" not in text


def test_pages_are_served_with_the_security_headers() -> None:
    client = TestClient(Starlette(routes=page_routes()))
    for page in PAGES:
        r = client.get(page.path)
        assert r.status_code == 200
        assert r.text == render_page(page)
        assert "default-src 'self'" in r.headers["content-security-policy"]
        assert "script-src 'self'" in r.headers["content-security-policy"]
        assert r.headers["x-content-type-options"] == "nosniff"

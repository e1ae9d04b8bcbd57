"""The bitboard visualiser's server side through Starlette's TestClient: the page, the list
of walkthroughs, walkthroughs as JSON (steps, hex values, SVG boards), one-line errors for
bad parameters, and the cache.

The app's lifespan is not run (no engine workers): the visualiser needs none.
"""

from __future__ import annotations

import json
import warnings
import xml.etree.ElementTree as ET
from typing import Any

import numpy as np
import pytest

with warnings.catch_warnings():
    # Starlette 1.x nudges TestClient users towards httpx2; irrelevant to these tests.
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from banmen.games.othello import BLACK, Board
from banmen.games.othello.kernels import moves
from banmen.viz import WALKTHROUGHS
from banmen.web.server import create_app
from banmen.web.viz import MAX_PARAM_CHARS, _cached

pytestmark = [
    pytest.mark.timeout(60),
    pytest.mark.filterwarnings("ignore:.*httpx2:UserWarning"),
]

START = Board().to_string()
MID = Board.from_transcript("c4c3c2f4f5b4d3e2b3d6e3a2").to_string()  # c5 flips 3 ways
AFTER_F5 = Board.from_transcript("f5").to_string()  # white to move
STEP_KEYS = {"index", "label", "op", "explanation", "hex", "value", "svg"}


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> TestClient:
    db = tmp_path_factory.mktemp("viz") / "games.sqlite3"
    return TestClient(create_app(db, workers=1))


def get_walkthrough(client: TestClient, **params: Any) -> dict[str, Any]:
    r = client.get("/api/viz/walkthrough", params=params)
    assert r.status_code == 200, r.text
    assert r.headers["content-type"].startswith("application/json")
    body: dict[str, Any] = r.json()
    assert body["ok"] is True, body
    return body


def check_steps(body: dict[str, Any]) -> list[dict[str, Any]]:
    """Every step has its fields, a hex value that is its value, and an SVG that parses."""
    steps: list[dict[str, Any]] = body["steps"]
    assert len(steps) > 1
    for i, step in enumerate(steps):
        assert STEP_KEYS <= set(step), step.keys()
        assert step["index"] == i
        assert isinstance(step["label"], str) and step["label"]
        assert isinstance(step["explanation"], str) and step["explanation"]
        assert int(step["hex"], 16) == int(step["value"])
        assert 0 <= int(step["value"]) < 1 << 64
        root = ET.fromstring(step["svg"])
        assert root.tag.rsplit("}", 1)[-1] == "svg"
        assert root.get("viewBox"), "the board must scale: it needs a viewBox"
    return steps


def one_line_error(r: Any, status: int = 200) -> str:
    assert r.status_code == status, r.text
    body = r.json()
    assert set(body) == {"ok", "error"} and body["ok"] is False
    text: str = body["error"]
    assert "\n" not in text and "Traceback" not in text
    assert 0 < len(text) < 300
    return text


# --------------------------------------------------------------------------- page and list


def test_the_page_and_its_files_are_served(client: TestClient) -> None:
    page = client.get("/viz")
    assert page.status_code == 200
    assert "default-src 'self'" in page.headers["content-security-policy"]
    assert 'name="viewport"' in page.text
    assert '<script type="module" src="/static/js/viz.js">' in page.text
    assert 'href="/static/css/viz.css"' in page.text
    for path in ("/static/js/viz.js", "/static/css/viz.css", "/static/js/page.js"):
        r = client.get(path)
        assert r.status_code == 200 and len(r.content) > 100, path
    # Nothing from another host: the page works offline.
    for path in ("/viz", "/static/js/viz.js", "/static/css/viz.css"):
        text = client.get(path).text
        assert "https://" not in text and "http://" not in text and "//cdn" not in text, path
    assert 'href="/viz"' in client.get("/").text


def test_the_list_of_walkthroughs(client: TestClient) -> None:
    r = client.get("/api/viz/walkthroughs")
    assert r.status_code == 200
    listing = r.json()
    assert listing == json.loads(json.dumps(WALKTHROUGHS))
    assert {"line", "moves", "flips"} <= set(listing)
    for spec in listing.values():
        assert spec["title"] and spec["description"]
        assert all(p["name"] and p["type"] for p in spec["params"])


# --------------------------------------------------------------------------- walkthroughs


@pytest.mark.parametrize(
    ("kind", "n"),
    [("row", 0), ("column", 2), ("diagonal", -7), ("diagonal", 3), ("anti-diagonal", 14)],
)
def test_line_walkthroughs(client: TestClient, kind: str, n: int) -> None:
    body = get_walkthrough(client, name="line", kind=kind, n=n)
    assert body["name"] == "line"
    assert isinstance(body["title"], str) and body["title"]
    check_steps(body)


def legal_mask(board: str) -> int:
    """The legal moves of ``board``'s side to move, from the bitboard move generator."""
    b = Board.from_string(board)
    mover, other = (b.black, b.white) if b.turn == BLACK else (b.white, b.black)
    return int(moves(np.uint64(mover), np.uint64(other)))


@pytest.mark.parametrize("board", [START, MID, AFTER_F5])
def test_the_moves_walkthrough_finds_the_legal_moves(client: TestClient, board: str) -> None:
    body = get_walkthrough(client, name="moves", board=board)
    assert body["name"] == "moves" and body["params"] == {"board": board}
    steps = check_steps(body)
    mask = legal_mask(board)
    # the mask of legal moves, then the mobility (its popcount) to end with
    assert int(steps[-2]["value"]) == mask
    assert int(steps[-1]["value"]) == mask.bit_count()


def test_the_start_positions_legal_moves() -> None:
    # d3, c4, f5, e6 in banmen's bit order (bit 8 * row + col, a1 = bit 0)
    assert legal_mask(START) == 0x0000102004080000


@pytest.mark.parametrize(("board", "move"), [(START, "d3"), (MID, "c5"), (AFTER_F5, "d6")])
def test_the_flips_walkthrough(client: TestClient, board: str, move: str) -> None:
    b = Board.from_string(board)
    flipped = b.flips(b.parse_move(move))
    assert flipped
    steps = check_steps(get_walkthrough(client, name="flips", board=board, move=move))
    assert any(int(s["value"]) == flipped for s in steps)
    assert int(steps[-1]["value"]) == flipped.bit_count()


@pytest.mark.parametrize("bits", ["0x8100000000000081", "255", "0b1011", " 0xFF00 "])
def test_bitboard_parameters(client: TestClient, bits: str) -> None:
    value = int(bits.strip(), 0)
    for name in ("popcount", "line"):
        body = get_walkthrough(client, name=name, board=bits)
        steps = check_steps(body)
        assert int(steps[0]["value"]) == value
    assert int(steps[0]["value"]) == value


def test_equal_requests_share_the_cache(client: TestClient) -> None:
    before = _cached.cache_info().hits
    a = client.get("/api/viz/walkthrough", params={"name": "line", "kind": "row", "n": "5"})
    b = client.get("/api/viz/walkthrough", params={"name": "line", "kind": " row ", "n": " 5"})
    assert a.status_code == b.status_code == 200
    assert a.content == b.content
    assert _cached.cache_info().hits >= before + 1


def test_the_page_state_in_the_address_is_ignored(client: TestClient) -> None:
    # The page's own ?step= may come along with a walkthrough's parameters.
    a = get_walkthrough(client, name="line", kind="row", n=1, step=3)
    assert a == get_walkthrough(client, name="line", kind="row", n=1)


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("params", "says"),
    [
        ({"name": "nope"}, "nope"),
        ({"name": "line", "kind": "spiral", "n": "1"}, "spiral"),
        ({"name": "line", "kind": "row", "n": "8"}, "8"),
        ({"name": "line", "kind": "diagonal", "n": "-8"}, "-8"),
        ({"name": "line", "kind": "row", "n": "two"}, "two"),
        ({"name": "line", "kind": "row", "n": "1", "move": "d3"}, "move"),
        ({"name": "line", "kind": "row", "n": "1", "board": START}, ""),
        ({"name": "popcount", "board": "0x1" + "0" * 16}, ""),
        ({"name": "popcount", "board": "-1"}, ""),
        ({"name": "moves", "board": "X" * 10}, ""),
        ({"name": "moves", "board": START[:-1] + "Z"}, ""),
        ({"name": "moves", "board": "x" * (MAX_PARAM_CHARS + 1)}, "too long"),
        ({"name": "flips", "board": START, "move": "a1"}, ""),
        ({"name": "flips", "board": START, "move": "z9"}, ""),
        ({"name": "flips", "board": START, "move": ""}, ""),
    ],
)
def test_bad_parameters_get_a_one_line_error(
    client: TestClient, params: dict[str, str], says: str
) -> None:
    text = one_line_error(client.get("/api/viz/walkthrough", params=params))
    assert says in text


def test_a_missing_name_is_a_400(client: TestClient) -> None:
    text = one_line_error(client.get("/api/viz/walkthrough"), status=400)
    assert "name" in text
    one_line_error(client.get("/api/viz/walkthrough?name=%20"), status=400)


def test_missing_parameters_get_a_one_line_error_or_a_default(client: TestClient) -> None:
    for params in (
        {"name": "line"},
        {"name": "moves"},
        {"name": "flips", "board": START},
        {"name": "popcount"},
    ):
        r = client.get("/api/viz/walkthrough", params=params)
        assert r.status_code == 200
        if r.json()["ok"]:
            check_steps(r.json())
        else:
            one_line_error(r)

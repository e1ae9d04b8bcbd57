"""The arena results in the web app: /arena, /api/arena/runs[/RUN[/plots/NAME.svg]].

Runs are made by writing games straight into the arena store (no engines play here), in the
same SQLite file the app serves; the app runs with one engine worker, as in test_web_app.
"""

from __future__ import annotations

import json
import math
import os
import sqlite3
import subprocess
import sys
import warnings
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

with warnings.catch_warnings():
    # Starlette 1.x nudges TestClient users towards httpx2; irrelevant to these tests.
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

import banmen.arena.store as arena_store
import banmen.web.arena
from banmen.arena.plots import PLOTS
from banmen.arena.report import build_report, compare_rows
from banmen.arena.runner import planned_jobs
from banmen.arena.store import ArenaStore, GameRecord, RunConfig
from banmen.web.arena import MAX_COMPARED, ArenaViews, is_run_id, jsonable
from banmen.web.server import create_app

pytestmark = [
    pytest.mark.timeout(60),
    pytest.mark.filterwarnings("ignore:.*httpx2:UserWarning"),
]

DEPTHS = RunConfig(
    game="mattix",
    players=[
        {"name": "d1", "spec": "alphabeta:depth=1"},
        {"name": "d2", "spec": "alphabeta:depth=2"},
        {"name": "d3", "spec": "alphabeta:depth=3"},
    ],
    games=4,
    seed=7,
    size=4,
)
TWINS = RunConfig(
    game="mattix",
    players=[
        {"name": "a", "spec": "alphabeta:depth=2"},
        {"name": "b", "spec": "alphabeta:depth=2"},
    ],
    games=2,
    seed=3,
    size=4,
)
DEPTH_OF = {"d1": 1, "d2": 2, "d3": 3, "a": 2, "b": 2}
DEPTHS_PLAYED = 10  # of the 12 games planned: the run is still "running"


def fake_game(job: Any, index: int) -> GameRecord:
    """The deeper player wins by 3 — except the very first game, a 5-5 draw, and between
    equals, where the first mover wins by ``index % 3 + 1``."""
    deeper = DEPTH_OF[job.first] - DEPTH_OF[job.second]
    if index == 0:
        result, s1, s2 = "1/2-1/2", 5, 5
    elif deeper > 0 or (deeper == 0 and index % 2 == 0):
        result, s1, s2 = "1-0", 8, 8 - (index % 3 + 1 if deeper == 0 else 3)
    else:
        result, s1, s2 = "0-1", 4, 7
    return GameRecord(
        job.pairing, job.pair, job.swapped, job.first, job.second, job.deal_seed,
        result, s1, s2, ["a1", "b2", "c3", "d4"], [0.002, 0.004, 0.001, 0.003],
    )  # fmt: skip


def add_run(db: Path, config: RunConfig, name: str, games: int, created: str) -> list[GameRecord]:
    with pytest.MonkeyPatch.context() as mp, ArenaStore(db) as store:
        mp.setattr(arena_store, "_now", lambda: created)
        store.create_run(config, name)
        records = [fake_game(job, i) for i, job in enumerate(planned_jobs(config)[:games])]
        for g in records:
            assert store.add_game(name, g)
    return records


@pytest.fixture(scope="module", autouse=True)
def cli_default_db(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The arena CLI's default database (``$BANMEN_DB``), which the app reads too: a
    temporary file, never the user's own (it does not exist until a test creates it)."""
    path = tmp_path_factory.mktemp("cli-default") / "banmen.sqlite3"
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("BANMEN_DB", str(path))
        yield path


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("arena") / "banmen.sqlite3"
    add_run(path, DEPTHS, "depths", DEPTHS_PLAYED, "2026-01-02T10:00:00+00:00")
    add_run(path, TWINS, "twins", 2, "2026-01-03T10:00:00+00:00")
    add_run(path, TWINS, "not-started", 0, "2026-01-01T10:00:00+00:00")
    return path


@pytest.fixture(scope="module")
def client(db: Path) -> Iterator[TestClient]:
    with TestClient(create_app(db, workers=1)) as c:
        yield c


def assert_one_line_error(r: Any, *statuses: int) -> str:
    assert r.status_code in statuses, (r.status_code, r.text)
    assert r.headers["content-type"].startswith("application/json")
    message = r.json()["error"]
    assert isinstance(message, str) and message
    assert "\n" not in message and "Traceback" not in r.text
    return message


# --------------------------------------------------------------------------- pages


def test_fresh_database_has_no_runs_and_the_page_explains(tmp_path: Path) -> None:
    fresh = tmp_path / "fresh.sqlite3"
    with TestClient(create_app(fresh, workers=1)) as c:
        assert c.get("/api/arena/runs").json() == []
        page = c.get("/arena")
        assert page.status_code == 200
        assert 'id="empty"' in page.text and "No arena runs yet" in page.text
        assert "banmen arena mattix --player" in page.text
        assert "default-src 'self'" in page.headers["content-security-policy"]
        # A run made while the app is up shows at once.
        add_run(fresh, TWINS, "late", 2, "2026-01-01T00:00:00+00:00")
        runs = c.get("/api/arena/runs").json()
        assert [r["id"] for r in runs] == ["late"]
        assert (runs[0]["games_played"], runs[0]["games_planned"]) == (2, 2)


def test_home_page_and_header_link_to_the_arena(client: TestClient) -> None:
    home = client.get("/")
    assert home.status_code == 200
    assert home.text.count('href="/arena"') >= 2  # the header and the "Arena results" card
    assert "Arena results" in home.text
    assert 'href="/arena"' in client.get("/mattix").text


def test_arena_page_and_module_keep_the_csp(client: TestClient) -> None:
    page = client.get("/arena")
    assert page.status_code == 200
    assert 'name="viewport"' in page.text
    assert '<script type="module" src="/static/js/arena.js"></script>' in page.text
    # No inline scripts or styles: every <script> has a src, nothing has a style attribute.
    assert page.text.count("<script") == page.text.count('<script type="module" src="/static/')
    assert "style=" not in page.text and "<style" not in page.text
    js = client.get("/static/js/arena.js")
    assert js.status_code == 200 and "/api/arena/runs" in js.text
    for text in (page.text, js.text):
        assert "https://" not in text and "http://" not in text and "//cdn" not in text
        assert "innerHTML" not in text  # run and player names are only ever text


# --------------------------------------------------------------------------- runs and reports


def test_runs_are_listed_newest_first_with_their_counts(client: TestClient) -> None:
    runs = client.get("/api/arena/runs").json()
    assert [r["id"] for r in runs] == ["twins", "depths", "not-started"]
    by_id = {r["id"]: r for r in runs}
    depths = by_id["depths"]
    assert depths["game"] == "mattix" and depths["size"] == 4
    assert [p["name"] for p in depths["players"]] == ["d1", "d2", "d3"]
    assert (depths["games_played"], depths["games_planned"]) == (DEPTHS_PLAYED, 12)
    assert depths["status"] == "running"
    assert depths["created"].startswith("2026-01-02T10:00")
    assert (by_id["twins"]["games_played"], by_id["twins"]["games_planned"]) == (2, 2)
    assert (by_id["not-started"]["games_played"], by_id["not-started"]["games_planned"]) == (0, 2)
    assert all(r["viewable"] for r in runs)


def test_report_matches_build_report(client: TestClient, db: Path) -> None:
    r = client.get("/api/arena/runs/depths")
    assert r.status_code == 200
    got = r.json()
    with ArenaStore(db) as store:
        want = json.loads(json.dumps(jsonable(build_report(store, "depths"))))
    plots = got.pop("plots")
    assert got.pop("source") == "app"
    assert got == want
    assert got["games_played"] == DEPTHS_PLAYED and got["games_planned"] == 12
    # the depth differs: all but the clock's (a run on no clock)
    assert [p["name"] for p in plots] == [n for n in PLOTS if n != "clock"]
    assert plots[0]["url"] == "/api/arena/runs/depths/plots/score-vs-param.svg"


def test_report_counts_wins_draws_and_losses(client: TestClient) -> None:
    records = [fake_game(job, i) for i, job in enumerate(planned_jobs(DEPTHS)[:DEPTHS_PLAYED])]
    rep = client.get("/api/arena/runs/depths").json()
    for row in rep["pairings"]:
        mine = [g for g in records if {g.first, g.second} == {row["a"], row["b"]}]
        pts = [g.points_first() if g.first == row["a"] else 1 - g.points_first() for g in mine]
        assert (row["a_wins"], row["draws"], row["a_losses"]) == (
            pts.count(1.0), pts.count(0.5), pts.count(0.0),
        ), row  # fmt: skip
        assert row["games"] == len(mine)
    d1_d3 = next(row for row in rep["pairings"] if (row["a"], row["b"]) == ("d1", "d3"))
    # d1 lost every game: the Elo difference is unbounded, sent as null (JSON has no -inf).
    assert d1_d3["a_score"] == 0 and d1_d3["elo_diff"] is None
    assert d1_d3["elo_diff_ci95"][0] is None
    fp = rep["first_player"]
    assert fp["games"] == DEPTHS_PLAYED
    assert fp["wins"] + fp["draws"] + fp["losses"] == DEPTHS_PLAYED and fp["draws"] == 1
    assert [p["games"] for p in rep["players"]] == [
        sum(1 for g in records if name in (g.first, g.second)) for name in ("d1", "d2", "d3")
    ]


def test_non_finite_floats_are_sent_as_null(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert jsonable({"a": [1.5, math.inf, (-math.inf, math.nan)], "b": {"c": math.nan}}) == {
        "a": [1.5, None, [None, None]],
        "b": {"c": None},
    }

    def unbounded(store: ArenaStore, run_id: str) -> dict[str, Any]:
        rep = build_report(store, run_id)
        rep["players"][1]["elo"] = math.inf
        rep["players"][1]["elo_ci95"] = [-math.inf, math.nan]
        return rep

    monkeypatch.setattr(banmen.web.arena, "build_report", unbounded)
    r = client.get("/api/arena/runs/depths")
    assert r.status_code == 200, r.text
    assert "Infinity" not in r.text and "NaN" not in r.text
    player = r.json()["players"][1]
    assert player["elo"] is None and player["elo_ci95"] == [None, None]


def test_runs_without_a_varying_option_or_games_have_fewer_plots(client: TestClient) -> None:
    twins = client.get("/api/arena/runs/twins").json()
    assert [p["name"] for p in twins["plots"]] == ["heatmap", "margins"]
    assert client.get("/api/arena/runs/not-started").json()["plots"] == []
    msg = assert_one_line_error(client.get("/api/arena/runs/twins/plots/score-vs-param.svg"), 404)
    assert "score-vs-param" in msg
    assert_one_line_error(client.get("/api/arena/runs/not-started/plots/heatmap.svg"), 404)


# --------------------------------------------------------------------------- plots


def test_every_plot_is_valid_svg_and_drawn_once(client: TestClient) -> None:
    views: ArenaViews = client.app.state.arena  # type: ignore[attr-defined]
    for name in (n for n in PLOTS if n != "clock"):  # (a run on clocks: test_clocks.py)
        r = client.get(f"/api/arena/runs/depths/plots/{name}.svg")
        assert r.status_code == 200, (name, r.text[:200])
        assert r.headers["content-type"].startswith("image/svg+xml")
        root = ET.fromstring(r.content)
        assert root.tag == "{http://www.w3.org/2000/svg}svg", name
        assert len(list(root.iter())) > 20, name  # something is drawn
    drawn = views.renders
    again = client.get("/api/arena/runs/depths/plots/heatmap.svg")
    assert again.status_code == 200 and views.renders == drawn  # from the cache


def test_a_new_game_redraws_the_plot(tmp_path: Path) -> None:
    db = tmp_path / "grows.sqlite3"
    config = RunConfig(**{**TWINS.to_dict(), "games": 4})
    jobs = planned_jobs(config)
    with ArenaStore(db) as store:
        store.create_run(config, "grows")
        for i, job in enumerate(jobs[:2]):
            store.add_game("grows", fake_game(job, i))
    views = ArenaViews(db)
    first = views.plot("grows", "margins")
    assert views.plot("grows", "margins") == first and views.renders == 1
    with ArenaStore(db) as store:
        store.add_game("grows", fake_game(jobs[2], 2))
    second = views.plot("grows", "margins")
    assert views.renders == 2 and second != first  # one more game: not the cached plot


def test_plot_cache_is_bounded(db: Path) -> None:
    views = ArenaViews(db, cache_size=2)
    for name in ("heatmap", "margins", "heatmap", "score-vs-param"):
        ET.fromstring(views.plot("depths", name))
    assert len(views._cache) == 2
    assert views.renders == 3  # the second heatmap came from the cache


# --------------------------------------------------------------------------- runs compared


def test_the_page_has_the_comparison_and_no_delete(client: TestClient) -> None:
    page = client.get("/arena").text
    for part in ('id="compare-button"', 'id="compare"', 'id="comparison"', 'id="compare-plot"'):
        assert part in page, part
    assert "delete" not in page.lower()  # the app only reads runs
    assert "/api/arena/compare" in client.get("/static/js/arena.js").text


def test_compared_runs_agree_with_their_games(client: TestClient, db: Path) -> None:
    r = client.get("/api/arena/compare?run=depths&run=twins&run=not-started")
    assert r.status_code == 200, r.text
    got = r.json()
    with ArenaStore(db) as store:
        reports = [build_report(store, run) for run in ("depths", "twins", "not-started")]
    assert got["rows"] == json.loads(json.dumps(jsonable(compare_rows(reports))))
    assert [(x["run"], x["source"], x["games_played"]) for x in got["runs"]] == [
        ("depths", "app", DEPTHS_PLAYED), ("twins", "app", 2), ("not-started", "app", 0),
    ]  # fmt: skip
    assert got["plot"] == "/api/arena/compare.svg?run=depths&run=twins&run=not-started"
    # Each row against the games written (fake_game's rules), counted here.
    played = {
        "depths": [fake_game(job, i) for i, job in enumerate(planned_jobs(DEPTHS)[:DEPTHS_PLAYED])],
        "twins": [fake_game(job, i) for i, job in enumerate(planned_jobs(TWINS)[:2])],
        "not-started": [],
    }
    assert [(x["run"], x["a"], x["b"]) for x in got["rows"]] == [
        ("depths", "d1", "d2"), ("depths", "d1", "d3"), ("depths", "d2", "d3"),
        ("twins", "a", "b"), ("not-started", "a", "b")]  # fmt: skip
    for row in got["rows"]:
        games = [g for g in played[row["run"]] if {g.first, g.second} == {row["a"], row["b"]}]
        first = [g.points_first() for g in games]
        pts = [p if g.first == row["a"] else 1 - p for g, p in zip(games, first, strict=True)]
        assert row["games"] == len(games)
        assert (row["a_wins"], row["draws"], row["a_losses"]) == (
            pts.count(1.0), pts.count(0.5), pts.count(0.0))  # fmt: skip
        if games:
            assert row["a_score"] == pytest.approx(sum(pts) / len(pts))
            assert row["first_player_score"] == pytest.approx(sum(first) / len(first))
            lo, hi = row["first_player_score_ci95"]
            assert 0 <= lo <= row["first_player_score"] <= hi <= 1
        else:
            assert row["first_player_score"] is None and row["first_player_score_ci95"] is None
        assert (row["a_forfeits"], row["b_forfeits"]) == (0, 0)
        # fake_game's move times: 2 and 1 ms for the first mover, 4 and 3 for the second.
        for name, seconds in ((row["a"], row["a_move_seconds"]), (row["b"], row["b_move_seconds"])):
            mine = [g for g in played[row["run"]] if name in (g.first, g.second)]
            if mine:
                firsts = sum(1 for g in mine if g.first == name)
                want = (firsts * 0.003 + (len(mine) - firsts) * 0.007) / (2 * len(mine))
                assert seconds == pytest.approx(want)
            else:
                assert seconds is None
    # d1 lost every game to d3: an unbounded Elo difference, sent as null.
    assert got["rows"][1]["elo_diff"] is None


def test_the_comparison_plot_is_svg_drawn_once_and_again_after_a_game(tmp_path: Path) -> None:
    db = tmp_path / "grows.sqlite3"
    add_run(db, TWINS, "twins", 2, "2026-01-01T00:00:00+00:00")
    config = RunConfig(**{**DEPTHS.to_dict(), "games": 4})
    add_run(db, config, "depths", 4, "2026-01-02T00:00:00+00:00")
    with TestClient(create_app(db, workers=1)) as c:
        views: ArenaViews = c.app.state.arena  # type: ignore[attr-defined]
        url = c.get("/api/arena/compare?run=twins&run=depths").json()["plot"]
        first = c.get(url)
        assert first.status_code == 200, first.text
        assert first.headers["content-type"].startswith("image/svg+xml")
        assert ET.fromstring(first.content).tag == "{http://www.w3.org/2000/svg}svg"
        drawn = views.renders
        assert c.get(url).content == first.content and views.renders == drawn  # cached
        with ArenaStore(db) as store:
            store.add_game("depths", fake_game(planned_jobs(config)[4], 4))
        again = c.get(url)
        assert again.status_code == 200 and views.renders == drawn + 1
        # A run deleted and made again under its name is another run: drawn afresh.
        with ArenaStore(db) as store:
            store.delete_runs(["twins"], force=True)  # (add_run leaves it "running")
        add_run(db, TWINS, "twins", 2, "2026-02-01T00:00:00+00:00")
        assert c.get(url).status_code == 200 and views.renders == drawn + 2
        # Runs without a game have no plot.
        add_run(db, TWINS, "empty", 0, "2026-03-01T00:00:00+00:00")
        add_run(db, DEPTHS, "void", 0, "2026-03-02T00:00:00+00:00")
        assert c.get("/api/arena/compare?run=empty&run=void").json()["plot"] is None
        msg = assert_one_line_error(c.get("/api/arena/compare.svg?run=empty&run=void"), 404)
        assert "no game" in msg


def test_bad_comparisons_are_one_line_errors(client: TestClient) -> None:
    assert "2 to" in assert_one_line_error(client.get("/api/arena/compare"), 400)
    assert "got 1" in assert_one_line_error(client.get("/api/arena/compare?run=depths"), 400)
    many = "&".join(f"run=r{i}" for i in range(MAX_COMPARED + 1))
    assert_one_line_error(client.get(f"/api/arena/compare?{many}"), 400)
    assert_one_line_error(client.get("/api/arena/compare?run=depths&run=depths"), 400)
    msg = assert_one_line_error(client.get("/api/arena/compare?run=depths&run=gone"), 404)
    assert "'gone'" in msg
    assert_one_line_error(client.get("/api/arena/compare?run=depths&run=..%2Fx"), 404)
    assert_one_line_error(client.get("/api/arena/compare.svg?run=depths&run=gone"), 404)
    assert_one_line_error(client.get("/api/arena/compare.svg?run=depths"), 400)
    assert_one_line_error(client.get("/api/arena/compare/more"), 404)


# --------------------------------------------------------------------------- bad requests


def test_unknown_run_and_unknown_plot_are_404(client: TestClient) -> None:
    msg = assert_one_line_error(client.get("/api/arena/runs/no-such-run"), 404)
    assert "no-such-run" in msg
    assert_one_line_error(client.get("/api/arena/runs/no-such-run/plots/heatmap.svg"), 404)
    msg = assert_one_line_error(client.get("/api/arena/runs/depths/plots/pie.svg"), 404)
    assert "pie" in msg and "heatmap" in msg
    assert_one_line_error(client.get("/api/arena/runs/depths/plots/heatmap.png"), 404)
    assert_one_line_error(client.get("/api/arena/nothing/here"), 404)


@pytest.mark.parametrize(
    "path",
    [
        "/api/arena/runs/../x",
        "/api/arena/runs/..%2Fx",
        "/api/arena/runs/..%2F..%2Fetc%2Fpasswd/plots/heatmap.svg",
        "/api/arena/runs/" + "a" * 500,
        "/api/arena/runs/" + "a" * 500 + "/plots/heatmap.svg",
        "/api/arena/runs/depths'%20OR%20'1'='1",
        '/api/arena/runs/x"y',
        "/api/arena/runs/a%00b",
        "/api/arena/runs/a%0Ab",
        "/api/arena/runs/depths/plots/..%2F..%2Fsecret.svg",
        "/api/arena/runs/%F0%9F%98%80",
    ],
)
def test_malicious_run_names_are_refused(client: TestClient, path: str) -> None:
    assert_one_line_error(client.get(path), 400, 404)


def test_run_name_validation() -> None:
    assert is_run_id("mattix-20260102-100000-ab12")
    assert is_run_id("d1:d3+v2.0_x")
    for bad in ("", "a" * 81, "../x", "a/b", "a b", "a'b", 'a"b', "a;b", "a\nb", "ä"):
        assert not is_run_id(bad), bad


def test_an_unreadable_database_is_a_one_line_500(tmp_path: Path) -> None:
    # A folder where the database file should be: SQLite cannot open it. No lifespan here
    # (the saved-games store would fail the same way); the arena routes need none.
    c = TestClient(create_app(tmp_path, workers=1), raise_server_exceptions=False)
    assert_one_line_error(c.get("/api/arena/runs"), 500)
    assert_one_line_error(c.get("/api/arena/runs/depths"), 500)
    assert_one_line_error(c.get("/api/arena/runs/depths/plots/heatmap.svg"), 500)


# --------------------------------------------------------------------------- the CLI's database


def test_runs_in_the_cli_default_database_are_shown_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cli_db = tmp_path / "cli" / "banmen.sqlite3"
    monkeypatch.setenv("BANMEN_DB", str(cli_db))
    app_db = tmp_path / "app.sqlite3"
    with TestClient(create_app(app_db, workers=1)) as c:
        assert c.get("/api/arena/runs").json() == []
        assert not cli_db.exists()  # read, never created
        add_run(cli_db, TWINS, "made-on-the-cli", 2, "2026-01-02T00:00:00+00:00")
        (run,) = c.get("/api/arena/runs").json()
        assert (run["id"], run["source"], run["viewable"]) == ("made-on-the-cli", "cli", True)
        assert (run["games_played"], run["games_planned"]) == (2, 2)
        rep = c.get("/api/arena/runs/made-on-the-cli").json()
        assert rep["source"] == "cli" and rep["games_played"] == 2
        svg = c.get("/api/arena/runs/made-on-the-cli/plots/heatmap.svg")
        assert svg.status_code == 200 and ET.fromstring(svg.content).tag.endswith("svg")
        # The same name in the app's own database: the app's is the one shown.
        add_run(app_db, DEPTHS, "made-on-the-cli", 4, "2026-01-01T00:00:00+00:00")
        runs = c.get("/api/arena/runs").json()
        assert [(r["source"], r["viewable"]) for r in runs] == [("cli", False), ("app", True)]
        rep = c.get("/api/arena/runs/made-on-the-cli").json()
        assert rep["source"] == "app" and rep["games_played"] == 4


def test_a_bad_cli_database_hides_nothing_and_is_not_touched(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app_db = tmp_path / "app.sqlite3"
    add_run(app_db, TWINS, "mine", 2, "2026-01-01T00:00:00+00:00")
    garbage = tmp_path / "garbage.sqlite3"
    garbage.write_bytes(b"not a database at all" * 100)
    no_tables = tmp_path / "other.sqlite3"
    con = sqlite3.connect(no_tables)
    con.execute("CREATE TABLE games (id INTEGER)")
    con.commit()
    con.close()
    before = no_tables.read_bytes()
    for cli_db in (garbage, no_tables, tmp_path / "a-folder"):
        (tmp_path / "a-folder").mkdir(exist_ok=True)
        monkeypatch.setenv("BANMEN_DB", str(cli_db))
        with TestClient(create_app(app_db, workers=1)) as c:
            runs = c.get("/api/arena/runs")
            assert runs.status_code == 200, runs.text
            assert [(r["id"], r["source"]) for r in runs.json()] == [("mine", "app")]
    assert no_tables.read_bytes() == before  # no arena tables added to someone else's file


@pytest.mark.server
def test_a_run_of_the_arena_cli_without_db_appears_in_the_app(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from typer.testing import CliRunner

    from banmen.cli import app as cli

    cli_db = tmp_path / "data" / "banmen.sqlite3"
    monkeypatch.setenv("BANMEN_DB", str(cli_db))
    res = CliRunner().invoke(cli, ["arena", "mattix", "--size", "4", "-p", "a=random:seed=1",
                                   "-p", "b=random:seed=2", "--games", "2", "--seed", "5",
                                   "--name", "plain-cli-run", "--workers", "1"])  # fmt: skip
    assert res.exit_code == 0, res.output
    assert f"db {cli_db}" in res.output
    # The server started with a database of its own, as `banmen serve --db FILE` does.
    with TestClient(create_app(tmp_path / "server.sqlite3", workers=1)) as c:
        (run,) = c.get("/api/arena/runs").json()
        assert (run["id"], run["source"], run["games_played"]) == ("plain-cli-run", "cli", 2)
        assert run["status"] == "done"


# --------------------------------------------------------------------------- in a browser


@pytest.fixture
def two_db_server(tmp_path: Path) -> Iterator[tuple[str, Path, Path]]:
    """The app as a subprocess with its own database and ``$BANMEN_DB`` (the arena CLI's
    default) elsewhere; yields its URL and both files."""
    from banmen.web.launch import free_port, stop, wait_ready

    app_db, cli_db = tmp_path / "app.sqlite3", tmp_path / "cli.sqlite3"
    port = free_port()
    code = f"from banmen.web.server import serve; serve(port={port}, db={str(app_db)!r}, workers=1)"
    log = tmp_path / "server.log"
    env = {**os.environ, "BANMEN_DB": str(cli_db)}
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-c", code], stdout=out, stderr=subprocess.STDOUT, env=env
        )
    try:
        wait_ready(f"http://127.0.0.1:{port}", proc, log, timeout=120)
        yield f"http://127.0.0.1:{port}", app_db, cli_db
    finally:
        stop(proc)


def _wait_for_run(page: Any, run_id: str) -> None:
    page.wait_for_function(
        "(id) => [...document.querySelectorAll('#runs .run-name')].some(e => e.textContent === id)",
        arg=run_id,
        timeout=60_000,
    )


@pytest.mark.browser
@pytest.mark.timeout(300)
def test_the_page_lists_runs_started_after_it_opened(
    browser: Any, two_db_server: tuple[str, Path, Path]
) -> None:
    base, app_db, cli_db = two_db_server
    context = browser.new_context()
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    try:
        page.goto(base + "/arena")
        page.wait_for_selector("#empty:not([hidden])", timeout=60_000)
        # A run of the CLI (its default database) while the page shows "no runs yet".
        add_run(cli_db, DEPTHS, "late-cli-run", DEPTHS_PLAYED, "2026-01-02T00:00:00+00:00")
        _wait_for_run(page, "late-cli-run")
        page.wait_for_function(
            "() => document.getElementById('report-title').textContent === 'late-cli-run'",
            timeout=60_000,
        )
        assert page.is_hidden("#empty")
        assert "CLI's default database" in page.inner_text("#runs")
        # d1 lost every game to d3: an Elo difference of minus infinity, with its sign.
        d1_d3 = page.inner_text("#pairings tr:has(th:text-is('d1 vs d3'))")
        assert "−∞" in d1_d3 and "[−∞," in d1_d3.replace("\n", " "), d1_d3
        # And one in the app's own database, now that the list is not empty.
        add_run(app_db, TWINS, "late-app-run", 2, "2026-01-03T00:00:00+00:00")
        _wait_for_run(page, "late-app-run")
        # Both side by side, one from each database, in the order they were ticked.
        page.check("#runs input[value='late-cli-run']")
        assert page.is_disabled("#compare-button")
        page.check("#runs input[value='late-app-run']")
        page.click("#compare-button:not([disabled])")
        page.wait_for_function(
            "() => document.querySelectorAll('#comparison tbody tr').length === 4",
            timeout=60_000,
        )
        assert page.is_hidden("#report") and page.is_visible("#compare")
        assert page.evaluate("location.hash") == "#compare=late-cli-run,late-app-run"
        rows = page.locator("#comparison tbody tr")
        runs = [rows.nth(i).locator("th a").inner_text() for i in range(4)]
        assert runs == ["late-cli-run"] * 3 + ["late-app-run"]
        # d1 lost its 4 games to d3.
        d1_d3 = page.inner_text("#comparison tbody tr:has(td:has-text('d1 vs d3'))")
        assert "0-0-4" in d1_d3 and "−∞" in d1_d3, d1_d3
        page.wait_for_function(
            "() => { const i = document.querySelector('#compare-plot img');"
            " return !!i && i.complete && i.naturalWidth > 0; }",
            timeout=60_000,
        )
        # A run's name leads to its report; "Back to one run" to the newest run's.
        page.click("#comparison tbody tr:last-child th a")
        page.wait_for_selector("#report:not([hidden])", timeout=60_000)
        assert page.is_hidden("#compare")
        assert page.inner_text("#report-title") == "late-app-run"
        assert page.evaluate("location.hash") == "#late-app-run"
        page.go_back()
        page.wait_for_selector("#compare:not([hidden])", timeout=60_000)
        page.click("#compare-back")
        page.wait_for_selector("#report:not([hidden])", timeout=60_000)
        assert page.is_hidden("#compare")
        assert errors == []
    finally:
        context.close()

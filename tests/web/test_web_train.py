"""The training runs of ``banmen train`` on the web's arena page: the page's "Training runs"
section, from /api/arena/train[/RUN[/curves.svg]].

Runs are made by writing their rows straight into the training store (no self-play, no fit,
no gate is played here), in the SQLite file the app serves; the app runs with one engine
worker, as in test_web_arena.
"""

from __future__ import annotations

import json
import sqlite3
import warnings
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

with warnings.catch_warnings():
    # Starlette 1.x nudges TestClient users towards httpx2; irrelevant to these tests.
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

import banmen.train.store as train_store
from banmen.train.report import report_data
from banmen.train.selfplay import SelfPlayGame
from banmen.train.store import TrainStore
from banmen.web.arena import ArenaViews, jsonable
from banmen.web.server import create_app, guard_private

pytestmark = [
    pytest.mark.timeout(180),  # (it draws matplotlib figures: slow on a busy machine)
    pytest.mark.filterwarnings("ignore:.*httpx2:UserWarning"),
]

CONFIG = {"game": "mattix", "evaluator": "ntuple", "out": "/tmp/weights.npz", "games": 20,
          "iterations": 3, "seed": 5, "size": 4, "labels": "mix"}  # fmt: skip


def side(games: int, score: float, elo: float | None, ci: list[float | None],
         decision: str | None) -> dict[str, Any]:  # fmt: skip
    """One side of a gate's result, as banmen.train.loop._gate writes it."""
    return {"games": games, "points": score * games, "score": score, "elo": elo,
            "elo_ci": ci, "llr": 1.5, "decision": decision}  # fmt: skip


def fit(positions: int, rmse: list[float], before: list[float]) -> dict[str, Any]:
    """A fit's figures, as banmen.train.loop stores them with a candidate."""
    return {"positions": positions, "held_out": positions // 10, "rmse": rmse,
            "rmse_before": before, "mae": [r * 0.8 for r in rmse],
            "mae_before": [b * 0.8 for b in before], "exact_share": 0.25,
            "lsqr_iterations": 40, "seconds": 1.5, "peak_rss_mb": 80.0,
            "selfplay_seconds": 3.0, "positions_per_second": 400.0,
            "positions_this_iteration": positions}  # fmt: skip


def game(index: int, positions: int) -> SelfPlayGame:
    n = positions
    return SelfPlayGame(index, 1000 + index, b"ctx", ["int64", "int64"],
                        np.arange(2 * n, dtype=np.int64).reshape(n, 2), np.zeros(n),
                        np.zeros(n), np.zeros(n, dtype=bool), 1.0, ["a1"], 0.1)  # fmt: skip


def iteration(store: TrainStore, name: str, k: int, fitted: dict[str, Any],
              gate: dict[str, Any] | None, kept: bool = False) -> None:  # fmt: skip
    """Iteration ``k`` begun, its candidate fitted and (with a ``gate``) finished."""
    store.begin_iteration(name, k, zero=k == 0)
    store.set_candidate(name, k, b"candidate weights", fitted)
    if gate is not None:
        store.finish_iteration(name, k, gate, kept)


def make_run(db: Path, name: str, created: str, config: dict[str, Any] = CONFIG,
             evaluator: str = "ntuple") -> TrainStore:  # fmt: skip
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(train_store, "_now", lambda: created)
        store = TrainStore(db)
        store.create_run(name, str(config["game"]), evaluator, config, b"start weights")
    return store


def add_runs(db: Path) -> None:
    """``climbing``: running, 2 of 3 iterations done, the first kept (+35 Elo against the
    baseline), the second not, the third begun; ``fresh``: no iteration yet; ``perfect``:
    one iteration kept after winning every game against the baseline (an unbounded Elo)."""
    with make_run(db, "climbing", "2026-02-01T10:00:00+00:00") as store:
        store.add_games("climbing", 0, [game(0, 5), game(1, 7)])
        iteration(
            store,
            "climbing",
            0,
            fit(12, [812.5, 640.0], [900.0, 700.0]),
            {
                "run": "climbing-gate-0",
                "previous": side(40, 0.625, 88.7, [10.0, 170.0], "H1"),
                "baseline": side(40, 0.55, 35.2, [-10.0, 80.5], None),
            },
            kept=True,
        )
        store.add_games("climbing", 1, [game(0, 4)])
        iteration(
            store,
            "climbing",
            1,
            fit(16, [700.25, 600.0], [812.5, 640.0]),
            {
                "run": "climbing-gate-1",
                "previous": side(60, 0.45, -34.9, [-90.0, 20.0], "H0"),
                "baseline": side(60, 0.6, 70.4, [15.0, 126.0], None),
            },
            kept=False,
        )
        iteration(store, "climbing", 2, fit(20, [650.0, 550.0], [700.25, 600.0]), None)
    make_run(db, "fresh", "2026-02-03T10:00:00+00:00", evaluator="patterns").close()
    with make_run(db, "perfect", "2026-02-02T10:00:00+00:00") as store:
        iteration(
            store,
            "perfect",
            0,
            fit(8, [100.0], [200.0]),
            {
                "run": "perfect-gate-0",
                "previous": side(10, 1.0, None, [120.0, None], "H1"),
                "baseline": side(10, 1.0, None, [150.0, None], "H1"),
            },
            kept=True,
        )
        store.set_status("perfect", "done")


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
    path = tmp_path_factory.mktemp("train") / "banmen.sqlite3"
    add_runs(path)
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


def tables(path: Path) -> set[str]:
    con = sqlite3.connect(path)
    try:
        return {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    finally:
        con.close()


# --------------------------------------------------------------------------- the list


def test_training_runs_are_listed_newest_first_with_their_counts(client: TestClient) -> None:
    r = client.get("/api/arena/train")
    assert r.status_code == 200, r.text
    runs = r.json()
    assert [x["name"] for x in runs] == ["fresh", "perfect", "climbing"]
    by = {x["name"]: x for x in runs}
    climbing = by["climbing"]
    assert (climbing["game"], climbing["size"], climbing["evaluator"]) == ("mattix", 4, "ntuple")
    assert (climbing["status"], climbing["source"], climbing["viewable"]) == (
        "running",
        "app",
        True,
    )
    assert (climbing["iterations_done"], climbing["iterations_planned"]) == (2, 3)
    assert climbing["kept"] == 1
    # The weights kept after iteration 1 are iteration 0's: its Elo against the baseline.
    assert climbing["elo_vs_baseline"] == 35.2
    assert climbing["elo_vs_baseline_ci"] == [-10.0, 80.5]
    assert climbing["created"] == "2026-02-01T10:00:00+00:00"
    fresh = by["fresh"]
    assert (fresh["evaluator"], fresh["iterations_done"], fresh["kept"]) == ("patterns", 0, 0)
    assert fresh["elo_vs_baseline"] is None and fresh["elo_vs_baseline_ci"] is None
    perfect = by["perfect"]
    assert (perfect["status"], perfect["iterations_done"], perfect["kept"]) == ("done", 1, 1)
    # Every game won against the baseline: an Elo beyond measure, null in JSON.
    assert perfect["elo_vs_baseline"] is None
    assert perfect["elo_vs_baseline_ci"] == [150.0, None]


def test_the_list_agrees_with_each_report(client: TestClient, db: Path) -> None:
    with TrainStore(db) as store:
        for listed in client.get("/api/arena/train").json():
            data = report_data(store, listed["name"])
            rows = data["iterations"]
            assert listed["iterations_done"] == len(rows)
            assert listed["kept"] == sum(1 for row in rows if row["kept"])
            if rows:
                assert listed["elo_vs_baseline"] == rows[-1]["kept_elo_vs_baseline"]
                assert listed["elo_vs_baseline_ci"] == rows[-1]["kept_elo_ci"]


def test_a_database_without_training_tables_has_no_runs_and_gets_none(tmp_path: Path) -> None:
    fresh = tmp_path / "fresh.sqlite3"
    with TestClient(create_app(fresh, workers=1)) as c:
        assert c.get("/api/arena/train").json() == []
        assert_one_line_error(c.get("/api/arena/train/climbing"), 404)
        assert not {"train_runs", "train_iterations", "train_games"} & tables(fresh)
        # A run started while the app is up shows at once.
        make_run(fresh, "late", "2026-03-01T00:00:00+00:00").close()
        (run,) = c.get("/api/arena/train").json()
        assert (run["name"], run["iterations_done"], run["iterations_planned"]) == ("late", 0, 3)


def test_a_run_that_cannot_be_read_is_listed_and_hides_nothing(tmp_path: Path) -> None:
    path = tmp_path / "broken.sqlite3"
    make_run(path, "good", "2026-01-01T00:00:00+00:00").close()
    make_run(path, "broken", "2026-01-02T00:00:00+00:00").close()
    con = sqlite3.connect(path)
    con.execute("UPDATE train_runs SET config = '{not json' WHERE name = 'broken'")
    con.commit()
    con.close()
    with TestClient(create_app(path, workers=1)) as c:
        runs = c.get("/api/arena/train").json()
        assert [(r["name"], r["status"], r["viewable"]) for r in runs] == [
            ("good", "running", True), ("broken", "unreadable", False)]  # fmt: skip
        msg = assert_one_line_error(c.get("/api/arena/train/broken"), 500)
        assert "broken" in msg and "JSON" in msg


# --------------------------------------------------------------------------- a run's report


def test_a_report_is_report_data_with_its_curves(client: TestClient, db: Path) -> None:
    r = client.get("/api/arena/train/climbing")
    assert r.status_code == 200, r.text
    got = r.json()
    with TrainStore(db) as store:
        want = json.loads(json.dumps(jsonable(report_data(store, "climbing"))))
    assert got.pop("source") == "app"
    assert got.pop("curves") == "/api/arena/train/climbing/curves.svg"
    assert got == want
    # ... and what was written: the games' positions, each iteration's fit and gate.
    assert got["positions"] == 16  # 5 + 7 + 4
    assert got["config"]["iterations"] == 3
    first, second = got["iterations"]  # the third is not done: not in the report
    assert first["iteration"] == 0 and first["positions"] == 12
    assert first["held_out_rmse"] == [812.5, 640.0]
    assert first["held_out_rmse_before"] == [900.0, 700.0]
    assert (first["gate"]["score"], first["gate"]["games"]) == (0.625, 40)
    assert first["gate"]["decision"] == "H1" and first["kept"] is True
    assert first["kept_elo_vs_baseline"] == 35.2 and first["kept_elo_ci"] == [-10.0, 80.5]
    assert second["gate"]["decision"] == "H0" and second["kept"] is False
    assert second["baseline"]["elo"] == 70.4  # the candidate's, not kept:
    assert second["kept_elo_vs_baseline"] == 35.2  # the kept weights are still iteration 0's


def test_a_run_without_an_iteration_done_has_no_curves(client: TestClient) -> None:
    got = client.get("/api/arena/train/fresh").json()
    assert got["iterations"] == [] and got["curves"] is None and got["positions"] == 0
    msg = assert_one_line_error(client.get("/api/arena/train/fresh/curves.svg"), 404)
    assert "no iteration done" in msg


def test_curves_are_svg_drawn_once_and_again_after_an_iteration(tmp_path: Path) -> None:
    path = tmp_path / "grows.sqlite3"
    add_runs(path)
    with TestClient(create_app(path, workers=1)) as c:
        views: ArenaViews = c.app.state.arena  # type: ignore[attr-defined]
        url = c.get("/api/arena/train/climbing").json()["curves"]
        first = c.get(url)
        assert first.status_code == 200, first.text
        assert first.headers["content-type"].startswith("image/svg+xml")
        assert "default-src 'none'" in first.headers["content-security-policy"]
        root = ET.fromstring(first.content)
        assert root.tag == "{http://www.w3.org/2000/svg}svg"
        assert len(list(root.iter())) > 50  # two panels drawn
        drawn = views.renders
        assert c.get(url).content == first.content and views.renders == drawn  # cached
        assert c.get("/api/arena/train/perfect/curves.svg").status_code == 200  # unbounded Elo
        assert views.renders == drawn + 1
        gate = {
            "previous": side(40, 0.6, 70.4, [1.0, 140.0], "H1"),
            "baseline": side(40, 0.7, 147.2, [60.0, 240.0], None),
        }
        with TrainStore(path) as store:  # the third iteration's gate decides: kept
            store.finish_iteration("climbing", 2, gate, kept=True)
        listed = {r["name"]: r for r in c.get("/api/arena/train").json()}["climbing"]
        assert (listed["iterations_done"], listed["kept"]) == (3, 2)
        assert listed["elo_vs_baseline"] == 147.2
        again = c.get(url)
        assert again.status_code == 200 and views.renders == drawn + 2
        assert again.content != first.content


# --------------------------------------------------------------------------- bad requests


def test_an_unknown_run_is_a_one_line_404(client: TestClient) -> None:
    msg = assert_one_line_error(client.get("/api/arena/train/no-such-run"), 404)
    assert msg == "no training run 'no-such-run'"
    msg = assert_one_line_error(client.get("/api/arena/train/no-such-run/curves.svg"), 404)
    assert "no-such-run" in msg
    assert_one_line_error(client.get("/api/arena/train/climbing/curves.png"), 404)
    assert_one_line_error(client.get("/api/arena/train/climbing/other/thing"), 404)
    # An arena run's name is not a training run's, nor the other way round.
    assert_one_line_error(client.get("/api/arena/runs/climbing"), 404)


@pytest.mark.parametrize(
    "path",
    [
        "/api/arena/train/../x",
        "/api/arena/train/..%2Fx",
        "/api/arena/train/..%2F..%2Fetc%2Fpasswd/curves.svg",
        "/api/arena/train/" + "a" * 500,
        "/api/arena/train/climbing'%20OR%20'1'='1",
        "/api/arena/train/a%00b",
        "/api/arena/train/a%0Ab",
        "/api/arena/train/%F0%9F%98%80/curves.svg",
    ],
)
def test_malicious_run_names_are_refused(client: TestClient, path: str) -> None:
    assert_one_line_error(client.get(path), 400, 404)


def test_an_unreadable_database_is_a_one_line_500(tmp_path: Path) -> None:
    # A folder where the database file should be (no lifespan: see test_web_arena).
    c = TestClient(create_app(tmp_path, workers=1), raise_server_exceptions=False)
    assert "training runs" in assert_one_line_error(c.get("/api/arena/train"), 500)
    assert_one_line_error(c.get("/api/arena/train/climbing"), 500)
    assert_one_line_error(c.get("/api/arena/train/climbing/curves.svg"), 500)


def test_training_runs_are_this_machines_only(db: Path) -> None:
    # TestClient's client ("testclient") is not a loopback address.
    c = TestClient(guard_private(create_app(db, workers=1)))
    for path in ("/api/arena/train", "/api/arena/train/climbing",
                 "/api/arena/train/climbing/curves.svg"):  # fmt: skip
        r = c.get(path)
        assert r.status_code == 403 and r.json()["error"].startswith("forbidden"), path


# --------------------------------------------------------------------------- the CLI's database


def test_training_runs_in_the_cli_default_database_are_shown_read_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cli_db = tmp_path / "cli" / "banmen.sqlite3"
    monkeypatch.setenv("BANMEN_DB", str(cli_db))
    app_db = tmp_path / "app.sqlite3"
    with TestClient(create_app(app_db, workers=1)) as c:
        assert c.get("/api/arena/train").json() == []
        assert not cli_db.exists()  # read, never created
        add_runs(cli_db)
        runs = c.get("/api/arena/train").json()
        assert [(r["name"], r["source"], r["viewable"]) for r in runs] == [
            ("fresh", "cli", True),
            ("perfect", "cli", True),
            ("climbing", "cli", True),
        ]
        rep = c.get("/api/arena/train/climbing").json()
        assert rep["source"] == "cli" and len(rep["iterations"]) == 2
        svg = c.get(rep["curves"])
        assert svg.status_code == 200 and ET.fromstring(svg.content).tag.endswith("svg")
        assert not {"train_runs", "train_iterations", "train_games"} & tables(app_db)
        # The same name in the app's own database: the app's is the one shown.
        make_run(app_db, "climbing", "2026-01-01T00:00:00+00:00").close()
        runs = c.get("/api/arena/train").json()
        same = [(r["source"], r["viewable"]) for r in runs if r["name"] == "climbing"]
        assert same == [("cli", False), ("app", True)]
        rep = c.get("/api/arena/train/climbing").json()
        assert rep["source"] == "app" and rep["iterations"] == []


def test_a_bad_cli_database_hides_nothing_and_is_not_touched(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app_db = tmp_path / "app.sqlite3"
    make_run(app_db, "mine", "2026-01-01T00:00:00+00:00").close()
    garbage = tmp_path / "garbage.sqlite3"
    garbage.write_bytes(b"not a database at all" * 100)
    no_tables = tmp_path / "other.sqlite3"
    con = sqlite3.connect(no_tables)
    con.execute("CREATE TABLE games (id INTEGER)")
    con.commit()
    con.close()
    before = no_tables.read_bytes()
    (tmp_path / "a-folder").mkdir()
    for cli_db in (garbage, no_tables, tmp_path / "a-folder"):
        monkeypatch.setenv("BANMEN_DB", str(cli_db))
        with TestClient(create_app(app_db, workers=1)) as c:
            runs = c.get("/api/arena/train")
            assert runs.status_code == 200, runs.text
            assert [(r["name"], r["source"]) for r in runs.json()] == [("mine", "app")]
    assert no_tables.read_bytes() == before  # no training tables added to someone else's file


# --------------------------------------------------------------------------- the page


def test_the_arena_page_has_the_training_runs_section(client: TestClient) -> None:
    page = client.get("/arena").text
    for part in ('id="train-panel"', 'id="train-runs"', 'id="train-message"', "Training runs"):
        assert part in page, part
    assert "style=" not in page and "<style" not in page
    js = client.get("/static/js/arena.js").text
    assert "/api/arena/train" in js and "curves" in js
    assert "innerHTML" not in js  # run names are only ever text


@pytest.fixture
def train_server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """The app as a subprocess, its database holding the training runs of :func:`add_runs`;
    yields its URL."""
    import os
    import subprocess
    import sys

    from banmen.web.launch import free_port, stop, wait_ready

    db = tmp_path / "app.sqlite3"
    add_runs(db)
    port = free_port()
    code = f"from banmen.web.server import serve; serve(port={port}, db={str(db)!r}, workers=1)"
    log = tmp_path / "server.log"
    env = {**os.environ, "BANMEN_DB": str(tmp_path / "cli.sqlite3")}
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-c", code], stdout=out, stderr=subprocess.STDOUT, env=env
        )
    try:
        wait_ready(f"http://127.0.0.1:{port}", proc, log, timeout=120)
        yield f"http://127.0.0.1:{port}"
    finally:
        stop(proc)


@pytest.mark.browser
@pytest.mark.timeout(300)
def test_a_training_run_opens_on_its_iterations_and_curves_on_a_phone(
    browser: Any, train_server: str
) -> None:
    context = browser.new_context(viewport={"width": 360, "height": 740})
    page = context.new_page()
    page.set_default_timeout(60_000)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    try:
        page.goto(train_server + "/arena")
        page.wait_for_selector("#train-panel:not([hidden]) #train-runs li >> nth=2")
        names = page.locator("#train-runs .run-name").all_inner_texts()
        assert names == ["fresh", "perfect", "climbing"]
        card = page.locator("#train-runs li:has(.run-name:text-is('climbing'))")
        summary = card.locator("summary").inner_text()
        assert "2 / 3 iterations, 1 kept" in summary and "+35" in summary, summary
        assert "+∞" in page.locator("#train-runs li:has(.run-name:text-is('perfect'))").inner_text()
        card.locator("summary").click()
        page.wait_for_function(
            "() => document.querySelectorAll('#train-runs details[open] tbody tr').length === 2"
        )
        rows = card.locator("tbody tr")
        first = rows.nth(0).inner_text().replace("\n", " ")
        assert "813 / 640" in first and "62.5%" in first and "H1" in first, first
        assert "kept" in first and "+35" in first, first
        second = rows.nth(1).inner_text().replace("\n", " ")
        assert "not kept" in second and "H0" in second and "+35" in second, second
        page.wait_for_function(
            "() => { const i = document.querySelector('#train-runs details[open] img');"
            " return !!i && i.complete && i.naturalWidth > 0; }"
        )
        # On a phone the page does not scroll sideways (the table scrolls in its box).
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 360, f"the page is {width} px wide"
        img = card.locator("img").bounding_box()
        assert img is not None and img["x"] >= 0 and img["x"] + img["width"] <= 360
        # It stays open through the page's refreshes (every 3 s).
        page.wait_for_timeout(3500)
        assert card.locator("details").evaluate("d => d.open")
        assert errors == []
    finally:
        context.close()

"""The arena on a game clock (issue 39): ``--tc`` for every player or ``--tc-of NAME=TC``
for one; every player is on its clock, banmen's and the user's alike; a player past its
clock and the expiry margin loses on time, recorded as such (``Termination.TIME``); each
move keeps the clock left; the clocks cross the worker pipe; the report gives time a move
and clock left by move number."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from typer.testing import CliRunner

from banmen.arena.report import build_report
from banmen.arena.runner import run_arena
from banmen.arena.store import ArenaStore, RunConfig
from banmen.cli import app
from banmen.clock import EXPIRY_MARGIN, Clock, parse_time_control
from banmen.games import Termination

runner = CliRunner()

PLAYERS = """
import time


class Slow:
    def play(self, board):
        time.sleep(0.9)
        return board.move_name(board.legal_moves[0])


class Sleeper:
    def __init__(self):
        self.moves = 0

    def new_game(self):
        self.moves = 0

    def play(self, board):
        self.moves += 1
        if self.moves >= 2:
            time.sleep(10**6)
        return board.move_name(board.legal_moves[0])
"""


@pytest.fixture(scope="module")
def players(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("clocks") / "clock_players.py"
    path.write_text(textwrap.dedent(PLAYERS))
    return path


@pytest.mark.parametrize(("kind", "tc"), [("Slow", "1.5"), ("Sleeper", "3")])
def test_a_player_past_its_clock_loses_on_time_and_the_run_goes_on(
    kind: str, tc: str, players: Path, tmp_path: Path
) -> None:
    """``Slow`` overruns its clock on its second move (the referee's clock flags it);
    ``Sleeper`` never answers (its client gives it up past its flag and the margin):
    both lose on time, with the reason, and every game of the run is played."""
    store = ArenaStore(tmp_path / "a.db")
    run = store.create_run(RunConfig(game="mattix", games=2, seed=3, size=4, players=[
        {"name": "bad", "spec": f"python:{players}:{kind}", "tc": tc},
        {"name": "d1", "spec": "alphabeta:depth=1", "tc": "60"}]))  # fmt: skip
    progress = run_arena(store, run, workers=1)
    assert progress.done == 2 and store.status(run) == "done"
    for g in store.games(run):
        assert g.outcome is not None and g.outcome.termination is Termination.TIME
        flag = g.extra["flag"]
        assert flag["player"] == "bad" and "lost on time" in flag["reason"]
        assert flag["took"] > flag["allowed"] + EXPIRY_MARGIN
        assert g.winner == (2 if g.first == "bad" else 1)
        assert "forfeit" not in g.extra
    report = build_report(store, run)
    assert report["endings"]["time"] == 2
    bad = {p["name"]: p for p in report["clock"]["players"]}["bad"]
    assert bad["time_losses"] == 2 and bad["tc"] == tc
    store.close()


def test_banmen_engines_play_on_their_clocks_across_the_pipe(tmp_path: Path) -> None:
    """Two workers (the clocks cross the pipe in the specs), time odds: ``a`` on a
    sudden-death clock, ``b`` on its spec's own limit. Every move of ``a`` keeps its
    clock left, which only goes down, and equals the control less the times recorded."""
    store = ArenaStore(tmp_path / "a.db")
    run = store.create_run(RunConfig(game="mattix", games=4, seed=7, size=4, players=[
        {"name": "a", "spec": "alphabeta", "tc": "20"},
        {"name": "b", "spec": "mcts:time=0.05"}]))  # fmt: skip
    run_arena(store, run, workers=2)
    games = store.games(run)
    assert len(games) == 4
    for g in games:
        clock = g.extra["clock"]
        a_side = 1 if g.first == "a" else 2
        assert clock["controls"][a_side - 1] == "20" and clock["controls"][2 - a_side] is None
        assert len(clock["left"]) == len(g.moves) == len(g.times)
        mine = range(a_side - 1, len(g.moves), 2)  # (Mattix: side 1 moves first)
        lefts = [clock["left"][k] for k in mine]
        assert all(x is None for k, x in enumerate(clock["left"]) if k not in mine)
        assert lefts == sorted(lefts, reverse=True) and lefts[-1] > 0
        c = Clock.start(parse_time_control("20"))
        for k in mine:
            assert c.spend(g.times[k])
            assert clock["left"][k] == pytest.approx(c.left, abs=1e-5)
        assert g.outcome is not None and g.outcome.termination is Termination.RULES
    report = build_report(store, run)
    a = {p["name"]: p for p in report["clock"]["players"]}["a"]
    assert a["time_losses"] == 0 and a["games"] == 4 and a["by_move"][0]["games"] == 4
    assert 0 < a["used_share"] <= 1 and a["worst_left"] > 0
    from banmen.arena.plots import render_svg
    from banmen.web.arena import available_plots

    assert "clock" in available_plots(report)
    svg = render_svg(report, "clock")
    assert svg is not None and svg.lstrip().startswith(b"<?xml") and b"<svg" in svg
    store.close()


def test_on_a_clock_only_a_stated_bound_caps_a_move() -> None:
    """A spec that states no bound plays a second a move without a clock; on a game clock
    that default must not cap its moves (a 60 s Go game was played a second a move) —
    what a spec states still does."""
    from banmen.games.registry import parse_spec
    from banmen.kinds import DEFAULT_LIMIT, clock_base
    from banmen.search.limits import Limit

    plain = parse_spec("mcts", "go")
    assert plain.limit == DEFAULT_LIMIT  # (without a clock: a second a move)
    assert clock_base(plain.limit, plain.options) == Limit()
    for spec, bound in (("mcts:time=1", Limit(time=1.0)), ("mcts:playouts=500", Limit(nodes=500)),
                        ("alphabeta:depth=3", Limit(depth=3))):  # fmt: skip
        s = parse_spec(spec, "go")
        assert clock_base(s.limit, s.options) == bound
    clock = Clock.start(parse_time_control("60"))
    timed = clock_base(plain.limit, plain.options).with_clocks(clock).on_clock(27)
    assert timed.time is not None and timed.time > 1.0  # the clock's, not the default's


def test_arena_cli_takes_time_controls(tmp_path: Path) -> None:
    db = tmp_path / "a.db"
    res = runner.invoke(app, ["arena", "mattix", "--size", "4", "-p", "x=alphabeta:depth=1",
                              "-p", "y=random", "--tc", "5+0.1", "--tc-of", "y=st=0.5",
                              "--games", "2", "--db", str(db), "--json"])  # fmt: skip
    assert res.exit_code == 0, res.output
    report = json.loads(res.stdout[res.stdout.index("{") :])
    tcs = {p["name"]: p.get("tc") for p in report["config"]["players"]}
    assert tcs == {"x": "5+0.1", "y": "st=0.5"}
    assert report["games_played"] == 2 and "clock" in report
    out = tmp_path / "rep"
    res = runner.invoke(app, ["arena", "report", report["run"], "--db", str(db), "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert "clock: x on 5+0.1: lost 0 on time" in res.output
    assert (out / "clock.svg").exists()


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--tc", "10+"], "time control '10+': expected inf"),
        (["--tc-of", "zz=10"], "no player named 'zz'"),
        (["--tc-of", "x"], "--tc-of takes NAME=TC"),
        (["--tc-of", "x=abc"], "time control 'abc'"),
    ],
)
def test_a_bad_time_control_is_one_line_and_starts_nothing(
    args: list[str], says: str, tmp_path: Path
) -> None:
    db = tmp_path / "a.db"
    res = runner.invoke(app, ["arena", "mattix", "--size", "4", "-p", "x=alphabeta:depth=1",
                              "-p", "y=random", *args, "--db", str(db)])  # fmt: skip
    assert res.exit_code != 0 and says in res.output, res.output
    assert "Traceback" not in res.output and len(res.output.strip().splitlines()) == 1
    assert not db.exists() or ArenaStore(db).runs() == []


def test_resume_keeps_the_runs_clocks(tmp_path: Path) -> None:
    db = tmp_path / "a.db"
    res = runner.invoke(app, ["arena", "--resume", "r", "--tc", "10", "--db", str(db)])
    assert res.exit_code != 0 and "give no GAME, --player or --tc" in res.output

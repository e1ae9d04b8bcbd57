"""Issue 37: typed outcomes, and the games' conventions made hooks.

How a game ended is data (:class:`banmen.games.Outcome`: the termination, the winner, the
final scores), which the arena records beside each game and reports by kind — a game the
arena stops at the ply cap is said so, never a silent draw; no layer reads a result
string. A game's standard start (``GameDef.start``) is what UGI's ``position startpos``
and the web's New game start from, apart from the arena's dealt openings (``new_board``);
the pass is the move ``GameDef.pass_name`` names; the names a game package needs are
``banmen.games``'s, and a package written before these hooks plays on.
"""

from __future__ import annotations

import ast
import dataclasses
import io
import json
import re
import sqlite3
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import paths
import pytest
import toy_grid
from rich.console import Console

import banmen.games as contract
from banmen.arena.play import EngineCache, play_game
from banmen.arena.report import build_report, games_csv, report_from
from banmen.arena.schedule import Job
from banmen.arena.store import ArenaStore, GameRecord, RunConfig
from banmen.cli.arena import report_tables
from banmen.games import GameDef, Outcome, Termination
from banmen.games import _base as private
from banmen.games.registry import GAME_NAMES, get_game, make_engine, register, unregister
from banmen.protocols.ugi import UGISession
from banmen.web.grid import GridGame
from banmen.web.protocol import NewGame

SRC = paths.ROOT / "src" / "banmen"
EXAMPLE = paths.ROOT / "examples" / "connect-four"


# --------------------------------------------------------------------------- Outcome


def test_an_outcome_says_who_won_how_and_by_what() -> None:
    won = Outcome(Termination.RULES, 2, (3, 9))
    assert (won.result(), won.margin, won.points(2), won.is_draw) == ("0-1", 6, 1.0, False)
    assert won.words(("first", "second")) == "second wins by the rules, 3 : 9"
    drawn = Outcome(Termination.RULES, None, (0, 0))
    assert (drawn.result(), drawn.points(1), drawn.is_draw) == ("1/2-1/2", 0.5, True)
    resigned = Outcome(Termination.RESIGNATION, 1)
    assert resigned.words(("black", "white")) == "black wins by resignation"
    assert resigned.margin is None and resigned.result() == "1-0"
    # the ply cap: no winner, no result — half a point, and never called a draw
    capped = Outcome(Termination.PLY_CAP, None, (4, 1))
    assert (capped.result(), capped.points(2), capped.is_draw) == ("*", 0.5, False)
    assert "stopped at the ply cap" in capped.words() and "draw" not in capped.words()
    assert {t.value for t in Termination} == {"rules", "resignation", "forfeit", "ply_cap",
                                              "time"}  # fmt: skip
    for o in (won, drawn, resigned, capped, Outcome(Termination.TIME, 2)):
        assert Outcome.from_dict(json.loads(json.dumps(o.to_dict()))) == o
    # a game's scores as plain numbers (numpy's too), JSON-ready
    import numpy as np

    counted = Outcome(Termination.RULES, 1, (np.int64(40), np.float64(36.5)))
    assert counted.scores == (40, 36.5) and type(counted.scores[0]) is int
    assert json.loads(json.dumps(counted.to_dict()))["scores"] == [40, 36.5]


@pytest.mark.parametrize(
    ("args", "says"),
    [
        ((Termination.PLY_CAP, 1), "ply cap has no winner"),
        ((Termination.RESIGNATION, None), "has a winner"),
        ((Termination.FORFEIT, None), "has a winner"),
        ((Termination.RULES, 3), "winner is 1, 2 or None"),
        (("rules", 1), "is a Termination"),
        ((Termination.RULES, 1, ("a", 2)), "two numbers"),
        ((Termination.RULES, 1, (1.0, float("nan"))), "two finite numbers"),
        ((Termination.RULES, 1, (1, 2, 3)), "two numbers"),
    ],
)
def test_an_impossible_outcome_is_one_line(args: tuple[Any, ...], says: str) -> None:
    with pytest.raises(ValueError, match=says) as e:
        Outcome(*args)
    assert "\n" not in str(e.value)


@pytest.mark.parametrize(
    ("data", "says"),
    [
        (None, "a JSON object"),
        ({"termination": "checkmate", "winner": 1}, "unknown termination 'checkmate'"),
        ({"termination": "rules", "winner": 1, "scores": [1]}, "two numbers"),
        ({"termination": "rules", "winner": 1, "scores": [1, "x"]}, "two numbers"),
        ({"termination": "rules", "winner": "1"}, "winner is 1, 2 or None"),
    ],
)
def test_a_bad_stored_outcome_is_one_line(data: Any, says: str) -> None:
    with pytest.raises(ValueError, match=says) as e:
        Outcome.from_dict(data)
    assert "\n" not in str(e.value)


# --------------------------------------------------------------------------- exports


def test_a_game_package_imports_the_contract_from_banmen_games() -> None:
    for name in ("StackBoard", "read_record", "replay_names", "parse_json", "Solver",
                 "SolveLimits", "GameDef", "GridView", "TextFormat", "EngineKind",
                 "Outcome", "Termination", "board_outcome"):  # fmt: skip
        assert name in contract.__all__, name
        if hasattr(private, name):  # the old imports from banmen.games._base still work
            assert getattr(contract, name) is getattr(private, name), name
    # the example package imports nothing private of banmen's
    for path in sorted(p for d in ("src", "tests") for p in (EXAMPLE / d).rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        private_imports = [
            node.lineno
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom)
            and (node.module or "").startswith("banmen.")
            and any(part.startswith("_") for part in (node.module or "").split("."))
        ]
        assert private_imports == [], f"{path.relative_to(EXAMPLE)}: {private_imports}"


# --------------------------------------------------------------------------- the start


def _ugi_startpos(game: GameDef[Any]) -> Any:
    session = UGISession(io.StringIO(), game, make_engine(game, "random"))
    session.handle("position startpos")
    return session.board


def test_ugi_startpos_is_connect_fours_empty_board() -> None:
    game = get_game("connect-four")
    board = _ugi_startpos(game)
    assert board.fen() == "......./......./......./......./......./....... x"
    assert list(board.move_stack) == [] and board.turn == 1
    session = UGISession(io.StringIO(), game, make_engine(game, "random"))
    session.handle("position startpos moves 4 4")
    assert session.board.fen() == "......./......./......./......./...o.../...x... x"


@pytest.mark.parametrize("name", GAME_NAMES)
def test_ugi_startpos_is_every_games_start(name: str) -> None:
    game = get_game(name)
    assert _ugi_startpos(game).to_dict() == game.start_position().to_dict()
    if game.start is not None:
        assert game.start_position().to_dict() == game.start(None).to_dict()


def test_the_webs_new_game_starts_from_the_standard_position_and_the_arena_deals() -> None:
    from banmen.web.games.othello import OthelloGame

    new = NewGame(None, None, None)
    for name in ("connect-four", "othello"):
        game = get_game(name)
        assert game.start is not None and game.new_board is not None
        start = game.start_position().to_dict()
        # the arena's openings vary by seed, and none of them is the standard start
        deals = {json.dumps(game.new_board(seed, None).to_dict()) for seed in range(6)}
        assert len(deals) > 1 and json.dumps(start) not in deals, name
    four = get_game("connect-four")
    page = GridGame(four)
    assert not page.seeded and page.page_data()["game"]["seeded"] is False  # type: ignore[index]
    for _ in range(3):
        board, seed = page.new_board(new, None)
        assert seed is None and board.to_dict() == four.start_position().to_dict()
        assert board.fen() == "......./......./......./......./......./....... x"
    board, _ = OthelloGame().new_board(new, None)
    assert board.to_dict() == get_game("othello").start_position().to_dict()


def test_a_game_that_deals_and_has_no_start_still_deals_on_the_web() -> None:
    page = GridGame(toy_grid.HOPPER)  # no GameDef.start: its new_board deals from a seed
    assert page.seeded
    one, _ = page.new_board(NewGame(None, 1, None), None)
    two, _ = page.new_board(NewGame(None, 2, None), None)
    assert one.to_dict() != two.to_dict()


# --------------------------------------------------------------------------- the pass


def _forced_pass(game: GameDef[Any]) -> Any:
    """A position of ``game`` whose only legal move is the pass (from seeded random games)."""
    import random

    for seed in range(500):
        rng = random.Random(seed)
        board = game.start_position()
        while not board.is_game_over():
            legal = list(board.legal_moves)
            if len(legal) == 1 and game.is_pass(board, legal[0]):
                return board
            board.push(rng.choice(legal))
    raise AssertionError(f"no forced pass in 500 random games of {game.title}")


def test_the_pass_is_the_games_pass_name() -> None:
    othello = get_game("othello")
    assert othello.pass_name == "pass" and get_game("go").pass_name == "pass"
    assert get_game("connect-four").pass_name is None and get_game("mattix").pass_name is None
    forced = _forced_pass(othello)
    (move,) = forced.legal_moves
    assert forced.move_name(move) == othello.pass_name and forced.parse_move("pass") == move
    # the analysis plays a forced pass through by the game's name for it
    from banmen.analysis import _only

    assert _only(forced, "pass") and not _only(forced, "a1")
    # the generic page has a Pass button only for a game with a pass, and names it
    four = GridGame(get_game("connect-four"))
    assert 'id="pass"' not in four.parts()["buttons"]
    assert four.page_data()["game"]["pass"] is None  # type: ignore[index]
    toy = GridGame(toy_grid.GAME)  # a game written before pass_name: the default, "pass"
    assert 'id="pass"' in toy.parts()["buttons"]
    assert toy.page_data()["game"]["pass"] == "pass"  # type: ignore[index]


def test_no_front_end_names_the_pass_but_through_the_game() -> None:
    """The word ``pass`` as a move is written only in a game's own code (and its own
    protocol and pages); everything else asks ``GameDef.pass_name``: no move is compared
    with it, and no answer made of it."""
    from test_layers import GAME_OWN

    found = []
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC).as_posix()
        if rel.startswith(GAME_OWN):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            sides: list[ast.expr] = []
            if isinstance(node, ast.Compare):
                sides = [node.left, *node.comparators]
            elif isinstance(node, ast.Call) and ast.unparse(node.func).endswith("Result"):
                sides = list(node.args)
            if any(isinstance(x, ast.Constant) and x.value == "pass" for x in sides):
                found.append(f"{rel}:{node.lineno}")
    assert found == [], "the move 'pass' written outside a game: " + ", ".join(found)
    # the generic page's script: the pass's name comes with the page (its Pass button's
    # id is "pass", a name of the page's own)
    grid_js = (SRC / "web" / "static" / "js" / "grid.js").read_text(encoding="utf-8")
    assert re.findall(r'[=!]== "pass"|includes\("pass"\)|move\("pass"\)', grid_js) == []


# --------------------------------------------------------------------------- the arena


@pytest.fixture
def capped() -> Iterator[GameDef[Any]]:
    """Mattix stopped after four plies (its games take 16 on 4x4): a game the arena
    stops at the ply cap, registered in this process."""
    game = dataclasses.replace(get_game("mattix"), name="capped-mattix", title="Capped",
                               max_plies=4)  # fmt: skip
    register(game)
    yield game
    unregister(game.name)


def _players(tmp_path: Path) -> Path:
    path = tmp_path / "players.py"
    path.write_text(
        textwrap.dedent("""
        class Resigner:
            def play(self, board):
                return "resign"


        class Raiser:
            def play(self, board):
                raise ZeroDivisionError("the player divided by zero")
        """)
    )
    return path


SPECS = {"r1": "random:seed=1", "r2": "random:seed=2"}


def test_a_game_at_the_ply_cap_is_recorded_and_reported_as_stopped(
    capped: GameDef[Any], tmp_path: Path
) -> None:
    jobs = [Job(0, 0, False, "r1", "r2", 5), Job(0, 0, True, "r2", "r1", 5)]
    records = [play_game(capped.name, 4, job, SPECS, EngineCache()) for job in jobs]
    for g in records:
        assert len(g.moves) == capped.max_plies  # stopped there, not one move later
        assert g.outcome is not None and g.outcome.termination is Termination.PLY_CAP
        assert g.outcome.winner is None and g.result == "*"
        assert g.outcome.scores == (g.score1, g.score2)  # the count as it stood
        assert g.points_first() == 0.5
    config = RunConfig(game=capped.name, games=2, seed=5, size=4,
                       players=[{"name": n, "spec": s} for n, s in SPECS.items()])  # fmt: skip
    with ArenaStore(tmp_path / "a.db") as store:
        run = store.create_run(config)
        for g in records:
            assert store.add_game(run, g)
        stored = store.games(run)
        assert [g.outcome for g in stored] == [g.outcome for g in records]
        report = build_report(store, run)
    (row,) = report["pairings"]
    assert (row["a_wins"], row["draws"], row["a_losses"], row["stopped"]) == (0, 0, 0, 2)
    assert row["a_score"] == 0.5
    fp = report["first_player"]
    assert (fp["draws"], fp["stopped"]) == (0, 2)
    assert report["endings"]["ply_cap"] == 2 and report["endings"]["rules"] == 0
    console = Console(width=200, record=True, file=io.StringIO())
    console.print(report_tables(report))
    text = console.export_text()
    assert "0-0-0 +2 stopped" in text and "ended: 2 stopped at the ply cap" in text
    assert games_csv(stored).splitlines()[1].endswith(",ply_cap")


def test_a_game_the_rules_end_is_recorded_so() -> None:
    job = Job(0, 0, False, "r1", "r2", 5)
    g = play_game("mattix", 4, job, SPECS, EngineCache())
    assert g.outcome is not None and g.outcome.termination is Termination.RULES
    assert g.outcome.scores == (g.score1, g.score2) and g.result == g.outcome.result()
    assert len(g.moves) < get_game("mattix").max_plies


def test_a_resignation_and_a_forfeit_carry_their_termination(tmp_path: Path) -> None:
    players = _players(tmp_path)
    specs = {"quitter": f"python:{players}:Resigner", "r": "random:seed=1",
             "bad": f"python:{players}:Raiser"}  # fmt: skip
    cache = EngineCache()
    try:
        # black (the first mover) resigns at once: white wins by resignation
        g = play_game("go", 9, Job(0, 0, False, "quitter", "r", 1), specs, cache)
        assert g.outcome == Outcome(Termination.RESIGNATION, 2) and g.result == "0-1"
        assert g.moves == ["resign"]
        # white resigns after black's first move
        g = play_game("go", 9, Job(0, 0, True, "r", "quitter", 1), specs, cache)
        assert g.outcome == Outcome(Termination.RESIGNATION, 1) and g.result == "1-0"
        # a player that raises forfeits: the other side wins by forfeit
        g = play_game("mattix", 4, Job(0, 0, True, "r", "bad", 3), specs, cache)
        assert g.outcome == Outcome(Termination.FORFEIT, 1) and g.result == "1-0"
        assert g.extra["forfeit"]["player"] == "bad"
    finally:
        cache.close()
    report = report_from(
        RunConfig(game="go", games=2, seed=1, size=9,
                  players=[{"name": "quitter", "spec": specs["quitter"]},
                           {"name": "r", "spec": specs["r"]}]),
        [GameRecord(0, 0, False, "quitter", "r", 1, "0-1", 0, 0, ["resign"],
                    outcome=Outcome(Termination.RESIGNATION, 2))],
    )  # fmt: skip
    assert report["endings"]["resignation"] == 1


def test_an_old_database_reports_as_it_did(tmp_path: Path) -> None:
    """Games stored before outcomes were: counted by their ``result`` as before, their
    endings told as not recorded (a forfeit, which their record says, as a forfeit)."""
    db = tmp_path / "old.db"
    config = RunConfig("mattix", [{"name": "a", "spec": "random"},
                                  {"name": "b", "spec": "random"}], 4, 1)  # fmt: skip
    with ArenaStore(db) as store:
        run = store.create_run(config)
    con = sqlite3.connect(db)
    con.execute("ALTER TABLE arena_games DROP COLUMN outcome")  # as a file from before
    rows = [(0, 0, "1-0", "{}"), (0, 1, "1/2-1/2", "{}"), (1, 0, "0-1", "{}"),
            (1, 1, "1-0", json.dumps({"forfeit": {"side": 2, "player": "a",
                                                  "reason": "it raised"}}))]  # fmt: skip
    for pair, swapped, result, extra in rows:
        con.execute(
            "INSERT INTO arena_games (run_id, pairing, pair, swapped, first, second, "
            "deal_seed, result, score1, score2, moves, times, finished, extra) VALUES "
            "(?, 0, ?, ?, ?, ?, 1, ?, 3, 2, '[]', '[]', 'x', ?)",
            (run, pair, swapped, "b" if swapped else "a", "a" if swapped else "b", result,
             extra),
        )  # fmt: skip
    con.commit()
    con.close()
    with ArenaStore(db, readonly=True) as old:  # read as it is
        assert [g.outcome for g in old.games(run)] == [None] * 4
        report = build_report(old, run)
    (row,) = report["pairings"]
    assert (row["a_wins"], row["draws"], row["a_losses"], row["stopped"]) == (1, 1, 2, 0)
    assert report["endings"]["forfeit"] == 1 and report["endings"]["unrecorded"] == 3
    with ArenaStore(db) as store:  # opened to write: the column comes back, games as they were
        assert [g.result for g in store.games(run)] == ["1-0", "1/2-1/2", "0-1", "1-0"]
        assert build_report(store, run)["pairings"] == report["pairings"]


def test_no_layer_decodes_a_result_string() -> None:
    """The arena, the reports and the front ends learn who won from an Outcome: no
    ``"B+"``-style result is read outside Go's own code, and the arena never asks a
    board for its result string."""
    from test_layers import GAME_OWN

    found = []
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            text = node.value if isinstance(node, ast.Constant) else None
            if not rel.startswith(GAME_OWN) and isinstance(text, str):
                if text.startswith(("B+", "W+")):
                    found.append(f"{rel}:{node.lineno} {text!r}")
            if rel.startswith("arena/") and isinstance(node, ast.Call):
                f = node.func
                if isinstance(f, ast.Attribute) and f.attr in ("result", "winner"):
                    if isinstance(f.value, ast.Name) and f.value.id == "board":
                        found.append(f"{rel}:{node.lineno} board.{f.attr}()")
            if isinstance(node, ast.FunctionDef) and node.name == "_first_mover_result":
                found.append(f"{rel}:{node.lineno} {node.name}")
    assert found == [], "result strings read: " + ", ".join(found)


# --------------------------------------------------------------------------- old packages


def test_a_package_written_before_the_hooks_plays_on() -> None:
    """A GameDef with none of the new hooks (the toy tic-tac-toe, as a package wrote it
    before them): its start is what stood for it (``new_board``), its outcome the
    board's, its pass the default name; the arena plays and records it."""
    game = toy_grid.GAME
    assert game.start is None and game.outcome is None and game.pass_name == "pass"
    assert game.start_position().to_dict() == toy_grid.Board().to_dict()
    register(game)
    try:
        g = play_game(game.name, None, Job(0, 0, False, "r1", "r2", 3), SPECS, EngineCache())
    finally:
        unregister(game.name)
    assert g.outcome is not None and g.outcome.termination is Termination.RULES
    board = toy_grid.Board()
    for m in g.moves:
        board.push_name(m)
    assert g.outcome.winner == board.winner() and g.outcome.scores is None

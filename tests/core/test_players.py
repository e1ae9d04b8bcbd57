"""Your own AI in banmen: ``python:`` players and ``ugi:`` engines, for every game.

Real files and real processes: the players are written to temporary files and loaded as
a user's would be; ``banmen ugi`` runs as a subprocess and is driven both by a UGI client
written here and by banmen's own ``ugi:`` client.
"""

from __future__ import annotations

import json
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import paths
import pytest
from procs import Lines

from banmen.arena.store import ArenaStore, RunConfig
from banmen.engine import SpecError
from banmen.games.registry import GAME_NAMES, get_game, make_engine, parse_spec
from banmen.python_player import PlayerError

GREEDY = paths.ROOT / "examples" / "python" / "greedy_othello.py"

PLAYERS = '''
from banmen.engine import Result


class First:
    """The first legal move; counts its games."""

    def __init__(self, tag="", step=1):
        self.tag, self.step, self.games = tag, step, 0

    def new_game(self):
        self.games += 1

    def play(self, board):
        return board.move_name(board.legal_moves[0])


class Tagged(First):
    """First, saying what it was built with and how many games it was told of."""

    def think(self, board, limit):
        move = board.move_name(board.legal_moves[0])
        return Result(move, score=self.games, pv=[self.tag, str(limit.time)])


class Vandal:
    """Plays on the board it is given, then answers: the game must not see it."""

    def play(self, board):
        move = board.legal_moves[0]
        board.push(move)
        return board.move_name(move)


class Thinker:
    def think(self, board, limit):
        move = board.move_name(board.legal_moves[-1])
        return Result(move, score=7, depth=3, pv=[move])


class Raiser:
    def play(self, board):
        raise KeyError("no idea")


class Cheat:
    def play(self, board):
        return "z9"


class Mute:
    def play(self, board):
        return 42


def make(kind="first"):
    return First(tag=kind)
'''


@pytest.fixture(scope="module")
def players(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("players") / "players.py"
    path.write_text(textwrap.dedent(PLAYERS))
    return path


# --------------------------------------------------------------------------- specs


def test_specs_of_your_own_players() -> None:
    s = parse_spec("python:my_ai.py:Greedy,depth=3,style=bold,rate=0.5")
    assert s.kind == "python" and s.options["where"] == "my_ai.py"
    assert s.options["name"] == "Greedy"
    assert s.options["kwargs"] == {"depth": 3, "style": "bold", "rate": 0.5}
    assert parse_spec("python:pkg.mod:make").options["where"] == "pkg.mod"
    u = parse_spec("ugi:time=0.5 depth=4 ./engine --threads 1")
    assert u.options == {"time": 0.5, "depth": 4, "command": "./engine --threads 1"}
    assert u.limit.time == 0.5 and parse_spec("ugi:./e").limit.time == 1.0
    assert parse_spec("gtp:time=2 gnugo --mode gtp").limit.time == 2.0
    for bad, says in (
        ("python:my_ai.py", "names no player"),
        ("python:my_ai.py:1x", "names no player"),
        ("python:a.py:N,oops", "options are key=value"),
        ("ugi:time=0 ./e", "bad time"),
        ("ugi:time=5", "names no command"),
        ("gtp:time=x gnugo", "bad time"),
    ):
        with pytest.raises(SpecError) as e:
            parse_spec(bad)
        assert says in str(e.value) and "\n" not in str(e.value)


# --------------------------------------------------------------------------- python


@pytest.mark.parametrize("game", GAME_NAMES)
def test_a_python_player_plays_every_game(game: str, players: Path) -> None:
    g = get_game(game)
    engine = make_engine(g, f"python:{players}:First,tag=x")
    board = g.sample() if g.sample else g.new_board(1, None)
    engine.new_game()
    r = engine.think(board)
    assert r.move == board.move_name(board.legal_moves[0]) and r.stopped_by == "player"
    # its options, its new_game hook and the spec's time reach the player in its process
    tagged = make_engine(g, f"python:{players}:Tagged,tag=x,time=3")
    tagged.new_game()
    tagged.new_game()
    r = tagged.think(board)
    assert r.move == board.move_name(board.legal_moves[0]) and r.score == 2
    assert r.pv == ["x", "3.0"]
    tagged.close()


def test_the_board_a_player_gets_is_a_copy(players: Path) -> None:
    from banmen.games.othello import Board

    board = Board()
    before = board.to_dict()
    r = make_engine("othello", f"python:{players}:Vandal").think(board)
    assert board.to_dict() == before  # the player pushed on its copy only
    assert r.move == board.move_name(board.legal_moves[0])


def test_think_reports_what_the_player_says(players: Path) -> None:
    from banmen.games.mattix import Board

    board = Board.from_seed(2, 4)
    r = make_engine("mattix", f"python:{players}:Thinker").think(board)
    assert r.move == board.move_name(board.legal_moves[-1])
    assert (r.score, r.depth, r.pv) == (7, 3, [r.move])


@pytest.mark.parametrize(
    ("name", "says"),
    [("Raiser", "raised KeyError: 'no idea'"), ("Cheat", "played 'z9'"),
     ("Mute", "answered 42: expected a move's name")],
)  # fmt: skip
def test_a_player_that_fails_is_a_one_line_player_error(
    players: Path, name: str, says: str
) -> None:
    from banmen.games.mattix import Board

    engine = make_engine("mattix", f"python:{players}:{name}")
    with pytest.raises(PlayerError) as e:
        engine.think(Board.from_seed(2, 4))
    text = str(e.value)
    assert text.startswith(f"python:{players}:{name}") and says in text and "\n" not in text


def test_a_player_that_cannot_be_loaded_is_a_spec_error(players: Path, tmp_path: Path) -> None:
    broken = tmp_path / "broken.py"
    broken.write_text("import no_such_module_anywhere\n")
    for spec, says in (
        (f"python:{tmp_path / 'none.py'}:X", "no such file"),
        (f"python:{players}:Nobody", "has no class or function 'Nobody'"),
        (f"python:{broken}:X", "failed to load: ModuleNotFoundError"),
        ("python:no_such_pkg.mod:X", "cannot import 'no_such_pkg.mod'"),
        (f"python:{players}:First,colour=3", "First(**{'colour': 3}) failed: TypeError"),
    ):
        engine = make_engine("mattix", spec)
        with pytest.raises(SpecError) as e:
            engine.warm_up()
        assert says in str(e.value), (spec, str(e.value))


def test_python_players_in_the_arena(tmp_path: Path) -> None:
    from banmen.arena.report import build_report
    from banmen.arena.runner import run_arena

    store = ArenaStore(tmp_path / "a.db")
    run = store.create_run(RunConfig(game="othello", games=4, seed=3, players=[
        {"name": "greedy", "spec": f"python:{GREEDY}:Greedy,corners=1"},
        {"name": "d2", "spec": "alphabeta:depth=2"}]))  # fmt: skip
    run_arena(store, run, workers=2)
    rep = build_report(store, run)
    (pairing,) = rep["pairings"]
    assert pairing["games"] == 4
    assert {p["name"] for p in rep["players"]} == {"greedy", "d2"}
    store.close()


# --------------------------------------------------------------------------- UGI


class UgiProcess(Lines):
    """``banmen ugi`` as a subprocess, and a small UGI client of the test's own."""

    def __init__(self, *args: str) -> None:
        super().__init__([sys.executable, "-m", "banmen", "ugi", *args])

    def ask(self, query: str) -> str:
        self.send(f"query {query}")
        return self.until("response")[-1].split(" ", 1)[1]

    def close(self) -> int:
        self.send("quit")
        return self.proc.wait(timeout=60)


#: per game: a position as FEN, and a move legal in it
FENS = {
    "mattix": ("3,X,7,1/5,2,8,4/6,1,2,7/5,3,4,6 1", "a1"),
    "othello": ("---------------------------OX------XO--------------------------- X", "d3"),
    "go": ("...../...../...../...../..... b 7.5 chinese", "C3"),
    "shogi": ("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1", "7g7f"),
}


@pytest.mark.parametrize("game", GAME_NAMES)
def test_banmen_ugi_answers_a_ugi_client(game: str) -> None:
    if game in FENS:
        fen, move = FENS[game]
    else:  # a game package's: its sample position, and its first legal move
        g = get_game(game)
        assert g.ugi is not None and g.sample is not None
        start = g.sample()
        fen, move = g.ugi.write(start), start.move_name(start.legal_moves[0])
    spec = "random:seed=1" if game == "shogi" else "mcts:playouts=50" if game == "go" else ""
    ugi = UgiProcess("--game", game, *(["--engine", spec] if spec else []))
    try:
        ugi.send("ugi")
        head = ugi.until("ugiok")
        assert head[0].startswith("id name banmen") and game in head[0]
        ugi.send("isready")
        ugi.until("readyok")
        ugi.send("uginewgame")
        ugi.send(f"position fen {fen}")
        assert ugi.ask("p1turn") == "true" and ugi.ask("gameover") == "false"
        assert ugi.ask("result") == "none"
        ugi.send("go depth 1")
        best = ugi.until("bestmove")[-1].split()[1]
        g = get_game(game)
        assert g.ugi is not None
        board = g.ugi.read(fen)
        assert best in {board.move_name(m) for m in board.legal_moves}
        ugi.send(f"position fen {fen} moves {move}")
        assert ugi.ask("p1turn") == "false"
        # a bad command, position or move: one line, nothing changed
        ugi.send("position fen nonsense")
        assert ugi.until("info string error")[-1].count("\n") == 0
        ugi.send(f"position fen {fen} moves {move} no-such-move")
        assert "move 2" in ugi.until("info string error")[-1]
        assert ugi.ask("p1turn") == "false"
        ugi.send("launch")
        assert "unknown command 'launch'" in ugi.until("info string error")[-1]
        assert ugi.close() == 0
    finally:
        if ugi.proc.poll() is None:
            ugi.proc.kill()


def test_a_ugi_game_over_and_its_result() -> None:
    ugi = UgiProcess("--game", "mattix")
    try:
        ugi.send("ugi")
        ugi.until("ugiok")
        ugi.send("position fen .,X/.,. 1")  # the chip's row holds no piece: over, 0-0
        assert ugi.ask("gameover") == "true" and ugi.ask("result") == "draw"
        ugi.send("go movetime 100")
        assert ugi.until("bestmove")[-1] == "bestmove none"
        assert ugi.close() == 0
    finally:
        if ugi.proc.poll() is None:
            ugi.proc.kill()


def test_a_ugi_engine_plays_in_the_arena_through_the_ugi_client(tmp_path: Path) -> None:
    """``ugi:`` players against banmen's own engine, over the protocol both ways."""
    from banmen.arena.report import build_report
    from banmen.arena.runner import run_arena

    command = f"{sys.executable} -m banmen ugi --game mattix --engine alphabeta:depth=1"
    store = ArenaStore(tmp_path / "a.db")
    run = store.create_run(RunConfig(game="mattix", games=4, seed=1, size=4, players=[
        {"name": "over-ugi", "spec": f"ugi:depth=1 {command}"},
        {"name": "d1", "spec": "alphabeta:depth=1"}]))  # fmt: skip
    run_arena(store, run, workers=1)
    rep = build_report(store, run)
    (pairing,) = rep["pairings"]
    assert pairing["games"] == 4
    assert pairing["a_wins"] + pairing["draws"] + pairing["a_losses"] == 4
    games = store.games(run)
    assert all(g.moves for g in games)
    store.close()


def test_the_ugi_client_reads_info_and_keeps_time() -> None:
    from banmen.games.mattix import Board

    command = f"{sys.executable} -m banmen ugi --game mattix"
    engine = make_engine("mattix", f"ugi:time=0.3 {command}")
    seen: list[Any] = []
    try:
        engine.warm_up()
        board = Board.from_seed(5, 6)
        t0 = time.monotonic()
        r = engine.think(board, on_info=seen.append)
        took = time.monotonic() - t0
        assert r.move in {board.move_name(m) for m in board.legal_moves}
        assert seen and seen[-1].depth >= 1 and r.depth == seen[-1].depth
        assert r.pv and r.pv[0] == r.move
        assert took < 0.3 + 2.0  # its limit, with room for a loaded machine
    finally:
        engine.close()  # type: ignore[attr-defined]
    assert json.dumps(r.to_dict())


CAPTURER = paths.ROOT / "examples" / "python" / "go_capturer.py"


def test_a_python_othello_player_behind_nboard() -> None:
    """``banmen nboard --engine python:…``: the user's player answers ``go``; the hints
    still come from banmen's search."""
    from banmen.games.othello import Board

    game = "(;GM[Othello]PC[NBoard]PB[a]PW[b]RE[?]TI[5:00]TY[8]BO[8 " + (
        "---------------------------O*------*O--------------------------- *]B[F5]W[F6];)"
    )
    nb = Lines([sys.executable, "-m", "banmen", "nboard", "--engine", f"python:{GREEDY}:Greedy"])
    try:
        for line in ("nboard 2", "set depth 2", f"set game {game}", "ping 1", "go"):
            nb.send(line)
        played = nb.until("===")[-1].split()[1].split("/")[0]
        assert nb.until("status")[-1] == "status"  # (the go's: thinking is over)
        nb.send("hint 2")
        lines: list[str] = []
        while not lines or lines[-1] != "status":  # ("status" alone: the hints are done)
            lines += nb.until("status", timeout=120)
        nb.send("quit")
        nb.proc.wait(timeout=60)
    finally:
        if nb.proc.poll() is None:
            nb.proc.kill()
    board = Board.from_transcript("f5f6")
    counts = {board.move_name(sq): n for sq, n in board.flip_counts().items()}
    assert counts[played] == max(counts.values())  # greedy: the most discs
    assert sum(line.startswith("search ") for line in lines) == 2


def test_a_python_go_player_behind_gtp_in_the_arena(tmp_path: Path) -> None:
    """``banmen gtp --engine python:…`` played by banmen's own GTP client, 9x9."""
    from banmen.arena.report import build_report
    from banmen.arena.runner import run_arena

    gtp = f"{sys.executable} -m banmen gtp --size 9 --engine python:{CAPTURER}:Capturer"
    store = ArenaStore(tmp_path / "a.db")
    run = store.create_run(RunConfig(game="go", games=2, seed=1, size=9, players=[
        {"name": "cap-gtp", "spec": f"gtp:{gtp}"},
        {"name": "cap", "spec": f"python:{CAPTURER}:Capturer,seed=5"}]))  # fmt: skip
    run_arena(store, run, workers=1)
    (pairing,) = build_report(store, run)["pairings"]
    assert pairing["games"] == 2
    assert all(len(g.moves) > 10 for g in store.games(run))
    store.close()


THINKER = """
from banmen.engine import Result

class Thinker:
    '''Values a Mattix position by the score so far, for the side to move.'''
    def play(self, board):
        return board.move_name(board.legal_moves[0])
    def think(self, board, limit):
        s1, s2 = board.scores
        lead = s1 - s2 if board.turn == 1 else s2 - s1
        return Result(board.move_name(board.legal_moves[0]), score=lead, depth=0)
"""


def test_analyse_with_a_python_player_that_thinks(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from banmen.cli import app
    from banmen.games.mattix import Board

    (tmp_path / "thinker.py").write_text(THINKER)
    layout = "3,X,7,1/5,2,8,4/6,1,2,7/5,3,4,6"
    spec = f"python:{tmp_path / 'thinker.py'}:Thinker"
    runner = CliRunner()
    done = runner.invoke(app, ["analyse", "mattix", layout, "--engine", spec, "--json"])
    assert done.exit_code == 0, done.output
    got = {row["move"]: row for row in json.loads(done.output)["moves"]}
    board = Board.from_layout(layout)
    for m in board.legal_moves:  # the value: what the move takes, as the player counts it
        child = board.copy()
        child.push(m)
        row = got[board.move_name(m)]
        assert row["value"] == child.scores[0] - child.scores[1] and row["kind"] == "depth"
    # a player with play() only has no values to give: one line saying so
    greedy = f"python:{paths.ROOT / 'examples/python/greedy_othello.py'}:Greedy"
    bad = runner.invoke(app, ["analyse", "othello", "f5", "--engine", greedy])
    assert bad.exit_code == 2 and "has no think(board, limit)" in bad.output
    assert len(bad.output.strip().splitlines()) == 1


def test_banmen_play_against_a_player_that_fails(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from banmen.cli import app

    (tmp_path / "bad.py").write_text(
        "class Bad:\n    def play(self, board):\n        return 'z9'\n"
    )
    done = CliRunner().invoke(
        app,
        ["play", "mattix", "--seed", "3", "--size", "4",
         "--first", f"python:{tmp_path / 'bad.py'}:Bad", "--second", "human"],
        input="quit\n",
    )  # fmt: skip
    assert done.exit_code == 1, done.output
    assert "Traceback" not in done.output
    said = " ".join(done.output.split())  # (the console wraps long lines)
    assert "failed: " in said and "'z9'" in said and said.endswith("loses the game")

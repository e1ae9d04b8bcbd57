"""The dfpn player (games/dfpn_engines.py) over every game with alpha-beta kernels: what its
Result says was proved (a win, a draw, a loss: exact; a limit: nothing), the kind and its
specs, the games that offer it; and ``banmen arena`` playing it from a given position,
its record and report saying what was proved — each proof checked against the exact
value of the position where it was made."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from test_dfpn_rules import (
    C4_DOUBLE_THREAT,
    OTHELLO_ONLY_WIN,
    _exact,
    _game,
    _othello_exact,
    _random_board,
    _word,
)
from typer.testing import CliRunner

from banmen.engine import Info, SpecError
from banmen.games.dfpn_engines import DEFAULT_LIMIT, ProofEngine, progress_info
from banmen.games.registry import get_game, kinds, make_engine, parse_spec, why_not
from banmen.search.limits import Limit, StopFlag

runner = CliRunner()


def test_a_proved_win_and_a_proved_loss() -> None:
    game = _game("connect-four")
    assert game.board_from_text is not None
    board = game.board_from_text(C4_DOUBLE_THREAT)
    e = make_engine(game, "dfpn:time=60")
    r = e.think(board)
    assert (r.move, r.exact, r.score, r.stopped_by) == ("6", True, 1, "exact")
    assert r.extra["proof"] == "win" and r.pv[0] == "6" and r.depth == len(r.pv) > 0
    assert r.extra["asked"] == ["win"] and r.extra["length"] >= 1
    board.push_name("6")
    r = e.think(board)
    assert (r.exact, r.score, r.stopped_by, r.extra["proof"]) == (True, -1, "exact", "loss")
    assert r.move is not None and board.parse_move(r.move) in board.legal_moves and r.pv == []


def test_a_proved_draw_keeps_the_draw() -> None:
    game = _game("mattix")
    e = make_engine(game, "dfpn")
    for seed in range(80):
        board = _random_board(game, seed, 2, 4)
        if board is None or _exact(game, board) != 0:
            continue
        r = e.think(board)
        assert (r.exact, r.score, r.extra["proof"]) == (True, 0, "draw")
        assert r.extra["asked"] == ["win", "draw"]
        assert r.move is not None
        board.push_name(r.move)
        assert _exact(game, board) == 0  # the opponent cannot win after it
        return
    pytest.fail("no drawn Mattix position among the seeds")


def test_a_limit_claims_nothing() -> None:
    from banmen.games.othello import Board

    game = _game("othello")
    e = make_engine(game, "dfpn")
    board = Board()
    r = e.think(board, Limit(nodes=300))
    assert (r.exact, r.score, r.stopped_by) == (False, None, "nodes")
    assert r.extra["proof"] == "unproved" and r.extra["reason"] == "node_limit"
    assert r.extra["asked"] == [] and r.pv == []
    assert r.extra["pn"] != 0 and r.extra["dn"] != 0  # neither proved nor disproved
    assert r.move is not None and board.parse_move(r.move) in board.legal_moves
    flag = StopFlag()
    flag.set()
    r = e.think(board, Limit(time=5), stop=flag)
    assert (r.exact, r.stopped_by, r.extra["proof"]) == (False, "stop", "unproved")
    assert (r.extra["pn"], r.extra["dn"]) == (1, len(board.legal_moves))  # nothing searched


def test_othello_is_the_generic_player_and_finds_the_only_win() -> None:
    from banmen.games.othello import Board

    game = _game("othello")
    e = make_engine(game, "dfpn")
    assert isinstance(e, ProofEngine)
    board = Board.from_string(OTHELLO_ONLY_WIN)
    r = e.think(board)
    assert (r.move, r.exact, r.extra["proof"]) == ("h1", True, "win")


def test_a_finished_game_has_no_move() -> None:
    game = _game("connect-four")
    assert game.board_from_text is not None
    r = make_engine(game, "dfpn").think(game.board_from_text("1212121"))
    assert r.move is None and r.stopped_by == "game_over"


def test_progress_is_info_with_the_root_numbers() -> None:
    i = progress_info({"nodes": 5, "nps": 10, "seconds": 0.5, "pn": 3, "dn": "inf",
                       "phase": "draw"})  # fmt: skip
    assert i == Info(0, 0, 5, 10.0, [], 0.5, extra={"pn": 3, "dn": "inf", "phase": "draw"})


def test_the_kind_its_specs_and_the_games_that_offer_it() -> None:
    game = _game("mattix")
    s = parse_spec("dfpn:time=2,nodes=100,hash=8", game)
    assert s.limit == Limit(time=2, nodes=100) and s.options["hash"] == 8
    assert parse_spec("dfpn", game).limit == DEFAULT_LIMIT == Limit(time=10.0)
    with pytest.raises(SpecError, match="depth"):
        parse_spec("dfpn:depth=3", game)
    with pytest.raises(SpecError, match="takes no evaluator"):
        parse_spec("dfpn+handset", "othello")
    e = make_engine(game, "dfpn:nodes=50,hash=2")
    assert isinstance(e, ProofEngine) and e.name == "dfpn:nodes=50,hash=2" and e.hash_mb == 2
    assert e.limit == Limit(nodes=50)
    assert e.limit_for(Limit(depth=3)) == Limit(nodes=50)  # a depth bounds nothing here
    for name in ("mattix", "othello", "go"):
        assert "dfpn" in kinds(get_game(name))
        assert get_game(name).kernel_set("dfpn") is not None
    reason = why_not(get_game("shogi"), "dfpn")
    assert reason is not None and reason.startswith("it has no rules kernels")


# --------------------------------------------------------------------------- the arena


def _arena(tmp_path: Path, game: str, start: str, *players: str) -> tuple[dict[str, Any], Any]:
    from banmen.arena.store import ArenaStore

    db = tmp_path / "a.db"
    args = ["arena", "run", game, "--start", start, "--games", "2", "--seed", "1",
            "--workers", "1", "--db", str(db), "--name", "r", "--json"]  # fmt: skip
    for p in players:
        args += ["-p", p]
    res = runner.invoke(app(), args)
    assert res.exit_code == 0, res.output
    report = json.loads(res.output.splitlines()[-1])
    return report, ArenaStore(db).games("r")


def app() -> Any:
    from banmen.cli import app as cli

    return cli


def _check_proofs(game: Any, start: str, games: Any, value: Any) -> int:
    """Every exact proof in the games' records is the truth of its position (``value``:
    the exact value for the side to move); the number checked."""
    checked = 0
    for g in games:
        assert len({(p["ply"], p["player"]) for p in g.extra["proofs"]}) == len(g.extra["proofs"])
        for p in g.extra["proofs"]:
            board = game.board_from_text(start)
            for m in g.moves[: p["ply"]]:
                board.push_name(m)
            assert board.turn == p["side"] and g.moves[p["ply"]] == p["move"]
            name = g.first if p["side"] == 1 else g.second
            assert name == p["player"]
            if p["exact"]:
                assert p["proof"] == _word(value(board)), (g.moves, p)
                assert p["stopped_by"] == "exact"
                checked += 1
            else:
                assert p["proof"] in ("no win", "unproved") and p["stopped_by"] != "exact"
                if p["proof"] == "no win":
                    assert value(board) <= 0
    return checked


#: Connect Four after 18 discs (balanced play: test_dfpn_rules), red to move and winning;
#: df-pn proves it and each position after it in a few thousand nodes
C4_START = "...x.../...x.../o..o.../o.xx.../x.oo..x/oxxooox x"


def test_the_arena_plays_dfpn_at_connect_four_from_a_position(tmp_path: Path) -> None:
    game = _game("connect-four")
    report, games = _arena(tmp_path, "connect-four", C4_START, "d=dfpn:time=20",
                           "ab=alphabeta:depth=2")  # fmt: skip
    assert report["config"]["start"] == C4_START and len(games) == 2
    (row,) = report["proofs"]
    assert row["player"] == "d" and row["moves"] > 0 and row["contradicted"] == 0
    assert row["win"] + row["draw"] + row["loss"] > 0 and row["games_proved"] == 2
    assert _check_proofs(game, C4_START, games, lambda b: _exact(game, b)) > 0
    assert all(g.moves for g in games)
    res = runner.invoke(app(), ["arena", "report", "r", "--db", str(tmp_path / "a.db"),
                                "--out", str(tmp_path / "out"), "--no-plots"])  # fmt: skip
    assert res.exit_code == 0, res.output
    assert "proofs: d:" in res.output and "none contradicted" in res.output


#: Othello, 14 empties, black to move (a seeded random game)
def _othello_start() -> str:
    import random

    from banmen.games.othello import Board

    rng = random.Random(4)
    b = Board()
    while b.empties() > 14:
        b.push(rng.choice(b.legal_moves))
    return str(b.to_string())


def test_the_arena_plays_dfpn_at_othello_from_a_position(tmp_path: Path) -> None:
    game = _game("othello")
    start = _othello_start()
    report, games = _arena(tmp_path, "othello", start, "d=dfpn:time=20", "ab=alphabeta:depth=2")
    (row,) = report["proofs"]
    assert row["player"] == "d" and row["contradicted"] == 0 and row["games_proved"] == 2
    assert _check_proofs(game, start, games, _othello_exact) > 0


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["--start", "12x"], "bad move sequence"),
        (["--start", "1212121"], "the game is over there"),
        (["--start", "44", "--size", "6"], "no --size"),
    ],
)
def test_a_bad_start_gives_one_line(args: list[str], fragment: str, tmp_path: Path) -> None:
    _game("connect-four")
    res = runner.invoke(app(), ["arena", "run", "connect-four", "-p", "a=random", "-p",
                                "b=random", "--db", str(tmp_path / "x.db"), *args])  # fmt: skip
    assert res.exit_code != 0 and fragment in res.output, res.output

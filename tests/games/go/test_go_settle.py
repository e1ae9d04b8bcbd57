"""How the arena settles a passed-out Go game (banmen.games.go.settle): the players'
agreement on the dead stones, or else a cleanup played on from the final position and
the Tromp-Taylor count of the board it leaves — never one player's estimate.

The players are scripted GTP engines (tests/gtp_fake.py, real processes), banmen's own
engine and GNU Go. Counts are checked against a Tromp-Taylor count written here."""

from __future__ import annotations

import shlex
import shutil
import sys
from pathlib import Path
from typing import Any

import paths
import pytest

from banmen.arena.play import EngineCache, play_game
from banmen.arena.report import game_records
from banmen.arena.schedule import Job
from banmen.arena.store import GameRecord
from banmen.games.go import (
    BLACK,
    EMPTY,
    PASS,
    WHITE,
    Board,
    Game,
    GoEngine,
    GoError,
    estimate_dead,
    parse_vertex,
    read_sgf,
    settle_dead,
)
from banmen.games.go.settle import PASS_RETRIES
from banmen.search.limits import Limit

FAKE = paths.TESTS / "gtp_fake.py"
GNUGO = "/usr/games/gnugo"

# A 7x7 game: black walls column D and puts a stone on F6 in white's side; white walls
# column E and puts a stone on B6 in black's side; both pass. Black (a) calls B6 and the
# whole white wall dead; white (b) calls F6 dead. In the cleanup black captures B6 (A6,
# B7, C6, B5) and then passes; white only passes (it has no cleanup moves).
BLACK_MOVES = "D1,D2,D3,D4,D5,D6,D7,F6"
WHITE_MOVES = "E1,E2,E3,E4,E5,E6,E7,B6"


def _fake(log: Path, **options: str | None) -> str:
    args = [f"--log {log}"]
    for key, value in options.items():
        flag = "--" + key.replace("_", "-")
        args.append(flag if value is None else f"{flag} {shlex.quote(value)}")
    return f"gtp:{sys.executable} {FAKE} {' '.join(args)}"


def _play(specs: dict[str, str], size: int) -> GameRecord:
    cache = EngineCache()
    try:
        return play_game("go", size, Job(0, 0, False, "a", "b", 1), specs, cache)
    finally:
        cache.close()


def _replay(g: GameRecord, size: int, upto: int | None = None) -> Game:
    """The record's moves on a game record (tolerantly: a cleanup goes on after passes)."""
    game = Game(Board(size, "chinese", 7.5))
    for name in g.moves[:upto]:
        if name == "resign":
            game.resign(game.turn, tolerant=True)
            break
        game.play(parse_vertex(name, size), game.turn)
    return game


def tromp_taylor(board: Board, removed: frozenset[int] = frozenset()) -> float:
    """Black's points minus white's (komi included): stones, and empty regions that only
    one colour reaches, with ``removed`` points taken as empty."""
    n = board.size

    def at(c: int, r: int) -> int:
        p = parse_vertex(f"{'ABCDEFGHJKLMNOPQRST'[c]}{r + 1}", n)
        return EMPTY if p in removed else board.color_at(p)

    grid = {(c, r): at(c, r) for c in range(n) for r in range(n)}
    points = {BLACK: 0, WHITE: 0}
    seen: set[tuple[int, int]] = set()
    for xy, v in grid.items():
        if v != EMPTY:
            points[v] += 1
            continue
        if xy in seen:
            continue
        region, reach, todo = set(), set(), [xy]
        while todo:
            c, r = todo.pop()
            if (c, r) in region:
                continue
            region.add((c, r))
            for q in ((c + 1, r), (c - 1, r), (c, r + 1), (c, r - 1)):
                if q in grid:
                    if grid[q] == EMPTY:
                        todo.append(q)
                    else:
                        reach.add(grid[q])
        seen |= region
        if len(reach) == 1:
            points[reach.pop()] += len(region)
    return points[BLACK] - points[WHITE] - board.komi


def _first_won(margin: float) -> str:
    return "1-0" if margin > 0 else "0-1" if margin < 0 else "1/2-1/2"


def _commands(log: Path) -> list[str]:
    """The commands an engine received, without their ids (and without ``quit``)."""
    lines = [line.split(maxsplit=1) for line in log.read_text().splitlines()]
    return [w[1] if w[0].isdigit() else " ".join(w) for w in lines if w and w[-1] != "quit"]


def _names(text: str, board: Board) -> frozenset[int]:
    """The stones of the chains on the comma-separated vertices of ``text``."""
    out: set[int] = set()
    for v in text.split(","):
        out |= set(board.group(parse_vertex(v, board.size))[0])
    return frozenset(out)


def test_a_dispute_is_settled_by_a_cleanup_and_counted_as_the_board_stands(
    tmp_path: Path,
) -> None:
    log_a, log_b = tmp_path / "a.log", tmp_path / "b.log"
    specs = {
        "a": _fake(log_a, moves=BLACK_MOVES, dead="B6,E4", cleanup="A6,B7,C6,B5"),
        "b": _fake(log_b, moves=WHITE_MOVES, dead="F6"),
    }
    g = _play(specs, 7)
    x = g.extra
    assert x["settled"] == "cleanup" and "forfeit" not in x
    assert x["dead_answers"] == {"first": ["B6", "E4"], "second": ["F6"]}
    start = x["cleanup_from"]
    assert g.moves[start - 2 : start] == ["pass", "pass"]  # the game's end ...
    assert g.moves[start:] == x["cleanup_moves"]  # ... then the cleanup, in the record
    assert len(g.times) == len(g.moves)
    assert x["cleanup_end"] == "two passes" and g.moves[-2:] == ["pass", "pass"]

    final = _replay(g, 7).board
    ended = _replay(g, 7, start).board  # the position both players passed in
    # black took B6 off the board; white's claim (F6) stayed on it, counted alive
    assert final.color_at(parse_vertex("B6", 7)) == EMPTY
    assert final.color_at(parse_vertex("F6", 7)) == BLACK
    margin = tromp_taylor(final)
    assert (g.score1 - g.score2, g.result) == (margin + 0.5, _first_won(margin))
    # and no player's view decided it: each claim, and banmen's estimate, counts otherwise
    for dead in (_names("B6,E4", ended), _names("F6", ended), estimate_dead(ended)):
        assert tromp_taylor(ended, dead) != margin

    # black's engine lists kgs-genmove_cleanup and was asked with it; white's does not
    said_a, said_b = _commands(log_a), _commands(log_b)
    assert "known_command kgs-genmove_cleanup" in said_b
    assert not any(c.startswith("kgs-genmove_cleanup") for c in said_b)
    assert said_b[-1] == "genmove w"  # (after the game's passes: plain genmove)
    # black's last pass, with the white wall it called dead still standing, was refused
    # PASS_RETRIES times: four captures, then one pass asked for 1 + PASS_RETRIES times
    assert said_a.count("kgs-genmove_cleanup b") == 4 + 1 + PASS_RETRIES


def test_a_recorded_cleanup_counts_again_without_the_players(tmp_path: Path) -> None:
    specs = {
        "a": _fake(tmp_path / "a.log", moves=BLACK_MOVES, dead="B6", cleanup="A6,B7,C6,B5"),
        "b": _fake(tmp_path / "b.log", moves=WHITE_MOVES),  # it cannot say: a cleanup
    }
    g = _play(specs, 7)
    assert g.extra["settled"] == "cleanup" and set(g.extra["dead_answers"]) == {"first"}
    # as a report re-counts: the moves up to the end, then the record settles the rest
    game = _replay(g, 7, g.extra["cleanup_from"])
    assert game.counting
    kept = settle_dead(game, (None, None), g.extra)
    assert kept == g.extra and game.move_stack == _replay(g, 7).move_stack
    s = game.count()
    assert (int(s.black), int(s.white), _first_won(s.margin)) == (g.score1, g.score2, g.result)
    # the SGF the report writes holds the cleanup, and its result is the game's
    ((_, text),) = game_records("go", 7, [g], specs)
    sgf = read_sgf(text)
    assert len(sgf.game.move_stack) == len(g.moves)
    assert sgf.properties["RE"] == [game.result()]
    again = sgf.game  # a record that holds the cleanup already is checked, not replayed
    settle_dead(again, (None, None), g.extra)
    assert again.result() == game.result()


def test_bad_recorded_cleanups_are_one_line_errors(tmp_path: Path) -> None:
    game = Game(Board(7, "chinese", 7.5))
    for name in ("D4", "pass", "pass"):
        game.push(game.parse_move(name))
    bad: list[dict[str, Any]] = [
        {"settled": "cleanup", "cleanup_from": "3", "cleanup_moves": []},
        {"settled": "cleanup", "cleanup_from": 3, "cleanup_moves": "D5"},
        {"settled": "cleanup", "cleanup_from": 9, "cleanup_moves": ["D5"]},
        {"settled": "cleanup", "cleanup_from": 3, "cleanup_moves": ["Z99"]},
        {"settled": "cleanup", "cleanup_from": 3, "cleanup_moves": ["D4"]},
        {"settled": "cleanup", "cleanup_from": 3, "cleanup_moves": ["resign", "D5"]},
        {"settled": "agreed", "dead": "D4"},
    ]
    for recorded in bad:
        with pytest.raises(GoError) as e:
            settle_dead(Game(game.board), (None, None), recorded)
        assert "\n" not in str(e.value)


def test_an_agreement_is_counted_with_the_agreed_stones_removed(tmp_path: Path) -> None:
    log_a = tmp_path / "a.log"
    specs = {  # one names a stone of each dead chain, the other every stone: the same
        "a": _fake(log_a, moves=BLACK_MOVES, dead="B6,F6", cleanup="A6"),
        "b": _fake(tmp_path / "b.log", moves=WHITE_MOVES, dead="F6,B6"),
    }
    g = _play(specs, 7)
    x = g.extra
    assert x["settled"] == "agreed" and x["dead"] == ["B6", "F6"]
    assert x["dead_answers"] == {"first": ["B6", "F6"], "second": ["B6", "F6"]}
    assert g.moves[-2:] == ["pass", "pass"] and "cleanup_moves" not in x
    assert not any(c.startswith("kgs-genmove_cleanup") for c in _commands(log_a))
    board = _replay(g, 7).board
    margin = tromp_taylor(board, _names("B6,F6", board))
    assert margin != tromp_taylor(board)  # (the agreement matters to the count)
    assert (g.score1 - g.score2, g.result) == (margin + 0.5, _first_won(margin))


def test_an_illegal_cleanup_move_forfeits_the_game(tmp_path: Path) -> None:
    specs = {
        "a": _fake(tmp_path / "a.log", moves=BLACK_MOVES, dead="B6", cleanup="A6,D1"),
        "b": _fake(tmp_path / "b.log", moves=WHITE_MOVES, dead="F6"),
    }
    g = _play(specs, 7)
    f = g.extra["forfeit"]
    assert f["side"] == 1 and f["player"] == "a" and "D1" in f["reason"]
    assert g.result == "0-1"
    # what the cleanup played before is kept with it
    assert g.extra["settled"] == "cleanup" and g.extra["cleanup_moves"] == ["A6", "pass"]
    assert g.moves[g.extra["cleanup_from"] :] == ["A6", "pass"]


def test_banmens_engine_captures_what_it_calls_dead_in_a_cleanup(tmp_path: Path) -> None:
    # banmen (white, a fixed number of playouts: the game is the same every time)
    # against a fake (black) that walls column C, invades on F5 and F3, then only
    # passes and calls nothing dead: banmen passes out with the invaders on the board
    # (it wins counting them dead) and must take them off it in the cleanup
    specs = {
        "a": _fake(
            tmp_path / "a.log", moves="C1,C2,C3,C4,C5,C6,C7,F5,F3", dead="", skip_illegal=None
        ),  # fmt: skip
        "b": "mcts:playouts=300,seed=1",
    }
    g = _play(specs, 7)
    x = g.extra
    assert x.get("settled") == "cleanup", f"the game went otherwise: {g.moves} {x}"
    ended = _replay(g, 7, x["cleanup_from"]).board
    called = {parse_vertex(v, 7) for v in x["dead_answers"]["second"]}
    black_called = {p for p in called if ended.color_at(p) == BLACK}
    assert black_called, "banmen named no black stone dead: nothing was checked"
    final = _replay(g, 7).board
    assert all(final.color_at(p) != BLACK for p in black_called)
    margin = tromp_taylor(final)
    assert g.result == _first_won(margin)


def test_think_cleanup_captures_instead_of_passing() -> None:
    # black's walls and eyes; a dead white stone on B7 in black's area
    rows = [".O.XO.O", "XXXXOOO", "...XO.O", "XXXXOOO", "XXXXOOO", "...XO..", "...XO.."]
    board = Board(7, "chinese", 0.5)
    black = [parse_vertex(f"{'ABCDEFG'[c]}{7 - r}", 7) for r, row in enumerate(rows)
             for c, ch in enumerate(row) if ch == "X"]  # fmt: skip
    white = [parse_vertex(f"{'ABCDEFG'[c]}{7 - r}", 7) for r, row in enumerate(rows)
             for c, ch in enumerate(row) if ch == "O"]  # fmt: skip
    board.setup(black=black, white=white)
    game = Game(board)
    game.push(PASS)
    game.push(PASS)
    view = game.going_on()
    assert game.counting and not view.is_game_over() and view.turn == BLACK
    engine = GoEngine(Limit(nodes=200), seed=1)
    assert engine.think(view).move == "pass"  # black wins by passing ...
    move = engine.think_cleanup(view).move  # ... but in a cleanup it captures B7 first
    assert move in ("A7", "C7")


@pytest.mark.external
@pytest.mark.skipif(
    not (Path(GNUGO).exists() or shutil.which("gnugo")), reason="GNU Go not installed"
)
def test_against_gnugo_a_disputed_game_is_cleaned_up_by_gnugo(tmp_path: Path) -> None:
    """A fake black that plays a few stones, then passes, and calls every white stone
    dead; GNU Go (white) disputes it, so the game goes on: GNU Go, asked with
    kgs-genmove_cleanup, takes off the board every black stone it called dead, and the
    board is counted as it stands."""
    exe = GNUGO if Path(GNUGO).exists() else shutil.which("gnugo")
    specs = {
        "a": _fake(
            tmp_path / "a.log", moves="E5,C3,G7,C7,G3,E3,E7,C5,G5", dead="all-w", skip_illegal=None
        ),  # fmt: skip
        "b": f"gtp:{exe} --mode gtp --level 1 --chinese-rules",
    }
    g = _play(specs, 9)
    x = g.extra
    assert x["settled"] == "cleanup", x
    start = x["cleanup_from"]
    ended = _replay(g, 9, start).board
    final = _replay(g, 9).board
    said_dead = {parse_vertex(v, 9) for v in x["dead_answers"].get("second", [])}
    for p in said_dead:
        if ended.color_at(p) == BLACK:
            assert final.color_at(p) != BLACK, "GNU Go left a stone it called dead"
    margin = tromp_taylor(final)
    assert g.result == _first_won(margin)
    assert g.score1 - g.score2 == margin + 0.5  # (white's points rounded down)


def test_the_report_counts_how_games_were_settled(tmp_path: Path) -> None:
    from banmen.arena.report import build_report
    from banmen.arena.runner import run_arena
    from banmen.arena.store import ArenaStore, RunConfig

    players = [
        {"name": "a", "spec": _fake(tmp_path / "a.log", moves=BLACK_MOVES, dead="B6,F6")},
        {"name": "b", "spec": _fake(tmp_path / "b.log", moves=WHITE_MOVES, dead="F6,B6")},
        {"name": "c", "spec": _fake(tmp_path / "c.log", moves=WHITE_MOVES, dead="F6")},
    ]
    store = ArenaStore(tmp_path / "a.db")
    run = store.create_run(RunConfig("go", players, 2, 1, size=7, gauntlet="a"), "x")
    run_arena(store, run, workers=1)
    games = store.games(run)
    how = sorted(g.extra["settled"] for g in games)
    ds = build_report(store, run)["dead_stones"]
    assert (ds["agreed"], ds["cleanup"]) == (how.count("agreed"), how.count("cleanup"))
    assert ds["counted_games"] == len(games) and ds["from_estimate"] == 0
    assert "agreed" in how and "cleanup" in how
    store.close()


def test_the_rescore_tool_settles_an_older_record_by_play(tmp_path: Path) -> None:
    """tools/go_rescore.py: a game recorded when banmen's estimate decided disputes is
    played out by the run's players; an agreed one is left as it was counted."""
    from dataclasses import replace

    from banmen.arena.store import ArenaStore, RunConfig

    sys.path.insert(0, str(paths.ROOT / "tools"))
    import go_rescore

    specs = {
        "a": _fake(tmp_path / "a.log", moves=BLACK_MOVES, dead="B6,E4", cleanup="A6,B7,C6,B5"),
        "b": _fake(tmp_path / "b.log", moves=WHITE_MOVES, dead="F6"),
    }
    played = _play(specs, 7)  # what the arena plays now: the reference
    start = played.extra["cleanup_from"]
    ended = _replay(played, 7, start)
    answers = played.extra["dead_answers"]
    dead = sorted(ended.board.move_name(p) for p in estimate_dead(ended.board))
    ended.mark_dead(parse_vertex(v, 7) for v in dead)
    s = ended.count()
    kept = {"dead": dead, "dead_from": "estimate", "dead_answers": answers}
    old = replace(played, moves=played.moves[:start], times=played.times[:start],
                  result=_first_won(s.margin), score1=int(s.black), score2=int(s.white),
                  extra=kept)  # fmt: skip
    same = {"first": dead, "second": dead}
    agreed = replace(old, pair=1, extra={**kept, "dead_from": "agreed", "dead_answers": same})
    src = ArenaStore(tmp_path / "old.db")
    # the run's players, as the tool starts them: the scripted fakes, but with no game
    # moves left to play (the tool asks them for the cleanup only)
    again = {
        "a": _fake(tmp_path / "a2.log", cleanup="A6,B7,C6,B5"),
        "b": _fake(tmp_path / "b2.log"),
    }
    players = [{"name": n, "spec": again[n]} for n in ("a", "b")]
    src.create_run(RunConfig("go", players, 2, 1, size=7), "r")
    src.add_games("r", [old, agreed])
    src.close()
    assert go_rescore.main([str(tmp_path / "old.db"), str(tmp_path / "new.db"), "r"]) == 0
    new = {g.pair: g for g in ArenaStore(tmp_path / "new.db").games("r")}
    assert new[0].extra["settled"] == "cleanup" and new[0].extra["dead_answers"] == answers
    assert (new[0].moves, new[0].result) == (played.moves, played.result)
    assert (new[0].score1, new[0].score2) == (played.score1, played.score2)
    assert (new[1].extra["settled"], new[1].result) == ("agreed", agreed.result)
    assert new[1].moves == agreed.moves
    assert go_rescore.main([str(tmp_path / "nowhere.db"), str(tmp_path / "x.db"), "r"]) == 2
    # a run edited in the file is not this user's: its players are not started unasked
    import sqlite3

    con = sqlite3.connect(tmp_path / "old.db")
    con.execute("UPDATE arena_runs SET config = replace(config, 'b2.log', 'b3.log')")
    con.commit()
    con.close()
    assert go_rescore.main([str(tmp_path / "old.db"), str(tmp_path / "new3.db"), "r"]) == 2
    assert not (tmp_path / "b3.log").exists()


SCRIPTED_PLAYER = """
class Scripted:
    '''Plays its moves in order (the game's, a pass, then the cleanup's), then passes;
    it refuses to be asked about a game that is over.'''

    def __init__(self):
        self.moves = "D1 D2 D3 D4 D5 D6 D7 F6 pass A6 B7 C6 B5".split()

    def play(self, board):
        if board.is_game_over() or not board.legal_moves:
            raise RuntimeError("asked for a move in a finished game")
        return self.moves.pop(0) if self.moves else "pass"
"""


def test_a_python_player_plays_the_cleanup_on_a_game_going_on(tmp_path: Path) -> None:
    path = tmp_path / "scripted.py"
    path.write_text(SCRIPTED_PLAYER)
    specs = {  # the python: player cannot say which stones are dead: a cleanup
        "a": f"python:{path}:Scripted",
        "b": _fake(tmp_path / "b.log", moves=WHITE_MOVES, dead="F6"),
    }
    g = _play(specs, 7)
    x = g.extra
    assert "forfeit" not in x, x
    assert x["settled"] == "cleanup" and set(x["dead_answers"]) == {"second"}
    assert x["cleanup_moves"][:7] == ["A6", "pass", "B7", "pass", "C6", "pass", "B5"]
    final = _replay(g, 7).board
    assert final.color_at(parse_vertex("B6", 7)) == EMPTY
    margin = tromp_taylor(final)
    assert (g.score1 - g.score2, g.result) == (margin + 0.5, _first_won(margin))

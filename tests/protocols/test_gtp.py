"""GTP: the engine side (``banmen gtp``, :mod:`banmen.protocols.gtp`) byte for byte, its
commands and its failures, and the client side (:mod:`banmen.games.go.gtp_client`)
against GNU Go and against ``banmen gtp`` itself.

The session tests inject a small engine (the first legal move), so they do not depend on
any search. GNU Go (``/usr/games/gnugo``) is needed for the client tests: they skip
without it, except on CI (``CI`` set), where they fail.
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from banmen.cli import app
from banmen.clock import Clock, parse_time_control
from banmen.engine import Result, SpecError
from banmen.games.go import BLACK, PASS, WHITE, Board, Game, free_handicap_points
from banmen.games.go.gtp_client import GTPCommandError, GTPEngine, GTPError
from banmen.games.registry import make_engine, parse_spec
from banmen.protocols.gtp import GTPSession, preprocess
from banmen.search.limits import Limit

runner = CliRunner()

GNUGO = "/usr/games/gnugo"
_gnugo = GNUGO if Path(GNUGO).exists() else shutil.which("gnugo")
if _gnugo is None and os.environ.get("CI"):
    raise RuntimeError(f"GNU Go not installed ({GNUGO}): CI must install Debian's gnugo")
_no_gnugo = pytest.mark.skipif(_gnugo is None, reason=f"GNU Go not installed ({GNUGO})")


def needs_gnugo(test: Any) -> Any:
    """A test that plays GNU Go: an ``external`` one, skipped without it."""
    return pytest.mark.external(_no_gnugo(test))


GNUGO_CMD = f"{_gnugo} --mode gtp --level 1"
BANMEN_GTP = [sys.executable, "-m", "banmen", "gtp"]


class FirstMove:
    """The first legal move that is not a pass (pass when there is none); records the
    limits it is given."""

    name = "first-move"

    def __init__(self, answer: str | None = None, stopped_by: str = "random") -> None:
        self.answer = answer
        self.stopped_by = stopped_by
        self.limits: list[Limit | None] = []
        self.boards: list[Board] = []
        self.games = 0

    def new_game(self) -> None:
        self.games += 1

    def think(self, board: Board, limit: Limit | None = None, *_: Any) -> Result:
        self.limits.append(limit)
        self.boards.append(board)
        if self.answer is not None or self.stopped_by == "resign":
            return Result(self.answer, stopped_by=self.stopped_by)
        moves = [m for m in board.legal_moves if m != PASS]
        return Result(board.move_name(moves[0]) if moves else "pass")


def new_session(size: int = 9, engine: Any = None, **kw: Any) -> GTPSession:
    return GTPSession(FirstMove() if engine is None else engine, size=size, **kw)


def ask(s: GTPSession, line: str) -> str:
    """The full response text to one line."""
    r = s.handle(line)
    assert r is not None, line
    assert r.endswith("\n\n") and not r.endswith("\n\n\n") and "\n\n" not in r[:-2], repr(r)
    assert r[0] in "=?"
    return r


def ok(s: GTPSession, line: str) -> str:
    """The result of a command that must succeed."""
    r = ask(s, line)
    assert r.startswith("="), (line, r)
    return r[r.index(" ") + 1 : -2]


def fails(s: GTPSession, line: str) -> str:
    """The message of a command that must fail (one line)."""
    r = ask(s, line)
    assert r.startswith("?"), (line, r)
    message = r[r.index(" ") + 1 : -2]
    assert "\n" not in message
    return message


def state(s: GTPSession) -> tuple[str, ...]:
    """Everything a failed command must leave alone."""
    b = s.board
    return (
        str(b),
        b.to_json(),
        ok(s, "list_stones b"),
        ok(s, "list_stones w"),
        ok(s, "captures b"),
        ok(s, "captures w"),
        ok(s, "printsgf"),
        str(b.komi),
    )


def play_rows(s: GTPSession, rows: list[str]) -> None:
    """Put stones on the board with ``play`` (rows from the top; X black, O white)."""
    n = len(rows)
    cols = "ABCDEFGHJKLMNOPQRST"
    for want in ("X", "O"):
        for i, row in enumerate(rows):
            for c, ch in enumerate(row):
                if ch == want:
                    ok(s, f"play {'b' if ch == 'X' else 'w'} {cols[c]}{n - i}")


# A finished 7x7 game: two living chains, a dead white stone on B7 in black's territory.
# Black 16 stones + 12 points (B7 included), white 15 stones + 6 points.
FINISHED_7X7 = [
    ".O.XO.O",
    "XXXXOOO",
    "...XO.O",
    "XXXXOOO",
    "XXXXOOO",
    "...XO..",
    "...XO..",
]


# --------------------------------------------------------------------------- framing


def test_framing_exact_bytes() -> None:
    s = new_session()
    assert s.handle("1 name") == "=1 banmen\n\n"
    assert s.handle("protocol_version") == "= 2\n\n"
    assert s.handle("boardsize 9") == "= \n\n"
    assert s.handle("12 boardsize 9") == "=12 \n\n"
    assert s.handle("42 frobnicate") == "?42 unknown command\n\n"
    assert s.handle("frobnicate now") == "? unknown command\n\n"
    assert s.handle("7 boardsize nine") == (
        "?7 syntax error: size: expected a whole number from -1000000000 to 1000000000, "
        "got 'nine'\n\n"
    )
    assert s.handle("0 name") == "=0 banmen\n\n"
    assert s.handle("12") == "?12 syntax error\n\n"
    # preprocessing: comments, tabs, control characters, CR, blank lines
    for ignored in ["", "   ", "\t", "# a comment", "  # indented comment", "\x01\x02", "\r"]:
        assert s.handle(ignored) is None
    assert s.handle("  \t 3 boardsize\t9   # set up\r\n") == "=3 \n\n"
    assert s.handle("na\x00me\x7f") == "= banmen\n\n"
    assert s.handle("\tknown_command\tplay\r") == "= true\n\n"
    assert s.handle("5 known_command genmove # with a comment") == "=5 true\n\n"
    assert preprocess("a\tb # c") == "a b"
    # command names are case-sensitive (as in GNU Go); colours and vertices are not
    assert s.handle("NAME") == "? unknown command\n\n"
    assert s.handle("9 play BLACK d4") == "=9 \n\n"
    assert s.handle("play W e5") == "= \n\n"
    assert s.handle("play White F6") == "= \n\n"
    assert ok(s, "list_stones Black") == "D4" and ok(s, "list_stones WHITE") == "E5 F6"
    # a multi-line response: one item per line, no empty line, two newlines at the end
    r = ask(s, "8 list_commands")
    assert r.startswith("=8 protocol_version\nname\n") and r.endswith("\nshowboard\n\n")
    board = ask(s, "showboard")
    assert board.startswith("= \n") and " A B C D E F G H J" in board and board.count("\n") > 10


def test_list_commands_and_known_command() -> None:
    s = new_session()
    names = ok(s, "list_commands").split("\n")
    required = "protocol_version name version known_command list_commands quit boardsize "
    required += "clear_board komi play genmove undo fixed_handicap place_free_handicap "
    required += "set_free_handicap time_settings time_left final_score final_status_list "
    required += "loadsgf reg_genmove printsgf is_legal all_legal captures list_stones "
    required += "kgs-genmove_cleanup kgs-time_settings showboard"
    assert set(names) == set(required.split()) and len(names) == len(set(names))
    for name in names:
        assert ok(s, f"known_command {name}") == "true"
    for name in ["gogui-analyze_commands", "genmove_analyze", "lz-analyze", "Name"]:
        assert ok(s, f"known_command {name}") == "false"
    # issue 32: every command checks how many arguments it is given
    assert fails(s, "known_command") == "syntax error: known_command takes 1 argument, got 0"
    assert fails(s, "boardsize 9 9") == "syntax error: boardsize takes 1 argument, got 2"
    ok(s, "play b C3")
    assert fails(s, "undo undo") == "syntax error: undo takes no arguments, got 1"
    assert len(s.board.move_stack) == 1, "a refused command changed the game"
    assert fails(s, "komi " + "1" + "0" * 400).startswith("syntax error: komi: expected")
    # GoGui's and Lizzie's extensions are unknown, and nothing breaks
    assert fails(s, "gogui-analyze_commands") == "unknown command"
    assert fails(s, "3 lz-analyze 100") == "unknown command"
    assert ok(s, "version") and ok(s, "name") == "banmen" and ok(s, "protocol_version") == "2"


def test_quit_ends_the_session() -> None:
    s = new_session()
    assert not s.done
    assert s.handle("4 quit") == "=4 \n\n" and s.done


# --------------------------------------------------------------------------- play


def test_play_capture_undo_and_the_test_commands() -> None:
    s = new_session(9)
    assert ok(s, "is_legal b E5") == "1" and ok(s, "is_legal w pass") == "1"
    assert len(ok(s, "all_legal b").split()) == 81
    for line in ["play b E5", "play w E6", "play b D6", "play w A1", "play b F6", "play w B1"]:
        ok(s, line)
    assert ok(s, "is_legal w E6") == "0"  # occupied
    ok(s, "play b E7")  # captures E6
    assert ok(s, "captures black") == "1" and ok(s, "captures w") == "0"
    assert ok(s, "list_stones b") == "E5 D6 F6 E7"
    assert ok(s, "list_stones w") == "A1 B1"
    assert len(ok(s, "all_legal w").split()) == 81 - 6 - 1  # E6 is suicide
    # the captured point is now a suicide for white: a one-point eye
    assert ok(s, "is_legal w E6") == "0" and ok(s, "is_legal b E6") == "1"
    assert fails(s, "play w E6") == "illegal move"
    ok(s, "undo")
    assert ok(s, "captures b") == "0" and ok(s, "list_stones w") == "A1 B1 E6"
    ok(s, "undo")  # white's B1
    assert ok(s, "list_stones w") == "A1 E6" and s.board.turn == WHITE
    while s.board.move_stack:
        ok(s, "undo")
    assert fails(s, "undo") == "cannot undo"
    # consecutive moves of one colour are fine in GTP
    ok(s, "play w D4")
    ok(s, "play w D5")
    assert s.board.colors == [WHITE, WHITE] and s.board.turn == BLACK


def test_ko() -> None:
    s = new_session(9)
    for line in "b C4,w E5,b D5,w E3,b D3,w F4,b A9,w D4,b E4".split(","):
        ok(s, f"play {line}")  # black E4 takes the white stone on D4
    assert ok(s, "captures b") == "1" and "D4" not in ok(s, "list_stones w")
    assert ok(s, "is_legal w D4") == "0"
    before = state(s)
    assert fails(s, "play w D4") == "illegal move"
    assert state(s) == before
    ok(s, "play w J1")  # a ko threat
    ok(s, "play b J9")  # answered elsewhere
    assert ok(s, "is_legal w D4") == "1"
    ok(s, "play w D4")  # white takes back
    assert ok(s, "captures w") == "1" and ok(s, "is_legal b E4") == "0"


def test_handicap() -> None:
    s = new_session(9)
    assert ok(s, "fixed_handicap 3") == "C3 G7 C7"
    assert ok(s, "list_stones b") == "C3 C7 G7"
    assert s.board.turn == WHITE and s.board.handicap == 3
    before = state(s)
    for line in ["fixed_handicap 2", "place_free_handicap 2", "set_free_handicap A1 B2"]:
        assert fails(s, line) == "board not empty"
    assert fails(s, "undo") == "cannot undo"  # handicap stones are no moves
    assert state(s) == before
    ok(s, "clear_board")
    assert ok(s, "list_stones b") == ""
    for bad in ["1", "10", "0", "-2"]:
        assert fails(s, f"fixed_handicap {bad}") == "invalid number of stones"
    assert fails(s, "fixed_handicap two").startswith("syntax error")
    assert fails(s, "fixed_handicap").startswith("syntax error")
    stones = ok(s, "place_free_handicap 5").split()
    assert len(stones) == 5 and set(ok(s, "list_stones b").split()) == set(stones)
    assert s.board.turn == WHITE and s.board.handicap == 5
    ok(s, "clear_board")
    for bad in [
        "set_free_handicap",
        "set_free_handicap D4",
        "set_free_handicap D4 D4",
        "set_free_handicap D4 pass",
        "set_free_handicap D4 I5",
        "set_free_handicap D4 Z9",
        "set_free_handicap D4 E5 x",
    ]:
        assert fails(s, bad) == "bad vertex list"
        assert ok(s, "list_stones b") == ""
    ok(s, "set_free_handicap d4 F6 e5")
    assert ok(s, "list_stones b") == "D4 E5 F6" and s.board.turn == WHITE
    assert fails(s, "fixed_handicap 2") == "board not empty"
    # 19x19 takes nine fixed stones; place_free_handicap may go beyond
    ok(s, "boardsize 19")
    assert ok(s, "fixed_handicap 9") == "D4 Q16 D16 Q4 D10 Q10 K4 K16 K10"
    ok(s, "clear_board")
    assert len(ok(s, "place_free_handicap 12").split()) == 12
    ok(s, "boardsize 5")
    assert fails(s, "fixed_handicap 2") == "invalid number of stones"
    assert len(ok(s, "place_free_handicap 2").split()) == 2


def test_free_handicap_points() -> None:
    for size in (5, 7, 8, 9, 13, 19):
        for n in (2, 3, 5, 9, 20, 400):
            pts = free_handicap_points(n, size)
            assert 2 <= len(pts) <= n and len(set(pts)) == len(pts)
            b = Board(size)
            b.set_free_handicap(pts)  # a valid placement
            for p in pts:  # no two stones side by side
                assert not {p - 1, p + 1, p - size - 2, p + size + 2} & set(pts)


def test_genmove_reg_genmove_and_the_engine() -> None:
    engine = FirstMove()
    s = new_session(9, engine)
    assert ok(s, "genmove b") == "A1" and ok(s, "list_stones b") == "A1"
    assert ok(s, "reg_genmove w") == "B1"
    assert ok(s, "list_stones w") == ""  # reg_genmove plays nothing
    assert ok(s, "3 genmove WHITE") == "B1"
    # out of turn: the engine is asked with the colour to move it was given
    assert ok(s, "genmove w") == "C1"
    assert engine.boards[-1].turn == WHITE and s.board.turn == BLACK
    # after two passes the game goes on if the controller wants it to
    ok(s, "play b pass")
    ok(s, "play w pass")
    assert s.board.is_game_over()
    assert ok(s, "genmove b") == "D1"
    seen = engine.boards[-1]  # as if one pass had been played: its pass would end it
    assert not seen.is_game_over() and seen.move_stack[-1] == PASS
    seen.push(PASS)
    assert seen.is_game_over()
    ok(s, "play w E1")
    assert engine.limits == [None] * len(engine.limits)  # no clock: the engine's own
    assert fails(s, "genmove").startswith("syntax error") and fails(s, "genmove x").startswith(
        "syntax error"
    )
    before = state(s)
    # an engine that resigns, one that passes, one that answers nonsense
    s.engine = FirstMove(None, "resign")
    assert ok(s, "genmove b") == "resign"
    s.engine = FirstMove("resign")
    assert ok(s, "genmove b") == "resign"
    assert state(s) == before
    s.engine = FirstMove("A1")  # occupied
    assert fails(s, "genmove b").startswith("engine error")
    s.engine = FirstMove("Z1")
    assert fails(s, "genmove b").startswith("engine error")
    s.engine = None
    assert fails(s, "genmove b").startswith("no engine")
    assert state(s) == before
    s.engine = FirstMove("pass")
    assert ok(s, "genmove b") == "pass"
    assert s.board.move_stack[-1] == PASS


def test_an_engine_failure_is_a_one_line_error() -> None:
    class Broken:
        name = "broken"

        def think(self, *_: Any) -> Result:
            raise RuntimeError("out of\nmemory")

    s = new_session(9, Broken())
    ok(s, "play b E5")
    before = state(s)
    assert fails(s, "5 genmove w") == "internal error: RuntimeError: out of memory"
    assert state(s) == before


def test_cleanup_captures_dead_stones_before_passing() -> None:
    s = new_session(7, FirstMove("pass"), komi=0.5)
    play_rows(s, FINISHED_7X7)
    assert ok(s, "genmove b") == "pass"
    ok(s, "play w pass")
    move = ok(s, "kgs-genmove_cleanup b")
    assert move in ("A7", "C7")
    ok(s, "play w pass")
    assert ok(s, "kgs-genmove_cleanup b") in ("A7", "C7")  # takes B7 off the board
    assert ok(s, "captures b") == "1"
    ok(s, "play w pass")
    assert ok(s, "kgs-genmove_cleanup b") == "pass"  # nothing dead left


# --------------------------------------------------------------------------- scoring


@pytest.mark.parametrize("rules", ["chinese", "japanese"])
def test_final_score_and_status_on_a_finished_game(rules: str) -> None:
    s = new_session(7, rules=rules, komi=0.5)
    play_rows(s, FINISHED_7X7)
    ok(s, "play b pass")
    ok(s, "play w pass")
    # area: 16 + 12 = 28 against 15 - 1 + 6 + 0.5; territory: 12 + 1 against 6 + 0.5
    assert ok(s, "final_score") == "B+6.5"
    assert ok(s, "final_status_list dead") == "B7"
    alive = ok(s, "final_status_list alive").split("\n")
    assert len(alive) == 2 and len(alive[0].split()) + len(alive[1].split()) == 16 + 15
    assert ok(s, "final_status_list seki") == ""
    assert fails(s, "final_status_list").startswith("syntax error")
    assert fails(s, "final_status_list unknown").startswith("syntax error")
    ok(s, "komi 10")
    assert ok(s, "final_score") == "W+3"


def test_seki_is_listed_and_not_dead() -> None:
    # white A3-C3/C2/C1 and black A1-B1 share the liberties A2 and B2: seki
    s = new_session(7, rules="japanese", komi=0.5)
    play_rows(s, [".......", ".......", ".......", "XXXX...", "OOOX...", "..OX...", "XXOX..."])
    assert ok(s, "final_status_list seki") == "A1 B1\nC1 C2 A3 B3 C3"
    assert ok(s, "final_status_list dead") == ""
    assert ok(s, "final_status_list alive") == "D1 D2 D3 A4 B4 C4 D4"
    # Japanese rules: the seki's liberties count for nobody; the rest is black's
    assert ok(s, "final_score") == "B+32.5"


# --------------------------------------------------------------------------- setup


def test_boardsize_clear_board_and_komi() -> None:
    engine = FirstMove()
    s = new_session(9, engine)
    ok(s, "play b E5")
    before = state(s)
    for bad in ["boardsize 4", "boardsize 20", "boardsize 0", "boardsize -9", "boardsize 25"]:
        assert fails(s, bad) == "unacceptable size"
    for bad in ["boardsize", "boardsize nine", "boardsize 9.0", "boardsize 1_9", "boardsize 0x9"]:
        assert fails(s, bad).startswith("syntax error")
    for bad in ["komi", "komi six", "komi inf", "komi nan", "komi 1e9", "komi 6,5"]:
        assert fails(s, bad).startswith("syntax error")
    assert state(s) == before
    ok(s, "komi 0.5")
    assert s.board.komi == 0.5
    ok(s, "boardsize 13")
    assert s.board.size == 13 and s.board.komi == 0.5 and not s.board.move_stack
    ok(s, "komi -3")
    ok(s, "clear_board")
    assert s.board.size == 13 and s.board.komi == -3 and engine.games == 2
    ok(s, "boardsize 5")
    assert "E5" in ok(s, "all_legal b") and fails(s, "play b F5").startswith("syntax error")


def test_bad_commands_leave_the_board_as_it_was() -> None:
    s = new_session(9)
    for line in ["play b E5", "play w D4", "play b pass", "play w C3"]:
        ok(s, line)
    before = state(s)
    for line in [
        "play b I5",
        "play b Z9",
        "play b K1",
        "play b A0",
        "play b A10",
        "play b E",
        "play b 55",
        "play b",
        "play",
        "play purple E6",
        "play 1 E6",
        "play b resign",
        "is_legal b I5",
        "is_legal x E6",
        "all_legal",
        "captures",
        "captures nobody",
        "list_stones",
        "genmove purple",
        "reg_genmove",
        "time_settings 1 2",
        "time_settings a b c",
        "time_settings -1 0 0",
        "time_settings 10 5 -1",
        "time_left b 10",
        "time_left x 10 0",
        "time_left b ten 0",
        "time_left b inf 0",
        "time_settings 1e400 0 0",
        "boardsize 1" + "0" * 40,
        "loadsgf",
    ]:
        assert fails(s, line).startswith("syntax error"), line
        assert state(s) == before, line
    for line in ["play b E5", "play w D4", "play b d4"]:
        assert fails(s, line) == "illegal move"
    for line in ["plày b E6", "play_b E6", "\x1b[A", "=", "?", "= 1", "-1 name", "1.5 name"]:
        assert fails(s, line) == "unknown command", line
    assert state(s) == before


def test_random_lines_never_break_the_session() -> None:
    rng = random.Random(7)
    words = [
        "play",
        "genmove",
        "b",
        "w",
        "black",
        "E5",
        "I5",
        "Z9",
        "pass",
        "undo",
        "komi",
        "boardsize",
        "9",
        "-1",
        "#",
        "\t",
        "is_legal",
        "loadsgf",
        "/",
        "fixed_handicap",
        "set_free_handicap",
        "A1",
        "2",
        "x",
        "final_score",
        "\x00",
        "\r",
        "time_left",
        "captures",
        "all_legal",
        "place_free_handicap",
        "é",
        "showboard",
        "1e9",
        "reg_genmove",
    ]
    s = new_session(9)
    for _ in range(600):
        line = " ".join(rng.choice(words) for _ in range(rng.randint(0, 5)))
        r = s.handle(line)
        if r is not None:
            assert r[0] in "=?" and r.endswith("\n\n") and "\n\n" not in r[:-2], (line, r)
        s.done = False
    ok(s, "name")


# --------------------------------------------------------------------------- files


def test_loadsgf_and_printsgf_round_trip(tmp_path: Path) -> None:
    s = new_session(9, komi=6.5)
    ok(s, "fixed_handicap 2")
    for line in "w E5,b E6,w A1,b F5,w A2,b D5,w A3,b E4".split(","):
        ok(s, f"play {line}")  # E4 takes E5
    ok(s, "play w pass")
    text = ok(s, "printsgf")
    assert text.startswith("(;GM[1]FF[4]") and "SZ[9]" in text and "HA[2]" in text
    assert "KM[6.5]" in text and text.endswith(")")
    path = tmp_path / "game.sgf"
    assert ok(s, f"printsgf {path}") == ""
    assert path.read_text().rstrip("\n") == text
    saved = state(s)
    ok(s, "boardsize 13")
    ok(s, "komi 0")
    assert ok(s, f"loadsgf {path}") == ""
    assert state(s) == saved and s.board.komi == 6.5 and s.board.handicap == 2
    assert s.board.turn == BLACK and ok(s, "captures b") == "1"
    # MOVE_NUMBER N: the position before move N
    ok(s, f"loadsgf {path} 3")
    assert len(s.board.move_stack) == 2 and ok(s, "list_stones w") == "E5"
    assert s.board.turn == WHITE
    ok(s, f"loadsgf {path} 1")
    assert not s.board.move_stack and ok(s, "list_stones b") == "C3 G7"
    ok(s, f"loadsgf {path} 1000")
    assert state(s) == saved
    assert fails(s, f"loadsgf {path} 0").startswith("syntax error")
    assert fails(s, f"loadsgf {path} x").startswith("syntax error")
    # an SGF without KM keeps the session's komi
    nokm = tmp_path / "nokm.sgf"
    nokm.write_text("(;GM[1]SZ[7];B[dd];W[cc])")
    ok(s, "komi 2.5")
    ok(s, f"loadsgf {nokm}")
    assert s.board.size == 7 and s.board.komi == 2.5 and ok(s, "list_stones w") == "C5"
    # bad files change nothing
    before = state(s)
    bad_files = {
        "illegal.sgf": "(;GM[1]SZ[9];B[ee];W[ee])",
        "offboard.sgf": "(;GM[1]SZ[9];B[zz])",
        "chess.sgf": "(;GM[3]SZ[8])",
        "junk.sgf": "this is not SGF",
        "size.sgf": "(;GM[1]SZ[25])",
        "empty.sgf": "",
        "binary.sgf": "\x00\xff(;",
    }
    for name, content in bad_files.items():
        (tmp_path / name).write_text(content, encoding="latin-1")
        assert fails(s, f"loadsgf {tmp_path / name}").startswith("cannot load file"), name
    assert fails(s, f"loadsgf {tmp_path / 'missing.sgf'}").startswith("cannot load file")
    assert fails(s, f"loadsgf {tmp_path}").startswith("cannot load file")
    assert fails(s, f"printsgf {tmp_path / 'no' / 'such' / 'dir.sgf'}") == "cannot save file"
    assert state(s) == before


# --------------------------------------------------------------------------- time


def expected(s: GTPSession, color: int, control: str, mine: Clock | None = None,
             theirs: Clock | None = None) -> Limit:  # fmt: skip
    """The limit the session's move for ``color`` must have: the one computation,
    :meth:`Limit.on_clock`, over the clocks (fresh ones on ``control`` by default)."""
    tc = parse_time_control(control)
    mine = mine or Clock.start(tc)
    theirs = theirs or Clock.start(tc)
    own = getattr(s.engine, "limit", None)
    depth, nodes = (own.depth, own.nodes) if isinstance(own, Limit) else (None, None)
    base = Limit(time=s.max_move_time, depth=depth, nodes=nodes)
    return base.with_clocks(mine, theirs).on_clock(s.game.position_for(color).moves_ahead())


def same(a: Limit | None, b: Limit) -> bool:
    return a is not None and (a.time, a.depth, a.nodes, a.target) == pytest.approx(
        (b.time, b.depth, b.nodes, b.target)
    )


def clock_state(c: Clock) -> tuple[float, int, int, bool, bool]:
    return (round(c.left, 6), c.moves_left, c.periods_left, c.overtime, c.flagged)


def test_time_control_sets_the_move_limit() -> None:
    engine = FirstMove()
    s = new_session(9, engine)
    ok(s, "genmove b")
    assert engine.limits[-1] is None  # no clock: the engine's own limit
    ok(s, "time_left b 10 0")  # no time control: accepted, nothing changes
    assert s.move_limit(BLACK) is None and s.clocks == {}
    ok(s, "time_settings 60 0 0")  # 60 s absolute
    assert s.control == parse_time_control("60")
    want = expected(s, WHITE, "60")  # (before the move is played)
    ok(s, "genmove w")
    limit = engine.limits[-1]
    assert same(limit, want) and limit is not None
    assert limit.clock is not None and limit.opponent is not None  # the engine sees both
    assert limit.target is not None and limit.time is not None
    assert 0 < limit.target < limit.time <= 60  # a target, and a hard time past it
    ok(s, "time_left b 10 0")  # 10 s of main time
    mine = Clock.reported(parse_time_control("60"), 10)
    assert clock_state(s.clocks[BLACK]) == clock_state(mine)
    assert same(s.move_limit(BLACK), expected(s, BLACK, "60", mine, s.clocks[WHITE]))
    ok(s, "time_settings 0 20 10")  # Canadian from the start: 20 s for 10 moves
    assert s.control == parse_time_control("canadian=0+10/20")
    assert s.clocks[WHITE].overtime and s.clocks[WHITE].moves_left == 10
    assert same(s.move_limit(WHITE), expected(s, WHITE, "canadian=0+10/20"))
    ok(s, "time_left black 10 5")  # byo-yomi: 10 s for 5 stones
    assert clock_state(s.clocks[BLACK]) == (10.0, 5, 0, True, False)
    ok(s, "time_settings 5 30 1")  # main time, then 30 s a move
    assert s.control == parse_time_control("canadian=5+1/30")
    ok(s, "time_settings 0 1 0")  # byo-yomi time but no stones: no time limit
    assert s.move_time(WHITE) is None and s.control.unlimited
    ok(s, "genmove w")
    assert engine.limits[-1] is None
    # the clock's time replaces the engine's own; its depth or node bound stays
    engine.limit = Limit(time=1.0, nodes=5000)  # type: ignore[attr-defined]
    ok(s, "time_settings 60 0 0")
    limit = s.move_limit(BLACK)
    assert limit is not None and limit.nodes == 5000 and limit.time is not None
    assert same(limit, expected(s, BLACK, "60"))


def test_genmoves_are_charged_to_the_clock() -> None:
    """The session's clock counts on between time_left commands: each genmove's time is
    charged to the mover, and the next move's limit comes from what is left."""
    engine = FirstMove()
    s = new_session(9, engine)
    ok(s, "time_settings 10 0 0")
    before = s.clocks[BLACK].left
    ok(s, "genmove b")
    assert 0 < s.clocks[BLACK].left <= before and s.clocks[WHITE].left == 10.0
    s._spend(BLACK, 4.0)
    left = s.clocks[BLACK].left
    assert s.move_limit(BLACK) is not None
    assert same(s.move_limit(BLACK), expected(s, BLACK, "10", s.clocks[BLACK], s.clocks[WHITE]))
    s._spend(BLACK, left + 1)  # past the flag: nothing more to spend
    assert s.clocks[BLACK].flagged
    limit = s.move_limit(BLACK)
    assert limit is not None and limit.time == pytest.approx(0.001)
    ok(s, "time_left b 3 0")  # the controller's word sets it again
    assert clock_state(s.clocks[BLACK]) == (3.0, 0, 0, False, False)


def test_the_hard_limit_keeps_the_clock_safe() -> None:
    """The hard time never reaches the flag: within the main time left (less a safety
    margin), a Canadian period's time left, or one byo-yomi period."""
    s = new_session(19, FirstMove())
    ok(s, "time_settings 600 0 0")
    for left in ("40", "1", "0.1", "0"):
        ok(s, f"time_left b {left} 0")
        limit = s.move_limit(BLACK)
        assert limit is not None and limit.time is not None and limit.target is not None
        assert limit.time <= max(0.001, float(left)) and limit.target <= limit.time
    ok(s, "time_settings 0 30 10")  # Canadian: 30 s for 10 stones
    ok(s, "time_left b 4 2")  # 4 s for the last two stones
    limit = s.move_limit(BLACK)
    assert limit is not None and limit.time is not None and limit.time < 4
    ok(s, "kgs-time_settings byoyomi 0 10 3")  # Japanese: 10 s a move, three periods
    ok(s, "time_left b 10 3")
    limit = s.move_limit(BLACK)
    assert limit is not None and limit.time is not None and limit.time < 10
    ok(s, "time_left b 7 3")  # 7 s left in this period: an overrun would cost one
    limit = s.move_limit(BLACK)
    assert limit is not None and limit.time is not None and limit.time < 7


def test_huge_times_are_clamped_to_the_longest_move() -> None:
    # the issue: time_settings 99999999999999999999 0 0 put 1e18 s into a timer thread,
    # which died (OverflowError) and left the search running for ever
    engine = FirstMove()
    s = new_session(9, engine)
    ok(s, "time_settings 99999999999999999999 0 0")
    assert s.move_time(BLACK) == 60.0  # the default longest move
    ok(s, "genmove b")
    limit = engine.limits[-1]
    assert limit is not None and limit.time == 60.0
    ok(s, "time_left w 1" + "0" * 29 + " 0")
    assert s.move_time(WHITE) == 60.0
    ok(s, "time_left w -5 0")  # a clock past zero counts as zero
    assert s.clocks[WHITE].left == 0
    limit = s.move_limit(WHITE)
    assert limit is not None and limit.time == pytest.approx(0.001)
    ok(s, "time_settings 0 99999999999999999999 1")  # byo-yomi
    assert s.move_time(WHITE) == 60.0
    before = (s.control, {c: clock_state(k) for c, k in s.clocks.items()})
    for line in ("time_settings 1e400 0 0", "time_settings nan 0 0", "time_left b inf 0",
                 "time_settings 10 5 " + "9" * 40, "time_left b -1e400 0",
                 "time_left b 10 -1", "time_left b 10 1.5"):  # fmt: skip
        assert fails(s, line).startswith("syntax error"), line
    assert before == (s.control, {c: clock_state(k) for c, k in s.clocks.items()})
    short = new_session(9, engine, max_move_time=0.5)
    ok(short, "time_settings 3600 0 0")  # 90 s a move by the clock: the cap is less
    assert short.move_time(BLACK) == 0.5
    ok(short, "time_settings 10 0 0")
    assert same(short.move_limit(BLACK), expected(short, BLACK, "10"))
    for bad in (0.0, -1.0, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="max_move_time"):
            new_session(9, engine, max_move_time=bad)


class Deaf(FirstMove):
    """An engine that thinks until it is stopped, whatever its limit says (as one whose
    timer died would); it gives up waiting after a minute."""

    def __init__(self) -> None:
        super().__init__()
        self.stopped: list[bool] = []

    def think(self, board: Board, limit: Limit | None = None, *rest: Any) -> Result:
        stop = rest[1] if len(rest) > 1 else None
        deadline = time.monotonic() + 60
        while stop is not None and not stop.is_set() and time.monotonic() < deadline:
            time.sleep(0.005)
        self.stopped.append(stop is not None and stop.is_set())
        return super().think(board, limit)


def test_no_move_takes_longer_than_the_cap() -> None:
    engine = Deaf()
    s = new_session(9, engine)
    s.max_move_time = 0.2
    ok(s, "genmove b")  # no clock: the engine's own limit, and the cap
    ok(s, "time_settings 99999999999999999999 0 0")
    ok(s, "genmove w")
    assert engine.stopped == [True, True] and len(s.board.move_stack) == 2


# --------------------------------------------------------------------------- the CLI


def test_cli_rejects_bad_options() -> None:
    for args, fragment in [
        (["--size", "3"], "expected a whole number from 5 to 19, got '3'"),
        (["--size", "20"], "expected a whole number from 5 to 19, got '20'"),
        (["--rules", "ing"], "unknown rules"),
        (["--komi", "1e9"], "komi"),
    ]:
        res = runner.invoke(app, ["gtp", *args])
        assert res.exit_code == 2, res.output
        assert res.output.startswith("error: ") and fragment in res.output
        assert res.output.count("\n") == 1


def test_cli_rejects_a_bad_engine_spec() -> None:
    res = runner.invoke(app, ["gtp", "--engine", "nonsense"])
    assert res.exit_code == 2 and res.output.startswith("error: unknown player 'nonsense'")


def test_banmen_gtp_as_a_subprocess() -> None:
    proc = subprocess.Popen(
        [*BANMEN_GTP, "--engine", "random:seed=3", "--size", "9", "--komi", "5.5"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        script = (
            b"1 name\n\n# comment\nprotocol_version\r\n2 play b E5\n3 play b I5\n"
            b"4 genmove w\nbogus\n5 final_score\n6 showboard\nquit\nname\n"
        )
        out, err = proc.communicate(script, timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, err.decode()
    responses = out.decode().split("\n\n")
    assert responses[-1] == "" and len(responses) == 10  # quit ends it: 'name' unanswered
    assert responses[:4] == ["=1 banmen", "= 2", "=2 ", "?3 syntax error"]
    reply = responses[4]
    assert reply.startswith("=4 ")
    board = Board(9)
    board.push(board.parse_move("E5"))
    board.push(board.parse_move(reply[3:]))  # a legal move
    assert responses[5] == "? unknown command"
    assert responses[6].startswith("=5 ") and responses[6][3] in "BW0"
    assert responses[7].startswith("=6 \n") and responses[8] == "= "


def test_banmen_gtp_answers_genmove_after_a_huge_time_settings() -> None:
    # the reproduction; mcts bounded by time only (its timer is what died)
    proc = subprocess.Popen(
        [*BANMEN_GTP, "--engine", "mcts", "--size", "9", "--max-move-time", "0.5"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        script = b"time_settings 99999999999999999999 0 0\ngenmove b\nquit\nname\n"
        out, err = proc.communicate(script, timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, err.decode()
    assert b"Traceback" not in err, err.decode()
    responses = out.decode().split("\n\n")
    assert len(responses) == 4 and responses[-1] == ""  # quit ends it: 'name' unanswered
    assert responses[0] == "= " and responses[2] == "= "
    Board(9).parse_move(responses[1][2:])  # a move (or pass) on the board


def test_cli_rejects_a_bad_max_move_time() -> None:
    for value in ("0", "-1", "nan", "inf", "1e9"):
        res = runner.invoke(app, ["gtp", "--max-move-time", value])
        assert res.exit_code == 2, (value, res.output)
        assert res.output.startswith(
            "error: Invalid value for '--max-move-time': expected a "
            "number from 0.001 to 31536000 seconds"
        ), res.output
        assert res.output.count("\n") == 1


def test_gtp_specs_and_the_arena_cache() -> None:
    from banmen.arena.play import EngineCache
    from banmen.games.registry import get_game

    spec = parse_spec(f"gtp:{sys.executable} -m banmen gtp --engine random")
    assert spec.kind == "gtp" and spec.options["command"].endswith("gtp --engine random")
    engine = make_engine("go", spec)
    assert isinstance(engine, GTPEngine) and engine.name == spec.text
    cache = EngineCache()
    cached = cache.get(get_game("go"), spec.text)
    try:
        assert isinstance(cached, GTPEngine) and cached.engine_name == "banmen"
        assert cache.get(get_game("go"), spec.text) is cached
    finally:
        cached.close()


@pytest.mark.parametrize(
    ("spec", "game", "fragment"),
    [
        ("gtp:", "go", "names no command"),
        ("gtp:   ", "go", "names no command"),
        ("gtp:gnugo --mode gtp", "othello", "GTP engines play Go"),
        ("gtp:gnugo --mode gtp", "mattix", "GTP engines play Go"),
    ],
)
def test_bad_gtp_specs(spec: str, game: str, fragment: str) -> None:
    with pytest.raises(SpecError, match=fragment) as e:
        make_engine(game, spec)
    assert "\n" not in str(e.value)


# --------------------------------------------------------------------------- the client


def test_client_errors_are_one_line() -> None:
    engine = GTPEngine("/nonexistent/engine")
    with pytest.raises(GTPError, match="cannot start") as e:
        engine.think(Board(9))
    assert "\n" not in str(e.value)
    # a program that exits at once
    quits = GTPEngine([sys.executable, "-c", "print('hello')"], name="quitter")
    with pytest.raises(GTPError, match="quitter: the engine process has exited") as e:
        quits.think(Board(9))
    assert "\n" not in str(e.value)
    # a program that never answers
    mute = "import sys\nfor line in sys.stdin:\n    if 'quit' in line:\n        break\n"
    silent = GTPEngine([sys.executable, "-c", mute], timeout=0.5)
    try:
        with pytest.raises(GTPError, match=r"no answer to .protocol_version. in 0\.5 s"):
            silent.think(Board(9))
    finally:
        silent.close()
    # a program that answers with the wrong id, and one that speaks GTP 1
    code = mute + "    print('=999 2\\n', flush=True)\n"
    liar = GTPEngine([sys.executable, "-c", code])
    try:
        with pytest.raises(GTPError, match="answered id 999"):
            liar.think(Board(9))
    finally:
        liar.close()
    code = mute + "    print('= 1\\n', flush=True)\n"
    old = GTPEngine([sys.executable, "-c", code])
    try:
        with pytest.raises(GTPError, match="GTP version '1'"):
            old.think(Board(9))
    finally:
        old.close()


def test_client_against_banmen_gtp_in_process_engine() -> None:
    """The client against a banmen GTP server running a fixed engine (no Go GameDef
    needed): the sync sends only new moves, takes moves back with undo, replays after a
    change of size, komi or handicap."""
    code = (
        "from banmen.protocols.gtp import main\n"
        "from banmen.engine import Result\n"
        "from banmen.games.go import PASS\n"
        "class First:\n"
        "    name = 'first'\n"
        "    def think(self, board, limit=None, *a):\n"
        "        moves = [m for m in board.legal_moves if m != PASS]\n"
        "        return Result(board.move_name(moves[0]) if moves else 'pass')\n"
        "main(First(), size=9)\n"
    )
    engine = GTPEngine([sys.executable, "-c", code], name="first")
    sent: list[str] = []
    command = engine.command

    def spy(text: str, timeout: float | None = None) -> str:
        sent.append(text)
        return command(text, timeout)

    engine.command = spy  # type: ignore[method-assign]
    try:
        b = Board(9, komi=6.5)
        b.push(b.parse_move("E5"))
        r = engine.think(b)
        assert r.move == "A1" and engine.engine_name == "banmen"
        assert sent[-5:] == ["boardsize 9", "clear_board", "komi 6.5", "play b E5", "genmove w"]
        b.push(b.parse_move(r.move))
        b.push(b.parse_move("E6"))
        sent.clear()
        r = engine.think(b)
        assert r.move == "B1" and sent == ["play b E6", "genmove w"]  # only the new move
        b.push(b.parse_move(r.move))
        # take two moves back and play another: undo, then the new move
        b.pop()
        b.pop()
        b.push(b.parse_move("J9"))
        sent.clear()
        r = engine.think(b)
        assert r.move == "B1" and sent == ["undo", "undo", "play b J9", "genmove w"]
        b.push(b.parse_move(r.move))
        # the game the engine played is ours
        assert engine.command("list_stones w") == "A1 B1"
        assert engine.command("list_stones b") == "E5 J9"
        # a move the caller did not play is taken back
        r = engine.think(b)
        assert r.move == "C1"
        b.push(b.parse_move("D1"))
        sent.clear()
        engine.think(b)
        assert sent == ["undo", "play b D1", "genmove w"]
        # a handicap game on another size: a full replay with set_free_handicap
        h = Board(13, komi=0.5)
        h.fixed_handicap(4)
        h.push(h.parse_move("G7"))
        sent.clear()
        assert engine.think(h).move == "A1"
        assert sent[:4] == [
            "boardsize 13",
            "clear_board",
            "komi 0.5",
            "set_free_handicap D4 K4 D10 K10",
        ]
        assert sent[4:] == ["play w G7", "genmove b"]
        # a time limit is passed on as time_settings and time_left
        sent.clear()
        h.push(h.parse_move("A1"))
        engine.think(h, Limit(time=2.5))
        assert sent == ["time_settings 0 3 1", "time_left w 3 1", "genmove w"]
        assert engine.think(Board(9)).move == "A1"  # a new game: replayed
        with pytest.raises(GTPCommandError, match="unknown command"):
            engine.command("frobnicate")
        over = Board(9)
        over.push(PASS)
        over.push(PASS)
        assert engine.think(over).stopped_by == "game_over"
    finally:
        engine.close()


def test_client_passes_a_resignation_on() -> None:
    code = (
        "from banmen.protocols.gtp import main\n"
        "from banmen.engine import Result\n"
        "class Quitter:\n"
        "    name = 'quitter'\n"
        "    def think(self, board, limit=None, *a):\n"
        "        return Result('resign')\n"
        "main(Quitter(), size=9)\n"
    )
    engine = GTPEngine([sys.executable, "-c", code])
    try:
        b = Board(9)
        b.push(b.parse_move("E5"))
        assert engine.think(b).move == "resign"
        assert engine.command("list_stones w") == ""  # nothing was played
    finally:
        engine.close()


@needs_gnugo
def test_client_plays_gnugo() -> None:
    engine = make_gnugo()
    try:
        b = Board(9, rules="japanese", komi=6.5)
        b.fixed_handicap(2)
        for _ in range(6):
            r = engine.think(b)
            assert r.move is not None
            b.push(b.parse_move(r.move))  # raises if the move were illegal for us
        assert engine.engine_name == "GNU Go" and engine.engine_version
        # take a move back, then go on: GNU Go's board follows
        b.pop()
        b.pop()
        r = engine.think(b)
        b.push(b.parse_move(r.move))
        stones = {b.move_name(p) for p in b.stones(BLACK)}
        assert set(engine.command("list_stones black").split()) == stones
        # 13x13, no handicap
        b = Board(13, komi=7.5)
        r = engine.think(b)
        assert r.move is not None and b.parse_move(r.move) in b.legal_moves
        assert engine.command("query_boardsize") == "13"
    finally:
        engine.close()


def make_gnugo() -> GTPEngine:
    assert _gnugo is not None
    return GTPEngine(GNUGO_CMD, name="gnugo")


@needs_gnugo
def test_gnugo_against_banmen_gtp() -> None:
    """One short 9x9 game: GNU Go (level 1) against ``banmen gtp --engine random``, both
    through the client; every move must be legal for our board and no command fail."""
    gnugo = make_gnugo()
    ours = GTPEngine([*BANMEN_GTP, "--engine", "random:seed=5"], name="banmen")
    try:
        game = Game(Board(9, rules="chinese", komi=7.5))
        b = game.board
        players = {BLACK: gnugo, WHITE: ours}
        for _ in range(250):
            if game.is_game_over():
                break
            r = players[game.turn].think(game)
            assert r.move is not None
            game.push(game.parse_move(r.move))  # a resignation ends the game
        assert len(b.move_stack) >= 10
        assert ours.command("list_stones b").split() == [b.move_name(p) for p in b.stones(BLACK)]
        # a random player loses by a lot: both scorers see it
        assert ours.command("final_score")[0] == gnugo.command("final_score")[0] == "B"
    finally:
        gnugo.close()
        ours.close()


def test_kgs_time_settings_japanese_byoyomi_and_the_other_systems() -> None:
    engine = FirstMove()
    s = new_session(9, engine)
    assert ok(s, "known_command kgs-time_settings") == "true"
    ok(s, "kgs-time_settings byoyomi 0 10 5")  # 10 s a move, 5 periods
    assert s.control == parse_time_control("byoyomi=0+5x10")
    assert same(s.move_limit(BLACK), expected(s, BLACK, "byoyomi=0+5x10"))
    s._spend(BLACK, 4.0)  # within the period: it starts again, no period lost
    assert clock_state(s.clocks[BLACK]) == (10.0, 0, 5, True, False)
    s._spend(BLACK, 23.0)  # 13 s over: two periods used up
    assert clock_state(s.clocks[BLACK]) == (10.0, 0, 3, True, False)
    ok(s, "time_left b 7 3")  # KGS: 7 s left in the period, 3 periods
    assert clock_state(s.clocks[BLACK]) == (7.0, 0, 3, True, False)
    limit = s.move_limit(BLACK)
    assert limit is not None and limit.time is not None and limit.time < 7
    ok(s, "kgs-time_settings byoyomi 600 30 5")  # main time first
    assert clock_state(s.clocks[WHITE]) == (600.0, 0, 5, False, False)
    s._spend(WHITE, 595.0)
    assert not s.clocks[WHITE].overtime and s.clocks[WHITE].left == pytest.approx(5.0)
    s._spend(WHITE, 40.0)  # main time runs out 35 s into byo-yomi: one period used up
    assert clock_state(s.clocks[WHITE]) == (30.0, 0, 4, True, False)
    ok(s, "time_left w 100 0")  # back in main time, all five periods to come
    assert clock_state(s.clocks[WHITE]) == (100.0, 0, 5, False, False)
    ok(s, "kgs-time_settings canadian 0 60 10")  # as time_settings: 60 s for 10 moves
    assert s.control == parse_time_control("canadian=0+10/60")
    assert same(s.move_limit(BLACK), expected(s, BLACK, "canadian=0+10/60"))
    ok(s, "kgs-time_settings absolute 60")
    assert s.control == parse_time_control("60")
    assert same(s.move_limit(BLACK), expected(s, BLACK, "60"))
    ok(s, "kgs-time_settings none")
    assert s.move_time(BLACK) is None
    for bad in ("kgs-time_settings", "kgs-time_settings fischer 60 5",
                "kgs-time_settings byoyomi 60 0 5", "kgs-time_settings canadian 60 30",
                "kgs-time_settings absolute -1", "kgs-time_settings none 5",
                "kgs-time_settings byoyomi 60 10 x", "kgs-time_settings absolute nan"):  # fmt: skip
        assert fails(s, bad).startswith("syntax error"), bad
    assert s.move_time(BLACK) is None  # a refused command changed nothing


def test_loadsgf_reads_regular_small_files_only(tmp_path: Path) -> None:
    """Issue 32: ``loadsgf /dev/zero`` grew the process to 1.7 GB and a FIFO hung; now
    anything but a regular file of at most 4 MB is one '?' line and the game is kept."""
    import os

    s = new_session()
    ok(s, "boardsize 9")
    ok(s, "play b E5")
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    big = tmp_path / "big.sgf"
    big.write_bytes(b"(;GM[1]SZ[9]" + b" " * 4_000_001 + b")")
    for path, why in [("/dev/zero", "not a regular file"), (str(fifo), "not a regular file"),
                      (str(big), "over 4 MB"), (str(tmp_path), "not a regular file")]:  # fmt: skip
        assert fails(s, f"loadsgf {path}") == f"cannot load file: {path}: {why}"
        assert s.board.size == 9 and len(s.board.move_stack) == 1


def test_an_sgf_handicap_beyond_the_rules_is_refused(tmp_path: Path) -> None:
    """Issue 32: HA[100] on a 9×9 board changed the score; a record's handicap is bounded
    as fixed_handicap bounds it (at most 9, and what the board's size allows)."""
    s = new_session()
    ok(s, "boardsize 9")
    ok(s, "play b E5")
    for ha in ("100", "10", "-1", "x", "1" + "0" * 400):
        p = tmp_path / f"ha{len(ha)}.sgf"
        p.write_text(f"(;GM[1]SZ[9]HA[{ha}];B[ee])")
        msg = fails(s, f"loadsgf {p}")
        assert msg.startswith("cannot load file: ") and "HA" in msg, msg
        assert s.board.size == 9 and len(s.board.move_stack) == 1
    p = tmp_path / "ha2.sgf"
    p.write_text("(;GM[1]SZ[9]HA[2]AB[gc][cg];W[ee])")
    ok(s, f"loadsgf {p}")
    assert s.board.handicap == 2

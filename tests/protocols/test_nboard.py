"""NBoard (``banmen nboard``, :mod:`banmen.protocols.nboard`): bounded, interruptible searches.

A ``ping`` stops a running search and is answered ``pong`` with no stale ``===`` or
``search`` line after it; every ``go`` and ``hint`` ends within the session's maximum time
whatever the depth; bad settings are one ``status error`` line. (The session's commands
one by one are tested in test_othello.py.) Waits are generous deadlines that only matter
when something is broken; nothing here measures speed.
"""

from __future__ import annotations

import io
import sys
import threading
import time
from collections.abc import Iterator

import pytest
from session_out import Out
from typer.testing import CliRunner

from banmen.cli import app
from banmen.clients._lines import LineProcess
from banmen.games.othello import Board
from banmen.protocols.nboard import NBoardSession, main

START = (
    "(;GM[Othello]PC[NBoard]TY[8]BO[8 ---------------------------O*------*O"
    "--------------------------- *];)"
)
BANMEN_NBOARD = [sys.executable, "-m", "banmen", "nboard"]
WAIT = 60.0  # only matters when something is broken

runner = CliRunner()


def read_until(proc: LineProcess, line: str) -> list[str]:
    deadline = time.monotonic() + WAIT
    lines: list[str] = []
    while True:
        got = proc.next_line(deadline)
        assert got is not None, f"output ended before {line!r}: {lines}"
        lines.append(got)
        if got == line or (line.endswith(" ") and got.startswith(line)):
            return lines


def is_start_move(answer: str) -> bool:
    move = answer.split()[1].split("/")[0]
    board = Board()
    return board.parse_move(move) in board.legal_moves


# --------------------------------------------------------------------------- the process


def test_ping_stops_a_depth_60_go_and_no_stale_move_follows() -> None:
    # the issue: after 'set depth 60' and 'go' nothing came for 30 s, and 'ping' was not
    # answered (the search ran in the thread that reads the commands)
    proc = LineProcess(BANMEN_NBOARD)
    try:
        for line in ("nboard 2", "set depth 60", f"set game {START}", "ping 1"):
            proc.send(line)
        assert read_until(proc, "pong 1")[0] == "set myname banmen"
        proc.send("go")
        read_until(proc, "status banmen is thinking")
        proc.send("ping 2")
        lines = read_until(proc, "pong 2")
        assert not [ln for ln in lines if ln.startswith(("===", "nodestats"))], lines
        # the session goes on: every command answered
        proc.send("set depth 2")
        proc.send("go")
        assert is_start_move(read_until(proc, "=== ")[-1])
        proc.send("ping 3")
        assert read_until(proc, "pong 3")[-1] == "pong 3"
        proc.send("quit")
        assert proc.proc.wait(timeout=WAIT) == 0
    finally:
        proc.close()


def test_go_and_hint_at_depth_60_answer_within_the_cap() -> None:
    proc = LineProcess([*BANMEN_NBOARD, "--max-move-time", "0.3"])
    try:
        for line in ("nboard 2", "set depth 60", f"set game {START}", "go"):
            proc.send(line)
        lines = read_until(proc, "=== ")
        assert is_start_move(lines[-1]) and "status error" not in " ".join(lines)
        assert read_until(proc, "status") == ["status"]
        proc.send("hint 4")
        lines = read_until(proc, "status")
        hints = [ln for ln in lines if ln.startswith("search ")]
        assert 1 <= len(hints) <= 4
        proc.send("ping 1")
        assert read_until(proc, "pong 1") == ["pong 1"]
        proc.send("quit")
        assert proc.proc.wait(timeout=WAIT) == 0
    finally:
        proc.close()


def test_cli_rejects_a_bad_max_move_time() -> None:
    for value in ("0", "-1", "nan", "inf"):
        res = runner.invoke(app, ["nboard", "--max-move-time", value])
        assert res.exit_code == 2, (value, res.output)
        assert res.output.startswith(
            "error: Invalid value for '--max-move-time': expected a "
            "number from 0.001 to 31536000 seconds"
        ), res.output


# --------------------------------------------------------------------------- main() in-process


def run_main(script: Iterator[str], out: Out) -> threading.Thread:
    t = threading.Thread(target=main, args=(script, out), daemon=True)
    t.start()
    return t


def test_ping_stops_a_hint_and_no_stale_search_line_follows() -> None:
    out = Out()

    def script() -> Iterator[str]:
        yield from ("nboard 2\n", "set depth 60\n", f"set game {START}\n", "hint 4\n")
        out.wait_for("status banmen is thinking")
        yield "ping 7\n"
        out.wait_for("pong 7")
        yield "quit\n"

    t = run_main(script(), out)
    t.join(WAIT)
    assert not t.is_alive(), out.getvalue()
    lines = out.lines()
    assert lines[-1] == "pong 7"
    assert not [ln for ln in lines if ln.startswith("search ")], lines


def test_quit_stops_a_running_go() -> None:
    out = Out()

    def script() -> Iterator[str]:
        yield from ("nboard 2\n", "set depth 60\n", "go\n")
        out.wait_for("status banmen is thinking")
        yield "quit\n"
        yield "ping 1\n"  # not carried out: quit ended the session

    t = run_main(script(), out)
    t.join(WAIT)
    assert not t.is_alive(), out.getvalue()
    assert out.lines() == ["set myname banmen", "status banmen is thinking"]


def test_end_of_input_carries_out_what_was_read() -> None:
    out = Out()
    main(iter(["nboard 2\n", "set depth 1\n", "ping 4\n", "go\n"]), out)
    lines = out.lines()
    assert lines[:2] == ["set myname banmen", "pong 4"] and lines[-1] == "status"
    assert is_start_move(lines[-2])
    # a go followed by a ping is obsolete (as the specification has it) however fast the
    # ping comes: it is not answered
    out = Out()
    main(iter(["set depth 1\n", "go\n", "ping 5\n", "learn\n"]), out)
    # (the go may have started, and sent its status, before the ping was read)
    assert [ln for ln in out.lines() if not ln.startswith("status")] == ["pong 5", "learned"]


# --------------------------------------------------------------------------- the session


def test_a_go_behind_a_ping_is_not_started() -> None:
    # a go read before a ping is obsolete by the time it comes up: the GUI takes anything
    # sent before the pong as being about the old position
    out = Out()
    s = NBoardSession(out, depth=1)
    s.notice("go")  # (the reader sees every line; only ping and quit matter)
    s.notice("ping 1")
    assert s.handle("go") and s.handle("hint 3")
    assert out.lines() == []
    assert s.handle("ping 1") and out.lines() == ["pong 1"]
    assert s.handle("go")  # after the pong: carried out
    assert is_start_move(out.lines()[-2]) and out.lines()[-1] == "status"


def test_set_depth_is_clamped_or_one_error() -> None:
    out = Out()
    s = NBoardSession(out)
    for value, depth in (("12", 12), ("60", 60), ("61", 60), ("999", 60), ("9" * 5000, 60),
                         ("007", 7)):  # fmt: skip
        assert s.handle(f"set depth {value}")
        assert s.depth == depth and out.lines() == []
    for bad in ("set depth", "set depth 0", "set depth -3", "set depth x", "set depth 1.5",
                "set depth 4 5", "set depth ５"):  # fmt: skip
        before = len(out.lines())
        assert s.handle(bad)
        new = out.lines()[before:]
        assert len(new) == 1 and new[0].startswith("status error: set depth needs"), (bad, new)
        assert s.depth == 7


@pytest.mark.parametrize("arg", ["0", "x", "-1", "9" * 5000 + "x"])
def test_a_bad_hint_count_is_one_error(arg: str) -> None:
    out = Out()
    s = NBoardSession(out, depth=1)
    assert s.handle(f"hint {arg}")
    lines = out.lines()
    assert len(lines) == 1 and lines[0].startswith("status error: hint needs"), lines


def test_a_huge_hint_count_lists_every_move() -> None:
    out = Out()
    s = NBoardSession(out, depth=1)
    assert s.handle("hint " + "9" * 5000)
    assert len([ln for ln in out.lines() if ln.startswith("search ")]) == 4


def test_max_move_time_must_be_positive() -> None:
    for bad in (0.0, -1.0, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="max_move_time"):
            NBoardSession(io.StringIO(), max_move_time=bad)


def test_hint_near_the_end_gives_every_move_its_exact_value() -> None:
    """``hint N`` answers ``search <move> <eval> 0 <depth>`` per move, best first, in the
    NBoard protocol's form; near the end of a game (within the session's depth) every
    value is the exact final disc difference, checked by brute force."""
    import random

    from test_othello import Memo, _random_position

    from banmen.games.othello import BLACK, PASS

    rng = random.Random(23)
    memo = Memo(bits=20)
    for _ in range(3):
        board = _random_position(rng, 9)
        if board.legal_moves == [PASS]:
            continue
        out = Out()
        s = NBoardSession(out, depth=12)
        assert s.handle(f"set game {board.to_ggf()}")
        assert s.handle("hint 64")
        lines = out.lines()
        assert lines[-1] == "status"
        rows = [ln.split() for ln in lines if ln.startswith("search ")]
        assert len(rows) == len(board.legal_moves)
        values = []
        for word, move, value, zero, depth in rows:
            assert word == "search" and zero == "0" and int(depth) >= 1
            child = board.copy()
            child.push(board.parse_move(move))
            p, o = (child.black, child.white) if child.turn == BLACK else (child.white, child.black)
            assert float(value) == -memo.value(p, o), (board.to_string(), move, value)
            values.append(float(value))
        assert values == sorted(values, reverse=True)

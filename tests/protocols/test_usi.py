"""USI (``banmen usi``, :mod:`banmen.protocols.usi`): a GUI's whole session, line for line.

Most tests drive :class:`USISession` with the real solver on small problems; a fake solver
stands in where a test needs an outcome on demand (a search that runs until stopped, a
solver that fails). The last tests run ``banmen usi`` as a process through pipes, as a GUI
does.
"""

from __future__ import annotations

import io
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

import cshogi
import pytest
from session_out import Out

from banmen.clients._lines import LineProcess
from banmen.games.shogi import STARTPOS, parse_sfen
from banmen.games.shogi.tsume import TsumeResult
from banmen.numbers import HASH
from banmen.protocols.usi import USISession, main
from banmen.search.limits import Limit, StopFlag

ONE = "k8/9/PK7/9/9/9/9/9/9 b 2r2b4g4s4n4l17p 1"  # 9c9b+
THREE = "9/9/3pp4/+r2k1p3/2L1+p4/2+R6/B8/B8/9 b 4g4s4n3l14p 1"  # 7e7b+ 6d5d 7f5f
NOMATE = "4k4/9/9/9/9/9/9/9/9 b - 1"  # the attacker has nothing to check with
#: a lone king in the middle against rook, gold and silver in hand: not solved in seconds
HARD = "9/9/9/9/4k4/9/9/9/9 b RGS 1"
BANMEN_USI = [sys.executable, "-m", "banmen", "usi"]


def new_session(solver: Callable[..., Any] | None = None) -> tuple[USISession, Out]:
    out = Out()
    return USISession(out, solver=solver), out


def say(s: USISession, out: Out, *commands: str) -> list[str]:
    """Send the commands (waiting for any search they start) and return the new lines."""
    for c in commands:
        assert s.handle(c) is True, c
        assert s.wait(60), "the search did not end"
    return out.new_lines()


class Fake:
    """A solver that records its calls and returns ``result``; with ``block`` it runs until
    its stop flag is set (reporting progress meanwhile), then answers unknown/stopped."""

    def __init__(self, result: TsumeResult | None = None, block: bool = False) -> None:
        self.result = result
        self.block = block
        self.calls: list[dict[str, Any]] = []
        self.started = threading.Event()

    def __call__(
        self,
        sfen: str,
        limit: Limit | None = None,
        *,
        stop: StopFlag | None = None,
        progress: Callable[[dict[str, Any]], None] | None = None,
        hash_mb: int = 256,
    ) -> TsumeResult:
        self.calls.append({"sfen": sfen, "limit": limit, "stop": stop, "hash_mb": hash_mb})
        self.started.set()
        if progress is not None:
            progress({"nodes": 1000, "seconds": 0.1, "nps": 10000, "pn": 1, "dn": 1})
        if self.block:
            assert stop is not None
            while not stop.is_set():
                time.sleep(0.005)
            return TsumeResult(sfen, "unknown", reason="stopped", nodes=5, seconds=0.2)
        assert self.result is not None
        return self.result


def unknown(reason: str) -> TsumeResult:
    return TsumeResult(ONE, "unknown", reason=reason, nodes=10, seconds=0.5)


# --------------------------------------------------------------------------- handshake


def test_usi_handshake() -> None:
    s, out = new_session()
    lines = say(s, out, "usi")
    assert lines[0].startswith("id name banmen ")
    assert lines[1:] == [
        "id author banmen developers",
        # at most half the machine's memory (issue 32: 65536 MB was a MemoryError)
        f"option name USI_Hash type spin default 256 min 1 max {int(HASH.hi)}",
        "option name MaxNodes type spin default 0 min 0 max 2147483647",
        "usiok",
    ]
    assert say(s, out, "isready") == ["readyok"]
    assert say(s, out, "usinewgame", "", "   ", "ponderhit", "gameover win") == []


def test_setoption() -> None:
    fake = Fake(TsumeResult(ONE, "mate", ["9c9b+"], 1, True))
    s, out = new_session(fake)
    assert say(s, out, "setoption name USI_Hash value 64") == []
    assert say(s, out, "setoption name MaxNodes value 5000") == []
    assert s.hash_mb == 64 and s.max_nodes == 5000
    say(s, out, "setoption name USI_Ponder value false")  # sent by GUIs: accepted
    assert out.new_lines() == []
    for bad in (
        "setoption name USI_Hash value 0",
        "setoption name USI_Hash value 65537",
        "setoption name USI_Hash value lots",
        "setoption name USI_Hash value -5",
        "setoption name USI_Hash",
        "setoption name MaxNodes value 1e6",
        "setoption name Threads value 4",
        "setoption",
        "setoption USI_Hash 64",
    ):
        lines = say(s, out, bad)
        assert len(lines) == 1 and lines[0].startswith("info string error: "), (bad, lines)
    assert s.hash_mb == 64 and s.max_nodes == 5000
    say(s, out, f"position sfen {ONE}", "go mate 1500")
    call = fake.calls[-1]
    assert call["hash_mb"] == 64 and call["limit"] == Limit(time=1.5, nodes=5000)
    say(s, out, "setoption name maxnodes value 0", "go mate infinite")
    assert fake.calls[-1]["limit"] == Limit()  # 0: no node limit


# --------------------------------------------------------------------------- position


def test_position_sfen_and_moves() -> None:
    fake = Fake(unknown("timeout"))
    s, out = new_session(fake)
    assert s.sfen == STARTPOS
    assert say(s, out, f"position sfen {THREE}") == []
    assert s.sfen == THREE
    say(s, out, f"position sfen {THREE} moves 7e7b+ 6d5d")
    board = cshogi.Board(THREE)
    board.push_usi("7e7b+")
    board.push_usi("6d5d")
    assert s.sfen == board.sfen()
    say(s, out, "go mate 100")
    assert fake.calls[-1]["sfen"] == board.sfen()
    say(s, out, "position startpos moves 7g7f 3c3d")
    start = cshogi.Board()
    start.push_usi("7g7f")
    start.push_usi("3c3d")
    assert s.sfen == start.sfen()
    say(s, out, "position startpos")
    assert s.sfen == STARTPOS
    say(s, out, f"position sfen {THREE.rsplit(' ', 1)[0]} moves")  # no move number, no moves
    assert s.sfen == THREE
    assert out.new_lines() == []


@pytest.mark.parametrize(
    ("command", "fragment"),
    [
        ("position", "position needs"),
        ("position fen 9/9/9 b - 1", "position needs"),
        ("position sfen", "SFEN has 0 fields"),
        ("position sfen 9/9/9 b - 1", "SFEN board has 3 ranks"),
        ("position sfen 4k4/4K4/9/9/9/9/9/9/9 b - 1", ""),  # white in check
        ("position sfen P3k4/9/9/9/9/9/9/9/9 b - 1", "could never move"),
        (f"position sfen {THREE} moves 7e7b+ 6d6c", "move 2: 6d6c is not a legal move"),
        (f"position sfen {THREE} moves 7e7b+ 6d5d zz", "move 3: 'zz' is not a USI move"),
        (f"position sfen {THREE} moves P*5e", "move 1: P*5e is not a legal move"),
        ("position startpos moves 7g7e", "move 1: 7g7e is not a legal move"),
        ("position startpos 7g7f", "unexpected '7g7f' after startpos"),
        ("position startpos moves 7g7f 7g7f", "move 2: 7g7f is not a legal move here (white"),
    ],
)
def test_a_bad_position_is_one_error_and_clears_the_problem(command: str, fragment: str) -> None:
    fake = Fake(TsumeResult(ONE, "mate", ["9c9b+"], 1, True))
    s, out = new_session(fake)
    say(s, out, f"position sfen {ONE}")
    lines = say(s, out, command)
    assert len(lines) == 1 and lines[0].startswith("info string error: "), lines
    assert fragment in lines[0]
    assert lines[0].endswith("(no problem is set until a position is accepted)")
    # the GUI meant to send a new problem: go mate must not answer the old one (ONE, a
    # mate), nor claim 'nomate'; it says why and gives the answer that claims nothing
    assert s.sfen is None
    assert say(s, out, "go mate 1000") == [
        "info string error: go mate: no problem to solve: the last position was rejected",
        "checkmate timeout",
    ]
    assert fake.calls == []
    say(s, out, f"position sfen {THREE}")  # an accepted position is solved again
    assert say(s, out, "go mate 1000")[-1] == "checkmate 9c9b+"
    assert [c["sfen"] for c in fake.calls] == [THREE]


# --------------------------------------------------------------------------- go mate


def test_go_mate_in_one_and_three_with_the_real_solver() -> None:
    s, out = new_session()
    say(s, out, "usi", "isready")
    lines = say(s, out, f"position sfen {ONE}", "go mate 10000")
    assert lines[-1] == "checkmate 9c9b+"
    assert sum(ln.startswith("checkmate") for ln in lines) == 1
    assert all(ln.startswith("info ") for ln in lines[:-1])
    lines = say(s, out, f"position sfen {THREE}", "go mate infinite")
    assert lines[-1] == "checkmate 7e7b+ 6d5d 7f5f"
    assert "info string mate in 3 (shortest)" in lines
    # the moves of position count: after 7e7b+ 6d5d it is the attacker's mate in one
    lines = say(s, out, f"position sfen {THREE} moves 7e7b+ 6d5d", "go mate")
    assert lines[-1] == "checkmate 7f5f"


def test_go_mate_nomate_with_the_real_solver() -> None:
    s, out = new_session()
    lines = say(s, out, f"position sfen {NOMATE}", "go mate 10000")
    assert lines[-1] == "checkmate nomate"
    assert "info string no mate (proved)" in lines


def test_go_mate_timeout_with_the_real_solver() -> None:
    s, out = new_session()
    lines = say(s, out, f"position sfen {HARD}", "go mate 300")
    assert lines[-1] == "checkmate timeout"
    # a node limit is not a result either
    lines = say(s, out, "setoption name MaxNodes value 1000", "go mate infinite")
    assert lines[-1] == "checkmate timeout"


def test_stop_during_an_infinite_search_with_the_real_solver() -> None:
    s, out = new_session()
    say(s, out, f"position sfen {HARD}")
    assert s.handle("go mate infinite")
    out.wait_for("info nodes", 60)  # it is searching (its progress comes)
    assert s.searching and "checkmate" not in out.getvalue()
    assert s.handle("stop")
    assert out.wait_for("checkmate", 60) == "checkmate timeout"
    assert s.wait(60)
    # the session goes on as before
    assert say(s, out, f"position sfen {ONE}", "go mate 5000")[-1] == "checkmate 9c9b+"


def test_results_map_to_checkmate_lines() -> None:
    cases = [
        (TsumeResult(THREE, "mate", ["7e7b+", "6d5d", "7f5f"], 3, True),
         "checkmate 7e7b+ 6d5d 7f5f"),
        (TsumeResult(THREE, "mate", ["7e7b+", "6d5d", "7f5f"], 3, False, "timeout"),
         "checkmate 7e7b+ 6d5d 7f5f"),
        (TsumeResult(ONE, "no_mate"), "checkmate nomate"),
        (unknown("timeout"), "checkmate timeout"),
        (unknown("node_limit"), "checkmate timeout"),
        (unknown("memory"), "checkmate timeout"),
        (unknown("stopped"), "checkmate timeout"),
    ]  # fmt: skip
    for result, answer in cases:
        s, out = new_session(Fake(result))
        lines = say(s, out, "go mate 1000")
        assert lines[-1] == answer
        assert [ln for ln in lines if ln.startswith("checkmate")] == [answer]


def test_progress_becomes_info_lines() -> None:
    s, out = new_session(Fake(unknown("timeout")))
    lines = say(s, out, "go mate 1000")
    assert lines[0] == "info nodes 1000 nps 10000 time 100"
    assert "info nodes 10 nps 20 time 500" in lines  # the final count


def test_stop_and_quit_during_a_search() -> None:
    fake = Fake(block=True)
    s, out = new_session(fake)
    assert s.handle("go mate infinite")
    assert fake.started.wait(10)
    out.new_lines()
    assert s.handle("isready")  # answered while it thinks
    assert out.wait_for("readyok") == "readyok"
    assert s.searching
    assert s.handle("stop")
    assert out.wait_for("checkmate") == "checkmate timeout"
    assert fake.calls[0]["stop"].is_set()
    assert s.wait(60)
    out.new_lines()
    assert say(s, out, "stop") == []  # nothing to stop: ignored
    fake.started.clear()
    assert s.handle("go mate")
    assert fake.started.wait(10)
    assert s.handle("quit") is False  # quit stops the search
    assert not s.searching and fake.calls[-1]["stop"].is_set()
    assert out.getvalue().count("checkmate timeout") == 2


class ByPosition:
    """A solver answering each problem at once from ``answers`` (sfen → pv, [] for no
    mate); a problem not there runs until it is stopped."""

    def __init__(self, answers: dict[str, list[str]]) -> None:
        self.answers = answers
        self.calls: list[str] = []
        self.started = threading.Event()

    def __call__(self, sfen: str, limit: Limit, *, stop: StopFlag, **kw: Any) -> TsumeResult:
        self.calls.append(sfen)
        self.started.set()
        if sfen not in self.answers:
            while not stop.is_set():
                time.sleep(0.005)
            return TsumeResult(sfen, "unknown", reason="stopped")
        pv = self.answers[sfen]
        return TsumeResult(sfen, "mate", pv, len(pv), True) if pv else TsumeResult(sfen, "no_mate")


def test_a_go_during_a_search_stops_it_and_every_go_is_answered_in_order() -> None:
    solver = ByPosition({ONE: ["9c9b+"], NOMATE: []})
    s, out = new_session(solver)
    say(s, out, f"position sfen {HARD}")
    assert s.handle("go mate infinite")
    assert solver.started.wait(10)
    # a GUI should send stop first; if it does not, the running search answers for its
    # own position (it is stopped: timeout), then the new go is carried out
    assert s.handle(f"position sfen {ONE}")
    say(s, out, "go mate 1000")
    assert s.handle("go mate 1000")  # at once again, for the same problem
    assert s.handle("go")  # a game search: the running one answers first here as well
    say(s, out, f"position sfen {NOMATE}", "go mate 1000")
    lines = [ln for ln in out.lines() if ln.startswith(("checkmate", "bestmove"))]
    assert lines == ["checkmate timeout", "checkmate 9c9b+", "checkmate 9c9b+",
                     "bestmove resign", "checkmate nomate"]  # fmt: skip
    assert solver.calls == [HARD, ONE, ONE, NOMATE]


class SlowAnswer(Out):
    """Output that lingers after each ``checkmate`` line, as a loaded machine may: the
    search thread is still alive a while after its answer was read."""

    def write(self, s: str) -> int:
        n = super().write(s)
        if s.startswith("checkmate"):
            time.sleep(0.01)
        return n


def test_a_go_right_after_an_answer_is_carried_out() -> None:
    # the issue: a go mate sent as soon as the previous checkmate line was read found the
    # search thread still alive and was refused (never answered)
    problems = [(ONE, "checkmate 9c9b+"), (NOMATE, "checkmate nomate")]
    solver = ByPosition({ONE: ["9c9b+"], NOMATE: []})
    out = SlowAnswer()
    s = USISession(out, solver=solver)
    for i in range(100):
        sfen, answer = problems[i % 2]
        assert s.handle(f"position sfen {sfen}") and s.handle("go mate 1000")
        deadline = time.monotonic() + 60
        with out.changed:  # wait for this go's answer, then send the next pair at once
            while out.getvalue().count("checkmate") <= i:
                assert time.monotonic() < deadline, out.getvalue()[-500:]
                out.changed.wait(1)
    assert s.wait(60)
    lines = out.lines()
    assert not [ln for ln in lines if "error" in ln]
    assert [ln for ln in lines if ln.startswith("checkmate")] == [
        problems[i % 2][1] for i in range(100)
    ]


def test_a_search_that_does_not_stop_is_given_up_and_answered_for(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from banmen.protocols import usi

    monkeypatch.setattr(usi, "STOP_GRACE", 0.2)
    release = threading.Event()
    calls: list[str] = []

    def deaf_once(sfen: str, limit: Limit, *, stop: StopFlag, **kw: Any) -> TsumeResult:
        calls.append(sfen)
        if len(calls) == 1:  # ignores its stop flag until released
            release.wait(60)
            return TsumeResult(sfen, "no_mate")  # a late (and unproved) answer
        return TsumeResult(sfen, "mate", ["9c9b+"], 1, True)

    s, out = new_session(deaf_once)
    assert s.handle(f"position sfen {HARD}") and s.handle("go mate infinite")
    assert s.handle(f"position sfen {ONE}")
    lines = [ln for ln in say(s, out, "go mate 1000") if not ln.startswith("info nodes")]
    assert lines == ["info string error: the search did not stop: given up",
                     "checkmate timeout", "info string mate in 1 (shortest)",
                     "checkmate 9c9b+"]  # fmt: skip
    release.set()  # the deaf search ends now: its lines are dropped
    for t in threading.enumerate():
        if t.name == "usi-go-mate":
            t.join(60)
    assert s.handle("quit") is False and calls == [HARD, ONE]
    assert out.new_lines() == [] and "nomate" not in out.getvalue()


def test_go_without_mate_resigns() -> None:
    fake = Fake(unknown("timeout"))
    s, out = new_session(fake)
    for command in ("go", "go btime 1000 wtime 1000 byoyomi 1000", "go infinite", "go ponder"):
        lines = say(s, out, command)
        assert lines == [
            "info string error: only 'go mate' is supported: banmen solves mate problems",
            "bestmove resign",
        ]
    assert fake.calls == []


@pytest.mark.parametrize("arg", ["0", "-5", "soon", "1.5", "１０"])
def test_go_mate_with_a_bad_time(arg: str) -> None:
    fake = Fake(unknown("timeout"))
    s, out = new_session(fake)
    lines = say(s, out, f"go mate {arg}")
    assert len(lines) == 2 and lines[0].startswith("info string error: go mate needs a time")
    assert lines[1] == "checkmate timeout" and fake.calls == []


def test_huge_numbers_are_clamped_not_internal_errors() -> None:
    fake = Fake(block=True)
    s, out = new_session(fake)
    # beyond 24 days (or beyond Python's 4300-digit int parsing) a time is infinite
    for value in ("99999999999999999999", "9" * 5000, "0" * 4999 + "1500"):
        assert s.handle(f"go mate {value}")
        assert fake.started.wait(10)
        fake.started.clear()
        assert s.handle("stop") and s.wait(60)
    assert [c["limit"] for c in fake.calls] == [Limit(), Limit(), Limit(time=1.5)]
    assert out.getvalue().count("checkmate timeout") == 3
    out.new_lines()
    lines = say(s, out, "setoption name MaxNodes value " + "0" * 5000 + "7")
    assert s.max_nodes == 7 and lines == []
    lines = say(s, out, "setoption name MaxNodes value " + "9" * 5000)
    assert len(lines) == 1
    assert lines[0].startswith("info string error: MaxNodes: expected a whole number from 0")
    assert "internal error" not in out.getvalue()


def test_a_failing_solver_still_answers() -> None:
    def broken(*args: Any, **kw: Any) -> TsumeResult:
        raise RuntimeError("out of\nsorts")

    s, out = new_session(broken)
    lines = say(s, out, "go mate 1000")
    assert lines == ["info string error: the solver failed: RuntimeError: out of sorts",
                     "checkmate timeout"]  # fmt: skip


def test_unknown_commands() -> None:
    s, out = new_session()
    for command in ("hello", "usi2", "GO mate", "position\x00", "\x7f"):
        lines = say(s, out, command)
        assert len(lines) == 1 and lines[0].startswith("info string error: unknown command"), (
            command,
            lines,
        )
    assert s.sfen == STARTPOS


# --------------------------------------------------------------------------- main()


def test_main_over_streams() -> None:
    fake = Fake(TsumeResult(ONE, "mate", ["9c9b+"], 1, True))
    out = Out()
    main(io.StringIO(f"usi\nisready\nposition sfen {ONE}\ngo mate 1000\n"), out, solver=fake)
    lines = out.lines()
    assert lines[4:6] == ["usiok", "readyok"] and lines[-1] == "checkmate 9c9b+"
    # quit ends the session: the rest is not read
    out = Out()
    main(io.StringIO("quit\nusi\n"), out, solver=fake)
    assert out.getvalue() == ""


def test_end_of_input_lets_a_bounded_search_answer_and_stops_an_unbounded_one() -> None:
    out = Out()
    main(io.StringIO(f"position sfen {THREE}\ngo mate 20000\n"), out)
    assert out.lines()[-1] == "checkmate 7e7b+ 6d5d 7f5f"
    fake = Fake(block=True)
    out = Out()
    main(io.StringIO("go mate infinite\n"), out, solver=fake)
    assert out.lines()[-1] == "checkmate timeout" and fake.calls[0]["stop"].is_set()


def test_end_of_input_gives_a_bounded_search_a_limited_wait(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from banmen.protocols import usi

    monkeypatch.setattr(usi, "EOF_WAIT", 0.2)
    fake = Fake(block=True)  # a search that would use all of its 100 s
    out = Out()
    main(io.StringIO("go mate 100000\n"), out, solver=fake)
    assert fake.calls[0]["limit"] == Limit(time=100.0)
    assert out.lines()[-1] == "checkmate timeout" and fake.calls[0]["stop"].is_set()


# --------------------------------------------------------------------------- the process


def _read_until(proc: LineProcess, prefix: str, timeout: float = 60) -> list[str]:
    deadline = time.monotonic() + timeout
    lines: list[str] = []
    while True:
        line = proc.next_line(deadline)
        assert line is not None, f"output ended before {prefix!r}: {lines}"
        lines.append(line)
        if line.startswith(prefix):
            return lines


def test_banmen_usi_as_a_subprocess() -> None:
    proc = LineProcess(BANMEN_USI)
    try:
        proc.send("usi")
        lines = _read_until(proc, "usiok")
        assert lines[0].startswith("id name banmen") and lines[-1] == "usiok"
        proc.send("setoption name USI_Hash value 32")
        proc.send("isready")
        assert _read_until(proc, "readyok") == ["readyok"]
        proc.send("usinewgame")
        proc.send(f"position sfen {THREE}")
        proc.send("go mate 20000")
        assert _read_until(proc, "checkmate")[-1] == "checkmate 7e7b+ 6d5d 7f5f"
        proc.send("position sfen 9/9/9 b - 1")
        proc.send("bogus")
        proc.send(f"position sfen {HARD}")
        proc.send("go mate infinite")
        lines = _read_until(proc, "info string error: unknown command")
        assert lines[0].startswith("info string error: SFEN board has 3 ranks")
        _read_until(proc, "info nodes")  # it is searching (its progress comes)
        proc.send("stop")
        assert _read_until(proc, "checkmate")[-1] == "checkmate timeout"
        proc.send(f"position sfen {ONE}")
        proc.send("go mate 10000")
        assert _read_until(proc, "checkmate")[-1] == "checkmate 9c9b+"
        proc.send("go mate infinite")  # quit while it thinks
        proc.send("quit")
        assert proc.proc.wait(timeout=60) == 0
    finally:
        proc.close()


#: tiny problems with different answers, for the stress test
STRESS = [
    (ONE, "checkmate 9c9b+"),
    ("8k/9/7KP/9/9/9/9/9/9 b 2r2b4g4s4n4l17p 1", "checkmate 1c1b+"),  # ONE mirrored
    ("4k4/9/4K4/9/9/9/9/9/9 b G2r2b3g4s4n4l18p 1", "checkmate G*5b"),
    (NOMATE, "checkmate nomate"),
    ("4k4/9/4K4/9/9/9/9/9/9 b S2r2b4g3s4n4l18p 1", "checkmate S*5b"),
]


def test_500_back_to_back_problems_each_answered_for_its_own_position() -> None:
    # As a GUI's tsume analysis (or cshogi's usi.Engine) does: position and go mate, read
    # up to the checkmate line, at once the next pair. Every 50th problem is rejected: its
    # go mate must not be answered for the problem before it.
    proc = LineProcess(BANMEN_USI)
    try:
        proc.send("usi")
        _read_until(proc, "usiok")
        proc.send("isready")
        _read_until(proc, "readyok")
        for i in range(500):
            if i % 50 == 49:
                proc.send("position sfen 9/9/9 b - 1")
                expected = "checkmate timeout"
            else:
                sfen, expected = STRESS[i % len(STRESS)]
                proc.send(f"position sfen {sfen}")
            proc.send("go mate 60000")
            lines = _read_until(proc, "checkmate")
            assert lines[-1] == expected, (i, lines)
            assert not [ln for ln in lines if "a search is running" in ln]
        proc.send("quit")
        assert proc.proc.wait(timeout=60) == 0
        assert proc.next_line(time.monotonic() + 60) is None  # nothing after the last answer
    finally:
        proc.close()


def test_banmen_usi_has_no_traceback_on_garbage() -> None:
    garbage = "\n".join(
        ["position sfen \u00b2/9/9/9/9/9/9/9/9 b - 1", "position sfen " + "9/" * 500,
         "position sfen 4G4/9/9/9/9/9/9/9/9 b - 1", "position sfen 4k4/4K4/9/9/9/9/9/9/9 b - 1",
         "setoption name USI_Hash value 99999999999999999999", "go mate 99999999999999999999",
         "stop", "\x00\x01", "quit"]
    )  # fmt: skip
    proc = subprocess.run(
        BANMEN_USI, input=garbage.encode() + b"\n\xff\xfe\n", capture_output=True, timeout=60
    )
    assert proc.returncode == 0
    assert b"Traceback" not in proc.stdout + proc.stderr, proc.stderr.decode(errors="replace")
    for line in proc.stdout.decode().splitlines():
        assert line.startswith(("info ", "checkmate ")), line


def test_parse_sfen_is_what_position_uses() -> None:
    # the session keeps SFENs cshogi wrote: they read back to the same position
    s, out = new_session(Fake(unknown("timeout")))
    say(s, out, f"position sfen {THREE} moves 7e7b+ G*8f")
    assert parse_sfen(s.sfen).sfen() == s.sfen

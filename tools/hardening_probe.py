"""Issue 32's probes, before and after: does each bad number, file or command get one line
and change nothing? (And issue 36's: does an edited run database, resumed, start
nothing?) Runs against the tree on ``PYTHONPATH`` (its ``banmen`` commands and a
``banmen serve`` it starts), so alternate the trees:

    for t in OLD NEW; do PYTHONPATH=$t/src python tools/hardening_probe.py; done
    for t in OLD NEW; do PYTHONPATH=$t/src python tools/hardening_probe.py --web-only; done
    for t in OLD NEW; do PYTHONPATH=$t/src python tools/hardening_probe.py --engines-only; done

(``--engines``/``--web`` add issue 36's hostile engines / web and start-up probes to the
rest; ``--all`` both.)

Each probe prints one JSON line: its name, ``held`` (the answer was one line or one
message, in time, and no traceback reached the user or the log; for a flood: another
client's ``GET /`` p95 within max(10 x idle, idle + 0.1 s)), and what came back,
shortened. The web flood and slowloris figures are tools/web_flood_probe.py's.

``--web`` (or ``--all``) adds, and ``--web-only`` runs alone, issue 36's web and start-up
probes (items 7-10): Go loads from one socket (the 47 KB record of tests/data/go, and
loads beyond the new-game rate), ``banmen serve --host`` on this machine's own
non-loopback address (what it says, what another machine gets from /api/arena),
``banmen serve --db`` on files it cannot use, and game packages that hang or exit at
import (``banmen players``, ``banmen serve``).
"""

from __future__ import annotations

import json
import os
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

BIG = "1" + "0" * 400
SH = "3sks3/9/4+P4/9/9/9/9/9/9 b 2G2r2b2g2s4n4l17p 1"
TSUME = "4k4/9/4P4/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1"
BANMEN = [sys.executable, "-m", "banmen"]


def _short(text: str, n: int = 160) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1] + "…"


def _report(name: str, held: bool, what: str, **more: Any) -> None:
    print(json.dumps({"probe": name, "held": held, "what": _short(what), **more}), flush=True)


def cli(name: str, args: list[str], timeout: float = 60) -> None:
    """A command that must fail as a usage error: exit 2, one ``error:`` line."""
    t = time.monotonic()
    try:
        p = subprocess.run([*BANMEN, *args], capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        _report(name, False, f"still running after {timeout:g} s")
        return
    lines = [ln for ln in (p.stdout + p.stderr).splitlines() if ln.strip()]
    held = p.returncode == 2 and len(lines) == 1 and lines[0].startswith("error:")
    _report(name, held, " | ".join(lines[:3]), exit=p.returncode,
            seconds=round(time.monotonic() - t, 2))  # fmt: skip


def go_time(where: Path) -> None:
    """``analyse go`` at 0.1 s and 1 s: the reported seconds against the allowance
    (limit + max(5 %, 50 ms))."""
    sgf = where / "ok19.sgf"
    sgf.write_text("(;GM[1]SZ[19];B[pd];W[dp])")
    for limit in (0.1, 1.0):
        got = []
        for _ in range(3):
            p = subprocess.run([*BANMEN, "analyse", "go", str(sgf), "--time", str(limit),
                                "--json"], capture_output=True, text=True, timeout=120)  # fmt: skip
            got.append(json.loads(p.stdout)["seconds"] if p.returncode == 0 else None)
        ok = all(s is not None and s <= limit + max(0.05 * limit, 0.05) for s in got)
        _report(f"analyse go --time {limit:g}", ok, f"reported seconds {got}")


def gtp(where: Path) -> None:
    """GTP commands with wrong argument counts, bad files and a handicap beyond the rules."""
    fifo = where / "fifo"
    os.mkfifo(fifo)
    ha = where / "ha100.sgf"
    ha.write_text("(;GM[1]SZ[9]HA[100];B[ee])")
    probes = [
        ("gtp undo undo", "undo undo"),
        ("gtp boardsize 9 9", "boardsize 9 9"),
        ("gtp known_command (no argument)", "known_command"),
        ("gtp komi 400 digits", f"komi {BIG}"),
        ("gtp loadsgf /dev/zero", "loadsgf /dev/zero"),
        ("gtp loadsgf FIFO", f"loadsgf {fifo}"),
        ("gtp loadsgf HA[100] on 9x9", f"loadsgf {ha}"),
    ]
    for name, command in probes:
        script = f"boardsize 9\nplay b C3\n{command}\nprintsgf\nquit\n"
        try:
            command_line = [*BANMEN, "gtp", "--engine", "random:seed=1", "--size", "9"]
            p = subprocess.run(command_line, input=script, capture_output=True, text=True,
                               timeout=20)  # fmt: skip
        except subprocess.TimeoutExpired:
            _report(name, False, "no answer in 20 s")
            continue
        answers = [a for a in p.stdout.split("\n\n") if a.strip()]
        third = answers[2] if len(answers) > 2 else "(none)"
        kept = len(answers) > 3 and "B[cg]" in answers[3] and "SZ[9]" in answers[3]
        _report(name, third.startswith("?") and kept and "Traceback" not in p.stderr,
                f"{third} | game kept: {kept}")  # fmt: skip


def web(where: Path) -> None:
    """Web messages with numbers no float holds, an SGF handicap beyond the rules, and
    sockets with a foreign Host: one error message each, nothing in the log but warnings."""
    import httpx  # noqa: F401  (banmen.web.launch needs it)
    from websockets.sync.client import connect

    from banmen.web.launch import free_port, stop, wait_ready

    port = free_port()
    log = where / "serve.log"
    env = {**os.environ, "BANMEN_DATA": str(where)}
    with log.open("wb") as out:
        proc = subprocess.Popen([*BANMEN, "serve", "--port", str(port), "--workers", "1",
                                 "--db", str(where / "games.db")],
                                stdout=out, stderr=subprocess.STDOUT, env=env)  # fmt: skip
    try:
        wait_ready(f"http://127.0.0.1:{port}", proc, log, 300)
        url = f"ws://127.0.0.1:{port}"
        probes = [
            ("web go new komi 400 digits", "/ws/go", '{"type": "new", "komi": ' + BIG + "}"),
            ("web tsume time 400 digits", "/ws/tsume",
             json.dumps({"type": "solve", "sfen": TSUME})[:-1] + ', "time": ' + BIG + "}"),
            ("web go load HA[100]", "/ws/go",
             json.dumps({"type": "load", "text": "(;GM[1]SZ[9]HA[100];B[ee])"})),
        ]  # fmt: skip
        for name, path, text in probes:
            try:
                with connect(url + path, open_timeout=10) as ws:
                    if path != "/ws/tsume":  # a game socket joins a game first
                        ws.send('{"type": "join"}')
                        while json.loads(ws.recv(timeout=10)).get("type") != "state":
                            pass
                    ws.send(text)
                    reply = {"type": ""}
                    while reply.get("type") not in ("error", "state", "started"):
                        reply = json.loads(ws.recv(timeout=10))
                    held = reply.get("type") == "error"
                    _report(name, held, json.dumps(reply)[:200])
            except Exception as e:  # a dropped connection is the finding
                _report(name, False, f"{type(e).__name__}: {e}")
        before = log.read_text(errors="replace").count("ERROR")
        for _ in range(20):
            try:
                with connect(url + "/ws/go", open_timeout=5,
                             additional_headers={"Host": "evil.example"}):  # fmt: skip
                    pass
            except Exception:
                pass
        time.sleep(0.5)
        text = log.read_text(errors="replace")
        errors = text.count("ERROR") - before
        _report("web 20 foreign-Host sockets", errors == 0,
                f"{errors} ERROR lines in the log", log_lines=len(text.splitlines()))  # fmt: skip
    finally:
        stop(proc)
    text = log.read_text(errors="replace")
    _report("web log has no traceback", "Traceback" not in text,
            "Traceback" if "Traceback" in text else "clean")  # fmt: skip


# --------------------------------------------------------------------------- issue 36

FAKE_UGI = Path(__file__).resolve().parents[1] / "tests" / "ugi_fake.py"

#: hostile Python players (``**_``: an older tree passes ``time=`` to them)
HOSTILE_PY = """
import os, time


class _Hostile:
    def __init__(self, **_):
        self.moves = 0

    def new_game(self):
        self.moves = 0

    def play(self, board):
        self.moves += 1
        if self.moves >= 2:
            self.misbehave()
        return board.move_name(board.legal_moves[0])


class OsExit(_Hostile):
    def misbehave(self):
        os._exit(3)


class SysExit(_Hostile):
    def misbehave(self):
        raise SystemExit(0)


class Interrupt(_Hostile):
    def misbehave(self):
        raise KeyboardInterrupt


class Sleeper(_Hostile):
    def misbehave(self):
        time.sleep(10**6)
"""

#: a GTP engine that answers the set-up and never ``genmove``
SILENT_GTP = """
import sys, time
for line in sys.stdin:
    ident, _, rest = line.strip().partition(" ")
    cmd = rest.split()[0] if rest else ""
    if cmd == "genmove":
        time.sleep(10**6)
    if cmd == "quit":
        break
    answer = {"protocol_version": "2", "name": "silent", "version": "1"}.get(cmd, "")
    print(f"={ident} {answer}\\n", flush=True)
"""

#: runs a command, prints its exit status, wall time and the peak RSS of the largest
#: process of its tree (what it and its descendants held at most, in KiB)
MEASURED = """
import resource, subprocess, sys, time
t = time.monotonic()
try:
    code = subprocess.run(sys.argv[2:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                          timeout=float(sys.argv[1])).returncode
except subprocess.TimeoutExpired:
    code = "timeout"
print(code, round(time.monotonic() - t, 2), resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
"""


def _tagged(tag: str) -> int:
    """How many processes hold ``tag`` in their command line."""
    n = 0
    for d in Path("/proc").iterdir():
        if d.name.isdigit() and d.name != str(os.getpid()):
            try:
                n += tag.encode() in (d / "cmdline").read_bytes()
            except OSError:
                pass
    return n


def _clean(tag: str) -> None:
    subprocess.run(["pkill", "-9", "-f", tag], capture_output=True)


def _forfeits(db: Path) -> list[tuple[str, float]]:
    """Each game's forfeit reason (or "") and its last move's time."""
    import sqlite3

    con = sqlite3.connect(db)
    try:
        rows = con.execute("SELECT extra, times FROM arena_games").fetchall()
    except sqlite3.Error:
        return []
    finally:
        con.close()
    out = []
    for extra, times in rows:
        f = json.loads(extra or "{}").get("forfeit") or {}
        t = json.loads(times or "[]")
        out.append((f.get("reason", ""), t[-1] if t else 0.0))
    return out


def arena_engine(name: str, where: Path, spec: str, says: str, bound: float,
                 game: str = "mattix", other: str = "alphabeta:depth=1",
                 tag: str = "", timeout: float = 150) -> None:  # fmt: skip
    """One arena run of two games against a hostile player: held if the run ended (exit
    0) with both games forfeited for ``says``, each forfeited move within ``bound``
    seconds, the peak memory of the run's largest process under 400 MB, and no process
    of ``tag`` left 5 s later."""
    db = where / f"{abs(hash(name))}.db"
    size = ["--size", "4"] if game == "mattix" else ["--size", "9"]
    cmd = [*BANMEN, "arena", "run", game, *size, "--games", "2", "--seed", "5", "--workers",
           "1", "--db", str(db), "-p", f"bad={spec}", "-p", f"other={other}"]  # fmt: skip
    out = subprocess.run([sys.executable, "-c", MEASURED, str(timeout), *cmd],
                         capture_output=True, text=True).stdout.split()  # fmt: skip
    code, seconds, peak_kib = out[0], float(out[1]), int(out[2])
    time.sleep(5)
    left = _tagged(tag) if tag else 0
    if tag:
        _clean(tag)
    games = _forfeits(db)
    reasons = sorted({r for r, _ in games})
    slowest = max((t for _, t in games), default=0.0)
    held = (code == "0" and len(games) == 2 and all(says in r for r, _ in games)
            and slowest <= bound and peak_kib < 400_000 and left == 0)  # fmt: skip
    _report(name, held, f"exit {code}; forfeits: {reasons}", seconds=seconds,
            forfeited_move_s=slowest, peak_mb=round(peak_kib / 1024), left=left)  # fmt: skip


def front_end(name: str, args: list[str], script: list[str], answer: str, tag: str,
              bound: float) -> None:  # fmt: skip
    """A protocol front end with a silent engine behind it: held if the move request is
    answered (a line starting with ``answer`` and saying error) within ``bound`` s, and
    no process of ``tag`` is left after the front end ends."""
    import queue
    import threading

    proc = subprocess.Popen([*BANMEN, *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True, bufsize=1)  # fmt: skip
    lines: queue.Queue[str] = queue.Queue()

    def read() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.put(line.strip())

    threading.Thread(target=read, daemon=True).start()
    assert proc.stdin is not None
    *setup, (ask, ready) = script
    for line in setup:
        proc.stdin.write(line + "\n")
    proc.stdin.flush()
    end = time.monotonic() + 120
    while time.monotonic() < end:  # the set-up answered
        try:
            if lines.get(timeout=1).startswith(ready):
                break
        except queue.Empty:
            pass
    t0 = time.monotonic()
    try:
        proc.stdin.write(ask + "\n")
        proc.stdin.flush()
    except OSError:  # it ended at once (an option it does not know, say)
        _report(name, False, f"the front end ended: exit {proc.wait()}", seconds=None)
        _clean(tag)
        return
    got, said = None, []
    while time.monotonic() - t0 < bound + 30:
        try:
            line = lines.get(timeout=0.5)
        except queue.Empty:
            continue
        said.append(line)
        if line.startswith(answer):
            got = time.monotonic() - t0
            break
    try:
        proc.stdin.close()
        proc.wait(20)
    except (OSError, subprocess.TimeoutExpired):
        proc.kill()
    time.sleep(3)
    left = _tagged(tag)
    _clean(tag)
    held = got is not None and got <= bound and left == 0 and "error" in " ".join(said)
    _report(name, held, " | ".join(said[-3:]) or f"no answer in {bound + 30:g} s",
            seconds=None if got is None else round(got, 2), left=left)  # fmt: skip


def killed_arena(name: str, where: Path, how: str) -> None:
    """An arena killed (``kill -9``) or interrupted (SIGINT to its group, as a terminal's
    Ctrl-C) while a UGI engine computes in a 600 s move: held if no engine process is
    left 5 s later."""
    import signal

    tag = str(where / f"busy-{how.replace(' ', '').replace('-', '')}")
    cmd = [*BANMEN, "arena", "run", "mattix", "--size", "4", "--games", "2", "--workers", "1",
           "--db", str(where / f"busy-{how}.db"), "-p",
           f"bad=ugi:time=600 {sys.executable} {FAKE_UGI} mattix busy {tag}",
           "-p", "d1=alphabeta:depth=1"]  # fmt: skip
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)  # fmt: skip
    end = time.monotonic() + 120
    while not Path(f"{tag}.busy").exists() and time.monotonic() < end and proc.poll() is None:
        time.sleep(0.1)
    if how == "kill -9":
        proc.kill()
    else:
        os.killpg(proc.pid, signal.SIGINT)
    try:
        proc.wait(30)
    except subprocess.TimeoutExpired:
        proc.kill()
    time.sleep(5)
    left = _tagged(tag)
    _clean(tag)
    _report(name, left == 0, f"{left} engine processes left 5 s after", left=left)


def engines(where: Path) -> None:
    """Issue 36's hostile engines (items 2-6)."""
    players = where / "hostile_players.py"
    players.write_text(HOSTILE_PY)
    silent = where / "silent_gtp.py"
    silent.write_text(SILENT_GTP)

    def ugi(mode: str, tag: str) -> str:
        return f"ugi:time=0.5 {sys.executable} {FAKE_UGI} mattix {mode} {where / tag}"

    arena_engine("arena ugi endless line", where, ugi("longline", "t1"), "line", 5.5,
                 tag=str(where / "t1"))  # fmt: skip
    arena_engine("arena ugi endless info", where, ugi("chatter", "t2"), "bestmove", 5.5,
                 tag=str(where / "t2"))  # fmt: skip
    arena_engine("arena ugi fork and exit", where, ugi("forkexit", "t3"), "exited", 5.5,
                 tag=str(where / "t3"))  # fmt: skip
    arena_engine("arena gtp:time=1 silent genmove", where,
                 f"gtp:time=1 {sys.executable} {silent} {where / 't4'}", "genmove", 6.0,
                 game="go", other="random", tag=str(where / "t4"))  # fmt: skip
    for cls, says in (("OsExit", "exit"), ("SysExit", "SystemExit"),
                      ("Interrupt", "KeyboardInterrupt"), ("Sleeper", "no move")):  # fmt: skip
        arena_engine(f"arena python {cls}", where, f"python:{players}:{cls},time=0.5", says,
                     5.5, tag=str(players))  # fmt: skip
    arena_engine("arena ugi forker: children left", where, ugi("forker", "t5"), "", 5.5,
                 tag=str(where / "t5"))  # fmt: skip
    for how in ("kill -9", "Ctrl-C"):
        killed_arena(f"arena {how} during a busy engine's move", where, how)
    front_end("gtp --engine gtp:silent --max-move-time 1",
              ["gtp", "--engine", f"gtp:{sys.executable} {silent} {where / 't6'}",
               "--max-move-time", "1"],
              ["1 boardsize 9", ("2 genmove b", "=1")], "?2", str(where / "t6"), 5.0)  # fmt: skip
    front_end("ugi --engine ugi:silent --max-move-time 1",
              ["ugi", "--game", "mattix", "--engine",
               f"ugi:{sys.executable} {FAKE_UGI} mattix silent {where / 't7'}",
               "--max-move-time", "1"],
              ["ugi", "isready", ("go movetime 100000", "readyok")], "bestmove",
              str(where / "t7"), 5.0)  # fmt: skip
    front_end("gtp --engine python:Sleeper --max-move-time 1",
              ["gtp", "--engine", f"python:{players}:Sleeper", "--max-move-time", "1"],
              ["1 boardsize 9", "2 genmove b", ("3 genmove w", "=2")], "?3", str(players),
              5.0)  # fmt: skip


def arena_resume(where: Path) -> None:
    """Issue 36: a run database is input, never code. A run made with ``banmen arena``, its
    configuration then edited in the SQLite file (a player that is a program, or Python
    code, that leaves a marker file), resumed by a script — no terminal, no ``--yes``:
    held if nothing was started (no marker, no game played) and the answer is one line."""
    db = where / "runs.db"
    env = {**os.environ, "BANMEN_CONFIG_DIR": str(where / "config")}  # never the user's key
    made = subprocess.run([*BANMEN, "arena", "mattix", "--size", "4", "-p", "a=alphabeta:depth=1",
                           "-p", "b=random", "--games", "2", "--db", str(db), "--name", "r",
                           "--workers", "1"], capture_output=True, text=True, env=env,
                          timeout=300)  # fmt: skip
    if made.returncode != 0:
        _report("arena --resume an edited run", False, f"could not make the run: {made.stderr}")
        return
    player = where / "edited_player.py"
    player.write_text(f"import pathlib\npathlib.Path({str(where / 'PY-MARKER')!r}).touch()\n"
                      "class P:\n    def play(self, board):\n        return 'a1'\n")  # fmt: skip
    edits = [("ugi:sh -c", f'ugi:sh -c "touch {where / "UGI-MARKER"}"', where / "UGI-MARKER"),
             ("python:", f"python:{player}:P", where / "PY-MARKER")]  # fmt: skip
    for what, spec, marker in edits:
        con = sqlite3.connect(db)
        try:
            config = json.loads(con.execute("SELECT config FROM arena_runs").fetchone()[0])
            config["players"][1]["spec"] = spec
            config["games"] += 2  # games left to play
            con.execute("UPDATE arena_runs SET config = ?", (json.dumps(config),))
            con.commit()
            before = con.execute("SELECT COUNT(*) FROM arena_games").fetchone()[0]
        finally:
            con.close()
        name = f"arena --resume a run edited to {what}, no terminal, no --yes"
        try:
            p = subprocess.run([*BANMEN, "arena", "--resume", "r", "--db", str(db), "--workers",
                                "1"], stdin=subprocess.DEVNULL, capture_output=True, text=True,
                               env=env, timeout=300)  # fmt: skip
        except subprocess.TimeoutExpired:
            _report(name, False, "still running after 300 s", started=marker.exists())
            continue
        con = sqlite3.connect(db)
        try:
            after = con.execute("SELECT COUNT(*) FROM arena_games").fetchone()[0]
        finally:
            con.close()
        lines = [ln for ln in (p.stdout + p.stderr).splitlines() if ln.strip()]
        started = marker.exists()
        held = (not started and after == before and len(lines) == 1
                and "Traceback" not in p.stderr)  # fmt: skip
        says_yes = any("--yes" in ln for ln in lines)
        _report(name, held, " | ".join(lines[:3]), exit=p.returncode, started=started,
                games_played=after - before, says_yes=says_yes)  # fmt: skip


# ------------------------------------------------- issue 36: the web and start-up

#: the 47 KB Go record (9,380 legal moves) the load probes send
LONG_SGF = Path(__file__).resolve().parents[1] / "tests" / "data" / "go" / "long-captures-47k.sgf"


def _first_moves(sgf: str, n: int) -> str:
    root, *moves = sgf[1:-1].split(";")[1:]  # "(;root;B[..];W[];...)"
    return "(;" + ";".join([root, *moves[:n]]) + ")"


class _Gets:
    """``GET /`` about every 20 ms on a thread of its own, timing each (seconds)."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.times: list[float] = []
        self.failed = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        import httpx

        with httpx.Client(base_url=self.base, timeout=120) as http:
            while not self._stop.is_set():
                t0 = time.perf_counter()
                try:
                    ok = http.get("/").status_code == 200
                except httpx.HTTPError:
                    ok = False
                if ok:
                    self.times.append(time.perf_counter() - t0)
                else:
                    self.failed += 1
                self._stop.wait(0.02)

    def __enter__(self) -> _Gets:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def ms(self, q: float) -> float | None:
        s = sorted(self.times)
        return round(1000 * s[min(len(s) - 1, int(q * len(s)))], 1) if s else None


def _serve(where: Path, *args: str) -> tuple[subprocess.Popen[bytes], Path]:
    log = where / f"serve-{time.monotonic_ns()}.log"
    env = {**os.environ, "BANMEN_DATA": str(where)}
    with log.open("wb") as out:
        proc = subprocess.Popen([*BANMEN, "serve", "--workers", "1", *args],
                                stdout=out, stderr=subprocess.STDOUT, env=env)  # fmt: skip
    return proc, log


def _flood(name: str, url: str, base: str, texts: list[str], expect: str) -> None:
    """One socket on /ws/go sends a load of each text at once (its players two humans);
    another client times GET / before (idle) and during. ``expect``: the start of the
    error each load must get ("" for any one-line error or a new game)."""
    from websockets.sync.client import connect

    with _Gets(base) as idle:
        time.sleep(2.0)
    replies: list[dict[str, Any]] = []
    with connect(url + "/ws/go", open_timeout=30, max_size=None) as ws:
        for msg in ('{"type": "join"}',
                    '{"type": "settings", "players": {"1": "human", "2": "human"}}'):  # fmt: skip
            ws.send(msg)  # (beyond the rate, a page's first game is refused: an error)
            while json.loads(ws.recv(timeout=60)).get("type") not in ("state", "error"):
                pass
        t0 = time.perf_counter()
        with _Gets(base) as busy:
            sender = threading.Thread(
                target=lambda: [ws.send(json.dumps({"type": "load", "text": t})) for t in texts]
            )
            sender.start()
            try:
                while sum(r.get("type") in ("error", "state") for r in replies) < len(texts):
                    replies.append(json.loads(ws.recv(timeout=600)))
            except TimeoutError:
                pass
            sender.join()
            took = time.perf_counter() - t0
            time.sleep(max(0.0, 1.0 - took))  # (a second at least: GETs to time)
    answers = [r for r in replies if r.get("type") in ("error", "state")]
    lines = [r.get("message", "") for r in answers if r["type"] == "error"]
    one_each = len(answers) == len(texts) and all("\n" not in m for m in lines)
    if expect:
        one_each = (
            one_each and len(lines) == len(texts) and all(m.startswith(expect) for m in lines)
        )
    quiet, p95 = idle.ms(0.95) or 0.0, busy.ms(0.95)
    bound = max(10 * quiet, quiet + 100)
    heads = [m[:60] for m in lines]
    kinds = {m: heads.count(m) for m in dict.fromkeys(heads)}
    said = " | ".join(f"{n} x {m}" for m, n in kinds.items()) or "-"
    states = len(answers) - len(lines)
    _report(name, one_each and p95 is not None and p95 <= bound and not busy.failed,
            f"{len(answers)} answers of {len(texts)}: {states} new games | {said}",
            idle_p95_ms=idle.ms(0.95), get_median_ms=busy.ms(0.5), get_p95_ms=busy.ms(0.95),
            get_max_ms=busy.ms(1.0), seconds=round(took, 2))  # fmt: skip


def web_loads(where: Path) -> None:
    """Item 7: Go loads from one socket, on a server whose address may start 4 saved games
    at once (the page's own first game and 3 loads): 8 loads of the 47 KB record (9,380
    moves), then, the rate spent, 20 loads of its first 2,000 moves."""
    import httpx  # noqa: F401  (banmen.web.launch needs it)

    from banmen.web.launch import free_port, stop, wait_ready

    port = free_port()
    rate = ["--limit", "new_game_burst=4", "--limit", "new_game_interval=600"]
    proc, log = _serve(where, "--port", str(port), "--db", str(where / "loads.db"), *rate)
    base, url = f"http://127.0.0.1:{port}", f"ws://127.0.0.1:{port}"
    try:
        wait_ready(base, proc, log, 300)
        sgf = LONG_SGF.read_text().strip()
        _flood("web go 8 loads of a 47 KB SGF", url, base, [sgf] * 8, "")
        _flood("web go 20 loads beyond the new-game rate", url, base,
               [_first_moves(sgf, 2000)] * 20, "too many new games")  # fmt: skip
    finally:
        stop(proc)
    text = log.read_text(errors="replace")
    _report("web go loads: log has no traceback", "Traceback" not in text,
            "Traceback" if "Traceback" in text else "clean")  # fmt: skip


def _own_address() -> str | None:
    try:
        out = subprocess.run(["hostname", "-I"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    for a in out.stdout.split():
        if "." in a and not a.startswith("127."):
            try:
                with socket.socket() as s:
                    s.bind((a, 0))
            except OSError:
                continue
            return a
    return None


def web_exposure(where: Path) -> None:
    """Item 8: ``banmen serve --host`` this machine's own non-loopback address: does it say
    what it exposes, and does a client from that address read the arena runs?"""
    import httpx

    from banmen.web.launch import free_port, stop, wait_ready

    own = _own_address()
    if own is None:
        _report("serve --host (not loopback)", False, "this machine has no such address")
        return
    port = free_port()
    proc, log = _serve(where, "--host", own, "--port", str(port), "--db", str(where / "x.db"))
    try:
        wait_ready(f"http://{own}:{port}", proc, log, 300)
        with httpx.Client(base_url=f"http://{own}:{port}", timeout=60) as http:
            runs = http.get("/api/arena/runs")
            page = http.get("/api/games")
    finally:
        stop(proc)
    said = [ln for ln in log.read_text(errors="replace").splitlines() if "beyond" in ln]
    _report(f"serve --host {own}: says what it exposes", len(said) == 1,
            said[0] if said else "nothing said")  # fmt: skip
    _report(f"serve --host {own}: /api/arena/runs from {own}", runs.status_code == 403,
            f"{runs.status_code} {runs.text[:120]} | /api/games {page.status_code}")  # fmt: skip


def startup(name: str, args: list[str], timeout: float = 120, env: Any = None) -> None:
    """A command that must stop at once with one ``error:`` line (any non-zero exit)."""
    t = time.monotonic()
    try:
        p = subprocess.run([*BANMEN, *args], capture_output=True, text=True, timeout=timeout,
                           env=env)  # fmt: skip
    except subprocess.TimeoutExpired:
        _report(name, False, f"still running after {timeout:g} s")
        return
    lines = [ln for ln in (p.stdout + p.stderr).splitlines() if ln.strip()]
    held = p.returncode != 0 and len(lines) == 1 and lines[0].startswith("error:")
    _report(name, held, " | ".join(lines[-3:]), exit=p.returncode, lines=len(lines),
            seconds=round(time.monotonic() - t, 2))  # fmt: skip


def serve_bad_db(where: Path) -> None:
    """Item 9: ``banmen serve --db`` on a text file, a truncated SQLite file, a directory."""
    from banmen.web.launch import free_port

    text = where / "notes.db"
    text.write_text("not a database\n")
    whole = where / "whole.db"
    with sqlite3.connect(whole) as c:
        c.execute("CREATE TABLE t (x)")
        c.executemany("INSERT INTO t VALUES (?)", [(str(i) * 20,) for i in range(4000)])
    cut = where / "truncated.db"
    cut.write_bytes(whole.read_bytes()[:20000])
    folder = where / "folder.db"
    folder.mkdir()
    for what, db in (("a text file", text), ("a truncated SQLite file", cut),
                     ("a directory", folder)):  # fmt: skip
        port = str(free_port())
        startup(f"serve --db {what}", ["serve", "--db", str(db), "--port", port])


_HANGS = "import time\ntime.sleep(3600)\n"
_EXITS = "import sys\nsys.exit(0)\n"


def game_packages(where: Path) -> None:
    """Item 10: beside the built-in games, a game package that hangs at import; then one
    that calls sys.exit(0) there too: ``banmen players`` and ``banmen serve``."""
    for names in (("hangs",), ("hangs", "exits")):
        _packages_probe(where / "-".join(names), names)


def _packages_probe(where: Path, names: tuple[str, ...]) -> None:
    from banmen.web.launch import free_port, stop, wait_ready

    pkgs = where / "packages"
    pkgs.mkdir(parents=True)
    for name in names:
        (pkgs / f"{name}_game.py").write_text(_HANGS if name == "hangs" else _EXITS)
        info = pkgs / f"banmen_{name}-1.0.dist-info"
        info.mkdir()
        meta = f"Metadata-Version: 2.1\nName: banmen-{name}\nVersion: 1.0\n"
        (info / "METADATA").write_text(meta)
        (info / "entry_points.txt").write_text(f"[banmen.games]\n{name} = {name}_game:GAME\n")
    path = os.pathsep.join([str(pkgs), os.environ.get("PYTHONPATH", "")])
    env = {**os.environ, "PYTHONPATH": path}
    env.pop("BANMEN_HUNG_GAMES", None)
    which = "a package that hangs" if len(names) == 1 else "packages that hang / exit"
    t = time.monotonic()
    try:
        p = subprocess.run([*BANMEN, "players"], capture_output=True, text=True, timeout=60,
                           env=env)  # fmt: skip
        notes = [ln for ln in p.stderr.splitlines() if ln.strip()]
        held = p.returncode == 0 and "Go (go):" in p.stdout and len(notes) == len(names)
        what = f"exit {p.returncode}, {len(p.stdout.splitlines())} lines | " + " | ".join(notes)
    except subprocess.TimeoutExpired:
        held, what = False, "still running after 60 s, nothing printed"
    _report(f"players with {which} at import", held, what,
            seconds=round(time.monotonic() - t, 2))  # fmt: skip
    port = free_port()
    log = where / "serve-packages.log"
    with log.open("wb") as out:
        proc = subprocess.Popen([*BANMEN, "serve", "--workers", "1", "--port", str(port),
                                 "--db", str(where / "p.db")], stdout=out,
                                stderr=subprocess.STDOUT, env=env)  # fmt: skip
    t = time.monotonic()
    try:
        wait_ready(f"http://127.0.0.1:{port}", proc, log, 120)
        import httpx

        games = [g["name"] for g in httpx.get(f"http://127.0.0.1:{port}/api/games").json()]
        notes = [ln for ln in log.read_text(errors="replace").splitlines() if "left out" in ln]
        held = "go" in games and len(notes) == len(names)
        what = f"serves {games} | " + " | ".join(notes)
    except RuntimeError as e:
        held, what = False, " ".join(str(e).split()) or "nothing printed"
    finally:
        stop(proc)
    _report(f"serve with {which} at import", held, what,
            seconds=round(time.monotonic() - t, 2))  # fmt: skip


def issue36(where: Path) -> None:
    web_loads(where)
    web_exposure(where)
    serve_bad_db(where)
    game_packages(where)


def main() -> None:
    import banmen

    print(json.dumps({"tree": str(Path(banmen.__file__).parents[1]),
                      "load": os.getloadavg()}), flush=True)  # fmt: skip
    if "--web-only" in sys.argv:
        with tempfile.TemporaryDirectory() as d:
            issue36(Path(d))
        return
    if "--engines-only" in sys.argv:
        with tempfile.TemporaryDirectory() as d:
            engines(Path(d))
        return
    cli("analyse shogi --depth 20 digits", ["analyse", "shogi", SH, "--depth", "9" * 20])
    cli("solve shogi --nodes 2**63", ["solve", "shogi", SH, "--nodes", str(2**63)])
    cli("solve shogi --hash 65536", ["solve", "shogi", SH, "--hash", "65536"])
    cli("analyse shogi --time 1e400", ["analyse", "shogi", SH, "--time", "1e400"])
    with tempfile.TemporaryDirectory() as d:
        where = Path(d)
        (where / "ok9.sgf").write_text("(;GM[1]SZ[9];B[ee])")
        cli("analyse go --time 1e308 --depth 3",
            ["analyse", "go", str(where / "ok9.sgf"), "--time", "1e308", "--depth", "3"],
            timeout=30)  # fmt: skip
        go_time(where)
        gtp(where)
        web(where)
        if "--engines" in sys.argv or "--all" in sys.argv:
            engines(where)
        if "--web" in sys.argv or "--all" in sys.argv:
            issue36(where)
    with tempfile.TemporaryDirectory() as d:
        arena_resume(Path(d))


if __name__ == "__main__":
    main()

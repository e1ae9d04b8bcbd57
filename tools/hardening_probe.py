"""Issue 32's probes, before and after: does each bad number, file or command get one line
and change nothing? (And issue 36's: does an edited run database, resumed, start
nothing?) Runs against the tree on ``PYTHONPATH`` (its ``banmen`` commands and a
``banmen serve`` it starts), so alternate the trees:

    for t in OLD NEW; do PYTHONPATH=$t/src python tools/hardening_probe.py; done

Each probe prints one JSON line: its name, ``held`` (the answer was one line or one
message, in time, and no traceback reached the user or the log), and what came back,
shortened. The web flood and slowloris figures are tools/web_flood_probe.py's.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import tempfile
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


def main() -> None:
    import banmen

    print(json.dumps({"tree": str(Path(banmen.__file__).parents[1]),
                      "load": os.getloadavg()}), flush=True)  # fmt: skip
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
    with tempfile.TemporaryDirectory() as d:
        arena_resume(Path(d))


if __name__ == "__main__":
    main()

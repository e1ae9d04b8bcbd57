"""Compiled code loaded before any clock starts (banmen.warm, banmen.warmup, banmen._jit).

Most of these run a toy kernel set (tests/warm_toy.py) in fresh processes with their own
``NUMBA_CACHE_DIR``, so "cold" means cold: the notice once, the stamp, the lock shared by
processes, numba's cache written under a lock. The last ones check the games' own sets:
after a warm-up, nothing a front end does compiles anything.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import paths
import pytest

from banmen.warm import KernelSet, read_stamp

TESTS = paths.TESTS


def _env(cache: Path, **extra: str) -> dict[str, str]:
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache), **extra}
    env["PYTHONPATH"] = os.pathsep.join([str(TESTS), env.get("PYTHONPATH", "")])
    env.pop("BANMEN_DEBUG", None)
    return env


def _toy(cache: Path, **extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(TESTS / "warm_toy.py")], env=_env(cache, **extra),
                          capture_output=True, text=True, timeout=300)  # fmt: skip


def test_a_cold_set_says_so_once_and_the_next_process_loads_it(tmp_path: Path) -> None:
    log = tmp_path / "log"
    first = _toy(tmp_path, TOY_LOG=str(log))
    assert first.returncode == 0, first.stderr
    assert first.stdout.strip() == "cold"
    assert first.stderr.splitlines() == ["banmen: compiling the toy kernel, first run only…"]
    stamp = json.loads((tmp_path / "banmen-warm" / "toy.twice.json").read_text())
    assert stamp["set"] == "toy.twice" and stamp["seconds"] > 0
    assert stamp["versions"]["numba"] and isinstance(stamp["files"], list)
    second = _toy(tmp_path, TOY_LOG=str(log))
    assert second.stdout.strip() == "warm" and second.stderr == ""
    compiled = [int(line.split()[1]) for line in log.read_text().splitlines()]
    assert compiled[0] >= 1 and compiled[1] == 0  # the second process loaded the cache


def test_a_stamp_goes_stale_with_a_file_it_names(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    ks = KernelSet("toy", "stale", "a toy", "warm_toy:load")
    source = tmp_path / "kernel.py"
    source.write_text("x = 1\n")
    from banmen.warm import _entry, _versions

    stamp = {"set": ks.id, "seconds": 1.0, "versions": _versions(),
             "files": [_entry(str(source))]}  # fmt: skip
    (tmp_path / "banmen-warm").mkdir()
    (tmp_path / "banmen-warm" / "toy.stale.json").write_text(json.dumps(stamp))
    assert read_stamp(ks) is not None
    source.write_text("x = 22\n")  # another size: numba would recompile, the stamp is stale
    assert read_stamp(ks) is None
    source.write_text("x = 2\n")  # the same size, another content: stale too
    assert read_stamp(ks) is None
    source.write_text("x = 1\n")  # the content it names, written again (a later time): warm,
    os.utime(source, ns=(1, 10**18))  # as numba, whose stamps are digests, would load it
    assert read_stamp(ks) is not None
    (tmp_path / "banmen-warm" / "toy.stale.json").write_text(
        json.dumps({**stamp, "versions": {"numba": "0.0", "python": "0"}})
    )
    assert read_stamp(ks) is None  # another numba: its cache is another's


def test_processes_meeting_one_cold_set_compile_it_once(tmp_path: Path) -> None:
    log = tmp_path / "log"
    procs = [
        subprocess.Popen(
            [sys.executable, str(TESTS / "warm_toy.py")],
            env=_env(tmp_path, TOY_LOG=str(log)),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )  # fmt: skip
        for _ in range(3)
    ]
    outs = [p.communicate(timeout=300) for p in procs]
    assert all(p.returncode == 0 for p in procs), outs
    compiled = sorted(int(line.split()[1]) for line in log.read_text().splitlines())
    assert len(compiled) == 3 and compiled[:2] == [0, 0] and compiled[2] >= 1
    assert sum(out.strip() == "cold" for out, _ in outs) == 1


@pytest.mark.cold
def test_specialisations_compiled_at_once_in_several_processes_all_stay_cached(
    tmp_path: Path,
) -> None:
    """numba's cache index is read, extended and written back by every process that
    compiles a specialisation; without banmen._jit's lock, processes compiling different
    ones at once lose entries (or swap their code). Four types in four processes, three
    rounds: afterwards a fresh process loads all four without compiling."""
    types = ["int64", "float64", "int32", "float32"]
    for rnd in range(3):
        cache = tmp_path / f"round{rnd}"
        code = "import warm_toy; warm_toy.load()"
        procs = [
            subprocess.Popen([sys.executable, "-c", code], env=_env(cache, TOY_TYPE=t))
            for t in types
        ]
        assert all(p.wait(timeout=300) == 0 for p in procs)
        log = cache / "log"
        check = (
            "import os, warm_toy\n"
            f"for t in {types!r}:\n"
            "    os.environ['TOY_TYPE'] = t\n"
            "    warm_toy.load()\n"
        )
        subprocess.run([sys.executable, "-c", check], env=_env(cache, TOY_LOG=str(log)),
                       check=True, timeout=300)  # fmt: skip
        compiled = [int(line.split()[1]) for line in log.read_text().splitlines()]
        assert compiled == [0, 0, 0, 0], f"round {rnd}: recompiled {compiled}"


@pytest.mark.cold
def test_warm_up_command_compiles_then_skips(tmp_path: Path) -> None:
    cmd = [sys.executable, "-m", "banmen", "warm-up", "mattix"]
    first = subprocess.run([*cmd, "--json"], env=_env(tmp_path), capture_output=True,
                           text=True, timeout=600)  # fmt: skip
    assert first.returncode == 0, first.stderr
    rec = json.loads(first.stdout)
    assert rec["ok"] and [s["set"] for s in rec["sets"]] == ["mattix.search"]
    assert rec["sets"][0]["outcome"] == "compiled" and rec["sets"][0]["seconds"] > 0
    again = subprocess.run(cmd, env=_env(tmp_path), capture_output=True, text=True, timeout=600)
    assert again.returncode == 0
    assert "all 1 kernel sets are compiled already" in again.stderr
    bad = subprocess.run([*cmd[:-1], "chess"], env=_env(tmp_path), capture_output=True,
                         text=True, timeout=600)  # fmt: skip
    assert bad.returncode == 2 and bad.stderr.startswith("error: unknown game 'chess'")


def test_warm_up_plans_games_apart_longest_first() -> None:
    from banmen.warmup import kernel_sets, plan

    sets = kernel_sets()
    groups = plan(sets)
    assert all(len({k.game for k in g}) == 1 for g in groups)
    assert sorted(k.id for g in groups for k in g) == sorted(k.id for k in sets)
    toys = [KernelSet("a", "x", "", "m:f", estimate=5), KernelSet("b", "y", "", "m:f", estimate=30),
            KernelSet("a", "z", "", "m:f", estimate=30)]  # fmt: skip
    assert [[k.name for k in g] for g in plan(toys)] == [["x", "z"], ["y"]]
    every = {k.id for k in kernel_sets(everything=True)}
    assert {"othello.handset", "othello.wld", "go.threads"} <= every - {k.id for k in sets}


def test_a_warm_up_process_finds_every_set_the_parent_asks_for() -> None:
    """The processes of ``banmen warm-up --all`` look each set up by its id, an
    evaluator's too (they are not among the game's own sets)."""
    import queue

    from banmen.warmup import _child, kernel_sets

    own = {k.id for k in kernel_sets(["mattix"])}
    theirs = sorted(k.id for k in kernel_sets(["mattix"], everything=True) if k.id not in own)
    assert "mattix.default-search" in theirs
    tasks: queue.Queue[object] = queue.Queue()
    events: queue.Queue[tuple[object, ...]] = queue.Queue()
    tasks.put(["mattix.default-search", "mattix.nothing-such"])
    tasks.put(None)
    _child(tasks, events)
    seen = [events.get_nowait() for _ in range(events.qsize())]
    done = [e[1] for e in seen if e[0] == "done"]
    failed = [(e[1], e[5]) for e in seen if e[0] == "failed"]
    assert done == ["mattix.default-search"], seen
    assert failed == [("mattix.nothing-such", "no such kernel set here")], seen


#: After the sets are loaded, what each game's front ends run; nothing may compile.
_FRONT_ENDS = """
import json, sys
from numba.core import event
from banmen.games.registry import get_game, make_engine
from banmen.search.limits import Limit
from banmen.warm import ensure

names = sys.argv[1:]
for name in names:
    for ks in get_game(name).kernel_sets:
        ensure(ks)
with event.install_recorder("numba:compile") as rec:
    for name in names:
        game = get_game(name)
        board = game.sample() if game.sample else game.new_board(1, None)
        for spec in [game.default_engine, "random"]:
            lim = Limit(nodes=200) if spec in ("mcts", "mate") else Limit(depth=2)
            make_engine(game, spec).think(board, lim)
        if game.analyse is not None:
            game.analyse(board, Limit(nodes=200, depth=2), None, None)
        if game.kernel_moves is not None:
            game.kernel_moves(board)
        for fmt in game.text_formats.values():
            fmt.read(fmt.write(board))
        if game.kernels is not None:  # df-pn over the alpha-beta kernels
            make_engine(game, "dfpn").think(board, Limit(nodes=300))
        if game.kernels is not None:  # MCTS and PUCT over the alpha-beta kernels
            from banmen.games.mcts_engines import TreeEngine
            for puct, threads in ((False, 1), (True, 1), (False, 2)):
                tree = TreeEngine(game, Limit(nodes=300), seed=2, puct=puct, threads=threads)
                b = game.new_board(3, None) if game.new_board else game.sample()
                for _ in range(3):
                    b.push_name(tree.think(b).move)
    if "go" in names:
        from banmen.games.go import Board, GoEngine, estimate_dead
        b = Board(19)
        for v in ("D4", "Q16", "D16", "Q4"):
            b.push(b.parse_move(v))
        estimate_dead(b, playouts=16)
        GoEngine(threads=2).think(b, Limit(nodes=100))
        GoEngine(learned=0).think(b, Limit(nodes=100))
        GoEngine(puct=True).think(b, Limit(nodes=100))
    if "othello" in names:
        from banmen.games.othello import OthelloEngine, Board as OB
        from banmen.games.othello.evaluators import handset

        OthelloEngine(Limit(depth=3), evaluator=handset()).think(OB(), Limit(depth=3))
        from banmen.games.othello.wld import prove_wld
        b = OB()
        while b.empties() > 12:
            b.push(b.legal_moves[-1])
        make_engine("othello", "perfect").think(b)
        prove_wld(b, hash_mb=1)
    if "mattix" in names:
        from banmen.games.mattix import Board as MB
        make_engine("mattix", "perfect").think(MB.from_seed(5, 4))
    if "shogi" in names:
        from banmen.games.shogi import Board as SB
        make_engine("shogi", "mate").think(SB("3sks3/9/4+P4/9/9/9/9/9/9 b 2G2r2b2g2s4n4l17p 1"))
names = sorted({e.data["dispatcher"].py_func.__qualname__ for _, e in rec.buffer})
print(json.dumps(names))
"""


@pytest.mark.parametrize("game", ["mattix", "othello", "go", "shogi"])
def test_nothing_compiles_once_the_sets_are_loaded(game: str) -> None:
    """Every set of the game loaded (``banmen warm-up --all``, in numba's usual cache),
    the front ends' work — each engine thinking, the analysis, the compiled rules, the
    formats, the options with sets of their own — compiles nothing: the sets cover what
    front ends run, and everything loads from the cache."""
    from banmen.games.registry import get_game
    from banmen.warm import ensure

    for ks in get_game(game).kernel_sets:
        ensure(ks)  # (in this process: the cache is written, if it was cold)
    env = {k: v for k, v in os.environ.items() if k != "BANMEN_DEBUG"}
    out = subprocess.run([sys.executable, "-c", _FRONT_ENDS, game], env=env,
                         capture_output=True, text=True, timeout=900)  # fmt: skip
    assert out.returncode == 0, out.stderr[-2000:]
    assert json.loads(out.stdout.splitlines()[-1]) == []
    assert "compiling" not in out.stderr


@pytest.mark.cold
def test_pool_workers_take_jobs_once_warm_and_say_how_far(
    tmp_path: Path, monkeypatch: Any, capfd: Any
) -> None:
    """From a cold cache (the workers inherit ``NUMBA_CACHE_DIR``), a job submitted at
    once waits in line while the worker compiles, the pool says what it compiles, the
    notice reaches stderr once, and the job then runs."""
    import asyncio

    from banmen.games.mattix import Board
    from banmen.worker import EnginePool

    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))

    async def run() -> tuple[list[int], list[dict[str, Any] | None], Any]:
        pool = EnginePool(1, warm=("mattix",))
        seen: list[dict[str, Any] | None] = []
        pool.on_status = lambda: seen.append(pool.warm_status())
        await pool.start()
        places: list[int] = []
        board = Board.from_seed(3, 4)
        job = pool.submit("mattix", board.to_dict(), "alphabeta:depth=2",
                          on_queue=places.append)  # fmt: skip
        status = pool.warm_status()
        result = await job
        await pool.close()
        return places, [status, *seen], result

    t0 = time.monotonic()
    places, statuses, result = asyncio.run(run())
    assert places[0] == 1 and places[-1] == 0  # waited in line, then started
    first = statuses[0]
    assert first is not None and first["workers_ready"] == 0
    compiling = [s for s in statuses if s and s["compiling"]]
    assert compiling and compiling[0]["compiling"] == ["the Mattix search"]
    assert compiling[0]["cold"] and statuses[-1] is None
    assert result.move in [Board.from_seed(3, 4).move_name(m) for m in
                           Board.from_seed(3, 4).legal_moves]  # fmt: skip
    err = capfd.readouterr().err
    assert err.count("banmen: compiling the Mattix search, first run only…") == 1
    assert time.monotonic() - t0 < 600


class _FakePool:
    def __init__(self) -> None:
        self.status: dict[str, Any] | None = {
            "compiling": ["the Go search"], "percent": 10, "seconds": 3.0, "cold": True,
            "workers_ready": 0, "workers": 2,
        }  # fmt: skip
        self.on_status: Any = None

    def warm_status(self) -> dict[str, Any] | None:
        return self.status


class _Client:
    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []

    def send(self, msg: dict[str, Any]) -> None:
        self.sent.append(msg)


def test_engine_news_tells_every_page_until_ready() -> None:
    import asyncio

    from banmen.web.engines import EngineNews, waiting_for, warming_line

    async def run() -> tuple[_Client, _Client]:
        pool = _FakePool()
        news = EngineNews(pool)  # type: ignore[arg-type]
        a, b = _Client(), _Client()
        news.opened(a)  # type: ignore[arg-type]
        news.opened(b)  # type: ignore[arg-type]
        for pct in (20, 30, 40):  # quicker than the period: one message, later
            pool.status = {**(pool.status or {}), "percent": pct}
            pool.on_status()
        await asyncio.sleep(0.7)
        pool.status = None
        pool.on_status()
        pool.on_status()  # (ready twice: told once)
        news.close()
        return a, b

    a, b = asyncio.run(run())
    assert [m["ready"] for m in a.sent] == [False, False, False, True]
    assert a.sent[0]["message"] == (
        "the engines are warming up (first run only: compiling the Go search), 10% done after 3 s"
    )
    assert a.sent[2]["percent"] == 40 and a.sent == b.sent
    status = {"compiling": [], "percent": 50, "seconds": 1.0, "cold": False}
    assert warming_line(status) == "the engines are starting, 50% done after 1 s"
    pool = _FakePool()
    assert waiting_for(pool, 2, "an engine").startswith(  # type: ignore[arg-type]
        "waiting: the engines are warming up"
    )
    pool.status = None
    assert waiting_for(pool, 2, "an engine") == (  # type: ignore[arg-type]
        "the server is busy: you are 2nd in line for an engine"
    )


def test_a_stamp_names_the_files_numba_would_recompile_for() -> None:
    """The files in a game's stamp are those holding its compiled functions (a change to
    one makes numba compile again), not every module the process had loaded: editing a
    command's module does not make a kernel set cold."""
    from banmen.games.registry import get_game
    from banmen.warm import ensure

    ks = get_game("mattix").kernel_set("search")
    assert ks is not None
    ensure(ks)
    stamp = read_stamp(ks)
    if stamp is None:  # (loaded by an earlier test of this process: write it now)
        from banmen.warm import _write_stamp

        _write_stamp(ks, 0.0, 0)
        stamp = read_stamp(ks)
    assert stamp is not None
    names = [Path(f).as_posix() for f, _, _ in stamp["files"]]
    assert any(n.endswith("banmen/search/alphabeta.py") for n in names)
    assert any(n.endswith("banmen/games/mattix/kernels.py") for n in names)
    assert not any("/cli/" in n or n.endswith("banmen/warm.py") for n in names)


def test_an_index_entry_for_a_vanished_kernel_is_dropped_not_a_failed_save(
    tmp_path: Path,
) -> None:
    """numba's cache index of a generic search keeps an entry per version of a kernel
    handed to it; past NUMBA_FUNCTION_CACHE_SIZE versions, re-pickling one raised
    ``ReferenceError`` and the save (so the compile) failed. The save drops such entries."""
    import pickle

    from banmen._jit import _locked_save

    class Gone:
        def __reduce__(self) -> Any:
            raise ReferenceError("underlying object has vanished")

    class Index:
        _index_path = str(tmp_path / "f.nbi")

        def __init__(self) -> None:
            self.index: dict[Any, str] = {("old", Gone()): "f-1.nbc", ("kept",): "f-2.nbc"}
            self.data: dict[str, Any] = {}

        def _load_index(self) -> dict[Any, str]:
            return dict(self.index)

        def _data_name(self, i: int) -> str:
            return f"f-{i}.nbc"

        def _save_data(self, name: str, data: Any) -> None:
            self.data[name] = data

        def _save_index(self, overloads: dict[Any, str]) -> None:
            pickle.dumps(overloads)  # as numba's does: raises for a vanished key
            self.index = overloads

    ix = Index()
    _locked_save(ix, ("new",), b"code")
    assert ix.index == {("kept",): "f-2.nbc", ("new",): "f-3.nbc"}
    assert ix.data == {"f-3.nbc": b"code"}


def test_an_edit_to_a_called_file_is_not_hidden_by_the_callers_cache(tmp_path: Path) -> None:
    """numba checked only the file a compiled function is written in: after an edit to a
    file it calls into, the caller's cached machine code was loaded stale (seen editing
    Go's tactics under its policy). A package's compiled files are fresh or stale together."""
    pkg = tmp_path / "toypkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "callee.py").write_text(
        "from banmen.jit import njit\n\n\n@njit(cache=True)\ndef value():\n    return 1\n"
    )
    (pkg / "caller.py").write_text(
        "from banmen.jit import njit\n\nfrom toypkg.callee import value\n\n\n"
        "@njit(cache=True)\ndef twice():\n    return 2 * value()\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path), env.get("PYTHONPATH", "")])
    probe = [sys.executable, "-c", "from toypkg.caller import twice; print(twice())"]

    def run() -> str:
        p = subprocess.run(probe, capture_output=True, text=True, env=env, timeout=300)
        assert p.returncode == 0, p.stderr
        return p.stdout.strip()

    assert run() == "2"
    assert list((pkg / "__pycache__").glob("caller.twice-*.nbi")), "numba cached the caller"
    (pkg / "callee.py").write_text(
        "from banmen.jit import njit\n\n\n@njit(cache=True)\ndef value():\n    return 21\n"
    )
    assert run() == "42"


def _beside(cache: Path, *args: str, **extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(TESTS / "warm_toy.py"), "beside", *args],
                          env=_env(cache, **extra), capture_output=True, text=True,
                          timeout=300)  # fmt: skip


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def _log(path: Path) -> list[list[str]]:
    return [line.split() for line in path.read_text().splitlines()]


def _beside_logged(tmp_path: Path, **extra: str) -> tuple[str, str, list[list[str]], str]:
    """The toy pair run once: its pid, "helped" or "alone", the loaders' log, its stderr."""
    log = tmp_path / "log"
    run = _beside(tmp_path, TOY_LOG2=str(log), **extra)
    assert run.returncode == 0, run.stderr
    pid, how = run.stdout.split()
    return pid, how, _log(log), run.stderr


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="a helper needs a second core")
def test_a_helper_compiles_a_set_beside_and_the_process_then_loads_it(tmp_path: Path) -> None:
    pid, how, rows, stderr = _beside_logged(tmp_path, TOY_SLEEP="1")
    assert how == "helped"
    # told once each, the helper's set when the helper started
    said = ["banmen: compiling the other toy kernel, first run only…",
            "banmen: compiling the toy kernel, first run only…"]  # fmt: skip
    assert stderr.splitlines() == said
    helper = rows[0][1]
    assert rows[0][0] == "start" and helper != pid
    compiled = {p: int(n) for p, n in (r for r in rows if r[0] != "start")}
    assert compiled[helper] >= 1 and compiled[pid] == 0  # the helper compiled, it loaded
    assert not _alive(int(helper))
    again = _beside(tmp_path)  # everything warm: no helper, nothing said
    assert again.stdout.split()[1] == "alone" and again.stderr == ""


def test_no_helper_when_told_not_to(tmp_path: Path) -> None:
    pid, how, rows, _ = _beside_logged(tmp_path, BANMEN_COMPILE_BESIDE="0")
    assert how == "alone"
    assert {r[0] for r in rows} == {"start", pid} and rows[0][1] == pid


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="a helper needs a second core")
@pytest.mark.parametrize("how", ["exit", "first"])
def test_a_helper_ends_with_its_process(tmp_path: Path, how: str) -> None:
    """With "first" the process ends normally while its helper sleeps in its loader (killed
    by banmen's reaper); with "exit" it ends by ``os._exit``, no exit handler (the same)."""
    log = tmp_path / "log"
    run = _beside(tmp_path, how, TOY_LOG2=str(log), TOY_SLEEP="60")
    assert run.returncode == 0, run.stderr
    assert run.stdout.split()[1] == "helped"
    helper = int(_log(log)[0][1])
    deadline = time.monotonic() + 30
    while _alive(helper) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _alive(helper)
    assert len(_log(log)) == 1  # it never got past its sleep

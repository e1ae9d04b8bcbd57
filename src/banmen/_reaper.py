"""Nothing a user's engine started outlives the process that started it.

Every program banmen starts for a user (a UGI, GTP or NBoard engine, the process a
``python:`` player runs in) is started in a session and process group of its own
(``start_new_session``), so that it and whatever it forks are ended together with one
``killpg`` — and so that a Ctrl-C typed at banmen's terminal reaches banmen, which then
decides, and not the engines.

Ending them is banmen's job when it ends normally (the engine's ``close``). For when it
does not — ``kill -9``, a worker process killed by its pool, a crash — each process that
starts engines keeps one **reaper**: a small Python process started on the first
:func:`watch`, which holds the read end of a pipe whose write end only this process has.
:func:`watch` and :func:`forget` tell it which groups are alive; when the pipe ends,
however this process ended, the reaper kills every group still listed (``SIGKILL``) and
exits. The reaper ignores SIGINT and SIGHUP and sits in a session of its own, so nothing
sent to banmen's terminal ends it first.

The same idea as a supervisor's parent-death watch (Linux's ``PR_SET_PDEATHSIG``), but
it also covers the engine's own children and does not depend on which thread started the
engine (a parent-death signal follows the starting *thread*).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from typing import IO

__all__ = ["watch", "forget", "kill_group", "reaper_pid"]

#: the reaper's program: read "+PGID" / "-PGID" lines until the pipe ends, then kill
#: every group still listed
_PROGRAM = """\
import os, signal, sys
for s in (signal.SIGINT, signal.SIGHUP, signal.SIGTERM):
    signal.signal(s, signal.SIG_IGN)
groups = set()
for line in sys.stdin.buffer:
    op, g = line[:1], line[1:].strip()
    if g.isdigit():
        (groups.add if op == b"+" else groups.discard)(int(g))
for g in groups:
    try:
        os.killpg(g, signal.SIGKILL)
    except OSError:
        pass
"""

_lock = threading.Lock()
_reaper: subprocess.Popen[bytes] | None = None
_pipe: IO[bytes] | None = None


def _start() -> IO[bytes] | None:
    global _reaper, _pipe
    if _pipe is not None and _reaper is not None and _reaper.poll() is None:
        return _pipe
    try:
        _reaper = subprocess.Popen(
            [sys.executable, "-I", "-S", "-c", _PROGRAM],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
    except OSError:  # pragma: no cover - no process can be started: close() still kills
        _reaper = _pipe = None
        return None
    _pipe = _reaper.stdin
    return _pipe


def _tell(line: str) -> None:
    with _lock:
        pipe = _start()
        if pipe is None:  # pragma: no cover - see _start
            return
        try:
            pipe.write(line.encode() + b"\n")
            pipe.flush()
        except OSError:  # pragma: no cover - the reaper died: start another next time
            global _reaper, _pipe
            _reaper = _pipe = None


def watch(pgid: int) -> None:
    """Kill process group ``pgid`` if this process ends before :func:`forget`."""
    _tell(f"+{pgid}")


def forget(pgid: int) -> None:
    """Group ``pgid`` has been ended (or handed over): the reaper may let it be."""
    if _pipe is not None:
        _tell(f"-{pgid}")


def kill_group(pgid: int) -> None:
    """``SIGKILL`` every process of group ``pgid`` (gone already: nothing to do)."""
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def reaper_pid() -> int | None:
    """The reaper's process id, if this process has started one (for tests)."""
    return _reaper.pid if _reaper is not None and _reaper.poll() is None else None


def _after_fork_in_child() -> None:
    # A forked child must not hold the parent's pipe: the reaper would wait for both to
    # end. It gets a reaper of its own when it starts an engine.
    global _reaper, _pipe
    pipe, _reaper, _pipe = _pipe, None, None
    if pipe is not None:
        try:
            pipe.close()
        except OSError:  # pragma: no cover
            pass


os.register_at_fork(after_in_child=_after_fork_in_child)

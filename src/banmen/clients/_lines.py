"""A child process spoken to in lines, under a referee's limits: the clients of external
engines (UGI, GTP, NBoard) and the process a ``python:`` player runs in.

:class:`LineProcess` is the process. It is started in a process group of its own, watched
by this process's reaper (:mod:`banmen._reaper`: whatever happens to banmen, nothing the
engine started outlives it) and ended with its whole group. Its output is read by a daemon
thread in chunks, never a whole line at once, so an engine cannot make banmen hold more
than:

* :data:`MAX_LINE` bytes of one line: past it the read stops and :meth:`next_line` raises
  :class:`LineTooLong` (the engine's fault: "a line of more than 1,048,576 bytes");
* :data:`MAX_QUEUED` bytes of lines read but not yet taken: past it the thread stops
  reading until they are, so an engine that talks faster than it is listened to waits on
  its own pipe.

Each line keeps the moment it arrived, and :meth:`next_line` gives no line that arrived
after its deadline: an engine that keeps talking (``info`` lines forever) meets its
deadline as surely as a silent one, and is judged by when its words came, not by when
banmen got round to reading them. Writing is bounded too (:meth:`LineProcess.send`: an
engine that does not read its input is not waited for). A process whose first process
has exited counts as ended even if a child it forked still holds its output open.

:class:`EngineClient` is what the clients share: the process started on first use (and
again if it died), one bounded wait (:meth:`EngineClient._line`) that ends at the move's
allowance, or :data:`STOP_GRACE` seconds after the caller asked the search to stop, and
every failure raised as the client's own error (an :class:`~banmen.engine.EngineFailure`)
with a one-line message naming the engine; the process is then ended with its group.
"""

from __future__ import annotations

import collections
import os
import select
import shlex
import subprocess
import threading
import time
from typing import IO, TypeVar

from banmen import _reaper
from banmen.engine import Engine, EngineFailure, GameBoard, Request, move_allowance

__all__ = [
    "LineProcess",
    "LineTooLong",
    "EngineClient",
    "one_line",
    "write_line",
    "MAX_LINE",
    "MAX_QUEUED",
    "STOP_GRACE",
    "START_SECONDS",
]

B = TypeVar("B", bound=GameBoard, contravariant=True)

#: the longest line an engine may send, in bytes
MAX_LINE = 1 << 20
#: the most bytes of lines read ahead of the client (the reader waits beyond it)
MAX_QUEUED = 1 << 20
#: the longest a line may take to be written to an engine that is slow to read, in seconds
SEND_SECONDS = 10.0
#: seconds an engine is given to quit when asked, before its group is killed
QUIT_SECONDS = 2.0
#: seconds a search may take to answer after it was asked to stop, before it is given up
STOP_GRACE = 1.0
#: seconds an engine may take to start: its handshake (it may load its tables here)
START_SECONDS = 60.0
#: how often a wait looks at a stop request and at the process, in seconds
POLL = 0.05
#: once the first process has exited, how long output still coming is waited for
DRAIN_SECONDS = 0.2


def one_line(text: object) -> str:
    """``text`` with its whitespace (line ends included) collapsed: fit for one protocol
    line (an engine's ``info string``, ``status``, …)."""
    return " ".join(str(text).split())


def write_line(out: IO[str], line: str) -> None:
    """Write one protocol line and flush it (a front end's answer to its GUI); an output
    that went away (the GUI quit) is ignored."""
    try:
        out.write(line + "\n")
        out.flush()
    except (OSError, ValueError):  # the GUI went away
        pass


class LineTooLong(OSError):
    """The process wrote a line of more than :data:`MAX_LINE` bytes; reading stopped."""


class LineProcess:
    """``argv`` started with piped input and output (stderr discarded, unless given), in a
    process group of its own that the reaper ends with this process."""

    def __init__(self, argv: list[str], stderr: int | None = subprocess.DEVNULL) -> None:
        self.proc: subprocess.Popen[bytes] = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr,
            bufsize=0,
            start_new_session=True,
        )
        self.pgid = self.proc.pid
        _reaper.watch(self.pgid)
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self._in = self.proc.stdin.fileno()
        os.set_blocking(self._in, False)
        self._cond = threading.Condition()
        #: lines read and not yet taken: (line, when it arrived, what it counts for)
        self._lines: collections.deque[tuple[str, float, int]] = collections.deque()
        self._queued = 0
        self._ended = False
        self._fault: str | None = None
        self._closing = False
        self._exited_at: float | None = None
        threading.Thread(target=self._read, daemon=True, name="engine-output").start()

    # -- the reader thread

    def _read(self) -> None:
        out = self.proc.stdout
        assert out is not None
        fd = out.fileno()
        partial = bytearray()
        try:
            while True:
                chunk = os.read(fd, 65536)
                if not chunk:
                    break
                now = time.monotonic()
                start = 0
                while (end := chunk.find(b"\n", start)) >= 0:
                    partial += chunk[start:end]
                    start = end + 1
                    if len(partial) > MAX_LINE or not self._put(bytes(partial), now):
                        return self._stop_reading(len(partial) > MAX_LINE)
                    partial.clear()
                partial += chunk[start:]
                if len(partial) > MAX_LINE:
                    return self._stop_reading(True)
        except (OSError, ValueError):  # pragma: no cover - the pipe closed under us
            pass
        finally:
            out.close()  # here: the reader owns the stream
            with self._cond:
                self._ended = True
                self._cond.notify_all()

    def _stop_reading(self, too_long: bool) -> None:
        if too_long:
            with self._cond:
                self._fault = f"a line of more than {MAX_LINE:,} bytes"
                self._cond.notify_all()

    def _put(self, raw: bytes, at: float) -> bool:
        line = raw.decode("utf-8", "replace").rstrip("\r")
        with self._cond:
            while self._queued >= MAX_QUEUED and not self._closing:
                self._cond.wait()
            if self._closing:
                return False
            self._lines.append((line, at, len(raw) + 64))
            self._queued += len(raw) + 64
            self._cond.notify_all()
        return True

    # -- the caller's side

    def alive(self) -> bool:
        return self.proc.poll() is None

    def send(self, line: str, deadline: float | None = None) -> None:
        """Write one line; ``BrokenPipeError`` if the process no longer reads its input,
        ``TimeoutError`` if it has not taken it by ``deadline`` (``time.monotonic()``;
        default :data:`SEND_SECONDS` from now)."""
        data = memoryview((line + "\n").encode())
        end = time.monotonic() + SEND_SECONDS if deadline is None else deadline
        while data:
            try:
                n = os.write(self._in, data)
            except BlockingIOError:
                left = end - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"{self.proc.args!r} does not read its input") from None
                select.select([], [self._in], [], min(left, POLL))
                continue
            except (OSError, ValueError):  # gone, or the stream was closed
                raise BrokenPipeError(f"input of {self.proc.args!r} is closed") from None
            data = data[n:]

    def next_line(self, deadline: float) -> str | None:
        """The next output line that arrived before ``deadline`` (``time.monotonic()``);
        ``None`` once the output has ended (or the process has exited); ``TimeoutError``
        if none did; :class:`LineTooLong` after a line longer than :data:`MAX_LINE`."""
        with self._cond:
            while True:
                if self._lines:
                    line, at, size = self._lines[0]
                    if at > deadline:
                        raise TimeoutError
                    self._lines.popleft()
                    self._queued -= size
                    self._cond.notify_all()
                    return line
                if self._fault is not None:
                    raise LineTooLong(self._fault)
                if self._ended:
                    return None
                now = time.monotonic()
                if self.proc.poll() is not None:  # exited; a child may hold the pipe open
                    if self._exited_at is None:
                        self._exited_at = now
                    elif now - self._exited_at >= DRAIN_SECONDS:
                        return None
                if now >= deadline:
                    raise TimeoutError
                self._cond.wait(min(deadline - now, POLL))

    def kill(self) -> None:
        """End the process and its group at once (its state is unknown)."""
        _reaper.kill_group(self.pgid)
        self._reap()

    def close(self, quit_line: str = "quit") -> None:
        """Ask the process to quit; then end its group, whatever it left running (at
        once if it has not quit within :data:`QUIT_SECONDS`)."""
        try:
            if self.alive():
                self.send(quit_line, time.monotonic() + QUIT_SECONDS)
            self.proc.wait(timeout=QUIT_SECONDS)
        except (OSError, subprocess.TimeoutExpired):
            pass
        _reaper.kill_group(self.pgid)
        self._reap()

    def _reap(self) -> None:
        with self._cond:
            self._closing = True  # (a reader waiting for room lets go)
            self._cond.notify_all()
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:  # pragma: no cover - unkillable (D state)
            pass
        _reaper.forget(self.pgid)
        try:
            if self.proc.stdin is not None:
                self.proc.stdin.close()
        except (OSError, ValueError):  # pragma: no cover - a write failed half-way
            pass

    def status(self) -> str:
        """How the process ended, for a message: `` (exit status 3)``, `` (killed by
        signal 9)``, or nothing if it still runs (after a moment's wait)."""
        try:  # (its output ended: it is exiting)
            code: int | None = self.proc.wait(timeout=DRAIN_SECONDS)
        except subprocess.TimeoutExpired:
            code = None
        if code is None:
            return ""
        return f" (killed by signal {-code})" if code < 0 else f" (exit status {code})"


class EngineClient(Engine[B]):
    """The process side of a client of an external engine (an :class:`Engine` on boards
    ``B``: started by :meth:`warm_up`, its game forgotten by :meth:`new_game`).

    A subclass sets :attr:`error` (its :class:`~banmen.engine.EngineFailure` subclass),
    implements :meth:`~banmen.engine.Engine.choose` (calling :meth:`_begin` with its
    request first) and may override :meth:`_handshake` (the first exchange after a start),
    :meth:`_forget` (what the client knows of the engine's state becomes unknown: after a
    start, an abandoned process, a new game) and :meth:`_on_stop` (what to tell an engine
    asked to stop: UGI's ``stop``; GTP and NBoard have no such command).
    """

    #: what every failure raises (the process cannot start, exits, breaks the protocol or
    #: does not answer in time)
    error: type[EngineFailure] = EngineFailure

    def __init__(self, command: str | list[str], name: str, timeout: float = START_SECONDS) -> None:
        self.argv = shlex.split(command) if isinstance(command, str) else list(command)
        self.name = one_line(name or " ".join(self.argv))  # (it begins one-line messages)
        #: the longest an exchange outside a move may take (the handshake, a command)
        self.timeout = timeout
        self._proc: LineProcess | None = None
        #: the move under way: its request, its deadline, when a stop was first seen
        self._request: Request | None = None
        self._deadline: float | None = None
        self._move_deadline: float | None = None
        self._stop_seen: float | None = None
        #: the engine was told to stop (:meth:`_on_stop`) in this move
        self._told = False

    def _handshake(self) -> None:
        """The first exchange with a freshly started engine (raises :attr:`error`)."""

    def _forget(self) -> None:
        """What the client knows of the engine's state is no longer true."""

    def _on_stop(self) -> None:
        """The caller asked the search under way to stop (default: nothing to send)."""

    def _spawn(self) -> LineProcess:
        return LineProcess(self.argv)

    def _start(self) -> LineProcess:
        """The running process: started now if there is none or it died."""
        if self._proc is not None and self._proc.alive():
            return self._proc
        if self._proc is not None:  # it died: reap it
            self.close()
        try:
            proc = self._spawn()
        except OSError as e:
            raise self.error(f"cannot start {self.argv[0]!r}: {e.strerror or e}") from None
        self._proc = proc
        self._forget()
        within = self._deadline
        self._deadline = self._start_until()  # (what every line of the handshake awaits)
        try:
            self._handshake()
        except self.error:
            self._abandon()
            raise
        finally:
            self._deadline = within
        return proc

    def _abandon(self) -> None:
        """Stop a process whose state is unknown (it broke the protocol or did not
        answer), with its group; the next move starts a new one."""
        proc, self._proc = self._proc, None
        self._forget()
        if proc is not None:
            proc.kill()

    # -- a move's bounds

    def _begin(self, request: Request) -> float:
        """A move starts: its deadline (``time.monotonic()``) is the request's start plus
        :func:`~banmen.engine.move_allowance` of its limit (on a game clock: until its
        flag falls, and the referee's margin)."""
        self._request = request
        self._stop_seen = None
        self._told = False
        self._deadline = time.monotonic() - request.elapsed() + move_allowance(request.limit)
        self._move_deadline = self._deadline
        return self._deadline

    def _start_until(self) -> float:
        """When a start must be done by: :attr:`timeout` from now, and within the move's
        deadline if it happens in a move (an engine started again mid-game)."""
        until = time.monotonic() + self.timeout
        return until if self._move_deadline is None else min(until, self._move_deadline)

    def _end(self) -> None:
        self._request = self._deadline = self._move_deadline = self._stop_seen = None
        self._told = False

    def _allowed(self) -> str:
        """The move's allowance, for a message: ``3 s (its limit of 1 s plus 2 s)``."""
        assert self._request is not None
        limit = self._request.limit
        t = limit.time
        total = move_allowance(limit)
        if limit.timed:
            return f"{total:g} s (until its flag falls, and the margin)"
        if t is None:
            return f"{total:g} s (a move with no time limit)"
        return f"{total:g} s (its limit of {t:g} s plus {total - t:g} s)"

    def _send(self, line: str) -> None:
        assert self._proc is not None
        until = self._deadline if self._deadline is not None else time.monotonic() + self.timeout
        try:
            self._proc.send(line, max(until, time.monotonic() + POLL))
        except TimeoutError:
            self._abandon()
            raise self.error(f"{self.name}: does not read its input (sent {line[:40]!r})") from None
        except OSError:
            proc = self._proc
            status = proc.status() if proc is not None else ""
            self._abandon()
            raise self.error(f"{self.name}: the engine process has exited{status}") from None

    def _line(self, until: float | None = None, what: str = "", seconds: float | None = None,
              soft: float | None = None) -> str:  # fmt: skip
        """The engine's next line. It must come before ``until`` (default: the move's
        deadline, else :attr:`timeout` from now), and within :data:`STOP_GRACE` of a stop
        request of the move; otherwise the process is abandoned and :attr:`error` raised,
        saying ``what`` was awaited and for how long (``seconds``; by default the move's
        allowance, or the time waited). At ``soft``, if given, the engine is told to stop
        (:meth:`_on_stop`) but waited for on. A line of more than :data:`MAX_LINE` bytes,
        or an engine that exits, is :attr:`error` too."""
        proc = self._proc
        assert proc is not None
        asked = time.monotonic()
        if until is None:
            until = self._deadline if self._deadline is not None else asked + self.timeout
        request = self._request
        while True:
            now = time.monotonic()
            bound, stopped = until, False
            if request is not None and request.stopped():
                if self._stop_seen is None:
                    self._stop_seen = now
                    self._tell_stop()
                bound, stopped = min(until, self._stop_seen + STOP_GRACE), True
            elif soft is not None and not self._told and now >= soft:
                self._tell_stop()
            step = bound
            if request is not None and request.stop is not None and not stopped:
                step = min(step, now + POLL)  # (to see a stop request soon)
            if soft is not None and not self._told:
                step = min(step, soft)
            try:
                line = proc.next_line(step)
            except TimeoutError:
                if time.monotonic() < bound:
                    continue
                self._abandon()
                if stopped and bound < until:
                    raise self.error(
                        f"{self.name}: no answer {STOP_GRACE:g} s after it was asked to stop"
                    ) from None
                if seconds is not None:
                    waited = f"{seconds:g} s"
                elif self._request is not None and until == self._move_deadline:
                    waited = self._allowed()
                else:
                    waited = f"{until - asked:.2g} s"
                raise self.error(f"{self.name}: {what or 'no answer'} in {waited}") from None
            except LineTooLong as e:
                self._abandon()
                raise self.error(f"{self.name} sent {e}") from None
            if line is None:
                status = proc.status()
                self._abandon()
                raise self.error(f"{self.name}: the engine process has exited{status}")
            return line

    def _tell_stop(self) -> None:
        if not self._told:
            self._told = True
            self._on_stop()

    def warm_up(self) -> None:
        self._start()

    def new_game(self) -> None:
        self._forget()

    def close(self) -> None:
        proc, self._proc = self._proc, None
        if proc is not None:
            proc.close("quit")

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # pragma: no cover - interpreter shutdown
            pass

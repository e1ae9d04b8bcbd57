"""A child process spoken to in lines, for the clients of external engines (GTP, NBoard).

:class:`EngineClient` is what such a client shares: the process started on first use (and
again if it died), lines sent and read with a deadline, and every failure raised as the
client's own error with a one-line message naming the engine. :class:`LineProcess` is the
process itself: its standard output is read by a daemon thread into a queue, so a read can
wait with a deadline; the thread owns (and closes) the output stream, the caller the input
stream.
Errors are left to the caller to word: :class:`LineProcess` raises ``OSError`` when the
program cannot start or its input is closed, ``TimeoutError`` when no line arrives in time,
and :meth:`LineProcess.next_line` returns ``None`` once the output has ended.
"""

from __future__ import annotations

import queue
import shlex
import subprocess
import threading
import time
from typing import IO, TypeVar

from banmen.engine import Engine, GameBoard

__all__ = ["LineProcess", "EngineClient", "one_line", "write_line"]

B = TypeVar("B", bound=GameBoard, contravariant=True)


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


class LineProcess:
    """``argv`` started with piped text input and output (stderr discarded)."""

    def __init__(self, argv: list[str]) -> None:
        self.proc: subprocess.Popen[str] = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            bufsize=1,
        )
        self._lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        out = self.proc.stdout
        assert out is not None
        try:
            for line in out:
                self._lines.put(line.rstrip("\r\n"))
        except (OSError, ValueError):  # pragma: no cover - the pipe closed under us
            pass
        finally:
            out.close()  # here: the reader owns the stream
        self._lines.put(None)

    def alive(self) -> bool:
        return self.proc.poll() is None

    def send(self, line: str) -> None:
        """Write one line; ``OSError`` if the process no longer reads its input."""
        stdin = self.proc.stdin
        assert stdin is not None
        try:
            stdin.write(line + "\n")
            stdin.flush()
        except ValueError:  # the stream was closed
            raise BrokenPipeError(f"input of {self.proc.args!r} is closed") from None

    def next_line(self, deadline: float) -> str | None:
        """The next output line, ``None`` once the output has ended; ``TimeoutError`` if
        none arrives before ``deadline`` (``time.monotonic()``)."""
        try:
            return self._lines.get(timeout=max(deadline - time.monotonic(), 0.001))
        except queue.Empty:
            raise TimeoutError from None

    def kill(self) -> None:
        """Stop the process at once (its state is unknown)."""
        self.proc.kill()
        self.proc.wait()
        self._close_stdin()

    def close(self, quit_line: str = "quit") -> None:
        """Ask the process to quit; kill it if it has not within 5 seconds."""
        try:
            if self.alive():
                self.send(quit_line)
            self.proc.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait()
        self._close_stdin()

    def _close_stdin(self) -> None:
        # Our end of the engine's input (its output is closed by the reader thread,
        # which may still be reading it).
        try:
            if self.proc.stdin is not None:
                self.proc.stdin.close()
        except (OSError, ValueError):  # pragma: no cover - a write failed half-way
            pass


class EngineClient(Engine[B]):
    """The process side of a client of an external engine (an :class:`Engine` on boards
    ``B``: started by :meth:`warm_up`, its game forgotten by :meth:`new_game`).

    A subclass sets :attr:`error` (its ``RuntimeError`` subclass), implements
    :meth:`~banmen.engine.Engine.choose` and may override
    :meth:`_handshake` (the first exchange after a start) and :meth:`_forget` (what the
    client knows of the engine's state becomes unknown: after a start, an abandoned
    process, a new game).
    """

    #: what every failure raises (the process cannot start, exits, breaks the protocol or
    #: does not answer in time)
    error: type[RuntimeError] = RuntimeError

    def __init__(self, command: str | list[str], name: str, timeout: float) -> None:
        self.argv = shlex.split(command) if isinstance(command, str) else list(command)
        self.name = name or " ".join(self.argv)
        self.timeout = timeout
        self._proc: LineProcess | None = None

    def _handshake(self) -> None:
        """The first exchange with a freshly started engine (raises :attr:`error`)."""

    def _forget(self) -> None:
        """What the client knows of the engine's state is no longer true."""

    def _start(self) -> LineProcess:
        """The running process: started now if there is none or it died."""
        if self._proc is not None and self._proc.alive():
            return self._proc
        if self._proc is not None:  # it died: reap it
            self.close()
        try:
            proc = LineProcess(self.argv)
        except OSError as e:
            raise self.error(f"cannot start {self.argv[0]!r}: {e.strerror or e}") from None
        self._proc = proc
        self._forget()
        try:
            self._handshake()
        except self.error:
            self._abandon()
            raise
        return proc

    def _abandon(self) -> None:
        """Stop a process whose state is unknown (it broke the protocol or did not
        answer); the next move starts a new one."""
        proc, self._proc = self._proc, None
        self._forget()
        if proc is not None:
            proc.kill()

    def _send(self, line: str) -> None:
        assert self._proc is not None
        try:
            self._proc.send(line)
        except OSError:
            raise self.error(f"{self.name}: the engine process has exited") from None

    def _next(self, deadline: float, seconds: float) -> str:
        """The engine's next line; :attr:`error` if none comes before ``deadline``
        (``seconds`` after the question: the message says so) or the process ended."""
        assert self._proc is not None
        try:
            line = self._proc.next_line(deadline)
        except TimeoutError:
            self._abandon()
            raise self.error(f"{self.name}: no answer in {seconds:g} s") from None
        if line is None:
            raise self.error(f"{self.name}: the engine process has exited")
        return line

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

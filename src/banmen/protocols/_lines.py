"""A child process spoken to in lines, for the clients of external engines (GTP, NBoard).

Its standard output is read by a daemon thread into a queue, so a read can wait with a
deadline; the thread owns (and closes) the output stream, the caller the input stream.
Errors are left to the caller to word: :class:`LineProcess` raises ``OSError`` when the
program cannot start or its input is closed, ``TimeoutError`` when no line arrives in time,
and :meth:`LineProcess.next_line` returns ``None`` once the output has ended.
"""

from __future__ import annotations

import queue
import subprocess
import threading
import time

__all__ = ["LineProcess", "one_line"]


def one_line(text: object) -> str:
    """``text`` with its whitespace (line ends included) collapsed: fit for one protocol
    line (an engine's ``info string``, ``status``, …)."""
    return " ".join(str(text).split())


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

"""Processes the tests start and look for: a program spoken to in lines, and the process
table searched for a tag (what an engine started must be gone when it is)."""

from __future__ import annotations

import os
import subprocess
import threading
import time
from pathlib import Path
from queue import Empty, Queue


class Lines:
    """A program spoken to in lines: its output read by a thread, waited for by prefix
    (its standard error is discarded: nobody reads it, so it must not fill a pipe)."""

    def __init__(self, argv: list[str]) -> None:
        self.proc = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            text=True, bufsize=1,
        )  # fmt: skip
        self.lines: Queue[str] = Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\n"))

    def send(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def until(self, prefix: str, timeout: float = 120) -> list[str]:
        """The lines up to the first that starts with ``prefix`` (included)."""
        got: list[str] = []
        deadline = time.monotonic() + timeout
        while True:
            try:
                line = self.lines.get(timeout=max(0.01, deadline - time.monotonic()))
            except Empty:
                raise AssertionError(f"no {prefix!r} in {timeout} s; got {got}") from None
            got.append(line)
            if line.startswith(prefix):
                return got

    def end(self, within: float = 30) -> None:
        """Close its input and wait for it to end (killed if it has not)."""
        try:
            assert self.proc.stdin is not None
            self.proc.stdin.close()
            self.proc.wait(within)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()


def tagged(tag: str) -> list[int]:
    """The processes whose command line holds ``tag`` (zombies have none)."""
    found = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit() and d.name != str(os.getpid()):
            try:
                if tag.encode() in (d / "cmdline").read_bytes():
                    found.append(int(d.name))
            except OSError:  # gone meanwhile
                pass
    return found


def gone(tag: str, within: float = 10.0) -> list[int]:
    """The processes still holding ``tag`` after waiting up to ``within`` seconds."""
    end = time.monotonic() + within
    while (left := tagged(tag)) and time.monotonic() < end:
        time.sleep(0.1)
    return left

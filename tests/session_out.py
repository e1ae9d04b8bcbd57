"""A protocol session's output for tests: a text buffer other threads write to, with a way
to wait (up to a hang guard) for a line."""

from __future__ import annotations

import io
import threading
import time

#: seconds a test waits for a line: only reached when something is broken
WAIT = 60.0


class Out(io.StringIO):
    """The session's output, with a way to wait for a line another thread writes."""

    def __init__(self) -> None:
        super().__init__()
        self.changed = threading.Condition()
        self.read_upto = 0

    def write(self, s: str) -> int:
        with self.changed:
            n = super().write(s)
            self.changed.notify_all()
            return n

    def lines(self) -> list[str]:
        with self.changed:
            return self.getvalue().splitlines()

    def new_lines(self) -> list[str]:
        """The lines written since the last call."""
        lines = self.lines()
        new, self.read_upto = lines[self.read_upto :], len(lines)
        return new

    def wait_for(self, prefix: str, timeout: float = WAIT) -> str:
        """The first line starting with ``prefix`` (waiting for it to be written)."""
        deadline = time.monotonic() + timeout
        with self.changed:
            while True:
                for line in self.getvalue().splitlines():
                    if line.startswith(prefix):
                        return line
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"no {prefix!r} line in {self.getvalue()[-400:]!r}")
                self.changed.wait(left)

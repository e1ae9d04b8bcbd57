"""An exclusive lock on a file, shared by processes (a leaf: the standard library only)."""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path

__all__ = ["flock"]


@contextlib.contextmanager
def flock(path: str | Path) -> Iterator[None]:
    """Hold an ``flock`` on ``path`` (created if need be) for the block. Where the file
    cannot be made (a read-only folder), the block runs unlocked: what it guards then fails
    or is redone the way it would without banmen's lock."""
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError:
        yield
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # (closing releases the lock)

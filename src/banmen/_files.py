"""Files a user names, read safely: regular files only, and only so large.

A path from outside (a GTP ``loadsgf``, a record named on the command line) may name a
device (``/dev/zero`` never ends), a FIFO or a terminal (``/dev/stdin`` waits for ever) or a
huge file. :func:`read_small_text` opens it without blocking, checks it is a regular file of
at most ``limit`` bytes, and reads at most that much; anything else is :class:`FileRefused`,
one line saying why.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

__all__ = ["FileRefused", "RECORD_LIMIT", "read_small_text"]

#: the largest game record banmen reads (a 19×19 record with comments is well under 1 MB)
RECORD_LIMIT = 4_000_000


class FileRefused(ValueError):
    """A file that is not read: not a regular file, too large, or not readable."""


def read_small_text(path: str | Path, limit: int = RECORD_LIMIT) -> str:
    """The text of the regular file ``path`` (UTF-8, bad bytes replaced), at most ``limit``
    bytes; :class:`FileRefused` otherwise.

    >>> read_small_text("/dev/zero")
    Traceback (most recent call last):
    ...
    banmen._files.FileRefused: /dev/zero: not a regular file
    """
    name = str(path)
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))
    except OSError as e:
        raise FileRefused(f"{name}: cannot read it ({e.strerror or e})") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise FileRefused(f"{name}: not a regular file")
        if st.st_size > limit:
            raise FileRefused(f"{name}: over {limit // 1_000_000} MB")
        with os.fdopen(os.dup(fd), "rb") as f:
            data = f.read(limit + 1)
    finally:
        os.close(fd)
    if len(data) > limit:  # it grew while read
        raise FileRefused(f"{name}: over {limit // 1_000_000} MB")
    return data.decode("utf-8", errors="replace")

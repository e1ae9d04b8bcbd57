"""Work whose cost grows with what a client sent, done off the event loop.

The event loop serves every client, so it only does what costs little and the same for
every message. What grows with the size of a client's text — a pasted game record read
and replayed (a 47 KB Go SGF is thousands of moves), a saved game's record replayed when it
is joined, a record file written for a download — runs on :class:`OffLoop`'s thread
instead, after the cheap checks (the room, the new-game rate) have passed.

One thread, so such work runs one piece at a time: while it runs, the event loop shares
the interpreter (the GIL) with that one thread only and keeps answering everyone else; a
second piece waits for the first. Each piece is bounded too (a load's text by
:attr:`~banmen.web.protocol.GameRules.max_load`, its moves by the game's
:attr:`~banmen.games.GameDef.max_plies`).
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import ParamSpec, TypeVar

__all__ = ["OffLoop"]

P = ParamSpec("P")
T = TypeVar("T")


class OffLoop:
    """A thread of its own for the work a client's text costs (see the module
    docstring). The thread starts with the first piece of work."""

    def __init__(self) -> None:
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="banmen-read")

    async def run(self, fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """``fn(*args, **kwargs)`` on the thread, awaited: what it returns or raises."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, functools.partial(fn, *args, **kwargs))

    def close(self) -> None:
        """No more work: what waits is dropped, what runs finishes on its own."""
        self._executor.shutdown(wait=False, cancel_futures=True)

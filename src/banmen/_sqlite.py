"""SQLite files as banmen keeps them (stdlib ``sqlite3``): autocommit, WAL mode.

Shared by the web app's saved games (:mod:`banmen.web.store`) and the arena's runs
(:mod:`banmen.arena.store`), which may live in the same file.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

__all__ = [
    "connect", "connect_readonly", "execute_retrying", "insert_many_retrying",
    "transaction_retrying",
]  # fmt: skip

T = TypeVar("T")


def connect(path: str | Path, *, timeout: float, any_thread: bool = False) -> sqlite3.Connection:
    """An autocommit connection to the SQLite file ``path`` (created, with its folder, if
    need be; ``":memory:"`` is taken as it is) in WAL mode. ``timeout``: how long a
    statement waits for another connection's lock (SQLite's busy handler); ``any_thread``:
    the connection may be used from any thread (the caller serialises the use).

    ``synchronous=NORMAL``: in WAL mode a commit survives the process being killed and
    skips an fsync; only a power cut can lose the last commits."""
    if str(path) != ":memory:":
        Path(path).parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(
        str(path), isolation_level=None, timeout=timeout, check_same_thread=not any_thread
    )
    execute_retrying(conn, "PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    return conn


def connect_readonly(path: str | Path, *, timeout: float = 5) -> sqlite3.Connection:
    """An autocommit connection that only reads the existing SQLite file ``path``
    (``mode=ro``: nothing is created or written, a missing file is an error) — how the web
    app reads a database it does not own. ``timeout``: as :func:`connect`'s."""
    uri = Path(path).resolve().as_uri() + "?mode=ro"
    return sqlite3.connect(uri, uri=True, isolation_level=None, timeout=timeout)


def _retrying(op: Callable[[], T]) -> T:
    """``op()``, called again while SQLite says the database is locked or busy (another
    process holds the write lock): after 0.05 ms, doubling up to 20 ms, for about a minute
    at most; any other error, or a lock held longer, is raised."""
    delay = 0.00005
    waited = 0.0
    while True:
        try:
            return op()
        except sqlite3.OperationalError as e:
            if "locked" not in str(e) and "busy" not in str(e) or waited > 60:
                raise
        time.sleep(delay)
        waited += delay
        delay = min(delay * 2, 0.02)


def execute_retrying(conn: sqlite3.Connection, sql: str, args: tuple[Any, ...] = ()) -> None:
    """Execute one write, retrying while another process holds the write lock (0.05 ms,
    doubling up to 20 ms; gives up after about a minute) — for connections whose own
    busy handler does not wait (``timeout=0``): SQLite's sleeps at least a millisecond,
    longer than a quick commit takes."""
    _retrying(lambda: conn.execute(sql, args))


def transaction_retrying(conn: sqlite3.Connection, body: Callable[[sqlite3.Connection], T]) -> T:
    """Run ``body(conn)`` in one write transaction (``BEGIN IMMEDIATE`` … ``COMMIT``; rolled
    back if it raises) and return what it returns, retrying the whole transaction while
    another process holds the write lock, as :func:`execute_retrying` retries a write."""

    def once() -> T:
        conn.execute("BEGIN IMMEDIATE")
        try:
            out = body(conn)
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        return out

    return _retrying(once)


def insert_many_retrying(
    conn: sqlite3.Connection, sql: str, rows: list[tuple[Any, ...]]
) -> list[bool]:
    """Run the ``INSERT OR IGNORE`` statement ``sql`` once per row, all in one transaction
    (one commit for the lot), retrying the whole transaction as :func:`execute_retrying`
    retries a write. Per row: whether it was inserted (``False``: the key was there)."""
    return transaction_retrying(conn, lambda c: [c.execute(sql, row).rowcount == 1 for row in rows])

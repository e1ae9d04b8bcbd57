"""Saved games in SQLite (stdlib ``sqlite3``, WAL mode).

One row per game view: ``id``, ``game``, ``state`` (a JSON object owned by the game's
session: board record plus settings), ``created`` and ``updated`` (ISO 8601, UTC), and for
the expiry of abandoned games ``touched`` (last saved or opened), ``moves`` (moves played)
and ``finished`` (0 or 1). The web app saves after every change, so a reloaded page — or a
restarted server — finds the game where it was.

:meth:`GameStore.expire` deletes abandoned games: unfinished ones untouched for
``keep_unfinished_days`` and ones without a move untouched for ``keep_empty_days``.
Finished games are kept, and so are rows written before these columns existed (their
status is unknown) until they are saved again.

The synchronous methods are the API; the ``a``-prefixed coroutines run them on one
dedicated thread, so the event loop never waits on the disk and writes keep their order
(a later save can never be overtaken by an earlier one).
"""

from __future__ import annotations

import asyncio
import functools
import json
import secrets
import threading
import time
from collections.abc import Callable, Collection, Coroutine
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Concatenate, ParamSpec, TypeVar

from banmen._sqlite import connect

__all__ = ["GameStore", "SavedGame", "new_game_id", "is_game_id"]

P = ParamSpec("P")
T = TypeVar("T")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS saved_games (
    id      TEXT PRIMARY KEY,
    game    TEXT NOT NULL,
    state   TEXT NOT NULL,
    created TEXT NOT NULL,
    updated TEXT NOT NULL,
    touched TEXT,
    moves INTEGER,
    finished INTEGER
)
"""
#: Columns added after the first version, for databases created before them.
_ADDED_COLUMNS = (("touched", "TEXT"), ("moves", "INTEGER"), ("finished", "INTEGER"))
_DAY = 86400.0

_ID_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")
MAX_ID_LENGTH = 64


def new_game_id() -> str:
    """An unguessable URL-safe id (11 characters), so ids can go in a page's address."""
    return secrets.token_urlsafe(8)


def is_game_id(text: object) -> bool:
    """Whether ``text`` has the shape of a game id (checked before it reaches SQL or a URL)."""
    return (
        isinstance(text, str)
        and 0 < len(text) <= MAX_ID_LENGTH
        and all(ch in _ID_CHARS for ch in text)
    )


@dataclass(frozen=True)
class SavedGame:
    id: str
    game: str
    state: dict[str, Any]
    created: str
    updated: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "game": self.game,
            "state": self.state,
            "created": self.created,
            "updated": self.updated,
        }


def _stamp(seconds: float) -> str:
    """``seconds`` since the epoch as the store writes times (ISO 8601, UTC, ms): such
    strings sort as the times do."""
    return datetime.fromtimestamp(seconds, UTC).isoformat(timespec="milliseconds")


def _off_loop(
    method: Callable[Concatenate[GameStore, P], T],
) -> Callable[Concatenate[GameStore, P], Coroutine[Any, Any, T]]:
    """``method`` as a coroutine that runs it on the store's own thread."""

    async def run(self: GameStore, /, *args: P.args, **kwargs: P.kwargs) -> T:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(
            self._executor, functools.partial(method, self, *args, **kwargs)
        )

    return run


class GameStore:
    """The ``saved_games`` table of one SQLite file (created, with its folder, on demand).
    ``clock`` (seconds since the epoch) dates the rows, and the expiry."""

    def __init__(self, path: str | Path, clock: Callable[[], float] = time.time) -> None:
        self.path = Path(path)
        self._clock = clock
        # One connection shared under a lock: the async wrappers use a single thread anyway,
        # and tests or the CLI may call the sync API from elsewhere.
        self._conn = connect(path, timeout=5.0, any_thread=True)
        self._lock = threading.Lock()
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="banmen-db")
        with self._lock:
            self._conn.execute(_SCHEMA)
            have = {row[1] for row in self._conn.execute("PRAGMA table_info(saved_games)")}
            for name, kind in _ADDED_COLUMNS:
                if name not in have:
                    self._conn.execute(f"ALTER TABLE saved_games ADD COLUMN {name} {kind}")

    def _now(self) -> str:
        return _stamp(self._clock())

    # ---- synchronous API

    def save(
        self,
        game_id: str,
        game: str,
        state: dict[str, Any],
        *,
        moves: int | None = None,
        finished: bool | None = None,
    ) -> None:
        """Insert or update the game ``game_id``; ``moves`` and ``finished`` (if known)
        decide when it expires."""
        now = self._now()
        done = None if finished is None else int(finished)
        with self._lock:
            self._conn.execute(
                "INSERT INTO saved_games (id, game, state, created, updated, touched, moves,"
                " finished) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
                " ON CONFLICT(id) DO UPDATE SET game = excluded.game, state = excluded.state,"
                " updated = excluded.updated, touched = excluded.touched,"
                " moves = excluded.moves, finished = excluded.finished",
                (game_id, game, json.dumps(state), now, now, now, moves, done),
            )

    def load(self, game_id: str, *, touch: bool = False) -> SavedGame | None:
        """The saved game ``game_id``, or None; ``touch`` marks it as opened now (it
        expires counting from then)."""
        if not is_game_id(game_id):
            return None
        with self._lock:
            row = self._conn.execute(
                "SELECT id, game, state, created, updated FROM saved_games WHERE id = ?",
                (game_id,),
            ).fetchone()
            if row is not None and touch:
                self._conn.execute(
                    "UPDATE saved_games SET touched = ? WHERE id = ?", (self._now(), game_id)
                )
        if row is None:
            return None
        try:
            state = json.loads(row[2])
        except json.JSONDecodeError:
            return None
        if not isinstance(state, dict):
            return None
        return SavedGame(row[0], row[1], state, row[3], row[4])

    def count(self) -> int:
        with self._lock:
            (n,) = self._conn.execute("SELECT COUNT(*) FROM saved_games").fetchone()
        return int(n)

    def expire(
        self, keep_unfinished_days: float, keep_empty_days: float, keep: Collection[str] = ()
    ) -> int:
        """Delete the abandoned games (see the module docstring), except the ids in
        ``keep`` (games open right now); returns how many were deleted."""
        now = self._clock()
        old = _stamp(now - keep_unfinished_days * _DAY)
        stale = _stamp(now - keep_empty_days * _DAY)
        kept = list(keep)
        marks = ",".join("?" * len(kept))
        with self._lock:
            cur = self._conn.execute(
                "DELETE FROM saved_games WHERE finished = 0"
                " AND (COALESCE(touched, updated) < ? OR (moves = 0 AND"
                " COALESCE(touched, updated) < ?))" + (f" AND id NOT IN ({marks})" if kept else ""),
                (old, stale, *kept),
            )
        return int(cur.rowcount)

    def close(self) -> None:
        self._executor.shutdown(wait=True)
        with self._lock:
            self._conn.close()

    # ---- the same, off the event loop

    asave = _off_loop(save)
    aload = _off_loop(load)
    aexpire = _off_loop(expire)

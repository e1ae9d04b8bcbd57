"""Saved games in SQLite (stdlib ``sqlite3``, WAL mode).

One row per game view: ``id``, ``game``, ``state`` (a JSON object owned by the game's
session: board record plus settings), ``created`` and ``updated`` (ISO 8601, UTC). The web
app saves after every change, so a reloaded page — or a restarted server — finds the game
where it was.

The synchronous methods are the API; the ``a``-prefixed coroutines run them on one
dedicated thread, so the event loop never waits on the disk and writes keep their order
(a later save can never be overtaken by an earlier one).
"""

from __future__ import annotations

import asyncio
import json
import secrets
import sqlite3
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

__all__ = ["GameStore", "SavedGame", "new_game_id", "is_game_id"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS saved_games (
    id      TEXT PRIMARY KEY,
    game    TEXT NOT NULL,
    state   TEXT NOT NULL,
    created TEXT NOT NULL,
    updated TEXT NOT NULL
)
"""

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


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


class GameStore:
    """The ``saved_games`` table of one SQLite file (created, with its folder, on demand)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        if str(path) != ":memory:":
            self.path.parent.mkdir(parents=True, exist_ok=True)
        # One connection shared under a lock: the async wrappers use a single thread anyway,
        # and tests or the CLI may call the sync API from elsewhere.
        self._conn = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
        self._lock = threading.Lock()
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="banmen-db")
        with self._lock:
            self._conn.execute("PRAGMA journal_mode=WAL")
            # NORMAL is durable across application crashes in WAL mode and skips an fsync
            # per commit; losing the last move on a power cut is acceptable for a board game.
            self._conn.execute("PRAGMA synchronous=NORMAL")
            self._conn.execute("PRAGMA busy_timeout=5000")
            self._conn.execute(_SCHEMA)

    # ---- synchronous API

    def save(self, game_id: str, game: str, state: dict[str, Any]) -> None:
        """Insert or update the game ``game_id``."""
        now = _now()
        with self._lock:
            self._conn.execute(
                "INSERT INTO saved_games (id, game, state, created, updated) VALUES (?, ?, ?, ?, ?)"
                " ON CONFLICT(id) DO UPDATE SET game = excluded.game, state = excluded.state,"
                " updated = excluded.updated",
                (game_id, game, json.dumps(state), now, now),
            )

    def load(self, game_id: str) -> SavedGame | None:
        if not is_game_id(game_id):
            return None
        with self._lock:
            row = self._conn.execute(
                "SELECT id, game, state, created, updated FROM saved_games WHERE id = ?",
                (game_id,),
            ).fetchone()
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

    def close(self) -> None:
        self._executor.shutdown(wait=True)
        with self._lock:
            self._conn.close()

    # ---- the same, off the event loop

    async def asave(self, game_id: str, game: str, state: dict[str, Any]) -> None:
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(self._executor, self.save, game_id, game, state)

    async def aload(self, game_id: str) -> SavedGame | None:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, self.load, game_id)

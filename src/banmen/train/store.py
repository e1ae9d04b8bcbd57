"""Training runs in SQLite, beside the arena's runs (the same file).

* ``train_runs``: a run's name, game, evaluator, configuration (JSON), status and its
  first weights (the file's bytes);
* ``train_iterations``: per iteration, whether its self-play's weights were all zero,
  the fitted candidate (the weights file's bytes) and the fit's figures (JSON), then the
  gate's result (JSON) and whether the candidate was kept;
* ``train_games``: one row a self-play game: its seed, its ``ctx`` (npz bytes), its
  positions' states (int64 rows), their labels and the moves — committed as each game
  arrives, so a run killed at any moment loses no labelled position, and resuming it
  plays exactly the games missing.

Everything read back is data: arrays through numpy without pickles, JSON, numbers.
"""

from __future__ import annotations

import datetime as _dt
import json
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from banmen._sqlite import connect, connect_readonly, execute_retrying, transaction_retrying
from banmen.train.selfplay import SelfPlayGame

__all__ = ["TrainStore", "TrainRun", "Iteration"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS train_runs (
    name      TEXT PRIMARY KEY,
    game      TEXT NOT NULL,
    evaluator TEXT NOT NULL,
    config    TEXT NOT NULL,
    status    TEXT NOT NULL,
    created   TEXT NOT NULL,
    updated   TEXT NOT NULL,
    start     BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS train_iterations (
    name      TEXT NOT NULL,
    iteration INTEGER NOT NULL,
    zero      INTEGER NOT NULL,
    candidate BLOB,
    fit       TEXT,
    gate      TEXT,
    kept      INTEGER,
    finished  TEXT,
    PRIMARY KEY (name, iteration)
);
CREATE TABLE IF NOT EXISTS train_games (
    name      TEXT NOT NULL,
    iteration INTEGER NOT NULL,
    game      INTEGER NOT NULL,
    seed      INTEGER NOT NULL,
    ctx       BLOB NOT NULL,
    types     TEXT NOT NULL,
    states    BLOB NOT NULL,
    search    BLOB NOT NULL,
    outcome   BLOB NOT NULL,
    exact     BLOB NOT NULL,
    points    REAL NOT NULL,
    moves     TEXT NOT NULL,
    seconds   REAL NOT NULL,
    best      TEXT NOT NULL DEFAULT '[]',
    PRIMARY KEY (name, iteration, game)
);
"""


def _now() -> str:
    return _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")


@dataclass(frozen=True)
class TrainRun:
    name: str
    game: str
    evaluator: str
    config: dict[str, Any]
    status: str
    created: str
    updated: str


@dataclass(frozen=True)
class Iteration:
    iteration: int
    zero: bool
    candidate: bytes | None
    fit: dict[str, Any] | None
    gate: dict[str, Any] | None
    kept: bool | None
    finished: str | None


class TrainStore:
    """The training tables of the SQLite file ``path`` (created if need be). ``readonly``:
    open an existing file for reading only — nothing is created or written, and a file
    without the training tables simply has no runs (:meth:`has_train_tables`); the web
    app reads its databases this way."""

    def __init__(self, path: str | Path, *, readonly: bool = False) -> None:
        self.path = Path(path)
        self.readonly = readonly
        if readonly:
            self._conn = connect_readonly(self.path)
            return
        self._conn = connect(self.path, timeout=0)
        for statement in _SCHEMA.split(";"):
            if statement.strip():
                execute_retrying(self._conn, statement)
        columns = {r[1] for r in self._conn.execute("PRAGMA table_info(train_games)")}
        if "best" not in columns:  # a file written before the search's choices were kept
            execute_retrying(self._conn, "ALTER TABLE train_games ADD COLUMN best TEXT NOT NULL "
                                         "DEFAULT '[]'")  # fmt: skip

    def has_train_tables(self) -> bool:
        """Whether the file holds the training tables (always, unless opened read-only)."""
        row = self._conn.execute(
            "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' "
            "AND name IN ('train_runs', 'train_iterations', 'train_games')"
        ).fetchone()
        return bool(row and row[0] == 3)

    def close(self) -> None:
        self._conn.close()

    def __enter__(self) -> TrainStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- runs

    def create_run(self, name: str, game: str, evaluator: str, config: dict[str, Any],
                   start: bytes) -> None:  # fmt: skip
        """A new run; ``ValueError`` (one line) if one of that name exists."""
        now = _now()
        try:
            execute_retrying(
                self._conn,
                "INSERT INTO train_runs (name, game, evaluator, config, status, created, "
                "updated, start) VALUES (?, ?, ?, ?, 'running', ?, ?, ?)",
                (name, game, evaluator, json.dumps(config), now, now, start),
            )
        except sqlite3.IntegrityError:
            raise ValueError(f"a training run named {name!r} exists already: choose another "
                             f"--name, or continue it with --resume {name}") from None  # fmt: skip

    def run(self, name: str) -> TrainRun:
        """The run ``name``; ``ValueError`` (one line) if there is none."""
        row = self._conn.execute(
            "SELECT name, game, evaluator, config, status, created, updated FROM train_runs "
            "WHERE name = ?", (name,)
        ).fetchone()  # fmt: skip
        if row is None:
            known = self.names()
            hint = f"; runs here: {', '.join(known[-5:])}" if known else "; there are none"
            raise ValueError(f"no training run {name!r} in {self.path}{hint}")
        try:
            config = json.loads(row[3])
        except ValueError:
            raise ValueError(
                f"training run {name!r}: its stored configuration is not JSON"
            ) from None
        return TrainRun(row[0], row[1], row[2], config, row[4], row[5], row[6])

    def names(self) -> list[str]:
        return [r[0] for r in self._conn.execute("SELECT name FROM train_runs ORDER BY created")]

    def runs(self) -> list[TrainRun]:
        return [self.run(n) for n in self.names()]

    def start_weights(self, name: str) -> bytes:
        row = self._conn.execute("SELECT start FROM train_runs WHERE name = ?", (name,)).fetchone()
        return bytes(row[0])

    def set_status(self, name: str, status: str) -> None:
        execute_retrying(self._conn, "UPDATE train_runs SET status = ?, updated = ? WHERE name = ?",
                         (status, _now(), name))  # fmt: skip

    # ---- iterations

    def iterations(self, name: str, weights: bool = False) -> list[Iteration]:
        """The run's iterations in order; their candidates' weights (the files' bytes) only
        if ``weights`` (a listing reads the figures alone)."""
        blob = "candidate" if weights else "NULL"
        rows = self._conn.execute(
            f"SELECT iteration, zero, {blob}, fit, gate, kept, finished FROM train_iterations "  # noqa: S608
            "WHERE name = ? ORDER BY iteration", (name,)
        )  # fmt: skip
        return [
            Iteration(int(r[0]), bool(r[1]), None if r[2] is None else bytes(r[2]),
                      None if r[3] is None else json.loads(r[3]),
                      None if r[4] is None else json.loads(r[4]),
                      None if r[5] is None else bool(r[5]), r[6])
            for r in rows
        ]  # fmt: skip

    def iteration(self, name: str, k: int) -> Iteration | None:
        """Iteration ``k`` with its candidate's weights, if it has begun."""
        return next((i for i in self.iterations(name, True) if i.iteration == k), None)

    def begin_iteration(self, name: str, k: int, zero: bool) -> None:
        execute_retrying(self._conn, "INSERT OR IGNORE INTO train_iterations (name, iteration, "
                         "zero) VALUES (?, ?, ?)", (name, k, int(zero)))  # fmt: skip

    def set_candidate(self, name: str, k: int, weights: bytes, fit: dict[str, Any]) -> None:
        execute_retrying(self._conn, "UPDATE train_iterations SET candidate = ?, fit = ? "
                         "WHERE name = ? AND iteration = ?",
                         (weights, json.dumps(fit), name, k))  # fmt: skip

    def finish_iteration(self, name: str, k: int, gate: dict[str, Any], kept: bool) -> None:
        execute_retrying(self._conn, "UPDATE train_iterations SET gate = ?, kept = ?, "
                         "finished = ? WHERE name = ? AND iteration = ?",
                         (json.dumps(gate), int(kept), _now(), name, k))  # fmt: skip

    # ---- games

    def add_games(self, name: str, k: int, games: list[SelfPlayGame]) -> None:
        """Commit self-play games in one transaction (one already stored is left)."""
        rows = [(name, k, g.index, g.seed, g.ctx, json.dumps(g.types),
                 np.ascontiguousarray(g.states, np.int64).tobytes(),
                 np.ascontiguousarray(g.search, np.float32).tobytes(),
                 np.ascontiguousarray(g.outcome, np.float32).tobytes(),
                 np.packbits(g.exact).tobytes(), g.first_points, " ".join(g.moves), g.seconds,
                 json.dumps(g.best))
                for g in games]  # fmt: skip

        def add(c: sqlite3.Connection) -> None:
            c.executemany(
                "INSERT OR IGNORE INTO train_games (name, iteration, game, seed, ctx, types, "
                "states, search, outcome, exact, points, moves, seconds, best) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)  # fmt: skip

        transaction_retrying(self._conn, add)

    def game_indices(self, name: str, k: int) -> set[int]:
        rows = self._conn.execute(
            "SELECT game FROM train_games WHERE name = ? AND iteration = ?", (name, k)
        )
        return {int(r[0]) for r in rows}

    def games(self, name: str, iterations: list[int]) -> Iterator[SelfPlayGame]:
        """The stored games of ``iterations``, by iteration and index (streamed)."""
        for k in iterations:
            cur = self._conn.execute(
                "SELECT game, seed, ctx, types, states, search, outcome, exact, points, moves, "
                "seconds, best FROM train_games WHERE name = ? AND iteration = ? ORDER BY game",
                (name, k))  # fmt: skip
            for r in cur:
                types = json.loads(r[3])
                states = np.frombuffer(r[4], dtype=np.int64).reshape(-1, max(len(types), 1))
                n = states.shape[0]
                exact = np.unpackbits(np.frombuffer(r[7], dtype=np.uint8))[:n].astype(bool)
                yield SelfPlayGame(
                    int(r[0]), int(r[1]), bytes(r[2]), types, states,
                    np.frombuffer(r[5], dtype=np.float32).astype(np.float64),
                    np.frombuffer(r[6], dtype=np.float32).astype(np.float64),
                    exact, float(r[8]), r[9].split() if r[9] else [], float(r[10]),
                    [str(m) for m in json.loads(r[11])],
                )  # fmt: skip

    def positions(self, name: str, k: int | None = None) -> int:
        """How many positions are stored (in iteration ``k``, or in all)."""
        sql = "SELECT states, types FROM train_games WHERE name = ?"
        args: tuple[Any, ...] = (name,)
        if k is not None:
            sql += " AND iteration = ?"
            args = (name, k)
        total = 0
        for states, types in self._conn.execute(sql, args):
            total += len(states) // (8 * max(len(json.loads(types)), 1))
        return total

    def delete_run(self, name: str) -> None:
        def delete(c: sqlite3.Connection) -> None:
            for table in ("train_games", "train_iterations", "train_runs"):
                c.execute(f"DELETE FROM {table} WHERE name = ?", (name,))  # noqa: S608

        transaction_retrying(self._conn, delete)

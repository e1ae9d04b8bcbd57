"""Arena runs and games in SQLite (stdlib ``sqlite3``, WAL mode).

Each finished game is committed as it arrives — by the local runner's worker processes
themselves, or on a cluster by the driver, which commits each batch of games a Dask
worker sends back in one transaction — keyed by ``(run, pairing, pair, swapped)``: a run
killed at any moment holds every game that was committed and none that was not, and
resuming it plays exactly the missing games (a second insert of the same key is refused,
so nothing is counted twice).

A run's configuration decides what resuming it starts, so :meth:`ArenaStore.create_run`
signs it with this user's key (:mod:`banmen.arena.trust`, column ``signature``) and
:meth:`ArenaStore.signed_config` gives it back with its signature, for the check before a
resume; :meth:`ArenaStore.pin_config` makes sure what starts is what was checked.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import secrets
import sqlite3
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import platformdirs

from banmen._sqlite import (
    connect,
    connect_readonly,
    execute_retrying,
    insert_many_retrying,
    transaction_retrying,
)
from banmen.arena import trust
from banmen.arena.schedule import Job
from banmen.games import Outcome, Termination

__all__ = [
    "ArenaStore", "RunConfig", "GameRecord", "RunIsRunning", "ConfigChanged", "default_db_path",
    "encode_moves",
]  # fmt: skip

_SCHEMA = """
CREATE TABLE IF NOT EXISTS arena_runs (
    id       TEXT PRIMARY KEY,
    config   TEXT NOT NULL,
    status   TEXT NOT NULL,
    created  TEXT NOT NULL,
    updated  TEXT NOT NULL,
    signature TEXT
);
CREATE TABLE IF NOT EXISTS arena_games (
    run_id    TEXT NOT NULL REFERENCES arena_runs(id),
    pairing   INTEGER NOT NULL,
    pair      INTEGER NOT NULL,
    swapped   INTEGER NOT NULL,
    first     TEXT NOT NULL,
    second    TEXT NOT NULL,
    deal_seed INTEGER NOT NULL,
    result    TEXT NOT NULL,
    score1    INTEGER NOT NULL,
    score2    INTEGER NOT NULL,
    moves     TEXT NOT NULL,
    times     TEXT NOT NULL,
    finished  TEXT NOT NULL,
    extra     TEXT NOT NULL DEFAULT '{}',
    outcome   TEXT,
    PRIMARY KEY (run_id, pairing, pair, swapped)
);
"""


def default_db_path() -> Path:
    """The same file as the web app's saved games: ``$BANMEN_DB`` or the user data folder."""

    env = os.environ.get("BANMEN_DB")
    if env:
        return Path(env).expanduser()
    return Path(platformdirs.user_data_dir("banmen")) / "banmen.sqlite3"


def _now() -> str:
    return _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")


@dataclass
class RunConfig:
    """Everything needed to (re)build a run's job list."""

    game: str
    #: [{"name": ..., "spec": TEXT, "parsed": PlayerSpec.to_dict()}] ("parsed": the spec as
    #: read when the run was made; older runs have the text only)
    players: list[dict[str, Any]]
    games: int  # per pairing
    seed: int
    size: int | None = None
    gauntlet: str | None = None
    sprt: list[float] | None = None  # [elo0, elo1]
    alpha: float = 0.05
    beta: float = 0.05
    #: a position in the game's text (``GameDef.board_from_text``): every game starts
    #: there instead of at its seeded deal (``None``: the deals)
    start: str | None = None

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        if d["start"] is None:
            del d["start"]  # a run without one is stored as before there were any
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> RunConfig:
        return cls(**d)


#: a stored ``result`` read as the winner, for games stored before their outcome was
#: (the arena's own column, always from the first mover's side)
_LEGACY_WINNER = {"1-0": 1, "0-1": 2}


@dataclass(frozen=True)
class GameRecord(Job):
    """A played game: its :class:`~banmen.arena.schedule.Job` and how it went.

    ``outcome`` is how it ended (:class:`~banmen.games.Outcome`: side 1 is the first
    mover); ``result`` is the same as PGN writes it (``"1-0"``, ``"0-1"``, ``"1/2-1/2"``,
    ``"*"`` for a game stopped at the ply cap), kept for the files and readers from
    before outcomes were stored. A game stored before then has ``outcome`` ``None``: it
    is counted by its ``result`` as it always was."""

    result: str
    score1: int
    score2: int
    moves: list[str] = field(default_factory=list)
    times: list[float] = field(default_factory=list)
    #: what the game's ``settle`` kept (Go: the agreed dead stones or the cleanup played,
    #: and each engine's answer), and a forfeit's side, player and reason
    extra: dict[str, Any] = field(default_factory=dict)
    outcome: Outcome | None = None
    seconds: float = 0.0  # wall time of the whole game (not stored)
    stored: bool = True  # False if the database held this game already (not stored)

    @property
    def winner(self) -> int | None:
        """The side that won (1: the first mover), ``None`` for no winner."""
        if self.outcome is not None:
            return self.outcome.winner
        return _LEGACY_WINNER.get(self.result)

    @property
    def termination(self) -> Termination | None:
        """How the game ended; ``None`` for a game stored before outcomes were, unless
        its record says it was forfeited."""
        if self.outcome is not None:
            return self.outcome.termination
        return Termination.FORFEIT if self.extra.get("forfeit") else None

    def points_first(self) -> float:
        """The first mover's points: 1, 0, or a half (a draw, a game stopped at the ply
        cap)."""
        winner = self.winner
        return 0.5 if winner is None else 1.0 if winner == 1 else 0.0

    def to_dict(self) -> dict[str, Any]:
        """The stored fields (not ``seconds`` and ``stored``), JSON-ready."""
        d = {k: v for k, v in asdict(self).items() if k not in ("seconds", "stored", "outcome")}
        d["outcome"] = None if self.outcome is None else self.outcome.to_dict()
        return d


class ConfigChanged(ValueError):
    """A run's configuration is no longer the one pinned (:meth:`ArenaStore.pin_config`):
    the file was changed between the check and the start."""


class RunIsRunning(ValueError):
    """Runs that :meth:`ArenaStore.delete_runs` would not delete: their status is
    ``running`` (a run being played — or one whose process was killed, which keeps that
    status until it is resumed)."""

    def __init__(self, runs: dict[str, str]) -> None:
        #: each running run's name and when its status was last set (UTC, ISO 8601)
        self.runs = runs
        names = ", ".join(repr(r) for r in runs)
        many = len(runs) > 1
        super().__init__(f"{'runs' if many else 'run'} {names} {'are' if many else 'is'} "
                         "running: nothing deleted")  # fmt: skip


def _encode_outcome(outcome: Outcome | None) -> str | None:
    return None if outcome is None else json.dumps(outcome.to_dict())


def _decode_outcome(text: Any) -> Outcome | None:
    """The stored outcome (``NULL``: a game stored before outcomes were); one this
    banmen cannot read (another version's termination) counts as none."""
    if not isinstance(text, str):
        return None
    try:
        return Outcome.from_dict(json.loads(text))
    except (ValueError, TypeError, RecursionError):
        return None


def encode_moves(g: GameRecord) -> tuple[str, str, str]:
    """A game's moves, move times and ``extra`` as the store keeps them (JSON)."""
    return json.dumps(g.moves), json.dumps(g.times), json.dumps(g.extra)


class ArenaStore:
    """The runs and games in the SQLite file ``path``, created (with its folder and the
    arena tables) if need be. ``readonly``: open an existing file for reading only —
    nothing is created or written, and a file without arena tables simply has no runs
    (:meth:`has_arena_tables`); the web app reads the CLI's default database this way."""

    def __init__(self, path: str | Path, *, readonly: bool = False) -> None:
        self.path = Path(path)
        self.readonly = readonly
        self._pinned: dict[str, str] = {}
        if readonly:
            self._conn = connect_readonly(self.path)
            return
        # Several processes write (the workers). SQLite's own busy handler sleeps at least a
        # millisecond when the write lock is taken — longer than a quick game's commit takes
        # — so writes retry on a short back-off of their own instead (see _write).
        self._conn = connect(self.path, timeout=0)
        # Checkpoint the WAL every ~40 MB rather than every 4 MB: a checkpoint stalls the
        # commit that triggers it, and with several writers that was a game's worth of time.
        self._conn.execute("PRAGMA wal_autocheckpoint=10000")
        for statement in _SCHEMA.split(";"):
            if statement.strip():
                self._write(statement, ())
        # columns added since: files from before them get them
        self._add_column("arena_games", "extra", "TEXT NOT NULL DEFAULT '{}'")  # 2026-11-24
        self._add_column("arena_runs", "signature", "TEXT")  # 2026-11-28
        self._add_column("arena_games", "outcome", "TEXT")  # issue 37: typed outcomes

    def close(self) -> None:
        self._conn.close()

    def _has_column(self, table: str, column: str) -> bool:
        return column in {row[1] for row in self._conn.execute(f"PRAGMA table_info({table})")}

    def _has_extra(self) -> bool:
        return self._has_column("arena_games", "extra")

    def _add_column(self, table: str, column: str, declaration: str) -> None:
        if self._has_column(table, column):
            return
        try:
            self._write(f"ALTER TABLE {table} ADD COLUMN {column} {declaration}", ())
        except sqlite3.OperationalError as e:  # another process added it just now
            if "duplicate column" not in str(e):
                raise

    @property
    def _extra(self) -> str:
        """The ``extra`` column, or ``'{}'`` in a read-only file made before it."""
        return "extra" if not self.readonly or self._has_extra() else "'{}'"

    @property
    def _outcome(self) -> str:
        """The ``outcome`` column, or ``NULL`` in a read-only file made before it."""
        has = not self.readonly or self._has_column("arena_games", "outcome")
        return "outcome" if has else "NULL"

    def has_arena_tables(self) -> bool:
        """Whether the file holds the arena's tables (always, unless opened read-only)."""
        row = self._conn.execute(
            "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' "
            "AND name IN ('arena_runs', 'arena_games')"
        ).fetchone()
        return bool(row and row[0] == 2)

    def _write(self, sql: str, args: tuple[Any, ...]) -> None:
        execute_retrying(self._conn, sql, args)

    def __enter__(self) -> ArenaStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- runs

    def create_run(self, config: RunConfig, run_id: str | None = None) -> str:
        rid = run_id or f"{config.game}-{_dt.datetime.now().strftime('%Y%m%d-%H%M%S')}-" + (
            secrets.token_hex(2)
        )
        now = _now()
        text = json.dumps(config.to_dict())
        try:  # the creator's signature: resuming it later starts it without asking
            signature: str | None = trust.sign(rid, text)
        except trust.KeyUnavailable:  # no key to be had: a resume will ask, saying why
            signature = None

        def create(c: sqlite3.Connection) -> None:
            c.execute(
                "INSERT INTO arena_runs (id, config, status, created, updated, signature) "
                "VALUES (?, ?, 'running', ?, ?, ?)",
                (rid, text, now, now, signature),
            )
            # Games under a name no run has: left by workers of a run deleted while it
            # played (delete_runs(force=True)). They are not this new run's.
            c.execute("DELETE FROM arena_games WHERE run_id = ?", (rid,))

        try:
            transaction_retrying(self._conn, create)
        except sqlite3.IntegrityError:
            raise ValueError(
                f"a run named {rid!r} exists already: choose another --name, or "
                f"continue it with --resume {rid}"
            ) from None
        return rid

    def _unknown(self, run_id: str) -> str:
        known = self.run_ids()
        hint = f"; runs here: {', '.join(known[-5:])}" if known else "; there are no runs"
        return f"no arena run {run_id!r} in {self.path}{hint}"

    def run_config(self, run_id: str) -> RunConfig:
        """The run's configuration; ``ValueError`` for an unknown run or one this banmen
        cannot read, :class:`ConfigChanged` if it is no longer the one pinned."""
        row = self._conn.execute("SELECT config FROM arena_runs WHERE id = ?", (run_id,)).fetchone()
        if row is None:
            raise ValueError(self._unknown(run_id))
        pinned = self._pinned.get(run_id)
        if pinned is not None and row[0] != pinned:
            raise ConfigChanged(
                f"the configuration of run {run_id!r} in {self.path} changed after it was "
                "checked: nothing of it was started"
            )
        try:
            return RunConfig.from_dict(json.loads(row[0]))
        except (TypeError, ValueError, RecursionError) as e:
            raise ValueError(
                f"run {run_id!r} in {self.path}: its configuration cannot be read "
                f"({type(e).__name__}: {' '.join(str(e).split())[:200]})"
            ) from None

    def signed_config(self, run_id: str) -> tuple[str, str | None]:
        """The run's configuration as stored (the JSON text) and its signature (``None``:
        unsigned, as every run made before signatures); ``ValueError`` if no such run."""
        column = "signature" if self._has_column("arena_runs", "signature") else "NULL"
        row = self._conn.execute(
            f"SELECT config, {column} FROM arena_runs WHERE id = ?", (run_id,)
        ).fetchone()
        if row is None:
            raise ValueError(self._unknown(run_id))
        text, signature = row
        if not isinstance(text, str):
            raise ValueError(f"run {run_id!r} in {self.path}: its configuration cannot be read")
        return text, signature if isinstance(signature, str) else None

    def pin_config(self, run_id: str, config_text: str) -> None:
        """From now on :meth:`run_config` gives the run's configuration only while the file
        holds ``config_text`` (what was checked, or shown and confirmed), and raises
        :class:`ConfigChanged` otherwise: a file changed between the check and the start
        starts nothing."""
        self._pinned[run_id] = config_text

    def sign_run(self, run_id: str, config_text: str) -> bool:
        """Sign the run with this user's key if its configuration is still
        ``config_text`` (the one the user confirmed); whether it was signed. Raises
        :class:`banmen.arena.trust.KeyUnavailable` if there is no key to be had."""
        signature = trust.sign(run_id, config_text)

        def update(c: sqlite3.Connection) -> bool:
            cursor = c.execute(
                "UPDATE arena_runs SET signature = ? WHERE id = ? AND config = ?",
                (signature, run_id, config_text),
            )
            return bool(cursor.rowcount)

        return transaction_retrying(self._conn, update)

    def run_ids(self) -> list[str]:
        return [r[0] for r in self._conn.execute("SELECT id FROM arena_runs ORDER BY created, id")]

    def runs(self) -> list[dict[str, Any]]:
        rows = self._conn.execute(
            "SELECT r.id, r.config, r.status, r.created, r.updated, "
            "(SELECT COUNT(*) FROM arena_games g WHERE g.run_id = r.id) "
            "FROM arena_runs r ORDER BY r.created DESC, r.id"
        ).fetchall()
        return [
            {
                "id": i,
                "config": json.loads(c),
                "status": s,
                "created": cr,
                "updated": u,
                "games_played": n,
            }  # fmt: skip
            for i, c, s, cr, u, n in rows
        ]

    def set_status(self, run_id: str, status: str) -> None:
        self._write(
            "UPDATE arena_runs SET status = ?, updated = ? WHERE id = ?", (status, _now(), run_id)
        )

    def status(self, run_id: str) -> str:
        row = self._conn.execute("SELECT status FROM arena_runs WHERE id = ?", (run_id,)).fetchone()
        return str(row[0]) if row else ""

    def created(self, run_id: str) -> str:
        """When the run was created (UTC, ISO 8601), or ``""`` if there is no such run."""
        row = self._conn.execute("SELECT created FROM arena_runs WHERE id = ?", (run_id,))
        found = row.fetchone()
        return str(found[0]) if found else ""

    def delete_runs(self, run_ids: list[str], *, force: bool = False) -> dict[str, int]:
        """Delete the runs ``run_ids`` and all their games in one transaction; how many
        games each had. Deletes nothing and raises ``ValueError`` if one of them is not
        here, :class:`RunIsRunning` if one is ``running`` (unless ``force``: a run being
        played then stops at its next batch, see :func:`banmen.arena.runner.run_arena`)."""
        ids = list(dict.fromkeys(run_ids))

        def delete(c: sqlite3.Connection) -> dict[str, int]:
            running: dict[str, str] = {}
            for rid in ids:
                row = c.execute(
                    "SELECT status, updated FROM arena_runs WHERE id = ?", (rid,)
                ).fetchone()
                if row is None:
                    raise ValueError("nothing deleted: " + self._unknown(rid))
                if row[0] == "running":
                    running[rid] = str(row[1])
            if running and not force:
                raise RunIsRunning(running)
            out = {}
            for rid in ids:
                out[rid] = c.execute("DELETE FROM arena_games WHERE run_id = ?", (rid,)).rowcount
                c.execute("DELETE FROM arena_runs WHERE id = ?", (rid,))
            return out

        return transaction_retrying(self._conn, delete)

    def delete_run_if_empty(self, run_id: str) -> bool:
        """Delete the run if it holds no game (a run whose start failed); whether it did."""

        def delete(c: sqlite3.Connection) -> bool:
            row = c.execute("SELECT 1 FROM arena_games WHERE run_id = ? LIMIT 1", (run_id,))
            if row.fetchone() is not None:
                return False
            return bool(c.execute("DELETE FROM arena_runs WHERE id = ?", (run_id,)).rowcount)

        return transaction_retrying(self._conn, delete)

    def delete_orphan_games(self, run_id: str) -> int:
        """Delete the games recorded under ``run_id`` if no such run exists (games that
        landed after the run was deleted); how many."""

        def delete(c: sqlite3.Connection) -> int:
            return int(
                c.execute(
                    "DELETE FROM arena_games WHERE run_id = ? AND NOT EXISTS "
                    "(SELECT 1 FROM arena_runs WHERE id = ?)",
                    (run_id, run_id),
                ).rowcount
            )

        return transaction_retrying(self._conn, delete)

    # ---- games

    def add_game(self, run_id: str, g: GameRecord) -> bool:
        """Commit one finished game; False if that game was recorded already."""
        return self.add_games(run_id, [g])[0]

    def add_games(
        self,
        run_id: str,
        games: list[GameRecord],
        encoded: list[tuple[str, str, str]] | None = None,
    ) -> list[bool]:
        """Commit finished games in one transaction; per game, False if that game was
        recorded already (it is then left as it was). ``encoded``: each game's
        :func:`encode_moves` already (then the records' own lists are not read)."""
        now = _now()
        if encoded is None:
            encoded = [encode_moves(g) for g in games]
        rows = [
            (run_id, g.pairing, g.pair, int(g.swapped), g.first, g.second, g.deal_seed,
             g.result, g.score1, g.score2, moves, times, extra, _encode_outcome(g.outcome), now)
            for g, (moves, times, extra) in zip(games, encoded, strict=True)
        ]  # fmt: skip
        return insert_many_retrying(
            self._conn,
            "INSERT OR IGNORE INTO arena_games (run_id, pairing, pair, swapped, first, second, "
            "deal_seed, result, score1, score2, moves, times, extra, outcome, finished) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            rows,
        )

    def done_keys(self, run_id: str) -> set[tuple[int, int, int]]:
        rows = self._conn.execute(
            "SELECT pairing, pair, swapped FROM arena_games WHERE run_id = ?", (run_id,)
        )
        return {(int(a), int(b), int(c)) for a, b, c in rows}

    def games(self, run_id: str) -> list[GameRecord]:
        rows = self._conn.execute(
            f"SELECT pairing, pair, swapped, first, second, deal_seed, result, score1, score2, "
            f"moves, times, {self._extra}, {self._outcome} FROM arena_games WHERE run_id = ? "
            "ORDER BY pairing, pair, swapped",
            (run_id,),
        ).fetchall()
        return [
            GameRecord(p, q, bool(s), f, sec, d, r, s1, s2, json.loads(m), json.loads(t),
                       json.loads(x), _decode_outcome(o))
            for p, q, s, f, sec, d, r, s1, s2, m, t, x, o in rows
        ]  # fmt: skip

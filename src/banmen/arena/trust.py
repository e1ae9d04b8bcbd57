"""Whose run is this? Arena runs signed with a key of the user's, as Jupyter signs notebooks.

A run database is input, never code: ``banmen arena --resume RUN`` starts the players its
configuration names, and a ``ugi:``/``gtp:``/``nboard:`` player is a command line, a
``python:`` player a file of code. So the configuration of a run banmen creates is signed —
an HMAC-SHA256 of the run's name and its configuration exactly as stored, keyed by a
secret that only this user can read — and a resumed run is trusted only if its signature
checks under this user's key. Anything else (a configuration edited in the file, a file
made by another user or on another machine, a run made before signatures existed) shows
what it would start and asks first: ``banmen.cli.arena`` decides how (a question on a
terminal, ``--yes``, or one line refusing).

What asks: an unsigned run whose players include one that starts a program or loads code
(:func:`what_it_runs`: a user's player — ``python:``, ``ugi:``, ``gtp:``, ``nboard:`` —,
a spec this banmen cannot read, or a built-in kind with an option that is not a number —
an option naming a program would be one). A run of banmen's own engines with number
options only starts nothing but banmen itself, within the bounds its options' parser
sets, so it resumes without asking, signed or not.

The key is 32 random bytes (hex) in ``$BANMEN_CONFIG_DIR/arena-signing-key``, else in
the user's config folder (``platformdirs``: ``$XDG_CONFIG_HOME/banmen`` on Linux), made on
first use with mode 0600 in a folder made 0700. A key that others may read or replace (a
file not the user's, readable by group or others, in a folder others may write) is not
used: runs then ask, saying why. Deleting the key makes every run ask once more.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import platformdirs

__all__ = [
    "CONFIG_ENV", "KEY_NAME", "KeyUnavailable", "Player", "Verdict", "check", "config_dir",
    "key_path", "key_problem", "shown", "sign", "verify", "what_it_runs",
]  # fmt: skip

#: the environment variable naming banmen's config folder (where the key lives)
CONFIG_ENV = "BANMEN_CONFIG_DIR"
#: the key's file name in that folder
KEY_NAME = "arena-signing-key"
_SCHEME = "hmac-sha256"
#: what a signature is of (so that it can mean nothing else)
_DOMAIN = "banmen arena run configuration, v1"
_KEY_BYTES = 32
#: the OS has owners and modes to check (not Windows)
_POSIX = hasattr(os, "geteuid")


class KeyUnavailable(Exception):
    """This user's signing key cannot be read, made or used: one line saying why."""


def config_dir() -> Path:
    """banmen's config folder: ``$BANMEN_CONFIG_DIR``, else the user's (platformdirs)."""
    env = os.environ.get(CONFIG_ENV)
    if env:
        return Path(env).expanduser()
    return Path(platformdirs.user_config_dir("banmen"))


def key_path() -> Path:
    """Where this user's signing key is (or will be made)."""
    return config_dir() / KEY_NAME


def _check_private(path: Path, st: os.stat_result, folder: bool) -> None:
    """Refuse a key (or its folder) that someone else could read or replace."""
    if not _POSIX:
        return
    mode = stat.S_IMODE(st.st_mode)
    if st.st_uid != os.geteuid() and not (folder and st.st_uid == 0):
        raise KeyUnavailable(f"{path} belongs to another user: banmen does not use its key")
    if folder and mode & 0o022:
        raise KeyUnavailable(f"{path} may be written by others ({mode:04o}): chmod 700 {path}")
    if not folder and mode & 0o077:
        raise KeyUnavailable(f"{path} may be read by others ({mode:04o}): chmod 600 {path}")


def _read_key(path: Path) -> bytes | None:
    """The key in ``path``; ``None`` if there is none yet."""
    try:
        flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
        fd = os.open(path, flags)
    except FileNotFoundError:
        return None
    except OSError as e:
        raise KeyUnavailable(f"cannot read {path}: {e.strerror or e}") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise KeyUnavailable(f"{path} is not a regular file")
        _check_private(path, st, folder=False)
        _check_private(path.parent, os.stat(path.parent), folder=True)
        data = os.read(fd, 4 * _KEY_BYTES)
    except OSError as e:
        raise KeyUnavailable(f"cannot read {path}: {e.strerror or e}") from None
    finally:
        os.close(fd)
    try:
        key = bytes.fromhex(data.decode("ascii").strip())
    except (UnicodeDecodeError, ValueError):
        key = b""
    if len(key) != _KEY_BYTES:
        raise KeyUnavailable(f"{path} is damaged: delete it (a new key is made; runs ask once)")
    return key


def _make_key(path: Path) -> None:
    """Write a new key to ``path`` unless another process has just written one: the file
    appears whole (written aside, then linked into place) and is never replaced."""
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        aside = path.with_name(f".{path.name}.{secrets.token_hex(6)}")
        fd = os.open(aside, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            os.write(fd, (secrets.token_hex(_KEY_BYTES) + "\n").encode("ascii"))
            os.fsync(fd)
        finally:
            os.close(fd)
        try:
            os.link(aside, path)
        except FileExistsError:  # another process made one first: theirs stands
            pass
        except OSError:  # a file system without hard links: create it exclusively
            try:
                fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            except FileExistsError:
                pass
            else:
                try:
                    os.write(fd, Path(aside).read_bytes())
                    os.fsync(fd)
                finally:
                    os.close(fd)
        finally:
            os.unlink(aside)
    except OSError as e:
        raise KeyUnavailable(f"cannot make a signing key in {path.parent}: "
                             f"{e.strerror or e}") from None  # fmt: skip


def _key(create: bool) -> bytes | None:
    path = key_path()
    key = _read_key(path)
    if key is None and create:
        _make_key(path)
        key = _read_key(path)
    return key


def key_problem() -> str | None:
    """Why this user's key cannot be had (made if need be), in one line; ``None`` if it
    can."""
    try:
        _key(create=True)
    except KeyUnavailable as e:
        return str(e)
    return None


def _mac(key: bytes, run_id: str, config_text: str) -> str:
    message = json.dumps([_DOMAIN, run_id, config_text]).encode("ascii")
    return hmac.new(key, message, hashlib.sha256).hexdigest()


def sign(run_id: str, config_text: str) -> str:
    """The signature of run ``run_id`` whose configuration is stored as ``config_text``,
    under this user's key (made if there is none yet). Raises :class:`KeyUnavailable`."""
    key = _key(create=True)
    assert key is not None
    return f"{_SCHEME}:{_mac(key, run_id, config_text)}"


def verify(run_id: str, config_text: str, signature: object) -> str | None:
    """``None`` if ``signature`` is this user's signature of the run as stored; otherwise
    why the run is not trusted, as words that follow "the run is not trusted: "."""
    if not signature:
        return ("it is not signed (made by a banmen from before signatures, or written "
                "into the file by something else)")  # fmt: skip
    scheme, _, mac = str(signature).partition(":")
    if scheme != _SCHEME or not mac:
        return "its signature is not one banmen makes"
    try:
        key = _key(create=False)
    except KeyUnavailable as e:
        return f"your signing key cannot be used ({e})"
    if key is None:
        return f"it is signed, but not by you (you have no signing key yet: {key_path()})"
    if not hmac.compare_digest(mac.encode("ascii", "replace"),
                               _mac(key, run_id, config_text).encode("ascii")):  # fmt: skip
        return (
            "it is signed, but not by you: the run was edited in the file, or made by "
            "another user or on another machine"
        )
    return None


def what_it_runs(spec: str, game: str | None = None) -> str | None:
    """What starting the player ``spec`` runs besides banmen's own engines, in words;
    ``None`` for one of banmen's own engines whose options are all numbers.

    >>> what_it_runs("alphabeta:depth=3") is None
    True
    >>> what_it_runs('ugi:sh -c "touch x"')
    'starts the program sh -c "touch x"'
    >>> what_it_runs("python:my_ai.py:Greedy,corners=1")
    'runs the Python code in my_ai.py'
    >>> what_it_runs("teleport:now")
    'not a player spec this banmen reads'
    """
    from banmen.games.registry import parse_spec

    try:
        p = parse_spec(spec, game)
    except ValueError:  # (SpecError; an unknown game: GameLoadError, UnknownGameError)
        return "not a player spec this banmen reads"
    if p.user and "where" in p.options:
        return f"runs the Python code in {p.options.get('where')}"
    if p.user:
        command = p.options.get("command")
        return f"starts the program {command}" if command else "starts a program"
    # (an evaluator's options are data it reads: a weights file is read without pickles)
    words = sorted(k for k, v in p.options.items() if not isinstance(v, bool | int | float))
    if words:  # none today: an option naming a program or code, say, would be one
        return f"an option that is not a number ({', '.join(words)})"
    return None


def shown(text: str) -> str:
    """``text`` safe to print on one line: every character that is not printable (a line
    break, a terminal escape, a bidirectional override) written as its escape, so what a
    file holds cannot hide itself or redraw the question it is asked under.

    >>> shown('ugi:evil\\x1b[2K\\ralphabeta')
    'ugi:evil\\\\x1b[2K\\\\ralphabeta'
    """
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii")
                   for c in text)  # fmt: skip


@dataclass(frozen=True)
class Player:
    """A player of a run as its configuration names it, and what starting it runs
    besides banmen (:func:`what_it_runs`; ``None``: nothing)."""

    name: str
    spec: str
    runs: str | None


@dataclass(frozen=True)
class Verdict:
    """What :func:`check` found: ``why`` the run is not trusted (``None``: it is signed
    by this user) and its players."""

    why: str | None
    players: tuple[Player, ...]

    @property
    def signed(self) -> bool:
        return self.why is None

    @property
    def flagged(self) -> tuple[Player, ...]:
        """The players that start a program or load code."""
        return tuple(p for p in self.players if p.runs is not None)

    @property
    def asks(self) -> bool:
        """Whether resuming the run needs the user's word first."""
        return not self.signed and bool(self.flagged)


def check(run_id: str, config_text: str, signature: object, players: Any) -> Verdict:
    """Whether run ``run_id`` (its configuration ``config_text`` as stored, ``signature``,
    and ``players`` as that configuration reads) is this user's, and what it starts.
    Raises ``ValueError`` for players that are not a list of ``{"name", "spec"}``."""
    if not isinstance(players, list) or not all(
        isinstance(p, dict) and isinstance(p.get("name"), str) and isinstance(p.get("spec"), str)
        for p in players
    ):
        raise ValueError(f"run {run_id!r}: its players are not a list of names and specs")
    try:
        game = json.loads(config_text).get("game")
    except (ValueError, AttributeError):
        game = None
    game = game if isinstance(game, str) else None
    found = tuple(Player(p["name"], p["spec"], what_it_runs(p["spec"], game)) for p in players)
    return Verdict(verify(run_id, config_text, signature), found)

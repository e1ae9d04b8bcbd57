"""Your own player in Python, as a banmen engine: the ``python:`` player spec.

``python:FILE.py:NAME`` (a file, by its path) or ``python:package.module:NAME`` (an
importable module), optionally followed by ``,key=value`` options, builds
``NAME(**options)`` — a class or any factory — and plays it wherever a player spec is
taken: ``banmen arena``, ``banmen play``, ``banmen analyse`` (a player with ``think``),
``banmen serve --player``, and behind ``banmen gtp``, ``banmen nboard`` and ``banmen ugi``.

The contract (docs/YOUR_AI.md has an example for each game):

``play(self, board) -> str``
    The move for the side to move, in the game's own notation: what ``board.move_name``
    writes (``"a1"``, ``"f5"``, ``"D4"``, ``"7g7f"``, ``"pass"``). The only method a
    player needs.
``new_game(self)`` (optional)
    A new game starts: forget the last one.
``think(self, board, limit) -> Result`` (optional, used instead of ``play``)
    For a player that reports more than its move: a :class:`banmen.engine.Result` with
    the move and, if it likes, ``score``, ``depth``, ``nodes`` and ``pv``. ``limit`` is a
    :class:`banmen.search.limits.Limit` (what the front end asks; the spec's ``time=S``;
    often none).

The board handed over is a copy: a player may push, pop and look ahead on it as it likes,
and cannot change the game. Whatever goes wrong in the player — an exception (``SystemExit``
and ``KeyboardInterrupt`` included), a move that is not a legal move's name, something
else than a string, its process ending (``os._exit``), a move not given within its
allowance (:func:`banmen.engine.allowance`: ``time=S`` plus the margin, a minute without
one) — is a :class:`PlayerError` naming the player and what it did: the arena records it
as that player's forfeit of the game, a front end as a one-line error.

**The player runs in a process of its own** (:class:`PythonEngine`): the host, ``python
-m banmen.python_host``, started in a process group of its own like any engine
(:mod:`banmen.clients._lines`), spoken to in JSON lines (the board as ``to_dict``, the
limit, the result). So a player that hangs, exits or takes the interpreter down loses
its move and is ended with whatever it started, and the program that asked — the arena's
worker, a GTP session, the web's engine worker — goes on. What the player prints goes to
standard error, never into a protocol. A game ``register()``-ed in this process only (a
test's, a notebook's) is unknown to another process: its players run here
(:class:`LocalPythonEngine`, no such protection).

>>> import textwrap, tempfile, pathlib
>>> src = '''
... class First:
...     def play(self, board):
...         return board.move_name(board.legal_moves[0])
... '''
>>> path = pathlib.Path(tempfile.mkdtemp()) / "first.py"
>>> _ = path.write_text(textwrap.dedent(src))
>>> from banmen.games.registry import make_engine
>>> from banmen.games.mattix import Board
>>> engine = make_engine("mattix", f"python:{path}:First")
>>> engine.think(Board.from_layout("3,X,7,1/5,2,8,4/6,1,2,7/5,3,4,6")).move
'a1'
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from banmen.clients._lines import START_SECONDS, EngineClient, LineProcess
from banmen.engine import (
    Engine,
    EngineFailure,
    GameBoard,
    PlayerSpec,
    Request,
    Result,
    SpecError,
)

if TYPE_CHECKING:
    from banmen.games import GameDef

__all__ = ["PlayerError", "PythonEngine", "LocalPythonEngine", "load_player", "python_engine"]


class PlayerError(EngineFailure):
    """A user's player failed: it raised, answered something that is not a legal move,
    ended its process or took longer than its allowance."""


def _describe(e: BaseException) -> str:
    text = " ".join(str(e).split())
    return f"{type(e).__name__}: {text}" if text else type(e).__name__


def _module(where: str) -> Any:
    """The module ``where`` names: a ``.py`` file by its path, else an importable name."""
    if where.endswith(".py") or "/" in where or "\\" in where:
        path = Path(where).expanduser().resolve()
        if not path.is_file():
            raise SpecError(f"python: no such file {where!r} (looked at {path})")
        name = f"banmen_player_{path.stem}_{hashlib.sha1(str(path).encode()).hexdigest()[:10]}"
        loaded = sys.modules.get(name)
        if loaded is not None:
            return loaded
        spec = importlib.util.spec_from_file_location(name, path)
        if spec is None or spec.loader is None:
            raise SpecError(f"python: cannot load {where!r} as a Python module")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # (so that its classes pickle, and it loads once)
        try:
            spec.loader.exec_module(module)
        except Exception as e:
            del sys.modules[name]
            raise SpecError(f"python: {where} failed to load: {_describe(e)}") from None
        return module
    try:
        return importlib.import_module(where)
    except Exception as e:
        raise SpecError(f"python: cannot import {where!r}: {_describe(e)}") from None


def load_player(where: str, name: str, kwargs: dict[str, Any]) -> Any:
    """``NAME(**kwargs)`` from the file or module ``where``; :class:`SpecError` (a
    ``ValueError``, one line) if it cannot be found or built."""
    module = _module(where)
    factory = getattr(module, name, None)
    if factory is None or not callable(factory):
        raise SpecError(f"python: {where} has no class or function {name!r}")
    try:
        player = factory(**kwargs)
    except Exception as e:
        raise SpecError(f"python: {name}(**{kwargs}) failed: {_describe(e)}") from None
    if not callable(getattr(player, "play", None)) and not callable(getattr(player, "think", None)):
        raise SpecError(f"python: {name} has no play(board) method (nor think(board, limit))")
    return player


class LocalPythonEngine(Engine[GameBoard]):
    """A user's Python player (module docstring) as a banmen :class:`Engine`, run in this
    process: what the host runs, and a ``register()``-ed game's players."""

    ends_at_game_over = True

    def __init__(self, game: GameDef[Any], spec: PlayerSpec) -> None:
        self.game = game
        self.spec = spec
        self.name = spec.text
        self.limit = spec.limit
        self._player: Any = None

    @property
    def player(self) -> Any:
        """The user's object (built on first use)."""
        if self._player is None:
            o = self.spec.options
            if self.spec.kind == "search":  # a search over the rules contract
                from banmen.user_search import load_search

                fn = getattr(_module(o["where"]), o["name"], None)
                if fn is None:
                    raise SpecError(f"search: {o['where']} has no function {o['name']!r}")
                self._player = load_search(self.game, fn, dict(o["kwargs"]), self.spec.text)
            else:
                self._player = load_player(o["where"], o["name"], dict(o["kwargs"]))
        return self._player

    @property
    def has_think(self) -> bool:
        """Whether the player has ``think`` (it reports more than its move)."""
        return callable(getattr(self.player, "think", None))

    def warm_up(self) -> None:
        self.player  # noqa: B018  (built now: a missing file fails before any game)

    def new_game(self) -> None:
        hook = getattr(self.player, "new_game", None)
        if callable(hook):
            try:
                hook()
            except BaseException as e:  # (SystemExit, KeyboardInterrupt: the player's)
                raise PlayerError(f"{self.name}: new_game raised {_describe(e)}") from None

    def _copy(self, board: GameBoard) -> Any:
        if self.game.record is not None:  # (Go: a Game record, also behind GTP)
            return self.game.record(board)
        copy = getattr(board, "copy", None)
        return copy() if callable(copy) else self.game.board_from_dict(board.to_dict())

    def choose(self, board: GameBoard, request: Request) -> Result:
        player = self.player
        mine = self._copy(board)
        result: Result | None = None
        try:
            if callable(getattr(player, "think", None)):
                result = player.think(mine, request.limit)
                if not isinstance(result, Result):
                    raise PlayerError(
                        f"{self.name}: think returned {type(result).__name__}, "
                        "expected a banmen.engine.Result"
                    )
                move = result.move
            else:
                move = player.play(mine)
        except PlayerError:
            raise
        except BaseException as e:  # (SystemExit, KeyboardInterrupt: the player's)
            raise PlayerError(f"{self.name} raised {_describe(e)}") from None
        if not isinstance(move, str):
            raise PlayerError(
                f"{self.name} answered {move!r}: expected a move's name, a string such as "
                f"{board.move_name(board.legal_moves[0])!r}"
            )
        try:
            name = board.move_name(board.parse_move(move))
        except ValueError as e:
            raise PlayerError(f"{self.name} played {move!r}: {e}") from None
        seconds = request.elapsed()
        if result is not None:
            return Result(name, result.score, result.depth, result.nodes, result.nps,
                          list(result.pv), False, result.stopped_by or "player",
                          seconds)  # fmt: skip
        return Result(name, stopped_by="player", seconds=seconds)


class PythonEngine(EngineClient[GameBoard]):
    """A user's Python player run in a process of its own (module docstring): the host,
    ``python -m banmen.python_host``, spoken to in JSON lines."""

    error = PlayerError
    ends_at_game_over = True

    def __init__(
        self, game: GameDef[Any], spec: PlayerSpec, timeout: float = START_SECONDS
    ) -> None:
        # (the spec after the module: nobody reads it, but ps shows whose process it is)
        super().__init__([sys.executable, "-m", "banmen.python_host", spec.text], spec.text,
                         timeout)  # fmt: skip
        self.game = game
        self.spec = spec
        self.limit = spec.limit
        self._think = False

    def _spawn(self) -> LineProcess:
        return LineProcess(self.argv, stderr=None)  # (its prints: the user's to read)

    def _ask(self, message: dict[str, Any], what: str, seconds: float | None = None) -> Any:
        """Send ``message``; the host's answer (its ``error`` raised as :class:`PlayerError`)."""
        self._send(json.dumps(message))
        line = self._line(what=what, seconds=seconds)
        try:
            answer = json.loads(line)
            assert isinstance(answer, dict)
        except (ValueError, AssertionError):
            self._abandon()
            wrote = line[:80]
            raise PlayerError(f"{self.name}: its process wrote {wrote!r}, not an answer") from None
        if "error" in answer:
            raise (SpecError if answer.get("spec") else PlayerError)(str(answer["error"]))
        return answer.get("value")

    def _handshake(self) -> None:
        import os

        load = {"op": "load", "game": self.game.name, "spec": self.spec.to_dict(),
                "path": list(sys.path), "cwd": os.getcwd()}  # fmt: skip
        told = self._ask(load, "not loaded")
        self._think = bool(isinstance(told, dict) and told.get("think"))

    @property
    def has_think(self) -> bool:
        """Whether the player has ``think`` (it reports more than its move)."""
        self._start()
        return self._think

    def new_game(self) -> None:
        self._start()
        self._ask({"op": "new_game"}, "new_game did not return", self.timeout)

    def choose(self, board: GameBoard, request: Request) -> Result:
        self._begin(request)
        try:
            self._start()
            d = self._ask({"op": "think", "board": board.to_dict(),
                           "limit": request.limit.to_dict()}, "no move")  # fmt: skip
        finally:
            self._end()
        try:
            result = Result.from_dict(d)
            name = board.move_name(board.parse_move(str(result.move)))
        except (TypeError, ValueError) as e:
            raise PlayerError(f"{self.name} answered {d!r}: {e}") from None
        result.move = name
        result.seconds = request.elapsed()
        return result

    def close(self) -> None:
        proc, self._proc = self._proc, None
        if proc is not None:
            proc.close(json.dumps({"op": "quit"}))


def python_engine(game: GameDef[Any], spec: PlayerSpec) -> Engine[GameBoard]:
    """The ``python:`` kind's engine for ``game`` (:data:`banmen.clients.kinds.PYTHON`):
    in a process of its own, unless the game was ``register()``-ed in this process only
    (another process would not know it)."""
    from banmen.games.registry import registered_here

    if registered_here(game):
        return LocalPythonEngine(game, spec)
    return PythonEngine(game, spec)

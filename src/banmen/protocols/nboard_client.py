"""An external Othello engine spoken to over the NBoard protocol (version 2).

``NBoardEngine("edax -nboard", depth=8)`` starts the program and plays through it: for each
move the whole game is sent as GGF (``set game``), a ``ping``/``pong`` makes sure the
engine has read it, and ``go`` is answered by ``=== MOVE[/EVAL[/SECONDS]]``. The player spec
``nboard:COMMAND`` (optionally ``nboard:depth=N COMMAND``) builds one for the arena.
"""

from __future__ import annotations

import shlex
import time
from collections.abc import Callable
from typing import Any

from banmen.protocols._lines import LineProcess
from banmen.search.limits import Limit, StopFlag

__all__ = ["NBoardEngine", "NBoardError"]


class NBoardError(RuntimeError):
    """The engine process failed, timed out or broke the protocol."""


class NBoardEngine:
    """An NBoard engine as a banmen :class:`~banmen.engine.Engine`."""

    def __init__(self, command: str | list[str], depth: int = 8, name: str = "",
                 timeout: float = 600.0) -> None:  # fmt: skip
        self.argv = shlex.split(command) if isinstance(command, str) else list(command)
        if not self.argv:
            raise ValueError("nboard needs a command, like 'nboard:edax -nboard'")
        self.depth = depth
        self.name = name or f"nboard:{' '.join(self.argv)}"
        self.timeout = timeout
        self._proc: LineProcess | None = None
        self._ping = 0
        self.engine_name = ""

    # -- process

    def _start(self) -> LineProcess:
        if self._proc is not None and self._proc.alive():
            return self._proc
        if self._proc is not None:  # it died: reap it
            self.close()
        try:
            proc = LineProcess(self.argv)
        except OSError as e:
            raise NBoardError(f"cannot start {self.argv[0]!r}: {e.strerror or e}") from None
        self._proc = proc
        self._send("nboard 2")
        self._send(f"set depth {self.depth}")
        self._sync()
        return proc

    def _send(self, line: str) -> None:
        assert self._proc is not None
        try:
            self._proc.send(line)
        except OSError:
            raise NBoardError(f"{self.name}: the engine process has exited") from None

    def _next(self, deadline: float) -> str:
        assert self._proc is not None
        try:
            line = self._proc.next_line(deadline)
        except TimeoutError:
            proc, self._proc = self._proc, None
            proc.kill()  # its state is unknown: the next move starts a new one
            raise NBoardError(f"{self.name}: no answer in {self.timeout:g} s") from None
        if line is None:
            raise NBoardError(f"{self.name}: the engine process has exited")
        if line.startswith("set myname "):
            self.engine_name = line[len("set myname ") :].strip()
        return line

    def _sync(self) -> None:
        self._ping += 1
        self._send(f"ping {self._ping}")
        deadline = time.monotonic() + self.timeout
        while True:
            words = self._next(deadline).split()
            if words[:1] == ["pong"] and words[1:2] == [str(self._ping)]:
                return

    def warm_up(self) -> None:
        self._start()

    def new_game(self) -> None:
        """Nothing to clear: each move sends the whole game."""

    def close(self) -> None:
        proc, self._proc = self._proc, None
        if proc is not None:
            proc.close("quit")

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # pragma: no cover - interpreter shutdown
            pass

    # -- Engine

    def think(
        self,
        board: Any,
        limit: Limit | None = None,
        on_info: Callable[[Any], None] | None = None,
        stop: StopFlag | None = None,
    ) -> Any:
        from banmen.engine import Result
        from banmen.games.othello import ggf

        t0 = time.perf_counter()
        if board.is_game_over():
            return Result(None, stopped_by="game_over")
        self._start()
        self._send(f"set game {ggf.write(board)}")
        self._sync()
        self._send("go")
        deadline = time.monotonic() + self.timeout
        while True:
            line = self._next(deadline)
            if line.startswith("==="):
                break
        answer = line[3:].strip()
        move_text, *rest = answer.split("/")
        move_text = move_text.strip()
        try:
            move = board.parse_move("pass" if move_text.upper() == "PA" else move_text)
        except ValueError as e:
            raise NBoardError(f"{self.name} answered {answer!r}: {e}") from None
        score = None
        if rest and rest[0].strip():
            try:
                score = round(float(rest[0]))
            except ValueError:
                score = None
        return Result(board.move_name(move), score=score, depth=self.depth,
                      seconds=time.perf_counter() - t0, stopped_by="depth")  # fmt: skip

"""The process a ``python:`` player runs in: ``python -m banmen.python_host``.

Started by :class:`banmen.python_player.PythonEngine` in a process group of its own. It
reads one JSON object a line on standard input and answers each with one JSON line on
what was its standard output when it started; everything else written to standard output
from then on (the player's ``print``) goes to standard error, so nothing a player prints
can be taken for an answer. The messages:

* ``{"op": "load", "game": NAME, "spec": SPEC, "path": [...], "cwd": DIR}``: the game and
  the player built (its module imported with the parent's ``sys.path``, from its working
  directory); ``{"value": null}`` or ``{"error": "one line"}``;
* ``{"op": "new_game"}``: the player's ``new_game`` hook;
* ``{"op": "think", "board": BOARD, "limit": LIMIT}``: the board rebuilt from its
  ``to_dict``, the player's move as a :class:`~banmen.engine.Result` (``{"value":
  RESULT}``), or ``{"error": …}`` for whatever it raised — ``SystemExit`` and
  ``KeyboardInterrupt`` included: they are the player's, never the user's (this process
  is in a session of its own: a Ctrl-C at the terminal does not reach it);
* ``{"op": "quit"}``, or the end of the input: the process ends, whatever threads the
  player left running.
"""

from __future__ import annotations

import json
import os
import sys
from typing import IO, Any


def _serve(out: IO[str]) -> None:
    from banmen.engine import SpecError
    from banmen.python_player import LocalPythonEngine, PlayerError, _describe
    from banmen.search.limits import Limit

    def answer(**what: Any) -> None:
        out.write(json.dumps(what) + "\n")
        out.flush()

    engine: LocalPythonEngine | None = None
    game: Any = None
    for raw in sys.stdin.buffer:
        try:
            msg = json.loads(raw)
            op = msg["op"]
        except (ValueError, KeyError, TypeError):
            answer(error=f"python host: not a message: {raw[:80]!r}")
            continue
        if op == "quit":
            return
        try:
            if op == "load":
                from banmen.engine import PlayerSpec
                from banmen.games.registry import get_game

                sys.path[:] = [str(p) for p in msg["path"]]
                os.chdir(msg["cwd"])
                game = get_game(msg["game"])
                engine = LocalPythonEngine(game, PlayerSpec.from_dict(msg["spec"]))
                engine.warm_up()
                answer(value={"think": engine.has_think})
            elif engine is None:
                answer(error="python host: no player loaded")
            elif op == "new_game":
                engine.new_game()
                answer(value=None)
            elif op == "think":
                board = game.board_from_dict(msg["board"])
                result = engine.think(board, Limit.from_dict(msg["limit"]))
                answer(value=result.to_dict())
            else:
                answer(error=f"python host: unknown op {op!r}")
        except SpecError as e:  # the spec names no player that can be built
            answer(error=" ".join(str(e).split()), spec=True)
        except (PlayerError, ValueError) as e:
            answer(error=" ".join(str(e).split()) or type(e).__name__)
        except BaseException as e:  # a player's SystemExit or KeyboardInterrupt at load
            spec = msg.get("spec")
            name = engine.name if engine is not None else (spec or {}).get("text", "python:")
            answer(error=f"{name} raised {_describe(e)}")


def main() -> None:
    # The answers go where standard output went; the player's prints, to standard error.
    out = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)
    try:
        _serve(out)
    finally:
        out.flush()
        os._exit(0)  # (threads the player started do not keep the process)


if __name__ == "__main__":
    main()

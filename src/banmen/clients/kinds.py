"""The players a user brings, as kinds (:mod:`banmen.kinds`): their own Python (``python:``)
and other programs over UGI, GTP and NBoard. Each reads the text after its ``kind:`` in a
grammar of its own (a command line keeps its spaces, commas and plus signs), takes no
evaluator, and is a *user's* player: judged by the referee, never trusted.

>>> from banmen.games.registry import parse_spec
>>> parse_spec("ugi:time=0.5 depth=4 ./engine --threads 1").options
{'time': 0.5, 'depth': 4, 'command': './engine --threads 1'}
>>> parse_spec("python:my_ai.py:Greedy,time=2,level=3").options["kwargs"]
{'level': 3}
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from banmen.engine import SpecError
from banmen.kinds import Kind, Option, needs_rules, read_by_form
from banmen.search.limits import Limit

__all__ = ["PYTHON", "SEARCH", "UGI", "GTP", "NBOARD"]

_TIME = Option("time", float, "seconds a move (the referee allows its half more, at least 2 s)",
               lo=0.001, hi=1e6)  # fmt: skip
_DEPTH = Option("depth", int, "plies to search (sent as go depth)", lo=1, hi=10_000)
_NODES = Option("nodes", int, "nodes to search (sent as go nodes)", lo=1, hi=2**62)


def _program(kind: str, takes: tuple[Option, ...]) -> Any:
    """The grammar ``kind:[key=N ]…COMMAND``: limits first, then the command line."""
    allowed = {o.name: o for o in takes}
    keys = "".join(f"[{k}=N ]" for k in allowed)

    def read(rest: str, spec: str) -> dict[str, Any]:
        words = rest.split()
        options: dict[str, Any] = {}
        while words and "=" in words[0] and words[0].split("=", 1)[0].lower() in allowed:
            key, value = words.pop(0).split("=", 1)
            option = allowed[key.lower()]
            try:
                options[option.name] = option.read(value, spec)
            except SpecError:
                raise SpecError(
                    f"bad {option.name} in {spec!r}: expected a positive number, got {value!r}"
                ) from None
        if not words:
            raise SpecError(f"{spec!r} names no command: expected {kind}:{keys}COMMAND")
        return {**options, "command": " ".join(words)}

    return read


def _nboard(rest: str, spec: str) -> dict[str, Any]:
    words = rest.split()
    depth = 8
    if words and words[0].lower().startswith("depth="):
        value = words.pop(0).split("=", 1)[1]
        if not value.isdigit() or not 1 <= int(value) <= 60:
            raise SpecError(f"bad depth in {spec!r}: expected a number from 1 to 60")
        depth = int(value)
    if not words:
        raise SpecError(f"{spec!r} names no command: expected nboard:[depth=N ]COMMAND")
    return {"depth": depth, "command": " ".join(words)}


def _python(rest: str, spec: str, kind: str = "python") -> dict[str, Any]:
    """``FILE.py:NAME`` or ``package.module:NAME``, then ``,key=value`` keyword arguments
    for ``NAME`` — but ``time=SECONDS``, the player's time a move."""
    target, *items = [p.strip() for p in rest.split(",")]
    where, _, name = target.rpartition(":")
    expected = f"expected {kind}:FILE.py:NAME or {kind}:package.module:NAME[,key=value...]"
    if not where or not name.isidentifier():
        raise SpecError(f"{spec!r} names no player: {expected}")
    kwargs: dict[str, Any] = {}
    limit: dict[str, float] = {}
    for item in items:
        key, eq, value = item.partition("=")
        if not eq or not key.strip().isidentifier():
            raise SpecError(f"bad option {item!r} in {spec!r}: options are key=value")
        if key.strip() == "time":
            seconds = read_by_form(value.strip())
            if isinstance(seconds, str) or not 0 < seconds <= 1e6:
                raise SpecError(f"bad time in {spec!r}: expected a positive number of "
                                f"seconds, got {value.strip()!r}")  # fmt: skip
            limit = {"time": float(seconds)}
            continue
        kwargs[key.strip()] = read_by_form(value.strip())
    return {"where": where, "name": name, "kwargs": kwargs, **limit}


def _time_only(options: Mapping[str, Any]) -> Limit:
    return Limit(time=options.get("time"))


def _program_limit(options: Mapping[str, Any]) -> Limit:
    if not any(k in options for k in ("time", "depth", "nodes")):
        return Limit(time=1.0)
    return Limit(time=options.get("time"), depth=options.get("depth"), nodes=options.get("nodes"))


PYTHON = Kind(
    "python",
    "your own player in Python: python:FILE.py:NAME or python:package.module:NAME, then "
    ",key=value options for NAME, and ,time=SECONDS a move (its think() gets it; without "
    "it, a minute at most; docs/YOUR_AI.md)",
    options=(_TIME,),
    grammar=_python,
    limit=_time_only,
    build="banmen.python_player:python_engine",
    user=True,
    evaluators=False,
    form="python:FILE.py:NAME[,time=SECONDS][,key=value...]",
)


def _search(rest: str, spec: str) -> dict[str, Any]:
    return _python(rest, spec, "search")


SEARCH = Kind(
    "search",
    "your own search over the rules contract: search:FILE.py:NAME or "
    "search:package.module:NAME, NAME(rules, ctx, state, **options) -> move (compiled with "
    "banmen.jit or plain Python), then ,key=value options, and ,time=SECONDS a move "
    "(docs/YOUR_AI.md)",
    options=(_TIME,),
    grammar=_search,
    limit=_time_only,
    build="banmen.python_player:python_engine",
    needs="rules kernels (GameDef.kernels)",
    applies=needs_rules,
    user=True,
    evaluators=False,
    form="search:FILE.py:NAME[,time=SECONDS][,key=value...]",
)
UGI = Kind(
    "ugi",
    "an external engine over UGI: ugi:[time=SECONDS ][depth=N ][nodes=N ]COMMAND "
    "(default 1 s a move, sent as go movetime; docs/YOUR_AI.md)",
    options=(_TIME, _DEPTH, _NODES),
    grammar=_program("ugi", (_TIME, _DEPTH, _NODES)),
    limit=_program_limit,
    build="banmen.clients.ugi:ugi_engine",
    needs="a UGI position text (GameDef.ugi)",
    applies=lambda game: None if game.ugi is not None else "it has no UGI position text",
    user=True,
    evaluators=False,
    form="ugi:[time=SECONDS ][depth=N ][nodes=N ]COMMAND",
)
GTP = Kind(
    "gtp",
    "an external Go engine over GTP 2: gtp:[time=SECONDS ]COMMAND (without time=, the "
    "engine's own pace, a minute a move at most; docs/YOUR_AI.md lists what banmen sends)",
    options=(_TIME,),
    grammar=_program("gtp", (_TIME,)),
    limit=_time_only,
    user=True,
    evaluators=False,
    form="gtp:[time=SECONDS ]COMMAND",
    noun="GTP engines",
)
NBOARD = Kind(
    "nboard",
    "an external Othello engine over NBoard 2: nboard:[depth=N ]COMMAND (default depth 8; "
    "a minute a move at most; docs/YOUR_AI.md lists what banmen sends)",
    options=(Option("depth", int, "the engine's search depth (set depth N)", lo=1, hi=60),),
    grammar=_nboard,
    limit=lambda options: Limit(depth=options.get("depth")),
    user=True,
    evaluators=False,
    form="nboard:[depth=N ]COMMAND",
    noun="NBoard engines",
)

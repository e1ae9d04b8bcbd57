"""The engine interface every front end drives: ``think(board, limit, on_info) -> Result``.

Modelled on python-chess's ``engine`` module: a :class:`~banmen.search.limits.Limit` bounds
a search, ``on_info`` receives :class:`Info` progress (at least after every completed
iteration), and the :class:`Result` says what was *proved*: ``exact`` is true only when the
score is the game-theoretic value; a search cut short by a limit reports its best move and a
heuristic score, and ``stopped_by`` says which limit ended it.

Players are built from spec strings, shared by the CLI, the arena and the web app::

    >>> engine = make_engine("mattix", "alphabeta:depth=3")
    >>> engine.name
    'alphabeta:depth=3'

Specs: ``alphabeta[:depth=N,time=S,nodes=N]`` (alias ``cpu``; default ``time=1``),
``perfect[:time=S]`` (exact solve), ``random[:seed=N]``.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from banmen.games import GameDef, get_game
from banmen.search.limits import Limit, StopFlag

if TYPE_CHECKING:  # the compiled search is imported by the first AlphaBetaEngine
    from banmen.search.alphabeta import SearchInfo

__all__ = [
    "Info",
    "Result",
    "Engine",
    "AlphaBetaEngine",
    "RandomEngine",
    "SpecError",
    "PlayerSpec",
    "parse_spec",
    "make_engine",
    "ENGINE_KINDS",
]


@dataclass(frozen=True)
class Info:
    """Search progress, for live display. Moves are in the game's notation."""

    depth: int
    score: int
    nodes: int
    nps: float
    pv: list[str]
    seconds: float
    exact: bool = False

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Result:
    """The outcome of :meth:`Engine.think`.

    ``move`` is ``None`` only if the game is over. ``score`` is from the mover's point of
    view in the game's own unit (Mattix: the final score margin); it is the proved value
    when ``exact`` is true and an estimate otherwise. ``stopped_by`` is one of
    ``exact`` (solved), ``depth``, ``time``, ``nodes``, ``stop``, ``game_over``, ``random``.
    """

    move: str | None
    score: int | None = None
    depth: int = 0
    nodes: int = 0
    nps: float = 0.0
    pv: list[str] = field(default_factory=list)
    exact: bool = False
    stopped_by: str = "depth"
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Result:
        return cls(**d)


class Engine(Protocol):
    """Anything that can choose a move."""

    name: str

    def think(
        self,
        board: Any,
        limit: Limit | None = None,
        on_info: Callable[[Info], None] | None = None,
        stop: StopFlag | None = None,
    ) -> Result: ...


class AlphaBetaEngine:
    """The shared compiled alpha-beta over a game's kernels (see ``search.alphabeta``).

    ``limit`` is the player's own default, used when :meth:`think` is given none. An
    unbounded limit solves the position exactly. The transposition table persists
    between calls (and is salted per deal, so it is safe across games).
    """

    def __init__(
        self,
        game: GameDef,
        limit: Limit | None = None,
        name: str | None = None,
        tt_bits: int | None = None,
    ) -> None:
        if game.kernels is None or game.search_position is None:
            raise SpecError(f"{game.name} has no alpha-beta kernels")
        self.game = game
        self.limit = limit if limit is not None else Limit(time=1.0)
        self.name = name or "alphabeta"
        from banmen.search.alphabeta import AlphaBeta

        self.search = AlphaBeta(game.kernels, tt_bits=tt_bits or game.tt_bits)
        self.search.solve_horizon = game.solve_horizon

    def new_game(self) -> None:
        """Forget the table, so the next game's moves depend on nothing played before
        (the arena relies on this to make every game reproducible from its seed)."""
        self.search.clear()

    def warm_up(self) -> None:
        """Load (or, the first time ever, compile) the search for this game now, so that
        the first real search's time is its own."""
        if self.game.sample is not None:
            self.think(self.game.sample(), Limit(depth=2))

    def think(
        self,
        board: Any,
        limit: Limit | None = None,
        on_info: Callable[[Info], None] | None = None,
        stop: StopFlag | None = None,
    ) -> Result:
        assert self.game.search_position is not None
        lim = limit if limit is not None else self.limit
        ctx, state = self.game.search_position(board)
        offset = self.game.score_offset(board)

        def names(pv: list[int]) -> list[str]:
            return [board.move_name(m) for m in pv]

        relay = None
        if on_info is not None:
            callback = on_info

            def relay(si: SearchInfo) -> None:
                callback(
                    Info(
                        si.depth,
                        si.score + offset,
                        si.nodes,
                        si.nps,
                        names(si.pv),
                        si.seconds,
                        si.exact,
                    )  # fmt: skip
                )

        r = self.search.search(ctx, state, lim, stop=stop, on_info=relay)
        return Result(
            move=None if r.move is None else board.move_name(r.move),
            score=r.score + offset,
            depth=r.depth,
            nodes=r.nodes,
            nps=r.nps,
            pv=names(r.pv),
            exact=r.exact,
            stopped_by=r.stopped_by,
            seconds=r.seconds,
        )


class RandomEngine:
    """Uniformly random legal moves (seeded, so games can be replayed)."""

    def __init__(self, seed: int | None = None, name: str = "random") -> None:
        self.rng = random.Random(seed)
        self.name = name

    def think(
        self,
        board: Any,
        limit: Limit | None = None,
        on_info: Callable[[Info], None] | None = None,
        stop: StopFlag | None = None,
    ) -> Result:
        t0 = time.perf_counter()
        moves = list(board.legal_moves)
        if not moves:
            return Result(None, stopped_by="game_over")
        mv = self.rng.choice(moves)
        return Result(board.move_name(mv), stopped_by="random", seconds=time.perf_counter() - t0)


# --------------------------------------------------------------------------- specs


class SpecError(ValueError):
    """A player spec string that does not name a player."""


ENGINE_KINDS = {
    "alphabeta": "negamax alpha-beta; options depth=N, time=SECONDS, nodes=N (default time=1)",
    "perfect": "exact solve (perfect play); option time=SECONDS caps it",
    "random": "uniformly random legal moves; option seed=N",
    "nboard": "an external Othello engine over NBoard: nboard:[depth=N ]COMMAND",
    "gtp": "an external Go engine over GTP: gtp:COMMAND",
    "mcts": "Monte-Carlo tree search (Go); options time=SECONDS, playouts=N, seed=N "
    "(default time=1)",
}
_ALIASES = {"cpu": "alphabeta", "ab": "alphabeta"}
_OPTIONS: dict[str, dict[str, type[int] | type[float]]] = {
    "alphabeta": {"depth": int, "time": float, "nodes": int},
    "perfect": {"time": float, "nodes": int},
    "random": {"seed": int},
    "mcts": {"time": float, "playouts": int, "seed": int},
}


@dataclass(frozen=True)
class PlayerSpec:
    kind: str
    options: dict[str, Any]
    text: str

    @property
    def limit(self) -> Limit:
        o = self.options
        if self.kind == "perfect":
            return Limit(time=o.get("time"), nodes=o.get("nodes"))
        if self.kind == "mcts":  # playouts are the search's nodes
            if not any(k in o for k in ("time", "playouts")):
                return Limit(time=1.0)
            return Limit(time=o.get("time"), nodes=o.get("playouts"))
        if not any(k in o for k in ("depth", "time", "nodes")):
            return Limit(time=1.0)
        return Limit(time=o.get("time"), depth=o.get("depth"), nodes=o.get("nodes"))


def _accepted() -> str:
    return "; ".join(f"{k} ({v})" for k, v in ENGINE_KINDS.items())


def parse_spec(text: str) -> PlayerSpec:
    """Parse ``KIND[:key=value,...]``; ``cpu:perfect`` is accepted for ``perfect``.

    >>> parse_spec("alphabeta:depth=3").limit
    Limit(time=None, depth=3, nodes=None)
    """
    if not isinstance(text, str) or not text.strip():
        raise SpecError(f"empty player spec: expected one of {_accepted()}")
    raw = text.strip()
    kind, _, rest = raw.partition(":")
    kind = _ALIASES.get(kind.strip().lower(), kind.strip().lower())
    if kind == "nboard":
        return _parse_nboard(raw, rest)
    if kind == "gtp":
        return _parse_gtp(raw, rest)
    items = [p.strip() for p in rest.split(",") if p.strip()] if rest else []
    if kind == "alphabeta" and "perfect" in items:
        kind = "perfect"
        items.remove("perfect")
    if kind not in ENGINE_KINDS:
        raise SpecError(f"unknown player {raw!r}: expected one of {_accepted()}")
    allowed = _OPTIONS[kind]
    options: dict[str, Any] = {}
    for item in items:
        key, eq, value = item.partition("=")
        key = key.strip().lower()
        if not eq or key not in allowed:
            names = ", ".join(f"{k}=" for k in allowed)
            raise SpecError(f"bad option {item!r} in {raw!r}: {kind} takes {names}")
        conv = allowed[key]
        try:
            v = conv(value.strip())
        except ValueError:
            what = "an integer" if conv is int else "a number"
            raise SpecError(f"bad value in {item!r}: {key} must be {what}") from None
        if (conv is float and not v > 0) or (conv is int and key != "seed" and v < 1) or v < 0:
            raise SpecError(f"bad value in {item!r}: {key} must be positive")
        if conv is float and v > 1e6:
            raise SpecError(f"bad value in {item!r}: {key} must be at most 1000000 seconds")
        options[key] = v
    return PlayerSpec(kind, options, raw)


def _parse_nboard(raw: str, rest: str) -> PlayerSpec:
    words = rest.split()
    depth = 8
    if words and words[0].lower().startswith("depth="):
        value = words.pop(0).split("=", 1)[1]
        if not value.isdigit() or not 1 <= int(value) <= 60:
            raise SpecError(f"bad depth in {raw!r}: expected a number from 1 to 60")
        depth = int(value)
    if not words:
        raise SpecError(f"{raw!r} names no command: expected nboard:[depth=N ]COMMAND")
    return PlayerSpec("nboard", {"depth": depth, "command": " ".join(words)}, raw)


def _parse_gtp(raw: str, rest: str) -> PlayerSpec:
    if not rest.strip():
        raise SpecError(f"{raw!r} names no command: expected gtp:COMMAND")
    return PlayerSpec("gtp", {"command": rest.strip()}, raw)


def make_engine(game: str | GameDef, spec: str | PlayerSpec) -> Engine:
    """Build the engine a spec names, for ``game``; raises :class:`SpecError` /
    ``UnknownGameError`` (both ``ValueError``) with a one-line message."""
    g = get_game(game) if isinstance(game, str) else game
    s = parse_spec(spec) if isinstance(spec, str) else spec
    if s.kind == "random":
        return RandomEngine(s.options.get("seed"), name=s.text)
    if s.kind == "nboard":
        if g.name != "othello":
            raise SpecError(f"{s.text!r}: NBoard engines play Othello, not {g.name}")
        from banmen.protocols.nboard_client import NBoardEngine

        return NBoardEngine(s.options["command"], depth=s.options["depth"], name=s.text)
    if s.kind == "gtp":
        if g.name != "go":
            raise SpecError(f"{s.text!r}: GTP engines play Go, not {g.name}")
        from banmen.protocols.gtp_client import GTPEngine

        return GTPEngine(s.options["command"], name=s.text)
    if s.kind == "mcts" and g.name != "go":
        raise SpecError(f"{s.text!r}: mcts plays Go only, not {g.name}: use alphabeta")
    if g.make_engine is not None:
        engine: Engine = g.make_engine(s)
        return engine
    return AlphaBetaEngine(g, s.limit, name=s.text)

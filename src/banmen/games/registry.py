"""The game registry: every game by name, found by entry point, and the players each offers.

Every game registers under the entry-point group ``banmen.games``: the name is the game's,
the value its :class:`~banmen.games.GameDef` (``connect-four = "banmen_connect_four:GAME"``).
banmen's own four register the same way in its ``pyproject.toml``; a game package installed
with pip appears beside them in every front end (the arena, ``play``, ``analyse``, ``solve``,
``ugi``, ``python:``/``ugi:`` players, ``--cluster``, the web app) with no line of banmen
changed. docs/ADDING_A_GAME.md is the recipe.

A game's module is imported the first time it is asked for (:func:`get_game`): each one
loads numpy and numba and compiles or loads its kernels, which a command about another
game (or ``banmen --help``) should not pay for. A package that fails to load (its entry
point raises, or gives no valid ``GameDef``) is :class:`GameLoadError` — one line naming
the package — for that game only: :func:`load_games` skips it with that line and every
other game still works.

A package is imported under a time bound (:data:`IMPORT_SECONDS`, on the main thread: a
timer signal interrupts it), so one that hangs at import — waiting for a network, a prompt,
a lock — is left out with one line like any other, and so is one that calls ``sys.exit``
(or raises any ``BaseException``) while it loads; the user's Ctrl-C still interrupts. A
failure is remembered for the rest of the process, and a package that hung is named in the
environment (:data:`HUNG_ENV`) of every process this one starts, so it costs its time bound
once, not once per process (the web app's engine workers, the arena's). banmen's own games
load without a bound: they are the registry's own code.

The registry is a module of its own, above the games (docs/DESIGN.md's floors): a game's
code imports ``banmen.games`` (its package, which the import of any game module runs) and
the contract in :mod:`banmen.games._base`, never the registry that loads the games.
"""

from __future__ import annotations

import importlib
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterable
from types import FrameType
from typing import Any, TypeVar

from banmen.engine import Engine, Part, PlayerSpec, SpecError
from banmen.games._base import EngineKind, GameDef
from banmen.kinds import EvaluatorKind, Kind, Option, limit_of, read_by_form, read_options

__all__ = [  # and GAMES, GAME_NAMES: read when asked (module __getattr__)
    "get_game",
    "make_engine",
    "make_evaluator",
    "parse_spec",
    "search_kinds",
    "evaluator_kinds",
    "evaluator_sets",
    "load_evaluator_set",
    "registered_here",
    "why_not",
    "kinds",
    "kinds_help",
    "offered",
    "SEARCH_GROUP",
    "EVALUATOR_GROUP",
    "UnknownGameError",
    "GameLoadError",
    "BUILT_IN",
    "ENTRY_POINT_GROUP",
    "IMPORT_SECONDS",
    "HUNG_ENV",
    "load_bounded",
    "game_names",
    "load_games",
    "register",
    "unregister",
]

#: The games banmen brings (``banmen.games.<name>``), also registered as entry points.
BUILT_IN: tuple[str, ...] = ("go", "mattix", "othello", "shogi")

#: the entry-point group game packages register under
ENTRY_POINT_GROUP = "banmen.games"

#: games registered in this process (:func:`register`), by name
_registered: dict[str, GameDef[Any]] = {}
#: the entry points found, by game name (read once)
_points: dict[str, Any] | None = None
#: games loaded, by name
_loaded: dict[str, GameDef[Any]] = {}
#: game packages that failed to load in this process, by name: never tried again here
_failed: dict[str, str] = {}
#: the failures already printed by :func:`load_games` (each is printed once a process)
_told: set[str] = set()

#: How long a game package's import (its entry point's ``load``, a web adapter's module)
#: may take, in seconds, before it is interrupted and the package left out. Importing a
#: package's code takes well under a second once numpy and numba are loaded (banmen's own
#: games load them first); a package that waits for something at import would otherwise
#: hang every command that lists the games.
IMPORT_SECONDS = 5.0

#: The environment variable naming the game packages that hung at import in this process
#: (comma-separated), inherited by every process it starts: they leave them out at once.
HUNG_ENV = "BANMEN_HUNG_GAMES"

T = TypeVar("T")


class UnknownGameError(ValueError):
    """A game name banmen does not know."""


class GameLoadError(UnknownGameError):
    """A game package that cannot be loaded: its entry point raises, or it gives no valid
    :class:`GameDef`. The message is one line naming the package and what is wrong."""


def _entry_points() -> dict[str, Any]:
    global _points
    if _points is None:
        from importlib.metadata import entry_points

        found: dict[str, Any] = {}
        for ep in entry_points(group=ENTRY_POINT_GROUP):
            found.setdefault(ep.name.strip().lower(), ep)
        _points = found
    return _points


def game_names() -> tuple[str, ...]:
    """Every game's name, sorted: banmen's own, the installed packages' (entry points)
    and those :func:`register`-ed in this process. Cheap: no game is loaded."""
    return tuple(sorted({*BUILT_IN, *_entry_points(), *_registered}))


def register(game: GameDef[Any]) -> None:
    """Make ``game`` a game of this process (a test's, a notebook's), as an installed
    package's entry point would; ``ValueError`` if it is not a valid :class:`GameDef` or
    its name is taken by another game."""
    _check(game, game.name if isinstance(game, GameDef) else "?", "register()")
    if game.name in BUILT_IN or (game.name in _registered and _registered[game.name] is not game):
        raise ValueError(f"a game named {game.name!r} is registered already")
    _registered[game.name] = game
    _loaded.pop(game.name, None)


def unregister(name: str) -> None:
    """Forget a game :func:`register` added (tests clean up with it)."""
    _registered.pop(name, None)
    _loaded.pop(name, None)


class _ImportTimeout(BaseException):
    """Raised into an import that runs past its time bound (a ``BaseException``, so a
    package's own ``except Exception`` does not swallow it)."""


def _bounded(load: Callable[[], T], seconds: float) -> T:
    """``load()``, interrupted by :class:`_ImportTimeout` after ``seconds`` (and every
    quarter second after that, should the code swallow it) — on the main thread, where
    Python runs signal handlers, with a real-time timer (``SIGALRM``). A timer already
    set (pytest-timeout's, say) is set again afterwards for the time it had left; one
    due before ``seconds`` is left alone, and so, on another thread or without timers,
    is ``load``: it runs unbounded."""
    if (
        not hasattr(signal, "setitimer")
        or threading.current_thread() is not threading.main_thread()
    ):
        return load()
    left, every = signal.getitimer(signal.ITIMER_REAL)
    if left and left <= seconds:
        return load()
    done = False

    def expired(signum: int, frame: FrameType | None) -> None:
        if not done:
            raise _ImportTimeout

    previous = signal.signal(signal.SIGALRM, expired)
    started = time.monotonic()
    signal.setitimer(signal.ITIMER_REAL, seconds, 0.25)
    try:
        out = load()
        done = True
        return out
    finally:
        done = True
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous if previous is not None else signal.SIG_DFL)
        if left:
            spent = time.monotonic() - started
            signal.setitimer(signal.ITIMER_REAL, max(left - spent, 0.001), every)


def _hung_elsewhere() -> set[str]:
    """The packages a parent process found hanging at import (:data:`HUNG_ENV`)."""
    return {n.strip() for n in os.environ.get(HUNG_ENV, "").split(",") if n.strip()}


def load_bounded(
    load: Callable[[], T], where: str, name: str | None = None, failed: str = "failed to load: "
) -> T:
    """``load()`` — the import of a game package's code — within :data:`IMPORT_SECONDS`:
    whatever goes wrong (an exception, ``sys.exit``, any other ``BaseException``, a hang)
    is a :class:`GameLoadError`, one line beginning with ``where``; the user's Ctrl-C
    (``KeyboardInterrupt``) passes. A hang is remembered under ``name`` (if given) in the
    environment the processes started from this one inherit (:data:`HUNG_ENV`); an
    exception's line is ``where``, ``failed``, its type and its message."""
    try:
        return _bounded(load, IMPORT_SECONDS)
    except _ImportTimeout:
        if name is not None:
            os.environ[HUNG_ENV] = ",".join(sorted(_hung_elsewhere() | {name}))
        raise GameLoadError(
            f"{where}: left out: it did not load within {IMPORT_SECONDS:g} s "
            "(does it wait for something when imported?)"
        ) from None
    except KeyboardInterrupt:
        raise
    except SystemExit as e:
        code = e.code if isinstance(e.code, int | None) else " ".join(str(e.code).split())[:200]
        shown = "" if code is None else repr(code)
        why = f"it exits when imported (sys.exit({shown}))"
        raise GameLoadError(f"{where}: left out: {why}") from None
    except BaseException as e:  # anything a broken package does when imported
        text = " ".join(str(e).split()) or type(e).__name__
        raise GameLoadError(f"{where}: {failed}{type(e).__name__}: {text}") from None


def _package(ep: Any) -> str:
    dist = getattr(ep, "dist", None)
    return f"{dist.name} {dist.version}" if dist is not None else str(ep.value)


def _check(game: Any, name: str, where: str) -> None:
    """``GameLoadError`` unless ``game`` is a usable :class:`GameDef` called ``name``."""
    if not isinstance(game, GameDef):
        raise GameLoadError(f"{where}: gives {type(game).__name__}, not a banmen GameDef")
    problems = []
    if game.name != name:
        problems.append(f"its name is {game.name!r}, registered as {name!r}")
    if not game.title:
        problems.append("it has no title")
    if not callable(game.board_from_dict):
        problems.append("board_from_dict is not callable")
    if not game.engines:
        problems.append("it offers no engine (GameDef.engines is empty)")
    for hook in ("start", "outcome"):
        if getattr(game, hook) is not None and not callable(getattr(game, hook)):
            problems.append(f"{hook} is not callable")
    if game.pass_name is not None and (not isinstance(game.pass_name, str) or not game.pass_name):
        problems.append("pass_name is not a move name (a string, or None: no pass)")
    if problems:
        raise GameLoadError(f"{where}: the game {name!r} is not usable: {'; '.join(problems)}")


def get_game(name: str) -> GameDef[Any]:
    """The :class:`GameDef` called ``name`` (case-insensitive): :class:`UnknownGameError`
    for a name no game has, :class:`GameLoadError` for a package that fails to load."""
    key = name.strip().lower() if isinstance(name, str) else None
    if key is None or key not in game_names():
        known = ", ".join(game_names())
        raise UnknownGameError(f"unknown game {name!r}: expected one of {known}")
    if key in _loaded:
        return _loaded[key]
    if key in _registered:
        game: GameDef[Any] = _registered[key]
    elif key in _failed:
        raise GameLoadError(_failed[key])
    elif key in _entry_points():
        ep = _entry_points()[key]
        where = f"game package {_package(ep)} ({ENTRY_POINT_GROUP}: {key} = {ep.value})"
        try:
            if key in BUILT_IN:  # banmen's own code: no bound (a cold import may be slow)
                game = ep.load()
            elif key in _hung_elsewhere():
                raise GameLoadError(
                    f"{where}: left out: it did not load within {IMPORT_SECONDS:g} s in the "
                    "process that started this one"
                )
            else:
                game = load_bounded(ep.load, where, key)
            _check(game, key, where)
        except GameLoadError as e:
            _failed[key] = str(e)
            raise
    else:  # a built-in game with no entry point (an install older than its pyproject)
        game = importlib.import_module(f"banmen.games.{key}").GAME
    _loaded[key] = game
    return game


def load_games(
    names: Iterable[str] | None = None, on_broken: Callable[[str], None] | None = None
) -> dict[str, GameDef[Any]]:
    """The games ``names`` names (default: every game), loaded; a package that fails to
    load is left out and its one-line :class:`GameLoadError` handed to ``on_broken``
    (default: printed on stderr, once a process), so every other game still works.
    banmen's own games are loaded first, so that a package's time bound
    (:data:`IMPORT_SECONDS`) is its own code's and not numpy's or numba's."""
    wanted = list(names if names is not None else game_names())
    found: dict[str, GameDef[Any]] = {}
    for name in sorted(wanted, key=lambda n: n.strip().lower() not in BUILT_IN):
        try:
            found[name] = get_game(name)
        except GameLoadError as e:
            if on_broken is not None:
                on_broken(str(e))
            elif str(e) not in _told:
                _told.add(str(e))
                print(f"banmen: {e}", file=sys.stderr, flush=True)
    return {name: found[name] for name in wanted if name in found}


# --------------------------------------------------------------------------- kinds

#: the entry-point groups searches (and players) and evaluators register under
SEARCH_GROUP = "banmen.searches"
EVALUATOR_GROUP = "banmen.evaluators"

#: banmen's own kinds and evaluators (also its entry points: these serve an install older
#: than its pyproject, as :data:`BUILT_IN` does for the games)
BUILT_IN_KINDS: dict[str, str] = {
    "alphabeta": "banmen.games.engines:ALPHABETA",
    "perfect": "banmen.games.engines:PERFECT",
    "random": "banmen.games.engines:RANDOM",
    "mcts": "banmen.search.kinds:MCTS",
    "puct": "banmen.search.kinds:PUCT",
    "mate": "banmen.search.kinds:MATE",
    "dfpn": "banmen.search.kinds:DFPN",
    "python": "banmen.clients.kinds:PYTHON",
    "search": "banmen.clients.kinds:SEARCH",
    "ugi": "banmen.clients.kinds:UGI",
    "gtp": "banmen.clients.kinds:GTP",
    "nboard": "banmen.clients.kinds:NBOARD",
}
BUILT_IN_EVALUATORS: dict[str, str] = {
    "default": "banmen.games.evaluators:DEFAULT",
    "ntuple": "banmen.games.evaluators:NTUPLE",
    "rollout": "banmen.games.evaluators:ROLLOUT",
    "handset": "banmen.games.othello.evaluators:HANDSET",
    "patterns": "banmen.games.othello.evaluators:PATTERNS",
    "policy": "banmen.games.go.evaluators:POLICY",
}

_kinds: dict[str, Kind] | None = None
_evaluators: dict[str, EvaluatorKind] | None = None


def _load_ref(ref: str) -> Any:
    module, _, attr = ref.partition(":")
    return getattr(importlib.import_module(module), attr)


def _declared(group: str, built_in: dict[str, str], want: type) -> dict[str, Any]:
    """Every declaration of ``group``: banmen's own, then the entry points' (a package's
    that fails to load is left out with one line, as a game package is)."""
    from importlib.metadata import entry_points

    refs = dict(built_in)
    points = {ep.name.strip().lower(): ep for ep in entry_points(group=group)}
    out: dict[str, Any] = {}
    for name, ref in refs.items():
        out[name] = _load_ref(ref)
    for name, ep in points.items():
        if name in out or ep.value in refs.values():
            continue
        where = f"package {_package(ep)} ({group}: {name} = {ep.value})"
        try:
            found = load_bounded(ep.load, where)
        except GameLoadError as e:
            print(f"banmen: {e}", file=sys.stderr, flush=True)
            continue
        if not isinstance(found, want) or getattr(found, "name", None) != name:
            print(f"banmen: {where}: not a {want.__name__} named {name!r}: left out",
                  file=sys.stderr, flush=True)  # fmt: skip
            continue
        out[name] = found
    return out


def search_kinds() -> dict[str, Kind]:
    """Every kind of player a spec may name (searches and users' players), by name."""
    global _kinds
    if _kinds is None:
        _kinds = _declared(SEARCH_GROUP, BUILT_IN_KINDS, Kind)
    return _kinds


def evaluator_kinds() -> dict[str, EvaluatorKind]:
    """Every evaluator a spec may give a search (``+NAME``), by name."""
    global _evaluators
    if _evaluators is None:
        _evaluators = _declared(EVALUATOR_GROUP, BUILT_IN_EVALUATORS, EvaluatorKind)
    return _evaluators


def _alias(name: str) -> str:
    for kind in search_kinds().values():
        if name in kind.aliases:
            return kind.name
    return name


def _accepted(game: GameDef[Any] | None) -> str:
    names = list(kinds(game)) if game is not None else list(search_kinds())
    forms = [search_kinds()[n].usage() if n in search_kinds() else n for n in names]
    return ", ".join(forms) + " (banmen players GAME: what each game offers)"


def _split(raw: str) -> tuple[str, str]:
    """A spec's kind name and the text after it (``kind:rest``, or ``kind+evaluator``)."""
    cut = min((i for i in (raw.find(":"), raw.find("+")) if i >= 0), default=len(raw))
    name = raw[:cut].strip().lower()
    rest = raw[cut + 1 :] if cut < len(raw) and raw[cut] == ":" else raw[cut:]
    return name, rest


def parse_spec(text: str, game: str | GameDef[Any] | None = None) -> PlayerSpec:
    """Read a player spec, once: ``SEARCH[:opt=value,…][+EVALUATOR[:opt=value,…]]``, or a
    kind's own grammar (``ugi:time=0.5 ./engine``). With ``game`` the spec is read as that
    game reads it: its own engine's options (Go's ``learned=``), its older forms
    (``learned=0`` on Othello is ``+handset``) and only what it offers. Raises
    :class:`~banmen.engine.SpecError`: one line naming what is wrong and what is taken.

    >>> parse_spec("alphabeta:depth=3").limit
    Limit(time=None, depth=3, nodes=None)
    >>> parse_spec("cpu:perfect").kind
    'perfect'
    """
    if not isinstance(text, str) or not text.strip():
        raise SpecError(f"empty player spec: expected one of {_accepted(None)}")
    raw = text.strip()
    g = get_game(game) if isinstance(game, str) else game
    name, rest = _split(raw)
    name = _alias(name)
    kind = search_kinds().get(name)
    own = g.engines.get(name) if g is not None else None
    if kind is None and own is None:
        raise SpecError(f"unknown player {raw!r}: expected one of {_accepted(g)}")
    if kind is not None and kind.grammar is not None:
        options = kind.grammar(rest, raw)
        return PlayerSpec(name, options, raw, None, kind.limit(options), kind.user)
    body, plus, ev_text = rest.partition("+")
    words = [w.strip() for w in body.split(",") if w.strip()]
    if kind is not None:
        switch = [w for w in words if w.lower() in kind.variants]
        if switch:
            words.remove(switch[0])
            name = kind.variants[switch[0].lower()]
            kind = search_kinds()[name]
            own = g.engines.get(name) if g is not None else None
    declared: dict[str, Option] = kind.option_map() if kind is not None else {}
    takes = dict(declared)
    legacy: dict[str, Option] = {}
    if own is not None:
        names = own.names()
        takes = {n: declared[n] for n in names if n in declared}
        takes.update({o.name: o for o in own.own()})
        for n in names:  # a game's engine of a kind banmen does not declare: by form
            takes.setdefault(n, Option(n, _Untyped, n))
        legacy = {o.name: o for o in own.legacy}
    options = _read(name, words, raw, takes, legacy, declared, g)
    evaluator = None
    if own is not None and own.migrate is not None:
        options, evaluator = own.migrate(options)
    if plus:
        if kind is not None and not kind.evaluators:
            raise SpecError(f"{raw!r}: {name} takes no evaluator")
        evaluator = _evaluator(ev_text, raw, g, name)
    limit = kind.limit(options) if kind is not None else limit_of(options)
    return PlayerSpec(name, options, raw, evaluator, limit, kind.user if kind else False)


class _Untyped(str):
    """The type of an option a game's engine takes without a declaration: read by its
    form (a whole number, a number, else the text)."""


def _read(kind: str, words: list[str], raw: str, takes: dict[str, Option],
          legacy: dict[str, Option], declared: dict[str, Option],
          game: GameDef[Any] | None) -> dict[str, Any]:  # fmt: skip
    out: dict[str, Any] = {}
    for item in words:
        key, eq, value = item.partition("=")
        key = key.strip().lower()
        option = takes.get(key) or legacy.get(key)
        if not eq or option is None:
            names = ", ".join(f"{k}=" for k in takes) or "no options"
            if eq and game is not None and (key in declared or _anywhere(kind, key)):
                raise SpecError(f"{raw!r}: {game.title}'s {kind} takes no {key}=: it takes {names}")
            raise SpecError(f"bad option {item!r} in {raw!r}: {kind} takes {names}")
        if option.type is _Untyped:
            out[key] = read_by_form(value.strip())
        else:
            out[key] = option.read(value, raw)
    return out


def _anywhere(kind: str, key: str) -> bool:
    """Whether some game's engine of ``kind`` takes option ``key`` (a game's own option
    asked of another game: one line saying this game's engine does not take it)."""
    for g in load_games(on_broken=lambda _: None).values():
        own = g.engines.get(kind)
        if own is not None and (key in own.names() or any(o.name == key for o in own.legacy)):
            return True
    return False


def _evaluator(text: str, raw: str, game: GameDef[Any] | None, search: str) -> Part:
    name, _, rest = text.partition(":")
    name = name.strip().lower()
    evaluators = evaluator_kinds()
    ek = evaluators.get(name)
    usable = [n for n, e in evaluators.items() if game is None or e.applies(game) is None]
    if ek is None:
        known = ", ".join(usable) or "none"
        raise SpecError(f"unknown evaluator {name!r} in {raw!r}: expected one of {known}")
    if game is not None and (why := ek.applies(game)) is not None:
        raise SpecError(f"{raw!r}: the evaluator {name} is not {game.title}'s: {why}; "
                        f"{game.title} has {', '.join(usable) or 'none'}")  # fmt: skip
    if ek.searches and search not in ek.searches:
        raise SpecError(f"{raw!r}: the evaluator {name} serves {', '.join(ek.searches)}, "
                        f"not {search}")  # fmt: skip
    options = read_options(name, rest, raw, ek.option_map(), {})
    return Part(name, options)


def make_evaluator(game: str | GameDef[Any], part: Part) -> Any:
    """The evaluator ``part`` names, built for ``game`` (its data loaded and checked:
    a missing or mismatched weights file is one :class:`~banmen.engine.SpecError`)."""
    g = get_game(game) if isinstance(game, str) else game
    ek = evaluator_kinds().get(part.kind)
    if ek is None:
        raise SpecError(f"unknown evaluator {part.kind!r}")
    build = _load_ref(ek.build) if isinstance(ek.build, str) else ek.build
    return build(g, dict(part.options))


def make_engine(game: str | GameDef[Any], spec: str | PlayerSpec) -> Engine[Any]:
    """Build the engine a spec names, for ``game``: the game's own engine for the kind
    (``GameDef.engines``), else the kind's generic one where the game offers what it
    needs.

    Raises :class:`~banmen.engine.SpecError` / :class:`UnknownGameError` (both
    ``ValueError``) with a one-line message naming what the game offers::

        >>> make_engine("mattix", "alphabeta:depth=3").name
        'alphabeta:depth=3'
        >>> try:
        ...     make_engine("mattix", "alphabeta:learned=0")
        ... except SpecError as e:
        ...     print(e)
        'alphabeta:learned=0': Mattix's alphabeta takes no learned=: it takes depth=, time=, nodes=
    """
    g = get_game(game) if isinstance(game, str) else game
    s = parse_spec(spec, g) if isinstance(spec, str) else spec
    kind = kinds(g).get(s.kind)
    if kind is None:
        raise SpecError(_not_offered(g, s))
    if kind.takes_evaluator:
        evaluator = None if s.evaluator is None else make_evaluator(g, s.evaluator)
        return kind(g, s, evaluator)
    return kind(g, s)


def evaluator_sets(game: GameDef[Any]) -> list[Any]:
    """The kernel sets of every evaluator that serves ``game`` (``banmen warm-up
    --all`` compiles them)."""
    out: list[Any] = []
    for ek in evaluator_kinds().values():
        if ek.sets is not None and ek.applies(game) is None:
            out += list(ek.sets(game))
    return out


def load_evaluator_set(game: str, name: str, purpose: str) -> None:
    """The loader of an evaluator's kernel set (:mod:`banmen.games.evaluators`): the
    search ``purpose`` names (``"search"``: the alpha-beta; ``"mcts"``: MCTS and PUCT)
    with evaluator ``name`` built for ``game`` on its example data (an n-tuple evaluator
    on zero weights), run once on the game's sample position."""
    from banmen.search.limits import Limit

    g = get_game(game)
    ek = evaluator_kinds()[name]
    if ek.example is not None:
        evaluator = ek.example(g)
    else:
        build = _load_ref(ek.build) if isinstance(ek.build, str) else ek.build
        evaluator = build(g, {})
    if g.sample is None:
        return
    if purpose == "mcts":
        from banmen.games.mcts_engines import load_tree

        load_tree(g, evaluator)
        return
    from banmen.games.engines import AlphaBetaEngine

    engine = AlphaBetaEngine(g, tt_bits=10, evaluator=evaluator)
    engine.__dict__["_warmed"] = True  # (this is the warm-up)
    engine.think(g.sample(), Limit(depth=2))


def registered_here(game: GameDef[Any]) -> bool:
    """Whether ``game`` is known to this process only (:func:`register`), not to another
    process that looks it up by name."""
    return game.name in _registered and _registered[game.name] is game


def _generic(kind: Kind) -> EngineKind | None:
    if kind.build is None:
        return None
    build = kind.build
    fn = (lambda: _load_ref(build)) if isinstance(build, str) else (lambda: build)

    def factory(g: GameDef[Any], s: PlayerSpec, e: Any = None) -> Engine[Any]:
        # (an evaluator, when the spec gives one: a kind that takes none never gets one)
        engine: Engine[Any] = fn()(g, s) if e is None else fn()(g, s, e)
        return engine

    return EngineKind(factory, kind.help, tuple(o.name for o in kind.options),
                      takes_evaluator=kind.evaluators)  # fmt: skip


def kinds(game: GameDef[Any]) -> dict[str, EngineKind]:
    """Every player kind ``game`` offers: its own engines first, then every kind whose
    generic engine plays it (:meth:`banmen.kinds.Kind.applies`)."""
    out: dict[str, EngineKind] = dict(game.engines)
    for name, kind in search_kinds().items():
        if name in out or kind.applies(game) is not None:
            continue
        generic = _generic(kind)
        if generic is not None:
            out[name] = generic
    return out


def why_not(game: GameDef[Any], name: str) -> str | None:
    """Why ``game`` does not offer kind ``name`` (``None``: it does)."""
    if name in kinds(game):
        return None
    kind = search_kinds().get(name)
    if kind is None:
        return "no such kind"
    if kind.build is None:
        return f"only games with {kind.needs or 'an engine of their own'} offer it"
    return kind.applies(game) or "it does not apply"


def offered(game: GameDef[Any]) -> list[str]:
    """The names of the player kinds ``game`` offers (:func:`kinds`)."""
    return list(kinds(game))


def kinds_help(game: GameDef[Any]) -> str:
    """One line per kind ``game`` offers: ``kind: what it is; its options``."""
    return "\n".join(f"{k}: {v.help}" for k, v in kinds(game).items())


def _not_offered(g: GameDef[Any], s: PlayerSpec) -> str:
    names = ", ".join(offered(g))
    others = [o.title for o in load_games(on_broken=lambda _: None).values()
              if s.kind in kinds(o)]  # fmt: skip
    kind = search_kinds().get(s.kind)
    noun = kind.noun if kind is not None and kind.noun else f"{s.kind} players"
    where = f"{noun} play {' and '.join(others)} only, not {g.name}" if others else s.kind
    return f"{s.text!r}: {where}: {g.title} offers {names}"


def __getattr__(name: str) -> Any:
    # GAMES (name -> GameDef) is built on first use: importing this package must not
    # import every game; GAME_NAMES (every game's name, sorted) is read when asked.
    if name == "GAMES":
        return load_games()
    if name == "GAME_NAMES":  # (computed when asked: installed packages count)
        return game_names()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

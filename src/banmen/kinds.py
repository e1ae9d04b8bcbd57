"""What a player kind, a search or an evaluator declares about itself: its name, its help,
its options (typed, bounded, with help) and how the text of a spec becomes its options.

A player spec is ``SEARCH[:opt=value,…][+EVALUATOR[:opt=value,…]]``
(``alphabeta:depth=6+patterns:weights=my.npz``), or a program's or a user's player in a
grammar of its own (``ugi:time=0.5 ./engine``, ``python:my_ai.py:Mine,level=3``). The
registry (:mod:`banmen.games.registry`) finds every kind by entry point — searches and
players in the group ``banmen.searches``, evaluators in ``banmen.evaluators``, as games are
found in ``banmen.games`` — and reads a spec once into a
:class:`~banmen.engine.PlayerSpec`: typed data that crosses process pipes and SQLite as it
is, never read again from text. This module is the vocabulary they share, a leaf: it names
no kind and no option itself.

An evaluator kind (:class:`EvaluatorKind`) builds, for a game, an :class:`Evaluator`: data
for a search — the game's rules with its evaluation as one bundle of kernels, the context
they run over, its compiled code as kernel sets — never a search of its own. The searches
that take one say so (:attr:`Kind.evaluators`; a game's own engine,
``EngineKind.takes_evaluator``): the alpha-beta (``alphabeta``, ``perfect``) and the tree
searches (``mcts``, ``puct``) over any game's rules (:mod:`banmen.search.evaluators`
writes the evaluators every game with rules kernels gets: ``default``, ``ntuple``,
``rollout``), and Othello's own engine, which takes its own (``handset``, ``patterns``)
as well.

>>> DEPTH_OPTION = Option("depth", int, "search to this many plies", lo=1, hi=10_000)
>>> DEPTH_OPTION.read("6", "alphabeta:depth=6")
6
>>> DEPTH_OPTION.read("0", "alphabeta:depth=0")
Traceback (most recent call last):
...
banmen.engine.SpecError: bad value in 'alphabeta:depth=0': depth must be positive
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from banmen.engine import SpecError
from banmen.search.limits import Limit

__all__ = [
    "Option",
    "FLAG",
    "Kind",
    "Evaluator",
    "EvaluatorKind",
    "read_options",
    "read_by_form",
    "needs_rules",
    "limit_of",
    "clock_base",
    "LIMIT_OPTIONS",
]

#: an option that is 0 or 1 (a switch): ``Option("probcut", FLAG, …)``
FLAG = bool

#: the options that make a search's limit (:func:`limit_of`): a job that brings its own
#: limit may share the engine of a spec that differs only in these
LIMIT_OPTIONS = frozenset({"time", "depth", "nodes", "playouts"})


@dataclass(frozen=True)
class Option:
    """One option a kind takes: ``name=value`` in a spec.

    ``type`` is ``int``, ``float``, ``str``, :data:`FLAG` (0 or 1, read as a ``bool``) or
    ``Path`` (a file, read as its absolute name: the spec means the same file in a worker);
    numbers are bounded by ``lo`` and ``hi`` (``lo`` > 0 means "positive"), and a
    ``float`` is finite. ``help`` is the one line ``banmen players`` shows."""

    name: str
    type: type
    help: str
    lo: float | None = None
    hi: float | None = None

    def read(self, text: str, spec: str) -> Any:
        """The value ``text`` (from spec ``spec``), typed; :class:`SpecError` (one line
        naming the option and what it takes) if it is not one."""
        item = f"{self.name}={text}"
        value = text.strip()
        if self.type is Path:  # a file: named absolutely, so it means one file everywhere
            if not value:
                raise SpecError(f"bad value in {spec!r}: {self.name} needs a file name")
            return str(Path(value).expanduser().resolve())
        if self.type is str:
            if not value:
                raise SpecError(f"bad value in {spec!r}: {self.name} needs a value")
            return value
        if self.type is bool:
            if value not in ("0", "1"):
                raise SpecError(f"bad value in {spec!r}: {self.name} must be 0 or 1")
            return value == "1"
        try:
            number: int | float = int(value) if self.type is int else float(value)
        except ValueError:
            what = "an integer" if self.type is int else "a number"
            raise SpecError(f"bad value in {item!r}: {self.name} must be {what}") from None
        if isinstance(number, float) and not math.isfinite(number):
            raise SpecError(f"bad value in {item!r}: {self.name} must be a finite number")
        lo, hi = self.lo, self.hi
        if lo is not None and number < lo:
            if lo > 0:
                raise SpecError(f"bad value in {spec!r}: {self.name} must be positive")
            if lo == 0:
                raise SpecError(f"bad value in {spec!r}: {self.name} must be 0 or more")
            raise SpecError(f"bad value in {spec!r}: {self.name} must be at least {_num(lo)}")
        if hi is not None and number > hi:
            raise SpecError(f"bad value in {spec!r}: {self.name} must be at most {_num(hi)}")
        return number

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "type": self.type.__name__, "help": self.help,
                "lo": self.lo, "hi": self.hi}  # fmt: skip


def _num(x: float) -> str:
    return f"{int(x):,}" if float(x).is_integer() else f"{x:g}"


def read_options(
    kind: str, rest: str, spec: str, options: Mapping[str, Option], legacy: Mapping[str, Option]
) -> dict[str, Any]:
    """``key=value,…`` (the text after ``kind:``) as typed options: each key one of
    ``options`` (or of ``legacy``, options a game still reads for an older spec);
    :class:`SpecError` naming what ``kind`` takes otherwise."""
    out: dict[str, Any] = {}
    items = [p.strip() for p in rest.split(",") if p.strip()] if rest else []
    for item in items:
        key, eq, value = item.partition("=")
        key = key.strip().lower()
        option = options.get(key) or legacy.get(key)
        if not eq or option is None:
            names = ", ".join(f"{k}=" for k in options) or "no options"
            raise SpecError(f"bad option {item!r} in {spec!r}: {kind} takes {names}")
        out[key] = option.read(value, spec)
    return out


#: a search's limit when its spec states none
DEFAULT_LIMIT = Limit(time=1.0)


def clock_base(limit: Limit, options: Mapping[str, Any]) -> Limit:
    """What bounds a player's move on a game clock besides the clock: what its spec's
    options state (``mcts:time=0.5`` still caps a move at half a second), or nothing — not
    :data:`DEFAULT_LIMIT`, the second a move a spec that states no bound plays without a
    clock: on a 60 s game clock it capped every move at a second (issue 40 found it in
    issue 39's match against Pachi)."""
    if limit == DEFAULT_LIMIT and all(options.get(k) is None for k in LIMIT_OPTIONS):
        return Limit()
    return limit


def limit_of(options: Mapping[str, Any], default: Limit | None = DEFAULT_LIMIT) -> Limit:
    """The :class:`Limit` a search's options give: ``time``, ``depth``, ``nodes`` (a tree
    search's ``playouts`` are its nodes); none of them: ``default``."""
    nodes = options.get("nodes", options.get("playouts"))
    if all(options.get(k) is None for k in ("time", "depth")) and nodes is None:
        return default if default is not None else Limit()
    depth = options.get("depth")
    return Limit(time=options.get("time"), depth=depth, nodes=nodes)


@dataclass(frozen=True)
class Kind:
    """A kind of player a spec may name: a search (``alphabeta``, ``mcts``, …) or a player
    from outside (``python:``, ``ugi:``, ``gtp:``, ``nboard:``).

    * ``options``: what ``kind:key=value,…`` takes (:class:`Option`);
    * ``grammar``: a kind whose spec is not ``key=value,…`` reads the text after
      ``kind:`` itself (``grammar(rest, spec) -> options``; a program's command line);
      such a kind takes no evaluator;
    * ``limit``: the :class:`Limit` its options give (default: :func:`limit_of`);
    * ``build``: ``"module:function"`` (or a callable), ``function(game, spec) ->
      Engine``, for the games that have no engine of their own for this kind
      (``GameDef.engines``); ``None``: only such games offer it;
    * ``needs``: what a game must have for ``build`` to play it, in words, and
      ``applies(game) -> None | why not`` checks it;
    * ``user``: a player the user brings (their code, another program): judged by the
      referee, never trusted (:attr:`banmen.engine.PlayerSpec.user`);
    * ``evaluators``: whether the kind takes ``+EVALUATOR`` (its generic engine is then
      built ``build(game, spec, evaluator)``: the :class:`Evaluator` the registry made,
      ``None`` without one);
    * ``aliases``: other names for it (``cpu`` for ``alphabeta``)."""

    name: str
    help: str
    options: tuple[Option, ...] = ()
    grammar: Callable[[str, str], dict[str, Any]] | None = None
    limit: Callable[[Mapping[str, Any]], Limit] = limit_of
    build: str | Callable[..., Any] | None = None
    needs: str = ""
    applies: Callable[[Any], str | None] = lambda game: None
    user: bool = False
    evaluators: bool = True
    aliases: tuple[str, ...] = ()
    #: the spec's form, for help: ``"alphabeta[:key=value,...]"``
    form: str = ""
    #: a bare word among the options that names another kind (``cpu:perfect``)
    variants: Mapping[str, str] = field(default_factory=dict)
    #: how messages name its players ("GTP engines"; default "KIND players")
    noun: str = ""

    def option_map(self) -> dict[str, Option]:
        return {o.name: o for o in self.options}

    def usage(self) -> str:
        return self.form or (f"{self.name}[:key=value,...]" if self.options else self.name)


class Evaluator(Protocol):
    """What a search given ``+EVALUATOR`` reads (:class:`EvaluatorKind` builds it for a
    game; :class:`banmen.search.evaluators.RulesEvaluator` is every game's, Othello's
    ``OthelloEvaluator`` its own):

    * ``kernels``: the game's rules contract (:class:`banmen.search.alphabeta.Kernels`)
      with the evaluator's ``evaluate`` — the bundle the search runs instead of the game's;
    * ``context(game_ctx)``: the ``ctx`` those kernels run over, for a position whose own
      ``ctx`` (``GameDef.search_position``) is ``game_ctx`` (a position it cannot value:
      one :class:`~banmen.engine.SpecError` line);
    * ``warm_set(purpose)``: its compiled code for ``"search"`` (alpha-beta) or ``"mcts"``
      (tree searches), a :class:`banmen.warm.KernelSet` an engine's ``warm_up`` loads;
    * ``leaf_playouts``: a tree search values a leaf by the mean reward of this many
      random playouts; 0: by ``evaluate`` squashed with ``kernels.value_scale``;
    * ``reset()``: its random numbers from the start (an engine's ``new_game``)."""

    @property
    def name(self) -> str: ...

    @property
    def kernels(self) -> Any: ...

    @property
    def leaf_playouts(self) -> int: ...

    def context(self, game_ctx: Any) -> Any: ...

    def warm_set(self, purpose: str) -> Any: ...

    def reset(self) -> None: ...


@dataclass(frozen=True)
class EvaluatorKind:
    """An evaluation a search can be given: ``SEARCH+NAME[:opt=value,…]``.

    ``build`` (``"module:function"`` or a callable) is ``function(game, options) ->
    Evaluator`` (an :class:`Evaluator`: the searches that take one know how to use it);
    ``applies(game) -> None | why not`` says which games it serves (a game's own
    evaluators serve that game only; every game's, those whose rules contract has what
    they read); ``searches`` which kinds of search take it."""

    name: str
    help: str
    build: str | Callable[..., Any]
    options: tuple[Option, ...] = ()
    applies: Callable[[Any], str | None] = lambda game: None
    #: which kinds of search can use it (``("alphabeta", "perfect")``; empty: any)
    searches: tuple[str, ...] = ()
    extra: Mapping[str, Any] = field(default_factory=dict)
    #: ``sets(game) -> [KernelSet, …]``: its compiled code for a game, which ``banmen
    #: warm-up --all`` compiles (``None``: a game's own sets hold it)
    sets: Callable[[Any], Any] | None = None
    #: ``example(game) -> Evaluator``: one built without the user's data (an n-tuple
    #: evaluator on zero weights), for its sets' loader (``None``: ``build(game, {})``)
    example: Callable[[Any], Any] | None = None
    #: ``trainer(game) -> Trainer``: how ``banmen train`` fits its weights for a game
    #: (:class:`banmen.trainable.Trainer`; ``"module:function"`` or a callable;
    #: ``None``: it cannot be trained)
    trainer: str | Callable[[Any], Any] | None = None

    def option_map(self) -> dict[str, Option]:
        return {o.name: o for o in self.options}


def read_by_form(text: str) -> int | float | str:
    """An untyped option's value, read by its form: a whole number, a number, else the
    text (a ``python:`` player's keyword arguments; a game's engine option declared by
    name only)."""
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        return text


def needs_rules(game: Any) -> str | None:
    """Why a kind over the rules contract cannot play ``game`` (``None``: it can): it reads
    the game's compiled rules, ``GameDef.kernels`` and ``search_position`` (every
    generic search, evaluator and a user's ``search:``)."""
    if getattr(game, "kernels", None) is None or getattr(game, "search_position", None) is None:
        return "it has no rules kernels (GameDef.kernels)"
    return None

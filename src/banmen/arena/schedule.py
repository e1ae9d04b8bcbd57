"""Who plays whom, on which deal, with which side first.

A run is a list of jobs, one game each. Games come in **pairs**: both games of a pair use
the same deal (the same seed), with the sides swapped, so the first player's advantage
cancels within every pair. Pair ``i`` of every pairing uses deal seed ``seed + i``, so all
pairings of a run meet the same deals.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Any

from banmen.clock import Clock, TimeControl, parse_time_control
from banmen.engine import PlayerSpec, SpecError
from banmen.games import GameDef
from banmen.games.registry import make_evaluator, parse_spec, search_kinds

__all__ = [
    "Player",
    "Job",
    "parse_player",
    "player_specs",
    "make_pairings",
    "make_jobs",
    "ScheduleError",
]

_NAME = re.compile(r"^[A-Za-z0-9_.+-]{1,40}$")


class ScheduleError(ValueError):
    """Players or options that cannot make a run."""


@dataclass(frozen=True)
class Player:
    name: str
    spec: str
    #: the spec as read (what the run stores beside the text, and the workers get)
    parsed: PlayerSpec | None = field(default=None, compare=False)
    #: the game clock it plays on (``--tc``, ``--tc-of``): a time control's text
    #: (:func:`banmen.clock.parse_time_control`), ``None`` for its spec's own limit
    tc: str | None = None

    def to_config(self) -> dict[str, Any]:
        """The run's record of this player: its name, its spec's text and the spec read,
        and its time control if it has one."""
        d: dict[str, Any] = {"name": self.name, "spec": self.spec}
        if self.parsed is not None:
            d["parsed"] = self.parsed.to_dict()
        if self.tc is not None:
            d["tc"] = self.tc
        return d

    def on_clock(self, tc: str) -> Player:
        """This player on the time control ``tc`` (``ScheduleError``, one line, if it is
        not one), written as :func:`~banmen.clock.parse_time_control` writes it back."""
        control = _time_control(self.name, tc)
        written = None if control.unlimited else str(control)
        return Player(self.name, self.spec, self.parsed, written)


@dataclass(frozen=True)
class Job:
    """One game: ``first`` moves first (side 1) on the deal ``deal_seed``."""

    pairing: int
    pair: int
    swapped: bool
    first: str
    second: str
    deal_seed: int

    @property
    def key(self) -> tuple[int, int, int]:
        return (self.pairing, self.pair, int(self.swapped))


def parse_player(text: str, game: str | GameDef[Any] | None = None) -> Player:
    """``NAME=SPEC`` (or just ``SPEC``, which then names itself), its spec read as
    ``game`` reads it."""
    raw = text.strip()
    name, eq, spec = raw.partition("=")
    if not eq:
        name, spec = raw, raw
    name, spec = name.strip(), spec.strip()
    if not _NAME.match(name):
        raise ScheduleError(
            f"bad player name {name!r}: use 1-40 letters, digits and _.+- (as in NAME=SPEC)"
        )
    try:
        parsed = parse_spec(spec, game)
        if parsed.evaluator is not None and game is not None:
            make_evaluator(game, parsed.evaluator)  # (its file read now: one line if bad)
    except SpecError as e:
        raise ScheduleError(f"player {name}: {e}") from None
    return Player(name, spec, parsed)


def _time_control(name: str, text: str) -> TimeControl:
    """Player ``name``'s time control read from ``text`` (``ScheduleError``, one line)."""
    try:
        return parse_time_control(text)
    except ValueError as e:
        raise ScheduleError(f"player {name}: {e}") from None


def player_specs(game: str | GameDef[Any], players: list[dict[str, Any]]) -> dict[str, PlayerSpec]:
    """Each player's spec as the run stored it, read once for the whole run (the workers
    and the cluster get these, never the text): the stored ``parsed`` record where there is
    one (whether a player is a user's is the kind's word, never the record's), else the
    text read now (runs stored before specs were). A player on a clock (``tc``) has its
    time control's fresh clock in its spec's limit (``Limit.clock``): the referee starts
    each game's clocks from it (:mod:`banmen.arena.play`)."""
    out: dict[str, PlayerSpec] = {}
    for p in players:
        data = p.get("parsed")
        spec: PlayerSpec | None = None
        if isinstance(data, dict):
            try:
                spec = PlayerSpec.from_dict(data)
            except ValueError:
                spec = None
            if spec is not None:
                kind = search_kinds().get(spec.kind)
                user = True if kind is None else kind.user
                if spec.text != p["spec"] or spec.user != user:
                    spec = None  # (a record that disagrees with its text: read the text)
        if spec is None:
            try:
                spec = parse_spec(p["spec"], game)
            except SpecError as e:
                raise ScheduleError(f"player {p['name']}: {e}") from None
        tc = p.get("tc")
        if tc is not None:  # its clock rides in its limit: across the pipe and the cluster
            control = _time_control(p["name"], str(tc))
            spec = replace(spec, limit=spec.limit.with_clocks(Clock.start(control)))
        out[p["name"]] = spec
    return out


def make_pairings(players: list[Player], gauntlet: str | None = None) -> list[tuple[str, str]]:
    """Round robin (every two players once) or, with ``gauntlet``, that player against each
    of the others. In each pairing the first name is the one listed first."""
    names = [p.name for p in players]
    if len(names) < 2:
        raise ScheduleError("a run needs at least two players (--player NAME=SPEC, twice)")
    dup = {n for n in names if names.count(n) > 1}
    if dup:
        raise ScheduleError(f"player name {sorted(dup)[0]!r} is used twice: names must differ")
    if gauntlet is not None:
        if gauntlet not in names:
            raise ScheduleError(
                f"--gauntlet {gauntlet!r} is not a player: expected one of {', '.join(names)}"
            )
        return [(gauntlet, n) for n in names if n != gauntlet]
    return [(a, b) for i, a in enumerate(names) for b in names[i + 1 :]]


def make_jobs(pairings: list[tuple[str, str]], games: int, seed: int) -> list[Job]:
    """``games`` per pairing (an even number: ``games // 2`` pairs), interleaved so that
    every pairing progresses at the same pace (and an interrupted run is balanced)."""
    if games < 2 or games % 2:
        raise ScheduleError(
            f"--games must be an even number of at least 2 (games come in pairs), got {games}"
        )
    jobs = []
    for pair in range(games // 2):
        for index, (a, b) in enumerate(pairings):
            deal = seed + pair
            jobs.append(Job(index, pair, False, a, b, deal))
            jobs.append(Job(index, pair, True, b, a, deal))
    return jobs

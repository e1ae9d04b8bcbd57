"""The user's own players on the board: ``banmen serve --player GAME:NAME=SPEC``.

Each one becomes a CPU choice on its game's page, next to banmen's levels, and plays
through the same engine pool, under the same caps (:data:`banmen.web.levels.MOVE_TIME_CAP`
a move, the pool's stop grace and overrun kill). An engine that fails a move gets a
one-line message on the page and the game pauses, with the human free to pick another
CPU (:mod:`banmen.web.cpu_turns`).

Every player is checked before the server starts: its spec parsed against what its game
offers, a ``python:`` file imported and its player built, an external program started
and shaken hands with, then closed. A player that cannot start stops ``banmen serve``
with one line, not the first game that picks it.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable

from banmen.engine import SpecError

__all__ = ["parse_players", "check_player"]


def parse_players(items: Iterable[str], games: Collection[str]) -> dict[str, dict[str, str]]:
    """``GAME:NAME=SPEC`` items as {game: {name: spec}}; ``SpecError`` (one line) on a
    bad item. Checks the form, the game, the name and the spec's kind, not that the
    player starts (:func:`check_player`)."""
    from banmen.games.registry import get_game, kinds, parse_spec

    out: dict[str, dict[str, str]] = {}
    expected = "expected GAME:NAME=SPEC, e.g. othello:greedy=python:greedy.py:Greedy"
    for item in items:
        left, eq, spec = item.partition("=")
        if not eq or not left.strip() or not spec.strip():
            raise SpecError(f"--player {item!r}: {expected}")
        game, colon, name = left.strip().rpartition(":")
        spec = spec.strip()
        where = game.strip() if colon and game.strip() in games else None
        kind = parse_spec(spec, where).kind
        if not colon:
            owners = [g for g in games if kind in get_game(g).engines]
            if len(owners) != 1:
                raise SpecError(
                    f"--player {item!r}: say which game it plays ({', '.join(games)}): {expected}"
                )
            game = owners[0]
        game = game.strip()
        if game not in games:
            raise SpecError(
                f"--player {item!r}: no game {game!r} on the web pages: "
                f"expected one of {', '.join(games)}"
            )
        name = name.strip()
        if not name or name == "human" or not all(c.isalnum() or c in "-_." for c in name):
            raise SpecError(
                f"--player {item!r}: bad name {name!r}: expected letters, digits, - _ or ., "
                "other than 'human'"
            )
        offers = kinds(get_game(game)).get(kind)
        if offers is None:
            raise SpecError(
                f"--player {item!r}: {get_game(game).title} offers no {kind} "
                f"players: it offers {', '.join(kinds(get_game(game)))}"
            )
        if name in out.get(game, {}):
            raise SpecError(f"--player {item!r}: {game} already has a player named {name!r}")
        out.setdefault(game, {})[name] = spec
    return out


def check_player(game: str, spec: str) -> None:
    """Build the player ``spec`` names for ``game`` and start it (a ``python:`` file
    imported and its player built; an external program started and asked ``ugi`` /
    ``name`` / ``nboard``), then close it. Raises ``ValueError`` or ``RuntimeError``
    with a one-line message if it cannot start. banmen's own engines are only built:
    their compiled code loads in the server's workers."""
    from banmen.games.registry import make_engine, parse_spec

    parsed = parse_spec(spec, game)
    engine = make_engine(game, parsed)
    if not parsed.user:
        return
    try:
        engine.warm_up()
    finally:
        engine.close()

"""The games the web app offers, found in the games themselves: every loaded game
(:func:`banmen.games.registry.load_games`) that has a page. A game has a page when its
:class:`~banmen.games.GameDef` names its own web adapter (``web = "module:Class"``, a
:class:`~banmen.web.games.WebGame`) or tells the generic board page how to draw it
(``grid``, a :class:`~banmen.games.GridView`: :class:`banmen.web.grid.GridGame`).

The home page, the game pages (``/<name>``), the game sockets (``/ws/<name>``) and
``/api/games`` are built from this, so nothing in the web layer lists the games: an
installed game package with a ``grid`` gets a page with no line of banmen changed. A game
whose adapter cannot be made (its module does not import, its class is no adapter, its
grid game has no starting position) is left out with one line naming it, like a game
package that fails to load; every other game is served.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from banmen.engine import SpecError
from banmen.games import GameDef
from banmen.games.registry import GameLoadError, load_bounded, load_games
from banmen.web.games._base import AdapterError, WebGame
from banmen.web.replies import one_line

__all__ = [
    "AdapterError",
    "CATALOG",
    "GameEntry",
    "adapter_class",
    "catalog",
    "has_page",
    "make_games",
    "web_games",
]


@dataclass(frozen=True)
class GameEntry:
    name: str  # also the WebSocket path: /ws/<name>
    title: str
    path: str  # the page's URL
    summary: str

    @classmethod
    def of(cls, game: GameDef[Any]) -> GameEntry:
        """The entry of ``game``: its title and summary, its page at ``/<name>``."""
        return cls(game.name, game.title, f"/{game.name}", game.summary)

    def to_dict(self) -> dict[str, str]:
        return {"name": self.name, "title": self.title, "path": self.path, "summary": self.summary}


def has_page(game: GameDef[Any]) -> bool:
    """Whether ``game`` has a web page: its own adapter, or the generic board page."""
    return game.web is not None or game.grid is not None


def web_games(on_broken: Callable[[str], None] | None = None) -> dict[str, GameDef[Any]]:
    """Every loaded game that has a page, by name (in :func:`banmen.games.registry.game_names`'
    order); a package that fails to load is handed to ``on_broken`` (default: a line on
    stderr) and left out."""
    return {n: g for n, g in load_games(on_broken=on_broken).items() if has_page(g)}


def catalog(games: Mapping[str, GameDef[Any]] | None = None) -> tuple[GameEntry, ...]:
    """The entries of ``games`` (default: :func:`web_games`)."""
    found = web_games() if games is None else games
    return tuple(GameEntry.of(g) for g in found.values() if has_page(g))


def adapter_class(game: GameDef[Any]) -> type[WebGame[Any]]:
    """The class of ``game``'s web adapter: the one its ``web`` names, else the generic
    board page's; :class:`AdapterError` (one line) if there is none to be had."""
    if game.web is None:
        if game.grid is None:
            raise AdapterError(
                f"{game.title} has no web page: its GameDef sets neither web nor grid"
            )
        from banmen.web.grid import GridGame

        return GridGame
    module, colon, attr = game.web.partition(":")
    where = f"{game.title}'s web adapter {game.web!r}"
    if not colon or not module or not attr:
        raise AdapterError(f"{where}: expected 'module:Class'")
    try:  # (within the registry's time bound: a module that hangs or exits is one line)
        imported = load_bounded(
            lambda: importlib.import_module(module), f"{where} cannot be imported", failed=""
        )
        found = getattr(imported, attr)
    except GameLoadError as e:
        raise AdapterError(str(e)) from None
    except AttributeError:
        raise AdapterError(f"{where}: its module has no {attr!r}") from None
    if not (isinstance(found, type) and issubclass(found, WebGame)):
        raise AdapterError(f"{where} is not a banmen.web.games.WebGame subclass")
    return found


def _say(line: str) -> None:
    print(f"banmen: {line}", file=sys.stderr, flush=True)


def make_games(
    extra_levels: Mapping[str, str] | None = None,
    players: Mapping[str, Mapping[str, str]] | None = None,
    games: Mapping[str, GameDef[Any]] | None = None,
    on_broken: Callable[[str], None] | None = None,
) -> dict[str, WebGame[Any]]:
    """The adapters of ``games`` (default: :func:`web_games`), by name; ``extra_levels``
    (name -> spec) are added to every game's levels, ``players`` (game -> name -> spec:
    ``banmen serve --player``) to their game's. Raises ``SpecError`` on a bad spec; a game
    whose adapter cannot be made is handed to ``on_broken`` (one line; default: stderr)
    and left out."""
    say = on_broken if on_broken is not None else _say
    # (None: the registry prints a package that fails to load, once a process)
    found = web_games(on_broken=on_broken) if games is None else games
    own = players or {}
    out: dict[str, WebGame[Any]] = {}
    for name, game in found.items():
        try:
            cls = adapter_class(game)
            adapter = cls.from_game(game, extra_levels, own.get(name))
        except AdapterError as e:
            say(str(e))
            continue
        except SpecError:
            raise  # a bad level or player: the server's own settings are wrong
        except (Exception, SystemExit) as e:  # anything a game package's adapter does when made
            say(f"{game.title}'s web page cannot be made: {type(e).__name__}: {one_line(e)}")
            continue
        if adapter.name != name:
            say(f"{game.title}'s web adapter is for game {adapter.name!r}, not {name!r}")
            continue
        out[name] = adapter
    return out


class _Catalog(Sequence[GameEntry]):
    """:data:`CATALOG`: the entries of every game that has a page, read each time it is
    used (not when it is imported: importing this module loads no game)."""

    def __getitem__(self, index: Any) -> Any:
        return catalog()[index]

    def __len__(self) -> int:
        return len(catalog())

    def __iter__(self) -> Iterator[GameEntry]:
        return iter(catalog())

    def __repr__(self) -> str:
        return f"CATALOG{catalog()!r}"


#: the entries of every game that has a page (:func:`catalog`), read when used: installed
#: game packages count
CATALOG: Sequence[GameEntry] = _Catalog()

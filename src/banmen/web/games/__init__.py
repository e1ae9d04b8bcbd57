"""The games' web adapters (see ``_base.WebGame``): banmen's own games bring theirs
(:mod:`.mattix`, :mod:`.othello`, :mod:`.go`, named by their ``GameDef.web``); a game with
a ``grid`` and no adapter of its own gets the generic board page's
(:class:`banmen.web.grid.GridGame`). :func:`banmen.web.catalog.make_games` makes one per
game the app serves."""

from __future__ import annotations

from banmen.web.games._base import STOPPED_BY, AdapterError, Defaults, RecordFile, WebGame

__all__ = ["AdapterError", "Defaults", "RecordFile", "WebGame", "STOPPED_BY"]

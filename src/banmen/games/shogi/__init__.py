"""Shogi, as far as banmen needs it: tsume-shogi (mate problems) over cshogi's rules."""

from banmen.games.shogi.sfen import STARTPOS, ShogiError, normalize_sfen, parse_sfen

__all__ = ["STARTPOS", "ShogiError", "normalize_sfen", "parse_sfen"]

"""Shogi, as far as banmen needs it: tsume-shogi (mate problems).

Rules as compiled kernels (:mod:`banmen.games.shogi.kernel`); cshogi parses and writes the
notation and is the kernels' oracle in the tests."""

from banmen.games.shogi.sfen import STARTPOS, ShogiError, normalize_sfen, parse_sfen

__all__ = ["STARTPOS", "ShogiError", "normalize_sfen", "parse_sfen"]

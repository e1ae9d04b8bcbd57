"""``banmen usi``: banmen as a tsume-shogi engine for shogi GUIs."""

from __future__ import annotations

from typing import Annotated

from banmen.cli._app import number_option
from banmen.numbers import HASH

HASH_DEFAULT = 256


def usi(
    hash_mb: Annotated[
        int,
        number_option(HASH, "Transposition table in MB until the GUI sets USI_Hash.", "--hash"),
    ] = HASH_DEFAULT,
) -> None:
    """Speak USI on stdin/stdout as a tsume-shogi engine (go mate), for shogi GUIs
    (ShogiGUI, 将棋所, ShogiHome)."""
    from banmen.protocols.usi import main

    main(hash_mb=hash_mb)

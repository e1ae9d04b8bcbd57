"""``banmen usi``: banmen as a tsume-shogi engine for shogi GUIs."""

from __future__ import annotations

from typing import Annotated

import typer

from banmen.cli._app import number
from banmen.numbers import HASH

HASH_DEFAULT = 256


def usi(
    hash_mb: Annotated[
        int,
        typer.Option(
            "--hash",
            parser=number(HASH),
            help="Transposition table in MB until the GUI sets USI_Hash.",
        ),
    ] = HASH_DEFAULT,
) -> None:
    """Speak USI on stdin/stdout as a tsume-shogi engine (go mate), for shogi GUIs
    (ShogiGUI, 将棋所, ShogiHome)."""
    from banmen.protocols.usi import main

    main(hash_mb=hash_mb)

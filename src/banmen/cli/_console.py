"""The rich console the commands print tables with.

On a terminal it is the terminal's width (rich's own detection). Piped or redirected, the
output is text for other programs: no colour, no cursor movement, and no wrapping at 80
columns — a table takes its natural width, so run names and numbers stay whole for
``grep``, ``cut`` and copy-paste.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console

__all__ = ["make_console", "PIPE_WIDTH"]

#: The width of piped output: wide enough that nothing a command prints is ever wrapped.
PIPE_WIDTH = 100_000


def make_console(stderr: bool = False) -> Console:
    """A console on stdout (``stderr``: on stderr), sized as described above."""
    from rich.console import Console

    console = Console(highlight=False, stderr=stderr)
    if not console.is_terminal:
        console.width = PIPE_WIDTH
    return console

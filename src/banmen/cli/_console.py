"""The rich console the commands print tables with.

On a terminal it is the terminal's width (rich's own detection). Piped or redirected (the
stream is not a tty, whatever ``FORCE_COLOR`` says), the output is text for other programs:
no colour, no cursor movement (so no live tables), and no wrapping at 80 columns — a table
takes its natural width, so run names and numbers stay whole for ``grep``, ``cut`` and
copy-paste.
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
    isatty = getattr(console.file, "isatty", None)
    try:
        tty = bool(isatty()) if callable(isatty) else False
    except ValueError:  # a closed stream
        tty = False
    if tty:
        return console
    return Console(highlight=False, stderr=stderr, force_terminal=False, width=PIPE_WIDTH)

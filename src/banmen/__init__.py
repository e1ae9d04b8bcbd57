"""banmen (盤面, "the board"): a workbench for board-game AI.

Games define their rules once (``banmen.games``), search algorithms are written once
(``banmen.search``), and every front end — terminal, web page, protocol engines — drives
the same engine interface (``banmen.engine``).
"""

__version__ = "0.1.0"

__all__ = ["__version__"]

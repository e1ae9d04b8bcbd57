"""Tsume-shogi: prove mate problems with df-pn and count the answer as composers do.

(contract first; the implementation follows in this module)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from banmen.search.limits import Limit, StopFlag

__all__ = ["TsumeResult", "solve", "Progress"]

Status = Literal["mate", "no_mate", "unknown"]
#: ``progress(info)`` is called about every 0.1 s with ``nodes``, ``seconds``, ``nps``,
#: ``pn``, ``dn`` (the root's proof and disproof numbers) and ``phase`` (``"proof"`` while
#: looking for any mate, ``"shortest"`` while shortening it, ``"pv"`` while reading the line)
Progress = Callable[[dict[str, Any]], None]


@dataclass
class TsumeResult:
    """What the solver proved about one problem.

    ``status``: ``mate`` (``pv`` is the composer's main line in USI, ``length`` its plies),
    ``no_mate`` (proved: there is no mate at all), ``unknown`` (a limit was reached first;
    ``reason`` is ``timeout``, ``node_limit``, ``memory`` or ``stopped``).
    ``shortest`` tells whether ``length`` was proved to be the shortest mate under the
    counting rules (a mate found but not shortened in time keeps ``shortest=False``).
    """

    sfen: str
    status: Status
    pv: list[str] = field(default_factory=list)
    length: int | None = None
    shortest: bool = False
    reason: str | None = None
    nodes: int = 0
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def solve(
    sfen: str,
    limit: Limit | None = None,
    *,
    stop: StopFlag | None = None,
    progress: Progress | None = None,
    hash_mb: int = 256,
) -> TsumeResult:
    """Solve the mate problem ``sfen`` (the attacker is the side to move).

    Raises :class:`banmen.games.shogi.ShogiError` for a bad SFEN; never anything else for
    bad input. ``limit.time`` / ``limit.nodes`` bound the whole solve; ``stop`` stops it
    from another thread or process; ``hash_mb`` bounds the transposition table.
    """
    raise NotImplementedError

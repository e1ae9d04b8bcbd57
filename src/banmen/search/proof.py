"""What a proof-number search answers, shared by the compiled df-pn and its reference."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = ["INF", "ProofResult", "Unknown"]

#: "infinite" proof/disproof number and "unbounded" depth
INF = 1 << 40


@dataclass
class ProofResult:
    """``proved`` (``length``: plies of the line proved), ``disproved``, or ``unknown``
    (``reason``: timeout, node_limit, memory or stopped) — a limit is never an answer."""

    status: Literal["proved", "disproved", "unknown"]
    length: int | None = None
    reason: str | None = None


class Unknown(Exception):
    """A limit stopped the search (``reason``: timeout, node_limit, memory, stopped)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason

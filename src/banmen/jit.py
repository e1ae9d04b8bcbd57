"""numba's decorators as banmen uses them, for game packages (docs/ADDING_A_GAME.md).

``njit`` (numba's, cached, warnings silenced, the cache written under a lock between
processes, calls typed plainly), ``kernel`` (a function that kernels pass to each other)
and ``bound``: the same door banmen's own games go through (:mod:`banmen._jit`, whose
docstring says why each is there). A game package compiles its rules with these, never
with ``numba.njit`` itself.
"""

from __future__ import annotations

from banmen._jit import bound, kernel, njit

__all__ = ["njit", "kernel", "bound"]

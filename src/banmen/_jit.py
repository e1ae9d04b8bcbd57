"""``@kernel``: numba's ``njit(cache=True)`` for functions handed to a generic search.

Numba caches a function compiled for *another* jitted function as an argument only if that
argument pickles the same way in every process. A dispatcher pickles with a random uuid,
so by default the generic search recompiles in every new process (numba issue #9237).
Giving each kernel a deterministic uuid — its qualified name plus a digest of the source
files it is built from — makes the cache hit, and a changed kernel source gets a new uuid,
so a search compiled for the old kernel is not reused.
"""

from __future__ import annotations

import hashlib
import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from numba import njit, typeof

F = TypeVar("F", bound=Callable[..., Any])

_HERE = Path(__file__).resolve().parent
_digests: dict[str, str] = {}


def _digest(path: str) -> str:
    d = _digests.get(path)
    if d is None:
        h = hashlib.sha256()
        for p in (Path(path), _HERE / "_bits.py"):
            try:
                h.update(p.read_bytes())
            except OSError:
                h.update(str(p).encode())
        d = _digests[path] = h.hexdigest()[:16]
    return d


def kernel(fn: F | None = None, **options: Any) -> Any:
    """Compile ``fn`` like ``njit(cache=True, **options)``, with a stable identity."""

    def wrap(f: F) -> Any:
        dispatcher = njit(cache=True, **options)(f)
        ident = f"{f.__module__}.{f.__qualname__}:{_digest(inspect.getfile(f))}"
        try:
            dispatcher._set_uuid(ident)
        except (AttributeError, AssertionError):  # pragma: no cover - numba internals moved
            pass
        return dispatcher

    return wrap(fn) if fn is not None else wrap


def bound(dispatcher: Any, *args: Any) -> Callable[..., Any]:
    """The compiled function ``dispatcher`` runs for ``args``, callable without dispatch.

    Numba types every argument on every call; for a function taking other jitted functions
    as arguments that costs ~20 µs a call (each dispatcher is re-typed), more than a whole
    shallow search. Calling the compiled overload's entry point directly costs ~1 µs. The
    caller must pass arguments of exactly these types from then on. The function is
    compiled (or loaded from the cache), not run: for a search, one call would be a whole
    search outside its caller's time limit.
    """

    sig = tuple(typeof(a) for a in args)  # type: ignore[no-untyped-call]
    dispatcher.compile(sig)
    compiled = dispatcher.overloads.get(sig)
    fn: Callable[..., Any] = dispatcher if compiled is None else compiled.entry_point
    return fn

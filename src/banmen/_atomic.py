"""Atomic read-modify-write on numpy array elements inside compiled (numba) code.

Numba offers atomics for CUDA only; on the CPU these intrinsics emit LLVM's ``atomicrmw``
and ``cmpxchg`` on the element's address, so several threads running a ``nogil`` compiled
function over one shared array (the tree of a parallel search) never lose an update.
Each takes the array and the element's indices (one index for a 1-D array, two for a
2-D one) and returns the element's value before the operation.

``atomic_add(a, i, v)`` / ``atomic_add2(a, i, j, v)``
    ``a[...] += v`` (integers, ``float32`` and ``float64``: LLVM's ``fadd``).
``atomic_cas2(a, i, j, expected, new)``
    ``a[i, j] = new`` if it holds ``expected``; the old value either way (integers).
``atomic_store2(a, i, j, v)``
    ``a[i, j] = v`` as a sequentially consistent exchange: every store the thread made
    before it is visible to a thread that sees ``v`` (publishing a node's children).
"""

# numba's intrinsic API is untyped
# mypy: disable-error-code="misc, no-untyped-def, untyped-decorator, no-any-return, no-untyped-call"

from __future__ import annotations

from typing import Any

from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

__all__ = ["atomic_add", "atomic_add2", "atomic_cas2", "atomic_store2"]


def _pointer(context: Any, builder: Any, sig: Any, args: Any, ndim: int) -> Any:
    aryty = sig.args[0]
    ary = context.make_array(aryty)(context, builder, args[0])
    idx = [context.cast(builder, args[1 + k], sig.args[1 + k], types.intp) for k in range(ndim)]
    return cgutils.get_item_pointer(context, builder, aryty, ary, idx, wraparound=False)


def _rmw(op_int: str, op_float: str, ndim: int, ordering: str) -> Any:
    def typer(typingctx: Any, arr: Any, *rest: Any) -> Any:
        if not isinstance(arr, types.Array) or arr.ndim != ndim or len(rest) != ndim + 1:
            return None
        dtype = arr.dtype
        if not isinstance(dtype, types.Integer | types.Float):
            return None
        sig = dtype(arr, *rest)

        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            ptr = _pointer(context, builder, signature, args, ndim)
            val = context.cast(builder, args[-1], signature.args[-1], dtype)
            op = op_float if isinstance(dtype, types.Float) else op_int
            return builder.atomic_rmw(op, ptr, val, ordering)

        return sig, codegen

    return typer


@intrinsic
def atomic_add(typingctx, arr, i, val):
    """``arr[i] += val`` atomically (1-D); returns the old value."""
    return _rmw("add", "fadd", 1, "monotonic")(typingctx, arr, i, val)


@intrinsic
def atomic_add2(typingctx, arr, i, j, val):
    """``arr[i, j] += val`` atomically (2-D); returns the old value."""
    return _rmw("add", "fadd", 2, "monotonic")(typingctx, arr, i, j, val)


@intrinsic
def atomic_store2(typingctx, arr, i, j, val):
    """``arr[i, j] = val`` as a sequentially consistent exchange; returns the old value."""
    return _rmw("xchg", "xchg", 2, "seq_cst")(typingctx, arr, i, j, val)


@intrinsic
def atomic_cas2(typingctx, arr, i, j, expected, new):
    """``arr[i, j] = new`` if it equals ``expected`` (integers); returns the old value."""
    if not isinstance(arr, types.Array) or arr.ndim != 2:
        return None
    dtype = arr.dtype
    if not isinstance(dtype, types.Integer):
        return None
    sig = dtype(arr, i, j, expected, new)

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        ptr = _pointer(context, builder, signature, args, 2)
        cmp = context.cast(builder, args[3], signature.args[3], dtype)
        val = context.cast(builder, args[4], signature.args[4], dtype)
        pair = builder.cmpxchg(ptr, cmp, val, "seq_cst", "seq_cst")
        return builder.extract_value(pair, 0)

    return sig, codegen

"""Bit helpers (and two array helpers) shared by the compiled kernels of several games."""

from __future__ import annotations

from typing import Any

import numpy as np
from llvmlite import ir
from llvmlite.binding import llvm_version_info
from numba import types
from numba.core import cgutils
from numba.core.extending import intrinsic

from banmen._jit import njit


@njit(cache=True, inline="always")
def popcount64(x: int) -> int:
    """Number of set bits of a 64-bit integer (SWAR; works on int64 bit patterns)."""
    x = x - ((x >> 1) & 0x5555555555555555)
    x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0F
    return ((x * 0x0101010101010101) >> 56) & 0xFF


@njit(cache=True, inline="always")
def mix64(x: int) -> int:
    """SplitMix64 finaliser: a cheap, well-distributed 64-bit mixing of ``x``."""
    x = (x ^ ((x >> 30) & 0x3FFFFFFFF)) * -4658895280553007687  # 0xBF58476D1CE4E5B9
    x = (x ^ ((x >> 27) & 0x1FFFFFFFFF)) * -7723592293110705685  # 0x94D049BB133111EB
    return x ^ ((x >> 31) & 0x1FFFFFFFF)


#: LLVM's pointers carry their pointee type before LLVM 17 (llvmlite before 0.45), and
#: ``llvm.prefetch`` is then named by its i8 pointer
_PREFETCH_NAME = "llvm.prefetch.p0i8" if llvm_version_info[0] < 17 else "llvm.prefetch.p0"


@intrinsic
def prefetch(typingctx: Any, arr: Any, flat: Any) -> Any:
    """Hint the CPU to fetch element ``flat`` of the C-contiguous array ``arr`` (counted
    from its first element, whatever its shape) into cache (LLVM's ``llvm.prefetch``,
    read, high locality). It changes no value, only when memory arrives."""
    sig = types.void(arr, flat)

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        ary = context.make_array(signature.args[0])(context, builder, args[0])
        i8p = ir.IntType(8).as_pointer()
        i32 = ir.IntType(32)
        ptr = builder.bitcast(builder.gep(ary.data, [args[1]]), i8p)
        fnty = ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32])
        fn = cgutils.get_or_insert_function(builder.module, fnty, _PREFETCH_NAME)
        builder.call(fn, [ptr, i32(0), i32(3), i32(1)])  # a read, every cache level, data
        return context.get_dummy_value()

    return sig, codegen


def _unary_i64_intrinsic(llvm_name: str, with_flag: bool) -> Any:
    def impl(typingctx: Any, x: Any) -> Any:
        sig = types.uint64(types.uint64)

        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            i64 = ir.IntType(64)
            if with_flag:
                fnty = ir.FunctionType(i64, [i64, ir.IntType(1)])
                fn = cgutils.get_or_insert_function(builder.module, fnty, llvm_name)
                return builder.call(fn, [args[0], ir.Constant(ir.IntType(1), 1)])
            fnty = ir.FunctionType(i64, [i64])
            fn = cgutils.get_or_insert_function(builder.module, fnty, llvm_name)
            return builder.call(fn, [args[0]])

        return sig, codegen

    return intrinsic(impl)


#: Trailing zeros of a nonzero uint64 (one ``tzcnt``/``bsf`` instruction).
ctz64 = _unary_i64_intrinsic("llvm.cttz.i64", True)
#: Leading zeros of a nonzero uint64 (``lzcnt``/``bsr``).
clz64 = _unary_i64_intrinsic("llvm.ctlz.i64", True)
#: Set bits of a uint64 (``popcnt`` where the CPU has it).
popcnt64 = _unary_i64_intrinsic("llvm.ctpop.i64", False)


@njit(cache=True)
def copy_into(dst: Any, src: Any) -> None:
    """``dst[:] = src`` for two 1-D arrays of one length, as a plain loop: numba compiles
    an assignment between arrays with a broadcast check whose error message alone (shapes
    formatted as text) took a second of compiling in Go's search."""
    for i in range(src.shape[0]):
        dst[i] = src[i]


@njit(cache=True)
def stable_order(key: Any, idx: Any) -> None:
    """``idx[:] = argsort(key)``, stable (equal keys keep their order): a bottom-up merge
    sort over a scratch half, for short arrays (a node's children). numba's own
    ``argsort(kind="mergesort")`` is recursive and cost a second of compiling."""
    n = key.shape[0]
    for i in range(n):
        idx[i] = i
    tmp = np.empty(n, dtype=np.int64)
    width = 1
    while width < n:
        for lo in range(0, n, 2 * width):
            mid = min(lo + width, n)
            hi = min(lo + 2 * width, n)
            a, b, k = lo, mid, lo
            while a < mid and b < hi:
                if key[idx[b]] < key[idx[a]]:
                    tmp[k] = idx[b]
                    b += 1
                else:
                    tmp[k] = idx[a]
                    a += 1
                k += 1
            while a < mid:
                tmp[k] = idx[a]
                a += 1
                k += 1
            while b < hi:
                tmp[k] = idx[b]
                b += 1
                k += 1
        for i in range(n):
            idx[i] = tmp[i]
        width *= 2

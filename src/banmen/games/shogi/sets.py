"""Shogi's compiled code, as the kernel sets front ends load (:mod:`banmen.warm`)."""

from banmen.warm import KernelSet

#: the compiled df-pn over shogi's kernels (``mate``, the tsume page, the analysis)
MATE = KernelSet("shogi", "mate", "the shogi mate solver", "banmen.games.shogi.tsume:_load_mate",
                 estimate=35)  # fmt: skip

KERNEL_SETS = (MATE,)

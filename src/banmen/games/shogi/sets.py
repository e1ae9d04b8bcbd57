"""Shogi's compiled code, as the kernel sets front ends load (:mod:`banmen.warm`)."""

from banmen.warm import KernelSet

#: the compiled df-pn over shogi's kernels (``mate``, the tsume page, the analysis)
MATE = KernelSet("shogi", "mate", "the shogi mate solver", "banmen.games.shogi.tsume:_load_mate",
                 estimate=35)  # fmt: skip

#: df-pn's node function alone, compiled for shogi's kernels' types (they are called
#: through pointers: banmen.search.dfpn's ``Kernels.pointers``), beside the rest
NODE = KernelSet("shogi", "node", "the shogi mate solver's node function",
                 "banmen.games.shogi.compiled:_load_node", estimate=10)  # fmt: skip

KERNEL_SETS = (MATE, NODE)

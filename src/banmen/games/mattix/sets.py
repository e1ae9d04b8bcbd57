"""Mattix's compiled code, as the kernel sets front ends load (:mod:`banmen.warm`)."""

from banmen.warm import KernelSet

#: the shared alpha-beta over Mattix's kernels (every player and the analysis)
SEARCH = KernelSet("mattix", "search", "the Mattix search", "banmen.games.mattix:_load_search",
                   estimate=6)  # fmt: skip

KERNEL_SETS = (SEARCH,)

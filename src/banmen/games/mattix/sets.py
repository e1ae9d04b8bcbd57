"""Mattix's compiled code, as the kernel sets front ends load (:mod:`banmen.warm`)."""

from banmen.warm import KernelSet

#: the shared alpha-beta over Mattix's kernels (every player and the analysis)
SEARCH = KernelSet("mattix", "search", "the Mattix search", "banmen.games.mattix:_load_search",
                   estimate=6)  # fmt: skip
#: MCTS and PUCT over the same kernels (banmen.games.mcts_engines)
MCTS = KernelSet("mattix", "mcts", "the Mattix MCTS and PUCT", "banmen.games.mattix:_load_mcts",
                 estimate=14, default=False)  # fmt: skip

#: df-pn proofs over the same kernels (banmen.games.dfpn_engines)
DFPN = KernelSet("mattix", "dfpn", "the Mattix df-pn prover", "banmen.games.mattix:_load_dfpn",
                 estimate=14, default=False)  # fmt: skip

KERNEL_SETS = (SEARCH, MCTS, DFPN)

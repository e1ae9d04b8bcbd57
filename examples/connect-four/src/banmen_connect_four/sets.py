"""Connect Four's compiled code, as the kernel sets front ends load (:mod:`banmen.warm`).

A leaf module: declaring the sets imports none of the compiled code."""

from banmen.warm import KernelSet

_P = "banmen_connect_four"

#: the shared alpha-beta over Connect Four's kernels (every player, the analysis, the solver)
SEARCH = KernelSet("connect-four", "search", "the Connect Four search", f"{_P}:_load_search",
                   estimate=8)  # fmt: skip
#: the compiled rules: the legal moves and perft (the board itself is pure Python)
RULES = KernelSet("connect-four", "rules", "the Connect Four rules", f"{_P}:_load_rules",
                  estimate=2, default=False)  # fmt: skip
#: MCTS and PUCT over the same kernels (banmen.games.mcts_engines)
MCTS = KernelSet("connect-four", "mcts", "the Connect Four MCTS and PUCT", f"{_P}:_load_mcts",
                 estimate=12, default=False)  # fmt: skip

#: df-pn proofs over the same kernels (banmen.games.dfpn_engines)
DFPN = KernelSet("connect-four", "dfpn", "the Connect Four df-pn prover", f"{_P}:_load_dfpn",
                 estimate=14, default=False)  # fmt: skip

KERNEL_SETS = (SEARCH, RULES, MCTS, DFPN)

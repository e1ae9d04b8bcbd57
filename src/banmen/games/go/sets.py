"""Go's compiled code, as the kernel sets front ends load (:mod:`banmen.warm`)."""

from banmen.warm import KernelSet

_P = "banmen.games.go"

#: the board's own compiled rules (what a front end's Go board runs)
RULES = KernelSet("go", "rules", "the Go rules", f"{_P}.game:_load_rules", estimate=6,
                  board=True)  # fmt: skip
#: the Monte-Carlo tree search (every ``mcts`` player and the analysis)
SEARCH = KernelSet("go", "search", "the Go search", f"{_P}.engine:_load_search", estimate=30)
#: the search's loop, compiled for Go's kernels' types alone (they are called through
#: pointers: banmen.search.mcts's ``MctsKernels.pointers``), beside the rest
LOOP = KernelSet("go", "loop", "the Go search's loop", f"{_P}.engine:_load_loop", estimate=5)
#: the dead-stone estimate of a count, and the analysis's ownership (playout policy)
SCORING = KernelSet("go", "scoring", "the Go dead-stone estimate", f"{_P}.game:_load_scoring",
                    estimate=10, board=True)  # fmt: skip
#: the same search in several threads on one tree (``mcts:threads=N``)
THREADS = KernelSet("go", "threads", "the Go search in threads", f"{_P}.engine:_load_threads",
                    estimate=20, default=False)  # fmt: skip

#: the shared alpha-beta over Go's rules contract (``alphabeta``, ``perfect``:
#: :mod:`.kernels_ab`); the name ``search`` is the MCTS's
ALPHABETA = KernelSet("go", "alphabeta", "the Go alpha-beta search",
                      f"{_P}:_load_alphabeta", estimate=15, default=False)  # fmt: skip
#: the generic MCTS and PUCT over the same rules contract (banmen.games.mcts_engines:
#: the tree searches any game with the contract gets; Go's own MCTS is ``search``)
TREE = KernelSet("go", "mcts", "the generic tree search over Go's rules contract",
                 f"{_P}:_load_tree", estimate=25, default=False)  # fmt: skip

#: the generic df-pn player over the same rules contract (banmen.games.dfpn_engines)
DFPN = KernelSet("go", "dfpn", "the Go df-pn prover", f"{_P}:_load_dfpn", estimate=20,
                 default=False)  # fmt: skip

KERNEL_SETS = (RULES, SEARCH, LOOP, SCORING, THREADS, ALPHABETA, TREE, DFPN)

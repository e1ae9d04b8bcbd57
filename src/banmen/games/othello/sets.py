"""Othello's compiled code, as the kernel sets front ends load (:mod:`banmen.warm`)."""

from banmen.warm import KernelSet

_P = "banmen.games.othello"

#: the board's own compiled rules (legal moves, flips: what a front end's board runs)
RULES = KernelSet("othello", "rules", "the Othello rules", f"{_P}.board:_load_rules",
                  estimate=2, board=True)  # fmt: skip
#: the midgame search with the learned evaluation and ProbCut (every player's default)
SEARCH = KernelSet("othello", "search", "the Othello search", f"{_P}.engine:_load_search",
                   estimate=6)  # fmt: skip
#: the exact endgame solver (``perfect``, and every player near the end)
ENDGAME = KernelSet("othello", "endgame", "the Othello endgame solver",
                    f"{_P}.endgame:_load_endgame", estimate=4)  # fmt: skip
#: the midgame search with the hand-set evaluation (``alphabeta:learned=0``)
HANDSET = KernelSet("othello", "handset", "the Othello search (hand-set evaluation)",
                    f"{_P}.engine:_load_handset", estimate=3, default=False)  # fmt: skip
#: win/draw/loss proofs by df-pn (:mod:`.wld`: tests and benchmarks, no player)
WLD = KernelSet("othello", "wld", "the Othello win/draw/loss prover", f"{_P}:_load_wld",
                estimate=25, default=False)  # fmt: skip
#: MCTS and PUCT over the alpha-beta kernels (banmen.games.mcts_engines)
MCTS = KernelSet("othello", "mcts", "the Othello MCTS and PUCT", f"{_P}:_load_mcts",
                 estimate=16, default=False)  # fmt: skip

#: df-pn proofs over the alpha-beta kernels: the dfpn player (banmen.games.dfpn_engines)
DFPN = KernelSet("othello", "dfpn", "the Othello df-pn player", f"{_P}:_load_dfpn",
                 estimate=16, default=False)  # fmt: skip

KERNEL_SETS = (RULES, ENDGAME, SEARCH, HANDSET, WLD, MCTS, DFPN)

"""Your own search, compiled, over the rules contract: it plays every game that fills the
contract (Othello, Mattix, Connect Four, Ataxx, yours) with no line about any one game.

``rules`` is the game's compiled rules (banmen.search.alphabeta.Kernels): ``gen_moves``
writes the legal moves into a buffer and returns how many (0: the game is over),
``play`` returns the next state, ``gain`` the points a move banks (Mattix; 0 elsewhere),
``evaluate`` the game's estimate for the side to move, ``final`` the exact value of a
finished game. A position's value for the side to move is the best ``gain - value(child)``.

    banmen arena othello -p greedy=search:examples/search/my_search.py:greedy \\
        -p beam=search:examples/search/my_search.py:beam,width=4,depth=4 \\
        -p ab=alphabeta:depth=2 --games 10
    banmen arena mattix -p beam=search:examples/search/my_search.py:beam -p r=random --games 10
    banmen arena connect-four -p beam=search:examples/search/my_search.py:beam -p r=random

(docs/YOUR_AI.md, "Your own search".)
"""

import numpy as np

from banmen.jit import njit

#: a value beyond any game's
INF = 1 << 40


@njit(cache=True)
def _leaf(rules, ctx, state, buf):
    """The value of a position searched no further: exact if the game is over."""
    if rules.gen_moves(ctx, state, buf) == 0:
        return rules.final(ctx, state)
    return rules.evaluate(ctx, state)


@njit(cache=True)
def greedy(rules, ctx, state):
    """One ply: the move whose position is worst for the opponent."""
    moves = np.empty(rules.max_moves, dtype=np.int64)
    buf = np.empty(rules.max_moves, dtype=np.int64)
    n = rules.gen_moves(ctx, state, moves)
    best, best_value = moves[0], -INF
    for i in range(n):
        m = moves[i]
        v = rules.gain(ctx, state, m) - _leaf(rules, ctx, rules.play(ctx, state, m), buf)
        if v > best_value:
            best, best_value = m, v
    return best, best_value


@njit(cache=True)
def _beam(rules, ctx, state, width, depth):
    """Negamax to ``depth`` plies over the ``width`` moves that look best one ply deep."""
    moves = np.empty(rules.max_moves, dtype=np.int64)
    n = rules.gen_moves(ctx, state, moves)
    if n == 0:
        return rules.final(ctx, state), -1
    if depth == 0:
        return rules.evaluate(ctx, state), -1
    buf = np.empty(rules.max_moves, dtype=np.int64)
    first = np.empty(n, dtype=np.int64)  # one ply deep: what each move looks like
    for i in range(n):
        m = moves[i]
        first[i] = rules.gain(ctx, state, m) - _leaf(rules, ctx, rules.play(ctx, state, m), buf)
    order = np.argsort(-first)
    best_value, best = -INF, moves[order[0]]
    for j in range(min(width, n)):
        m = moves[order[j]]
        child = rules.play(ctx, state, m)
        v = rules.gain(ctx, state, m) - _beam(rules, ctx, child, width, depth - 1)[0]
        if v > best_value:
            best_value, best = v, m
    return best_value, best


@njit(cache=True)
def beam(rules, ctx, state, width=3, depth=3):
    """The beam search's move and value (``width`` moves a node, ``depth`` plies)."""
    value, move = _beam(rules, ctx, state, width, depth)
    return move, value

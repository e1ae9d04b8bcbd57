"""The rules against published counts of Connect Four's game tree (``data/perft.tsv``):

* perft (move sequences of n plies) as published in the perft test of
  ultrasuperpingu/kudchuet (games/connect4/src/game.rs, commit 388d797):
  https://github.com/ultrasuperpingu/kudchuet/blob/388d797cff7964e5722539e519cd104519611cb8/games/connect4/src/game.rs
* distinct positions after n plies, OEIS A212693: https://oeis.org/A212693

The compiled rules (:mod:`banmen_connect_four.kernels`) are checked to depth 9, the
brute-force oracle (tests/oracle.py, independent of the package) to depth 5.
"""

from __future__ import annotations

import oracle
import pytest
from helpers import random_game

from banmen_connect_four import Board, perft
from banmen_connect_four.counts import SOURCES, published_counts
from banmen_connect_four.kernels import count_positions

COMPILED_DEPTH = 9
ORACLE_DEPTH = 5
TABLE = published_counts()


def test_the_table_names_its_sources() -> None:
    assert [c.depth for c in TABLE] == list(range(len(TABLE)))
    assert len(TABLE) > COMPILED_DEPTH
    assert SOURCES["positions"] == "https://oeis.org/A212693"
    assert "kudchuet" in SOURCES["perft"]
    # every published perft is at most 7**n, every position count at most the perft
    assert all(c.positions <= c.perft <= 7**c.depth for c in TABLE)


@pytest.mark.parametrize("depth", range(COMPILED_DEPTH + 1))
def test_compiled_perft_matches_the_published_table(depth: int) -> None:
    assert perft(Board(), depth) == TABLE[depth].perft


def test_compiled_position_counts_match_oeis_a212693() -> None:
    assert count_positions(COMPILED_DEPTH) == [c.positions for c in TABLE[: COMPILED_DEPTH + 1]]


def test_the_oracle_matches_the_published_table() -> None:
    for depth in range(ORACLE_DEPTH + 1):
        assert oracle.perft(oracle.EMPTY, depth) == TABLE[depth].perft, depth
    assert oracle.positions(ORACLE_DEPTH) == [c.positions for c in TABLE[: ORACLE_DEPTH + 1]]


def test_compiled_perft_matches_the_oracle_from_later_positions() -> None:
    """From positions deep in random games (fours, full columns, finished games), where
    the published table from the empty board says nothing."""
    checked = 0
    for seed in range(12):
        for board, p in random_game(seed):
            if board.empties() % 5 == 0 or board.is_game_over():
                assert perft(board, 3) == oracle.perft(p, 3), board.to_dict()
                checked += 1
    assert checked > 40


def test_perft_refuses_a_bad_depth() -> None:
    with pytest.raises(ValueError, match="depth"):
        perft(Board(), -1)

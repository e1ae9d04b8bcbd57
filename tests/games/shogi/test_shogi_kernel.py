"""The compiled shogi kernels against cshogi (the oracle) and slow references written here.

Positions: random legal games from the start position and from tsume problems
(tests/data/shogi_positions.txt) whose spare pieces are dealt at random to both hands.
Per position the kernels must agree with cshogi on the legal moves, the checking moves,
check, hands, keys (equal iff cshogi's key and hands are equal), mate in one (a found mate
truly mates; one is found iff brute force finds one), and with the references below on
hand_delta, futile_replies and and_need; play + undo must restore the array bit for bit.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import cshogi
import numpy as np
import paths
import pytest

from banmen.games.shogi import kernels as K

CTX = K.CTX
DATA = paths.DATA / "shogi_positions.txt"
Keys = dict[Any, Any]
_HAND_TOTAL = (18, 4, 4, 4, 4, 2, 2)  # P L N S G B R
_TYPE_HIDX = {1: 0, 2: 1, 3: 2, 4: 3, 7: 4, 5: 5, 6: 6}


def _sfens() -> list[str]:
    out = []
    for line in DATA.read_text().splitlines():
        if line and not line.startswith("#"):
            out.append(line.split("\t")[1])
    return out


def _hand_int(counts: Any) -> int:
    return sum(int(n) << (8 * i) for i, n in enumerate(counts))


def _deal_hands(board: cshogi.Board, rng: random.Random) -> None:
    """Deal the pieces not on the board anew: each to black, to white or to neither."""
    left = list(_HAND_TOTAL)
    for p in board.pieces:
        if p and cshogi.piece_to_piece_type(p) != cshogi.KING:
            t = cshogi.piece_to_piece_type(p)
            left[_TYPE_HIDX[t - 8 if t > 8 else t]] -= 1
    hands: tuple[list[int], list[int]] = ([0] * 7, [0] * 7)
    for i, n in enumerate(left):
        for _ in range(n):
            x = rng.random()
            if x < 0.3:
                hands[0][i] += 1
            elif x < 0.6:
                hands[1][i] += 1
    board.set_pieces(board.pieces, hands)


def _has_king(board: cshogi.Board, color: int) -> bool:
    return (cshogi.BKING if color == 0 else cshogi.WKING) in board.pieces


def _m16(m: int) -> int:
    return int(cshogi.move16(m))


def _ours(fn: Any, st: np.ndarray) -> set[int]:
    buf = np.zeros(K.MAX_MOVES, np.int64)
    n = fn(CTX, st, buf)
    moves = [int(x) for x in buf[:n]]
    assert len(moves) == len(set(moves)), "duplicate moves"
    return set(moves)


def _ref_checks(board: cshogi.Board) -> set[int]:
    out = set()
    for m in board.legal_moves:
        board.push(m)
        if board.is_check():
            out.add(_m16(m))
        board.pop()
    return out


def _ref_mates(board: cshogi.Board) -> set[int]:
    out = set()
    for m in board.legal_moves:
        board.push(m)
        if board.is_check() and not list(board.legal_moves):
            out.add(_m16(m))
        board.pop()
    return out


def _ref_drops_only_after_a_check(board: cshogi.Board) -> bool:
    """Is there a check after which every legal reply is a drop (an interposition that may
    be futile), and there is one?"""
    for m in board.legal_moves:
        board.push(m)
        replies = list(board.legal_moves) if board.is_check() else []
        board.pop()
        if replies and all(cshogi.move_is_drop(r) for r in replies):
            return True
    return False


def _on_line(a: int, b: int) -> tuple[int, int] | None:
    """The unit step from square a towards b when they share a file, rank or diagonal."""
    af, ar = divmod(a, 9)
    bf, br = divmod(b, 9)
    df, dr = bf - af, br - ar
    if (a != b) and (df == 0 or dr == 0 or abs(df) == abs(dr)):
        return (df > 0) - (df < 0), (dr > 0) - (dr < 0)
    return None


def _color(p: int) -> int:
    return 1 if p >= 16 else 0


_SLIDES = {  # piece type -> unit steps (black's view) it slides along
    cshogi.LANCE: [(0, -1)],
    cshogi.BISHOP: [(1, 1), (1, -1), (-1, 1), (-1, -1)],
    cshogi.ROOK: [(1, 0), (-1, 0), (0, 1), (0, -1)],
    cshogi.PROM_BISHOP: [(1, 1), (1, -1), (-1, 1), (-1, -1)],
    cshogi.PROM_ROOK: [(1, 0), (-1, 0), (0, 1), (0, -1)],
}


def _slides_towards(p: int, step: tuple[int, int]) -> bool:
    dirs = _SLIDES.get(cshogi.piece_to_piece_type(p), [])
    if _color(p):
        dirs = [(-a, -b) for a, b in dirs]
    return step in dirs


def _ref_futile(board: cshogi.Board) -> set[int]:
    """After a drop: the side to move's legal checks that take the dropped piece with the
    slider standing behind it on the line to the dropper's king (squares between empty)."""
    last = board.peek()
    if not cshogi.move_is_drop(last):
        return set()
    s = cshogi.move_to(last)
    k = board.king_square(1 - board.turn)
    step = _on_line(k, s)
    if step is None:
        return set()
    f, r = divmod(k, 9)
    while (f + step[0]) * 9 + (r + step[1]) != s:
        f, r = f + step[0], r + step[1]
        if board.piece(f * 9 + r):
            return set()
    f, r = divmod(s, 9)
    while True:
        f, r = f + step[0], r + step[1]
        if not (0 <= f < 9 and 0 <= r < 9):
            return set()
        p = board.piece(f * 9 + r)
        if p:
            break
    # the slider must attack towards the king: its step is the reverse of ours
    if _color(p) != board.turn or not _slides_towards(p, (-step[0], -step[1])):
        return set()
    c = f * 9 + r
    return {m for m in _ref_checks(board) if (m >> 7) & 127 == c and m & 127 == s}


_GOLD = [(0, -1), (-1, -1), (1, -1), (-1, 0), (1, 0), (0, 1)]
_DIAGS = [(1, 1), (1, -1), (-1, 1), (-1, -1)]
_ORTHS = [(1, 0), (-1, 0), (0, 1), (0, -1)]
_STEPS = {  # piece type -> one-square moves (black's view, rank 0 ahead)
    cshogi.PAWN: [(0, -1)],
    cshogi.SILVER: [(0, -1), (-1, -1), (1, -1), (-1, 1), (1, 1)],
    cshogi.GOLD: _GOLD,
    cshogi.KING: _DIAGS + _ORTHS,
    cshogi.PROM_PAWN: _GOLD,
    cshogi.PROM_LANCE: _GOLD,
    cshogi.PROM_KNIGHT: _GOLD,
    cshogi.PROM_SILVER: _GOLD,
    cshogi.PROM_BISHOP: _ORTHS,
    cshogi.PROM_ROOK: _DIAGS,
}


def _attacks(board: cshogi.Board, frm: int, to: int) -> bool:
    """Does the piece on ``frm`` attack ``to`` (a plain walk over the board)?"""
    p = board.piece(frm)
    t = cshogi.piece_to_piece_type(p)
    sign = -1 if _color(p) else 1
    ff, fr = divmod(frm, 9)
    tf, tr = divmod(to, 9)
    if t == cshogi.KNIGHT:
        return tr - fr == -2 * sign and abs(tf - ff) == 1
    if (tf - ff, tr - fr) in [(a * sign, b * sign) for a, b in _STEPS.get(t, [])]:
        return True
    step = _on_line(frm, to)
    if step is None or not _slides_towards(p, step):
        return False
    f, r = ff + step[0], fr + step[1]
    while f * 9 + r != to:
        if board.piece(f * 9 + r):
            return False
        f, r = f + step[0], r + step[1]
    return True


def _checkers(board: cshogi.Board) -> list[int]:
    """Squares of the pieces giving check to the side to move."""
    if not _has_king(board, board.turn):
        return []
    k = board.king_square(board.turn)
    return [
        sq
        for sq, p in enumerate(board.pieces)
        if p and _color(p) != board.turn and _attacks(board, sq, k)
    ]


def _ref_and_need(board: cshogi.Board, attacker: int) -> int:
    if board.turn == attacker:
        return 0
    chk = _checkers(board)
    if len(chk) != 1:
        return 0
    k = board.king_square(board.turn)
    kf, kr = divmod(k, 9)
    cf, cr = divmod(chk[0], 9)
    if _on_line(k, chk[0]) is None or max(abs(kf - cf), abs(kr - cr)) < 2:
        return 0
    mine = board.pieces_in_hand[board.turn]
    theirs = board.pieces_in_hand[attacker]
    return sum(int(theirs[i]) << (8 * i) for i in range(7) if mine[i] == 0)


def _unpromoted_hidx(p: int) -> int:
    t = cshogi.piece_to_piece_type(p)
    return _TYPE_HIDX[t - 8 if t > 8 else t]


def _ref_hand_delta(board: cshogi.Board, m: int) -> tuple[int, int]:
    if m >> 7 & 127 >= 81:
        return 1 << (8 * _TYPE_HIDX[(m >> 7 & 127) - 80]), 0
    cap = board.piece(m & 127)
    return 0, (1 << (8 * _unpromoted_hidx(cap))) if cap else 0


def _walks(seed: int, games: int, plies: int) -> Iterator[tuple[cshogi.Board, np.ndarray, int]]:
    """(board, st, attacker) along random games; st is built once per game and played."""
    rng = random.Random(seed)
    sfens = _sfens()
    for g in range(games):
        if g % 3 == 0:
            board = cshogi.Board()
        else:
            board = cshogi.Board(rng.choice(sfens))
            if g % 3 == 2:
                _deal_hands(board, rng)
        st = K.from_board(board)
        attacker = board.turn
        for _ in range(plies):
            yield board, st, attacker
            moves = list(board.legal_moves)
            if not moves:
                break
            # prefer checks and drops now and then: they reach the interesting cases
            r = rng.random()
            pool = moves
            if board.is_check() and r < 0.5:  # interpositions: futile_replies' cases
                pool = [m for m in moves if cshogi.move_is_drop(m)] or moves
            elif r < 0.3:
                pool = [m for m in moves if _m16(m) in _ref_checks(board)] or moves
            elif r < 0.45:
                pool = [m for m in moves if cshogi.move_is_drop(m)] or moves
            m = _m16(rng.choice(pool))
            board.push_move16(m)
            K.play(CTX, st, m)


_DEAD_RANKS = {cshogi.PAWN: 1, cshogi.LANCE: 1, cshogi.KNIGHT: 2}


def _sparse(rng: random.Random) -> cshogi.Board | None:
    """A random legal-looking position with few pieces near a king: pins, double checks,
    pawn-drop mates and interpositions come up far more often than in games."""
    pieces = [0] * 81
    wk = rng.choice([rng.randrange(81), rng.randrange(9) * 9 + rng.randrange(2)])
    pieces[wk] = cshogi.WKING
    if rng.random() < 0.7:
        bk = rng.randrange(81)
        if pieces[bk] or max(abs(bk // 9 - wk // 9), abs(bk % 9 - wk % 9)) <= 1:
            return None
        pieces[bk] = cshogi.BKING
    left = list(_HAND_TOTAL)
    types = [1, 2, 3, 4, 5, 6, 7]
    for _ in range(rng.randrange(2, 9)):
        sq = rng.randrange(81)
        t = rng.choice(types)
        c = 0 if rng.random() < 0.65 else 1
        i = _TYPE_HIDX[t]
        if pieces[sq] or left[i] == 0:
            continue
        rank = sq % 9 if c == 0 else 8 - sq % 9
        if rank < _DEAD_RANKS.get(t, 0):
            continue
        if t == cshogi.PAWN and any(pieces[sq - sq % 9 + r] == t + 16 * c for r in range(9)):
            continue
        if t <= 6 and t != cshogi.KNIGHT and rng.random() < 0.2:
            t += 8
        left[i] -= 1
        pieces[sq] = t + 16 * c
    hands: tuple[list[int], list[int]] = ([0] * 7, [0] * 7)
    for i, n in enumerate(left):
        for _ in range(n):
            x = rng.random()
            if x < 0.15:
                hands[0][i] += 1
            elif x < 0.25:
                hands[1][i] += 1
    board = cshogi.Board()
    board.set_pieces(pieces, hands)
    # the side not to move must not be in check: look from its side
    probe = cshogi.Board(board.sfen().replace(" b ", " w "))
    if probe.is_check():
        return None
    return board


def _check_position(board: cshogi.Board, st: np.ndarray, attacker: int, keys: Keys) -> None:
    sfen = board.sfen()
    assert K.side_to_move(CTX, st) == board.turn, sfen
    assert K.to_sfen(st).rsplit(" ", 1)[0] == sfen.rsplit(" ", 1)[0]
    for c in (0, 1):
        assert K.hand_of(CTX, st, c) == _hand_int(board.pieces_in_hand[c]), sfen
    assert K.hand(CTX, st) == _hand_int(board.pieces_in_hand[attacker])
    assert K.in_check(CTX, st) == board.is_check(), sfen
    if _has_king(board, board.turn):
        assert bool(_checkers(board)) == board.is_check(), sfen  # the reference's own check

    legal = _ours(K.gen_legal, st)
    assert legal == {_m16(m) for m in board.legal_moves}, sfen
    checks = _ours(K.gen_checks, st)
    ref = _ref_checks(board)
    assert checks == ref, (sfen, sorted(checks ^ ref))
    if _has_king(board, 1 - board.turn):
        # cshogi's check_moves is exactly this set, except that it yields moves "checking"
        # a king that is not on the board
        assert checks == {_m16(m) for m in board.check_moves}, sfen

    mates = _ref_mates(board)
    m1 = K.mate_in_1(CTX, st)
    assert (m1 >= 0) == bool(mates), sfen
    if m1 >= 0:
        assert m1 in mates, sfen
    qbuf = np.zeros(K.MAX_MOVES, dtype=np.int64)
    qw = K.quick_win(CTX, st, qbuf, K.gen_checks(CTX, st, qbuf))
    if board.turn != attacker:
        assert qw == -1, sfen
    elif m1 >= 0:
        assert qw == m1, sfen
    else:
        # -2: nothing mates within two plies (every check leaves a reply that is no drop)
        assert qw == (-1 if _ref_drops_only_after_a_check(board) else -2), sfen
    assert K.outcome(CTX, st) == (0 if board.turn == attacker else 1)

    assert K.and_need(CTX, st) == _ref_and_need(board, attacker), sfen

    if board.move_number > 1 and cshogi.move_is_drop(board.peek()):
        buf = np.zeros(K.MAX_MOVES, np.int64)
        n = K.futile_replies(CTX, st, buf)
        assert {int(x) for x in buf[:n]} == _ref_futile(board), sfen

    # keys: equal iff cshogi's key and both hands are equal
    ours = (int(K.key(CTX, st)), int(K.hand_of(CTX, st, 0)), int(K.hand_of(CTX, st, 1)))
    theirs = (int(board.zobrist_hash()), ours[1], ours[2])
    assert keys.setdefault(("o", ours), theirs) == theirs, sfen
    assert keys.setdefault(("c", theirs), ours) == ours, sfen

    before = st.copy()
    for m in legal:
        defender_drop = board.turn != attacker and (m >> 7) & 127 >= 81
        assert K.group(CTX, st, m) == (m & 127 if defender_drop else -1)
        assert K.hand_delta(CTX, st, m) == _ref_hand_delta(board, m), (sfen, m)
        K.play(CTX, st, m)
        K.undo(CTX, st)
        assert np.array_equal(st, before), (sfen, cshogi.move_to_usi(m))


@pytest.mark.parametrize(("depth", "leaves"), [(1, 30), (2, 900), (3, 25470), (4, 719731)])
def test_perft_start(depth: int, leaves: int) -> None:
    st = K.from_sfen(cshogi.STARTING_SFEN)
    before = st.copy()
    buf = np.zeros(depth * K.MAX_MOVES, np.int64)
    assert K.perft(CTX, st, depth, buf) == leaves
    assert np.array_equal(st, before)


@pytest.mark.slow
def test_perft_start_5() -> None:
    st = K.from_sfen(cshogi.STARTING_SFEN)
    buf = np.zeros(5 * K.MAX_MOVES, np.int64)
    assert K.perft(CTX, st, 5, buf) == 19861490


def _run(seed: int, games: int, plies: int) -> int:
    keys: Keys = {}
    n = 0
    for board, st, attacker in _walks(seed, games, plies):
        _check_position(board, st, attacker, keys)
        n += 1
    return n


def test_oracle_problem_roots() -> None:
    keys: Keys = {}
    for sfen in _sfens():
        board = cshogi.Board(sfen)
        _check_position(board, K.from_sfen(sfen), board.turn, keys)


def _run_sparse(seed: int, count: int, plies: int) -> int:
    rng = random.Random(seed)
    keys: Keys = {}
    n = 0
    while n < count:
        board = _sparse(rng)
        if board is None:
            continue
        st = K.from_board(board)
        attacker = board.turn
        for _ in range(plies):
            _check_position(board, st, attacker, keys)
            n += 1
            moves = [_m16(m) for m in board.legal_moves]
            if not moves:
                break
            m = rng.choice(moves)
            board.push_move16(m)
            K.play(CTX, st, m)
    return n


def test_oracle_sparse_positions() -> None:
    assert _run_sparse(seed=1, count=1500, plies=3) >= 1500


def test_oracle_random_games() -> None:
    assert _run(seed=1, games=45, plies=60) > 2000


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(2, 6))
def test_oracle_sparse_positions_slow(seed: int) -> None:
    assert _run_sparse(seed=seed, count=15000, plies=3) >= 15000


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(2, 6))
def test_oracle_random_games_slow(seed: int) -> None:
    assert _run(seed=seed, games=250, plies=120) > 15000

"""Shogi notation (:mod:`banmen.games.shogi.formats`): USI moves in, KIF and CSA out.

The expected texts are written out by hand from the positions (the square names, the
piece that moves, ``同`` for a recapture), so a change in cshogi's output shows here.
"""

from __future__ import annotations

import doctest
from types import ModuleType

import cshogi
import cshogi.KIF
import pytest

import banmen.games.shogi.board as shogi_board
from banmen.games.shogi import ShogiError, formats, parse_sfen, problem
from banmen.games.shogi.formats import (
    KIF_MOVES_HEADER,
    bod,
    csa_moves,
    kif_document,
    kif_move,
    kif_moves,
    parse_usi_move,
    usi_line,
)

#: mate in 3: the lance's move uncovers the bishop on 9g (a discovered check)
THREE = "9/9/3pp4/+r2k1p3/2L1+p4/2+R6/B8/B8/9 b 4g4s4n3l14p 1"
THREE_PV = ["7e7b+", "6d5d", "7f5f"]
#: the same problem with the useless gold interpositions played out, recaptured each time
THREE_LONG_PV = [*THREE_PV, "G*8g", "9h8g", "G*7f", "8g7f", "G*6e", "7f6e"]
#: mate in 1 (9c9b+), and the same problem turned round for white to move (1g1h+)
ONE = "k8/9/PK7/9/9/9/9/9/9 b 2r2b4g4s4n4l17p 1"
ONE_WHITE = "9/9/9/9/9/9/7kp/9/8K w 2R2B4G4S4N4L17P 1"


@pytest.mark.parametrize("module", [formats, shogi_board, problem])
def test_module_doctests(module: ModuleType) -> None:
    result = doctest.testmod(module)
    assert result.attempted > 0 and result.failed == 0


def test_kif_and_csa_of_the_three_ply_line() -> None:
    assert kif_moves(THREE, THREE_PV) == ["▲７二香成(75)", "△５四玉(64)", "▲５六龍(76)"]
    assert csa_moves(THREE, THREE_PV) == ["+7572NY", "-6454OU", "+7656RY"]


def test_drops_and_recaptures() -> None:
    assert kif_moves(THREE, THREE_LONG_PV)[3:] == [
        "△８七金打",
        "▲同　角(98)",
        "△７六金打",
        "▲同　角(87)",
        "△６五金打",
        "▲同　角(76)",
    ]
    assert csa_moves(THREE, THREE_LONG_PV)[3:] == [
        "-0087KI",
        "+9887KA",
        "-0076KI",
        "+8776KA",
        "-0065KI",
        "+7665KA",
    ]


def test_white_to_move_starts_with_white_marks() -> None:
    assert kif_moves(ONE, ["9c9b+"]) == ["▲９二歩成(93)"]
    assert csa_moves(ONE, ["9c9b+"]) == ["+9392TO"]
    assert kif_moves(ONE_WHITE, ["1g1h+"]) == ["△１八歩成(17)"]
    assert csa_moves(ONE_WHITE, ["1g1h+"]) == ["-1718TO"]
    # a move that does not promote says so by its absence
    assert kif_moves(ONE, ["9c9b"]) == ["▲９二歩(93)"] and csa_moves(ONE, ["9c9b"]) == ["+9392FU"]


def test_promoted_minor_pieces_use_the_kif_two_character_names() -> None:
    sfen = "4k4/9/9/4+S4/3+N5/2+L6/9/9/9 b - 1"
    line = ["5d5c", "5a4a", "6e6d", "4a3a", "7f7e"]
    assert [m[1:] for m in kif_moves(sfen, line)[::2]] == [
        "５三成銀(54)",
        "６四成桂(65)",
        "７五成香(76)",
    ]
    assert csa_moves(sfen, line)[::2] == ["+5453NG", "+6564NK", "+7675NY"]


def test_parse_usi_move() -> None:
    board = parse_sfen(THREE)
    promote = parse_usi_move(board, "7e7b+")
    stay = parse_usi_move(board, "7e7b")
    assert promote != stay and cshogi.move_is_promotion(promote)
    assert not cshogi.move_is_promotion(stay)
    assert cshogi.move_to_usi(parse_usi_move(board, "7f5f")) == "7f5f"
    white = parse_sfen(THREE)
    white.push(promote)
    drop = parse_usi_move(white, "G*8f")
    assert cshogi.move_is_drop(drop) and cshogi.move_to_usi(drop) == "G*8f"
    assert board.sfen() == THREE  # nothing was played


@pytest.mark.parametrize(
    "text",
    ["", " ", "7e7b ", "7e7b++", "7e7", "0e7b", "7j7b", "p*5e", "K*5e", "G*5", "G5e", "7E7B",
     "resign", "none", "7e7b+x", "７五", "7e\n7b", "\x00", "G**5e", "a" * 1000],
)  # fmt: skip
def test_malformed_moves_are_one_line_errors(text: str) -> None:
    board = parse_sfen(THREE)
    with pytest.raises(ShogiError) as info:
        parse_usi_move(board, text)
    message = str(info.value)
    assert "\n" not in message and len(message) < 200
    assert "is not a USI move" in message


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("7e7a", "an unpromoted lance on the last rank could never move"),
        ("6d5d", "the other side's move"),
        ("9g8f", "it leaves the king ... it is legal: check below"),
        ("P*5e", "black has nothing in hand"),
        ("1a1b", "no piece there"),
        ("7f7e", "its own piece is there"),
        ("9h7f+", "a bishop cannot jump over its own dragon"),
    ],
)
def test_illegal_moves_are_one_line_errors(text: str, why: str) -> None:
    board = parse_sfen(THREE)
    legal = {cshogi.move_to_usi(m) for m in board.legal_moves}
    if text in legal:  # the list above holds one legal move, to prove the check is real
        assert text == "9g8f"
        return
    with pytest.raises(ShogiError) as info:
        parse_usi_move(board, text)
    assert str(info.value) == f"{text} is not a legal move here (black/sente to move)", why


def test_every_legal_move_parses_to_itself() -> None:
    for sfen in (THREE, ONE, ONE_WHITE, cshogi.STARTING_SFEN):
        board = parse_sfen(sfen)
        for move in board.legal_moves:
            assert parse_usi_move(board, cshogi.move_to_usi(move)) == move


def test_a_bad_line_names_its_ply() -> None:
    with pytest.raises(ShogiError, match=r"^move 2: 6d6c is not a legal move here \(white"):
        kif_moves(THREE, ["7e7b+", "6d6c"])
    with pytest.raises(ShogiError, match=r"^move 1: 'x' is not a USI move"):
        csa_moves(THREE, ["x"])
    with pytest.raises(ShogiError, match="SFEN board has 3 ranks"):
        kif_moves("9/9/9 b - 1", [])
    board, moves = usi_line(THREE, THREE_PV)
    assert board.sfen() == THREE and len(moves) == 3  # the board is left at the start


def test_kif_move_marks_recaptures_only_on_the_same_square() -> None:
    board = parse_sfen(THREE)
    _, moves = usi_line(THREE, THREE_LONG_PV)
    assert kif_move(moves[4], moves[3]) == "同　角(98)"
    assert kif_move(moves[4]) == "８七角(98)"
    assert kif_move(moves[3], moves[2]) == "８七金打"
    assert board.sfen() == THREE


def test_bod() -> None:
    lines = bod(THREE).splitlines()
    assert lines[0] == "後手の持駒：金四　銀四　桂四　香三　歩十四"
    assert lines[1] == "  ９ ８ ７ ６ ５ ４ ３ ２ １"
    assert lines[6] == "|v龍 ・ ・v玉 ・v歩 ・ ・ ・|四"
    assert lines[-1] == "先手の持駒：なし"
    assert bod(ONE_WHITE).splitlines()[-1] == "後手番"


def test_kif_document() -> None:
    text = kif_document(THREE, THREE_LONG_PV)
    lines = text.splitlines()
    assert text.endswith("まで9手で詰み\n")
    assert "手合割" not in text  # a problem is not the initial position
    header = lines.index(KIF_MOVES_HEADER)
    assert "\n".join(lines[:header]).endswith(bod(THREE))
    moves = lines[header + 1 : -1]
    assert moves[:3] == [
        "   1 ７二香成(75) ( 0:00/00:00:00)",
        "   2 ５四玉(64)   ( 0:00/00:00:00)",
        "   3 ５六龍(76)   ( 0:00/00:00:00)",
    ]
    assert moves[3] == "   4 ８七金打     ( 0:00/00:00:00)"
    assert moves[4] == "   5 同　角(98)   ( 0:00/00:00:00)"
    # cshogi's KIF reader reads every move line back to the move played
    board = parse_sfen(THREE)
    for line, usi in zip(moves, THREE_LONG_PV, strict=True):
        move, _, _ = cshogi.KIF.Parser.parse_move_str(line, board)
        assert move is not None and cshogi.move_to_usi(move) == usi, line
        board.push(move)


def test_kif_document_of_an_unproved_line_and_of_no_line() -> None:
    assert kif_document(THREE, THREE_PV[:1], mate=False).endswith("まで1手で中断\n")
    empty = kif_document(ONE_WHITE, [])
    assert empty.splitlines()[-2:] == ["後手番", KIF_MOVES_HEADER]

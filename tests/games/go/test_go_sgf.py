"""SGF: reading a hand-written file (variations, passes, set-up, escapes, comments), round
trips of random games (hypothesis), and one-line errors for bad input."""

from __future__ import annotations

import random

import paths
import pytest
from hypothesis import given
from hypothesis import strategies as st

from banmen.games.go import (
    BLACK,
    PASS,
    PRESETS,
    WHITE,
    Board,
    Game,
    InvalidBoardError,
    Rules,
    SgfError,
    handicap_points,
    parse_vertex,
    read_sgf,
    vertex_name,
    write_sgf,
)
from banmen.games.go.formats import parse_point, parse_sgf, sgf_point

DATA = paths.DATA / "go"


def names(board: Board) -> list[str]:
    return [board.move_name(m) for m in board.move_stack]


def test_reading_variations_passes_setup_and_comments() -> None:
    game = read_sgf((DATA / "variations.sgf").read_text())
    b = game.board
    assert b.size == 9 and b.komi == 0.5 and b.rules.name == "japanese"
    assert b.handicap == 2
    assert b.start_board().stones(BLACK) == sorted(parse_vertex(v, 9) for v in ("C3", "G7"))
    # the main line: first variation at each branch; play goes on after two passes
    assert names(b) == ["E5", "G5", "pass", "pass", "E3", "G3", "pass", "pass", "C7"]
    assert b.colors == [WHITE, BLACK] * 4 + [WHITE]
    assert not b.is_game_over()
    assert game.info("PB") == "Black ] player" and game.info("DT") == "2024-01-02"
    assert game.comments[0].startswith("A root comment with ] an escaped bracket, a \\ back")
    assert "soft line break." in game.comments[0]
    assert game.comments[1] == "tengen" and game.comments[5] == "main line"
    again = read_sgf(write_sgf(b))
    assert names(again.board) == names(b) and again.board == b
    assert again.board.colors == b.colors and again.board.handicap == 2


def test_tree_structure_and_old_style_identifiers() -> None:
    root = parse_sgf("(;GameName[x]AddBlack[aa][bb]\n;B[cc](;W[dd])(;W[ee];B[ff]))")
    assert root.props == {"GN": ["x"], "AB": ["aa", "bb"]}
    move = root.children[0]
    assert [c.props for c in move.children] == [{"W": ["dd"]}, {"W": ["ee"]}]
    assert move.children[1].children[0].get("B") == "ff"


def test_compressed_point_lists_and_clearing() -> None:
    game = read_sgf("(;GM[1]SZ[5]AB[aa:cb]AW[ee];AE[bb];W[dd])")
    b = game.board.start_board()
    got = sorted(vertex_name(p, 5) for p in b.stones(BLACK))
    assert got == ["A4", "A5", "B5", "C4", "C5"]  # a 3x2 rectangle less the cleared B4
    assert [vertex_name(p, 5) for p in b.stones(WHITE)] == ["E1"]
    assert b.turn == WHITE  # the first move's colour


def test_points_and_passes() -> None:
    assert parse_point("aa", 19, "B") == parse_vertex("A19", 19)
    assert parse_point("ss", 19, "B") == parse_vertex("T1", 19)
    assert parse_point("dd", 19, "B") == parse_vertex("D16", 19)
    assert parse_point("tt", 19, "B") == PASS
    assert parse_point("", 9, "W") == PASS and parse_point("tt", 9, "W") == PASS
    for p in Board(13).points:
        assert parse_point(sgf_point(p, 13), 13, "B") == p
    assert sgf_point(PASS, 9) == ""


def test_resignation_and_result() -> None:
    game = read_sgf("(;GM[1]SZ[9]RE[W+Resign];B[ee];W[cc])").game
    assert game.result() == "W+R"
    assert "RE[W+R]" in write_sgf(game)
    board = Board(9, "chinese", komi=7.5)
    board.push(PASS)
    board.push(PASS)
    text = write_sgf(board, black="A", white="B", date="2025-01-01", comment="gg [1]")
    assert "RE[W+7.5]" in text and "PB[A]PW[B]DT[2025-01-01]" in text
    assert "C[gg [1\\]]" in text
    assert read_sgf(text).info("C") == "gg [1]"


def test_rules_komi_and_overrides() -> None:
    assert read_sgf("(;GM[1]SZ[9])").board.rules.name == "chinese"
    assert read_sgf("(;SZ[9]RU[NZ])").board.rules.name == "new-zealand"
    assert read_sgf("(;SZ[9]RU[GOE]KM[8])").board.rules.name == "chinese"  # unknown: default
    assert read_sgf("(;SZ[9]RU[AGA])", rules="tromp-taylor").board.rules.name == "tromp-taylor"
    assert read_sgf("(;SZ[9]RU[Japanese])").board.komi == 6.5  # no KM: the rules' komi
    custom = Board(9, "ko=situational,scoring=territory,suicide=1,komi=2")
    back = read_sgf(write_sgf(custom)).board
    assert back.rules.same_rules(custom.rules) and back.komi == 2
    with pytest.raises(SgfError, match="unknown rules 'ing'"):
        read_sgf("(;SZ[9])", rules="ing")


def test_recorded_moves_may_be_out_of_turn() -> None:
    game = read_sgf("(;SZ[9];B[aa];B[bb];W[cc])")
    assert game.board.colors == [BLACK, BLACK, WHITE]
    assert read_sgf(write_sgf(game.board)).board.colors == [BLACK, BLACK, WHITE]


@st.composite
def games(draw: st.DrawFn) -> Game:
    size = draw(st.sampled_from([5, 7, 9, 13, 19]))
    rules = draw(st.sampled_from([*PRESETS.values(), Rules(ko="positional", scoring="territory")]))
    komi = draw(st.sampled_from([None, 0.0, -3.5, 6.5, 7.0, 100.5]))
    board = Board(size, rules, komi)
    seed = draw(st.integers(0, 2**32))
    rng = random.Random(seed)
    kind = draw(st.sampled_from(["none", "fixed", "free", "setup"]))
    if kind == "fixed" and size >= 7:
        board.fixed_handicap(rng.choice([2, 3, 4]))
    elif kind == "free":
        board.set_free_handicap(rng.sample(board.points, 3))
    elif kind == "setup":
        pts = rng.sample(board.points, 6)
        try:
            board.setup(black=pts[:3], white=pts[3:], turn=rng.choice([BLACK, WHITE]))
        except InvalidBoardError:
            pass  # a stone without liberties
    for _ in range(draw(st.integers(0, 3 * size * size))):
        legal = board.legal_moves
        if not legal:
            break
        board.push(PASS if rng.random() < 0.05 else rng.choice(legal))
    game = Game(board)
    if not game.is_game_over() and draw(st.booleans()):
        game.resign()
    return game


@given(games())
def test_round_trip(record: Game) -> None:
    board = record.board
    text = write_sgf(record, black="B \\ ]", white="W")
    game = read_sgf(text)
    back = game.board
    assert back == board
    assert back.move_stack == board.move_stack and back.colors == board.colors
    assert back.rules.same_rules(board.rules) and back.komi == board.komi
    assert back.handicap == board.handicap and back.prisoners == board.prisoners
    assert back.start_board() == board.start_board()
    assert game.game.result() == record.result()
    assert game.info("PB") == "B \\ ]"
    assert write_sgf(game.game, black="B \\ ]", white="W") == text


def test_handicap_is_written_as_setup() -> None:
    board = Board(19, "japanese")
    board.fixed_handicap(4)
    text = write_sgf(board)
    assert "HA[4]" in text and "PL[W]" in text and "RU[Japanese]" in text
    assert text.startswith("(;GM[1]FF[4]CA[UTF-8]")
    assert "AB[dp][pp][dd][pd]" in text
    back = read_sgf(text).board
    assert sorted(back.stones(BLACK)) == sorted(handicap_points(4, 19)) and back.turn == WHITE


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("", "not an SGF file: no game tree '(;' found"),
        ("hello", "no game tree"),
        ("()", "empty game tree"),
        ("(;SZ[9]", "unterminated game tree: a ')' is missing"),
        ("(;SZ[9];B[aa]", "a ')' is missing"),
        ("(;SZ[9]C[open", "unterminated property value '[' starting at line 1, column 9"),
        ("(;SZ[9] B )", "property B at line 1, column 9 has no [value]"),
        ("(;SZ[9] 5[aa])", "unexpected character '5' at line 1, column 9"),
        ("(B[aa])", "property B outside a node at line 1, column 2"),
        ("(;GM[2]SZ[9])", "not a Go game: GM[2] (Go is GM[1])"),
        ("(;SZ[25])", "board size 25 is not supported: expected 5 to 19"),
        ("(;SZ[9:13])", "board SZ[9:13] is not square"),
        ("(;SZ[nine])", "bad board size SZ[nine]"),
        ("(;SZ[9]KM[lots])", "bad komi KM[lots]: expected a number like 6.5"),
        ("(;SZ[9]HA[two])", "bad handicap HA[two]: expected a whole number"),
        ("(;SZ[9];B[zz])", "move 1: bad point B[zz]: expected two letters a-i on a 9x9 board"),
        ("(;SZ[9]AB[a\nb])", "bad point AB[a\\nb]"),
        ("(;SZ[9];B[a])", "bad point B[a]"),
        ("(;SZ[9]AB[aa][aa:tt])", "bad compressed point list AB[aa:tt]"),
        ("(;SZ[9]AB[])", "AB[] is not a point"),
        ("(;SZ[9];B[aa];W[aa])", "move 2 (W[aa], white A9) is illegal under chinese rules: "),
        ("(;SZ[9];B[aa]W[bb])", "move 1: a node has both B and W"),
        ("(;SZ[9];B[aa];AB[cc])", "set-up stones (AB/AW/AE) after move 1 are not supported"),
        ("(;SZ[5]AB[ba][ab]AW[aa])", "bad set-up stones: the white stone on A5"),
        ("(;SZ[9]PL[red])", "bad colour PL[red]: expected B or W"),
        ("(;SZ[9];Bé[aa])", "bad property name"),
        (b"\xff(;SZ[99])", "board size 99"),
        (42, "SGF must be text"),
    ],
)
def test_bad_sgf(text: object, fragment: str) -> None:
    with pytest.raises(SgfError) as e:
        read_sgf(text)  # type: ignore[arg-type]
    msg = str(e.value)
    assert fragment in msg, msg
    assert "\n" not in msg


def test_an_illegal_recorded_move_names_its_number_and_reason() -> None:
    text = "(;SZ[5];B[ba];W[aa];B[ab];W[])"  # fine: black captures A5 on move 3
    assert read_sgf(text).board.prisoners == (1, 0)
    bad = "(;SZ[5];B[ba];W[aa];B[ab];W[aa])"  # white refills the captured point at once
    with pytest.raises(SgfError, match=r"move 4 \(W\[aa\], white A5\) .* suicide"):
        read_sgf(bad)


VALID = "(;GM[1]FF[4]SZ[9]KM[6.5]HA[2]AB[cc][gg]RU[AGA];W[ee](;B[dc]C[x\\]y];W[])(;B[aa]))"


@given(
    st.one_of(
        st.text(alphabet="()[];\\:BWAEGHKLMPRSZCaeijtz019. \n", max_size=80),
        st.builds(
            lambda i, j, junk: VALID[:i] + junk + VALID[j:],
            st.integers(0, len(VALID)),
            st.integers(0, len(VALID)),
            st.text(alphabet="()[];\\:BWAEaz5 ", max_size=4),
        ),
    )
)
def test_any_text_reads_or_fails_with_one_line(text: str) -> None:
    try:
        game = read_sgf(text)
    except SgfError as e:
        assert "\n" not in str(e)
    else:
        assert isinstance(game.board, Board)

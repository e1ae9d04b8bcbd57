"""SFEN input (:mod:`banmen.games.shogi.formats`): whatever the text, a position or one
:class:`ShogiError` line — never another exception, never a crash of the process (cshogi
aborts on some malformed strings), never cshogi's own diagnostics on standard output (which
would corrupt a USI session or ``--json`` output).
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import cshogi
import pytest
from hypothesis import given
from hypothesis import strategies as st

from banmen.games.shogi import STARTPOS, ShogiError, normalize_sfen, parse_sfen

THREE = "9/9/3pp4/+r2k1p3/2L1+p4/2+R6/B8/B8/9 b 4g4s4n3l14p 1"
ONE = "k8/9/PK7/9/9/9/9/9/9 b 2r2b4g4s4n4l17p 1"
VALID = [THREE, ONE, STARTPOS, "4k4/9/9/9/9/9/9/9/9 b - 1", "9/9/9/9/9/9/7kp/9/8K w 2G 12"]


def check_one_line(e: ShogiError) -> None:
    message = str(e)
    assert message and "\n" not in message and "\r" not in message, repr(message)


def outcome(text: str) -> str | None:
    """The normalized SFEN if ``text`` is accepted (and cshogi can work with the board),
    ``None`` if it is rejected with a one-line ShogiError; anything else fails."""
    try:
        sfen = normalize_sfen(text)
        board = parse_sfen(text)
    except ShogiError as e:
        check_one_line(e)
        return None
    assert normalize_sfen(sfen) == sfen  # idempotent
    assert board.is_ok()
    board.is_check()
    for move in board.legal_moves:  # every move can be named and played
        cshogi.move_to_usi(move)
    return sfen


@pytest.mark.parametrize("sfen", VALID)
def test_valid_positions(sfen: str) -> None:
    assert normalize_sfen(sfen) == sfen
    assert parse_sfen(sfen).sfen() == sfen


def test_normal_forms() -> None:
    assert normalize_sfen("startpos") == STARTPOS
    assert normalize_sfen(f"  sfen {THREE}  ") == THREE
    assert normalize_sfen(THREE.rsplit(" ", 1)[0]) == THREE  # move number 1 by default
    # hands in the canonical order (rook first, black before white) with counts
    assert normalize_sfen("4k4/9/9/9/9/9/9/9/9 b pGgP2r 1") == "4k4/9/9/9/9/9/9/9/9 b GP2rgp 1"
    assert normalize_sfen("4k4/9/9/9/9/9/9/9/9 b 1P 007") == "4k4/9/9/9/9/9/9/9/9 b P 7"


BAD = [
    "",
    " ",
    "sfen",
    "startpos moves 7g7f",
    "9/9/9 b - 1",
    "9/9/9/9/9/9/9/9/9/9 b - 1",
    "4k4/9/9/9/9/9/9/9/9",
    "4k4/9/9/9/9/9/9/9/9 b",
    "4k4/9/9/9/9/9/9/9/9 x - 1",
    "4k4/9/9/9/9/9/9/9/9 B - 1",
    "4k4/9/9/9/9/9/9/9/9 b - 0",
    "4k4/9/9/9/9/9/9/9/9 b - -1",
    "4k4/9/9/9/9/9/9/9/9 b - one",
    "4k4/9/9/9/9/9/9/9/9 b - 1 extra",
    "4k4/9/9/9/9/9/9/9/8 b - 1",
    "4k5/9/9/9/9/9/9/9/9 b - 1",
    "4k4/9/9/9/0/9/9/9/9 b - 1",
    "4k4/9/9/9/x8/9/9/9/9 b - 1",
    "4k4/9/9/9/+8/9/9/9/9 b - 1",
    "4k4/9/9/9/8+/9/9/9/9 b - 1",
    "4k4/9/9/9/+G8/9/9/9/9 b - 1",
    "4k4/9/9/9/+K8/9/9/9/9 b - 1",
    "4k4/9/9/9/++P8/9/9/9/9 b - 1",
    "4k4/9/9/9/P8/9/9/9/9 b x 1",
    "4k4/9/9/9/9/9/9/9/9 b K 1",
    "4k4/9/9/9/9/9/9/9/9 b 0P 1",
    "4k4/9/9/9/9/9/9/9/9 b 19P 1",
    "4k4/9/9/9/9/9/9/9/9 b PP 1",
    "4k4/9/9/9/9/9/9/9/9 b 2P3P 1",
    "4k4/9/9/9/9/9/9/9/9 b P- 1",
    "4k4/9/9/9/9/9/9/9/9 b 3 1",
    "4k4/9/9/9/9/9/9/9/9 b 3R 1",
    "4k4/9/9/9/9/9/9/9/9 b 99999999999999999999P 1",
    "4k4/9/9/9/9/9/9/9/9 b RRr 1",
    "4k4/4K4/9/9/9/9/9/9/9 b - 1",  # the side not to move (white) is in check
    "4k4/9/9/9/9/9/9/9/4K3K b - 1",
    "4k3k/9/9/9/9/9/9/9/9 b - 1",
    "P3k4/9/9/9/9/9/9/9/9 b - 1",  # an unpromoted pawn on the last rank
    "L3k4/9/9/9/9/9/9/9/9 b - 1",
    "4k4/N8/9/9/9/9/9/9/9 b - 1",
    "4k4/9/9/9/9/9/9/9/p8 b - 1",
    "4k4/9/9/9/9/9/9/n8/9 b - 1",
    "4k4/9/9/9/P8/P8/9/9/9 b - 1",  # two pawns on a file
    "4k4/9/9/9/p8/p8/9/9/9 b - 1",
    "4k4/9/9/9/9/9/9/9/9 b 3B 1",
    "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b P 1",  # 19 pawns
    "9/9/9/9/9/9/9/9/9 b - 1",  # no king at all
    "4G4/9/9/9/9/9/9/9/9 b - 1",
    "4k4\\9\\9\\9\\9\\9\\9\\9\\9 b - 1",
    "4k4/9/9/9/9/9/9/9/9 b - 1\x00",
    "4k4/9/9/9/9/9/9/9/9\x00 b - 1",
    "４k４/9/9/9/9/9/9/9/9 b - 1",  # full-width digits
    "4k4/9/9/9/²/9/9/9/9 b - 1",  # a digit that int() does not read
    "4k4/9/9/9/٩/9/9/9/9 b - 1",  # a decimal digit that cshogi does not read
    "4k4/9/9/9/9/9/9/9/9 b - ²",
    "4k4/9/9/9/9/9/9/9/9 b ²P 1",
    "4k4/9/9/9/9/9/9/9/9 b ٣P 1",
    "4ｋ4/9/9/9/9/9/9/9/9 b - 1",
    "4k4/9/9/9/9/9/9/9/9 ｂ - 1",
    "é" * 10,
    "/" * 8 + " b - 1",
    "9" * 200,
]


@pytest.mark.parametrize("text", BAD)
def test_bad_sfen_is_one_shogi_error_line(text: str, capfd: pytest.CaptureFixture[str]) -> None:
    for parse in (normalize_sfen, parse_sfen):
        if parse is normalize_sfen and text in (
            "4k4/4K4/9/9/9/9/9/9/9 b - 1",
            "9/9/9/9/9/9/9/9/9 b - 1",
            "4G4/9/9/9/9/9/9/9/9 b - 1",
        ):
            continue  # legality beyond the syntax is parse_sfen's
        with pytest.raises(ShogiError) as info:
            parse(text)
        check_one_line(info.value)
    out, err = capfd.readouterr()
    assert out == "" and err == "", "cshogi printed its own diagnostics"


def test_non_strings_are_shogi_errors() -> None:
    for value in (None, 1, b"startpos", ["startpos"]):
        with pytest.raises(ShogiError):
            normalize_sfen(value)  # type: ignore[arg-type]
        with pytest.raises(ShogiError):
            parse_sfen(value)  # type: ignore[arg-type]


_ALPHABET = list("0123456789+/ -*bwkKpPlLnNsSgGrRbB\t\n\r") + ["٣", "²", "é", "\x00", "ｋ"]


@given(st.text(max_size=120))
def test_random_text(text: str) -> None:
    outcome(text)


@given(st.text(alphabet=_ALPHABET, max_size=120))
def test_random_sfen_like_text(text: str) -> None:
    outcome(text)


@given(
    st.sampled_from(VALID),
    st.lists(
        st.tuples(st.integers(0, 200), st.sampled_from(["replace", "insert", "delete"]),
                  st.sampled_from(_ALPHABET)),
        min_size=1, max_size=4,
    ),
)  # fmt: skip
def test_mutated_sfen(base: str, edits: list[tuple[int, str, str]]) -> None:
    text = list(base)
    for at, how, c in edits:
        i = at % (len(text) + 1)
        if how == "insert":
            text.insert(i, c)
        elif text:
            i = min(i, len(text) - 1)
            if how == "replace":
                text[i] = c
            else:
                del text[i]
    outcome("".join(text))


_CELLS = ["1", "1", "1", "1", "P", "p", "L", "l", "N", "n", "S", "s", "G", "g", "B", "b", "R",
          "r", "K", "k", "+P", "+p", "+B", "+r", "+S", "+n"]  # fmt: skip


@given(
    st.lists(st.lists(st.sampled_from(_CELLS), min_size=9, max_size=9), min_size=9, max_size=9),
    st.sampled_from("bw"),
    st.sampled_from(["-", "P", "2p", "Gg", "RBGSNLPrbgsnlp", "2R2B"]),
)
def test_random_boards(rows: list[list[str]], side: str, hand: str) -> None:
    """Boards that parse as text (nine squares a rank) but break the rules in every way:
    the checks must stop them before cshogi does."""
    sfen = outcome(f"{'/'.join(''.join(r) for r in rows)} {side} {hand} 1")
    if sfen is not None:
        # what is accepted is a position cshogi reads back as written (up to run lengths)
        board = parse_sfen(sfen)
        assert normalize_sfen(board.sfen()) == normalize_sfen(sfen)


def test_malformed_strings_never_crash_a_fresh_process() -> None:
    """cshogi aborts the process on some inputs: a seeded batch of mutations in a child
    process, so that a regression shows as a failed test rather than a dead test run."""
    script = (
        textwrap.dedent(
            """
        import random, sys
        from banmen.games.shogi import ShogiError, parse_sfen
        rng = random.Random(7)
        bases = BASES
        alphabet = ALPHABET
        for _ in range(3000):
            s = list(rng.choice(bases))
            for _ in range(rng.randint(1, 4)):
                i = rng.randrange(len(s) + 1)
                op = rng.random()
                if op < 0.4 and s:
                    s[min(i, len(s) - 1)] = rng.choice(alphabet)
                elif op < 0.7:
                    s.insert(i, rng.choice(alphabet))
                elif s:
                    del s[min(i, len(s) - 1)]
            text = "".join(s)
            try:
                board = parse_sfen(text)
                list(board.legal_moves)
                board.is_check()
            except ShogiError:
                pass
            except Exception as e:
                print(repr(text), type(e).__name__, e, file=sys.stderr)
                sys.exit(3)
        print("done")
        """
        )
        .replace("BASES", repr(VALID))
        .replace("ALPHABET", repr(_ALPHABET))
    )
    proc = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, (proc.returncode, proc.stderr[-500:])
    assert proc.stdout == "done\n", "cshogi printed to standard output: " + proc.stdout[:300]

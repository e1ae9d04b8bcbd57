"""The tsume page ships its own Japanese fonts (static/fonts/, subsets of Noto CJK made by
tools/make_font_subset.py): every character the page and the KIF notation can write must be
in them, or a machine without a Japanese font shows an empty box.

The characters are gathered here independently of the script: from the files the page
loads (followed from the rendered page through its stylesheets and its module imports), from the
Python modules whose text reaches the page, and from what the notation module actually
writes for positions that use every piece, promotion, drop, recapture and hand count.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import cshogi
import cshogi.KIF
import pytest
from fontTools.ttLib import TTFont

import banmen.games.shogi as shogi_pkg
from banmen.games.shogi.formats import bod, csa_moves, kif_document, kif_moves
from banmen.web import tsume as web_tsume
from banmen.web.pages import BODIES_DIR, PAGES, render_page

STATIC = Path(web_tsume.__file__).resolve().parent / "static"
FONTS = STATIC / "fonts"
SANS = FONTS / "banmen-shogi-sans.woff2"
SERIF = FONTS / "banmen-shogi-serif.woff2"


def non_ascii(text: str) -> set[str]:
    return {c for c in text if ord(c) > 127}


def page_html() -> str:
    """The tsume page as the server sends it."""
    return render_page(next(p for p in PAGES if p.path == "/tsume"))


def page_files() -> list[Path]:
    """The page's body and every static file it loads: stylesheets and scripts named in
    the HTML, and the modules those scripts import (transitively)."""
    found = [BODIES_DIR / "tsume.html"]
    todo = [
        STATIC / m for m in re.findall(r'(?:href|src)="/static/([^"]+\.(?:css|js))"', page_html())
    ]
    while todo:
        path = todo.pop()
        if path in found:
            continue
        found.append(path)
        if path.suffix == ".js":
            for name in re.findall(r'from\s+"\./([^"]+\.js)"', path.read_text()):
                todo.append(path.parent / name)
    return found


# Positions whose KIF uses every piece (promoted or not, both sides), drops, recaptures and
# both sides' hands with every count up to 18.
LINES = [
    # mate in 3 with a promotion, a king move and a dragon
    ("9/9/3pp4/+r2k1p3/2L1+p4/2+R6/B8/B8/9 b 4g4s4n3l14p 1", ["7e7b+", "6d5d", "7f5f"]),
    # a drop and a recapture (同)
    ("4k4/9/9/9/9/9/9/9/4K4 b G2r2b3g4s4n4l18p 1", ["G*5b", "5a5b"]),
    # the starting position: every unpromoted piece on the board
    ("startpos", ["7g7f", "3c3d", "8h2b+", "3a2b"]),
    # white to move, every kind in hand (18 pawns: 十八)
    ("4k4/9/9/9/9/9/9/9/4K4 w 2R2B4G4S4N4L18p 1", ["P*5h", "5i5h"]),
    # every promoted piece on the board
    (
        "+l+n+s+bk+r+s+n+l/9/+p+p+p+p+p+p+p+p+p/9/9/9/+P+P+P+P+P+P+P+P+P/9/+L+N+SGK+B+S+NG"
        " b R2gl 1",
        [],
    ),
]


@cache
def required_sans() -> set[str]:
    chars = non_ascii(page_html())
    for path in page_files():
        chars |= non_ascii(path.read_text(encoding="utf-8"))
    # what the server writes into the page: summaries, notes, errors (web/tsume.py and the
    # shogi package), including the KIF of each move
    chars |= non_ascii(Path(web_tsume.__file__).read_text(encoding="utf-8"))
    for path in Path(shogi_pkg.__file__).parent.glob("*.py"):
        chars |= non_ascii(path.read_text(encoding="utf-8"))
    for sfen, line in LINES:
        if sfen == "startpos":
            sfen = cshogi.STARTING_SFEN
        chars |= non_ascii("".join(kif_moves(sfen, line)))
        chars |= non_ascii(kif_document(sfen, line))
        chars |= non_ascii(kif_document(sfen, line, mate=False))
        chars |= non_ascii(bod(sfen))
        chars |= non_ascii("".join(csa_moves(sfen, line)))
    # every square name, piece name and count cshogi's KIF writer can use
    for table in (
        cshogi.KIF.KIFU_TO_SQUARE_NAMES,
        cshogi.KIF.PIECE_BOD_SYMBOLS,
        cshogi.PIECE_JAPANESE_SYMBOLS,
        cshogi.HAND_PIECE_JAPANESE_SYMBOLS,
        cshogi.NUMBER_JAPANESE_KANJI_SYMBOLS,
        cshogi.NUMBER_JAPANESE_NUMBER_SYMBOLS,
    ):
        chars |= non_ascii("".join(x for x in table if x))
    # the usual vocabulary of shogi notation beyond what banmen writes today
    chars |= non_ascii("歩香桂銀金角飛王玉と杏圭全馬龍竜〇一二三四五六七八九十")
    chars |= non_ascii("▲△☗☖同成不打右左上寄引直")
    return chars


def piece_labels() -> set[str]:
    """The piece names shogi-board.js draws on pieces, in hands and in the palette (from
    shogi-position.js)."""
    text = (STATIC / "js" / "shogi-position.js").read_text(encoding="utf-8")
    block = re.search(r"export const LABELS = \{(.*?)\};", text, re.S)
    assert block is not None
    labels = set(re.findall(r':\s*"([^"]+)"', block.group(1)))
    assert len(labels) == 14
    return labels


def cmap(path: Path) -> set[str]:
    return {chr(c) for c in TTFont(path).getBestCmap()}


def test_the_page_files_are_found() -> None:
    names = {p.name for p in page_files()}
    assert {"tsume.html", "tsume.css", "tsume.js", "shogi-board.js", "page.js"} <= names


def test_the_notation_characters_are_gathered() -> None:
    # the gathering itself reaches the KIF writer's output
    assert {"歩", "龍", "同", "打", "成", "十", "八", "９", "▲", "△"} <= required_sans()


def test_the_sans_font_has_every_character_the_page_and_the_notation_write() -> None:
    have = cmap(SANS)
    gone = sorted(c for c in required_sans() if c not in have)
    assert gone == [], (
        f"{SANS.name} lacks {' '.join(gone)} ({', '.join(f'U+{ord(c):04X}' for c in gone)}):"
        " run tools/make_font_subset.py"
    )


def test_the_serif_font_has_every_piece_name() -> None:
    have = cmap(SERIF)
    gone = sorted(c for label in piece_labels() for c in label if c not in have)
    assert gone == []
    assert {"王", "竜"} <= have


@pytest.mark.parametrize("path", [SANS, SERIF])
def test_the_fonts_are_small_renamed_subsets(path: Path) -> None:
    font = TTFont(path)
    assert font.flavor == "woff2"
    family = font["name"].getDebugName(1)
    assert family in ("Banmen Shogi Sans", "Banmen Shogi Serif")
    assert "SIL Open Font License" in (font["name"].getDebugName(13) or "")
    assert path.stat().st_size < 64_000
    assert len(font.getBestCmap()) < 400


def test_the_licence_is_beside_the_fonts_and_the_css_loads_them() -> None:
    licence = (FONTS / "OFL.txt").read_text(encoding="utf-8")
    assert "SIL OPEN FONT LICENSE Version 1.1" in licence
    assert "Adobe" in licence
    css = (STATIC / "css" / "tsume.css").read_text(encoding="utf-8")
    urls = re.findall(r'url\("\.\./fonts/([^"]+)"\)', css)
    assert sorted(urls) == sorted([SANS.name, SERIF.name])

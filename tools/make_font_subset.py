"""Make the two small web fonts the tsume-shogi page ships, so it reads on a machine with no
Japanese font installed.

    banmen-shogi-sans.woff2   Noto Sans CJK JP Regular: the Japanese text of the page and of
                              the KIF notation (coordinates, KIF moves, kanji in messages)
    banmen-shogi-serif.woff2  Noto Serif CJK JP Bold: the piece names drawn on the pieces,
                              in the hands and in the editor's palette

Both are subsets: only the characters listed by :func:`sans_text` and :func:`serif_text`
(every non-ASCII character of the page's own files, of the Python modules whose text
reaches the page, and of what cshogi's KIF writer can emit, plus the usual shogi
vocabulary), and both are renamed ("Banmen Shogi Sans" / "Banmen Shogi Serif"), as the SIL
Open Font License asks of a modified version. ``tests/test_web_font.py`` checks that the
committed fonts still cover what the page and the notation can write: after adding Japanese
text anywhere there, run this script again.

The source fonts are those of Debian's ``fonts-noto-cjk`` package (bookworm:
1:20220127+repack1-1, from https://github.com/googlefonts/noto-cjk). They need not be
installed system-wide (installed, chromium would use them and hide a missing glyph)::

    apt-get download fonts-noto-cjk
    dpkg -x fonts-noto-cjk_*.deb /tmp/noto
    python tools/make_font_subset.py --fonts /tmp/noto/usr/share/fonts/opentype/noto

Needs fontTools and brotli (``pip install fonttools brotli``). The licence text goes beside
the fonts (``static/fonts/OFL.txt``, written by hand, not by this script).
"""

from __future__ import annotations

import argparse
import inspect
import sys
from collections.abc import Iterable
from pathlib import Path

from fontTools import subset
from fontTools.ttLib import TTFont

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "src" / "banmen"
STATIC = PACKAGE / "web" / "static"
OUT = STATIC / "fonts"

#: the files of the tsume page, and the Python modules whose strings it shows
PAGE_FILES = [
    STATIC / "tsume.html",
    STATIC / "css" / "app.css",
    STATIC / "css" / "tsume.css",
    STATIC / "js" / "tsume.js",
    STATIC / "js" / "shogi-board.js",
    STATIC / "js" / "page.js",
    STATIC / "js" / "connection.js",
    PACKAGE / "web" / "tsume.py",
    *sorted((PACKAGE / "games" / "shogi").glob("*.py")),
]

#: piece names, promoted ones in their one- and two-character forms, and the variants
#: (王 for the king of the side that has 玉, 竜 for 龍)
PIECES = "歩香桂銀金角飛王玉と杏圭全馬龍竜成"
#: the rest of the usual notation: kanji and full-width numerals, side marks, KIF/KI2
#: words (同, 打, 不成, 右 左 上 寄 引 直 行 入 and the like), and a BOD's punctuation
NOTATION = (
    "〇一二三四五六七八九十１２３４５６７８９０"
    "▲△☗☖同成不打右左上寄引直行入生"
    "先後手番持駒なし：・　"
    "詰みまで中断投了千日将棋"
)

#: sources inside the directory given by --fonts: (file, font number in the collection)
SANS_SOURCE = ("NotoSansCJK-Regular.ttc", 0)  # 0: the JP face
SERIF_SOURCE = ("NotoSerifCJK-Bold.ttc", 0)
SANS_NAME = "Banmen Shogi Sans"
SERIF_NAME = "Banmen Shogi Serif"


def non_ascii(text: str) -> set[str]:
    """The characters of ``text`` a web font may have to draw: not ASCII, not a line end."""
    return {c for c in text if ord(c) > 127 and c not in "\u2028\u2029\ufeff"}


def cshogi_text() -> str:
    """Everything cshogi's KIF writer can put in a move or a board diagram: its tables and
    the literal strings of the two functions banmen calls."""
    import cshogi
    import cshogi.KIF

    parts: list[str] = [
        inspect.getsource(cshogi.KIF.move_to_kif),
        inspect.getsource(cshogi.KIF.board_to_bod),
    ]
    for table in (
        cshogi.KIF.KIFU_TO_SQUARE_NAMES,
        cshogi.KIF.PIECE_BOD_SYMBOLS,
        cshogi.PIECE_JAPANESE_SYMBOLS,
        cshogi.HAND_PIECE_JAPANESE_SYMBOLS,
        cshogi.NUMBER_JAPANESE_KANJI_SYMBOLS,
        cshogi.NUMBER_JAPANESE_NUMBER_SYMBOLS,
    ):
        parts.extend(str(x) for x in table if x)
    return "".join(parts)


def sans_text() -> str:
    chars = non_ascii(PIECES + NOTATION + cshogi_text())
    for path in PAGE_FILES:
        chars |= non_ascii(path.read_text(encoding="utf-8"))
    return "".join(sorted(chars))


def serif_text() -> str:
    return "".join(sorted(non_ascii(PIECES)))


def missing(font: TTFont, text: Iterable[str]) -> list[str]:
    cmap = font.getBestCmap()
    return [c for c in text if ord(c) not in cmap]


def rename(font: TTFont, family: str, style: str) -> None:
    """Give the subset its own names (family, full name, PostScript name), keeping the
    copyright, trademark, designer and licence records."""
    postscript = family.replace(" ", "") + "-" + style
    names = {1: family, 2: style, 3: f"{postscript};subset", 4: f"{family} {style}", 6: postscript}
    table = font["name"]
    table.names = [r for r in table.names if r.nameID not in (16, 17, 21, 22)]
    for record in table.names:
        if record.nameID in names:
            record.string = names[record.nameID]
    if "CFF " in font:
        cff = font["CFF "].cff
        cff.fontNames = [postscript]
        top = cff.topDictIndex[0]
        top.FullName = f"{family} {style}"
        top.FamilyName = family


def make(source: Path, number: int, text: str, family: str, style: str, out: Path) -> int:
    options = subset.Options()
    options.flavor = "woff2"
    options.font_number = number
    options.layout_features = ["*"]  # keep vertical forms and the like: few glyphs anyway
    options.name_IDs = ["*"]
    options.name_languages = [0x409]  # English names only (the licence is in English)
    options.notdef_outline = True
    options.hinting = False
    options.desubroutinize = True  # smaller after brotli
    font = subset.load_font(str(source), options)
    gone = missing(font, text)
    if gone:
        raise SystemExit(f"{source.name} has no glyph for: {' '.join(gone)}")
    subsetter = subset.Subsetter(options)
    subsetter.populate(text=text)
    subsetter.subset(font)
    rename(font, family, style)
    subset.save_font(font, str(out), options)
    return out.stat().st_size


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--fonts",
        type=Path,
        default=Path("/usr/share/fonts/opentype/noto"),
        help="the folder holding NotoSansCJK-Regular.ttc and NotoSerifCJK-Bold.ttc",
    )
    parser.add_argument("--out", type=Path, default=OUT, help="where the .woff2 files go")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    jobs = [
        (SANS_SOURCE, sans_text(), SANS_NAME, "Regular", "banmen-shogi-sans.woff2"),
        (SERIF_SOURCE, serif_text(), SERIF_NAME, "Bold", "banmen-shogi-serif.woff2"),
    ]
    for (file, number), text, family, style, name in jobs:
        size = make(args.fonts / file, number, text, family, style, args.out / name)
        print(f"{name}: {len(text)} characters, {size} bytes", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Every page of the web app as a screenshot, for comparing two trees (a refactor must
change no pixel). Starts ``banmen serve`` from the tree on ``PYTHONPATH`` with a fresh
database, opens each page in Debian's chromium (desktop 1280×900 and phone 390×844), waits
until it has drawn its board and settled, and writes ``OUT/<page>-<view>.png``:

    PYTHONPATH=OLD/src python tools/page_screenshots.py /tmp/shots/old
    PYTHONPATH=NEW/src python tools/page_screenshots.py /tmp/shots/new
    python tools/page_screenshots.py --compare /tmp/shots/old /tmp/shots/new

Pages whose game starts from a random deal (Mattix, Connect Four's opening) get a fixed
one: the script types a seed into the page's own form and starts a new game; a game's id
(random) is written as ``ID`` in the shot. ``--pages /hopper,/tictactoe`` shoots those
pages instead of banmen's own: the generic board page of a game package on the server's
path (the toy games of tests/web/toy_grid.py, with its ``write_package`` folder and
tests/web on ``PYTHONPATH``).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PAGES = ["/", "/mattix", "/othello", "/go", "/connect-four", "/tsume", "/viz", "/arena"]
VIEWS = {"desktop": {"width": 1280, "height": 900}, "phone": {"width": 390, "height": 844}}
#: a random game id, as pages print it
_IDS = r"[A-Za-z0-9_-]{11}"


def shoot(out: Path, pages: list[str]) -> None:
    from playwright.sync_api import sync_playwright

    from banmen.web.launch import free_port, stop, wait_ready

    out.mkdir(parents=True, exist_ok=True)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory() as d:
        log = Path(d) / "serve.log"
        with log.open("wb") as f:
            proc = subprocess.Popen(
                [sys.executable, "-m", "banmen", "serve", "--port", str(port), "--workers",
                 "1", "--db", str(Path(d) / "games.db")],
                stdout=f, stderr=subprocess.STDOUT, env=dict(os.environ),
            )  # fmt: skip
        try:
            wait_ready(base, proc, log, 300)
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path="/usr/bin/chromium")
                for view, size in VIEWS.items():
                    for path in pages:
                        ctx = browser.new_context(viewport=size, device_scale_factor=1)
                        page = ctx.new_page()
                        page.goto(base + path)
                        page.wait_for_load_state("networkidle")
                        if page.locator("#seed").count():  # a dealt start: a fixed one
                            page.fill("#seed", "7")
                            page.click("#new-button")
                            page.wait_for_function("document.getElementById('seed') !== null")
                            time.sleep(1.0)
                        page.evaluate(
                            """(ids) => {
                                const re = new RegExp("(game |#)" + ids, "g");
                                const walk = document.createTreeWalker(document.body,
                                    NodeFilter.SHOW_TEXT);
                                for (let n; (n = walk.nextNode()); )
                                    n.nodeValue = n.nodeValue.replace(re, "$1ID");
                            }""",
                            _IDS,
                        )
                        time.sleep(1.0)  # animations and the live line settle
                        name = path.strip("/") or "home"
                        page.screenshot(path=str(out / f"{name}-{view}.png"), full_page=True)
                        ctx.close()
                browser.close()
        finally:
            stop(proc)


def compare(a: Path, b: Path) -> int:
    from PIL import Image, ImageChops

    differ = 0
    for f in sorted(a.glob("*.png")):
        g = b / f.name
        if not g.exists():
            print(f"{f.name}: missing in {b}")
            differ += 1
            continue
        x, y = Image.open(f).convert("RGB"), Image.open(g).convert("RGB")
        if x.size != y.size:
            print(f"{f.name}: size {x.size} != {y.size}")
            differ += 1
            continue
        box = ImageChops.difference(x, y).getbbox()
        print(f"{f.name}: {'same' if box is None else f'differs in {box}'}")
        differ += box is not None
    return differ


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dirs", nargs="+", type=Path)
    ap.add_argument("--compare", action="store_true")
    ap.add_argument("--pages", help="comma-separated paths to shoot (default: banmen's own)")
    args = ap.parse_args()
    if args.compare:
        sys.exit(1 if compare(*args.dirs[:2]) else 0)
    shoot(args.dirs[0], args.pages.split(",") if args.pages else PAGES)


if __name__ == "__main__":
    main()

"""A misbehaving UGI engine for the forfeit tests: ``python ugi_fake.py GAME MODE [TAG]``.

It plays the first legal move (banmen's rules read the position), except as MODE says
from its third ``go`` of a game on: ``hang`` (never answers), ``exit`` (the process ends),
``illegal`` (answers a square that is no legal move), ``garbage`` (answers a line that is
not UGI, then nothing), ``longline`` (writes without end and never a line end),
``chatter`` (``info`` lines without end, never a ``bestmove``), ``forkexit`` (starts a
``sleep`` that keeps its output open, then exits), ``busy`` (computes forever, after
writing the file TAG.busy), ``ok`` (always plays). ``silent`` never answers a ``go``;
``forker`` plays well but starts a ``sleep`` at every new game (and leaves it); ``log``
plays well and appends every line it receives to the file TAG. Otherwise TAG, an
argument nobody reads, marks the process and its children in the process table.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

from banmen.games.registry import get_game


def main() -> None:
    game, mode = get_game(sys.argv[1]), sys.argv[2]
    assert game.ugi is not None
    board = game.sample() if game.sample else None
    goes = 0
    log = open(sys.argv[3], "a") if mode == "log" else None  # noqa: SIM115
    for line in sys.stdin:
        if log is not None:
            log.write(line)
            log.flush()
        words = line.split()
        if not words:
            continue
        cmd = words[0]
        if cmd == "ugi":
            print("id name fake", flush=True)
            print("ugiok", flush=True)
        elif cmd == "isready":
            print("readyok", flush=True)
        elif cmd == "uginewgame":
            goes = 0
            if mode == "forker":
                subprocess.Popen(
                    [sys.executable, "-c", "import time; time.sleep(300)", *sys.argv[3:]]
                )
        elif cmd == "position":
            at = words.index("moves") if "moves" in words else len(words)
            board = game.ugi.read(" ".join(words[2:at]))
            for m in words[at + 1 :]:
                board.push_name(m)
        elif cmd == "go":
            goes += 1
            assert board is not None
            if (goes >= 3 and mode == "hang") or mode == "silent":
                time.sleep(3600)
            if goes >= 3 and mode == "exit":
                sys.exit(3)
            if goes >= 3 and mode == "illegal":
                print("bestmove z99", flush=True)
                continue
            if goes >= 3 and mode == "garbage":
                print("I am thinking about it", flush=True)
                time.sleep(3600)
            if goes >= 3 and mode == "longline":
                chunk = b"x" * 65536
                while True:
                    os.write(1, chunk)
            if goes >= 3 and mode == "chatter":
                while True:
                    print("info depth 1 score cp 0 nodes 1 pv " + "a1 " * 20, flush=True)
            if goes >= 3 and mode == "forkexit":
                subprocess.Popen(
                    [sys.executable, "-c", "import time; time.sleep(300)", *sys.argv[3:]]
                )
                os._exit(4)
            if goes >= 3 and mode == "busy":
                open(f"{sys.argv[3]}.busy", "w").close()
                while True:
                    pass
            print(f"bestmove {board.move_name(board.legal_moves[0])}", flush=True)
        elif cmd == "quit":
            return


if __name__ == "__main__":
    main()

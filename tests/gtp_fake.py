"""A scripted GTP engine for the tests of how the arena settles Go games:
``python gtp_fake.py [OPTIONS]``.

It keeps the game's board (banmen's rules, moves as ``play`` gives them) and answers:

* ``genmove``: the next move of ``--moves`` (comma-separated vertices), then ``pass``;
  with ``--skip-illegal`` a scripted move the board does not allow is skipped;
* ``kgs-genmove_cleanup`` (listed, and ``known_command`` true, only with ``--cleanup``):
  the next move of ``--cleanup``, then ``pass`` (no scripted move is skipped there, so
  an illegal one is answered as it is);
* ``final_status_list dead``: ``--dead`` as given (comma-separated vertices; ``all-w`` /
  ``all-b``: every white / black stone on its board); without ``--dead`` the command is
  unknown (``?``);
* ``--log FILE``: every command line it receives is appended to FILE;
* ``--time``: it knows ``time_settings`` and ``time_left`` (accepted, not used);
  ``--kgs-time``: ``kgs-time_settings`` as well. Without them they are unknown (``?``).
"""

from __future__ import annotations

import argparse
import sys

from banmen.games.go import BLACK, PASS, WHITE, Board, Game, parse_vertex


def _list(text: str | None) -> list[str]:
    return [v for v in (text or "").split(",") if v]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--moves", default="")
    ap.add_argument("--cleanup", default=None)
    ap.add_argument("--dead", default=None)
    ap.add_argument("--skip-illegal", action="store_true")
    ap.add_argument("--log", default=None)
    ap.add_argument("--time", action="store_true")
    ap.add_argument("--kgs-time", action="store_true")
    args = ap.parse_args()
    moves, cleanup = _list(args.moves), _list(args.cleanup)
    log = open(args.log, "a") if args.log else None  # noqa: SIM115
    size, komi = 19, 7.5
    game = Game(Board(size, "chinese", komi))
    commands = ["protocol_version", "name", "version", "known_command", "list_commands",
                "boardsize", "clear_board", "komi", "play", "genmove", "undo", "quit"]  # fmt: skip
    if args.cleanup is not None:
        commands.append("kgs-genmove_cleanup")
    if args.dead is not None:
        commands.append("final_status_list")
    if args.time or args.kgs_time:
        commands += ["time_settings", "time_left"]
    if args.kgs_time:
        commands.append("kgs-time_settings")

    def move_from(script: list[str], color: int, skip: bool) -> str:
        while script:
            v = script.pop(0)
            try:
                p = parse_vertex(v, size)
                if skip and p != PASS and game.board.why_illegal(p, color) is not None:
                    continue
                game.play(p, color)
            except ValueError:
                if skip:
                    continue
            return v
        game.play(PASS, color)
        return "pass"

    for line in sys.stdin:
        if log is not None:
            log.write(line)
            log.flush()
        words = line.split()
        if not words:
            continue
        ident = ""
        if words[0].isdigit():
            ident, words = words[0], words[1:]
        cmd, rest = words[0], words[1:]
        answer: str | None = ""
        if cmd == "protocol_version":
            answer = "2"
        elif cmd == "name":
            answer = "fake"
        elif cmd == "version":
            answer = "1"
        elif cmd == "known_command":
            answer = "true" if rest and rest[0] in commands else "false"
        elif cmd == "list_commands":
            answer = "\n".join(commands)
        elif cmd == "boardsize":
            size = int(rest[0])
            game = Game(Board(size, "chinese", komi))
        elif cmd == "clear_board":
            game = Game(Board(size, "chinese", komi))
        elif cmd == "komi":
            komi = float(rest[0])
            game = Game(Board(size, "chinese", komi))
        elif cmd == "play":
            color = BLACK if rest[0].lower().startswith("b") else WHITE
            game.play(parse_vertex(rest[1], size), color)
        elif cmd == "genmove":
            color = BLACK if rest[0].lower().startswith("b") else WHITE
            answer = move_from(moves, color, args.skip_illegal)
        elif cmd == "kgs-genmove_cleanup" and args.cleanup is not None:
            color = BLACK if rest[0].lower().startswith("b") else WHITE
            answer = move_from(cleanup, color, False)
        elif cmd == "undo":
            game.pop()
        elif cmd == "final_status_list" and args.dead is not None:
            if args.dead in ("all-w", "all-b"):
                stones = game.board.stones(WHITE if args.dead == "all-w" else BLACK)
                answer = " ".join(game.board.move_name(p) for p in stones)
            else:
                answer = " ".join(_list(args.dead))
        elif cmd in ("time_settings", "time_left", "kgs-time_settings") and cmd in commands:
            answer = ""
        elif cmd == "quit":
            print(f"={ident}\n", flush=True)
            return
        else:
            answer = None
        if answer is None:
            print(f"?{ident} unknown command\n", flush=True)
        else:
            print(f"={ident} {answer}\n", flush=True)


if __name__ == "__main__":
    main()

"""Go rules against GNU Go as an oracle, through its GTP mode.

Seeded random games are played on our board and sent to GNU Go move by move; at sampled
plies (and at every ply with a ko point) the stones, the capture counts and the full set of
legal moves of the side to move must agree. GNU Go's rule switches select the variants:
default (simple ko, no suicide), ``--allow-suicide`` (multi-stone suicide, as our
``suicide=True``), ``--positional-superko`` and ``--situational-superko``. GNU Go's
``fixed_handicap`` is the reference for the GTP handicap layout.
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from banmen.games.go import (
    BLACK,
    PASS,
    WHITE,
    Board,
    Game,
    HandicapError,
    Rules,
    handicap_points,
    parse_vertex,
)
from banmen.games.go import kernels as K
from banmen.games.go.board import color_name, vertex_name

GNUGO = "/usr/games/gnugo"
_found = Path(GNUGO).exists() or shutil.which("gnugo") is not None
if not _found and os.environ.get("CI"):  # CI installs it (.ci/run): missing is a failure
    raise RuntimeError(f"GNU Go not installed ({GNUGO}): CI must install Debian's gnugo")
pytestmark = [
    pytest.mark.external,
    pytest.mark.skipif(
        not _found, reason=f"GNU Go not installed ({GNUGO}; Debian package 'gnugo')"
    ),
]


class GtpError(Exception):
    pass


class Gtp:
    """A GNU Go process spoken to in GTP, one command at a time."""

    def __init__(self, *args: str) -> None:
        exe = GNUGO if Path(GNUGO).exists() else shutil.which("gnugo")
        assert exe is not None
        self.proc = subprocess.Popen(
            [exe, "--mode", "gtp", *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )

    def __call__(self, command: str) -> str:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()
        lines: list[str] = []
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise GtpError(f"GNU Go exited during {command!r}")
            line = line.rstrip("\r\n")
            if not line:
                if lines:
                    break
                continue
            lines.append(line)
        text = "\n".join(lines)
        if text.startswith("?"):
            raise GtpError(f"{command!r}: {text[1:].strip()}")
        return text[1:].strip()

    def close(self) -> None:
        try:
            self("quit")
        except GtpError:
            pass
        self.proc.wait(timeout=60)


# GNU Go's switches and the matching rules (komi is irrelevant to legality)
CONFIGS = {
    "simple": ([], Rules(ko="simple", suicide=False)),
    "suicide": (["--allow-suicide"], Rules(ko="simple", suicide=True)),
    "positional": (["--positional-superko"], Rules(ko="positional", suicide=False)),
    "situational": (["--situational-superko"], Rules(ko="situational", suicide=False)),
}


@pytest.fixture(scope="module", params=sorted(CONFIGS))
def engine(request: pytest.FixtureRequest) -> Iterator[tuple[str, Gtp, Rules]]:
    args, rules = CONFIGS[request.param]
    gtp = Gtp("--chinese-rules", *args)
    yield request.param, gtp, rules
    gtp.close()


def _names(board: Board, pts: list[int]) -> set[str]:
    return {vertex_name(p, board.size) for p in pts}


def _compare(gtp: Gtp, board: Board, where: str) -> None:
    for color in (BLACK, WHITE):
        name = color_name(color)
        assert set(gtp(f"list_stones {name}").split()) == _names(board, board.stones(color)), (
            f"{where}: {name} stones differ\n{board}"
        )
        assert int(gtp(f"captures {name}")) == board.captures(color), f"{where}: {name} captures"
    if board.is_game_over():  # we list no moves then; GNU Go would go on
        return
    ours = _names(board, [m for m in board.legal_moves if m != PASS])
    theirs = set(gtp(f"all_legal {color_name(board.turn)}").split())
    assert ours == theirs, (
        f"{where}: legal moves differ: only ours {sorted(ours - theirs)}, "
        f"only GNU Go's {sorted(theirs - ours)}\n{board}"
    )


def _play_random_game(
    gtp: Gtp, rules: Rules, size: int, seed: int, every: int, stats: dict[str, int]
) -> None:
    rng = random.Random(seed)
    gtp(f"boardsize {size}")
    gtp("clear_board")
    board = Board(size, rules)
    s = board.stride
    for ply in range(4 * size * size):
        if board.is_game_over():
            break
        ko = board.ko_point is not None
        if ko or ply % every == 0:
            _compare(gtp, board, f"seed {seed} ply {ply}")
            stats["checks"] += 1
            if ko:
                stats["ko"] += 1
                assert board.why_illegal(board.ko_point or 0) == "ko"
                v = vertex_name(board.ko_point or 0, size)
                assert gtp(f"is_legal {color_name(board.turn)} {v}") == "0"
        legal = board.legal_moves
        grid = board.position.board
        cands = [m for m in legal if m != PASS and not K.is_eye(grid, m, board.turn, s)]
        suicides = [m for m in cands if _is_suicide(board, m)]
        if suicides and rng.random() < 0.3:
            move = rng.choice(suicides)
        elif not cands or rng.random() < 0.02:
            move = PASS
        else:
            move = rng.choice(cands)
        color = board.turn
        board.push(move)
        gtp(f"play {color_name(color)} {vertex_name(move, size)}")
        if move != PASS and board.color_at(move) == 0:
            stats["suicides"] += 1
    _compare(gtp, board, f"seed {seed} end")


def _is_suicide(board: Board, m: int) -> bool:
    s = board.stride
    grid = board.position.board
    if any(grid[q] == 0 for q in (m - 1, m + 1, m - s, m + s)):
        return False
    trial = board.copy()
    trial.push(m)
    return trial.color_at(m) == 0


def test_random_games_match_gnugo(engine: tuple[str, Gtp, Rules]) -> None:
    name, gtp, rules = engine
    stats = {"checks": 0, "ko": 0, "suicides": 0}
    for seed in range(30):
        _play_random_game(gtp, rules, 9, 1000 * seed + 9, 1, stats)
    for seed in range(4):
        _play_random_game(gtp, rules, 13, 1000 * seed + 13, 1, stats)
    for seed in range(2):
        _play_random_game(gtp, rules, 19, 1000 * seed + 19, 5, stats)
    assert stats["ko"] >= 20, stats  # positions with a ko point were compared
    if name == "suicide":
        assert stats["suicides"] >= 20, stats


# --------------------------------------------------------------------------- superko

# Sending two, returning one (7x7, lower left corner): B C1 throws in two stones, W A1
# captures them, B B1 takes one back and the board repeats with white to move. Positional
# superko forbids B1; situational superko allows it, but after a white pass B's C1 would
# repeat the position after the first C1 (same board, white to move) and is forbidden.
S2R1_BLACK = ["B1", "A2", "A3", "B3", "B4"]
S2R1_WHITE = ["B2", "C2", "D2", "D1", "C3", "C4"]
S2R1_EXPECTED = {
    "simple": [None, None, None, None, None],
    "suicide": [None, None, None, None, None],
    "positional": [None, None, "superko"],
    "situational": [None, None, None, None, "superko"],
}


def test_sending_two_returning_one_matches_gnugo(engine: tuple[str, Gtp, Rules]) -> None:
    name, gtp, rules = engine
    board = Board(7, rules)
    board.setup(
        black=[parse_vertex(v, 7) for v in S2R1_BLACK],
        white=[parse_vertex(v, 7) for v in S2R1_WHITE],
    )
    gtp("boardsize 7")
    gtp("clear_board")
    for color, vs in ((BLACK, S2R1_BLACK), (WHITE, S2R1_WHITE)):
        for v in vs:
            gtp(f"play {color_name(color)} {v}")
    for i, (v, expected) in enumerate(
        zip(["C1", "A1", "B1", "pass", "C1"], S2R1_EXPECTED[name], strict=False)
    ):
        _compare(gtp, board, f"{name} step {i}")
        m = parse_vertex(v, 7)
        assert board.why_illegal(m) == expected, (name, i, v)
        if expected is not None:
            assert gtp(f"is_legal {color_name(board.turn)} {v}") == "0"
            break
        gtp(f"play {color_name(board.turn)} {v}")
        board.push(m)


# --------------------------------------------------------------------------- handicap


def test_fixed_handicap_matches_gnugo() -> None:
    gtp = Gtp()
    try:
        for size in range(5, 20):
            gtp(f"boardsize {size}")
            for n in range(1, 11):
                gtp("clear_board")
                try:
                    theirs: set[str] | None = set(gtp(f"fixed_handicap {n}").split())
                except GtpError:
                    theirs = None
                try:
                    ours: set[str] | None = {vertex_name(p, size) for p in handicap_points(n, size)}
                except HandicapError:
                    ours = None
                assert ours == theirs, (size, n)
    finally:
        gtp.close()


# --------------------------------------------------------------------------- SGF


def _random_board(size: int, seed: int, plies: int) -> Board:
    rng = random.Random(seed)
    board = Board(size, "chinese", komi=5.5)
    board.fixed_handicap(3)
    s = board.stride
    while board.ply < plies and not board.is_game_over():
        legal = board.legal_moves
        grid = board.position.board
        cands = [m for m in legal if m != PASS and not K.is_eye(grid, m, board.turn, s)]
        board.push(rng.choice(cands) if cands else PASS)
    return board


def test_gnugo_reads_our_sgf_and_we_read_its_sgf(tmp_path: Path) -> None:
    from banmen.games.go import read_sgf, write_sgf

    gtp = Gtp("--chinese-rules")
    try:
        for seed, size in ((1, 9), (2, 13), (3, 19)):
            board = _random_board(size, seed, 3 * size * size // 2)
            assert sum(board.prisoners) > 0
            path = tmp_path / f"game{seed}.sgf"
            path.write_text(write_sgf(board))
            gtp(f"loadsgf {path}")
            _compare(gtp, board, f"GNU Go loading our SGF {seed}")
            # GNU Go writes the current position as set-up stones
            theirs = read_sgf(gtp("printsgf")).board
            # (after loading, GNU Go prints a komi of its own and no HA)
            assert theirs.size == size
            assert theirs.rules.name == "chinese" and theirs.turn == board.turn
            for color in (BLACK, WHITE):
                assert theirs.stones(color) == board.stones(color)
    finally:
        gtp.close()


def test_arena_counts_go_games_with_the_dead_stones_both_engines_name(tmp_path: Path) -> None:
    """GNU Go against GNU Go (two levels) to two passes: both are asked for the dead
    stones through GTP, both answers are kept, and the game is counted with the agreed
    ones (or, where they differ, played out and counted with every stone alive)."""
    from banmen.arena.runner import run_arena
    from banmen.arena.store import ArenaStore, RunConfig
    from banmen.games.go import settle_dead

    exe = GNUGO if Path(GNUGO).exists() else shutil.which("gnugo")
    players = [
        {"name": f"g{level}", "spec": f"gtp:{exe} --mode gtp --level {level} --chinese-rules"}
        for level in (1, 3)
    ]
    store = ArenaStore(tmp_path / "a.db")
    run = store.create_run(RunConfig("go", players, 4, 1, size=9), "x")
    run_arena(store, run, workers=2)
    games = store.games(run)
    assert len(games) == 4
    assert any(g.extra for g in games), "no game was passed out: nothing was checked"
    for g in games:
        game = Game(Board(9, "chinese", 7.5))
        for m in g.moves:
            if game.is_game_over():  # (a cleanup's moves follow: settle_dead plays them)
                break
            game.push(game.parse_move(m))
        if g.moves[-1] == "resign" and not g.extra:
            assert g.extra == {}
            continue
        assert set(g.extra["dead_answers"]) == {"first", "second"}  # both could say
        answers = g.extra["dead_answers"]
        agreed = _whole_chains(game, answers["first"]) == _whole_chains(game, answers["second"])
        assert g.extra["settled"] == ("agreed" if agreed else "cleanup")
        settle_dead(game, (None, None), g.extra)
        if agreed:
            assert sorted(game.board.move_name(p).upper() for p in game.dead) == sorted(
                v.upper() for v in _whole_chains(game, g.extra["dead"])
            )
        else:  # played out, then counted with every stone alive
            assert game.dead == frozenset() and game.counting
        res = game.result()
        first_won = res.startswith("B+")
        assert g.result == ("1-0" if first_won else "0-1" if res.startswith("W+") else "1/2-1/2")


def _whole_chains(game: Game, names: list[str]) -> list[str]:
    """Every stone of the chains on ``names`` (an engine may name one stone a chain)."""
    out: set[str] = set()
    for v in names:
        stones, _ = game.board.group(parse_vertex(v, game.board.size))
        out |= {game.board.move_name(p) for p in stones}
    return sorted(out)

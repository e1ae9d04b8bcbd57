"""Settle the passed-out Go games of arena runs again, as the arena now does (issues 17, 29).

For every game of each RUN in SRC that both players passed out (the moves are replayed
to the game's two passes), the dead stones are settled as :func:`banmen.games.go.settle_dead`
settles them in the arena:

* the players' answers are the ones SRC kept with the game (``dead_answers``); a game
  recorded before the arena asked (no answers kept) has its players' engines asked now —
  the GTP engine as the player's spec starts it (``final_status_list dead``), banmen's
  through its estimate;
* answers that name the same chains: the game is counted with them removed (with the
  answers kept, nothing changes);
* otherwise the game goes on from its final position, a cleanup played by the two
  players' engines as the run's config specs them (banmen's engine with the run's spec,
  new game and seeded per game and side as the arena seeds them; GNU Go at the run's
  level), and the board it leaves is counted with every stone alive (Tromp-Taylor).
  The cleanup's moves and times are added to the game's, as the arena records them.

A run SRC holds that this user did not sign (:mod:`banmen.arena.trust`: an edited file,
another user's or machine's) and whose players start a program or load code is refused,
naming them, unless ``--yes`` says to start them: a results file is input, not code.

Games resigned or forfeited are copied as they are. The runs are written to OUT, a new
arena database (SRC is only read): ``banmen arena report RUN --db OUT`` then gives the
new tables. Each game whose settlement changed is printed (its result and count before
and after), then a JSON summary per run.

    python tools/go_rescore.py SRC OUT RUN [RUN ...] [--yes]
"""

from __future__ import annotations

import json
import sys
import zlib
from dataclasses import replace
from pathlib import Path
from typing import Any

from banmen.arena import trust
from banmen.arena.play import EngineCache, _Referee
from banmen.arena.store import ArenaStore, GameRecord, RunConfig
from banmen.engine import Engine
from banmen.games import Forfeit, Outcome, Termination
from banmen.games.go import Game, settle_dead
from banmen.games.registry import get_game, parse_spec
from banmen.search.limits import Limit

GAME = get_game("go")


class _Player:
    """A player of a game being settled again: its dead stones are the answer kept with
    the game (or its engine's, asked now, if none was kept); its moves in a cleanup are
    its engine's, started (and seeded for this game) only when one is needed."""

    def __init__(
        self, spec: str, answer: list[str] | None, kept: bool, cache: EngineCache, seed: int,
        side: int,
    ) -> None:  # fmt: skip
        self.spec, self.answer, self.kept = spec, answer, kept
        self.cache, self.seed, self.side = cache, seed, side
        self._engine: Engine[Any] | None = None

    @property
    def engine(self) -> Engine[Any]:
        if self._engine is None:
            engine = self.cache.get(GAME, self.spec)
            if engine is None:
                raise SystemExit(f"go_rescore: player {self.spec!r} cannot be started here")
            engine.new_game()
            engine.reseed(zlib.crc32(f"{self.seed}:{self.side}".encode()))
            self._engine = engine
        return self._engine

    def final_dead(self, board: Game) -> list[str] | None:
        if self.kept:
            return self.answer
        ask = getattr(self.engine, "final_dead", None)
        return ask(board) if callable(ask) else None

    def think_cleanup(self, board: Game, limit: Limit | None = None) -> Any:
        ask = getattr(self.engine, "think_cleanup", None)
        return ask(board, limit) if callable(ask) else self.engine.think(board, limit)


def _outcome(g: GameRecord) -> tuple[str, int, int, list[str]]:
    return g.result, g.score1, g.score2, g.moves


def _replayed(g: GameRecord, size: int | None) -> Game:
    assert GAME.new_board is not None
    board: Game = GAME.new_board(g.deal_seed, size)
    for m in g.moves:
        if board.is_game_over():
            break
        board.push(board.parse_move(m))
    return board


def _settled_again(
    g: GameRecord, config: RunConfig, specs: dict[str, str], cache: EngineCache
) -> GameRecord:
    board = _replayed(g, config.size)
    if "forfeit" in g.extra or not board.counting:
        return g  # a resignation, a forfeit: nothing to settle
    answers = g.extra.get("dead_answers")
    kept = isinstance(answers, dict)
    players = (
        _Player(specs[g.first], (answers or {}).get("first"), kept, cache, g.deal_seed, 1),
        _Player(specs[g.second], (answers or {}).get("second"), kept, cache, g.deal_seed, 2),
    )
    moves, times = list(g.moves[: len(board.move_stack)]), list(g.times[: len(board.move_stack)])
    parsed = {name: parse_spec(specs[name], GAME) for name in (g.first, g.second)}

    def lost(side: int, name: str, e: Exception) -> dict[str, Any]:
        cache.drop(GAME, specs[name])
        return {"side": side, "player": name, "reason": " ".join(str(e).split())[:500]}

    referee = _Referee((g.first, g.second), parsed, moves, times, lost)
    try:
        extra = settle_dead(board, players, {}, referee)
    except Forfeit as e:
        s1, s2 = GAME.scores(board)
        lost = Outcome(Termination.FORFEIT, 3 - int(e.info["side"]))
        return replace(g, result=lost.result(), score1=s1, score2=s2, moves=moves, times=times,
                       extra={**e.extra, "forfeit": e.info}, outcome=lost)  # fmt: skip
    s1, s2 = GAME.scores(board)
    outcome = GAME.outcome_of(board)
    assert outcome is not None  # (settled: the game is counted)
    return replace(g, result=outcome.result(), score1=s1, score2=s2, moves=moves, times=times,
                   extra=extra, outcome=outcome)  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    yes = "--yes" in args
    args = [a for a in args if a != "--yes"]
    if len(args) < 3:
        print(__doc__.strip().splitlines()[-1].strip(), file=sys.stderr)
        return 2
    src, out, runs = Path(args[0]), Path(args[1]), args[2:]
    if not src.exists():
        print(f"go_rescore: no database {src}", file=sys.stderr)
        return 2
    if out.resolve() == src.resolve():
        print("go_rescore: OUT must be a new database, not SRC", file=sys.stderr)
        return 2
    old = ArenaStore(src, readonly=True)
    new = ArenaStore(out)
    cache = EngineCache()
    summary: dict[str, Any] = {}
    try:
        for run in runs:
            try:
                config = old.run_config(run)
                text, signature = old.signed_config(run)
                verdict = trust.check(run, text, signature, config.players)
            except (KeyError, ValueError) as e:
                print(f"go_rescore: {e}", file=sys.stderr)
                return 2
            if verdict.asks and not yes:
                named = "; ".join(f"{p.name}: {trust.shown(p.runs or '')}" for p in verdict.flagged)
                print(f"go_rescore: run {run!r} is not trusted ({verdict.why}); it would "
                      f"start {named}; add --yes to start them", file=sys.stderr)  # fmt: skip
                return 2
            specs = {p["name"]: p["spec"] for p in config.players}
            new.create_run(config, run)
            records, changed = [], []
            for g in old.games(run):
                r = _settled_again(g, config, specs, cache)
                records.append(r)
                how = r.extra.get("settled")
                if _outcome(r) != _outcome(g):
                    game = f"p{g.pairing}-{g.pair:04d}-{'b' if g.swapped else 'a'}"
                    line = (f"{run} {game} ({g.first} first): {g.result} {g.score1}-{g.score2}"
                            f" -> {r.result} {r.score1}-{r.score2} ({how}")  # fmt: skip
                    if how == "cleanup":
                        line += (f", {len(r.extra['cleanup_moves'])} cleanup moves, "
                                 f"{r.extra['cleanup_end']}")  # fmt: skip
                    print(line + ")", flush=True)
                    changed.append(game)
            new.add_games(run, records)
            new.set_status(run, "done")
            summary[run] = {
                "games": len(records),
                "agreed": sum(1 for r in records if r.extra.get("settled") == "agreed"),
                "cleanup": sum(1 for r in records if r.extra.get("settled") == "cleanup"),
                "winner_changed": sum(
                    1 for r, g in zip(records, old.games(run), strict=True) if r.result != g.result
                ),
                "changed": changed,
            }
    finally:
        cache.close()
        old.close()
        new.close()
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""How the arena settles a Go game that both players passed out (``GameDef.settle``), as
KGS and CGOS do: by the players' agreement on the dead stones, or else by play. The
referee is never one of the players: no player's estimate decides a dispute.

1. **Agreement.** Each player is asked for the dead stones (its engine's ``final_dead``:
   a GTP engine's ``final_status_list dead``, banmen's
   :func:`~.estimate.estimate_dead`). If both answer and name the same chains, those are
   removed and the board is counted by area: ``{"settled": "agreed", "dead": [...],
   "dead_answers": {...}}``.
2. **Cleanup.** Otherwise (they disagree, one cannot say, or what they agree on cannot be
   dead: an empty point, a pass-alive chain) the game goes on from the final position,
   the side to move after the two passes first, each player asked for its move in
   cleanup mode — its engine's ``think_cleanup`` where it has one: a GTP engine asks
   ``kgs-genmove_cleanup`` if it lists it, else ``genmove``
   (:meth:`GTPEngine.think_cleanup <banmen.games.go.gtp_client.GTPEngine.think_cleanup>`);
   banmen's engine does not pass while stones of the opponent that it estimates dead
   remain, it captures them (:meth:`GoEngine.think_cleanup
   <banmen.games.go.engine.GoEngine.think_cleanup>`); a UGI player passes, unasked (its
   position cannot go on after two passes). The others (``python:`` players, ``random``)
   play as in the game, on the record going on (:meth:`Game.going_on
   <banmen.games.go.game.Game.going_on>`).

   A player that named dead stones of its opponent and passes while one of them is still
   on the board is asked again, :data:`PASS_RETRIES` times at most; then its pass stands,
   and what it claimed is counted alive. The cleanup ends with two passes in a row, a
   resignation, or after :data:`PLIES_PER_POINT` times the board's points in plies;
   the board is then counted as it stands, every stone alive: the **Tromp-Taylor** count
   (the arena plays Chinese rules — area scoring without a seki tax — so each side has
   its stones plus the empty regions only its colour reaches, and white the komi).
   What is kept: ``{"settled": "cleanup", "dead_answers": {...}, "cleanup_from": PLY,
   "cleanup_moves": [...], "cleanup_end": "two passes" | "resignation" | "ply cap"}``;
   ``cleanup_from`` is the number of moves before the first cleanup move, and the
   cleanup's moves are also the game's moves after its two passes (the arena's record,
   its SGF).

``dead_answers`` holds each answer as given (``"first"``: black's, ``"second"``:
white's), so a disagreement shows in the record. The cleanup's moves go through a
:class:`~banmen.games.Referee`: the arena times and judges them as the game's own moves,
so a user's player that fails there forfeits the game (:class:`~banmen.games.Forfeit`,
with what the cleanup kept so far); without one the engines are asked directly and an
illegal move raises :class:`~.errors.GoError`.

Given what an earlier settlement kept (``recorded``), :func:`settle_dead` applies it
again and asks nobody: the agreed dead stones are marked, a cleanup's moves replayed
(those the game holds already are checked) — how reports and re-counts reproduce the
count. Records kept before the cleanup existed (``"dead_from"``: ``"agreed"`` or
``"estimate"``) mark their ``dead`` stones as they did then.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import Any

from banmen.engine import GameBoard, Result
from banmen.games._base import Forfeit, Referee
from banmen.games.go.board import BLACK, PASS, WHITE, parse_vertex, vertex_name
from banmen.games.go.errors import GoError
from banmen.games.go.game import RESIGN_NAME, Game, is_resignation

__all__ = ["PASS_RETRIES", "PLIES_PER_POINT", "settle_dead"]

#: a player passing in a cleanup while opponent stones it called dead remain is asked
#: again this many times at most; then its pass stands
PASS_RETRIES = 2
#: a cleanup lasts at most this many plies per point of the board (162 on 9x9, 722 on
#: 19x19); then the board is counted as it stands
PLIES_PER_POINT = 2


def settle_dead(
    game: Game,
    engines: tuple[Any, Any],
    recorded: dict[str, Any] | None = None,
    referee: Referee | None = None,
) -> dict[str, Any]:
    """Settle the dead stones of ``game``, passed out, with its players' ``engines``
    (black's, white's) and return what to keep (module docstring); ``{}`` for a
    resignation or a game still going on. With ``recorded`` (what this returned for the
    game before) that is applied again, nobody asked; a bad record raises
    :class:`~.errors.GoError` (one line)."""
    if recorded:
        return _again(game, recorded)
    if not game.counting or game.done:
        return {}
    answers: dict[str, list[str]] = {}
    for side, engine in zip(("first", "second"), engines, strict=True):
        ask = getattr(engine, "final_dead", None)
        answer = ask(game) if callable(ask) else None
        if answer is not None:
            answers[side] = [str(v) for v in answer]
    agreed = _agreement(game, answers)
    if agreed is not None:
        try:
            game.mark_dead(agreed)
        except GoError:  # a pass-alive chain: it cannot be dead, whoever says so
            pass
        else:
            return {"settled": "agreed", "dead": _names(game, game.dead), "dead_answers": answers}
    return _cleanup(game, engines, answers, referee or _Direct())


# --------------------------------------------------------------------------- agreement


def _names(game: Game, points: Iterable[int]) -> list[str]:
    return sorted(vertex_name(p, game.board.size) for p in points)


def _chains(game: Game, names: list[str]) -> frozenset[int] | None:
    """Every stone of the chains on ``names``; ``None`` if one names no stone."""
    board = game.board
    out: set[int] = set()
    for v in names:
        try:
            stones, _ = board.group(parse_vertex(v, board.size))
        except GoError:
            return None
        if not stones:
            return None
        out.update(stones)
    return frozenset(out)


def _agreement(game: Game, answers: dict[str, list[str]]) -> frozenset[int] | None:
    """The stones both players call dead, if both answered and name the same chains."""
    if len(answers) != 2:
        return None
    first, second = _chains(game, answers["first"]), _chains(game, answers["second"])
    return first if first is not None and first == second else None


def _claim(game: Game, names: list[str] | None, color: int) -> frozenset[int]:
    """The points of ``color``'s stones a player's answer calls dead."""
    board = game.board
    out: set[int] = set()
    for v in names or ():
        try:
            p = parse_vertex(v, board.size)
        except GoError:
            continue
        if p != PASS and board.color_at(p) == color:
            out.update(board.group(p)[0])
    return frozenset(out)


# --------------------------------------------------------------------------- cleanup


class _Direct:
    """The referee without an arena: asks the engine, checks the move's legality."""

    def move(self, side: int, board: GameBoard, think: Callable[[], Result]) -> Result:
        t0 = time.perf_counter()
        result = think()
        took = time.perf_counter() - t0
        if result.move is not None:
            try:
                board.parse_move(result.move)
            except GoError as e:
                who = "black" if side == BLACK else "white"
                raise GoError(f"{who} played {result.move!r} in the cleanup: {e}") from None
        return replace(result, seconds=took)

    def played(self, move: str, seconds: float) -> None:
        pass


def _think(engine: Any, view: Game) -> Result:
    """The engine's cleanup move on ``view`` (module docstring); no engine passes."""
    if engine is None:
        return Result("pass", stopped_by="game_over")
    ask = getattr(engine, "think_cleanup", None)
    result: Result = ask(view) if callable(ask) else engine.think(view)
    return result


def _turn(game: Game, engine: Any, claim: frozenset[int], referee: Referee) -> tuple[str, float]:
    """The move of the side to move (a vertex, ``"pass"`` or ``"resign"``) and the
    seconds it took, its passes refused while its ``claim`` stands (module docstring)."""
    color = game.turn
    other = WHITE if color == BLACK else BLACK
    view = game.going_on()
    seconds = 0.0
    for attempt in range(PASS_RETRIES + 1):
        result = referee.move(color, view, lambda: _think(engine, view))
        seconds += result.seconds
        text = "pass" if result.move is None else result.move
        if is_resignation(text):
            return RESIGN_NAME, seconds
        move = view.parse_move(text)  # (legal: the referee checked it)
        if move != PASS:
            return view.move_name(move), seconds
        board = game.board
        if attempt == PASS_RETRIES or not any(board.color_at(p) == other for p in claim):
            break
    return "pass", seconds


def _cleanup(
    game: Game, engines: tuple[Any, Any], answers: dict[str, list[str]], referee: Referee
) -> dict[str, Any]:
    size = game.board.size
    moves: list[str] = []
    record: dict[str, Any] = {
        "settled": "cleanup",
        "dead_answers": answers,
        "cleanup_from": len(game.move_stack),
        "cleanup_moves": moves,
        "cleanup_end": "ply cap",
    }
    players = {BLACK: engines[0], WHITE: engines[1]}
    claims = {
        BLACK: _claim(game, answers.get("first"), WHITE),
        WHITE: _claim(game, answers.get("second"), BLACK),
    }
    passes = 0
    try:
        for _ in range(PLIES_PER_POINT * size * size):
            color = game.turn
            name, seconds = _turn(game, players[color], claims[color], referee)
            referee.played(name, seconds)
            moves.append(name)
            if name == RESIGN_NAME:
                game.resign(color, tolerant=True)
                record["cleanup_end"] = "resignation"
                break
            move = parse_vertex(name, size)
            game.play(move, color)
            passes = passes + 1 if move == PASS else 0
            if passes == 2:
                record["cleanup_end"] = "two passes"
                break
    except Forfeit as e:
        e.extra.update(record)
        raise
    if not game.is_game_over():
        game.request_count()  # the ply cap: the board as it stands
    return record


# --------------------------------------------------------------------------- records


def _again(game: Game, recorded: dict[str, Any]) -> dict[str, Any]:
    """Apply a settlement kept before (module docstring)."""
    if recorded.get("settled") == "cleanup":
        _replay_cleanup(game, recorded)
    elif "dead" in recorded and game.counting and not game.done:
        names = recorded["dead"]
        if not isinstance(names, list) or not all(isinstance(v, str) for v in names):
            raise GoError("a recorded settlement's 'dead' must be a list of vertices")
        game.mark_dead(parse_vertex(v, game.board.size) for v in names)
    return dict(recorded)


def _replay_cleanup(game: Game, recorded: dict[str, Any]) -> None:
    start, moves = recorded.get("cleanup_from"), recorded.get("cleanup_moves")
    if (
        not isinstance(start, int)
        or isinstance(start, bool)
        or not isinstance(moves, list)
        or not all(isinstance(m, str) for m in moves)
    ):
        raise GoError(
            "a recorded cleanup needs 'cleanup_from' (a number of moves) and "
            "'cleanup_moves' (a list of vertices)"
        )
    have = len(game.move_stack)
    if not start <= have <= start + len(moves):
        raise GoError(
            f"the game has {have} moves, but its recorded cleanup starts after move {start} "
            f"and has {len(moves)}"
        )
    size = game.board.size
    for i, name in enumerate(moves):
        what = f"recorded cleanup move {i + 1} ({name!r})"
        if is_resignation(name):
            if i != len(moves) - 1:
                raise GoError(f"{what}: a resignation ends the cleanup")
            if game.resigned is None:
                game.resign(game.turn, tolerant=True)
            return
        try:
            move = parse_vertex(name, size)
        except GoError as e:
            raise GoError(f"{what}: {e}") from None
        ply = start + i
        if ply < have:
            if game.move_stack[ply] != move:
                held = game.board.move_name(game.move_stack[ply])
                raise GoError(f"{what}: the game has {held} there")
            continue
        try:
            game.play(move, game.turn)
        except GoError as e:
            raise GoError(f"{what}: {e}") from None
    if not game.is_game_over() and "forfeit" not in recorded:
        game.request_count()  # (the cleanup ended at its ply cap)

"""``banmen play``: a game in the terminal, human or engine on either side.

Any game whose :class:`~banmen.games.GameDef` draws its board as text (``diagram``) and
names a start position from a seed (``new_board``) plays here; a game that also reads a
position as text (``board_from_text``) can start from one (``--layout``).
"""

from __future__ import annotations

import secrets
from typing import TYPE_CHECKING, Annotated, Any

import typer

from banmen.cli._app import fail, number_option
from banmen.numbers import SEED, SIZE

if TYPE_CHECKING:  # the game, the engines and rich are imported when a game starts
    from banmen.engine import Engine, GameBoard, Result
    from banmen.games import GameDef

HELP = (
    "Type a move (as listed); 'undo' takes back your last move, "
    "'hint' asks the engine, 'board' redraws, 'quit' ends the game."
)


def _scores(g: GameDef[Any], board: GameBoard, names: dict[int, str]) -> str:
    p1, p2 = g.scores(board)
    return f"{g.sides[0]} ({names[1]}): {p1}    {g.sides[1]} ({names[2]}): {p2}"


def _summary(g: GameDef[Any], board: GameBoard) -> str:
    """ "Game over: black wins by the rules, 40 : 24." — the game's outcome
    (:meth:`~banmen.games.GameDef.outcome_of`), the sides named as the game names them."""
    outcome = g.outcome_of(board)
    if outcome is None:  # a board over that its game gives no outcome for
        return "Game over."
    return f"Game over: {outcome.words(g.sides)}."


def _describe(result: Result) -> str:
    """ ", expects +3 (depth 4, 1,234 nodes, 0.05 s)", or " (0.00 s)" for a player that
    reports no value (a user's python: player with play() only)."""
    if result.score is None:
        return f" ({result.seconds:.2f} s)"
    kind = "proved" if result.exact else f"depth {result.depth}"
    return f", expects {result.score:+g} ({kind}, {result.nodes:,} nodes, {result.seconds:.2f} s)"


def play(
    game: Annotated[
        str,
        typer.Argument(help="Game to play: any game drawn in the terminal (banmen players)."),
    ],
    size: Annotated[
        int | None,
        number_option(SIZE, "Board size (default: the game's; Mattix deals: 4 or 6)."),
    ] = None,
    seed: Annotated[
        int | None,
        number_option(
            SEED,
            "Seed of the start: a Mattix deal, an Othello opening (default: random, "
            "printed so the game can be replayed).",
        ),
    ] = None,
    layout: Annotated[
        str | None,
        typer.Option(
            "--position",
            "--layout",
            help="Start from a position given as text instead: a Mattix layout string, "
            "an Othello board string or transcript.",
        ),
    ] = None,
    first: Annotated[str, typer.Option(help="Side 1: 'human' or an engine spec.")] = "human",
    second: Annotated[
        str, typer.Option(help="Side 2: 'human' or an engine spec, e.g. cpu:depth=3.")
    ] = "cpu:depth=3",
) -> None:
    """Play in the terminal: moves typed in the game's notation, undo, engine hints."""
    from rich.console import Console
    from rich.markup import escape

    from banmen.games.registry import get_game, make_engine, parse_spec

    try:
        g = get_game(game)
    except ValueError as e:
        raise fail(str(e)) from None
    if g.diagram is None or g.new_board is None:
        raise fail(f"{g.title} cannot be played in the terminal")
    console = Console(highlight=False)
    try:
        if layout is not None:
            if g.board_from_text is None:
                raise fail(f"{g.title} reads no position as text: leave out --position")
            board: GameBoard = g.board_from_text(layout)
            origin = f"position {layout.strip() or '(the start)'}"
        else:
            if seed is None:
                seed = secrets.randbelow(1 << 31)
            board = g.new_board(seed, size)
            origin = f"seed {seed}" if size is None else f"size {size}, seed {seed}"
        engines: dict[int, Engine[Any] | None] = {}
        names: dict[int, str] = {}
        for n, spec in ((1, first), (2, second)):
            if spec.strip().lower() == "human":
                engines[n] = None
                names[n] = "human"
            else:
                engines[n] = make_engine(g, parse_spec(spec, g))
                names[n] = spec
    except ValueError as e:
        raise fail(str(e)) from None

    console.print(f"[bold]{escape(g.title)}[/bold] — {escape(origin)}. {HELP}")
    hint_engine: Engine[Any] | None = None
    redraw = True
    while True:
        if redraw:
            console.print(g.diagram(board), markup=False)
            console.print(_scores(g, board, names), markup=False)
            redraw = False
        if board.is_game_over():
            console.print(f"[bold]{escape(_summary(g, board))}[/bold]")
            return
        side = g.sides[board.turn - 1]
        engine = engines[board.turn]
        if engine is not None:
            try:
                with console.status(f"{names[board.turn]} is thinking…"):
                    result = engine.think(board)
                if result.move is None:
                    raise ValueError("it gave no move")
                move = board.parse_move(result.move)
            except Exception as e:  # a player that fails loses the game; no traceback
                why = " ".join(str(e).split()) or type(e).__name__
                console.print(f"{side} ({names[board.turn]}) failed: {why}; "
                              f"{side} loses the game", markup=False)  # fmt: skip
                raise typer.Exit(1) from None
            board.push(move)
            console.print(
                f"{side} ({names[3 - board.turn]}) plays {result.move}{_describe(result)}",
                markup=False,
            )
            redraw = True
            continue
        legal = ", ".join(board.move_name(m) for m in board.legal_moves)
        try:
            text = console.input(escape(f"{side} — your move [{legal}]: "))
        except EOFError:
            console.print("input ended; game abandoned")
            raise typer.Exit(1) from None
        cmd = text.strip().lower()
        if not cmd:
            continue
        if cmd in ("quit", "q", "exit"):
            console.print("game abandoned")
            return
        if cmd in ("help", "?"):
            console.print(HELP)
            continue
        if cmd == "board":
            redraw = True
            continue
        if cmd == "undo":
            if not _undo(board, engines):
                console.print("error: nothing of yours to undo")
                continue
            redraw = True
            continue
        if cmd == "hint":
            if hint_engine is None:
                hint_engine = make_engine(g, f"{g.default_engine}:time=1")
                hint_engine.warm_up()
            with console.status("thinking…"):
                r = hint_engine.think(board)
            console.print(f"hint: {r.move}{_describe(r)}; line {' '.join(r.pv[:8])}", markup=False)
            continue
        try:
            board.push(board.parse_move(text))
        except ValueError as e:
            console.print(f"error: {e}", markup=False)
            continue
        redraw = True


def _undo(board: GameBoard, engines: dict[int, Engine[Any] | None]) -> bool:
    """Take back moves until it is a human's turn again, having removed at least one of
    the human's own moves; False (and nothing changed) if there is none."""
    stack = list(board.move_stack)
    human_sides = {s for s, e in engines.items() if e is None}
    popped = 0
    while board.move_stack:
        board.pop()
        popped += 1
        if board.turn in human_sides:
            return True
    # No earlier human turn: restore.
    for move in stack[len(stack) - popped :]:
        board.push(move)
    return False

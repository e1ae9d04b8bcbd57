"""``banmen play``: a game in the terminal, human or engine on either side."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer

if TYPE_CHECKING:  # the game, the engines and rich are imported when a game starts
    from rich.table import Table

    from banmen.engine import Engine, Result
    from banmen.games.engines import AlphaBetaEngine
    from banmen.games.mattix import Board

HELP = (
    "Type a square (like c2) to take its piece; 'undo' takes back your last move, "
    "'hint' asks the engine, 'board' redraws, 'quit' ends the game."
)


def render_mattix(board: Board, players: dict[int, str]) -> Table:
    """The board as a rich table: the mover's line shaded, takeable pieces bold."""
    from rich.table import Table
    from rich.text import Text

    n = board.size
    legal = set(board.legal_moves)
    line = set(board.line())
    last = board.move_stack[-1] if board.move_stack else None
    table = Table(show_header=True, show_edge=True, box=None, padding=(0, 1))
    table.add_column("", justify="right", style="dim")
    for c in range(n):
        table.add_column(chr(ord("a") + c), justify="center")
    for r in range(n):
        cells: list[Text] = []
        for c in range(n):
            sq = r * n + c
            v = board.cells[sq]
            if sq == board.chip:
                t = Text(" ✚ ", style="bold yellow" + (" on grey23" if last == sq else ""))
            elif v is None:
                t = Text(" · ", style="dim")
            else:
                style = "red" if v < 0 else "white"
                if sq in legal:
                    style = "bold reverse " + ("red" if v < 0 else "green")
                elif sq in line:
                    style += " on grey19"
                t = Text(f"{v:>3}", style=style)
            cells.append(t)
        table.add_row(str(r + 1), *cells)
    return table


def _status(board: Board, players: dict[int, str]) -> str:
    p1, p2 = board.scores
    return f"player 1 (row, {players[1]}): {p1}    player 2 (column, {players[2]}): {p2}"


def _summary(board: Board) -> str:
    p1, p2 = board.scores
    w = board.winner()
    if w is None:
        return f"Game over: draw, {p1} : {p2}."
    return f"Game over: player {w} wins, {p1} : {p2}."


def _describe(result: Result) -> str:
    score = "" if result.score is None else f"{result.score:+d}"
    kind = "proved" if result.exact else f"depth {result.depth}"
    return f"{score} ({kind}, {result.nodes:,} nodes, {result.seconds:.2f} s)"


def play(
    game: Annotated[str, typer.Argument(help="Game to play: mattix.")],
    size: Annotated[int, typer.Option(help="Board size (4 or 6 for seeded deals).")] = 6,
    seed: Annotated[
        int | None,
        typer.Option(help="Deal seed (default: random, printed so the game can be replayed)."),
    ] = None,
    layout: Annotated[
        str | None,
        typer.Option(help="Start from a layout string instead of a seeded deal."),
    ] = None,
    first: Annotated[str, typer.Option(help="Player 1: 'human' or an engine spec.")] = "human",
    second: Annotated[
        str, typer.Option(help="Player 2: 'human' or an engine spec, e.g. cpu:depth=3.")
    ] = "cpu:depth=3",
) -> None:
    """Play in the terminal: moves typed as squares, undo, engine hints."""
    from rich.console import Console
    from rich.markup import escape

    from banmen.cli import fail
    from banmen.engine import parse_spec
    from banmen.games import get_game, make_engine
    from banmen.games.engines import AlphaBetaEngine
    from banmen.games.mattix import Board, MattixError, square_name
    from banmen.search.limits import Limit

    try:
        g = get_game(game)
    except ValueError as e:
        raise fail(str(e)) from None
    if g.name != "mattix":  # pragma: no cover - only Mattix so far
        raise fail(f"terminal play is not available for {g.name} yet")
    console = Console(highlight=False)
    try:
        if layout is not None:
            board = Board.from_layout(layout)
            origin = f"layout {layout}"
        else:
            if seed is None:
                import secrets

                seed = secrets.randbelow(1 << 31)
            board = Board.from_seed(seed, size)
            origin = f"{size}x{size} deal, seed {seed}"
        engines: dict[int, Engine[Any] | None] = {}
        names: dict[int, str] = {}
        for side, spec in ((1, first), (2, second)):
            if spec.strip().lower() == "human":
                engines[side] = None
                names[side] = "human"
            else:
                parse_spec(spec)
                engines[side] = make_engine(g, spec)
                names[side] = spec
    except ValueError as e:
        raise fail(str(e)) from None

    console.print(f"[bold]Mattix[/bold] — {escape(origin)}. {HELP}")
    hint_engine: AlphaBetaEngine | None = None
    redraw = True
    while True:
        if redraw:
            console.print(render_mattix(board, names))
            console.print(_status(board, names), markup=False)
            redraw = False
        if board.is_game_over():
            console.print(f"[bold]{_summary(board)}[/bold]")
            return
        engine = engines[board.turn]
        if engine is not None:
            with console.status(f"{names[board.turn]} is thinking…"):
                result = engine.think(board)
            assert result.move is not None
            sq = board.parse_move(result.move)
            value = board.cells[sq]
            board.push(sq)
            console.print(
                f"player {3 - board.turn} ({names[3 - board.turn]}) takes "
                f"{result.move} ({value:+d}), expects {_describe(result)}",
                markup=False,
            )
            redraw = True
            continue
        legal = ", ".join(square_name(s, board.size) for s in board.legal_moves)
        try:
            text = console.input(
                escape(
                    f"player {board.turn} ({'row' if board.turn == 1 else 'column'}) — "
                    f"your move [{legal}]: "
                )
            )
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
                hint_engine = AlphaBetaEngine(g, Limit(time=1.0))
                hint_engine.warm_up()
            with console.status("thinking…"):
                r = hint_engine.think(board)
            console.print(
                f"hint: {r.move}, {_describe(r)}; line {' '.join(r.pv[:8])}", markup=False
            )
            continue
        try:
            board.push(board.parse_move(text))
        except MattixError as e:
            console.print(f"error: {e}", markup=False)
            continue
        redraw = True


def _undo(board: Board, engines: dict[int, Any]) -> bool:
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
    for sq in stack[len(stack) - popped :]:
        board.push(sq)
    return False

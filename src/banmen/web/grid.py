"""The generic board page: the web page of a game that brings none of its own.

A game whose :class:`~banmen.games.GameDef` has a :attr:`~banmen.games.GameDef.grid` (a
:class:`~banmen.games.GridView`) and no :attr:`~banmen.games.GameDef.web` adapter is
served by :class:`GridGame`, built from the game's own hooks only:

* a new game starts from the game's standard position, ``start(None)``; a game that
  sets no ``start`` is dealt ``new_board(seed, None)`` (a game whose start depends on
  the seed — a deal — gets a seed field, like Mattix) or else ``sample()``
  (:meth:`~banmen.games.GameDef.start_position`); a saved one is read back with
  ``board_from_dict`` from the board's own ``to_dict``;
* a move is read with the board's ``parse_move`` and must be one of its
  ``legal_moves`` (anything else is one line, and changes nothing); a click is turned
  into a move's name on the server: the state carries ``clicks`` (cell -> the move
  ``move_at`` gives, for games played by clicking one cell) or, for games played from
  cell to cell, the page sends the two cells (``{"type": "move", "from": a, "to": b}``)
  and ``move_between`` names the move;
* the page draws ``rows`` × ``cols`` cells (square, or ``"hex"``: offset rows), each
  cell's piece from the view's ``pieces`` (``key -> (colour, letter)``), marks the last
  move and the legal moves on ``cell_of(move)``, and the analysis's value of each move
  there (a game with ``analyse``); with ``origin_of`` the state carries ``targets``
  (origin cell -> target cell -> move: what a first click may pick and a second play,
  for games played from cell to cell) and each move of the history its ``from`` cell
  (the last move's origin is marked); ``side_keys`` (each side's piece: the page's
  colours for the sides) are the view's ``side_pieces`` from the start, or else the key
  each side's first move left; ``coordinates`` gives the labels drawn around a square
  board (``coords``);
* the CPU levels come from the engine kinds the game offers (:func:`grid_levels`);
  ``scores`` are shown when the game has them, ``board_from_text`` gives the page a load
  box (its ``position_hint`` says what to paste), and ``write_record`` a download of the
  game (``/api/record/<id>``).

The page itself is ``static/pages/grid.html`` and ``static/js/grid.js`` (with
``static/js/grid-board.js``, the board widget) in the game-page shell every game shares
(``static/js/game-page.js``: players and levels, the move list, undo, stop / pause, the
analysis switch, saved games). What a game does with its hooks is the game's: an error a
hook raises on a player's request is a one-line reply and changes nothing.
"""

from __future__ import annotations

import operator
import secrets
from collections.abc import Mapping
from typing import Any

from banmen.engine import GameBoard, Result
from banmen.games import GameDef, GridView
from banmen.web import parts
from banmen.web.games._base import STOPPED_BY, AdapterError, Defaults, RecordFile, WebGame
from banmen.web.levels import HUMAN, MOVE_TIME_CAP, Level, Specs
from banmen.web.protocol import GameRules, NewGame, ProtocolError
from banmen.web.replies import one_line

__all__ = ["GridGame", "grid_levels"]

#: the longest move name the generic page takes from a client
MAX_MOVE_NAME = 32


def grid_levels(game: GameDef[Any]) -> tuple[Level, ...]:
    """The levels of a game on the generic board page, from the engine kinds it offers:
    Human; random moves; alpha-beta one and four plies deep and one second a move (with
    the options its alpha-beta takes); the exact solver; Monte-Carlo tree search half a
    second and two seconds a move."""
    kinds = game.engines

    def takes(kind: str, option: str) -> bool:
        k = kinds.get(kind)
        return k is not None and option in k.options

    out = [Level(HUMAN, "Human", None)]
    if "random" in kinds:
        out.append(Level("random", "CPU random", "random", "plays uniformly random legal moves"))
    if takes("alphabeta", "depth"):
        out += [
            Level("easy", "CPU easy", "alphabeta:depth=1", "looks one move ahead"),
            Level("normal", "CPU normal", "alphabeta:depth=4", "looks four moves ahead"),
        ]
    if takes("alphabeta", "time"):
        out.append(
            Level("strong", "CPU strong", "alphabeta:time=1", "searches for one second a move")
        )
    if "perfect" in kinds:
        out.append(
            Level(
                "perfect",
                "CPU perfect",
                "perfect",
                "solves the game from the position exactly; where that takes longer than "
                f"the {MOVE_TIME_CAP:g} s cap it plays a quick, unproved move",
            )
        )
    if takes("mcts", "time"):
        out += [
            Level(
                "mcts-quick",
                "CPU Monte-Carlo quick",
                "mcts:time=0.5",
                "Monte-Carlo tree search, half a second a move",
            ),
            Level(
                "mcts",
                "CPU Monte-Carlo",
                "mcts:time=2",
                "Monte-Carlo tree search, two seconds a move",
            ),
        ]
    return tuple(out)


def _default_cpu(levels: tuple[Level, ...]) -> str:
    """The level a new game's second side gets: a middling CPU, else the first CPU, else
    a human."""
    names = [lv.name for lv in levels if lv.is_cpu]
    for wanted in ("normal", "mcts", "random"):
        if wanted in names:
            return wanted
    return names[0] if names else HUMAN


def _title_case(name: str) -> str:
    return name[:1].upper() + name[1:]


def _check_view(title: str, view: GridView[Any]) -> None:
    """:class:`AdapterError` for a view's ``side_pieces`` or ``coordinates`` the page
    cannot show."""
    sp = view.side_pieces
    if sp is not None:
        if not (isinstance(sp, tuple) and len(sp) == 2 and all(isinstance(k, str) for k in sp)):
            raise AdapterError(
                f"{title}'s GridView: side_pieces must be two piece keys, got {sp!r}"
            )
        unknown = [k for k in sp if k and k not in view.pieces]
        if unknown:
            raise AdapterError(
                f"{title}'s GridView: side_pieces {unknown[0]!r} is not one of its pieces "
                f"({', '.join(map(repr, view.pieces)) or 'none'})"
            )
    if view.coordinates is not None and view.shape != "square":
        raise AdapterError(
            f"{title}'s GridView: coordinates are drawn on square grids only, not {view.shape!r}"
        )


class GridGame(WebGame[GameBoard]):
    """A game on the generic board page, from its :class:`~banmen.games.GameDef` (see the
    module docstring). :class:`~banmen.web.catalog.AdapterError` if the game has no
    ``grid`` or no way to start a game; anything its hooks raise while the adapter is
    made (its first board) is left to the caller (the app leaves the game out)."""

    template = "grid"
    styles = ("grid",)

    def __init__(
        self, game: GameDef[Any], extra_levels: Specs | None = None, players: Specs | None = None
    ) -> None:
        if game.grid is None:
            raise AdapterError(f"{game.title} has no GridView: its GameDef sets no grid")
        if game.start is None and game.new_board is None and game.sample is None:
            raise AdapterError(
                f"{game.title} cannot start a game on the generic board page: its GameDef "
                "sets none of start, new_board, sample"
            )
        if game.grid.click not in ("cell", "from-to"):
            raise AdapterError(
                f"{game.title}'s GridView: click must be 'cell' or 'from-to', "
                f"got {game.grid.click!r}"
            )
        if game.grid.click == "from-to" and game.grid.move_between is None:
            raise AdapterError(f"{game.title}'s GridView: click 'from-to' needs move_between")
        if game.grid.shape not in ("square", "hex"):
            raise AdapterError(
                f"{game.title}'s GridView: shape must be 'square' or 'hex', got {game.grid.shape!r}"
            )
        _check_view(game.title, game.grid)
        self.gamedef: GameDef[GameBoard] = game
        self.view: GridView[Any] = game.grid
        self.name = game.name
        self.title = game.title
        self.sides = (_title_case(game.sides[0]), _title_case(game.sides[1]))
        self.base_levels = grid_levels(game)
        self.defaults = Defaults(players=(HUMAN, _default_cpu(self.base_levels)))
        self.has_scores = game.has_scores
        self.pass_name = game.pass_name
        # Whether a New game deals from a seed: a game with no standard start whose
        # new_board gives two starts for two seeds. The first board gives a move's name
        # for the examples in error messages.
        self.seeded = (
            game.start is None
            and game.new_board is not None
            and game.new_board(0, None).to_dict() != game.new_board(1, None).to_dict()
        )
        first = self._start_board(0)
        legal = [] if first.is_game_over() else list(first.legal_moves)
        self.example = first.move_name(legal[0]) if legal else "a1"
        if game.board_from_text is not None:
            self.load_hint = f"paste {game.position_hint or 'a position'}"
        super().__init__(extra_levels, players)

    @classmethod
    def from_game(
        cls, game: GameDef[Any], extra_levels: Specs | None = None, players: Specs | None = None
    ) -> GridGame:
        return cls(game, extra_levels, players)

    @property
    def definition(self) -> GameDef[Any]:
        return self.gamedef

    def make_rules(self, levels: Mapping[str, Level]) -> GameRules:
        return GameRules(
            levels,
            seeds=self.seeded,
            load=self.gamedef.board_from_text is not None,
            example=self.example,
            load_hint=self.load_hint or "",
            analysis=self.gamedef.analyse is not None,
            cell_pairs=self.view.click == "from-to",
            max_square=MAX_MOVE_NAME,
        )

    # ------------------------------------------------------------------ boards

    def _start_board(self, seed: int) -> GameBoard:
        """A new game's board: the deal of ``seed`` in a game that deals, else the
        game's standard start."""
        g = self.gamedef
        if self.seeded:
            assert g.new_board is not None
            return g.new_board(seed, None)
        return g.start_position(None)

    def new_board(self, msg: NewGame, current: GameBoard | None) -> tuple[GameBoard, int | None]:
        seed = None
        if self.seeded:
            # Short random seeds are easy to read out and type in again to replay a deal.
            seed = msg.seed if msg.seed is not None else secrets.randbelow(10**9)
        try:
            return self._start_board(seed or 0), seed
        except Exception as e:  # the game's own refusal (a seed it cannot deal)
            raise ProtocolError(f"cannot start a {self.title} game: {one_line(e)}") from None

    def board_from_record(self, data: Any) -> GameBoard:
        try:
            return self.gamedef.board_from_dict(data)
        except (ValueError, TypeError, KeyError):
            raise
        except Exception as e:  # whatever the game's reader raises: still one line
            raise ValueError(f"not a {self.title} board: {one_line(e)}") from None

    def copy(self, board: GameBoard) -> GameBoard:
        """A board of its own with ``board``'s position and moves."""
        own = getattr(board, "copy", None)
        if callable(own):
            copied: GameBoard = own()
            return copied
        return self.gamedef.board_from_dict(board.to_dict())

    def start_of(self, board: GameBoard) -> GameBoard:
        own = getattr(board, "start_board", None)
        if callable(own):
            start: GameBoard = own()
            return start
        start = self.copy(board)
        while start.move_stack:
            start.pop()
        return start

    def read(self, text: str) -> GameBoard:
        assert self.gamedef.board_from_text is not None
        try:
            return self.gamedef.board_from_text(text)
        except Exception as e:  # the game's reader: its message, one line
            raise ProtocolError(one_line(e) or f"not {self.gamedef.position_hint}") from None

    def warm(self) -> None:
        """A new game, read back from its record, a move played and the position
        described (and the game written as a record, if it has a format): the game's
        code the pages run, run once before the app serves."""
        board, _ = self.new_board(NewGame(None, None, None), None)
        board = self.board_from_record(board.to_dict())
        if not board.is_game_over() and board.legal_moves:
            board.push(self.parse_move(board, board.move_name(board.legal_moves[0])))
        self.describe(board, self.start_of(board))
        if self.gamedef.write_record is not None:
            self.record_file({"board": board.to_dict(), "players": {"1": HUMAN, "2": HUMAN}})

    # ------------------------------------------------------------------ moves

    def _legal_names(self, board: GameBoard) -> dict[str, int]:
        if board.is_game_over():
            return {}
        return {board.move_name(m): m for m in board.legal_moves}

    def parse_move(self, board: GameBoard, text: str) -> int:
        try:
            move: int = board.parse_move(text)
        except Exception as e:  # the board's own message, one line
            raise ProtocolError(one_line(e) or f"bad move {text!r}") from None
        legal = list(board.legal_moves)
        if move not in legal:
            names = [board.move_name(m) for m in legal[:12]]
            more = ", …" if len(legal) > 12 else ""
            may = f"{', '.join(names)}{more}" if names else "nothing"
            raise ProtocolError(
                f"{text!r} is not a legal move now: {self.side_name(board.turn)} may play {may}"
            )
        return move

    def _cell_words(self, cell: int, cols: int) -> str:
        return f"row {cell // cols + 1}, column {cell % cols + 1}"

    def move_between(self, board: GameBoard, a: int, b: int) -> int:
        between = self.view.move_between
        if between is None:
            raise ProtocolError(f"{self.title} is played by clicking one cell, not two")
        rows, cols = self.view.rows(board), self.view.cols(board)
        for cell in (a, b):
            if not 0 <= cell < rows * cols:
                raise ProtocolError(
                    f"cell {cell} is off the board: its cells are 0 to {rows * cols - 1}"
                )
        try:
            name = between(board, a, b)
        except Exception as e:  # the game's own hook: its message, one line
            raise ProtocolError(one_line(e)) from None
        if name is None:
            raise ProtocolError(
                f"no legal move from {self._cell_words(a, cols)} to {self._cell_words(b, cols)}"
            )
        return self.parse_move(board, name)

    # ------------------------------------------------------------------ the state

    def describe(self, board: GameBoard, start: GameBoard) -> dict[str, Any]:
        v = self.view
        rows, cols = v.rows(board), v.cols(board)
        n = rows * cols
        keys = [str(k) for k in v.cells(board)]
        if len(keys) != n:
            raise ValueError(f"{self.title}'s GridView gives {len(keys)} cells for {rows}x{cols}")
        legal = self._legal_names(board)

        # (a hook that raises for one move or cell — a pass, say — leaves it unmarked)
        def cell_of(b: GameBoard, name: str) -> int | None:
            try:
                got = v.cell_of(b, name)
                c = None if got is None else operator.index(got)  # (a numpy integer too)
            except Exception:  # the hook's own error
                return None
            return c if c is not None and 0 <= c < n else None

        def move_at(c: int) -> str | None:
            try:
                return v.move_at(board, c)
            except Exception:
                return None

        move_cells = {name: c for name in legal if (c := cell_of(board, name)) is not None}
        clicks: dict[str, str] = {}
        if v.click == "cell" and legal:
            for c in range(n):
                name = move_at(c)
                if name is not None and name in legal:
                    clicks[str(c)] = name
        targets = self._targets(board, legal, move_cells, n)
        history = []
        # which piece each side plays: the view's own word, or else the key its first
        # move left on its cell
        side_keys: dict[str, str] = {}
        if v.side_pieces is not None:
            side_keys = {str(side): key for side, key in enumerate(v.side_pieces, 1) if key}
        replay = self.copy(start)
        for k, mv in enumerate(board.move_stack):
            name = replay.move_name(mv)
            player, cell = replay.turn, cell_of(replay, name)
            origin = self._origin(replay, name, n)
            history.append(
                {"ply": k + 1, "player": player, "square": name, "cell": cell, "from": origin}
            )
            replay.push(mv)
            if str(player) not in side_keys and cell is not None:
                key = str(v.cells(replay)[cell])
                if key:
                    side_keys[str(player)] = key
        scores = None
        if self.has_scores:
            try:
                scores = [int(s) for s in self.gamedef.scores(board)]
            except Exception:  # points a game counts only at the end: none shown yet
                scores = None
        return {
            "size": f"{rows}x{cols}",
            "rows": rows,
            "cols": cols,
            "cells": keys,
            "coords": self._coords(board, rows, cols),
            "legal": list(legal),
            "move_cells": move_cells,
            "clicks": clicks,
            "targets": targets,
            "scores": scores,
            "history": history,
            "last": history[-1] if history else None,
            "side_keys": side_keys,
        }

    def _origin(self, board: GameBoard, name: str, n: int) -> int | None:
        """The cell move ``name`` starts from on ``board`` (the view's ``origin_of``);
        ``None`` if the view has no such hook, the hook says none, raises or names a cell
        off the board."""
        origin_of = self.view.origin_of
        if origin_of is None:
            return None
        try:
            got = origin_of(board, name)
            c = None if got is None else operator.index(got)
        except Exception:  # the hook's own error: the move is left unmarked
            return None
        return c if c is not None and 0 <= c < n else None

    def _targets(
        self, board: GameBoard, legal: Mapping[str, int], move_cells: Mapping[str, int], n: int
    ) -> dict[str, dict[str, str]] | None:
        """For a game played from cell to cell whose view gives ``origin_of``: each cell
        a legal move starts from -> each cell it goes to (``cell_of``) -> the move (the
        first of its names, should two moves join the same cells). ``None``: the page
        cannot know them (a game played by single clicks, or no ``origin_of``)."""
        if self.view.click != "from-to" or self.view.origin_of is None:
            return None
        out: dict[str, dict[str, str]] = {}
        for name in legal:
            to = move_cells.get(name)
            origin = self._origin(board, name, n)
            if to is not None and origin is not None:
                out.setdefault(str(origin), {}).setdefault(str(to), name)
        return out

    def _coords(self, board: GameBoard, rows: int, cols: int) -> dict[str, list[str]] | None:
        """The labels around the board (the view's ``coordinates``): ``files`` over the
        columns, ``ranks`` beside the rows; ``ValueError`` if their counts are not the
        board's."""
        coordinates = self.view.coordinates
        if coordinates is None:
            return None
        files, ranks = coordinates(board)
        files, ranks = [str(f) for f in files], [str(r) for r in ranks]
        if len(files) != cols or len(ranks) != rows:
            raise ValueError(
                f"{self.title}'s GridView gives {len(files)} files and {len(ranks)} ranks "
                f"for {rows}x{cols}"
            )
        return {"files": files, "ranks": ranks}

    def verdict(self, player: int, result: Result) -> str:
        if result.score is None:
            return ""
        s = result.score
        if s == 0:
            what = "0 (even)" if not result.exact else "0 (a draw)"
        else:
            what = f"{abs(s):+g} for {self.side_name(player if s > 0 else 3 - player)}"
        if result.exact:
            return f"proved value: {what}"
        why = STOPPED_BY.get(result.stopped_by, result.stopped_by)
        return f"estimated value: {what} (not proved: {why})"

    def record_file(self, record: Mapping[str, Any], date: str | None = None) -> RecordFile | None:
        if self.gamedef.write_record is None:
            return None
        return super().record_file(record, date)

    # ------------------------------------------------------------------ the page

    def parts(self) -> dict[str, str]:
        names = self.sides

        def figures(side: int) -> list[str]:
            if not self.has_scores:
                return []
            label = parts.attr(f"{names[side - 1]}'s points")
            return [f'<div class="score" id="score-{side}" aria-label="{label}">0</div>']

        out = {
            "cards": parts.player_cards(
                (("p1", parts.text(names[0])), ("p2", parts.text(names[1]))), figures
            ),
            # a Pass button for a game with a pass (GameDef.pass_name): shown when legal
            "buttons": parts.buttons(
                *(("pass",) if self.pass_name is not None else ()), "undo", "stop", "pause"
            ),
            "thinking": parts.thinking_panel((*parts.SEARCH_FIGURES, parts.NPS)),
            "players": parts.players_panel(((names[0], ""), (names[1], ""))),
            "new-game": self._new_game_part(),
        }
        if self.rules.analysis:
            out["analysis"] = parts.analysis_switch()
        if self.rules.load:
            out["side"] = self._load_part()
        if self.gamedef.write_record is not None:
            suffix = parts.text(self.gamedef.record_suffix or ".txt")
            out["this-game"] = (
                '        <a id="record-download" class="button-link" href="#" download>'
                f"Download this game ({suffix})</a>"
            )
        return out

    def _new_game_part(self) -> str:
        if not self.seeded:
            return (
                f'        <p class="hint-text">A new game of {parts.text(self.title)} starts '
                "from its usual position.</p>"
            )
        return """\
        <label class="field">Seed <small>(the starting position it deals)</small>
          <input id="seed" name="seed" inputmode="numeric" pattern="[0-9]*" maxlength="20"
                 placeholder="blank = random">
        </label>"""

    def _load_part(self) -> str:
        hint = parts.text(self.gamedef.position_hint or "a position")
        return f"""
      <form id="load" class="panel" autocomplete="off">
        <h2>Load a position</h2>
        <label class="field"><span>Paste {hint}</span>
          <textarea id="load-text" rows="3" spellcheck="false" autocapitalize="off"></textarea>
        </label>
        <p id="load-error" class="load-error" role="alert" hidden></p>
        <button type="submit" id="load-button">Load as a new game</button>
      </form>"""

    def page_data(self) -> dict[str, object]:
        v = self.view
        return {
            "game": {
                "name": self.name,
                "title": self.title,
                "sides": list(self.sides),
                "pieces": {k: list(p) for k, p in v.pieces.items()},
                "shape": v.shape,
                "click": v.click,
                "scores": self.has_scores,
                "seeded": self.seeded,
                "pass": self.pass_name,
                "load": self.rules.load,
                "record": self.gamedef.write_record is not None,
            }
        }

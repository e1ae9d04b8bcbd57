"""SGF FF[4] for Go (https://www.red-bean.com/sgf/): a permissive reader and a writer.

Reading (:func:`read_sgf`) takes the first game tree of a collection and follows its main
line (the first variation at every branch; the others are parsed and skipped). Any
property is accepted and kept (root properties in :attr:`SgfGame.properties`); values may
hold escapes (``\\]``, ``\\\\``, escaped newlines) and whitespace may appear between
tokens. Old-style identifiers with lower-case letters (``AddBlack``) keep their capitals
(``AB``). Used properties:

* root: ``GM`` (must be 1 if present), ``SZ`` (5 to 19, square), ``KM`` (komi; the rules'
  komi if absent), ``RU`` (a preset name such as ``Japanese``, ``Chinese``, ``AGA``,
  ``NZ``, ``Tromp-Taylor``, or banmen's ``ko=...,scoring=...``; unknown names fall back
  to Chinese rules), ``HA`` (handicap stones, for the white handicap bonus), ``RE`` (a
  ``B+R``/``W+R`` result marks the resignation in the game record), ``PL``;
* set-up before the first move, in the root or later nodes: ``AB``, ``AW``, ``AE``, with
  compressed point lists (``[aa:cc]`` is the rectangle a1..c3 in SGF coordinates); set-up
  after the first move is rejected;
* moves ``B`` and ``W``; a pass is ``[]`` or, on boards up to 19x19, ``[tt]``. Moves are
  replayed as recorded (:meth:`Game.play <banmen.games.go.game.Game.play>`), out of turn
  if so recorded and after two passes; a move the rules forbid stops the reading with its
  move number;
* ``C`` comments are collected by ply.

SGF points are two letters, column then row, ``a`` = left / top; GTP rows count from the
bottom, so ``[dd]`` on 19x19 is D16. Bad input raises :class:`SgfError` with a one-line
message.

Reading gives an :class:`SgfGame`: the game record (:class:`~banmen.games.go.game.Game`),
the root properties and the comments. Writing (:func:`write_sgf`, of a game record or a
board) gives ``GM[1]FF[4]CA[UTF-8]AP SZ KM RU``, ``HA`` and the
handicap/set-up stones (``AB``/``AW``, ``PL``) of the start position, optional game info,
``RE`` once the game is over, and one node per move (passes as ``[]``).

    >>> game = read_sgf("(;GM[1]SZ[9]KM[6.5]RU[Japanese];B[ee];W[cc](;B[gg])(;B[cg]))")
    >>> [game.board.move_name(m) for m in game.board.move_stack]
    ['E5', 'C7', 'G3']
    >>> game.board.rules.name, game.board.komi
    ('japanese', 6.5)
    >>> write_sgf(game.board).rstrip().endswith(";B[ee];W[cc];B[gg])")
    True
"""

from __future__ import annotations

from dataclasses import dataclass, field

from banmen.games.go.board import (
    BLACK,
    EMPTY,
    MAX_SIZE,
    MIN_SIZE,
    WHITE,
    Board,
    color_name,
    coords,
    point,
    vertex_name,
)
from banmen.games.go.errors import (
    GoError,
    IllegalMoveError,
    InvalidBoardError,
    RulesError,
    SgfError,
)
from banmen.games.go.game import Game, board_of
from banmen.games.go.rules import CHINESE, Rules, komi_value, parse_rules
from banmen.numbers import Bounded, NumberError

__all__ = [
    "SgfNode",
    "SgfGame",
    "parse_sgf",
    "read_sgf",
    "write_sgf",
    "sgf_point",
    "parse_point",
    "read_position",
    "write_position",
]

_SETUP = ("AB", "AW", "AE")
_RU_NAMES = {
    "chinese": "Chinese",
    "japanese": "Japanese",
    "aga": "AGA",
    "new-zealand": "NZ",
    "tromp-taylor": "Tromp-Taylor",
}


@dataclass
class SgfNode:
    """One node: properties (identifier -> values, in order) and child variations."""

    props: dict[str, list[str]] = field(default_factory=dict)
    children: list[SgfNode] = field(default_factory=list)

    def get(self, ident: str) -> str | None:
        values = self.props.get(ident)
        return values[0] if values else None


@dataclass
class SgfGame:
    """A game read from SGF: the game record after the main line, the root properties,
    and the comments by ply (0 = the root and set-up nodes)."""

    game: Game
    properties: dict[str, list[str]]
    comments: dict[int, str] = field(default_factory=dict)

    @property
    def board(self) -> Board:
        """The record's board."""
        return self.game.board

    def info(self, ident: str) -> str | None:
        """The first value of a root property (``PB``, ``PW``, ``RE``, ``DT``, ...)."""
        values = self.properties.get(ident)
        return values[0] if values else None


# --------------------------------------------------------------------------- parsing


def _v(value: str) -> str:
    """A property value as shown in a one-line message."""
    shown = value.replace("\r", "\\r").replace("\n", "\\n")
    return shown if len(shown) <= 40 else shown[:37] + "..."


def _where(text: str, i: int) -> str:
    line = text.count("\n", 0, i) + 1
    col = i - (text.rfind("\n", 0, i) + 1) + 1
    return f"line {line}, column {col}"


def parse_sgf(text: str) -> SgfNode:
    """The root node of the first game tree in ``text`` (variations included)."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="replace")
    if not isinstance(text, str):
        raise SgfError(f"SGF must be text, got {type(text).__name__}")
    start = text.find("(")
    if start < 0:
        raise SgfError("not an SGF file: no game tree '(;' found")
    n = len(text)
    i = start
    stack: list[SgfNode | None] = []
    current: SgfNode | None = None
    root: SgfNode | None = None
    while i < n:
        ch = text[i]
        if ch == "(":
            stack.append(current)
            i += 1
        elif ch == ")":
            if not stack:
                raise SgfError(f"unbalanced ')' at {_where(text, i)}")
            current = stack.pop()
            i += 1
            if not stack:
                break
        elif ch == ";":
            if not stack:
                raise SgfError(f"node ';' outside a game tree at {_where(text, i)}")
            node = SgfNode()
            if current is None:
                if root is not None:
                    raise SgfError(f"a second root node at {_where(text, i)}")
                root = node
            else:
                current.children.append(node)
            current = node
            i += 1
        elif ch.isspace():
            i += 1
        elif ch.isalpha():
            j = i
            while j < n and text[j].isalpha():
                j += 1
            word = text[i:j]
            ident = "".join(c for c in word if c.isupper())
            if not ident or not word.isascii():
                raise SgfError(f"bad property name {word!r} at {_where(text, i)}")
            if current is None:
                raise SgfError(f"property {word} outside a node at {_where(text, i)}")
            values: list[str] = []
            while True:
                while j < n and text[j].isspace():
                    j += 1
                if j >= n or text[j] != "[":
                    break
                value, j = _read_value(text, j)
                values.append(value)
            if not values:
                raise SgfError(f"property {word} at {_where(text, i)} has no [value]")
            current.props.setdefault(ident, []).extend(values)
            i = j
        else:
            raise SgfError(f"unexpected character {ch!r} at {_where(text, i)}")
    if stack:
        raise SgfError("unterminated game tree: a ')' is missing at the end")
    if root is None:
        raise SgfError("empty game tree: expected '(;' and a root node")
    return root


def _read_value(text: str, j: int) -> tuple[str, int]:
    """The value of the ``[...]`` starting at ``j`` and the index after it."""
    start = j
    j += 1
    out: list[str] = []
    n = len(text)
    while j < n:
        ch = text[j]
        if ch == "\\":
            j += 1
            if j >= n:
                break
            nxt = text[j]
            if nxt in "\r\n":  # an escaped line break is removed (soft break)
                if nxt == "\r" and j + 1 < n and text[j + 1] == "\n":
                    j += 1
            else:
                out.append(nxt)
            j += 1
        elif ch == "]":
            return "".join(out), j + 1
        else:
            out.append(ch)
            j += 1
    raise SgfError(f"unterminated property value '[' starting at {_where(text, start)}")


# --------------------------------------------------------------------------- points


def sgf_point(p: int, size: int) -> str:
    """SGF coordinates of board point ``p`` (``""`` for the pass)."""
    if p == 0:
        return ""
    c, r = coords(p, size)
    return chr(ord("a") + c) + chr(ord("a") + size - 1 - r)


def parse_point(value: str, size: int, what: str) -> int:
    """Board point of SGF coordinates like ``"dd"``; ``""``/``"tt"`` are the pass
    (:data:`PASS`, 0)."""
    v = value.strip()
    if v == "" or (v == "tt" and size <= 19):
        return 0
    last = chr(ord("a") + size - 1)
    if len(v) != 2 or not all("a" <= ch <= last for ch in v):
        raise SgfError(
            f"bad point {what}[{_v(value)}]: expected two letters a-{last} on a {size}x{size} board"
        )
    col = ord(v[0]) - ord("a")
    row = size - 1 - (ord(v[1]) - ord("a"))
    return point(col, row, size)


def _point_list(values: list[str], size: int, ident: str) -> list[int]:
    out: list[int] = []
    for value in values:
        a, sep, b = value.partition(":")
        if not sep:
            p = parse_point(a, size, ident)
            if p == 0:
                raise SgfError(f"{ident}[{_v(value)}] is not a point (a pass cannot be set up)")
            out.append(p)
            continue
        p1, p2 = parse_point(a, size, ident), parse_point(b, size, ident)
        if p1 == 0 or p2 == 0:
            raise SgfError(f"bad compressed point list {ident}[{_v(value)}]")
        c1, r1 = coords(p1, size)
        c2, r2 = coords(p2, size)
        for r in range(min(r1, r2), max(r1, r2) + 1):
            for c in range(min(c1, c2), max(c1, c2) + 1):
                out.append(point(c, r, size))
    return out


# --------------------------------------------------------------------------- reading


def _int_prop(node: SgfNode, ident: str, what: str) -> int | None:
    v = node.get(ident)
    if v is None:
        return None
    try:
        return int(v.strip())
    except ValueError:
        raise SgfError(f"bad {what} {ident}[{_v(v)}]: expected a whole number") from None


#: the most handicap stones a record may give: GTP's fixed_handicap places at most 9
HANDICAP_MAX = 9


def _handicap(root: SgfNode, size: int) -> int:
    """``HA``, bounded by the rules: 0 to 9 stones (fewer on a board with fewer points)."""
    v = root.get("HA")
    if v is None:
        return 0
    bounded = Bounded("handicap", 0, min(HANDICAP_MAX, size * size - 1), integer=True)
    try:
        return int(bounded(v))
    except NumberError:
        raise SgfError(f"bad handicap HA[{_v(v)}]: expected {bounded.expected()}") from None


def _size(root: SgfNode) -> int:
    v = root.get("SZ")
    if v is None:
        return 19
    a, sep, b = v.strip().partition(":")
    try:
        cols = int(a)
        rows = int(b) if sep else cols
    except ValueError:
        raise SgfError(f"bad board size SZ[{_v(v)}]: expected a number like 19") from None
    if cols != rows:
        raise SgfError(f"board SZ[{_v(v)}] is not square: only square boards are supported")
    if not 5 <= cols <= 19:
        raise SgfError(f"board size {cols} is not supported: expected 5 to 19")
    return cols


def _rules(root: SgfNode, rules: Rules | str | None) -> Rules:
    if rules is not None:
        try:
            return parse_rules(rules)
        except RulesError as e:
            raise SgfError(str(e)) from None
    ru = root.get("RU")
    if ru is None:
        return CHINESE
    try:
        return parse_rules(ru)
    except RulesError:
        return CHINESE  # unknown rules names are tolerated


def read_sgf(text: str, rules: Rules | str | None = None, max_moves: int | None = None) -> SgfGame:
    """Read the main line of the first game in ``text`` (see the module docstring).
    ``rules`` overrides the record's ``RU``; a main line of more than ``max_moves`` moves
    is refused (:class:`SgfError`) before any is played."""
    root = parse_sgf(text)
    gm = root.get("GM")
    if gm is not None and gm.strip() != "1":
        raise SgfError(f"not a Go game: GM[{_v(gm)}] (Go is GM[1])")
    size = _size(root)
    board_rules = _rules(root, rules)
    km = root.get("KM")
    komi = None
    if km is not None and km.strip():
        try:
            komi = komi_value(km.strip())
        except RulesError:
            raise SgfError(f"bad komi KM[{_v(km)}]: expected a number like 6.5") from None
    board = Board(size, board_rules, komi)
    handicap = _handicap(root, size)

    line = [root]
    while line[-1].children:
        line.append(line[-1].children[0])
    if max_moves is not None:
        moves = sum(1 for node in line if "B" in node.props or "W" in node.props)
        if moves > max_moves:
            raise SgfError(f"the record has {moves} moves: at most {max_moves} are taken")

    # set-up: every node before the first move
    stones: dict[int, int] = {}
    turn: int | None = None
    comments: dict[int, str] = {}
    k = 0
    while k < len(line) and "B" not in line[k].props and "W" not in line[k].props:
        _apply_setup(line[k], size, stones)
        pl = line[k].get("PL")
        if pl is not None:
            turn = _color(pl, "PL")
        _comment(line[k], comments, 0)
        k += 1
    if k < len(line):
        _apply_setup(line[k], size, stones)  # tolerated in the first move's node
    if turn is None:
        if k < len(line):
            turn = BLACK if "B" in line[k].props else WHITE
        else:
            has_black = any(c == BLACK for c in stones.values())
            turn = WHITE if handicap >= 2 and has_black else BLACK
    try:
        board.setup(
            black=[p for p, c in stones.items() if c == BLACK],
            white=[p for p, c in stones.items() if c == WHITE],
            turn=turn,
        )
    except GoError as e:
        raise SgfError(f"bad set-up stones: {e}") from None
    board.handicap = handicap

    game = Game(board)
    for node in line[k:]:
        has_b, has_w = "B" in node.props, "W" in node.props
        num = len(game.move_stack) + 1
        if any(ident in node.props for ident in _SETUP) and node is not line[k]:
            raise SgfError(f"set-up stones (AB/AW/AE) after move {num - 1} are not supported")
        if has_b and has_w:
            raise SgfError(f"move {num}: a node has both B and W")
        if not (has_b or has_w):
            _comment(node, comments, len(game.move_stack))
            continue
        ident = "B" if has_b else "W"
        color = BLACK if has_b else WHITE
        value = node.props[ident][0]
        try:
            m = parse_point(value, size, ident)
        except SgfError as e:
            raise SgfError(f"move {num}: {e}") from None
        try:
            game.play(m, color)
        except IllegalMoveError as e:
            raise SgfError(
                f"move {num} ({ident}[{_v(value)}], {color_name(color)} "
                f"{vertex_name(m, size)}) is illegal under {board.rules.name} rules: "
                f"{e.reason}"
            ) from None
        _comment(node, comments, len(game.move_stack))

    re = (root.get("RE") or "").strip().upper()
    if re.startswith(("B+R", "W+R")) and not game.is_game_over():
        game.resign(WHITE if re.startswith("B") else BLACK)
    return SgfGame(game, dict(root.props), comments)


def _color(value: str, ident: str) -> int:
    v = value.strip().upper()
    if v in ("B", "BLACK"):
        return BLACK
    if v in ("W", "WHITE"):
        return WHITE
    raise SgfError(f"bad colour {ident}[{_v(value)}]: expected B or W")


def _apply_setup(node: SgfNode, size: int, stones: dict[int, int]) -> None:
    for ident, color in (("AE", EMPTY), ("AB", BLACK), ("AW", WHITE)):
        for p in _point_list(node.props.get(ident, []), size, ident):
            if color == EMPTY:
                stones.pop(p, None)
            else:
                stones[p] = color


def _comment(node: SgfNode, comments: dict[int, str], ply: int) -> None:
    c = node.get("C")
    if c:
        comments[ply] = f"{comments[ply]}\n{c}" if ply in comments else c


# --------------------------------------------------------------------------- writing


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("]", "\\]")


def write_sgf(
    game: Game | Board,
    *,
    black: str | None = None,
    white: str | None = None,
    result: str | None = None,
    date: str | None = None,
    event: str | None = None,
    comment: str | None = None,
) -> str:
    """The game of a record or a board as SGF FF[4] (see the module docstring); ``RE`` is
    ``result``, by default the record's result once the game is over."""
    board = board_of(game)
    n = board.size
    start = board.start_board()
    rules = board.rules
    preset = rules.preset_name()
    ru = _RU_NAMES[preset] if preset is not None else rules.describe()
    props: list[tuple[str, list[str]]] = [
        ("GM", ["1"]),
        ("FF", ["4"]),
        ("CA", ["UTF-8"]),
        ("AP", ["banmen:0.1"]),
        ("SZ", [str(n)]),
        ("KM", [f"{rules.komi:g}"]),
        ("RU", [ru]),
    ]
    if board.handicap:
        props.append(("HA", [str(board.handicap)]))
    ab = [sgf_point(p, n) for p in start.stones(BLACK)]
    aw = [sgf_point(p, n) for p in start.stones(WHITE)]
    if ab:
        props.append(("AB", ab))
    if aw:
        props.append(("AW", aw))
    if ab or aw or start.turn == WHITE:
        props.append(("PL", ["B" if start.turn == BLACK else "W"]))
    for ident, value in (("PB", black), ("PW", white), ("DT", date), ("EV", event)):
        if value:
            props.append((ident, [value]))
    re = result if result is not None else (game.result() if game.is_game_over() else None)
    if re:
        props.append(("RE", [re]))
    if comment:
        props.append(("C", [comment]))
    head = "".join(ident + "".join(f"[{_escape(v)}]" for v in vals) for ident, vals in props)
    parts = ["(;" + head]
    for i, (c, m) in enumerate(zip(board.colors, board.move_stack, strict=True)):
        sep = "\n" if i % 10 == 0 else ""
        parts.append(f"{sep};{'B' if c == BLACK else 'W'}[{sgf_point(m, n)}]")
    return "".join(parts) + ")\n"


# --------------------------------------------------------------------------- one line


def write_position(game: Game | Board) -> str:
    """The position as one line of four fields (UGI's ``position fen``): the rows from
    the top (row N first) separated by ``/``, each point ``X`` (black), ``O`` (white) or
    ``.``; the side to move, ``b`` or ``w``; the komi; the rules, a preset's name or
    :meth:`~.rules.Rules.describe`'s ``key=value`` list. The history of earlier positions
    (superko) is not in it: a game is sent as its start position and its moves.

    >>> write_position(Board(5))
    '...../...../...../...../..... b 7.5 chinese'
    """
    b = board_of(game)
    rows = []
    for r in range(b.size - 1, -1, -1):
        rows.append("".join(".XO"[b.color_at(point(c, r, b.size))] for c in range(b.size)))
    side = "b" if b.turn == BLACK else "w"
    preset = b.rules.preset_name()
    rules = preset if preset else b.rules.describe()
    return f"{'/'.join(rows)} {side} {b.komi:g} {rules}"


def read_position(text: str) -> Game:
    """The game :func:`write_position` wrote (its stones set up, no moves); one-line
    errors (:class:`~.errors.InvalidBoardError`) name what is wrong.

    >>> str(read_position("...../..X../...../...../..... w 6.5 japanese").board.komi)
    '6.5'
    """
    fields = text.split() if isinstance(text, str) else []
    if len(fields) not in (2, 3, 4):
        raise InvalidBoardError(
            "a Go position is ROWS SIDE [KOMI [RULES]], like "
            f"'...../...../...../...../..... b 7.5 chinese': got {str(text)[:60]!r}"
        )
    rows = fields[0].split("/")
    size = len(rows)
    if not MIN_SIZE <= size <= MAX_SIZE or any(len(r) != size for r in rows):
        raise InvalidBoardError(
            f"the rows must make a square of {MIN_SIZE} to {MAX_SIZE} points a side "
            f"(rows separated by '/'): got {len(rows)} rows of lengths "
            f"{sorted({len(r) for r in rows})}"
        )
    side = fields[1].lower()
    if side not in ("b", "w"):
        raise InvalidBoardError(f"the side to move must be b or w, got {fields[1]!r}")
    try:
        rules = parse_rules(fields[3]) if len(fields) > 3 else CHINESE
        komi = komi_value(fields[2]) if len(fields) > 2 else rules.komi
    except (RulesError, ValueError) as e:
        raise InvalidBoardError(str(e)) from None
    board = Board(size, rules, komi)
    stones: dict[int, list[int]] = {BLACK: [], WHITE: []}
    for i, row in enumerate(rows):
        for c, ch in enumerate(row):
            color = {"X": BLACK, "O": WHITE, ".": EMPTY}.get(ch.upper())
            if color is None:
                raise InvalidBoardError(
                    f"bad point {ch!r} in row {i + 1}: expected X (black), O (white) or ."
                )
            if color != EMPTY:
                stones[color].append(point(c, size - 1 - i, size))
    board.setup(stones[BLACK], stones[WHITE], turn=BLACK if side == "b" else WHITE)
    return Game(board)

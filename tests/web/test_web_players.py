"""The user's own players on the board (``banmen serve --player GAME:NAME=SPEC``): the
option's checks at start, a web game against a ``python:`` player over the socket, and a
player that fails a move (a one-line message, the game paused, a human free to pick
another CPU)."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from pathlib import Path

import paths
import pytest
from typer.testing import CliRunner
from ws_conn import WsConn

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from banmen.cli import app as cli_app
from banmen.engine import SpecError
from banmen.games.othello import Board
from banmen.web.players import check_player, parse_players
from banmen.web.server import create_app

pytestmark = [
    pytest.mark.timeout(60),
    pytest.mark.filterwarnings("ignore:.*httpx2:UserWarning"),
]

GREEDY = f"python:{paths.ROOT / 'examples/python/greedy_othello.py'}:Greedy"
WEB_GAMES = ["mattix", "othello", "go"]

BROKEN = '''
class Broken:
    """Plays one good move, then raises."""
    def __init__(self):
        self.moves = 0
    def play(self, board):
        self.moves += 1
        if self.moves > 1:
            raise RuntimeError("my evaluation blew up")
        return board.move_name(board.legal_moves[0])
'''


def test_parse_players_takes_game_name_spec() -> None:
    got = parse_players(
        [f"othello:greedy={GREEDY}", "mine=gtp:gnugo --mode gtp", "mattix:d2=alphabeta:depth=2"],
        WEB_GAMES,
    )
    assert got == {
        "othello": {"greedy": GREEDY},
        "go": {"mine": "gtp:gnugo --mode gtp"},  # gtp: is Go's own kind
        "mattix": {"d2": "alphabeta:depth=2"},
    }


@pytest.mark.parametrize(
    ("item", "says"),
    [
        ("greedy", "expected GAME:NAME=SPEC"),
        ("othello:greedy=", "expected GAME:NAME=SPEC"),
        (f"greedy={GREEDY}", "say which game it plays"),
        (f"chess:greedy={GREEDY}", "no game 'chess' on the web pages"),
        (f"othello:human={GREEDY}", "bad name 'human'"),
        (f"othello:a b={GREEDY}", "bad name 'a b'"),
        ("othello:g=mate:time=1", "Othello offers no mate players"),
        ("othello:g=alphabeta:speed=3", "alphabeta takes depth="),
    ],
)
def test_parse_players_refuses_in_one_line(item: str, says: str) -> None:
    with pytest.raises(SpecError) as e:
        parse_players([item], WEB_GAMES)
    assert says in str(e.value) and "\n" not in str(e.value)


def test_a_duplicate_name_is_refused() -> None:
    with pytest.raises(SpecError, match="already has a player named 'g'"):
        parse_players([f"othello:g={GREEDY}", "othello:g=random"], WEB_GAMES)


def test_check_player_starts_it(tmp_path: Path) -> None:
    check_player("othello", GREEDY)  # imports the file and builds the player
    with pytest.raises(ValueError, match="no such file"):
        check_player("othello", f"python:{tmp_path / 'missing.py'}:Greedy")
    with pytest.raises(Exception, match="cannot start|not found|No such file"):
        check_player("mattix", f"ugi:{tmp_path / 'no-such-engine'}")


def test_serve_refuses_a_player_that_cannot_start(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        cli_app, ["serve", "--player", f"othello:x=python:{tmp_path / 'missing.py'}:X"]
    )
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: --player othello:x: cannot start")


# --------------------------------------------------------------------------- over the socket


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    where = tmp_path_factory.mktemp("players")
    (where / "broken.py").write_text(BROKEN)
    players = {
        "othello": {"greedy": GREEDY, "broken": f"python:{where / 'broken.py'}:Broken"},
    }
    app = create_app(where / "games.sqlite3", workers=1, players=players)
    with TestClient(app) as c:
        yield c


def _greedy_move(board: Board) -> str:
    """What examples/python/greedy_othello.py plays, computed here from the board."""
    counts = board.flip_counts()
    best = max(counts, key=lambda sq: counts[sq])
    return board.move_name(best)


def test_the_page_offers_the_users_players(client: TestClient) -> None:
    with client.websocket_connect("/ws/othello") as ws:
        state = WsConn(ws).join()
    levels = {lv["name"]: lv for lv in state["levels"]}
    assert levels["greedy"]["spec"] == GREEDY and "your player" in levels["greedy"]["note"]
    with client.websocket_connect("/ws/mattix") as ws:  # only the game it was given to
        assert "greedy" not in {lv["name"] for lv in WsConn(ws).join()["levels"]}


def test_a_game_against_a_python_player(client: TestClient) -> None:
    with client.websocket_connect("/ws/othello") as ws:
        conn = WsConn(ws)
        conn.join()
        conn.new(players={"1": "human", "2": "greedy"})
        board = Board()
        for _ in range(4):
            square = board.move_name(board.legal_moves[-1])  # the human: the last legal move
            ply = len(board.move_stack)
            conn.send({"type": "move", "square": square})
            board.push_name(square)
            expected = _greedy_move(board)  # what the player must answer, worked out here
            state = conn.next_state(lambda s, n=ply: len(s["history"]) >= n + 2)
            assert state["history"][-1]["square"] == expected
            assert state["cpu"]["level"] == "greedy"
            board.push_name(expected)


def _last_legal(history: list[dict[str, object]]) -> str:
    board = Board()
    for h in history:
        board.push_name(str(h["square"]))
    return board.move_name(board.legal_moves[-1])


def test_a_player_that_fails_pauses_the_game_with_one_line(client: TestClient) -> None:
    with client.websocket_connect("/ws/othello") as ws:
        conn = WsConn(ws)
        conn.join()
        conn.new(players={"1": "human", "2": "broken"})
        conn.send({"type": "move", "square": "f5"})
        conn.next_state(lambda s: len(s["history"]) == 2)  # its first move is fine
        conn.send({"type": "move", "square": _last_legal(conn.state["history"])})
        msg = conn.until(lambda m: m["type"] == "error")
        text = msg["message"]
        assert "my evaluation blew up" in text and "\n" not in text and "Traceback" not in text
        state = conn.next_state(lambda s: bool(s["paused"]))
        assert len(state["history"]) == 3  # the human's move stands, nothing is lost
        # the human picks another CPU, and the game goes on
        conn.send({"type": "settings", "players": {"2": "easy"}, "paused": False})
        state = conn.next_state(lambda s: len(s["history"]) == 4)
        assert state["cpu"]["level"] == "easy"

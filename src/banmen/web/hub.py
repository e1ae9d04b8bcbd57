"""The hub: the live game sessions by id, and the routing of the game pages' messages.

A :class:`Hub` is what serves every game page's socket (``/ws/<game>``, a
:class:`~banmen.web.sockets.SocketHandler`): a client belongs to one game's socket and
only ever joins that game's sessions. It joins a client to a live session, loads saved
games on demand, starts new ones (or one from pasted text), and drops a session (stopping
its search) when its last client leaves — a reconnecting client reloads it, and the CPU
resumes thinking. It keeps at most :attr:`Limits.max_sessions` sessions live, and lets
one client address create saved games only so fast (:attr:`Limits.new_game_burst`,
:attr:`Limits.new_game_interval`). Every other message goes to the client's
:class:`~banmen.web.session.GameSession`.

What a record costs is not the event loop's (:mod:`banmen.web.offload`): a ``load`` is
checked for room and for its address's new-game rate first — cheaply, before its text is
read — then its text is read and replayed on the records' thread, and the room checked
again, under the lock, once it is read (the hub may have filled meanwhile). A load takes
its new game from the rate when it is checked, and keeps it taken if the text turns out
bad: reading the text is what the rate pays for, so a flood of loads, good or bad, costs
the server one rate check each once the address's burst is spent. A joined saved game's
record is replayed on the same thread.
"""

from __future__ import annotations

import asyncio
import logging
import math
from typing import Any

from banmen.web.client import Client
from banmen.web.games import WebGame
from banmen.web.limits import RateLimit
from banmen.web.protocol import Join, Load, NewGame, ProtocolError, parse_message
from banmen.web.session import GameSession, Services, SessionBoard
from banmen.web.store import is_game_id

__all__ = ["Hub"]

log = logging.getLogger("banmen.web")


class Hub:
    """Live sessions by id (of every game), plus the routing of client messages to them."""

    def __init__(self, services: Services) -> None:
        self.services = services
        self.sessions: dict[str, GameSession] = {}
        # join / new / load await the store; one at a time, so a game is never loaded twice.
        self._lock = asyncio.Lock()
        limits = services.limits
        self._new_games = RateLimit(limits.new_game_burst, limits.new_game_interval, services.clock)
        self._closed = False

    def opened(self, client: Client) -> None:
        pass  # a game page asks for its game first ("join")

    async def closed(self, client: Client) -> None:
        self.leave(client)

    def game_of(self, client: Client) -> WebGame[Any]:
        return self.services.games[client.game]

    async def handle(self, client: Client, raw: str | bytes | None) -> None:
        """Validate and carry out one message; any problem becomes an ``error`` reply."""
        try:
            msg = parse_message(raw, self.game_of(client).rules)
            if isinstance(msg, Join):
                await self.join(client, msg.id)
            elif isinstance(msg, NewGame):
                await self.new_game(client, msg)
            elif isinstance(msg, Load):
                await self.load(client, msg)
            elif client.session is None:
                raise ProtocolError('no game yet: send {"type": "join"} first')
            else:
                await client.session.handle(client, msg)
        except ProtocolError as e:
            client.error(str(e))
        except Exception:
            log.exception("error while handling a message")
            client.error("internal server error while handling the message (see the server log)")

    async def join(self, client: Client, game_id: str | None) -> None:
        if game_id is not None and not is_game_id(game_id):
            raise ProtocolError(
                f"bad game id {game_id[:24]!r}: expected up to 64 letters, digits, '-' or '_'"
            )
        game = self.game_of(client)
        async with self._lock:
            self._check_open()
            current = client.session
            if current is not None and game_id == current.id:
                client.send(current.view())  # a re-join is a request for the state
                return
            notice = None
            session = self.sessions.get(game_id) if game_id else None
            if session is not None and session.game is not game:
                notice = _other_game(game_id, session.game, game)
                session = None
            elif session is None and game_id:
                self._check_room(client)
                session, notice = await self._load(game_id, game)
            if session is None:
                self._check_room(client)
                self._check_rate(client)
                session = self._create(game, None, NewGame(None, None, None))
                await session.save()
            self._enter(client, session)
        if notice:
            client.send({"type": "notice", "message": notice})
        session.kick()  # if the CPU was to move when the game was saved, it resumes
        client.send(session.view())
        session.show_analysis(client)

    async def _load(
        self, game_id: str, game: WebGame[Any]
    ) -> tuple[GameSession | None, str | None]:
        saved = await self.services.store.aload(game_id, touch=True)
        if saved is None:
            return None, f"no saved game {game_id!r}: started a new game"
        if saved.game != game.name:
            other = self.services.games.get(saved.game)
            return None, _other_game(game_id, other, game)
        try:  # its moves replayed off the event loop
            board = await self.services.reader.run(game.board_from_record, saved.state.get("board"))
            session = GameSession.from_record(game_id, game, saved.state, self.services, board)
        except (ValueError, TypeError, KeyError) as e:
            return None, f"saved game {game_id!r} could not be read ({e}): started a new game"
        self._check_open()
        self.sessions[game_id] = session
        return session, None

    async def new_game(self, client: Client, msg: NewGame) -> None:
        async with self._lock:
            self._check_open()
            self._check_room(client)
            self._check_rate(client)
            session = self._create(self.game_of(client), client.session, msg)
            await session.save()
            self._enter(client, session)
        session.kick()
        client.send(session.view())
        session.show_analysis(client)

    async def load(self, client: Client, msg: Load) -> None:
        """A new game from pasted text; bad text changes nothing but the address's
        new-game rate (see the module docstring: the rate is checked, and a game taken
        from it, before the text is read; the text is read off the event loop)."""
        game = self.game_of(client)
        self._check_open()
        self._check_room(client)
        self._check_rate(client)
        # raises ProtocolError with the board's message
        board = await self.services.reader.run(game.load, msg.text)
        async with self._lock:
            self._check_open()
            self._check_room(client)  # again: the hub may have filled while it was read
            session = self._create(game, client.session, NewGame(None, None, None), board)
            await session.save()
            self._enter(client, session)
        session.kick()
        client.send(session.view())
        session.show_analysis(client)

    def _check_room(self, client: Client) -> None:
        """Refuse (:class:`ProtocolError`) a new live session if the hub is full; the
        session the client leaves for it counts as free if nobody else watches it."""
        current = client.session
        freed = current is not None and current.clients == {client}
        cap = self.services.limits.max_sessions
        if len(self.sessions) - freed >= cap:
            raise ProtocolError(
                f"the server is busy: all its game slots ({cap}) are in use; try again in a while"
            )

    def _check_open(self) -> None:
        """Refuse (:class:`ProtocolError`) a new live session once the hub is closed (the
        server shuts down; a record read meanwhile is dropped)."""
        if self._closed:
            raise ProtocolError("the server is shutting down: no new games")

    def _check_rate(self, client: Client) -> None:
        """Refuse (:class:`ProtocolError`) a new saved game beyond the client address's
        rate."""
        wait = self._new_games.take(client.address)
        if wait > 0:
            lim = self.services.limits
            raise ProtocolError(
                f"too many new games from your address: at most {lim.new_game_burst} at "
                f"once, then one every {lim.new_game_interval:g} s; try again in "
                f"{math.ceil(wait)} s"
            )

    def _create(
        self,
        game: WebGame[Any],
        current: GameSession | None,
        msg: NewGame,
        board: SessionBoard | None = None,
    ) -> GameSession:
        """A new game (from ``board`` if given); unspecified settings are carried over from
        ``current`` (the time control too: a fresh clock on it)."""
        clock = msg.clock
        if current is not None:
            players = dict(current.players)
            delay = current.delay_ms
            if clock is None and current.clocks is not None:
                clock = current.clocks.control
        else:
            players = {1: game.defaults.players[0], 2: game.defaults.players[1]}
            delay = game.defaults.delay_ms
        players.update(msg.players or {})
        seed = None
        if board is None:
            board, seed = game.new_board(msg, current.board if current is not None else None)
        session = GameSession.new(
            self.services,
            game,
            board=board,
            seed=seed,
            players=players,
            delay_ms=delay,
            clock=clock,
        )
        self.sessions[session.id] = session
        return session

    def _enter(self, client: Client, session: GameSession) -> None:
        if client.session is not session:
            self.leave(client)
            session.attach(client)

    def leave(self, client: Client) -> None:
        """Detach ``client``; a session nobody watches is closed (it stays saved)."""
        session = client.session
        if session is None:
            return
        session.detach(client)
        if not session.clients:
            session.close()
            self.sessions.pop(session.id, None)

    def close(self) -> None:
        self._closed = True
        self.services.reader.close()
        for session in list(self.sessions.values()):
            session.close()
        self.sessions.clear()


def _other_game(game_id: str | None, other: WebGame[Any] | None, game: WebGame[Any]) -> str:
    """The notice for joining another game's id on this game's socket."""
    if other is None:
        return f"game {game_id!r} is not a {game.title} game: started a new game"
    article = "an" if other.title[:1].lower() in "aeiou" else "a"
    return f"game {game_id!r} is {article} {other.title} game, not {game.title}: started a new game"

"""Go analysis: :func:`banmen.games.go.analysis.analyse` (rows, estimates, updates, limits)
and GTP's ``lz-analyze`` and ``kata-analyze`` read by strict parsers of Leela Zero's and
KataGo's formats, through :func:`banmen.protocols.gtp.main` in-process (a reader thread,
the next command stopping the analysis)."""

from __future__ import annotations

import json
import re
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sabaki import run_node, sabaki_gtp

from banmen.analysis import Analysis
from banmen.games.go import BLACK, Board, GoEngine, parse_vertex
from banmen.games.go import kernels as K
from banmen.games.go.analysis import analyse
from banmen.protocols.gtp import GTPSession, main
from banmen.search.limits import Limit, StopFlag

COLUMNS = "ABCDEFGHJ"  # 9x9


def diagram(text: str, turn: int = BLACK) -> Board:
    """A 9x9 board from rows of ``X`` (black), ``O`` (white), ``.``, top row first."""
    rows = [line.replace(" ", "") for line in text.strip().splitlines()]
    n = len(rows)
    board = Board(n, "chinese", 7.5)
    black, white = [], []
    for i, row in enumerate(rows):
        for c, ch in enumerate(row):
            p = (n - i) * (n + 2) + c + 1
            if ch == "X":
                black.append(p)
            elif ch == "O":
                white.append(p)
    board.setup(black, white, turn=turn)
    return board


@pytest.fixture(scope="module")
def engine() -> GoEngine:
    e = GoEngine(seed=3)
    e.warm_up()
    return e


def opening() -> Board:
    b = Board(9, "chinese", 7.5)
    for v in ("E5", "C3", "G7"):
        b.push(b.parse_move(v))
    return b


# --------------------------------------------------------------------------- analyse


def test_rows_estimates_and_updates(engine: GoEngine) -> None:
    engine.new_game()
    board = opening()
    updates: list[Analysis] = []
    a = analyse(board, Limit(nodes=2000), updates.append, engine=engine, period=0.01)
    assert a.stopped_by == "nodes" and a.nodes == 2000 and a.game == "go"
    assert len(updates) > 1 and updates[-1] is a
    assert all(u.stopped_by == "" for u in updates[:-1])
    assert [u.nodes for u in updates] == sorted(u.nodes for u in updates)
    visits = [m.visits for m in a.moves]
    assert visits == sorted(visits, reverse=True) and visits[-1] > 0
    # a fresh tree: every playout went through one root move
    assert abs(sum(visits) - a.nodes) <= a.nodes // 100
    assert a.extra["root_visits"] == sum(visits)
    names = [m.move for m in a.moves]
    assert len(set(names)) == len(names)
    for m in a.moves:
        assert m.kind == "winrate" and not a.complete
        assert m.value is not None and 0.0 <= m.value <= 1.0
        assert m.pv[0] == m.move and m.depth == len(m.pv)
        assert m.move == "pass" or board.why_illegal(board.parse_move(m.move)) is None
        assert 0.0 < m.extra["prior"] <= 1.0 and 0.0 <= m.extra["prior_winrate"] <= 1.0
        assert 0.0 <= m.extra["lcb"] <= m.value
    assert sum(m.extra["prior"] for m in a.moves) <= 1.0 + 1e-6
    own = a.extra["ownership"]
    assert len(own) == 81 and all(-1.0 <= x <= 1.0 for x in own)
    assert a.extra["to_move"] == "white" and a.extra["estimate_playouts"] > 0
    assert isinstance(a.extra["score_lead"], float) and a.extra["score_stdev"] >= 0
    json.dumps(a.to_dict())  # the common record, as JSON


def test_ownership_is_from_the_movers_view_top_row_first(engine: GoEngine) -> None:
    # black owns the top three rows outright (a wall on the third row, nothing inside),
    # white the bottom three; seen by white to move, the top row is -1
    board = diagram(
        """
        . . . . . . . . .
        . . . . . . . . .
        X X X X X X X X X
        X X X X X X X X X
        . . . . . . . . .
        O O O O O O O O O
        O O O O O O O O O
        . . . . . . . . .
        . . . . . . . . .
        """,
        turn=2,
    )
    engine.new_game()
    a = analyse(board, Limit(nodes=200), engine=engine, ownership_playouts=64)
    own = a.extra["ownership"]
    top, bottom = own[:9], own[-9:]
    assert all(x < -0.9 for x in top) and all(x > 0.9 for x in bottom), (top, bottom)
    # white's lead: 36 points each, the fifth row's nine split somehow, komi 7.5
    assert -1.5 <= a.extra["score_lead"] <= 16.5


def test_capturing_a_big_group_in_atari_leads(engine: GoEngine) -> None:
    # five white stones on the fourth row, their last liberty F4 (white's E4 was the
    # last move): black captures there; white would escape there
    board = diagram(
        """
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        X X X X X . . . .
        O O O O O . . . .
        X X X X X . . . .
        . . . . . . . . .
        . . . . . . . . .
        """
    )
    board.position.meta[K.M_LAST] = parse_vertex("E4", 9)
    engine.new_game()
    a = analyse(board, Limit(nodes=1500), engine=engine, ownership_playouts=0)
    top = a.moves[0]
    assert top.move == "F4", [(m.move, m.visits, m.value) for m in a.moves[:5]]
    assert top.visits > a.nodes // 2 and top.value is not None and top.value > 0.8
    assert top.extra["prior"] == max(m.extra["prior"] for m in a.moves)
    assert "ownership" not in a.extra and "score_lead" not in a.extra


def test_time_limit_and_stop(engine: GoEngine) -> None:
    engine.new_game()
    board = opening()
    a = analyse(board, Limit(time=0.3), engine=engine, ownership_playouts=0)
    assert a.stopped_by == "time" and a.moves
    # no limit: until the stop flag, set here after the third update
    stop = StopFlag()
    seen: list[Analysis] = []

    def on_update(u: Analysis) -> None:
        seen.append(u)
        if len(seen) == 3:
            stop.set()

    a = analyse(board, Limit(), on_update, stop, engine, period=0.01, ownership_playouts=0)
    assert a.stopped_by == "stop" and len(seen) >= 4 and a.moves
    # the tree of the same position was kept: the root has more visits than this search
    assert a.extra["root_visits"] > a.nodes


# --------------------------------------------------------------------------- GTP

VERTEX = r"(?:[A-HJ](?:[1-9])|pass)"  # 9x9
LZ_CHUNK = re.compile(
    rf"info move (?P<move>{VERTEX}) visits (?P<visits>0|[1-9][0-9]*)"
    r" winrate (?P<winrate>0|[1-9][0-9]{0,4})"
    r"(?: prior (?P<prior>0|[1-9][0-9]{0,4}))?"
    r"(?: lcb (?P<lcb>0|[1-9][0-9]{0,4}))?"
    rf" order (?P<order>0|[1-9][0-9]*) pv (?P<pv>{VERTEX}(?: {VERTEX})*)"
)
FLOAT = r"-?[0-9]+(?:\.[0-9]+)?"
KATA_CHUNK = re.compile(
    rf"info move (?P<move>{VERTEX}) visits (?P<visits>0|[1-9][0-9]*)"
    rf" winrate (?P<winrate>{FLOAT})"
    rf"(?: prior (?P<prior>{FLOAT}))?"
    rf"(?: lcb (?P<lcb>{FLOAT}))?"
    rf" order (?P<order>0|[1-9][0-9]*) pv (?P<pv>{VERTEX}(?: {VERTEX})*)"
)


def parse_line(line: str, chunk: re.Pattern[str]) -> list[dict[str, Any]]:
    """Every ``info`` chunk of one analysis line, strictly: each must match ``chunk``
    whole; orders 0..k-1, visits non-increasing, moves distinct, the pv from the move."""
    assert line.startswith("info move "), line
    chunks = [c if c.startswith("info ") else "info " + c for c in line.split(" info ")]
    rows = []
    for text in chunks:
        m = chunk.fullmatch(text)
        assert m is not None, text
        rows.append(m.groupdict())
    assert [int(r["order"]) for r in rows] == list(range(len(rows)))
    visits = [int(r["visits"]) for r in rows]
    assert visits == sorted(visits, reverse=True) and visits[-1] > 0
    assert len({r["move"] for r in rows}) == len(rows)
    assert all(r["pv"].split()[0] == r["move"] for r in rows)
    return rows


class Sink:
    """A stdout the test reads while the session writes it."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.lock = threading.Lock()

    def write(self, text: str) -> int:
        with self.lock:
            self.parts.append(text)
        return len(text)

    def flush(self) -> None:
        pass

    def text(self) -> str:
        with self.lock:
            return "".join(self.parts)


def session(engine: GoEngine, script: list[str | int]) -> str:
    """Run ``main`` on ``script``: a line is sent as is; a number N waits (up to a
    minute) until the output holds N ``info`` lines in all. Returns the output."""
    out = Sink()

    def lines() -> Iterator[str]:
        for item in script:
            if isinstance(item, int):
                deadline = time.monotonic() + 60
                while out.text().count("\ninfo ") < item and time.monotonic() < deadline:
                    time.sleep(0.01)
            else:
                yield item + "\n"

    done = threading.Event()

    def run() -> None:
        main(engine, size=9, stdin=lines(), stdout=out)  # type: ignore[arg-type]
        done.set()

    threading.Thread(target=run, daemon=True).start()
    assert done.wait(120), out.text()
    return out.text()


def test_lz_analyze_in_leela_zeros_format(engine: GoEngine) -> None:
    engine.new_game()
    text = session(engine, ["play b E5", "7 lz-analyze 10", 3, "8 name", "quit"])
    responses = text.split("\n\n")
    assert responses[0] == "= " and responses[-2:] == ["= ", ""]
    lz = responses[1].split("\n")
    assert lz[0] == "=7" and len(lz) >= 4  # the id alone, then the lines
    board = Board(9)
    board.push(board.parse_move("E5"))
    total = []
    for line in lz[1:]:
        rows = parse_line(line, LZ_CHUNK)
        for r in rows:
            assert 0 <= int(r["winrate"]) <= 10000
            assert r["prior"] is not None and 0 <= int(r["prior"]) <= 10000
            assert r["lcb"] is not None and int(r["lcb"]) <= int(r["winrate"])
            assert r["move"] == "pass" or board.why_illegal(board.parse_move(r["move"])) is None
        total.append(sum(int(r["visits"]) for r in rows))
    assert total == sorted(total)  # the search goes on between the lines
    # the analysis ended with its empty line, then the next command was answered
    assert responses[2] == "=8 banmen"
    assert text.endswith("=8 banmen\n\n= \n\n")


def test_kata_analyze_with_ownership(engine: GoEngine) -> None:
    engine.new_game()
    text = session(engine, ["kata-analyze w 10 ownership true", 2, "showboard", "quit"])
    responses = text.split("\n\n")
    kata = responses[0].split("\n")
    assert kata[0] == "=" and len(kata) >= 3
    for line in kata[1:]:
        head, sep, tail = line.partition(" ownership ")
        assert sep
        own = [float(x) for x in tail.split(" ")]
        assert len(own) == 81 and all(-1.0 <= x <= 1.0 for x in own)
        for r in parse_line(head, KATA_CHUNK):
            assert 0.0 <= float(r["winrate"]) <= 1.0
            assert 0.0 <= float(r["prior"]) <= 1.0
    assert responses[1].startswith("= \n")  # showboard, answered after the analysis
    assert responses[-2:] == ["= ", ""]


def test_analysis_commands_and_bad_arguments(engine: GoEngine) -> None:
    s = GTPSession(engine, size=9)
    names = s.handle("list_commands")
    assert names is not None and "\nlz-analyze\n" in names and "\nkata-analyze\n" in names
    assert s.handle("known_command kata-analyze") == "= true\n\n"
    s.handle("play b E5")
    before = (str(s.board), s.board.to_json(), s.handle("printsgf"))
    for line in [
        "lz-analyze x",
        "lz-analyze -5",
        "kata-analyze 10 ownership maybe",
        "lz-analyze 10 ownership true",  # Leela Zero has no ownership
        "lz-analyze b 10 20",
        "lz-analyze interval",
        "kata-analyze maxmoves 0",
        "lz-analyze 1e999",
    ]:
        r = s.handle(line)
        assert r.startswith("? syntax error") and r.count("\n") == 2, (line, r)
    r = s.handle("5 lz-analyze b -1")
    assert r.startswith("?5 syntax error: interval: expected a number from 0")
    assert (str(s.board), s.board.to_json(), s.handle("printsgf")) == before
    # without main's input to watch, an analysis runs for the longest move time and
    # its whole response comes back at once
    s = GTPSession(engine, size=9, max_move_time=0.3)
    r = s.handle("3 lz-analyze 10 maxmoves 2")
    assert r is not None and r.startswith("=3\n") and r.endswith("\n\n")
    lines = r[:-2].split("\n")[1:]
    assert lines and all(len(parse_line(line, LZ_CHUNK)) <= 2 for line in lines)
    assert s.handle("name") == "= banmen\n\n"


# --------------------------------------------------------------------------- Sabaki

# Sabaki's GTP layer (the npm package @sabaki/gtp, found through NODE_PATH) drives
# ``banmen gtp``: it interrupts the analysis by sending the next command, as Sabaki does.
SABAKI_SCRIPT = r"""
const {Controller} = require('@sabaki/gtp')
const c = new Controller(process.argv[2], ['-m', 'banmen', 'gtp', '--size', '9'])
;(async () => {
  await c.sendCommand({name: 'play', args: ['B', 'E5']})
  const infos = []
  let next = null
  const analysis = c.sendCommand({name: 'lz-analyze', args: ['W', '10']}, ({line}) => {
    if (line.startsWith('info ')) infos.push(line)
    if (infos.length >= 3 && next == null) next = c.sendCommand({name: 'name'})
  })
  const r = await analysis
  const n = await next
  // Sabaki's reading: chunks after 'info', key-value pairs up to 'pv'
  const rows = infos[infos.length - 1].split(/\s*info\s+/).slice(1).map(chunk => {
    const words = chunk.trim().split(/\s+/)
    const pv = words.indexOf('pv')
    const row = {pv: words.slice(pv + 1)}
    for (let i = 0; i < pv; i += 2) row[words[i]] = words[i + 1]
    return row
  })
  await c.stop()
  console.log(JSON.stringify({error: r.error, id: r.id, lines: r.content.split('\n').length,
                              infos: infos.length, name: n.content, error2: n.error, rows}))
})().catch(e => { console.error(e); process.exit(1) })
"""


@pytest.mark.external
@pytest.mark.skipif(not sabaki_gtp(), reason="node or @sabaki/gtp missing (see .ci/run)")
def test_sabakis_gtp_controller_reads_lz_analyze(tmp_path: Path) -> None:
    script = tmp_path / "sabaki.js"
    script.write_text(SABAKI_SCRIPT)
    done = run_node(script, sys.executable)
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    assert got["error"] is False and got["id"] is None and got["lines"] >= 3
    assert got["infos"] >= 3 and got["name"] == "banmen" and got["error2"] is False
    rows = got["rows"]
    assert [int(r["order"]) for r in rows] == list(range(len(rows)))
    for r in rows:
        assert r["pv"][0] == r["move"] and 0 <= int(r["winrate"]) <= 10000
        assert int(r["visits"]) > 0 and "prior" in r and "lcb" in r


def test_the_ownership_estimate_keeps_to_its_share_of_the_time() -> None:
    """Issue 32: ``analyse go --time 0.1`` took 0.46-0.89 s on a busy machine, its 256
    estimate playouts counted in the limit. The estimate stops at its deadline (after a
    floor of playouts) and says how many it made; without one it makes them all."""
    from banmen.games.go import policy
    from banmen.games.go.analysis import ESTIMATE_LEAST, estimate

    b = Board(9)
    b.push(b.parse_move("E5"))
    ctx = policy.context(9, b.komi)
    own, scores = estimate(ctx, b.position, 256, 1, b.komi, until=time.perf_counter() - 1)
    assert len(scores) == ESTIMATE_LEAST
    assert int(abs(own).max()) <= ESTIMATE_LEAST  # summed over the playouts made
    _, scores = estimate(ctx, b.position, 40, 1, b.komi)
    assert len(scores) == 40
    r = analyse(b, Limit(time=0.5), engine=GoEngine(seed=1))
    assert ESTIMATE_LEAST <= r.extra["estimate_playouts"] <= 256
    assert len(r.extra["ownership"]) == 81

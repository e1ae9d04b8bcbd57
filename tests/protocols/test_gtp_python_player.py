"""A user's Python Go player behind ``banmen gtp --engine python:…``, driven by Sabaki's
GTP layer (@sabaki/gtp) as Sabaki drives an engine: the example Capturer
(examples/python/go_capturer.py) answers ``genmove`` with a capture when one is there,
and otherwise with legal moves that banmen's rules accept, game after game."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import paths
import pytest
from sabaki import run_node, sabaki_gtp

from banmen.games.go import Game
from banmen.games.go.board import Board

pytestmark = [
    pytest.mark.external,
    pytest.mark.timeout(180),
    pytest.mark.skipif(not sabaki_gtp(), reason="node or @sabaki/gtp missing (see .ci/run)"),
]

CAPTURER = f"python:{paths.ROOT / 'examples/python/go_capturer.py'}:Capturer,seed=5"

SCRIPT = r"""
const {Controller} = require('@sabaki/gtp')
const [python, engine] = process.argv.slice(2)
const c = new Controller(python, ['-m', 'banmen', 'gtp', '--engine', engine, '--size', '9'])
const send = async (name, ...args) => {
  const r = await c.sendCommand({name, args})
  if (r.error) throw new Error(`${name} ${args.join(' ')}: ${r.content}`)
  return r.content
}
;(async () => {
  const out = {name: await send('name')}
  // a white stone in atari: black's capture is E6
  for (const [col, v] of [['B', 'D5'], ['W', 'E5'], ['B', 'F5'], ['W', 'A9'], ['B', 'E4'],
                          ['W', 'A8']]) await send('play', col, v)
  out.capture = await send('genmove', 'B')
  await send('clear_board')
  const moves = []
  for (let i = 0; i < 30; i++) {
    const color = i % 2 ? 'W' : 'B'
    const v = await send('genmove', color)
    moves.push(v)
    if (v.toLowerCase() === 'pass' && moves.length > 1
        && moves[moves.length - 2].toLowerCase() === 'pass') break
  }
  out.moves = moves
  await c.stop()
  console.log(JSON.stringify(out))
})().catch(e => { console.error(String(e)); process.exit(1) })
"""


def test_sabaki_drives_a_python_go_player(tmp_path: Path) -> None:
    script = tmp_path / "sabaki.js"
    script.write_text(SCRIPT)
    done = run_node(script, sys.executable, CAPTURER)
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    assert got["name"]  # the engine has a name Sabaki can show
    # the capture, worked out with banmen's rules: E6 takes the white stone on E5
    game = Game(Board(9))
    for vertex in ("D5", "E5", "F5", "A9", "E4", "A8"):
        game.push(game.parse_move(vertex))
    before = game.board.prisoners[0]
    game.push(game.parse_move(got["capture"]))
    assert game.board.prisoners[0] == before + 1, got["capture"]
    # a game from the empty board: every move legal by banmen's rules, in turn
    replay = Game(Board(9))
    for vertex in got["moves"]:
        replay.push(replay.parse_move(vertex))  # raises on an illegal move
    assert len(got["moves"]) >= 10

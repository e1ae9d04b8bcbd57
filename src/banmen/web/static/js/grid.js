// The generic board page: the page of every game drawn from its GridView (banmen.web.grid),
// on the game page every game shares (game-page.js). What the game is — its name, title,
// sides, pieces, the shape of its cells, how a move is clicked, whether it counts points,
// deals from a seed, loads a position or writes a record, and its pass's move name (null:
// it has none; GameDef.pass_name) — comes from the server in
// <body data-game>; the position, the legal moves and what a click on each cell plays come
// in every "state". The page keeps no rules.

import { FIGURES, gamePage } from "./game-page.js";
import { GridBoard } from "./grid-board.js";
import { $, pageData, plural } from "./page.js";

const GAME = pageData("game");
const SIDES = { 1: GAME.sides[0], 2: GAME.sides[1] };

// A search score (in the game's own unit, from `player`'s view) in words.
function scoreText(player, score, exact) {
  if (score === null || score === undefined) return "–";
  if (score === 0) return exact ? "proved: even" : "even";
  const side = SIDES[score > 0 ? player : 3 - player];
  return `${exact ? "proved: " : ""}${side} +${Math.abs(score)}`;
}

// The sides' colours (the scoreboard's swatches, the move list, the legal-move markers):
// the colour of the piece each side's first move left, once it is known.
function sideColours(state) {
  for (const side of ["1", "2"]) {
    const colour = GAME.pieces[state.side_keys?.[side]]?.[0];
    if (colour) document.body.style.setProperty(`--p${side}`, colour);
  }
}

// The pass's move name (GameDef.pass_name), or null: the game has no pass.
const PASS = GAME.pass ?? null;

function onlyPass(state) {
  return PASS !== null && state.legal.length === 1 && state.legal[0] === PASS;
}

const svg = $("board-svg");
svg.setAttribute("aria-label", `${GAME.title} board`);
const board = new GridBoard(svg, {
  pieces: GAME.pieces,
  shape: GAME.shape,
  click: GAME.click,
  onMove: (name) => page.move(name),
  onPair: (from, to) => page.act({ type: "move", from, to }),
});

const page = gamePage(GAME.name, {
  board,
  sides: SIDES,
  prompt: (side, state) => {
    if (onlyPass(state)) return "no move but to pass: press Pass.";
    return GAME.click === "from-to"
      ? "click a piece, then the cell it goes to."
      : "click a cell to play there.";
  },
  lastMove: (cpu) => `${SIDES[cpu.player]} played ${cpu.move}`,
  stats: [
    ["think-depth", FIGURES.depth],
    ["think-score", (f, player) => scoreText(player, f.score, f.exact)],
    ["think-nodes", FIGURES.nodes],
    ["think-nps", FIGURES.nps],
  ],
  moveText: (mv) => `${SIDES[mv.player]}: ${mv.square}`,
  gameInfo: (state) => {
    const seed = GAME.seeded && state.seed !== null ? `, seed ${state.seed}` : "";
    return `${state.rows}×${state.cols}${seed}, ${plural(state.history.length, "move")} `
      + `· game ${state.id}`;
  },
  gameOver(state) {
    if (!state.over) return null;
    // the server's words for the outcome (GameDef.outcome_of): who won, how, the points
    if (state.outcome) {
      return [`Game over: ${state.outcome.words} (${state.result}).`,
        state.outcome.winner === null ? "draw" : String(state.outcome.winner)];
    }
    const points = state.scores ? `, ${state.scores[0]}–${state.scores[1]}` : "";
    const text = state.winner === null
      ? `Game over: a draw${points} (${state.result}).`
      : `Game over: ${page.sideName(state.winner)} wins${points} (${state.result}).`;
    return [text, state.winner === null ? "draw" : String(state.winner)];
  },
  newGame() {
    if (!GAME.seeded) return {};
    const seed = $("seed").value.trim();
    return { seed: seed === "" ? null : seed };
  },
  loadField: "load-text",
  loaded: (state) => `Loaded: ${plural(state.history.length, "move")}, ${SIDES[state.turn]} to move.`,
  render(state) {
    sideColours(state);
    if (GAME.scores) {
      for (const side of [1, 2]) {
        $(`score-${side}`).textContent = state.scores ? String(state.scores[side - 1]) : "–";
      }
    }
    const pass = $("pass");
    if (pass) {
      const mustPass = page.phase() === "human" && onlyPass(state);
      pass.hidden = !state.legal.includes(PASS);
      pass.disabled = !(page.phase() === "human" && state.legal.includes(PASS)) || page.pending;
      pass.classList.toggle("primary", mustPass);
    }
    const record = $("record-download");
    if (record) record.href = `/api/record/${encodeURIComponent(state.id)}`;
  },
});

$("pass")?.addEventListener("click", () => page.move(PASS));

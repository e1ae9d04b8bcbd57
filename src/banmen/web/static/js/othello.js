// The Othello page: the Othello board and texts on the game page (game-page.js). Discs,
// legal moves and their flip counts all come from the server.

import { FIGURES, gamePage } from "./game-page.js";
import { OthelloBoard } from "./othello-board.js";
import { $, copyText, plural } from "./page.js";

const HINTS_KEY = "banmen.othello.hints";
const SIDES = { 1: "Black", 2: "White" };

// A search score (discs, from `player`'s view) in words.
function scoreText(player, score, exact) {
  if (score === null || score === undefined) return "–";
  if (exact) {
    if (score === 0) return "proved: draw";
    return `proved: ${SIDES[score > 0 ? player : 3 - player]} wins by ${Math.abs(score)}`;
  }
  if (score === 0) return "even";
  return `${SIDES[score > 0 ? player : 3 - player]} +${Math.abs(score)}`;
}

function hintsOn() {
  return $("hints").checked;
}

function showHints() {
  board.set({ hints: hintsOn() });
  $("board").dataset.hints = String(hintsOn());
}

const board = new OthelloBoard($("board-svg"), { onMove: (square) => page.move(square) });

const page = gamePage("othello", {
  board,
  sides: SIDES,
  prompt: (side, state) => (state.must_pass
    ? `no legal move, so ${SIDES[side]} must pass. Press Pass.`
    : "place a disc on a marked square."),
  lastMove: (cpu) => `${SIDES[cpu.player]} ${cpu.move === "pass" ? "passed" : `played ${cpu.move}`}`,
  stats: [
    ["think-depth", FIGURES.depth],
    ["think-score", (f, player) => scoreText(player, f.score, f.exact)],
    ["think-nodes", FIGURES.nodes],
    ["think-nps", FIGURES.nps],
  ],
  moveText: (mv) => (mv.square === "pass"
    ? `${SIDES[mv.player][0]} pass`
    : `${SIDES[mv.player][0]} ${mv.square} (${mv.flips})`),
  gameInfo: (state) => `${plural(state.history.length, "move")}, `
    + `${plural(state.empties, "empty square")} · game ${state.id}`,
  gameOver(state) {
    if (!state.over) return null;
    const [b, w] = state.discs;
    const empty = state.empties ? ` (${plural(state.empties, "empty square")})` : "";
    const text = state.winner === null
      ? `Game over: a draw, ${b}–${w}${empty}.`
      : `Game over: ${page.sideName(state.winner)} wins, ${Math.max(b, w)}–${Math.min(b, w)}${empty}.`;
    return [text, state.winner === null ? "draw" : SIDES[state.winner].toLowerCase()];
  },
  newGame: () => ({}),
  loadField: "load-text",
  loaded: (state) => `Loaded: ${plural(state.history.length, "move")}, ${SIDES[state.turn]} to move.`,
  render(state) {
    for (const side of [1, 2]) $(`discs-${side}`).textContent = String(state.discs[side - 1]);
    const note = $("pass-note");
    const last = state.last;
    note.hidden = !(last && last.square === "pass");
    if (!note.hidden) {
      note.textContent = `${SIDES[last.player]} passes: no legal move. ${SIDES[state.turn]} moves again.`;
    }
    const mustPass = page.phase() === "human" && state.must_pass;
    $("pass").disabled = !mustPass || page.pending;
    $("pass").classList.toggle("primary", mustPass);
    $("transcript").textContent = state.transcript || "(no moves yet)";
    $("position").textContent = state.position;
    const startNote = $("start-note");
    startNote.hidden = state.start === null;
    startNote.textContent = state.start === null ? "" : `The transcript starts from the loaded position ${state.start}.`;
  },
});

$("pass").addEventListener("click", () => page.move("pass"));

try {
  $("hints").checked = localStorage.getItem(HINTS_KEY) === "1";
} catch {
  /* storage disabled: hints start off */
}
showHints();
$("hints").addEventListener("change", () => {
  try {
    localStorage.setItem(HINTS_KEY, hintsOn() ? "1" : "0");
  } catch {
    /* not remembered, still shown */
  }
  showHints();
});

$("copy-transcript").addEventListener("click", (ev) => {
  if (page.state) copyText(page.state.transcript, ev.currentTarget);
});
$("copy-position").addEventListener("click", (ev) => {
  if (page.state) copyText(page.state.position, ev.currentTarget);
});

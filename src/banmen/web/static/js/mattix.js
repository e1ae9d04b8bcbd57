// The Mattix page: the Mattix board and texts on the game page (game-page.js).

import { MattixBoard } from "./board.js";
import { FIGURES, gamePage } from "./game-page.js";
import { $ } from "./page.js";

// "+3 for player 2" from a score seen by `player` (positive: good for that player).
function marginText(player, score) {
  if (score === null || score === undefined) return "–";
  if (score === 0) return "0 (even)";
  return `+${Math.abs(score)} for player ${score > 0 ? player : 3 - player}`;
}

function sizeRadios(size) {
  for (const radio of document.querySelectorAll('input[name="size"]')) {
    radio.checked = Number(radio.value) === size;
  }
}

const page = gamePage("mattix", {
  board: new MattixBoard($("board-svg"), { onMove: (square) => page.move(square) }),
  sides: { 1: "Player 1", 2: "Player 2" },
  yourMove: () => "Your move",
  prompt: (side) => `take a highlighted piece from the chip's ${side === 1 ? "row" : "column"}.`,
  lastMove: (cpu) => `player ${cpu.player} took ${cpu.move}`,
  stats: [
    ["think-depth", FIGURES.depth],
    ["think-score", (f, player) => marginText(player, f.score)],
    ["think-nodes", FIGURES.nodes],
    ["think-nps", FIGURES.nps],
  ],
  moveText: (mv) => `P${mv.player} ${mv.square} (${mv.value > 0 ? "+" : ""}${mv.value})`,
  gameInfo: (state) => `${state.size}×${state.size}, seed ${state.seed ?? "–"}, `
    + `move ${state.history.length} · game ${state.id}`,
  gameOver(state) {
    if (!state.over) return null;
    const [a, b] = state.scores;
    const text = state.winner === null
      ? `Game over: a draw, ${a} to ${b}.`
      : `Game over: ${page.sideName(state.winner)} wins, ${Math.max(a, b)} to ${Math.min(a, b)}.`;
    return [text, state.winner === null ? "draw" : String(state.winner)];
  },
  newGame() {
    const seed = $("seed").value.trim();
    return {
      size: Number($("new-game").elements.size.value),
      seed: seed === "" ? null : seed,
    };
  },
  fresh: (state) => sizeRadios(state.size), // the new-game form shows the game's size
  render(state) {
    const taken = { 1: [], 2: [] };
    for (const mv of state.history) taken[mv.player].push(mv.value);
    for (const side of [1, 2]) {
      $(`score-${side}`).textContent = String(state.scores[side - 1]);
      $(`taken-${side}`).replaceChildren(...taken[side].map((v) => {
        const chip = document.createElement("span");
        chip.className = v < 0 ? "mini negative" : "mini";
        chip.textContent = String(v);
        return chip;
      }));
    }
    $("same-deal").disabled = state.seed === null;
  },
});

$("same-deal").addEventListener("click", () => {
  const state = page.state;
  if (!state || state.seed === null) return;
  $("seed").value = state.seed;
  sizeRadios(state.size);
  page.send({ type: "new", size: state.size, seed: state.seed });
});

// The Go page: the Go board and texts on the game page (game-page.js), plus counting, SGF
// and the analysis's territory switch. Legal points, the reason each illegal point is
// illegal, captures, the dead stones and the count all come in the "state" message; a move
// the page sends anyway is refused by the server with its reason.

import { FIGURES, gamePage } from "./game-page.js";
import { GoBoard } from "./go-board.js";
import { $, formatCount, plural, showLoadError } from "./page.js";

const SIDES = { 1: "Black", 2: "White" };
const RULES = {
  chinese: "Chinese",
  japanese: "Japanese",
  "tromp-taylor": "Tromp-Taylor",
  aga: "AGA",
  "new-zealand": "New Zealand",
  custom: "custom",
};
const REASONS = {
  occupied: "occupied",
  suicide: "suicide: the stone would have no liberty",
  ko: "ko: it cannot be retaken at once, play elsewhere first",
  superko: "superko: it would repeat an earlier position",
};
// SGF files above this are refused before sending (the server takes 50 000 characters).
const MAX_SGF = 50_000;
// Whether the analysis draws the territory (ownership) estimate: on unless switched off.
const TERRITORY_KEY = "banmen.go.territory";

let komiEdited = false; // the komi box was typed in: a change of rules keeps it

function points(x) {
  return Number.isInteger(x) ? String(x) : x.toFixed(1);
}

// "B+3.5" in words.
function resultText(result) {
  if (!result || result === "*") return "";
  if (result === "0") return "a draw (jigo)";
  const winner = result[0] === "B" ? "Black" : "White";
  const margin = result.slice(2);
  return margin === "R" ? `${winner} wins by resignation` : `${winner} wins by ${margin}`;
}

function lastMove(cpu) {
  const what = cpu.move === "pass" ? "passed" : cpu.move === "resign" ? "resigned" : `played ${cpu.move}`;
  return `${SIDES[cpu.player]} ${what}`;
}

// ------------------------------------------------------------------ rendering

function renderPlayers(state) {
  for (const side of [1, 2]) {
    $(`prisoners-${side}`).textContent = String(state.prisoners[side - 1]);
    const c = state.counting;
    const pts = $(`points-${side}`);
    pts.hidden = !c;
    if (!c) continue;
    const stones = c.scoring === "area" ? `${c.stones[side - 1]} stones + ` : "";
    const caps = c.scoring === "territory" ? ` + ${c.prisoners[side - 1]} prisoners` : "";
    const komi = side === 2 && c.komi ? ` + ${points(c.komi)} komi` : "";
    const bonus = side === 2 && c.handicap_bonus ? ` + ${c.handicap_bonus} handicap` : "";
    pts.textContent = `${stones}${c.territory[String(side)].length} territory${caps}${komi}${bonus}`
      + ` = ${points(c.points[side - 1])}`;
  }
  $("komi-note").textContent = `komi ${points(state.komi)}`;
}

function renderCounting(state) {
  const panel = $("count-panel");
  const c = state.counting;
  panel.hidden = !c;
  if (!c) return;
  const how = c.scoring === "area"
    ? "Area scoring: stones on the board plus surrounded points."
    : "Territory scoring: surrounded points plus prisoners (dead stones count as prisoners).";
  $("count-result").textContent = `${c.done ? "Result" : "If accepted now"}: ${resultText(c.result)}`
    + ` (${points(c.points[0])} – ${points(c.points[1])}).`;
  $("count-how").textContent = `${how} ${plural(c.dead.length, "stone")} marked dead.`;
  $("done").disabled = c.done || page.pending;
  $("done").hidden = c.done;
}

function render(state) {
  renderPlayers(state);
  const note = $("pass-note");
  const last = state.last;
  note.hidden = !(!state.over && last && last.square === "pass");
  if (!note.hidden) note.textContent = `${SIDES[last.player]} passed. A second pass in a row ends the game.`;
  renderCounting(state);
  const myTurn = page.phase() === "human" && !page.pending;
  $("pass").disabled = !myTurn;
  $("resign").disabled = !myTurn;
  $("score").disabled = state.over || page.pending;
  $("sgf-download").href = `/api/record/${encodeURIComponent(state.id)}`;
}

// The new-game form follows the present game until the user changes it.
function syncForm(state) {
  for (const input of document.querySelectorAll('input[name="size"]')) {
    input.checked = Number(input.value) === state.size;
  }
  const select = $("rules");
  if (select.options.length !== state.presets.length) {
    select.replaceChildren(...state.presets.map((p) => new Option(
      `${RULES[p.name] ?? p.name} (${p.scoring}, komi ${points(p.komi)})`, p.name,
    )));
  }
  if (state.rules.name in RULES && state.rules.name !== "custom") select.value = state.rules.name;
  $("komi").value = String(state.komi);
  komiEdited = false;
  const handicap = $("handicap");
  if ([...handicap.options].some((o) => o.value === String(state.handicap))) {
    handicap.value = String(state.handicap);
  }
}

// What the pointer is on (hover, drag or keyboard cursor).
function showPoint(vertex, what) {
  const note = $("point-note");
  const state = page.state;
  if (!vertex || !what) {
    note.textContent = "";
    delete note.dataset.kind;
    return;
  }
  if (what === "legal") {
    const worth = board.candidateWords(vertex);
    note.textContent = `${vertex}: ${SIDES[state.turn]} can play here${worth ? ` · ${worth}` : ""}`;
    note.dataset.kind = "legal";
  } else if (what === "stone") {
    const dead = state.counting && state.counting.dead.includes(vertex);
    note.textContent = `${vertex}: tap to mark this group ${dead ? "alive" : "dead"}`;
    note.dataset.kind = "legal";
  } else {
    note.textContent = `${vertex}: ${REASONS[what] ?? what}`;
    note.dataset.kind = "illegal";
  }
}

const board = new GoBoard($("board-svg"), {
  onMove: (vertex) => page.move(vertex),
  onToggle: (vertex) => page.act({ type: "toggle", square: vertex }),
  onPoint: showPoint,
});

const territory = $("analysis-territory");
try {
  territory.checked = localStorage.getItem(TERRITORY_KEY) !== "0";
} catch {
  /* storage disabled: on */
}
board.set({ territory: territory.checked });
territory.addEventListener("change", () => {
  try {
    localStorage.setItem(TERRITORY_KEY, territory.checked ? "1" : "0");
  } catch {
    /* not remembered, still switched */
  }
  board.set({ territory: territory.checked });
});

const page = gamePage("go", {
  board,
  sides: SIDES,
  phase: (state) => (state.counting ? (state.counting.done ? "over" : "counting") : null),
  status(state) {
    const over = `Game over: ${resultText(state.result)}.`;
    if (state.counting) {
      return state.counting.done ? over : "Counting: tap a group to mark it dead or alive, then press Done.";
    }
    return state.over ? over : null;
  },
  prompt: () => "tap a point, or drag to aim and let go.",
  lastMove,
  stats: [
    ["think-playouts", FIGURES.nodes],
    ["think-winrate", (f, player) => (typeof f.score === "number" ? `${f.score}% ${SIDES[player]}` : "–")],
    ["think-nps", FIGURES.nps],
    ["think-time", FIGURES.seconds],
  ],
  moveText: (mv) => `${SIDES[mv.player][0]} ${mv.square}${mv.captured ? ` ×${mv.captured}` : ""}`,
  gameInfo(state) {
    const rules = RULES[state.rules.name] ?? state.rules.name;
    const hc = state.handicap ? `, handicap ${state.handicap}` : "";
    return `${state.size}×${state.size}, ${rules} rules (${state.rules.scoring}`
      + ` scoring), komi ${points(state.komi)}${hc} · ${plural(state.history.length, "move")}`
      + ` · game ${state.id}`;
  },
  gameOver(state) {
    if (!state.over || (state.counting && !state.counting.done)) return null;
    const how = state.resigned ? "" : ` (${state.counting.scoring} scoring)`;
    return [
      `Game over: ${resultText(state.result)}${how}.`,
      state.winner === null ? "draw" : SIDES[state.winner].toLowerCase(),
    ];
  },
  newGame() {
    const msg = {
      size: Number(document.querySelector('input[name="size"]:checked')?.value ?? 9),
      rules: $("rules").value,
    };
    const komi = $("komi").value.trim();
    const handicap = Number($("handicap").value);
    // The server checks both (and says what is wrong). The komi box shows the present
    // game's komi: it carries over between even games, but into or out of a handicap game
    // only when typed in (otherwise: half a point with a handicap, the rules' komi without).
    const evenToEven = handicap === 0 && !page.state?.handicap;
    if (komi !== "" && (komiEdited || evenToEven)) msg.komi = komi;
    if (handicap > 0) msg.handicap = handicap;
    return msg;
  },
  fresh: syncForm,
  loadField: "sgf-text",
  loaded: (state) => {
    $("sgf-file").value = "";
    return `Loaded: ${state.size}×${state.size}, ${plural(state.history.length, "move")}.`;
  },
  render,
});

// ------------------------------------------------------------------ actions

$("rules").addEventListener("change", () => {
  const preset = page.state?.presets.find((p) => p.name === $("rules").value);
  if (preset && !komiEdited) $("komi").value = String(preset.komi);
});
$("komi").addEventListener("input", () => { komiEdited = true; });

$("sgf-file").addEventListener("change", async (ev) => {
  const file = ev.target.files?.[0];
  if (!file) return;
  showLoadError("");
  if (file.size > MAX_SGF * 4) {
    showLoadError(`${file.name} is too large (${formatCount(file.size)} bytes) for an SGF game record`);
    return;
  }
  const text = await file.text();
  if (text.length > MAX_SGF) {
    showLoadError(`${file.name} is too long (${text.length} characters): the limit is ${MAX_SGF}`);
    return;
  }
  $("sgf-text").value = text;
  page.load(text);
});

$("pass").addEventListener("click", () => page.move("pass"));
$("resign").addEventListener("click", () => {
  if (window.confirm(`Resign this game as ${SIDES[page.state.turn]}?`)) page.move("resign");
});
$("score").addEventListener("click", () => page.send({ type: "score" }));
$("done").addEventListener("click", () => page.act({ type: "done" }));

// The Othello page: shows the server's state and turns clicks into protocol messages.
//
// The server is authoritative: this page has no rules of its own. It draws each "state"
// message (discs, legal moves and their flip counts all come from the server) and sends
// requests ("move", "undo", "new", "load", ...) that the server validates.

import { renderBoard } from "./othello-board.js";
import {
  $, STOPPED_BY, fillLevelSelect, formatCount, gameIdStore, gameSocket,
  showLoadError, showMessage,
} from "./page.js";

const ids = gameIdStore("banmen.othello.id");
const HINTS_KEY = "banmen.othello.hints";
const SIDES = { 1: "Black", 2: "White" };

let state = null;
let movePending = false; // a move was sent; ignore further taps until the next state
let loadPending = false; // a "load" was sent; its error belongs next to the paste box

// ------------------------------------------------------------------ helpers

function levelOf(name) {
  return state?.levels.find((lv) => lv.name === name);
}

function isCpu(side) {
  return state.players[String(side)] !== "human";
}

function humanCount() {
  return [1, 2].filter((s) => !isCpu(s)).length;
}

function sideName(side) {
  const who = isCpu(side)
    ? (levelOf(state.players[String(side)])?.label ?? state.players[String(side)])
    : humanCount() === 1 ? "you" : "human";
  return `${SIDES[side]} (${who})`;
}

function plural(n, word) {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

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

// ------------------------------------------------------------------ rendering

function phase() {
  if (state.over) return "over";
  if (state.thinking) return "cpu";
  if (!isCpu(state.turn)) return "human";
  return state.paused ? "paused" : "cpu";
}

function statusText() {
  const side = state.turn;
  if (state.over) return "Game over.";
  if (state.thinking) {
    return `${sideName(side)} is thinking…${state.thinking.stopping ? " (stopping)" : ""}`;
  }
  if (isCpu(side)) {
    return state.paused
      ? `Paused: ${sideName(side)} is to move. Press Resume.`
      : `${sideName(side)} is to move…`;
  }
  const who = humanCount() === 1 ? `Your move (${SIDES[side]})` : `${SIDES[side]} to move`;
  if (state.must_pass) return `${who}: no legal move, so ${SIDES[side]} must pass. Press Pass.`;
  return `${who}: place a disc on a marked square.`;
}

function renderScores() {
  for (const side of [1, 2]) {
    $(`discs-${side}`).textContent = String(state.discs[side - 1]);
    $(`ctl-${side}`).textContent = isCpu(side)
      ? (levelOf(state.players[String(side)])?.label ?? state.players[String(side)])
      : "Human";
    const card = $(`player-${side}`);
    card.classList.toggle("to-move", !state.over && state.turn === side);
    card.classList.toggle("winner", state.over && state.winner === side);
  }
}

function renderPassNote() {
  const note = $("pass-note");
  const last = state.last;
  if (last && last.square === "pass") {
    note.textContent = `${SIDES[last.player]} passes: no legal move. ${SIDES[state.turn]} moves again.`;
    note.hidden = false;
  } else {
    note.hidden = true;
  }
}

function renderGameOver() {
  const box = $("gameover");
  if (!state.over) {
    box.hidden = true;
    return;
  }
  const [b, w] = state.discs;
  const empty = state.empties ? ` (${plural(state.empties, "empty square")})` : "";
  box.textContent = state.winner === null
    ? `Game over: a draw, ${b}–${w}${empty}.`
    : `Game over: ${sideName(state.winner)} wins, ${Math.max(b, w)}–${Math.min(b, w)}${empty}.`;
  box.dataset.winner = state.winner === null ? "draw" : SIDES[state.winner].toLowerCase();
  box.hidden = false;
}

function renderThinking(info) {
  const t = state.thinking;
  const last = state.cpu;
  if (t) {
    $("think-head").textContent = `${sideName(t.player)} is thinking${t.stopping ? " (stopping)" : ""}…`;
  } else if (last) {
    const how = STOPPED_BY[last.stopped_by] ?? last.stopped_by;
    const what = last.move === "pass" ? "passed" : `played ${last.move}`;
    $("think-head").textContent = `Last CPU move: ${SIDES[last.player]} ${what} `
      + `in ${last.seconds.toFixed(2)} s (${how}).`;
  } else {
    $("think-head").textContent = "No CPU move yet.";
  }
  const src = t ? info : last;
  const player = t ? t.player : last?.player;
  $("think-depth").textContent = src ? String(src.depth) : "–";
  $("think-score").textContent = src ? scoreText(player, src.score, src.exact) : "–";
  $("think-nodes").textContent = src ? formatCount(src.nodes) : "–";
  $("think-nps").textContent = src ? formatCount(src.nps) : "–";
  $("think-pv").textContent = src && src.pv.length ? src.pv.join(" ") : "–";
  $("verdict").textContent = !t && last ? last.verdict : "";
  $("verdict").dataset.exact = String(Boolean(!t && last && last.exact));
}

function renderControls() {
  fillLevelSelect($("level-1"), state.levels, state.players["1"]);
  fillLevelSelect($("level-2"), state.levels, state.players["2"]);
  const notes = [1, 2]
    .map((s) => levelOf(state.players[String(s)]))
    .filter((lv, i, all) => lv && lv.spec && lv.note && all.indexOf(lv) === i)
    .map((lv) => `${lv.label}: ${lv.note}.`);
  $("level-note").textContent = notes.join(" ");
  const delay = $("delay");
  if (document.activeElement !== delay) delay.value = String(state.delay_ms);
  $("delay-out").textContent = `${(Number(delay.value) / 1000).toFixed(1)} s`;
  $("pass").disabled = !(phase() === "human" && state.must_pass) || movePending;
  $("pass").classList.toggle("primary", phase() === "human" && state.must_pass);
  $("undo").disabled = !state.can_undo;
  $("stop").disabled = !state.thinking || state.thinking.stopping;
  const anyCpu = isCpu(1) || isCpu(2);
  const pause = $("pause");
  pause.disabled = !anyCpu || state.over;
  pause.textContent = state.paused ? "Resume" : "Pause";
  pause.setAttribute("aria-pressed", String(state.paused));

  const moves = state.history.length;
  $("game-info").textContent = `${plural(moves, "move")}, ${plural(state.empties, "empty square")}`
    + ` · game ${state.id}`;
  $("transcript").textContent = state.transcript || "(no moves yet)";
  $("position").textContent = state.position;
  const startNote = $("start-note");
  startNote.hidden = state.start === null;
  startNote.textContent = state.start === null ? "" : `The transcript starts from the loaded position ${state.start}.`;
  const list = $("moves");
  list.replaceChildren(...state.history.map((mv) => {
    const li = document.createElement("li");
    li.className = `p${mv.player}`;
    li.textContent = mv.square === "pass"
      ? `${SIDES[mv.player][0]} pass`
      : `${SIDES[mv.player][0]} ${mv.square} (${mv.flips})`;
    return li;
  }));
}

function renderBoardNow() {
  const p = phase();
  const board = $("board");
  board.dataset.phase = movePending ? "sending" : p;
  board.dataset.ply = String(state.history.length);
  board.dataset.hints = String(hintsOn());
  renderBoard($("board-svg"), state, {
    interactive: p === "human" && !movePending,
    hints: hintsOn(),
    onPlay: play,
  });
}

function render() {
  renderBoardNow();
  $("status").textContent = statusText();
  renderPassNote();
  renderScores();
  renderGameOver();
  renderThinking(state.info);
  renderControls();
}

// ------------------------------------------------------------------ actions

function play(square) {
  if (movePending) return;
  if (sock.send({ type: "move", square })) {
    movePending = true;
    $("board").dataset.phase = "sending";
    $("pass").disabled = true;
  }
}

function onMessage(msg) {
  switch (msg.type) {
    case "state": {
      const newGame = msg.id !== state?.id;
      state = msg;
      movePending = false;
      if (loadPending && newGame) {
        loadPending = false;
        $("load-text").value = "";
        showLoadError("");
        showMessage(`Loaded: ${plural(msg.history.length, "move")}, ${SIDES[msg.turn]} to move.`, "notice");
      }
      ids.remember(state.id);
      render();
      break;
    }
    case "info":
      if (state?.thinking) {
        state.info = msg;
        renderThinking(msg);
      }
      break;
    case "progress":
      if (state?.thinking) {
        $("think-nodes").textContent = formatCount(msg.nodes);
        $("think-nps").textContent = formatCount(msg.nps);
      }
      break;
    case "error":
      movePending = false;
      if (loadPending) {
        loadPending = false;
        showLoadError(msg.message);
      }
      if (state) render();
      showMessage(msg.message, "error");
      break;
    case "notice":
      showMessage(msg.message, "notice");
      break;
    default:
      break;
  }
}

const sock = gameSocket("/ws/othello", ids, () => state?.id, onMessage);

async function copyText(text, button) {
  let ok = false;
  try {
    await navigator.clipboard.writeText(text);
    ok = true;
  } catch {
    // No clipboard API (plain http on another host, old browser): select and copy.
    const area = document.createElement("textarea");
    area.value = text;
    area.setAttribute("readonly", "");
    area.className = "offscreen";
    document.body.append(area);
    area.select();
    try {
      ok = document.execCommand("copy");
    } catch {
      ok = false;
    }
    area.remove();
  }
  const label = button.textContent;
  button.textContent = ok ? "Copied" : "Copy failed: select the text";
  setTimeout(() => { button.textContent = label; }, 1500);
}

$("new-game").addEventListener("submit", (ev) => {
  ev.preventDefault();
  sock.send({ type: "new", players: { 1: $("level-1").value, 2: $("level-2").value } });
});

$("load").addEventListener("submit", (ev) => {
  ev.preventDefault();
  showLoadError("");
  if (sock.send({ type: "load", text: $("load-text").value })) loadPending = true;
});

for (const side of [1, 2]) {
  $(`level-${side}`).addEventListener("change", (ev) => {
    sock.send({ type: "settings", players: { [side]: ev.target.value } });
  });
}

$("delay").addEventListener("input", (ev) => {
  $("delay-out").textContent = `${(Number(ev.target.value) / 1000).toFixed(1)} s`;
});
$("delay").addEventListener("change", (ev) => {
  sock.send({ type: "settings", delay_ms: Number(ev.target.value) });
});

$("pass").addEventListener("click", () => play("pass"));
$("undo").addEventListener("click", () => sock.send({ type: "undo" }));
$("stop").addEventListener("click", () => sock.send({ type: "stop" }));
$("pause").addEventListener("click", () => {
  if (state) sock.send({ type: "settings", paused: !state.paused });
});

try {
  $("hints").checked = localStorage.getItem(HINTS_KEY) === "1";
} catch {
  /* storage disabled: hints start off */
}
$("hints").addEventListener("change", () => {
  try {
    localStorage.setItem(HINTS_KEY, hintsOn() ? "1" : "0");
  } catch {
    /* not remembered, still shown */
  }
  if (state) renderBoardNow();
});

$("copy-transcript").addEventListener("click", (ev) => {
  if (state) copyText(state.transcript, ev.currentTarget);
});
$("copy-position").addEventListener("click", (ev) => {
  if (state) copyText(state.position, ev.currentTarget);
});

window.addEventListener("hashchange", () => {
  const id = ids.wanted();
  if (id && id !== state?.id) sock.send({ type: "join", id });
});

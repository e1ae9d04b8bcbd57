// The Mattix page: shows the server's state and turns clicks into protocol messages.
//
// The server is authoritative. This page keeps no game logic of its own: it draws each
// "state" message as it comes, and sends requests ("move", "undo", "new", ...) that the
// server validates. The game id lives in the address (#id) and in localStorage, so a
// reload — or a second tab — finds the same game.

import { renderBoard } from "./board.js";
import {
  $, STOPPED_BY, fillLevelSelect, formatCount, gameIdStore, gameSocket,
  showMessage,
} from "./page.js";

const ids = gameIdStore("banmen.mattix.id");

let state = null;
let movePending = false; // a move was sent; ignore further taps until the next state

// ------------------------------------------------------------------ helpers

function levelLabel(name) {
  const level = state?.levels.find((lv) => lv.name === name);
  return level ? level.label : name;
}

function isCpu(side) {
  return state.players[String(side)] !== "human";
}

function humanCount() {
  return [1, 2].filter((s) => !isCpu(s)).length;
}

function playerName(side) {
  const who = isCpu(side) ? levelLabel(state.players[String(side)]) : humanCount() === 1 ? "you" : "human";
  return `Player ${side} (${who})`;
}

// "+3 for player 2" from a score seen by `player` (positive: good for that player).
function marginText(player, score) {
  if (score === 0) return "0 (even)";
  return `+${Math.abs(score)} for player ${score > 0 ? player : 3 - player}`;
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
  const line = side === 1 ? "row" : "column";
  if (state.over) return "Game over.";
  if (state.thinking) {
    return `${playerName(side)} is thinking…${state.thinking.stopping ? " (stopping)" : ""}`;
  }
  if (isCpu(side)) {
    return state.paused
      ? `Paused: ${playerName(side)} is to move. Press Resume.`
      : `${playerName(side)} is to move…`;
  }
  const who = humanCount() === 1 ? "Your move" : `Player ${side} to move`;
  return `${who}: take a highlighted piece from the chip's ${line}.`;
}

function renderScores() {
  const taken = { 1: [], 2: [] };
  for (const mv of state.history) taken[mv.player].push(mv.value);
  for (const side of [1, 2]) {
    $(`score-${side}`).textContent = String(state.scores[side - 1]);
    $(`ctl-${side}`).textContent = isCpu(side) ? levelLabel(state.players[String(side)]) : "Human";
    const card = $(`player-${side}`);
    card.classList.toggle("to-move", !state.over && state.turn === side);
    card.classList.toggle("winner", state.over && state.winner === side);
    const box = $(`taken-${side}`);
    box.replaceChildren(...taken[side].map((v) => {
      const chip = document.createElement("span");
      chip.className = v < 0 ? "mini negative" : "mini";
      chip.textContent = String(v);
      return chip;
    }));
  }
}

function renderGameOver() {
  const box = $("gameover");
  if (!state.over) {
    box.hidden = true;
    return;
  }
  const [a, b] = state.scores;
  box.textContent = state.winner === null
    ? `Game over: a draw, ${a} to ${b}.`
    : `Game over: ${playerName(state.winner)} wins, ${Math.max(a, b)} to ${Math.min(a, b)}.`;
  box.dataset.winner = state.winner === null ? "draw" : String(state.winner);
  box.hidden = false;
}

function renderThinking(info) {
  const t = state.thinking;
  const last = state.cpu;
  if (t) {
    $("think-head").textContent = `${playerName(t.player)} is thinking${t.stopping ? " (stopping)" : ""}…`;
  } else if (last) {
    $("think-head").textContent = `Last CPU move: player ${last.player} took ${last.move} `
      + `in ${last.seconds.toFixed(2)} s (${STOPPED_BY[last.stopped_by] ?? last.stopped_by}).`;
  } else {
    $("think-head").textContent = "No CPU move yet.";
  }
  const src = t ? info : last;
  const player = t ? t.player : last?.player;
  $("think-depth").textContent = src ? String(src.depth) : "–";
  $("think-score").textContent = src && src.score !== null && src.score !== undefined
    ? marginText(player, src.score) : "–";
  $("think-nodes").textContent = src ? formatCount(src.nodes) : "–";
  $("think-nps").textContent = src ? formatCount(src.nps) : "–";
  $("think-pv").textContent = src && src.pv.length ? src.pv.join(" ") : "–";
  $("verdict").textContent = !t && last ? last.verdict : "";
  $("verdict").dataset.exact = String(Boolean(!t && last && last.exact));
}

function renderControls() {
  fillLevelSelect($("level-1"), state.levels, state.players["1"]);
  fillLevelSelect($("level-2"), state.levels, state.players["2"]);
  const delay = $("delay");
  if (document.activeElement !== delay) delay.value = String(state.delay_ms);
  $("delay-out").textContent = `${(Number(delay.value) / 1000).toFixed(1)} s`;
  $("undo").disabled = !state.can_undo;
  $("stop").disabled = !state.thinking || state.thinking.stopping;
  const anyCpu = isCpu(1) || isCpu(2);
  const pause = $("pause");
  pause.disabled = !anyCpu || state.over;
  pause.textContent = state.paused ? "Resume" : "Pause";
  pause.setAttribute("aria-pressed", String(state.paused));
  $("game-info").textContent = `${state.size}×${state.size}, seed ${state.seed ?? "–"}, `
    + `move ${state.history.length} · game ${state.id}`;
  $("same-deal").disabled = state.seed === null;
  const moves = $("moves");
  moves.replaceChildren(...state.history.map((mv) => {
    const li = document.createElement("li");
    li.className = `p${mv.player}`;
    li.textContent = `P${mv.player} ${mv.square} (${mv.value > 0 ? "+" : ""}${mv.value})`;
    return li;
  }));
}

function render() {
  const board = $("board");
  const p = phase();
  board.dataset.phase = p;
  board.dataset.ply = String(state.history.length);
  board.dataset.size = String(state.size);
  renderBoard($("board-svg"), state, { interactive: p === "human" && !movePending, onTake: takePiece });
  $("status").textContent = statusText();
  renderScores();
  renderGameOver();
  renderThinking(state.info);
  renderControls();
}

// ------------------------------------------------------------------ actions

function takePiece(square) {
  if (movePending) return;
  if (sock.send({ type: "move", square })) {
    movePending = true;
    $("board").dataset.phase = "sending";
  }
}

function onMessage(msg) {
  switch (msg.type) {
    case "state":
      if (msg.id !== state?.id) {
        // A different game: show its board size in the new-game form.
        for (const radio of document.querySelectorAll('input[name="size"]')) {
          radio.checked = Number(radio.value) === msg.size;
        }
      }
      state = msg;
      movePending = false;
      ids.remember(state.id);
      render();
      break;
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

const sock = gameSocket("/ws/mattix", ids, () => state?.id, onMessage);

$("new-game").addEventListener("submit", (ev) => {
  ev.preventDefault();
  const form = ev.currentTarget;
  const seed = $("seed").value.trim();
  sock.send({
    type: "new",
    size: Number(form.elements.size.value),
    seed: seed === "" ? null : seed,
    players: { 1: $("level-1").value, 2: $("level-2").value },
  });
});

$("same-deal").addEventListener("click", () => {
  if (!state || state.seed === null) return;
  $("seed").value = state.seed;
  for (const radio of document.querySelectorAll('input[name="size"]')) {
    radio.checked = Number(radio.value) === state.size;
  }
  sock.send({ type: "new", size: state.size, seed: state.seed });
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

$("undo").addEventListener("click", () => sock.send({ type: "undo" }));
$("stop").addEventListener("click", () => sock.send({ type: "stop" }));
$("pause").addEventListener("click", () => {
  if (state) sock.send({ type: "settings", paused: !state.paused });
});

window.addEventListener("hashchange", () => {
  const id = ids.wanted();
  if (id && id !== state?.id) sock.send({ type: "join", id });
});

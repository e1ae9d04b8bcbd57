// The Go page: shows the server's state and turns taps, clicks and buttons into protocol
// messages.
//
// The server is authoritative: this page has no rules of its own. Legal points, the reason
// each illegal point is illegal, captures, the dead stones and the count all come in the
// "state" message; a move the page sends anyway is refused by the server with its reason.

import { GoBoard } from "./go-board.js";
import {
  $, STOPPED_BY, fillLevelSelect, formatCount, gameIdStore, gameSocket,
  showLoadError, showMessage,
} from "./page.js";

const ids = gameIdStore("banmen.go.id");
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

let state = null;
let pending = false; // a move or toggle was sent; further taps wait for the answer
let loadPending = false; // a "load" was sent; its error belongs next to the SGF box
let komiEdited = false; // the komi box was typed in: a change of rules keeps it

const board = new GoBoard($("board-svg"), { onPlay: play, onToggle: toggle, onPoint: showPoint });

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

function levelLabel(side) {
  return levelOf(state.players[String(side)])?.label ?? state.players[String(side)];
}

function sideName(side) {
  const who = isCpu(side) ? levelLabel(side) : humanCount() === 1 ? "you" : "human";
  return `${SIDES[side]} (${who})`;
}

function plural(n, word) {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

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

// ------------------------------------------------------------------ rendering

function phase() {
  if (state.counting) return state.counting.done ? "over" : "counting";
  if (state.over) return "over";
  if (state.thinking) return "cpu";
  if (!isCpu(state.turn)) return "human";
  return state.paused ? "paused" : "cpu";
}

function statusText() {
  const side = state.turn;
  const c = state.counting;
  if (c) {
    return c.done
      ? `Game over: ${resultText(state.result)}.`
      : "Counting: tap a group to mark it dead or alive, then press Done.";
  }
  if (state.over) return `Game over: ${resultText(state.result)}.`;
  if (state.thinking) {
    return `${sideName(side)} is thinking…${state.thinking.stopping ? " (stopping)" : ""}`;
  }
  if (isCpu(side)) {
    return state.paused
      ? `Paused: ${sideName(side)} is to move. Press Resume.`
      : `${sideName(side)} is to move…`;
  }
  const who = humanCount() === 1 ? `Your move (${SIDES[side]})` : `${SIDES[side]} to move`;
  return `${who}: tap a point, or drag to aim and let go.`;
}

function renderPlayers() {
  for (const side of [1, 2]) {
    $(`ctl-${side}`).textContent = isCpu(side) ? levelLabel(side) : "Human";
    $(`prisoners-${side}`).textContent = String(state.prisoners[side - 1]);
    const card = $(`player-${side}`);
    card.classList.toggle("to-move", !state.over && state.turn === side);
    card.classList.toggle("winner", state.over && state.winner === side);
    const c = state.counting;
    const pts = $(`points-${side}`);
    if (c) {
      const stones = c.scoring === "area" ? `${c.stones[side - 1]} stones + ` : "";
      const caps = c.scoring === "territory" ? ` + ${c.prisoners[side - 1]} prisoners` : "";
      const komi = side === 2 && c.komi ? ` + ${points(c.komi)} komi` : "";
      const bonus = side === 2 && c.handicap_bonus ? ` + ${c.handicap_bonus} handicap` : "";
      pts.textContent = `${stones}${c.territory[String(side)].length} territory${caps}${komi}${bonus}`
        + ` = ${points(c.points[side - 1])}`;
      pts.hidden = false;
    } else {
      pts.hidden = true;
    }
  }
  $("komi-note").textContent = `komi ${points(state.komi)}`;
}

function renderNotes() {
  const note = $("pass-note");
  const last = state.last;
  if (!state.over && last && last.square === "pass") {
    note.textContent = `${SIDES[last.player]} passed. A second pass in a row ends the game.`;
    note.hidden = false;
  } else {
    note.hidden = true;
  }
  const box = $("gameover");
  if (state.over && (!state.counting || state.counting.done)) {
    const how = state.resigned ? "" : ` (${state.counting.scoring} scoring)`;
    box.textContent = `Game over: ${resultText(state.result)}${how}.`;
    box.dataset.winner = state.winner === null ? "draw" : SIDES[state.winner].toLowerCase();
    box.hidden = false;
  } else {
    box.hidden = true;
  }
}

function renderCounting() {
  const panel = $("count-panel");
  const c = state.counting;
  if (!c) {
    panel.hidden = true;
    return;
  }
  panel.hidden = false;
  const how = c.scoring === "area"
    ? "Area scoring: stones on the board plus surrounded points."
    : "Territory scoring: surrounded points plus prisoners (dead stones count as prisoners).";
  $("count-result").textContent = `${c.done ? "Result" : "If accepted now"}: ${resultText(c.result)}`
    + ` (${points(c.points[0])} – ${points(c.points[1])}).`;
  $("count-how").textContent = `${how} ${plural(c.dead.length, "stone")} marked dead.`;
  $("done").disabled = c.done || pending;
  $("done").hidden = c.done;
}

function renderThinking(info) {
  const t = state.thinking;
  const last = state.cpu;
  if (t) {
    $("think-head").textContent = `${sideName(t.player)} is thinking${t.stopping ? " (stopping)" : ""}…`;
  } else if (last) {
    const how = STOPPED_BY[last.stopped_by] ?? last.stopped_by;
    const what = last.move === "pass" ? "passed" : last.move === "resign" ? "resigned" : `played ${last.move}`;
    $("think-head").textContent = `Last CPU move: ${SIDES[last.player]} ${what} `
      + `in ${last.seconds.toFixed(2)} s (${how}).`;
  } else {
    $("think-head").textContent = "No CPU move yet.";
  }
  const src = t ? info : last;
  const player = t ? t.player : last?.player;
  const rate = src && src.score !== null && src.score !== undefined;
  $("think-playouts").textContent = src ? formatCount(src.nodes) : "–";
  $("think-winrate").textContent = rate ? `${src.score}% ${SIDES[player]}` : "–";
  $("think-nps").textContent = src ? formatCount(src.nps) : "–";
  $("think-time").textContent = src ? `${src.seconds.toFixed(1)} s` : "–";
  $("think-pv").textContent = src && src.pv && src.pv.length ? src.pv.join(" ") : "–";
  $("verdict").textContent = !t && last ? last.verdict : "";
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

  const p = phase();
  const myTurn = p === "human" && !pending;
  $("pass").disabled = !myTurn;
  $("resign").disabled = !myTurn;
  $("score").disabled = state.over || pending;
  $("undo").disabled = !state.can_undo;
  $("stop").disabled = !state.thinking || state.thinking.stopping;
  const anyCpu = isCpu(1) || isCpu(2);
  const pause = $("pause");
  pause.disabled = !anyCpu || state.over;
  pause.textContent = state.paused ? "Resume" : "Pause";
  pause.setAttribute("aria-pressed", String(state.paused));

  const rules = RULES[state.rules.name] ?? state.rules.name;
  const hc = state.handicap ? `, handicap ${state.handicap}` : "";
  $("game-info").textContent = `${state.size}×${state.size}, ${rules} rules (${state.rules.scoring}`
    + ` scoring), komi ${points(state.komi)}${hc} · ${plural(state.history.length, "move")}`
    + ` · game ${state.id}`;
  $("sgf-download").href = `/api/sgf/${encodeURIComponent(state.id)}`;
  const list = $("moves");
  list.replaceChildren(...state.history.map((mv) => {
    const li = document.createElement("li");
    li.className = `p${mv.player}`;
    li.textContent = `${SIDES[mv.player][0]} ${mv.square}${mv.captured ? ` ×${mv.captured}` : ""}`;
    return li;
  }));
  list.scrollTop = list.scrollHeight;
}

// The new-game form follows the present game until the user changes it.
function syncForm(fresh) {
  if (!fresh) return;
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
}

function renderBoardNow() {
  const p = phase();
  const el = $("board");
  el.dataset.phase = pending ? "sending" : p;
  el.dataset.ply = String(state.history.length);
  const mode = pending ? "view" : p === "human" ? "play" : p === "counting" ? "count" : "view";
  board.render(state, mode);
}

function render(fresh) {
  renderBoardNow();
  $("status").textContent = statusText();
  renderPlayers();
  renderNotes();
  renderCounting();
  renderThinking(state.info);
  renderControls();
  syncForm(fresh);
}

// What the pointer is on (hover, drag or keyboard cursor).
function showPoint(vertex, what) {
  const note = $("point-note");
  if (!vertex || !what) {
    note.textContent = "";
    delete note.dataset.kind;
    return;
  }
  if (what === "legal") {
    note.textContent = `${vertex}: ${SIDES[state.turn]} can play here`;
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

// ------------------------------------------------------------------ actions

function send(msg) {
  if (pending) return false;
  if (!sock.send(msg)) return false;
  pending = true;
  renderBoardNow();
  $("pass").disabled = true;
  $("resign").disabled = true;
  return true;
}

function play(vertex) {
  send({ type: "move", square: vertex });
}

function toggle(vertex) {
  send({ type: "toggle", square: vertex });
}

function onMessage(msg) {
  switch (msg.type) {
    case "state": {
      const fresh = msg.id !== state?.id;
      state = msg;
      pending = false;
      if (loadPending && fresh) {
        loadPending = false;
        $("sgf-text").value = "";
        $("sgf-file").value = "";
        showLoadError("");
        showMessage(`Loaded: ${state.size}×${state.size}, ${plural(msg.history.length, "move")}.`, "notice");
      }
      ids.remember(state.id);
      render(fresh);
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
        $("think-playouts").textContent = formatCount(msg.nodes);
        $("think-nps").textContent = formatCount(msg.nps);
        $("think-time").textContent = `${msg.seconds.toFixed(1)} s`;
      }
      break;
    case "error":
      pending = false;
      if (loadPending) {
        loadPending = false;
        showLoadError(msg.message);
      }
      if (state) render(false);
      showMessage(msg.message, "error");
      break;
    case "notice":
      showMessage(msg.message, "notice");
      break;
    default:
      break;
  }
}

const sock = gameSocket("/ws/go", ids, () => state?.id, onMessage);

$("new-game").addEventListener("submit", (ev) => {
  ev.preventDefault();
  const size = Number(document.querySelector('input[name="size"]:checked')?.value ?? 9);
  const msg = {
    type: "new",
    size,
    rules: $("rules").value,
    players: { 1: $("level-1").value, 2: $("level-2").value },
  };
  const komi = $("komi").value.trim();
  if (komi !== "") msg.komi = komi; // the server checks it (and says what is wrong)
  sock.send(msg);
});

$("rules").addEventListener("change", () => {
  const preset = state?.presets.find((p) => p.name === $("rules").value);
  if (preset && !komiEdited) $("komi").value = String(preset.komi);
});
$("komi").addEventListener("input", () => { komiEdited = true; });

$("load").addEventListener("submit", (ev) => {
  ev.preventDefault();
  showLoadError("");
  if (sock.send({ type: "load", text: $("sgf-text").value })) loadPending = true;
});

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
  if (sock.send({ type: "load", text })) loadPending = true;
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
$("resign").addEventListener("click", () => {
  if (window.confirm(`Resign this game as ${SIDES[state.turn]}?`)) play("resign");
});
$("score").addEventListener("click", () => sock.send({ type: "score" }));
$("done").addEventListener("click", () => send({ type: "done" }));
$("undo").addEventListener("click", () => sock.send({ type: "undo" }));
$("stop").addEventListener("click", () => sock.send({ type: "stop" }));
$("pause").addEventListener("click", () => {
  if (state) sock.send({ type: "settings", paused: !state.paused });
});

window.addEventListener("hashchange", () => {
  const id = ids.wanted();
  if (id && id !== state?.id) sock.send({ type: "join", id });
});

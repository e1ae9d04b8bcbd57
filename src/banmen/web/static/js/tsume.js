// The tsume-shogi page: a position editor, solves on the server, the answer step by step.
//
// The page keeps the position being edited (shogi-position.js; the board widget,
// shogi-board.js, draws it) and mirrors it in the SFEN box and in the address (?sfen=…, so
// a link shares it). The server checks positions (/api/tsume/sfen) and solves them in a
// worker process (/ws/tsume, through page.js's socket like every page): the page sends
// "solve" / "cancel" and shows the "progress" and "result" messages; the positions of a
// solution come from the server too, so the page needs no shogi rules.
//
// The Analysis switch (#analysis, remembered in localStorage) asks the server for what is
// proved after each check of the attacker in the position being edited: once the server
// has checked a position (the same check as the position note's), the page sends
// {"type": "analysis", "on": true, "sfen"} and lists the "analysis" messages' checks under
// the board (tsume-analysis.js) as the proofs land; hovering or tapping a check marks it on
// the board. A change of position clears the list at once and stops the old analysis
// ({"on": false}); messages about any other position than the one asked for are dropped.

import {
  $, copyText, formatCount, pageSocket, plural, showLoadError, showMessage,
} from "./page.js";
import { ShogiBoard } from "./shogi-board.js";
import { analysisLine, decided, renderChecks } from "./tsume-analysis.js";
import {
  HAND_KINDS, LABELS, NAMES, SIDES, changeHand, clearPosition, edit, fillWhiteHand, flipPiece,
  kindOf, makeCode, movePiece, parseSfen, placePiece, promotePiece, removePiece,
  sfenFromSearch, sfenToUrlParam, squareName, toSfen,
} from "./shogi-position.js";

const LONE_KING = "4k4/9/9/9/9/9/9/9/9 b 2r2b4g4s4n4l18p 1";
const PALETTE_ROWS = [["R", "B", "G", "S", "N", "L", "P"], ["K", "+R", "+B", "+S", "+N", "+L", "+P"]];
const PHASES = { proof: "proving a mate", shortest: "shortening it", pv: "reading the line" };

let pos = parseSfen(LONE_KING);
let rest = true; // white holds every piece not in play
let tool = { kind: "piece", code: "P" };
let moveFrom = null; // the "Move" tool's picked square
let mode = "edit"; // "edit" or "replay"
let loaded = false;

let solve = null; // the solve in flight: { sfen, time, started, queued, cancelling, progress }
let solveAsked = false; // a "solve" was sent and not yet answered
let result = null; // the last result message
let resultFor = null; // the SFEN the result box, its KIF and the replay belong to
let step = 0; // replay: moves made from the problem position
let checkSeq = 0;
let ticker = 0;

const ANALYSIS_KEY = "banmen.tsume.analysis";
let checked = null; // the position being edited as the server checked it (null: not yet, or bad)
let checkError = null; // why the position being edited is not a problem (null: it is, or unknown)
let analysisFor = null; // the SFEN whose analysis was asked for on this connection
let analysis = null; // the latest "analysis" message about it
let hint = null; // the check under the pointer or the keyboard focus (USI)
let pinned = null; // the check tapped (USI): marked until tapped again or the position changes

const shogi = new ShogiBoard($("board-svg"), { hands: { b: $("hand-b"), w: $("hand-w") }, onSquare });

// ------------------------------------------------------------------ helpers

function currentSfen() {
  return toSfen(pos);
}

function toolLabel() {
  if (tool.kind === "piece") {
    const side = tool.code[tool.code.length - 1] === tool.code[tool.code.length - 1].toUpperCase() ? "▲" : "△";
    const key = (tool.code[0] === "+" ? "+" : "") + kindOf(tool.code);
    return `${side} ${LABELS[key]} (${NAMES[key]})`;
  }
  return { move: "Move", promote: "Promote", flip: "Flip side", remove: "Remove" }[tool.kind];
}

async function fetchCheck(text) {
  const r = await fetch(`/api/tsume/sfen?sfen=${encodeURIComponent(text)}`, { cache: "no-store" });
  const body = await r.json();
  if (!r.ok || !body.ok) throw new Error(body.error || `HTTP ${r.status}`);
  return body;
}

// A proof or disproof number: the solver writes infinity as "inf".
function proofNumber(v) {
  if (v === undefined || v === null) return "–";
  if (v === "inf" || v === Infinity) return "∞";
  return typeof v === "number" ? formatCount(v) : String(v);
}

function busy() {
  return solve !== null || solveAsked;
}

// ------------------------------------------------------------------ rendering

function replaySteps() {
  return result?.steps ?? [];
}

function shownPosition() {
  if (mode !== "replay" || !result) return { shown: pos, last: null };
  const steps = replaySteps();
  const sfen = step === 0 ? result.sfen : steps[step - 1].sfen;
  return { shown: parseSfen(sfen), last: step === 0 ? null : steps[step - 1].usi };
}

function renderBoardArea() {
  const { shown, last } = shownPosition();
  const board = $("board");
  board.dataset.mode = mode;
  board.dataset.phase = !loaded ? "loading" : busy() ? "solving" : mode;
  board.dataset.step = String(mode === "replay" ? step : 0);
  board.dataset.sfen = toSfen(shown);
  const editable = loaded && mode === "edit" && !busy();
  // a check of the analysis is marked on the problem itself, never on a later position
  const problemShown = mode !== "replay" || step === 0;
  shogi.set({
    state: shown,
    mode: editable ? "edit" : "view",
    last,
    selected: editable && tool.kind === "move" ? moveFrom : null,
    hint: analysisOn() && problemShown ? hint ?? pinned : null,
  });
}

// ------------------------------------------------------------------ analysis

const analysisSwitch = $("analysis");
try {
  analysisSwitch.checked = localStorage.getItem(ANALYSIS_KEY) === "1";
} catch {
  /* storage disabled: analysis starts off */
}

function analysisOn() {
  return analysisSwitch.checked;
}

// Why nothing can be analysed now (null: something can).
function analysisBlocked() {
  if (!loaded) return "waiting for the position…";
  if (checkError !== null) return "not a mate problem (see the note under the position).";
  if (!sock.open) return "not connected to the server.";
  return null;
}

function renderAnalysis() {
  const on = analysisOn();
  const bar = $("analysis-bar");
  bar.dataset.on = String(on);
  const line = $("analysis-status");
  const blocked = analysisBlocked();
  const data = on && !blocked ? analysis?.data ?? null : null;
  line.hidden = !on;
  line.textContent = on ? analysisLine(analysis, blocked) : "";
  line.dataset.status = !on ? "off" : blocked ? "blocked" : analysis?.status ?? "starting";
  const rows = data?.moves ?? [];
  line.dataset.total = String(rows.length);
  line.dataset.decided = String(rows.filter(decided).length);
  const live = analysis?.status === "running" || analysis?.status === "waiting";
  renderChecks($("checks"), data, { live, pinned });
}

// Ask for the analysis of `sfen` (checked) if the switch is on and it was not asked for.
function requestAnalysis(sfen) {
  if (!analysisOn() || sfen === null || !sock.open) return;
  if (analysisFor !== null && samePosition(analysisFor, sfen)) return;
  if (sock.send({ type: "analysis", on: true, sfen })) {
    analysisFor = sfen;
    analysis = null;
  }
}

// Drop what is shown (and the marks) and stop the analysis asked for.
function forgetAnalysis() {
  if (analysisFor !== null) sock.send({ type: "analysis", on: false });
  analysisFor = null;
  analysis = null;
  hint = null;
  pinned = null;
}

function onAnalysis(msg) {
  // Switched off meanwhile, or about another position: stale.
  if (!analysisOn() || !msg.on || analysisFor === null || !msg.sfen) return;
  if (!samePosition(msg.sfen, analysisFor)) return;
  analysis = msg;
}

function setHint(usi) {
  if (hint === usi) return;
  hint = usi;
  renderBoardArea();
}

function renderStatus() {
  const status = $("status");
  if (!loaded) {
    status.textContent = "Loading the position…";
  } else if (solve) {
    status.textContent = solve.queued
      ? "Waiting for a free solver…"
      : solve.cancelling ? "Stopping the solver…" : "Solving…";
  } else if (mode === "replay") {
    const steps = replaySteps();
    status.textContent = step === 0
      ? `The problem: ${SIDES[parseSfen(result.sfen).turn]} to move. ${plural(steps.length, "move")} to mate.`
      : `Move ${step} of ${steps.length}: ${steps[step - 1].kif}${step === steps.length ? " — mate." : ""}`;
  } else {
    status.textContent = `Editing: ${SIDES[pos.turn]} to move and mate. Tool: ${toolLabel()}.`;
  }
}

function renderReplay() {
  const steps = replaySteps();
  const on = mode === "replay";
  $("replay").hidden = !on;
  $("editor").hidden = on;
  $("first").disabled = !on || step === 0;
  $("back").disabled = !on || step === 0;
  $("forward").disabled = !on || step >= steps.length;
  $("last").disabled = !on || step >= steps.length;
  $("step-label").textContent = on ? `Move ${step} / ${steps.length}` : "–";
  $("edit").disabled = busy();
  for (const li of $("kif").children) {
    li.classList.toggle("current", on && Number(li.dataset.step) === step);
  }
  // keep the current move in view inside the list (not scrolling the page itself)
  const list = $("kif");
  const current = list.querySelector("li.current");
  if (current) {
    const outer = list.getBoundingClientRect();
    const inner = current.getBoundingClientRect();
    if (inner.top < outer.top) list.scrollTop -= outer.top - inner.top;
    else if (inner.bottom > outer.bottom) list.scrollTop += inner.bottom - outer.bottom;
  }
  $("show-solution").hidden = on || steps.length === 0;
}

function renderTools() {
  for (const b of $("tools").querySelectorAll("button")) {
    b.setAttribute("aria-pressed", String(tool.kind === b.dataset.tool));
  }
  for (const b of $("palette").querySelectorAll("button")) {
    b.setAttribute("aria-pressed", String(tool.kind === "piece" && tool.code === b.dataset.piece));
  }
  const note = tool.kind === "move"
    ? moveFrom === null ? "Move: tap the piece to move." : `Move: tap where the piece on ${squareName(moveFrom)} goes.`
    : tool.kind === "piece" ? `Tap squares to put ${toolLabel()} there.` : `${toolLabel()}: tap a piece.`;
  $("tool-note").textContent = note;
  const locked = busy();
  for (const b of document.querySelectorAll("#editor button, #hand-edit button, #lone-king, #clear, #examples, #turn-b, #turn-w, #rest-white, #load-button")) {
    b.disabled = locked || (b.dataset.side === "w" && rest);
  }
}

function renderHandEditor() {
  const body = $("hand-edit").tBodies[0];
  if (body.rows.length === 0) {
    for (const k of HAND_KINDS) {
      const tr = body.insertRow();
      const th = document.createElement("th");
      th.scope = "row";
      th.textContent = `${LABELS[k]} ${NAMES[k]}`;
      tr.append(th);
      for (const side of ["b", "w"]) {
        const td = tr.insertCell();
        td.className = "hand-cell";
        const minus = document.createElement("button");
        minus.type = "button";
        minus.textContent = "−";
        minus.setAttribute("aria-label", `one ${NAMES[k]} less in ${side === "b" ? "black" : "white"}'s hand`);
        Object.assign(minus.dataset, { side, kind: k, delta: "-1" });
        const out = document.createElement("output");
        out.id = `hand-${side}-${k}`;
        const plus = document.createElement("button");
        plus.type = "button";
        plus.textContent = "+";
        plus.setAttribute("aria-label", `one ${NAMES[k]} more in ${side === "b" ? "black" : "white"}'s hand`);
        Object.assign(plus.dataset, { side, kind: k, delta: "1" });
        td.append(minus, out, plus);
      }
    }
  }
  for (const k of HAND_KINDS) {
    for (const side of ["b", "w"]) $(`hand-${side}-${k}`).textContent = String(pos.hands[side][k]);
  }
}

function renderSolve() {
  $("solve").disabled = !loaded || busy() || !sock.open;
  $("cancel").disabled = !solve || solve.cancelling;
  $("time").disabled = busy();
  const p = solve?.progress;
  if (solve) {
    const elapsed = p?.seconds ?? (solve.started ? (performance.now() - solve.started) / 1000 : 0);
    $("p-time").textContent = `${elapsed.toFixed(1)} s`;
    $("p-nodes").textContent = p ? formatCount(p.nodes ?? 0) : "–";
    $("p-nps").textContent = p ? formatCount(p.nps ?? 0) : "–";
    $("p-pn").textContent = proofNumber(p?.pn);
    $("p-dn").textContent = proofNumber(p?.dn);
    $("p-phase").textContent = p?.phase ? (PHASES[p.phase] ?? p.phase) : solve.queued ? "queued" : "starting";
  }
}

function render() {
  renderBoardArea();
  renderAnalysis();
  renderStatus();
  renderReplay();
  renderTools();
  renderHandEditor();
  renderSolve();
  $(pos.turn === "b" ? "turn-b" : "turn-w").checked = true;
  $("rest-white").checked = rest;
}

// ------------------------------------------------------------------ the position

// The result, its KIF, its replay and the solve's figures belong to the position solved:
// once the position is another, they go.
function samePosition(a, b) {
  return a.split(" ").slice(0, 3).join(" ") === b.split(" ").slice(0, 3).join(" ");
}

function clearResult() {
  result = null;
  resultFor = null;
  step = 0;
  $("kif").replaceChildren();
  const box = $("result");
  box.textContent = "";
  box.dataset.status = "none";
  for (const id of ["p-nodes", "p-nps", "p-time", "p-phase", "p-pn", "p-dn"]) $(id).textContent = "–";
}

// After every change to the position: the SFEN box, the address, the old result cleared,
// and a server check.
function positionChanged() {
  const sfen = currentSfen();
  if (resultFor !== null && !samePosition(resultFor, sfen)) clearResult();
  if (checked === null || !samePosition(checked, sfen)) {
    // another position: the old one's analysis goes now, the new one's after the check
    checked = null;
    checkError = null;
    if (analysisFor !== null && !samePosition(analysisFor, sfen)) forgetAnalysis();
  }
  $("sfen").value = sfen;
  const url = `${location.pathname}?sfen=${sfenToUrlParam(sfen)}`;
  if (location.pathname + location.search !== url) history.replaceState(null, "", url);
  render();
  checkPosition(sfen);
}

let checkTimer = 0;

function checkPosition(sfen) {
  clearTimeout(checkTimer);
  const seq = ++checkSeq;
  checkTimer = setTimeout(async () => {
    const note = $("position-note");
    try {
      const body = await fetchCheck(sfen);
      if (seq !== checkSeq) return;
      note.dataset.ok = body.notes.length ? "warn" : "true";
      note.textContent = body.notes.length ? `Note: ${body.notes.join("; ")}.` : "Position OK.";
      checked = body.sfen;
      checkError = null;
      requestAnalysis(checked);
    } catch (e) {
      if (seq !== checkSeq) return;
      note.dataset.ok = "false";
      note.textContent = `Not a valid position: ${e.message}`;
      checked = null;
      checkError = e.message;
    }
    renderAnalysis();
  }, 200);
}

// Load a checked SFEN (the server's canonical form) into the editor.
function loadPosition(sfen) {
  pos = parseSfen(sfen);
  const copy = parseSfen(sfen);
  fillWhiteHand(copy);
  rest = HAND_KINDS.every((k) => copy.hands.w[k] === pos.hands.w[k]);
  mode = "edit";
  moveFrom = null;
  loaded = true;
  positionChanged();
}

function change(fn) {
  if (!loaded || busy()) return;
  mode = "edit"; // an edit from the side panel while the solution is shown: back to editing
  const before = currentSfen();
  const error = edit(pos, rest, fn);
  if (error) {
    showMessage(error, "error");
    render();
    return;
  }
  if (currentSfen() !== before) positionChanged();
  else render();
}

function onSquare(sq) {
  switch (tool.kind) {
    case "piece":
      change((p) => placePiece(p, sq, tool.code));
      break;
    case "remove":
      change((p) => removePiece(p, sq));
      break;
    case "promote":
      change((p) => promotePiece(p, sq));
      break;
    case "flip":
      change((p) => flipPiece(p, sq));
      break;
    case "move":
      if (moveFrom === null) {
        if (pos.board[sq] !== null) moveFrom = sq;
        render();
      } else {
        const from = moveFrom;
        moveFrom = null;
        change((p) => movePiece(p, from, sq));
      }
      break;
    default:
      break;
  }
}

function buildPalette() {
  const palette = $("palette");
  for (const side of ["b", "w"]) {
    for (const row of PALETTE_ROWS) {
      for (const key of row) {
        const code = makeCode(key.replace("+", ""), side, key[0] === "+");
        const b = document.createElement("button");
        b.type = "button";
        b.className = `palette-piece ${side === "b" ? "black" : "white"}${key[0] === "+" ? " promoted" : ""}`;
        b.dataset.piece = code;
        b.title = `${side === "b" ? "▲ black" : "△ white"} ${NAMES[key]}`;
        b.setAttribute("aria-label", b.title);
        const glyph = document.createElement("span");
        glyph.textContent = LABELS[key];
        b.append(glyph);
        palette.append(b);
      }
    }
  }
  palette.addEventListener("click", (ev) => {
    const b = ev.target.closest("button[data-piece]");
    if (!b) return;
    tool = { kind: "piece", code: b.dataset.piece };
    moveFrom = null;
    render();
  });
  $("tools").addEventListener("click", (ev) => {
    const b = ev.target.closest("button[data-tool]");
    if (!b) return;
    tool = { kind: b.dataset.tool };
    moveFrom = null;
    render();
  });
}

// ------------------------------------------------------------------ solving

function startTicker() {
  clearInterval(ticker);
  ticker = setInterval(() => {
    if (solve && !solve.progress) renderSolve();
  }, 200);
}

function showResult(msg) {
  result = msg;
  const box = $("result");
  box.textContent = msg.summary;
  box.dataset.status = msg.status;
  const list = $("kif");
  list.replaceChildren(...(msg.steps ?? []).map((s, i) => {
    const li = document.createElement("li");
    li.dataset.step = String(i + 1);
    const b = document.createElement("button");
    b.type = "button";
    b.className = "kif-move";
    b.textContent = s.kif;
    b.title = `Show the position after move ${i + 1} (${s.usi})`;
    li.append(b);
    return li;
  }));
  $("p-nodes").textContent = formatCount(msg.nodes ?? 0);
  $("p-time").textContent = `${(msg.seconds ?? 0).toFixed(1)} s`;
  if (msg.seconds > 0) $("p-nps").textContent = formatCount((msg.nodes ?? 0) / msg.seconds);
  $("p-phase").textContent = "done";
  if ((msg.steps ?? []).length > 0) {
    mode = "replay";
    step = 0;
  }
}

function onMessage(msg) {
  switch (msg.type) {
    case "hello":
      $("time").max = String(msg.max_time);
      break;
    case "queued":
      solveAsked = false;
      if (solve) solve.queued = true;
      showMessage(msg.message, "notice");
      break;
    case "started":
      solveAsked = false;
      if (solve) {
        solve.queued = false;
        solve.started = performance.now();
      }
      break;
    case "progress":
      if (solve) {
        solve.progress = msg;
        renderSolve();
      }
      return;
    case "result":
      solveAsked = false;
      clearInterval(ticker);
      showResult(msg);
      solve = null;
      break;
    case "error":
      if (solveAsked) {
        // the "solve" itself was refused: nothing is running
        solveAsked = false;
        solve = null;
        clearInterval(ticker);
        const box = $("result");
        box.textContent = `Not solved: ${msg.message}`;
        box.dataset.status = "error";
      }
      break;
    case "notice":
      break;
    case "analysis":
      onAnalysis(msg);
      renderAnalysis();
      return;
    default:
      return;
  }
  render();
}

function onStatus(status) {
  if (status !== "connected") {
    // a new connection starts with no analysis: asked for again once it opens
    analysisFor = null;
    analysis = null;
  }
  if (status !== "connected" && (solve || solveAsked)) {
    // The server stops a connection's solve when the connection drops.
    solve = null;
    solveAsked = false;
    clearInterval(ticker);
    const box = $("result");
    box.textContent = "Unknown: the connection to the server was lost, so the solve was stopped.";
    box.dataset.status = "unknown";
  }
  if (loaded) render();
}

const sock = pageSocket("/ws/tsume", {
  onOpen: () => {
    analysisFor = null;
    requestAnalysis(checked);
    render();
  },
  onMessage,
  onStatus,
});

function startSolve() {
  if (!loaded || busy()) return;
  const time = Number($("time").value);
  if (!(time > 0)) {
    showMessage("The time limit must be a positive number of seconds.", "error");
    return;
  }
  const sfen = currentSfen();
  if (!sock.send({ type: "solve", sfen, time })) {
    showMessage("Not connected to the server: try again in a moment.", "error");
    return;
  }
  solveAsked = true;
  solve = { sfen, time, started: performance.now(), queued: false, cancelling: false, progress: null };
  resultFor = sfen;
  mode = "edit";
  moveFrom = null;
  result = null;
  $("kif").replaceChildren();
  const box = $("result");
  box.textContent = "";
  box.dataset.status = "running";
  for (const id of ["p-nodes", "p-nps", "p-pn", "p-dn"]) $(id).textContent = "–";
  startTicker();
  render();
}

// ------------------------------------------------------------------ replay

function goTo(n) {
  if (!result) return;
  mode = "replay";
  step = Math.max(0, Math.min(n, replaySteps().length));
  render();
}

// ------------------------------------------------------------------ events

$("solve-form").addEventListener("submit", (ev) => {
  ev.preventDefault();
  startSolve();
});
$("cancel").addEventListener("click", () => {
  if (solve && sock.send({ type: "cancel" })) {
    solve.cancelling = true;
    render();
  }
});

analysisSwitch.addEventListener("change", () => {
  try {
    localStorage.setItem(ANALYSIS_KEY, analysisOn() ? "1" : "0");
  } catch {
    /* not remembered, still switched */
  }
  if (analysisOn()) requestAnalysis(checked);
  else forgetAnalysis();
  render();
});
const checksList = $("checks");
checksList.addEventListener("click", (ev) => {
  const li = ev.target.closest("li[data-usi]");
  if (!li) return;
  pinned = pinned === li.dataset.usi ? null : li.dataset.usi;
  hint = null; // (a tap also hovers: the pin shows, or goes, at once)
  render();
});
checksList.addEventListener("mouseover", (ev) => {
  const li = ev.target.closest("li[data-usi]");
  if (li) setHint(li.dataset.usi);
});
checksList.addEventListener("mouseleave", () => setHint(null));
checksList.addEventListener("focusin", (ev) => {
  // the keyboard's focus marks a check as the pointer does (a tap's focus does not: the
  // tap pins it, or unpins it)
  const li = ev.target.closest("li[data-usi]");
  if (li && ev.target.matches(":focus-visible")) setHint(li.dataset.usi);
});
checksList.addEventListener("focusout", (ev) => {
  if (!checksList.contains(ev.relatedTarget)) setHint(null);
});

$("first").addEventListener("click", () => goTo(0));
$("back").addEventListener("click", () => goTo(step - 1));
$("forward").addEventListener("click", () => goTo(step + 1));
$("last").addEventListener("click", () => goTo(replaySteps().length));
$("edit").addEventListener("click", () => {
  mode = "edit";
  render();
});
$("show-solution").addEventListener("click", () => goTo(0));
$("kif").addEventListener("click", (ev) => {
  const li = ev.target.closest("li[data-step]");
  if (li) goTo(Number(li.dataset.step));
});
document.addEventListener("keydown", (ev) => {
  if (mode !== "replay" || ev.target.closest("input, textarea, select")) return;
  if (ev.key === "ArrowLeft") goTo(step - 1);
  else if (ev.key === "ArrowRight") goTo(step + 1);
  else if (ev.key === "Home") goTo(0);
  else if (ev.key === "End") goTo(replaySteps().length);
  else return;
  ev.preventDefault();
});

$("hand-edit").addEventListener("click", (ev) => {
  const b = ev.target.closest("button[data-side]");
  if (!b) return;
  const { side, kind } = b.dataset;
  change((p) => changeHand(p, side, kind, Number(b.dataset.delta)));
});
for (const id of ["turn-b", "turn-w"]) {
  $(id).addEventListener("change", (ev) => {
    change((p) => {
      p.turn = ev.target.value;
      return null;
    });
  });
}
$("rest-white").addEventListener("change", (ev) => {
  rest = ev.target.checked;
  change(() => null);
});
$("clear").addEventListener("click", () => change((p) => clearPosition(p)));
$("lone-king").addEventListener("click", () => {
  rest = true;
  change((p) => {
    clearPosition(p);
    p.board[4] = "k";
    return null;
  });
});
$("examples").addEventListener("change", (ev) => {
  const sfen = ev.target.value;
  ev.target.value = "";
  if (sfen && !busy()) loadPosition(sfen);
});

$("load").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const text = $("load-text").value.trim();
  if (busy()) return;
  if (!text) {
    showLoadError("Paste an SFEN first, e.g. 4k4/9/4P4/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1");
    return;
  }
  showLoadError("");
  try {
    const body = await fetchCheck(text);
    loadPosition(body.sfen);
    $("load-text").value = "";
    showMessage("Position loaded.", "notice");
  } catch (e) {
    showLoadError(e.message);
  }
});

$("copy-sfen").addEventListener("click", (ev) => copyText(currentSfen(), ev.currentTarget));
$("copy-link").addEventListener("click", (ev) => copyText(location.href, ev.currentTarget));

// ------------------------------------------------------------------ start

buildPalette();
render();

(async () => {
  const wanted = sfenFromSearch(location.search);
  if (wanted === null) {
    loadPosition(LONE_KING);
    return;
  }
  try {
    const body = await fetchCheck(wanted);
    loadPosition(body.sfen);
  } catch (e) {
    loadPosition(LONE_KING);
    showMessage(`The address's position was not loaded: ${e.message}`, "error");
  }
})();

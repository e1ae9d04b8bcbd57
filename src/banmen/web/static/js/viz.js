// The bitboard visualiser: pick a walkthrough and its parameters, then step through its
// operations — the board (an SVG drawn by the server), the 64-bit value in hex and in
// decimal, and what the step does.
//
// The walkthroughs and their parameters come from /api/viz/walkthroughs; a walkthrough comes
// whole from /api/viz/walkthrough (every step at once), so stepping is local. The address
// holds the walkthrough and the step (?name=line&kind=diagonal&n=3&step=4, the step counted
// from 1 as the counter shows it), so a link opens the same step. A walkthrough that cannot
// be made leaves an error line and keeps the one on screen.

import { $, showLoadError } from "./page.js";

const START = "---------------------------OX------XO--------------------------- X";
const PRESETS = {
  start: { board: START, move: "d3" },
  // 12 plies in: c5 turns over four discs in three directions.
  mid: { board: "--------O-X-O----OXXX----OOOXO-----OOX-----O-------------------- X", move: "c5" },
  // after f5: white to move
  white: { board: "---------------------------OX------XXX-------------------------- O", move: "d6" },
};
// Used when the server's list cannot be read.
const FALLBACK = {
  line: { title: "line", params: [{ name: "kind", type: "choice" }, { name: "n", type: "int" }] },
  moves: { title: "moves", params: [{ name: "board", type: "othello" }] },
  flips: { title: "flips", params: [{ name: "board", type: "othello" }, { name: "move", type: "square" }] },
};
const N_RANGE = { row: [0, 7], column: [0, 7], diagonal: [-7, 7], "anti-diagonal": [0, 14] };

let catalog = {}; // name -> { title, description, params: [{ name, type, default, help }] }
let shown = null; // the walkthrough on screen: { query, data }
let index = 0; // its step on screen, from 0
let loadSeq = 0;

// ------------------------------------------------------------------ the catalog

function paramsOf(name) {
  const p = catalog[name]?.params;
  return Array.isArray(p) ? p.filter((x) => x && typeof x.name === "string") : [];
}

// The form field that holds a parameter: an Othello board and a bitboard are both "board".
function fieldOf(param) {
  if (param.type === "othello") return "board";
  if (param.type === "bitboard") return "bits";
  if (param.type === "square") return "move";
  return ["kind", "n", "move"].includes(param.name) ? param.name : null;
}

function bitsDefaults() {
  const out = new Set();
  for (const name of Object.keys(catalog)) {
    for (const p of paramsOf(name)) if (p.type === "bitboard" && p.default) out.add(p.default);
  }
  return out;
}

function fillNames() {
  $("name").replaceChildren(
    ...Object.keys(catalog).map((n) => new Option(catalog[n].title || n, n)),
  );
}

// ------------------------------------------------------------------ the form

// The walkthrough's query as the form shows it.
function formQuery() {
  const name = $("name").value;
  const query = { name };
  for (const p of paramsOf(name)) {
    const id = fieldOf(p);
    if (id) query[p.name] = $(id).value.trim();
  }
  return query;
}

function fillForm(query) {
  if (!(query.name in catalog)) return;
  $("name").value = query.name;
  for (const p of paramsOf(query.name)) {
    const id = fieldOf(p);
    if (id && query[p.name] !== undefined) $(id).value = query[p.name];
  }
}

// After the walkthrough changes: its own default bitboard, unless one was typed in.
function takeDefaults() {
  for (const p of paramsOf($("name").value)) {
    const bits = $("bits").value.trim();
    if (p.type === "bitboard" && p.default && (bits === "" || bitsDefaults().has(bits))) {
      $("bits").value = p.default;
    }
  }
}

// The line's kind and number as the server's list suggests them.
function initialDefaults() {
  for (const name of Object.keys(catalog)) {
    for (const p of paramsOf(name)) {
      if ((p.name === "kind" || p.name === "n") && p.default !== undefined) {
        $(p.name).value = String(p.default);
      }
    }
  }
}

function renderForm() {
  const name = $("name").value;
  const fields = new Set(paramsOf(name).map(fieldOf));
  for (const fs of document.querySelectorAll(".viz-params")) {
    fs.hidden = !fs.dataset.fields.split(" ").some((f) => fields.has(f));
  }
  $("description").textContent = catalog[name]?.description ?? "";
  const n = paramsOf(name).find((p) => p.name === "n");
  const kind = $("kind").value;
  const range = n?.range_by_kind?.[kind] ?? N_RANGE[kind];
  if (range) {
    $("n").min = String(range[0]);
    $("n").max = String(range[1]);
    $("n-range").textContent = `(${range[0]} to ${range[1]})`;
  }
}

function fillKinds() {
  for (const name of Object.keys(catalog)) {
    const kind = paramsOf(name).find((p) => p.name === "kind");
    if (kind && Array.isArray(kind.choices) && kind.choices.length) {
      const keep = $("kind").value;
      $("kind").replaceChildren(...kind.choices.map((c) => new Option(c, c)));
      if (kind.choices.includes(keep)) $("kind").value = keep;
      return;
    }
  }
}

// What is wrong with the form's Number, as one line, or null. The form is checked here
// rather than by the browser (it has `novalidate`): the browser's own check stops a
// submission without a word when the bad field is hidden (another walkthrough is
// picked), and it only knows the field's limits, not what they mean.
function numberProblem() {
  const input = $("n");
  input.removeAttribute("aria-invalid");
  if (!paramsOf($("name").value).some((p) => fieldOf(p) === "n")) return null;
  const kind = $("kind").value;
  const [lo, hi] = [Number(input.min), Number(input.max)];
  const limits = input.min !== "" && input.max !== "" ? ` from ${lo} to ${hi}` : "";
  const text = input.value.trim();
  let problem = null;
  if (input.validity.badInput || !/^[+-]?\d+$/.test(text)) {
    problem = `Number: expected a whole number${limits}${text ? `, got ${text}` : ""}.`;
  } else if (limits && (Number(text) < lo || Number(text) > hi)) {
    problem = `Number: a ${kind} is numbered ${lo} to ${hi}, got ${Number(text)}.`;
  }
  if (problem) input.setAttribute("aria-invalid", "true");
  return problem;
}

// ------------------------------------------------------------------ the address

function queryFromAddress() {
  const sp = new URLSearchParams(location.search);
  const name = sp.get("name");
  if (name === null) return null;
  const query = { name };
  for (const p of paramsOf(name)) {
    const v = sp.get(p.name);
    if (v !== null) query[p.name] = v;
  }
  const step = Number.parseInt(sp.get("step") ?? "1", 10);
  return { query, step: Number.isFinite(step) ? step - 1 : 0 };
}

function writeAddress() {
  if (!shown) return;
  const sp = new URLSearchParams();
  for (const [k, v] of Object.entries(shown.query)) if (v !== undefined) sp.set(k, v);
  sp.set("step", String(index + 1));
  const url = `${location.pathname}?${sp}`;
  if (location.pathname + location.search !== url) history.replaceState(null, "", url);
}

// ------------------------------------------------------------------ loading

async function fetchWalkthrough(query) {
  const r = await fetch(`/api/viz/walkthrough?${new URLSearchParams(query)}`);
  let body = null;
  try {
    body = await r.json();
  } catch {
    throw new Error(`the server answered ${r.status} without a walkthrough`);
  }
  if (!r.ok || body.ok === false || !Array.isArray(body.steps)) {
    throw new Error(body.error || `the server answered ${r.status}`);
  }
  return body;
}

async function load(query, step = 0) {
  const seq = ++loadSeq;
  $("view").dataset.phase = "loading";
  $("load-button").disabled = true;
  if (!shown) $("status").textContent = "Loading the walkthrough…";
  try {
    const data = await fetchWalkthrough(query);
    if (seq !== loadSeq) return;
    if (data.steps.length === 0) throw new Error("this walkthrough has no steps");
    shown = { query, data };
    showLoadError("");
    goTo(step);
  } catch (e) {
    if (seq !== loadSeq) return;
    showLoadError(e.message);
    if (!shown) $("status").textContent = "Nothing to show yet: pick a walkthrough and press Load.";
  } finally {
    if (seq === loadSeq) {
      $("view").dataset.phase = shown ? "ready" : "error";
      $("load-button").disabled = false;
    }
  }
}

// ------------------------------------------------------------------ the step view

function decimalOf(step) {
  try {
    return BigInt(step.hex).toString(); // exact: a 64-bit value does not fit a JS number
  } catch {
    return String(step.value ?? "–");
  }
}

// The server's SVG, parsed as SVG (never as HTML) and put in place.
function showSvg(text) {
  const box = $("step-svg");
  const doc = new DOMParser().parseFromString(String(text ?? ""), "image/svg+xml");
  const root = doc.documentElement;
  if (root.nodeName.toLowerCase() !== "svg" || doc.querySelector("parsererror")) {
    box.textContent = "(no picture for this step)";
    return;
  }
  for (const bad of root.querySelectorAll("script, foreignObject")) bad.remove();
  box.replaceChildren(document.importNode(root, true));
}

function goTo(i) {
  if (!shown) return;
  const steps = shown.data.steps;
  index = Math.max(0, Math.min(steps.length - 1, Number.isFinite(i) ? i : i > 0 ? steps.length : 0));
  const step = steps[index];
  const view = $("view");
  view.dataset.name = shown.data.name ?? shown.query.name;
  view.dataset.index = String(index);
  view.dataset.steps = String(steps.length);
  $("wt-title").textContent = shown.data.title ?? shown.query.name;
  $("status").textContent = catalog[shown.query.name]?.description ?? "";
  showSvg(step.svg);
  $("counter").textContent = `${index + 1} / ${steps.length}`;
  $("label").textContent = step.label ?? "";
  $("hex").textContent = step.hex ?? "–";
  $("dec").textContent = decimalOf(step);
  $("op").textContent = step.op ?? "–";
  $("explanation").textContent = step.explanation ?? "";
  $("first").disabled = $("prev").disabled = index === 0;
  $("next").disabled = $("last").disabled = index === steps.length - 1;
  writeAddress();
}

// ------------------------------------------------------------------ events

$("name").addEventListener("change", () => {
  takeDefaults();
  renderForm();
});
$("kind").addEventListener("change", renderForm);
$("load").addEventListener("submit", (ev) => {
  ev.preventDefault();
  const problem = numberProblem();
  if (problem) {
    showLoadError(problem);
    $("n").focus();
    return;
  }
  load(formQuery(), 0);
});
for (const b of document.querySelectorAll("button[data-preset]")) {
  b.addEventListener("click", () => {
    const preset = PRESETS[b.dataset.preset];
    $("board").value = preset.board;
    $("move").value = preset.move;
  });
}
for (const b of document.querySelectorAll("button[data-bits]")) {
  b.addEventListener("click", () => {
    $("bits").value = b.dataset.bits;
  });
}
$("first").addEventListener("click", () => goTo(0));
$("prev").addEventListener("click", () => goTo(index - 1));
$("next").addEventListener("click", () => goTo(index + 1));
$("last").addEventListener("click", () => goTo(Infinity));
document.addEventListener("keydown", (ev) => {
  if (!shown || ev.altKey || ev.ctrlKey || ev.metaKey) return;
  if (ev.target.closest("input, textarea, select")) return;
  if (ev.key === "ArrowLeft") goTo(index - 1);
  else if (ev.key === "ArrowRight") goTo(index + 1);
  else if (ev.key === "Home") goTo(0);
  else if (ev.key === "End") goTo(Infinity);
  else return;
  ev.preventDefault();
});

// ------------------------------------------------------------------ start

(async () => {
  $("board").value = START;
  try {
    const r = await fetch("/api/viz/walkthroughs");
    if (!r.ok) throw new Error(`the server answered ${r.status}`);
    catalog = await r.json();
  } catch (e) {
    catalog = FALLBACK;
    showLoadError(`The list of walkthroughs was not loaded: ${e.message}`);
  }
  fillNames();
  fillKinds();
  initialDefaults();
  const wanted = queryFromAddress();
  if (wanted) {
    if (wanted.query.name in catalog) $("name").value = wanted.query.name;
    takeDefaults();
    fillForm(wanted.query);
    renderForm();
    await load(wanted.query, wanted.step);
  } else {
    takeDefaults();
    renderForm();
    await load(formQuery(), 0);
  }
})();

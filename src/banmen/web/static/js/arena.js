// The arena results page: the runs in the app's database (and the arena CLI's default
// one) and the report of one of them, or several runs side by side.
//
// Everything comes from the JSON API (/api/arena/runs, /api/arena/runs/RUN,
// /api/arena/compare?run=A&run=B) and the plots are <img>s of
// /api/arena/runs/RUN/plots/NAME.svg and /api/arena/compare.svg?run=A&run=B. The selected
// run lives in the address (#RUN), and so do compared runs (#compare=A,B: a run name has
// no "=" nor ","); without either, the newest run is shown. While the page is visible it
// asks for the list every few seconds, so a run started after the page opened appears by
// itself, and the shown report or comparison is fetched again while a run of it plays
// (or when its counts change). The page only reads: `banmen arena delete` deletes runs.
//
// The training runs of `banmen train` (same databases) are listed below the arena runs,
// from /api/arena/train: each opens (a <details>) on its iterations, from
// /api/arena/train/RUN, and its curves, an <img> of /api/arena/train/RUN/curves.svg. An
// open run stays open across refreshes and is fetched again when an iteration ends.

import { $, pageData } from "./page.js";

const RUN_RE = /^[A-Za-z0-9_.+:-]{1,80}$/;
const COMPARE = "compare=";
const MAX_COMPARED = 20; // as the server (banmen.web.arena.MAX_COMPARED)
const REFRESH_MS = 3000;

const PLOT_TITLES = {
  "score-vs-param": "Score against the varying option",
  heatmap: "Scores of every pairing",
  margins: "Final score margins",
};


let runs = [];
let shown = null; // the report on the page
let compared = null; // the comparison on the page
let picked = new Set(); // the runs ticked for a comparison, in the order they were ticked
let timer = 0;

// ------------------------------------------------------------------ formatting

const pct = (x) => (x === null || x === undefined ? "–" : `${(100 * x).toFixed(1)}%`);

function pctCi(ci) {
  if (!ci) return "";
  return `[${(100 * ci[0]).toFixed(1)}, ${(100 * ci[1]).toFixed(1)}]`;
}

// Elo values are null when unbounded (a 100% or 0% score): `sign` says which infinity.
function elo(x, sign = 1) {
  if (x === null || x === undefined) return sign >= 0 ? "+∞" : "−∞";
  const r = Math.round(x);
  return r > 0 ? `+${r}` : r < 0 ? `−${-r}` : "0";
}

const eloCi = (ci) => `[${elo(ci[0], -1)}, ${elo(ci[1], 1)}]`;

function signed(x, digits = 2) {
  if (x === null || x === undefined) return "–";
  const s = Math.abs(x).toFixed(digits);
  return x > 0 ? `+${s}` : x < 0 ? `−${s}` : s;
}

function seconds(s) {
  if (s === null || s === undefined) return "–";
  return s >= 0.1 ? `${s.toFixed(2)} s` : `${(1000 * s).toFixed(2)} ms`;
}

function when(iso) {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso ?? "";
  return d.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}

const gamesText = (played, planned) => `${played} / ${planned ?? "?"} games`;

// ------------------------------------------------------------------ DOM helpers

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "text") node.textContent = v;
    else if (k === "class") node.className = v;
    else node.setAttribute(k, v);
  }
  for (const c of children) node.append(c);
  return node;
}

function showMessage(text) {
  const box = $("message");
  box.textContent = text;
  box.dataset.kind = "error";
  box.hidden = !text;
}

async function getJson(url) {
  const res = await fetch(url, { headers: { Accept: "application/json" } });
  let body = null;
  try {
    body = await res.json();
  } catch {
    /* not JSON: the status says enough */
  }
  if (!res.ok) throw new Error(body?.error ?? `${url}: HTTP ${res.status}`);
  return body;
}

function wantedRun() {
  let id = "";
  try {
    id = decodeURIComponent(location.hash.slice(1));
  } catch {
    return null;
  }
  return RUN_RE.test(id) ? id : null;
}

const comparing = () => location.hash.startsWith(`#${COMPARE}`);

// The runs of #compare=A,B (two or more valid names, each once), or null.
function comparedRuns() {
  if (!comparing()) return null;
  let ids;
  try {
    ids = location.hash.slice(1 + COMPARE.length).split(",").map(decodeURIComponent);
  } catch {
    return null;
  }
  const ok = ids.length >= 2 && ids.length <= MAX_COMPARED && new Set(ids).size === ids.length
    && ids.every((id) => RUN_RE.test(id));
  return ok ? ids : null;
}

const compareQuery = (ids) => ids.map((id) => `run=${encodeURIComponent(id)}`).join("&");

function selectedRun() {
  const wanted = wantedRun();
  if (wanted) return wanted;
  const first = runs.find((r) => r.viewable);
  return first ? first.id : null;
}

// ------------------------------------------------------------------ the run list

function renderCompareBar() {
  const n = picked.size;
  const button = $("compare-button");
  button.disabled = n < 2 || n > MAX_COMPARED;
  button.textContent = n >= 2 ? `Compare ${n} runs` : "Compare";
  $("compare-note").textContent = n === 0
    ? "Tick two or more runs to see them side by side."
    : n === 1 ? "1 run ticked: tick another to compare."
      : n > MAX_COMPARED ? `${n} runs ticked: compare at most ${MAX_COMPARED}.`
        : `${n} runs ticked, compared in that order.`;
}

function renderRuns() {
  $("empty").hidden = runs.length > 0;
  $("runs-panel").hidden = runs.length === 0;
  // A run deleted meanwhile (banmen arena delete) cannot be compared any more.
  const viewable = new Set(runs.filter((r) => r.viewable).map((r) => r.id));
  picked = new Set([...picked].filter((id) => viewable.has(id)));
  renderCompareBar();
  const selected = comparing() ? null : selectedRun();
  const list = $("runs");
  list.replaceChildren();
  for (const r of runs) {
    const players = (r.players ?? []).map((p) => p.name).join(", ");
    const head = el("span", { class: "run-head" },
      el("strong", { class: "run-name", text: r.id }),
      el("span", { class: "run-status", "data-status": r.status, text: r.status }));
    const game = r.size ? `${r.game} ${r.size}×${r.size}` : (r.game ?? "?");
    const where = r.source === "cli" ? " · CLI's default database" : "";
    const body = [
      head,
      el("span", { class: "run-meta", text: `${game} · ${players}` }),
      el("span", { class: "run-meta", text: `${gamesText(r.games_played, r.games_planned)} · ${when(r.created)}${where}` }),
    ];
    const item = r.viewable
      ? el("a", { class: "run-card", href: `#${encodeURIComponent(r.id)}` }, ...body)
      : el("div", { class: "run-card", title: `view it with: banmen arena report ${r.id}` }, ...body);
    if (r.id === selected) item.setAttribute("aria-current", "true");
    const li = el("li", {}, item);
    if (r.viewable) {
      const box = el("input", { type: "checkbox", value: r.id, "aria-label": `compare ${r.id}` });
      box.checked = picked.has(r.id);
      box.addEventListener("change", () => {
        if (box.checked) picked.add(r.id);
        else picked.delete(r.id);
        renderCompareBar();
      });
      li.append(el("label", { class: "run-pick", title: "compare this run with others" }, box));
    }
    list.append(li);
  }
}

// ------------------------------------------------------------------ one run's report

// A cell is a string, or [value, interval]: the interval goes on a second, smaller line.
function cell(tag, content, attrs = {}) {
  if (!Array.isArray(content)) return el(tag, { ...attrs, text: content });
  const [value, interval] = content;
  return el(tag, attrs, value, el("span", { class: "ci", text: interval }));
}

function fillTable(table, columns, rows) {
  const headRow = table.tHead.rows[0];
  headRow.replaceChildren(...columns.map((c) => el("th", { scope: "col", text: c })));
  const body = table.tBodies[0];
  body.replaceChildren(
    ...rows.map((cells) => el("tr", {}, ...cells.map((c, i) => (i === 0 ? cell("th", c, { scope: "row" }) : cell("td", c))))),
  );
}

function sprtText(s) {
  if (!s) return "–";
  const llr = s.llr.toFixed(2);
  const bounds = `[${s.lower.toFixed(2)}, ${s.upper.toFixed(2)}]`;
  return `${s.decision ?? "undecided"} (LLR ${llr} in ${bounds}, ${s.pairs} pair${s.pairs === 1 ? "" : "s"})`;
}

// A pairing's W-D-L (and its games stopped at the ply cap: no result, not draws).
function wdlText(r) {
  return `${r.a_wins}-${r.draws}-${r.a_losses}${r.stopped ? ` +${r.stopped} stopped` : ""}`;
}

// How a run's games ended (the report's `endings`, in the words the server gives in
// <body data-endings>): "ended: 38 by the rules, 2 stopped at the ply cap" ("" for none).
const ENDED = pageData("endings") ?? {};
function endingsText(endings) {
  const parts = Object.entries(endings ?? {}).filter(([, n]) => n > 0)
    .map(([k, n]) => `${n} ${ENDED[k] ?? k}`);
  return parts.length ? ` · ended: ${parts.join(", ")}` : "";
}

// A pairing's W-D-L, score and Elo difference (for its first player), as table cells.
function pairingCells(r) {
  return [
    wdlText(r),
    [pct(r.a_score), pctCi(r.a_score_ci95)],
    [elo(r.elo_diff, r.a_score - 0.5), eloCi(r.elo_diff_ci95)],
  ];
}

function renderPairings(rep) {
  const withSprt = rep.pairings.some((r) => r.sprt);
  const columns = ["pairing", "games", "W-D-L", "score", "Elo diff", "mean margin"];
  if (withSprt) columns.push("SPRT");
  const rows = rep.pairings.map((r) => {
    const cells = [`${r.a} vs ${r.b}`, String(r.games)];
    if (!r.games) cells.push("–", "–", "–", "–");
    else cells.push(...pairingCells(r), signed(r.mean_margin));
    if (withSprt) cells.push(sprtText(r.sprt));
    return cells;
  });
  fillTable($("pairings"), columns, rows);
}

function renderPlayers(rep) {
  $("players-note").textContent = `Elo fitted from all games, relative to ${rep.elo_anchor}`;
  const rows = rep.players.map((p) => [
    p.name,
    p.spec,
    String(p.games),
    pct(p.score),
    p.elo === null ? "–" : [elo(p.elo), eloCi(p.elo_ci95)],
    seconds(p.mean_move_seconds),
  ]);
  fillTable($("players"), ["player", "spec", "games", "score", "Elo", "per move"], rows);
}

function renderPlots(rep) {
  const box = $("plots");
  const plots = rep.plots ?? [];
  $("plots-panel").hidden = plots.length === 0;
  // Keep the images that are up to date: a refresh must not make the page flicker.
  const want = plots.map((p) => `${p.url}?games=${rep.games_played}`);
  const have = [...box.querySelectorAll("img")].map((img) => img.getAttribute("src"));
  if (want.join("\n") === have.join("\n")) return;
  box.replaceChildren(
    ...plots.map((p, i) => {
      const title = PLOT_TITLES[p.name] ?? p.name;
      return el("figure", { class: "plot" },
        el("img", { src: want[i], alt: `${title} (${rep.run})`, loading: "lazy", decoding: "async" }),
        el("figcaption", { text: title }));
    }),
  );
}

function renderReport(rep) {
  shown = rep;
  $("report").hidden = false;
  $("report-title").textContent = rep.run;
  const c = rep.config;
  const players = rep.players.map((p) => `${p.name} (${p.spec})`).join(", ");
  const kind = c.gauntlet ? `gauntlet of ${c.gauntlet}` : "round robin";
  const size = c.size ? ` ${c.size}×${c.size}` : "";
  $("report-summary").textContent = `${c.game}${size} · ${kind} · ${players} · `
    + `${gamesText(rep.games_played, rep.games_planned)} (${c.games} per pairing, deals from seed ${c.seed}) · ${rep.status}`;
  const fp = rep.first_player;
  $("first-player").textContent = fp.games
    ? `First player: ${fp.wins}-${fp.draws}-${fp.losses} (W-D-L), wins ${pct(fp.win_rate)} ${pctCi(fp.win_rate_ci95)}, scores ${pct(fp.score)} ${pctCi(fp.score_ci95)}${endingsText(rep.endings)}`
    : "No games played yet.";
  renderPairings(rep);
  renderPlayers(rep);
  renderPlots(rep);
}

// ------------------------------------------------------------------ runs side by side

function runLink(id) {
  return el("a", { href: `#${encodeURIComponent(id)}`, text: id });
}

const perMove = (a, b) => `${seconds(a)} / ${seconds(b)}`;

// The table `banmen arena report A B` prints: a row per run and pairing.
function renderComparison(data) {
  compared = data;
  const rows = data.rows.map((r) => {
    const game = r.size ? `${r.game} ${r.size}×${r.size}` : r.game;
    const cells = [
      [runLink(r.run), `${game} · ${gamesText(r.games_played, r.games_planned)} · ${r.status}`],
      [`${r.a} vs ${r.b}`, `${r.a_spec} vs ${r.b_spec}`],
      String(r.games),
    ];
    if (!r.games) cells.push("–", "–", "–", "–");
    else cells.push(...pairingCells(r), [pct(r.first_player_score), pctCi(r.first_player_score_ci95)]);
    cells.push(`${r.a_forfeits} / ${r.b_forfeits}`, perMove(r.a_move_seconds, r.b_move_seconds));
    return cells;
  });
  const columns = ["run", "pairing", "games", "W-D-L", "score", "Elo diff", "first mover", "forfeits", "per move"];
  fillTable($("comparison"), columns, rows);
  $("compare-summary").textContent = data.runs
    .map((r) => `${r.run}: ${gamesText(r.games_played, r.games_planned)}, ${r.status}`
      + (r.source === "cli" ? " (CLI's default database)" : ""))
    .join(" · ");
  const box = $("compare-plot");
  $("compare-plot-panel").hidden = !data.plot;
  const played = data.runs.reduce((n, r) => n + r.games_played, 0);
  const want = data.plot ? `${data.plot}&games=${played}` : null;
  if (!want) box.replaceChildren();
  else if (box.querySelector("img")?.getAttribute("src") !== want) {
    const title = "Scores of the runs side by side";
    box.replaceChildren(el("figure", { class: "plot" },
      el("img", { src: want, alt: title, decoding: "async" }),
      el("figcaption", { text: `${title} (95% intervals)` })));
  }
}

// Whether the comparison on the page may differ from the runs' comparison now.
function comparisonStale(ids) {
  if (!compared || compared.runs.map((r) => r.run).join(",") !== ids.join(",")) return true;
  return compared.runs.some((c) => {
    const r = runs.find((x) => x.id === c.run);
    return !r || c.status === "running" || r.status !== c.status || r.games_played !== c.games_played;
  });
}

$("compare-button").addEventListener("click", () => {
  const ids = [...picked];
  if (ids.length >= 2) location.hash = COMPARE + ids.map(encodeURIComponent).join(",");
});

// ------------------------------------------------------------------ training runs

let trainRuns = [];
// Per listed training run (by source and name: the same name may be in both databases):
// its <li>, kept across refreshes so that an open run stays open.
const trainItems = new Map();

// A number of the evaluator's units: a few significant digits.
function num(x) {
  if (x === null || x === undefined || !Number.isFinite(x)) return "–";
  const a = Math.abs(x);
  return x.toFixed(a >= 100 ? 0 : a >= 10 ? 1 : 2);
}

const count = (n) => (n === null || n === undefined ? "–" : n.toLocaleString());

// The held-out error of each phase: "812 / 640 / 455".
const phases = (xs) => (xs?.length ? xs.map(num).join(" / ") : "–");

// An Elo against the baseline with its interval: null is unbounded, its sign the side
// the interval is unbounded on.
function eloVsBaseline(x, ci) {
  if (!ci) return "–";
  const value = x === null || x === undefined ? elo(null, ci[1] === null ? 1 : -1) : elo(x);
  return [value, eloCi(ci)];
}

// What changes a run's report: an iteration done (its gate decided) or its status.
const trainKey = (r) => `${r.status}/${r.iterations_done}/${r.kept}`;

function trainMeta(r) {
  const game = r.size ? `${r.game} ${r.size}×${r.size}` : (r.game ?? "?");
  const done = `${r.iterations_done} / ${r.iterations_planned ?? "?"} iterations, ${r.kept} kept`;
  const [value] = r.elo_vs_baseline_ci ? eloVsBaseline(r.elo_vs_baseline, r.elo_vs_baseline_ci) : ["–"];
  const where = r.source === "cli" ? " · CLI's default database" : "";
  return [
    el("span", { class: "run-meta", text: `${game} · ${r.evaluator ?? "?"} · ${done}` }),
    el("span", { class: "run-meta", text: `Elo vs baseline ${value} · ${when(r.created)}${where}` }),
  ];
}

function trainHead(r) {
  return el("span", { class: "run-head" },
    el("strong", { class: "run-name", text: r.name }),
    el("span", { class: "run-status", "data-status": r.status, text: r.status }));
}

function newTrainItem(r) {
  if (!r.viewable) {
    const card = el("div", { class: "run-card", title: `view it with: banmen train report ${r.name}` });
    return { li: el("li", {}, card), card, viewable: false };
  }
  const summary = el("summary", {});
  const text = el("p", { class: "report-summary" });
  const table = el("table", { class: "stats-table train-table" }, el("thead", {}, el("tr")), el("tbody"));
  const wrap = el("div", { class: "table-wrap" }, table);
  const plots = el("div", { class: "plots" });
  const body = el("div", { class: "train-body" }, text, wrap, plots);
  const details = el("details", { class: "run-card train-run" }, summary, body);
  const item = { li: el("li", {}, details), details, summary, text, table, wrap, plots, viewable: true,
    run: r, key: null, loading: false };
  details.addEventListener("toggle", () => {
    if (details.open && item.key !== trainKey(item.run)) loadTrainReport(item);
  });
  return item;
}

function renderTrainReport(item, data) {
  const c = data.config ?? {};
  const bits = [`${count(data.positions)} positions stored`];
  if (c.games) bits.push(`${c.games} self-play games an iteration`);
  if (c.labels) bits.push(`labels: ${c.labels}`);
  if (c.seed !== undefined) bits.push(`seed ${c.seed}`);
  if (c.out) bits.push(`weights: ${c.out}`);
  item.text.textContent = bits.join(" · ");
  const its = data.iterations ?? [];
  item.wrap.hidden = its.length === 0;
  if (!its.length) item.text.textContent += " · no iteration done yet";
  const rows = its.map((it) => {
    const g = it.gate;
    return [
      String(it.iteration),
      count(it.positions),
      [phases(it.held_out_error ?? it.held_out_rmse), `was ${phases(it.held_out_error_before ?? it.held_out_rmse_before)}`],
      g ? [pct(g.score), `${g.games} games · SPRT ${g.decision ?? "undecided"}`] : "–",
      it.kept ? "kept" : "not kept",
      eloVsBaseline(it.kept_elo_vs_baseline, it.kept_elo_ci),
    ];
  });
  const columns = ["iteration", "positions", "held-out error", "gate", "weights", "Elo vs baseline"];
  fillTable(item.table, columns, rows);
  // Keep an image that is up to date: a refresh must not make the page flicker.
  const want = data.curves ? `${data.curves}?done=${its.length}&status=${encodeURIComponent(data.status)}` : null;
  if (!want) item.plots.replaceChildren();
  else if (item.plots.querySelector("img")?.getAttribute("src") !== want) {
    const title = "Held-out error and Elo against the baseline, by iteration";
    // Two panels side by side: small on a phone, so the image opens at full size too.
    const img = el("img", { src: want, alt: `${title} (${data.name})`, loading: "lazy", decoding: "async" });
    item.plots.replaceChildren(el("figure", { class: "plot" },
      el("a", { href: want, target: "_blank", rel: "noopener", title: "Open the curves at full size" }, img),
      el("figcaption", { text: `${title} (95% intervals)` })));
  }
}

async function loadTrainReport(item) {
  if (item.loading) return;
  item.loading = true;
  const key = trainKey(item.run);
  try {
    renderTrainReport(item, await getJson(`/api/arena/train/${encodeURIComponent(item.run.name)}`));
    item.key = key;
  } catch (err) {
    item.key = null;
    item.text.textContent = String(err.message ?? err);
  } finally {
    item.loading = false;
  }
}

function renderTraining() {
  $("train-panel").hidden = trainRuns.length === 0 && $("train-message").hidden;
  const list = $("train-runs");
  const listed = new Set();
  trainRuns.forEach((r, i) => {
    const id = `${r.source}:${r.name}`;
    listed.add(id);
    let item = trainItems.get(id);
    if (!item || item.viewable !== r.viewable) {
      item?.li.remove();
      item = newTrainItem(r);
      trainItems.set(id, item);
    }
    item.run = r;
    if (item.viewable) {
      item.summary.replaceChildren(trainHead(r), ...trainMeta(r));
      if (item.details.open && item.key !== trainKey(r)) loadTrainReport(item);
    } else item.card.replaceChildren(trainHead(r), ...trainMeta(r));
    if (list.children[i] !== item.li) list.insertBefore(item.li, list.children[i] ?? null);
  });
  for (const [id, item] of trainItems) {
    if (!listed.has(id)) {
      item.li.remove();
      trainItems.delete(id);
    }
  }
}

async function refreshTraining() {
  const box = $("train-message");
  try {
    trainRuns = await getJson("/api/arena/train");
    box.hidden = true;
  } catch (err) {
    box.textContent = String(err.message ?? err);
    box.hidden = false;
  }
  renderTraining();
}

// ------------------------------------------------------------------ loading

// Whether the report on the page may differ from the run's report now.
function stale(id) {
  if (!shown || shown.run !== id || shown.status === "running") return true;
  const r = runs.find((x) => x.id === id);
  return !r || r.status !== shown.status || r.games_played !== shown.games_played;
}

async function refresh() {
  clearTimeout(timer);
  const ids = comparedRuns();
  try {
    runs = await getJson("/api/arena/runs");
    renderRuns();
    if (ids) {
      $("report").hidden = true;
      if (comparisonStale(ids)) renderComparison(await getJson(`/api/arena/compare?${compareQuery(ids)}`));
      $("compare").hidden = false;
    } else {
      compared = null;
      $("compare").hidden = true;
      const id = selectedRun();
      if (id) {
        if (stale(id)) renderReport(await getJson(`/api/arena/runs/${encodeURIComponent(id)}`));
      } else {
        shown = null;
        $("report").hidden = true;
      }
    }
    showMessage(
      comparing() && !ids ? `Compare two to ${MAX_COMPARED} runs, each named once: showing the newest run.`
        : location.hash.length > 1 && !ids && !wantedRun() ? "That is not a run name: showing the newest run." : "",
    );
  } catch (err) {
    if (ids) {
      compared = null;
      $("compare").hidden = true;
    } else if (wantedRun() && shown?.run !== wantedRun()) $("report").hidden = true;
    showMessage(String(err.message ?? err));
  }
  await refreshTraining();
  // Look again in a while: new runs, new games (a hidden page waits until it is shown).
  if (!document.hidden) timer = setTimeout(refresh, REFRESH_MS);
}

// The ticks follow a comparison's address (#compare=A,B), opened or typed.
function tickCompared() {
  const ids = comparedRuns();
  if (ids) picked = new Set(ids);
}

window.addEventListener("hashchange", () => {
  tickCompared();
  refresh().then(() => $(comparedRuns() ? "compare" : "report").scrollIntoView?.({ block: "start" }));
});
document.addEventListener("visibilitychange", () => {
  if (!document.hidden) refresh();
});

tickCompared();
refresh();

// The analysis overlay every analysing board draws (board.js, othello-board.js), the
// win-rate candidates of a tree search (go-board.js), and the analysis status line's words
// (game-page.js).
//
// The server's "analysis" message carries `data`, an Analysis record (banmen.analysis):
// `moves` (best first), each { move, value, kind, depth, pv }, where `kind` is "exact"
// (proved), "depth" (a search `depth` plies deep: an estimate) or "open" (no value yet),
// and `value` is for the side to move (Mattix: the final margin; Othello: the final disc
// difference). A board draws, on each move's square, a badge with the value — upright and
// solid when proved, italic and grey with a small "d7" tag when depth-limited — and rings
// the best moves (every move with the top value).
//
// A tree search (Go) sends rows of kind "winrate" instead: `value` the share of the
// simulations through the move that the side to move won (0-1: an estimate, never a
// proof), `visits`, `pv`; most visited first; `data.extra` has `to_move`, `root_visits`
// and the playouts' `ownership` and `score_lead` (estimates). `candidates` picks the rows a
// board shows, `percentText` / `visitsText` word them, and the status line gives the
// score estimate and the visits.
//
// What the tests read off the DOM:
//   g.analysis[data-square][data-kind][data-value][data-depth][data-best]
//   text.av (the value shown), text.ad (the depth tag)

import { el } from "./svg.js";

// Square name -> { row, best } for the moves of `data` (null: nothing to show).
export function analysisByMove(data) {
  const out = new Map();
  if (!data || !Array.isArray(data.moves)) return out;
  const known = data.moves.filter((r) => typeof r.value === "number");
  const top = known.length ? Math.max(...known.map((r) => r.value)) : null;
  for (const row of data.moves) {
    out.set(row.move, { row, best: top !== null && row.value === top });
  }
  return out;
}

// A value as shown: a whole number with its sign ("+3", "0", "-2"); "…" while unknown.
export function valueText(value) {
  if (typeof value !== "number") return "…";
  const n = Math.round(value);
  if (n === 0) return "0";
  return n > 0 ? `+${n}` : String(n);
}

// The move's value in words, for its tooltip and its accessible label.
export function valueWords(row) {
  if (typeof row.value !== "number") return "not valued yet";
  const shown = Number.isInteger(row.value) ? valueText(row.value) : row.value.toFixed(1);
  return row.kind === "exact" ? `${shown}, proved` : `${shown} at depth ${row.depth}`;
}

// The overlay for one move: a badge `width` × `height` units centred on `cx` with its top
// at `top` and the value in `font`-unit type, and the depth tag (`tagFont`) centred on
// `cx` with its top at `tagTop`. Nothing catches the pointer: a tap goes to the square
// under it.
export function analysisBadge(name, { row, best }, geometry) {
  const { cx, top, width, height, font, tagTop, tagFont = 13 } = geometry;
  const g = el("g", {
    class: `analysis ${row.kind}${best ? " best" : ""}`,
    "data-square": name,
    "data-kind": row.kind,
    "data-value": typeof row.value === "number" ? String(row.value) : "",
    "data-depth": String(row.depth ?? 0),
    "data-best": String(best),
  });
  g.append(
    el("rect", { x: cx - width / 2, y: top, width, height, rx: height / 2, class: "av-badge" }),
    el("text", {
      x: cx, y: top + height / 2 + font * 0.36, class: "av", "text-anchor": "middle",
      "font-size": font,
    }, valueText(row.value)),
  );
  if (row.kind === "depth") {
    const tag = `d${row.depth}`;
    const h = tagFont + 5;
    const w = h * 0.7 + tagFont * 0.62 * tag.length;
    g.append(
      el("rect", { x: cx - w / 2, y: tagTop, width: w, height: h, rx: h / 2, class: "ad-badge" }),
      el("text", {
        x: cx, y: tagTop + h / 2 + tagFont * 0.36, class: "ad", "text-anchor": "middle",
        "font-size": tagFont,
      }, tag),
    );
  }
  g.append(el("title", {}, `${name}: ${valueWords(row)}${best ? " (best)" : ""}`));
  return g;
}

// ---------------------------------------------------------------- win rates (Go)

// A win rate (0-1) as a whole percentage: "54%".
export function percentText(value) {
  return typeof value === "number" ? `${Math.round(100 * value)}%` : "…";
}

// A visit count, compactly: "850", "1.2k", "12k", "1.2M".
export function visitsText(n) {
  if (typeof n !== "number") return "…";
  if (n < 1000) return String(n);
  if (n < 9950) return `${(n / 1000).toFixed(1)}k`;
  if (n < 999_500) return `${Math.round(n / 1000)}k`;
  return `${(n / 1e6).toFixed(1)}M`;
}

// The rows of a win-rate analysis a board shows, most visited first: the `top` most
// visited and every other with at least `share` of the most visited one's visits (at most
// `most`), the pass left out (no point to draw it on).
export function candidates(data, { top = 10, share = 0.05, most = 30 } = {}) {
  if (!data || !Array.isArray(data.moves)) return [];
  const rows = data.moves
    .filter((r) => r.kind === "winrate" && typeof r.value === "number" && r.visits > 0)
    .sort((a, b) => b.visits - a.visits);
  if (!rows.length) return [];
  const least = share * rows[0].visits;
  const shown = rows.filter((r, i) => i < top || r.visits >= least).slice(0, most);
  return shown.filter((r) => r.move !== "pass");
}

// Black's lead in points from an analysis's extra (`score_lead` is the mover's), as a
// result is written: "B+3.5", "W+0.4", "even"; null if there is none.
export function scoreLeadText(extra) {
  const lead = extra?.score_lead;
  if (typeof lead !== "number" || !extra.to_move) return null;
  const black = extra.to_move === "black" ? lead : -lead;
  const shown = Math.abs(black).toFixed(1);
  if (shown === "0.0") return "even";
  return `${black > 0 ? "B" : "W"}+${shown}`;
}

// The status line of a win-rate analysis: the score estimate, the visits, and what the
// win rates are (a handicap game's are counted with the search's own komi).
function winrateStatus(msg, stoppedBy) {
  const data = msg.data;
  const extra = data.extra ?? {};
  const parts = [];
  const score = scoreLeadText(extra);
  if (score) parts.push(`score ${score} (estimate)`);
  if (typeof extra.root_visits === "number") parts.push(`${visitsText(extra.root_visits)} visits`);
  const top = data.moves.find((r) => r.kind === "winrate");
  if (top?.move === "pass") parts.push(`most visited: pass (${percentText(top.value)})`);
  if (typeof extra.search_komi === "number") {
    parts.push(`win rates at komi ${Number(extra.search_komi.toFixed(1))}`);
  }
  const said = parts.join(" · ");
  if (msg.status === "done") {
    const why = stoppedBy[data.stopped_by] ?? data.stopped_by;
    return `Analysis: stopped (${why})${said ? `: ${said}` : ""}; win rates are estimates.`;
  }
  return `Analysis: analysing…${said ? ` ${said}` : ""}`;
}

// The deepest depth-limited value of `data` (null if none).
function depthReached(data) {
  const depths = data.moves.filter((r) => r.kind === "depth").map((r) => r.depth);
  return depths.length ? Math.max(...depths) : null;
}

// The status line for the latest "analysis" message `msg` of the position shown (null:
// none yet); `stoppedBy` words why a search ended (banmen.web.games.STOPPED_BY).
export function analysisStatus(msg, stoppedBy) {
  if (!msg) return "Analysis: starting…";
  const data = msg.data;
  switch (msg.status) {
    case "over":
      return "Analysis: the game is over.";
    case "failed":
      return `Analysis: ${msg.message ?? "failed"}.`;
    case "off":
      return "";
    case "waiting":
      return `Analysis: ${msg.message ?? "waiting for an engine"}…`;
    default:
      break;
  }
  if (!data || !Array.isArray(data.moves)) return "Analysis: analysing…";
  if (data.moves.some((r) => r.kind === "winrate")) return winrateStatus(msg, stoppedBy);
  const proved = data.moves.filter((r) => r.kind === "exact").length;
  const depth = depthReached(data);
  if (data.complete) return "Analysis: every value proved.";
  const parts = [];
  if (depth !== null) parts.push(`depth ${depth}`);
  if (proved) parts.push(`${proved} of ${data.moves.length} proved`);
  const reached = parts.length ? ` ${parts.join(", ")}` : "";
  if (msg.status === "done") {
    const why = stoppedBy[data.stopped_by] ?? data.stopped_by;
    return `Analysis: stopped (${why}) at${reached || " the start"}.`;
  }
  return `Analysis: analysing…${reached}`;
}

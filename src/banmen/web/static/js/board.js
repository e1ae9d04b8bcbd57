// The Mattix board widget (see svg.js for the contract): `new MattixBoard(svg, { onMove })`,
// then `set({ state, mode, analysis })` with the server's "state" message; in "play" mode
// the legal pieces (state.legal) can be taken, and taking one calls onMove(square name).
// `analysis` (an "analysis" message's data, or null) puts each legal piece's value for the
// mover on it, as analysis.js draws it: a badge over the piece's number, the depth tag at
// its foot, and a ring round the best pieces.
//
// The SVG uses a fixed coordinate system (100 units per cell) and a viewBox, so CSS can
// scale it to any width. It is redrawn from scratch on every state: boards are at most
// 8x8, and a full redraw can never leave stale highlights behind.

import { analysisBadge, analysisByMove, valueWords } from "./analysis.js";
import { Board, el, gridLabels, pickable } from "./svg.js";

const CELL = 100;
const MARGIN = 34; // room for the column letters (top) and row numbers (left)
const PAD = 8;
const CHIP_LONG = 52; // the chip's arms: it covers the middle 52 units of its cell
const LABEL_HEIGHT = 20; // the last move's badge, under the chip: (100 - 52) / 2 = 24 free

const PLAYER_COLORS = { 1: "#2563eb", 2: "#d97706" };
// darker shades of the players' colours, under white text
const LABEL_COLORS = { 1: "#1d4ed8", 2: "#b45309" };

function squareName(sq, size) {
  return String.fromCharCode(97 + (sq % size)) + String(Math.floor(sq / size) + 1);
}

function cellOrigin(sq, size) {
  return [MARGIN + (sq % size) * CELL, MARGIN + Math.floor(sq / size) * CELL];
}

function center(sq, size) {
  const [x, y] = cellOrigin(sq, size);
  return [x + CELL / 2, y + CELL / 2];
}

function drawChip(g, sq, size) {
  const [cx, cy] = center(sq, size);
  const long = CHIP_LONG;
  const thick = 17;
  const chip = el("g", { class: "chip", "data-square": squareName(sq, size) });
  chip.append(
    el("rect", { x: cx - long / 2, y: cy - thick / 2, width: long, height: thick, rx: 4, fill: "#c0392b" }),
    el("rect", { x: cx - thick / 2, y: cy - long / 2, width: thick, height: long, rx: 4, fill: "#c0392b" }),
  );
  chip.append(el("title", {}, `cross chip on ${squareName(sq, size)}`));
  g.append(chip);
}

export class MattixBoard extends Board {
  draw({ state, mode, analysis }) {
    drawBoard(this.svg, state, mode === "play", (name) => this.on.onMove(name), analysis);
  }
}

function drawBoard(svg, state, interactive, onTake, analysis) {
  const n = state.size;
  const span = MARGIN + n * CELL + PAD;
  svg.setAttribute("viewBox", `0 0 ${span} ${span}`);
  svg.dataset.mover = String(state.turn); // the stylesheet colours the legal pieces by it
  svg.replaceChildren();

  const legal = new Set(state.legal);
  const mover = state.turn;
  const values = analysisByMove(state.over ? null : analysis);
  svg.dataset.analysis = String(values.size > 0);

  svg.append(el("rect", { x: 0, y: 0, width: span, height: span, rx: 14, class: "board-bg" }));

  // Coordinates: columns a, b, c... across the top; rows 1, 2, 3... down the left side.
  svg.append(...gridLabels(n, MARGIN, CELL, 10));

  // The line the side to move takes from.
  if (!state.over) {
    const row = Math.floor(state.chip / n);
    const col = state.chip % n;
    const band = mover === 1
      ? { x: MARGIN, y: MARGIN + row * CELL, width: n * CELL, height: CELL }
      : { x: MARGIN + col * CELL, y: MARGIN, width: CELL, height: n * CELL };
    svg.append(el("rect", { ...band, rx: 10, fill: PLAYER_COLORS[mover], "fill-opacity": 0.22, class: "line-band" }));
  }

  for (let sq = 0; sq < n * n; sq++) {
    const [x, y] = cellOrigin(sq, n);
    svg.append(el("rect", { x: x + 3, y: y + 3, width: CELL - 6, height: CELL - 6, rx: 10, class: "cell" }));
  }

  // The last move: a dashed path from where the chip was to the square just taken.
  const last = state.last;
  if (last) {
    const [x1, y1] = center(last.from, n);
    const [x2, y2] = center(last.sq, n);
    svg.append(el("line", { x1, y1, x2, y2, class: "last-path", stroke: PLAYER_COLORS[last.player] }));
    const [x, y] = cellOrigin(last.sq, n);
    svg.append(el("rect", {
      x: x + 6, y: y + 6, width: CELL - 12, height: CELL - 12, rx: 12,
      class: "last-move", stroke: PLAYER_COLORS[last.player], "data-square": last.square,
    }));

  }

  for (let sq = 0; sq < n * n; sq++) {
    const value = state.cells[sq];
    if (value === null) continue;
    const name = squareName(sq, n);
    const [x, y] = cellOrigin(sq, n);
    const canTake = interactive && legal.has(sq);
    const negative = value < 0;
    const classes = ["piece", negative ? "negative" : "positive"];
    const valued = legal.has(sq) ? values.get(name) : undefined;
    if (legal.has(sq)) classes.push("legal");
    if (canTake) classes.push("takeable");
    if (valued?.best) classes.push("best");
    const g = el("g", { class: classes.join(" "), "data-square": name, "data-value": value });
    if (valued?.best) {
      g.append(el("rect", { x: x + 2, y: y + 2, width: CELL - 4, height: CELL - 4, rx: 14, class: "best-ring" }));
    }
    g.append(el("rect", { x: x + 10, y: y + 10, width: CELL - 20, height: CELL - 20, rx: 12, class: "tile" }));
    g.append(el("text", {
      x: x + CELL / 2, y: y + CELL / 2 + 13, class: "value", "text-anchor": "middle",
      "font-size": String(value).length > 2 ? 30 : 38,
    }, String(value)));
    if (valued) {
      // the badge over the piece's number, the depth tag under it
      g.append(analysisBadge(name, valued, {
        cx: x + CELL / 2, top: y + 4, width: 66, height: 26, font: 20, tagTop: y + 69,
        tagFont: 15,
      }));
    }
    const worth = valued ? ` (value ${valueWords(valued.row)}${valued.best ? ", best" : ""})` : "";
    if (canTake) {
      pickable(g, `take ${value} at ${name}${worth}`, () => onTake(name));
    } else {
      g.append(el("title", {}, `${value} on ${name}${worth}`));
    }
    svg.append(g);
  }

  drawChip(svg, state.chip, n);
  if (last) drawLastLabel(svg, last, n);
}

// The value just taken, as a small badge under the chip (which now stands on that square):
// in the strip between the chip and the cell's lower edge, so it never covers the chip.
function drawLastLabel(svg, last, size) {
  const [x, y] = cellOrigin(last.sq, size);
  const text = (last.value > 0 ? "+" : "") + last.value;
  const width = 14 + 10 * text.length;
  const top = y + CELL - LABEL_HEIGHT - 2;
  const g = el("g", { class: "last-label", "data-square": last.square });
  g.append(
    el("rect", {
      x: x + (CELL - width) / 2, y: top, width, height: LABEL_HEIGHT, rx: LABEL_HEIGHT / 2,
      fill: LABEL_COLORS[last.player],
    }),
    el("text", { x: x + CELL / 2, y: top + LABEL_HEIGHT - 5, "text-anchor": "middle" }, text),
  );
  svg.append(g);
}

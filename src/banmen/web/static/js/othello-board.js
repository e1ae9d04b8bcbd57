// The Othello board widget (see svg.js for the contract): `new OthelloBoard(svg, { onMove })`,
// then `set({ state, mode, hints, analysis })` with the server's "state" message; in "play"
// mode the legal squares (state.legal) can be played, and playing one calls onMove(square
// name); `hints` shows each legal move's flip count (state.flips); `analysis` (an
// "analysis" message's data, or null) puts each legal move's value for the mover on its
// square, as analysis.js draws it: a badge at the top of the square, the depth tag at its
// foot, the flip count (if shown) between them, and a ring round the best moves.
//
// a1 is the top-left square: files a-h run along the top, ranks 1-8 down the left side.
// Square numbers are 8 * row + column, as on the server. The SVG uses a fixed coordinate
// system (100 units per square) and a viewBox, so CSS scales it to any width; it is redrawn
// from scratch on every state, so no stale marker can survive a change.
//
// What the tests (and curious users) can read off the DOM:
//   circle.disc[data-square][data-color]   every disc ("black" / "white")
//   g.move[data-square][data-flips]        every legal move, with the discs it would turn
//   text.hint[data-square]                 the flip count shown on it (when hints are on)
//   .last-move[data-square]                the last move played
//   g.analysis[data-square]...              a move's value (see analysis.js)

import { analysisBadge, analysisByMove, valueWords } from "./analysis.js";
import { Board, el, gridLabels, pickable } from "./svg.js";

const CELL = 100;
const MARGIN = 28; // room for the file letters (top) and rank numbers (left)
const PAD = 6;
const N = 8;

const COLORS = { 1: "black", 2: "white" };

function squareName(sq) {
  return String.fromCharCode(97 + (sq % N)) + String(Math.floor(sq / N) + 1);
}

function origin(sq) {
  return [MARGIN + (sq % N) * CELL, MARGIN + Math.floor(sq / N) * CELL];
}

function center(sq) {
  const [x, y] = origin(sq);
  return [x + CELL / 2, y + CELL / 2];
}

export class OthelloBoard extends Board {
  draw({ state, mode, hints, analysis }) {
    const onPlay = (name) => this.on.onMove(name);
    drawBoard(this.svg, state, mode === "play", Boolean(hints), onPlay, analysis);
  }
}

function drawBoard(svg, state, interactive, hints, onPlay, analysis) {
  const span = MARGIN + N * CELL + PAD;
  svg.setAttribute("viewBox", `0 0 ${span} ${span}`);
  svg.dataset.mover = COLORS[state.turn]; // the stylesheet colours the move markers by it
  svg.replaceChildren();
  const values = analysisByMove(state.over ? null : analysis);
  svg.dataset.analysis = String(values.size > 0);

  svg.append(el("rect", { x: 0, y: 0, width: span, height: span, rx: 12, class: "board-frame" }));
  svg.append(el("rect", { x: MARGIN, y: MARGIN, width: N * CELL, height: N * CELL, class: "felt" }));

  svg.append(...gridLabels(N, MARGIN, CELL, 7));
  for (let i = 0; i <= N; i++) {
    const p = MARGIN + i * CELL;
    svg.append(
      el("line", { x1: p, y1: MARGIN, x2: p, y2: MARGIN + N * CELL, class: "grid" }),
      el("line", { x1: MARGIN, y1: p, x2: MARGIN + N * CELL, y2: p, class: "grid" }),
    );
  }
  // The four dots at the corners of the centre 4x4 (c3, g3, c7, g7 meet there).
  for (const [c, r] of [[2, 2], [6, 2], [2, 6], [6, 6]]) {
    svg.append(el("circle", { cx: MARGIN + c * CELL, cy: MARGIN + r * CELL, r: 7, class: "star" }));
  }

  const last = state.last && state.last.square !== "pass" ? state.last : null;
  if (last) {
    const [x, y] = origin(last.sq);
    svg.append(el("rect", {
      x: x + 4, y: y + 4, width: CELL - 8, height: CELL - 8, rx: 6,
      class: "last-move", "data-square": last.square,
    }));
  }
  const flipped = new Set(last ? last.flipped : []);

  for (let sq = 0; sq < N * N; sq++) {
    const who = state.cells[sq];
    if (!who) continue;
    const [cx, cy] = center(sq);
    const color = COLORS[who];
    const disc = el("circle", {
      cx, cy, r: 40, class: `disc ${color}`, "data-square": squareName(sq), "data-color": color,
    });
    if (flipped.has(sq)) disc.classList.add("flipped");
    disc.append(el("title", {}, `${color} on ${squareName(sq)}`));
    svg.append(disc);
  }
  if (last) {
    const [cx, cy] = center(last.sq);
    svg.append(el("circle", { cx, cy, r: 9, class: "last-dot" }));
  }

  for (const sq of state.legal) {
    const name = squareName(sq);
    const count = state.flips[String(sq)] ?? 0;
    const [x, y] = origin(sq);
    const [cx, cy] = center(sq);
    const valued = values.get(name);
    const g = el("g", { class: "move", "data-square": name, "data-flips": count });
    g.append(el("rect", { x, y, width: CELL, height: CELL, class: "hit" }));
    if (valued?.best) {
      g.classList.add("best");
      g.append(el("rect", { x: x + 4, y: y + 4, width: CELL - 8, height: CELL - 8, rx: 8, class: "best-ring" }));
    }
    if (hints) {
      g.append(el("circle", { cx, cy, r: 30, class: "marker big" }));
      g.append(el("text", {
        x: cx, y: cy + 13, class: "hint", "text-anchor": "middle", "data-square": name,
      }, String(count)));
    } else {
      g.append(el("circle", { cx, cy, r: 13, class: "marker" }));
    }
    if (valued) {
      g.append(analysisBadge(name, valued, {
        cx, top: y + 3, width: 80, height: 30, font: 25, tagTop: y + 75, tagFont: 16,
      }));
    }
    const worth = valued ? `, value ${valueWords(valued.row)}${valued.best ? ", best" : ""}` : "";
    const what = `${name}, turns ${count} disc${count === 1 ? "" : "s"}${worth}`;
    if (interactive) {
      g.classList.add("playable");
      pickable(g, `play ${what}`, () => onPlay(name));
    } else {
      g.append(el("title", {}, `legal: ${what}`));
    }
    svg.append(g);
  }
}

// The Go board widget (see svg.js for the contract): `new GoBoard(svg, { onMove, onToggle,
// onPoint })`, then `set({ state, mode, analysis, territory })` with the server's "state"
// message. Modes: "play" (a point chosen calls onMove(vertex)), "count" (a group picked
// calls onToggle(vertex)), "view". The pointer handling turns taps, clicks and drags into
// points.
//
// `analysis` (an "analysis" message's data, or null; never drawn on a finished game or
// while counting) shows the tree search's leading candidates (analysis.js `candidates`):
// on each, its win rate for the side to move and its visits ("54%", "1.2k"), the most
// visited one highlighted. The pointer on a candidate (a mouse hovering, a finger pressing,
// a tap while the board only shows, the keyboard cursor) shows its principal variation as
// numbered ghost stones, the mover's colour first. `territory` (default on) adds the
// playouts' ownership: a small square on each point leaning to one side, black or white,
// the surer the darker. Only a change of `state` or `mode` redraws the board; a new
// analysis (eight a second at most, coalesced to one per animation frame) redraws only its
// own layers, so a 19x19 board stays responsive.
//
// Points are named by GTP vertices: a column letter A-T without I (left to right) and a
// row number counted from the bottom ("D4", "Q16"). The state's `cells` run row by row
// from the top, so cells[r * n + c] is the point in column c, r rows below the top edge.
// The SVG has a fixed coordinate system (CELL units between lines) and a viewBox, so CSS
// scales it to any width. Stones, marks and territory are redrawn from scratch on every
// state; only the preview stone under the pointer is moved between states.
//
// Pointer rules (the same for mouse, pen and touch): pressing on the board starts a
// gesture and shows the preview stone where it would go; moving drags the preview from
// point to point; releasing plays it (or, while counting, toggles the group under it).
// A mouse also previews on hover. Releasing off the board or a cancelled touch (a scroll,
// a second finger) plays nothing. Keyboard: the arrow keys move a cursor, Enter or Space
// play there.
//
// What the tests (and curious users) can read off the DOM:
//   circle.stone[data-vertex][data-color]     every stone ("black"/"white"), .dead if marked
//   rect.pt[data-vertex]                      one transparent target per point
//   circle.preview[data-vertex][data-legal]   the translucent stone under the pointer
//   rect.territory[data-vertex][data-owner]   counted territory while counting
//   .last-move[data-vertex], .ko-mark[data-vertex], .removed[data-vertex]
//   svg[data-analysis]                        "true" while candidates are drawn
//   g.candidate[data-vertex][data-winrate][data-visits][data-best][data-rank]
//       text.cw (the win rate shown), text.cv (the visits shown)
//   svg[data-pv]                              the candidate whose line is shown ("" if none)
//   circle.pv-stone[data-vertex][data-color][data-n]   its ghost stones, text.pv-n numbers
//   rect.own[data-vertex][data-owner][data-value]      the ownership squares (value: Black's
//                                             view, -1 to 1)

import { candidates, percentText, visitsText } from "./analysis.js";
import { Board, el } from "./svg.js";

const COLUMNS = "ABCDEFGHJKLMNOPQRST";
const CELL = 40;
const STONE = 0.48 * CELL;
const LABEL = 50; // room for the edge stones and the column letters (top), row numbers (left)
const EDGE = 26; // the other two sides: room for the edge stones
const COLORS = { 1: "black", 2: "white" };
// ownership nearer to zero than this draws no square (the point is anyone's)
const OWN_MIN = 0.15;

function vertexName(col, row, n) {
  return `${COLUMNS[col]}${n - row}`;
}

// [col, row from the top] of a vertex, or null.
function vertexPoint(vertex, n) {
  const col = COLUMNS.indexOf(vertex[0]);
  const number = Number(vertex.slice(1));
  if (col < 0 || col >= n || !Number.isInteger(number) || number < 1 || number > n) return null;
  return [col, n - number];
}

// The star points: the corner points on the third line (fourth from 13x13 up), the centre
// of odd boards, and the side midpoints of large boards.
function starPoints(n) {
  if (n < 7) return [];
  const e = n >= 13 ? 3 : 2;
  const lo = e;
  const hi = n - 1 - e;
  const mid = (n - 1) / 2;
  const pts = [[lo, lo], [hi, lo], [lo, hi], [hi, hi]];
  if (n % 2 === 1) {
    pts.push([mid, mid]);
    if (n >= 15) pts.push([mid, lo], [mid, hi], [lo, mid], [hi, mid]);
  }
  return pts;
}

function at(col, row) {
  return [LABEL + col * CELL, LABEL + row * CELL];
}

export class GoBoard extends Board {
  // `onMove(vertex)`: a move was chosen; `onToggle(vertex)`: a group was picked while
  // counting; `onPoint(vertex | null, what)`: the point under the pointer changed (what:
  // "legal", "occupied", "suicide", "ko", "superko", "stone", or null when none).
  constructor(svg, callbacks) {
    super(svg, callbacks);
    this.state = null;
    this.mode = "view"; // "play", "count" or "view"
    this.gesture = null; // the pointer pressed on the board: {id, type}
    this.hover = null; // [col, row] under the pointer or the keyboard cursor
    this.overlay = null;
    // the analysis layers (made by draw) and what they show
    this.layers = null; // { own, cands, pv }
    this.rows = new Map(); // vertex -> candidate row
    this.ownDrawn = null; // the ownership drawn (Black's view), or null
    this.pvPoint = null; // [col, row] whose line is wanted (pointer, tap or cursor)
    this.pvMouse = false; // wanted by a hovering mouse (which stays wanted on a new position)
    this.frame = 0; // a pending requestAnimationFrame of the analysis layers
    this.config.territory = true;
    svg.addEventListener("pointerdown", (ev) => this.down(ev));
    svg.addEventListener("pointermove", (ev) => this.move(ev));
    svg.addEventListener("pointerup", (ev) => this.up(ev));
    svg.addEventListener("pointercancel", () => this.cancel());
    svg.addEventListener("pointerleave", (ev) => {
      if (!this.gesture && ev.pointerType === "mouse") {
        this.setHover(null);
        this.setPv(null);
      }
    });
    svg.addEventListener("lostpointercapture", () => {
      if (this.gesture) this.cancel();
    });
    svg.addEventListener("keydown", (ev) => this.key(ev));
    svg.addEventListener("blur", () => {
      if (!this.gesture) this.setHover(null);
    });
  }

  get size() {
    return this.state ? this.state.size : 0;
  }

  // A new state or mode redraws the board; anything else only the analysis layers: at
  // once when the analysis goes or the territory is switched, at the next animation frame
  // for a new analysis (the latest of those that came meanwhile).
  set(config) {
    const c = this.config;
    const full = !this.layers
      || ("state" in config && config.state !== c.state)
      || ("mode" in config && config.mode !== c.mode);
    const now = ("analysis" in config && !config.analysis)
      || ("territory" in config && config.territory !== c.territory);
    Object.assign(c, config);
    if (!c.state) return;
    if (full) this.draw(c);
    else if (now) this.drawAnalysis();
    else if (!this.frame) {
      this.frame = requestAnimationFrame(() => {
        this.frame = 0;
        this.drawAnalysis();
      });
    }
  }

  // ---------------------------------------------------------------- drawing

  draw({ state, mode }) {
    const n = state.size;
    if (this.state && this.state.size !== n) this.hover = null;
    // A tap's or the cursor's line is for the position it was asked on.
    if (state !== this.state && !this.pvMouse) this.pvPoint = null;
    this.state = state;
    this.mode = mode;
    const svg = this.svg;
    const span = LABEL + (n - 1) * CELL + EDGE;
    svg.setAttribute("viewBox", `0 0 ${span} ${span}`);
    svg.dataset.size = String(n);
    svg.dataset.mode = mode;
    svg.dataset.mover = COLORS[state.turn];
    svg.setAttribute("aria-label", `Go board, ${n} by ${n}`);
    svg.replaceChildren();

    svg.append(el("rect", { x: 0, y: 0, width: span, height: span, rx: 10, class: "wood" }));
    const far = LABEL + (n - 1) * CELL;
    for (let i = 0; i < n; i++) {
      const p = LABEL + i * CELL;
      const edge = i === 0 || i === n - 1 ? " edge" : "";
      svg.append(
        el("line", { x1: p, y1: LABEL, x2: p, y2: far, class: `grid${edge}` }),
        el("line", { x1: LABEL, y1: p, x2: far, y2: p, class: `grid${edge}` }),
        el("text", { x: p, y: LABEL - STONE - 6, class: "coord", "text-anchor": "middle" }, COLUMNS[i]),
        el("text", { x: LABEL - STONE - 13, y: p + 5, class: "coord", "text-anchor": "middle" },
          String(n - i)),
      );
    }
    for (const [c, r] of starPoints(n)) {
      const [x, y] = at(c, r);
      svg.append(el("circle", { cx: x, cy: y, r: 4, class: "star" }));
    }

    const counting = state.counting;
    const dead = new Set(counting ? counting.dead : []);
    const marks = el("g", { class: "marks" });
    const layers = {
      own: el("g", { class: "ownership" }),
      cands: el("g", { class: "candidates" }),
      pv: el("g", { class: "pv" }),
    };
    for (let r = 0; r < n; r++) {
      for (let c = 0; c < n; c++) {
        const who = state.cells[r * n + c];
        if (!who) continue;
        const v = vertexName(c, r, n);
        const [x, y] = at(c, r);
        const color = COLORS[who];
        const stone = el("circle", {
          cx: x, cy: y, r: STONE, class: `stone ${color}`, "data-vertex": v, "data-color": color,
        });
        if (dead.has(v)) {
          stone.classList.add("dead");
          stone.dataset.dead = "true";
        }
        svg.append(stone);
      }
    }
    if (counting) {
      for (const side of ["1", "2"]) {
        for (const v of counting.territory[side]) {
          const p = vertexPoint(v, n);
          if (!p) continue;
          const [x, y] = at(...p);
          const s = CELL * 0.3;
          marks.append(el("rect", {
            x: x - s / 2, y: y - s / 2, width: s, height: s,
            class: `territory ${COLORS[side]}`, "data-vertex": v, "data-owner": COLORS[side],
          }));
        }
      }
    }
    const last = state.last && state.last.square !== "pass" ? state.last : null;
    if (last && !counting) {
      const p = vertexPoint(last.square, n);
      if (p) {
        const [x, y] = at(...p);
        marks.append(el("circle", {
          cx: x, cy: y, r: STONE * 0.45, class: "last-move", "data-vertex": last.square,
        }));
      }
    }
    if (state.last && !counting) {
      for (const v of state.last.removed) {
        const p = vertexPoint(v, n);
        if (!p) continue;
        const [x, y] = at(...p);
        marks.append(el("circle", { cx: x, cy: y, r: STONE * 0.3, class: "removed", "data-vertex": v }));
      }
    }
    if (state.ko) {
      const p = vertexPoint(state.ko, n);
      if (p) {
        const [x, y] = at(...p);
        const s = CELL * 0.42;
        marks.append(el("rect", {
          x: x - s / 2, y: y - s / 2, width: s, height: s, class: "ko-mark", "data-vertex": state.ko,
        }));
      }
    }
    svg.append(layers.own, marks, layers.cands);

    // Transparent targets, one per point: titles for mouse users, handles for tests.
    const targets = el("g", { class: "targets" });
    for (let r = 0; r < n; r++) {
      for (let c = 0; c < n; c++) {
        const [x, y] = at(c, r);
        targets.append(el("rect", {
          x: x - CELL / 2, y: y - CELL / 2, width: CELL, height: CELL,
          class: "pt", "data-vertex": vertexName(c, r, n),
        }));
      }
    }
    svg.append(targets);
    this.overlay = el("g", { class: "overlay" });
    svg.append(this.overlay, layers.pv);
    if (mode === "view") {
      this.gesture = null;
      this.hover = null;
    }
    this.layers = layers;
    this.ownDrawn = null;
    this.drawAnalysis();
    this.drawHover();
    this.emitPoint(); // the point under the pointer may have changed under it
  }

  // ---------------------------------------------------------------- analysis

  // The analysis layers from the configuration: the ownership (redrawn only when it
  // changes: it is estimated once per position), the candidates and the line wanted.
  drawAnalysis() {
    if (this.frame) {
      cancelAnimationFrame(this.frame);
      this.frame = 0;
    }
    const { state, analysis, territory } = this.config;
    if (!this.layers || !state) return;
    const data = state.over || state.counting ? null : analysis;
    const n = state.size;
    const shown = candidates(data);
    this.rows = new Map(shown.map((r) => [r.move, r]));
    this.svg.dataset.analysis = String(shown.length > 0);
    const mover = data?.extra?.to_move === "white" ? -1 : 1;
    const own = data && territory !== false ? data.extra?.ownership : null;
    this.drawOwnership(Array.isArray(own) && own.length === n * n ? own : null, mover);
    this.drawCandidates(shown);
    this.drawPv();
  }

  drawOwnership(own, mover) {
    const layer = this.layers.own;
    const drawn = this.ownDrawn;
    const same = own && drawn && drawn.mover === mover && drawn.own.length === own.length
      && own.every((v, i) => v === drawn.own[i]);
    if (same || (!own && !drawn)) return;
    this.ownDrawn = own ? { own, mover } : null;
    if (!own) {
      layer.replaceChildren();
      return;
    }
    const n = this.size;
    const side = CELL * 0.34;
    const squares = [];
    for (let i = 0; i < own.length; i++) {
      const black = mover * own[i]; // Black's view
      if (!(Math.abs(black) >= OWN_MIN)) continue;
      const r = Math.floor(i / n);
      const c = i % n;
      const [x, y] = at(c, r);
      const owner = black > 0 ? "black" : "white";
      squares.push(el("rect", {
        x: x - side / 2, y: y - side / 2, width: side, height: side,
        class: `own ${owner}`, "fill-opacity": (0.2 + 0.65 * Math.min(1, Math.abs(black))).toFixed(2),
        "data-vertex": vertexName(c, r, n), "data-owner": owner, "data-value": black.toFixed(2),
      }));
    }
    layer.replaceChildren(...squares);
  }

  drawCandidates(rows) {
    const n = this.size;
    const best = rows[0];
    const groups = [];
    rows.forEach((row, rank) => {
      const p = vertexPoint(row.move, n);
      if (!p) return;
      const [x, y] = at(...p);
      const gap = best.value - row.value; // how much less often the mover wins through it
      const grade = rank === 0 ? "best" : gap <= 0.03 ? "near" : gap <= 0.1 ? "mid" : "far";
      const g = el("g", {
        class: `candidate ${grade}`, "data-vertex": row.move, "data-winrate": String(row.value),
        "data-visits": String(row.visits), "data-best": String(rank === 0),
        "data-rank": String(rank + 1),
      });
      g.append(
        el("circle", { cx: x, cy: y, r: STONE - 1, class: "cand-disc" }),
        el("text", { x, y: y - 1, class: "cw", "text-anchor": "middle" }, percentText(row.value)),
        el("text", { x, y: y + 12, class: "cv", "text-anchor": "middle" }, visitsText(row.visits)),
      );
      groups.push(g);
    });
    this.layers.cands.replaceChildren(...groups);
  }

  // The principal variation of the candidate at `pvPoint`, if it is one: numbered ghost
  // stones, alternating from the side to move (a pass keeps its number, draws nothing).
  drawPv() {
    const layer = this.layers.pv;
    const n = this.size;
    const p = this.pvPoint;
    const row = p ? this.rows.get(vertexName(p[0], p[1], n)) : undefined;
    this.svg.dataset.pv = row ? row.move : "";
    this.layers.cands.classList.toggle("behind", Boolean(row));
    if (!row) {
      layer.replaceChildren();
      return;
    }
    const first = this.state.turn;
    const stones = [];
    row.pv.forEach((v, i) => {
      const q = vertexPoint(v, n);
      if (!q) return; // a pass
      const [x, y] = at(...q);
      const color = COLORS[i % 2 === 0 ? first : 3 - first];
      stones.push(
        el("circle", {
          cx: x, cy: y, r: STONE - 1, class: `pv-stone ${color}`,
          "data-vertex": v, "data-color": color, "data-n": String(i + 1),
        }),
        el("text", { x, y: y + 5, class: `pv-n ${color}`, "text-anchor": "middle" }, String(i + 1)),
      );
    });
    layer.replaceChildren(...stones);
  }

  setPv(point, mouse = false) {
    this.pvMouse = mouse && point !== null;
    const old = this.pvPoint;
    const same = point === old || (point && old && point[0] === old[0] && point[1] === old[1]);
    if (same) return;
    this.pvPoint = point;
    if (this.layers && this.state) this.drawPv();
  }

  // The candidate on `vertex` in words (for the point note), or null.
  candidateWords(vertex) {
    const row = this.rows.get(vertex);
    if (!row) return null;
    return `win rate ${percentText(row.value)} (an estimate), ${visitsText(row.visits)} visits`;
  }

  // What is on a point for the player to move: "legal", "occupied", or the rules' reason.
  pointInfo(col, row) {
    const s = this.state;
    const n = s.size;
    const v = vertexName(col, row, n);
    if (s.cells[row * n + col]) return [v, this.mode === "count" ? "stone" : "occupied"];
    if (this.mode === "count") return [v, null];
    return [v, s.illegal[v] ?? (s.legal.includes(v) ? "legal" : "occupied")];
  }

  drawHover() {
    const o = this.overlay;
    if (!o) return;
    o.replaceChildren();
    if (!this.hover || this.mode === "view") return;
    const [col, row] = this.hover;
    const [v, what] = this.pointInfo(col, row);
    const [x, y] = at(col, row);
    if (this.gesture && this.gesture.type !== "mouse") {
      // A finger hides the stone under it: long cross-hairs show where it will land.
      const far = LABEL + (this.size - 1) * CELL;
      o.append(
        el("line", { x1: x, y1: LABEL, x2: x, y2: far, class: "crosshair" }),
        el("line", { x1: LABEL, y1: y, x2: far, y2: y, class: "crosshair" }),
      );
    }
    if (this.mode === "play" && what !== "occupied") {
      const legal = what === "legal";
      const g = el("g", { class: `preview-g${legal ? "" : " illegal"}` });
      g.append(el("circle", {
        cx: x, cy: y, r: STONE, class: `preview ${COLORS[this.state.turn]}`,
        "data-vertex": v, "data-legal": String(legal),
      }));
      if (!legal) {
        const d = STONE * 0.5;
        g.append(el("path", { d: `M${x - d} ${y - d}L${x + d} ${y + d}M${x + d} ${y - d}L${x - d} ${y + d}`, class: "no" }));
      }
      o.append(g);
    } else if (this.mode === "count" && what === "stone") {
      o.append(el("circle", { cx: x, cy: y, r: STONE + 3, class: "pick", "data-vertex": v }));
    } else if (this.mode === "play" && this.gesture) {
      o.append(el("circle", { cx: x, cy: y, r: STONE + 3, class: "pick taken", "data-vertex": v }));
    }
  }

  setHover(point) {
    const same = point === this.hover
      || (point && this.hover && point[0] === this.hover[0] && point[1] === this.hover[1]);
    this.hover = point;
    this.drawHover();
    if (!same) this.emitPoint();
  }

  emitPoint() {
    const p = this.hover;
    if (p && this.state && this.mode !== "view") this.on.onPoint(...this.pointInfo(p[0], p[1]));
    else this.on.onPoint(null, null);
  }

  // ---------------------------------------------------------------- input

  // The point nearest to a pointer event, or null off the board.
  pointAt(ev) {
    const m = this.svg.getScreenCTM();
    if (!m || !this.state) return null;
    const p = new DOMPoint(ev.clientX, ev.clientY).matrixTransform(m.inverse());
    const col = Math.round((p.x - LABEL) / CELL);
    const row = Math.round((p.y - LABEL) / CELL);
    const n = this.size;
    return col >= 0 && col < n && row >= 0 && row < n ? [col, row] : null;
  }

  down(ev) {
    if (this.mode === "view" && ev.pointerType !== "mouse" && !this.gesture) {
      // A tap on a board that only shows: the candidate's line on, or off again.
      const p = this.pointAt(ev);
      const old = this.pvPoint;
      this.setPv(p && old && p[0] === old[0] && p[1] === old[1] ? null : p);
      return;
    }
    if (this.mode === "view" || this.gesture) return;
    if (ev.pointerType === "mouse" && ev.button !== 0) return;
    const p = this.pointAt(ev);
    if (!p) return;
    this.setPv(p, ev.pointerType === "mouse");
    this.gesture = { id: ev.pointerId, type: ev.pointerType };
    try {
      this.svg.setPointerCapture(ev.pointerId);
    } catch {
      /* capture is a nicety: moves over the svg still arrive */
    }
    ev.preventDefault();
    this.setHover(p);
  }

  move(ev) {
    if (this.gesture) {
      if (ev.pointerId !== this.gesture.id) return;
      const p = this.pointAt(ev);
      this.setHover(p);
      this.setPv(p, this.gesture.type === "mouse");
    } else if (ev.pointerType === "mouse") {
      const p = this.pointAt(ev);
      if (this.mode !== "view") this.setHover(p);
      this.setPv(p, true);
    }
  }

  up(ev) {
    const g = this.gesture;
    if (!g || ev.pointerId !== g.id) return;
    this.gesture = null;
    const p = this.pointAt(ev);
    if (g.type !== "mouse") {
      this.setHover(null);
      this.setPv(null);
    } else {
      this.setHover(p);
    }
    if (!p) return;
    this.pick(p);
  }

  cancel() {
    this.gesture = null;
    this.setHover(null);
    this.setPv(null);
  }

  pick([col, row]) {
    const v = vertexName(col, row, this.size);
    if (this.mode === "play") this.on.onMove(v);
    else if (this.mode === "count") this.on.onToggle(v);
  }

  key(ev) {
    if (this.mode === "view" || !this.state) return;
    const n = this.size;
    const steps = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
    if (steps[ev.key]) {
      ev.preventDefault();
      const [c, r] = this.hover ?? [Math.floor(n / 2), Math.floor(n / 2)];
      const [dc, dr] = this.hover ? steps[ev.key] : [0, 0];
      const p = [Math.min(n - 1, Math.max(0, c + dc)), Math.min(n - 1, Math.max(0, r + dr))];
      this.setHover(p);
      this.setPv(p);
    } else if ((ev.key === "Enter" || ev.key === " ") && this.hover) {
      ev.preventDefault();
      this.pick(this.hover);
    } else if (ev.key === "Escape") {
      this.setHover(null);
      this.setPv(null);
    }
  }
}

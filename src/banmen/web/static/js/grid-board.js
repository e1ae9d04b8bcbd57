// The generic board widget (see svg.js for the contract): the board of every game drawn
// from its GridView (banmen.web.grid), for a game that brings no page of its own.
//
//   const board = new GridBoard(svg, { pieces, shape, click, onMove, onPair });
//   board.set({ state, mode, analysis });
//
// `pieces` (the game's: key -> [colour, letter]) says how each cell's key is drawn: a disc
// of that CSS colour with the letter on it (no colour: the letter alone; a key the game
// does not list: the key itself as the letter). `shape` is "square" or "hex" (pointy-top
// hexagons, every other row shifted half a cell to the right). The state gives `rows`,
// `cols`, `cells` (one key per cell, row by row from the top, "" for an empty one),
// `clicks` (cell -> the move a click there plays), `move_cells` (legal move -> the cell
// it is shown on) and `last` (its `cell`). In "play" mode a game played by clicking one
// cell (`click` "cell") plays `clicks[cell]` through onMove(name); a game played from cell
// to cell ("from-to") picks a first cell, then calls onPair(from, to) with the second (a
// click on the picked cell again drops it). `analysis` (an "analysis" message's data, or
// null) puts each move's value on its cell, as analysis.js draws it (a cell several moves
// end on shows the best of them).
//
// The SVG has a fixed coordinate system (100 units a cell) and a viewBox; it is redrawn
// from scratch on every state. What the tests read off the DOM:
//   g.gcell[data-cell][data-key]             every cell (data-move: the move a click plays)
//   g.gcell.playable                         a cell that can be clicked now
//   g.gcell.selected                         the first cell picked (from-to)
//   .last-move[data-cell]                    the last move's cell
//   g.analysis[data-square]...               a move's value (see analysis.js)

import { analysisBadge, analysisByMove, percentText, valueWords } from "./analysis.js";
import { Board, el, pickable } from "./svg.js";

const CELL = 100; // a square cell's side, a hexagon's width
const PAD = 14;
const HEX_R = CELL / Math.sqrt(3); // a hexagon's corner radius: CELL wide, point up

// Where cell `i` of a `rows` x `cols` grid is drawn: its centre, and its outline.
function geometry(shape, rows, cols) {
  if (shape === "hex") {
    const step = 1.5 * HEX_R;
    const width = 2 * PAD + cols * CELL + (rows > 1 ? CELL / 2 : 0);
    const height = 2 * PAD + 2 * HEX_R + (rows - 1) * step;
    const center = (i) => {
      const r = Math.floor(i / cols);
      const c = i % cols;
      return [PAD + CELL / 2 + c * CELL + (r % 2 ? CELL / 2 : 0), PAD + HEX_R + r * step];
    };
    const outline = (i, inset = 0, attrs = {}) => {
      const [cx, cy] = center(i);
      const r = HEX_R - inset;
      const points = [];
      for (let k = 0; k < 6; k++) {
        const a = (Math.PI / 180) * (60 * k - 90);
        points.push(`${(cx + r * Math.cos(a)).toFixed(1)},${(cy + r * Math.sin(a)).toFixed(1)}`);
      }
      return el("polygon", { points: points.join(" "), ...attrs });
    };
    return { width, height, center, outline, disc: 0.62 * HEX_R, badgeTop: -28, tagTop: 14 };
  }
  const center = (i) => [PAD + (i % cols) * CELL + CELL / 2, PAD + Math.floor(i / cols) * CELL + CELL / 2];
  const outline = (i, inset = 0, attrs = {}) => {
    const [cx, cy] = center(i);
    const half = CELL / 2 - inset;
    return el("rect", { x: cx - half, y: cy - half, width: 2 * half, height: 2 * half, rx: 6, ...attrs });
  };
  return {
    width: 2 * PAD + cols * CELL, height: 2 * PAD + rows * CELL, center, outline, disc: 38,
    badgeTop: -47, tagTop: 25,
  };
}

export class GridBoard extends Board {
  constructor(svg, callbacks = {}) {
    super(svg, callbacks);
    this.picked = null; // the first cell of a move from cell to cell
    this.pickedAt = null; // ...and the position it was picked in
  }

  draw({ state, mode, analysis }) {
    // A pick belongs to one position and one turn to play: anything else drops it.
    const here = `${state.id}:${state.history.length}`;
    if (mode !== "play" || this.pickedAt !== here) this.picked = null;
    drawBoard(this, state, mode === "play", analysis);
  }

  pick(cell, state) {
    if (this.picked === null) {
      this.picked = cell;
      this.pickedAt = `${state.id}:${state.history.length}`;
      this.set({});
    } else if (this.picked === cell) {
      this.picked = null;
      this.set({});
    } else {
      const from = this.picked;
      this.picked = null;
      this.on.onPair(from, cell);
    }
  }
}

function cellWords(i, cols) {
  return `row ${Math.floor(i / cols) + 1}, column ${(i % cols) + 1}`;
}

function drawBoard(widget, state, interactive, analysis) {
  const { svg } = widget;
  const { pieces = {}, shape = "square", click = "cell" } = widget.on;
  const { rows, cols } = state;
  const geo = geometry(shape, rows, cols);
  svg.setAttribute("viewBox", `0 0 ${geo.width.toFixed(1)} ${geo.height.toFixed(1)}`);
  svg.dataset.mover = String(state.turn);
  svg.dataset.shape = shape;
  svg.replaceChildren();
  svg.append(el("rect", { x: 0, y: 0, width: geo.width, height: geo.height, rx: 12, class: "frame" }));

  const values = analysisByMove(state.over ? null : analysis);
  svg.dataset.analysis = String(values.size > 0);
  // each cell's best-valued move (rows come best first)
  const valued = new Map();
  for (const [name, v] of values) {
    const cell = state.move_cells?.[name];
    if (cell !== undefined && !valued.has(cell)) valued.set(cell, [name, v]);
  }
  const targets = new Set(Object.values(state.move_cells ?? {}));
  const fromTo = click === "from-to";

  for (let i = 0; i < rows * cols; i++) {
    const key = state.cells[i];
    const move = fromTo ? undefined : state.clicks?.[String(i)];
    const g = el("g", { class: "gcell", "data-cell": i, "data-key": key });
    if (move !== undefined) g.dataset.move = move;
    g.append(geo.outline(i, 2, { class: "gcell-bg" }));
    const [cx, cy] = geo.center(i);
    if (key) {
      const [colour, letter] = pieces[key] ?? ["", key];
      if (colour) g.append(el("circle", { cx, cy, r: geo.disc, class: "disc", fill: colour }));
      if (letter) {
        g.append(el("text", {
          x: cx, y: cy + geo.disc * 0.4, "text-anchor": "middle", "font-size": geo.disc * 1.15,
          class: colour ? "letter on-disc" : "letter",
        }, letter));
      }
    } else if (!state.over && targets.has(i) && !valued.has(i)) {
      g.append(el("circle", { cx, cy, r: 10, class: "marker" }));
    }
    const what = `${cellWords(i, cols)}${key ? `, ${pieces[key]?.[1] || key}` : ", empty"}`;
    const shown = valued.get(i);
    const worth = shown ? `, value ${valueWords(shown[1].row)}${shown[1].best ? ", best" : ""}` : "";
    if (interactive && fromTo) {
      g.classList.add("playable");
      if (widget.picked === i) g.classList.add("selected");
      const verb = widget.picked === null ? "pick" : widget.picked === i ? "drop the pick of" : "move to";
      pickable(g, `${verb} ${what}`, () => widget.pick(i, state));
    } else if (interactive && move !== undefined) {
      g.classList.add("playable");
      pickable(g, `play ${move} (${what}${worth})`, () => widget.on.onMove(move));
    } else {
      g.append(el("title", {}, `${what}${worth}`));
    }
    svg.append(g);
  }

  const last = state.last && state.last.cell !== null && state.last.cell !== undefined ? state.last : null;
  if (last) {
    svg.append(geo.outline(last.cell, 7, { class: "last-move", "data-cell": last.cell, "data-square": last.square }));
  }
  for (const [cell, [name, v]] of valued) {
    const [cx, cy] = geo.center(cell);
    if (v.best) svg.append(geo.outline(cell, 5, { class: "best-ring" }));
    const badge = analysisBadge(name, v, {
      cx, top: cy + geo.badgeTop, width: 76, height: 28, font: 23, tagTop: cy + geo.tagTop, tagFont: 15,
    });
    if (v.row.kind === "winrate") badge.querySelector(".av").textContent = percentText(v.row.value);
    svg.append(badge);
  }
}

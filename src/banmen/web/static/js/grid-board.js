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
// `coords` (null, or the `files` over the columns and `ranks` beside the rows: square
// grids only), `clicks` (cell -> the move a click there plays), `move_cells` (legal move ->
// the cell it is shown on), `targets` (a from-to game's: origin cell -> target cell ->
// move, or null) and `last` (its `cell`, its origin `from` and its `player`). In "play"
// mode a game played by clicking one cell (`click` "cell") plays `clicks[cell]` through
// onMove(name). A game played from cell to cell ("from-to") picks a first cell, then calls
// onPair(from, to) with the second; with `targets` the first click picks only a piece
// that can move, the board then shows that piece's targets alone (their markers and
// analysis values), a second click on one plays, on another piece that can move picks
// it instead, anywhere else drops the pick; without `targets` any cell is picked, any
// other plays the pair (the server judges it), the same cell again drops the pick.
// `analysis` (an "analysis" message's data, or null) puts each move's value on its cell,
// as analysis.js draws it (a cell several moves end on shows the best of them).
//
// The last move is ringed in its mover's colour (the page's --p1 / --p2), its origin, if
// it has one, marked in the same colour.
//
// The SVG has a fixed coordinate system (100 units a cell) and a viewBox; it is redrawn
// from scratch on every state. What the tests read off the DOM:
//   g.gcell[data-cell][data-key]             every cell (data-move: the move a click plays)
//   g.gcell.playable                         a cell that can be clicked now
//   g.gcell.selected                         the first cell picked (from-to)
//   g.gcell.target                           a target of the picked piece (from-to)
//   .marker                                  a legal move's (or the picked piece's) target
//   .last-move[data-cell][data-player]       the last move's cell, and who played it
//   .last-from[data-cell][data-player]       the last move's origin
//   text.coord[data-file] / [data-rank]      the coordinates
//   g.analysis[data-square]...               a move's value (see analysis.js)

import { analysisBadge, analysisByMove, percentText, valueWords } from "./analysis.js";
import { Board, el, pickable } from "./svg.js";

const CELL = 100; // a square cell's side, a hexagon's width
const PAD = 14;
const HEX_R = CELL / Math.sqrt(3); // a hexagon's corner radius: CELL wide, point up
const LABEL = 34; // the strip of the coordinates

// Where cell `i` of a `rows` x `cols` grid is drawn: its centre, and its outline; and, on a
// square grid with `coords`, the coordinates' labels.
function geometry(shape, rows, cols, coords) {
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
    return {
      width, height, center, outline, disc: 0.62 * HEX_R, badgeTop: -28, tagTop: 14, labels: null,
    };
  }
  // with coordinates, a strip for them over the board and left of it
  const left = PAD + (coords ? LABEL : 0);
  const top = PAD + (coords ? LABEL : 0);
  const center = (i) => [left + (i % cols) * CELL + CELL / 2, top + Math.floor(i / cols) * CELL + CELL / 2];
  const outline = (i, inset = 0, attrs = {}) => {
    const [cx, cy] = center(i);
    const half = CELL / 2 - inset;
    return el("rect", { x: cx - half, y: cy - half, width: 2 * half, height: 2 * half, rx: 6, ...attrs });
  };
  const labels = () => [
    ...coords.files.map((f, c) => el("text", {
      x: center(c)[0], y: top - 12, class: "coord", "text-anchor": "middle", "data-file": c,
    }, f)),
    ...coords.ranks.map((r, row) => el("text", {
      x: PAD + LABEL / 2, y: center(row * cols)[1] + 8, class: "coord", "text-anchor": "middle",
      "data-rank": row,
    }, r)),
  ];
  return {
    width: left + cols * CELL + PAD, height: top + rows * CELL + PAD, center, outline, disc: 38,
    badgeTop: -47, tagTop: 25, labels: coords ? labels : null,
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

  // A click on `cell` of a game played from cell to cell (see the top of this file).
  pick(cell, state) {
    const targets = state.targets ?? null;
    const from = this.picked;
    if (from !== null && from !== cell && (targets === null || targets[from]?.[cell] !== undefined)) {
      this.picked = null;
      this.on.onPair(from, cell);
      return;
    }
    const canPick = from !== cell && (targets === null || targets[cell] !== undefined);
    this.picked = canPick ? cell : null;
    this.pickedAt = `${state.id}:${state.history.length}`;
    this.set({});
  }
}

function cellWords(i, cols, coords) {
  const [row, col] = [Math.floor(i / cols), i % cols];
  return coords ? `${coords.files[col]}${coords.ranks[row]}` : `row ${row + 1}, column ${col + 1}`;
}

function drawBoard(widget, state, interactive, analysis) {
  const { svg } = widget;
  const { pieces = {}, shape = "square", click = "cell" } = widget.on;
  const { rows, cols } = state;
  const coords = shape === "square" ? state.coords ?? null : null;
  const geo = geometry(shape, rows, cols, coords);
  svg.setAttribute("viewBox", `0 0 ${geo.width.toFixed(1)} ${geo.height.toFixed(1)}`);
  svg.dataset.mover = String(state.turn);
  svg.dataset.shape = shape;
  svg.replaceChildren();
  svg.append(el("rect", { x: 0, y: 0, width: geo.width, height: geo.height, rx: 12, class: "frame" }));
  if (geo.labels) svg.append(...geo.labels());

  const fromTo = click === "from-to";
  // a from-to game's pieces that can move and their targets (null: not known), and the
  // picked piece's targets (cell -> move; null: no piece picked)
  const pairs = fromTo ? state.targets ?? null : null;
  const picked = widget.picked;
  const mine = pairs !== null && picked !== null ? pairs[picked] ?? {} : null;
  const pickedMoves = mine ? new Set(Object.values(mine)) : null;

  const values = analysisByMove(state.over ? null : analysis);
  svg.dataset.analysis = String(values.size > 0);
  // each cell's best-valued move (rows come best first): of the picked piece's moves only
  const valued = new Map();
  for (const [name, v] of values) {
    const cell = state.move_cells?.[name];
    if (cell !== undefined && !valued.has(cell) && (!pickedMoves || pickedMoves.has(name))) {
      valued.set(cell, [name, v]);
    }
  }
  const targets = mine
    ? new Set(Object.keys(mine).map(Number))
    : new Set(Object.values(state.move_cells ?? {}));

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
    const what = `${cellWords(i, cols, coords)}${key ? `, ${pieces[key]?.[1] || key}` : ", empty"}`;
    const shown = valued.get(i);
    const worth = shown ? `, value ${valueWords(shown[1].row)}${shown[1].best ? ", best" : ""}` : "";
    if (interactive && fromTo) {
      const [label, playable] = fromToClick(pairs, picked, mine, i, what, worth);
      if (picked === i) g.classList.add("selected");
      if (mine?.[i] !== undefined) g.classList.add("target");
      if (playable) g.classList.add("playable");
      if (label === null) g.append(el("title", {}, `${what}${worth}`));
      else pickable(g, label, () => widget.pick(i, state));
    } else if (interactive && move !== undefined) {
      g.classList.add("playable");
      pickable(g, `play ${move} (${what}${worth})`, () => widget.on.onMove(move));
    } else {
      g.append(el("title", {}, `${what}${worth}`));
    }
    svg.append(g);
  }

  const last = state.last ?? null;
  const player = last ? last.player : 0;
  if (last && last.from !== null && last.from !== undefined) {
    svg.append(geo.outline(last.from, 7, { class: "last-from", "data-cell": last.from, "data-player": player }));
  }
  if (last && last.cell !== null && last.cell !== undefined) {
    svg.append(geo.outline(last.cell, 7, {
      class: "last-move", "data-cell": last.cell, "data-square": last.square, "data-player": player,
    }));
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

// What a click on cell `i` of a from-to game does (see GridBoard.pick): [its label (null:
// nothing), whether it picks or plays (a cell that only drops the pick is not "playable")].
function fromToClick(pairs, picked, mine, i, what, worth) {
  if (pairs === null) {
    const verb = picked === null ? "pick" : picked === i ? "drop the pick of" : "move to";
    return [`${verb} ${what}`, true];
  }
  if (picked === null) return pairs[i] !== undefined ? [`pick ${what}`, true] : [null, false];
  if (picked === i) return [`drop the pick of ${what}`, true];
  if (mine[i] !== undefined) return [`play ${mine[i]} (${what}${worth})`, true];
  if (pairs[i] !== undefined) return [`pick ${what}`, true];
  return [`drop the pick (${what})`, false];
}

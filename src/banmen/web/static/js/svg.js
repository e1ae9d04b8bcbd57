// What every board widget shares: SVG elements, pickable squares, and the board contract.
//
// The board contract (board.js for Mattix, othello-board.js, go-board.js, shogi-board.js),
// the way chessground's widget works: a board knows no rules and no socket. It is created
// on an <svg> with callbacks, then handed what to show with `set`:
//
//   const board = new OthelloBoard(svg, { onMove: (name) => ... });
//   board.set({ state, mode: "play" });
//
// `set(config)` merges `config` into what the board had and redraws. Every board reads
//   state   the position as the server describes it, legal moves included ("state"
//           message of the game's socket; for shogi, a parsed SFEN position)
//   mode    "view" (nothing to pick), "play" (a tap on a legal move calls onMove(name)),
//           or a board's own ("count": Go's dead groups; "edit": the shogi editor)
// and may take options of its own (Othello's `hints`, shogi's `last` and `selected`).

export const SVG_NS = "http://www.w3.org/2000/svg";

export function el(name, attrs = {}, text) {
  const node = document.createElementNS(SVG_NS, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (text !== undefined) node.textContent = text;
  return node;
}

// The coordinates of a square grid of n × n cells `cell` units wide whose top-left corner is
// at (margin, margin): letters a, b, c… over the columns (their baseline `above` units over
// the grid), numbers 1, 2, 3… left of the rows.
export function gridLabels(n, margin, cell, above) {
  const labels = [];
  for (let i = 0; i < n; i++) {
    const mid = margin + i * cell + cell / 2;
    labels.push(
      el("text", { x: mid, y: margin - above, class: "coord", "text-anchor": "middle" },
        String.fromCharCode(97 + i)),
      el("text", { x: margin / 2, y: mid + 7, class: "coord", "text-anchor": "middle" }, String(i + 1)),
    );
  }
  return labels;
}

// Make `node` a button the user can pick: click, tap, or Enter / Space when focused.
export function pickable(node, label, onPick) {
  node.setAttribute("role", "button");
  node.setAttribute("tabindex", "0");
  node.setAttribute("aria-label", label);
  node.addEventListener("click", onPick);
  node.addEventListener("keydown", (ev) => {
    if (ev.key === "Enter" || ev.key === " ") {
      ev.preventDefault();
      onPick();
    }
  });
}

// The base of every board: keeps the callbacks and the merged configuration; a subclass
// draws it (`draw(config)`), from scratch each time unless it says otherwise.
export class Board {
  constructor(svg, callbacks = {}) {
    this.svg = svg;
    this.on = callbacks;
    this.config = { state: null, mode: "view" };
  }

  set(config) {
    Object.assign(this.config, config);
    if (this.config.state) this.draw(this.config);
  }

  draw() {
    throw new Error("a board draws itself");
  }
}

// The shogi board widget (see svg.js for the contract): `new ShogiBoard(svg, { hands,
// onSquare })` — `hands`: the elements that show black's and white's pieces in hand, { b, w }
// — then `set({ state, mode, last, selected, hint })` with a position (shogi-position.js).
// In "edit" mode a tap on a square calls onSquare(index); `last` is a USI move to
// highlight, `selected` a square index to outline, `hint` a USI move of the side to move to
// point out (the analysis's check under the pointer): an arrow from its square to where it
// goes, or the dropped piece drawn faint on its square. Nothing of the hint catches the
// pointer.
//
// What the tests (and curious users) can read off the DOM:
//   g.piece[data-square][data-piece]   every piece on the board ("7b", "+L")
//   rect.square[data-square]           every square (the click targets)
//   rect.last-to / rect.last-from      the last move's squares
//   g.hint[data-move] rect.hint-to / rect.hint-from [data-square]   the hinted move
//   .hand[data-side] .hand-piece[data-kind][data-count]

import {
  HAND_KINDS, LABELS, NAMES, isPromoted, labelOf, makeCode, moveSquares, nameOf, ownerOf,
  squareIndex, squareName,
} from "./shogi-position.js";
import { Board, el } from "./svg.js";

const CW = 100; // square width
const CH = 110; // square height: shogi squares are a little taller than wide
const TOP = 40; // room for the file numbers
const RIGHT = 40; // room for the rank numbers
const PAD = 8;
const N = 9;
const FILE_DIGITS = "９８７６５４３２１";
const RANK_KANJI = "一二三四五六七八九";

export class ShogiBoard extends Board {
  draw({ state, mode, last = null, selected = null, hint = null }) {
    const onSquare = mode === "edit" ? this.on.onSquare : null;
    drawBoard(this.svg, state, { last, selected, onSquare });
    if (hint) this.svg.append(drawHint(hint, state.turn));
    for (const side of ["b", "w"]) drawHand(this.on.hands[side], state, side);
  }
}

function origin(i) {
  return [PAD + (i % N) * CW, TOP + Math.floor(i / N) * CH];
}

function pieceShape(x, y) {
  const pts = [
    [x + CW / 2, y + 7],
    [x + CW * 0.79, y + CH * 0.2],
    [x + CW * 0.87, y + CH - 7],
    [x + CW * 0.13, y + CH - 7],
    [x + CW * 0.21, y + CH * 0.2],
  ];
  return pts.map(([a, b]) => `${a.toFixed(1)},${b.toFixed(1)}`).join(" ");
}

function drawBoard(svg, pos, { last, selected, onSquare }) {
  const width = PAD + N * CW + RIGHT;
  const height = TOP + N * CH + PAD;
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  svg.replaceChildren();
  svg.append(el("rect", { x: 0, y: 0, width, height, rx: 10, class: "board-frame" }));
  svg.append(el("rect", { x: PAD, y: TOP, width: N * CW, height: N * CH, class: "wood" }));

  for (let i = 0; i < N; i++) {
    svg.append(
      el("text", { x: PAD + i * CW + CW / 2, y: TOP - 10, class: "coord", "text-anchor": "middle" },
        FILE_DIGITS[i]),
      el("text", { x: PAD + N * CW + RIGHT / 2, y: TOP + i * CH + CH / 2 + 10, class: "coord", "text-anchor": "middle" },
        RANK_KANJI[i]),
    );
  }
  for (let i = 0; i <= N; i++) {
    svg.append(
      el("line", { x1: PAD + i * CW, y1: TOP, x2: PAD + i * CW, y2: TOP + N * CH, class: i % N ? "grid" : "grid edge" }),
      el("line", { x1: PAD, y1: TOP + i * CH, x2: PAD + N * CW, y2: TOP + i * CH, class: i % N ? "grid" : "grid edge" }),
    );
  }
  for (const [c, r] of [[3, 3], [6, 3], [3, 6], [6, 6]]) {
    svg.append(el("circle", { cx: PAD + c * CW, cy: TOP + r * CH, r: 6, class: "star" }));
  }

  const move = moveSquares(last);
  if (move) {
    if (move.from) {
      const [x, y] = origin(squareIndex(move.from));
      svg.append(el("rect", { x, y, width: CW, height: CH, class: "last-from", "data-square": move.from }));
    }
    const [x, y] = origin(squareIndex(move.to));
    svg.append(el("rect", { x, y, width: CW, height: CH, class: "last-to", "data-square": move.to }));
  }
  if (selected !== null) {
    const [x, y] = origin(selected);
    svg.append(el("rect", { x: x + 3, y: y + 3, width: CW - 6, height: CH - 6, class: "selected" }));
  }

  for (let i = 0; i < N * N; i++) {
    const [x, y] = origin(i);
    const name = squareName(i);
    const rect = el("rect", { x, y, width: CW, height: CH, class: "square", "data-square": name });
    svg.append(rect);
    const code = pos.board[i];
    if (code === null) continue;
    const side = ownerOf(code);
    const g = el("g", {
      class: `piece ${side === "b" ? "black" : "white"}${isPromoted(code) ? " promoted" : ""}`,
      "data-square": name,
      "data-piece": code,
    });
    if (side === "w") g.setAttribute("transform", `rotate(180 ${x + CW / 2} ${y + CH / 2})`);
    g.append(el("polygon", { points: pieceShape(x, y), class: "shape" }));
    g.append(el("text", { x: x + CW / 2, y: y + CH * 0.7, class: "label", "text-anchor": "middle" }, labelOf(code)));
    g.append(el("title", {}, `${side === "b" ? "▲" : "△"} ${nameOf(code)} on ${name}`));
    svg.append(g);
  }
  svg.dataset.clickable = String(Boolean(onSquare));
  svg.onclick = onSquare
    ? (ev) => {
      const target = ev.target.closest("[data-square]");
      if (target) onSquare(squareIndex(target.dataset.square));
    }
    : null;
}

// The hint for the USI move `usi` of `side` (see the top of the file), as one group.
function drawHint(usi, side) {
  const g = el("g", { class: "hint", "data-move": usi });
  const move = moveSquares(usi);
  if (!move || !/^[1-9][a-i]$/.test(move.to)) return g;
  const [tx, ty] = origin(squareIndex(move.to));
  if (move.from === null) {
    // a drop: the piece, faint, where it would land
    const code = makeCode(usi[0], side);
    const piece = el("g", { class: `hint-drop ${side === "b" ? "black" : "white"}` });
    if (side === "w") piece.setAttribute("transform", `rotate(180 ${tx + CW / 2} ${ty + CH / 2})`);
    piece.append(
      el("polygon", { points: pieceShape(tx, ty), class: "shape" }),
      el("text", { x: tx + CW / 2, y: ty + CH * 0.7, class: "label", "text-anchor": "middle" }, labelOf(code)),
    );
    g.append(piece);
  } else if (/^[1-9][a-i]$/.test(move.from)) {
    const [fx, fy] = origin(squareIndex(move.from));
    g.append(el("rect", { x: fx + 4, y: fy + 4, width: CW - 8, height: CH - 8, class: "hint-from", "data-square": move.from }));
    g.append(arrow(fx + CW / 2, fy + CH / 2, tx + CW / 2, ty + CH / 2));
  }
  g.append(el("rect", { x: tx + 4, y: ty + 4, width: CW - 8, height: CH - 8, class: "hint-to", "data-square": move.to }));
  return g;
}

// An arrow from (x1, y1) to (x2, y2): a shaft and a head that ends a little short.
function arrow(x1, y1, x2, y2) {
  const len = Math.hypot(x2 - x1, y2 - y1);
  const ux = (x2 - x1) / len;
  const uy = (y2 - y1) / len;
  const tipX = x2 - ux * 18;
  const tipY = y2 - uy * 18;
  const baseX = tipX - ux * 34;
  const baseY = tipY - uy * 34;
  const head = [
    [tipX, tipY],
    [baseX - uy * 20, baseY + ux * 20],
    [baseX + uy * 20, baseY - ux * 20],
  ].map(([a, b]) => `${a.toFixed(1)},${b.toFixed(1)}`).join(" ");
  const g = el("g", { class: "hint-arrow" });
  g.append(
    el("line", { x1, y1, x2: baseX, y2: baseY, class: "hint-shaft" }),
    el("polygon", { points: head, class: "hint-head" }),
  );
  return g;
}

// A hand as a row of pieces with counts, into `box` (an element with data-side).
function drawHand(box, pos, side) {
  const items = HAND_KINDS.filter((k) => pos.hands[side][k] > 0).map((k) => {
    const span = document.createElement("span");
    span.className = "hand-piece";
    span.dataset.kind = k;
    span.dataset.count = String(pos.hands[side][k]);
    span.title = `${NAMES[k]} × ${pos.hands[side][k]}`;
    const glyph = document.createElement("span");
    glyph.className = "glyph";
    glyph.textContent = LABELS[k];
    span.append(glyph);
    if (pos.hands[side][k] > 1) {
      const n = document.createElement("span");
      n.className = "count";
      n.textContent = String(pos.hands[side][k]);
      span.append(n);
    }
    return span;
  });
  const head = document.createElement("span");
  head.className = "hand-head";
  head.textContent = side === "b" ? "▲ in hand" : "△ in hand";
  if (items.length === 0) {
    const none = document.createElement("span");
    none.className = "hand-none";
    none.textContent = "none";
    items.push(none);
  }
  box.replaceChildren(head, ...items);
  box.dataset.toMove = String(pos.turn === side);
}

// A shogi position on the page: its pieces and squares, SFEN in and out, and the editing
// operations of the tsume page's position editor (shogi-board.js draws it).
//
// A position is { board, turn, hands, moveNumber }:
//   board  81 cells, row by row from the top (rank a, 一) and, in each row, from file 9
//          (left) to file 1 (right) — the order SFEN lists them; a cell is null or a piece
//          code: "P" (black's pawn), "p" (white's), "+P" (black's tokin), "+r" (white's
//          dragon), ...
//   turn   "b" (black, sente, ▲) or "w" (white, gote, △)
//   hands  { b: { R: 0, B: 0, G: 0, S: 0, N: 0, L: 0, P: 0 }, w: { ... } }
//
// The server checks every position that matters (legal piece counts, nifu, pieces that
// could never move, the side not to move in check); the editor only keeps the piece set
// (40 pieces) and one king a side.

const N = 9;

export const SET = { K: 2, R: 2, B: 2, G: 4, S: 4, N: 4, L: 4, P: 18 };
export const HAND_KINDS = ["R", "B", "G", "S", "N", "L", "P"];
export const BOARD_KINDS = ["K", "R", "B", "G", "S", "N", "L", "P"];
export const PROMOTABLE = new Set(["R", "B", "S", "N", "L", "P"]);
export const LABELS = {
  K: "玉", R: "飛", B: "角", G: "金", S: "銀", N: "桂", L: "香", P: "歩",
  "+R": "龍", "+B": "馬", "+S": "全", "+N": "圭", "+L": "杏", "+P": "と",
};
export const NAMES = {
  K: "king", R: "rook", B: "bishop", G: "gold", S: "silver", N: "knight", L: "lance",
  P: "pawn", "+R": "dragon", "+B": "horse", "+S": "promoted silver", "+N": "promoted knight",
  "+L": "promoted lance", "+P": "tokin",
};
export const SIDES = { b: "▲ black (sente)", w: "△ white (gote)" };
const RANKS = "abcdefghi";

// ------------------------------------------------------------------ pieces and squares

export const ownerOf = (code) => (code[code.length - 1] === code[code.length - 1].toUpperCase() ? "b" : "w");
export const kindOf = (code) => code[code.length - 1].toUpperCase();
export const isPromoted = (code) => code[0] === "+";
export const labelOf = (code) => LABELS[(isPromoted(code) ? "+" : "") + kindOf(code)];
export const nameOf = (code) => NAMES[(isPromoted(code) ? "+" : "") + kindOf(code)];

export function makeCode(kind, side, promoted = false) {
  const letter = side === "b" ? kind.toUpperCase() : kind.toLowerCase();
  return (promoted ? "+" : "") + letter;
}

// Square index (0..80) <-> USI name: index 0 is 9a (top left), 8 is 1a, 80 is 1i.
export function squareName(i) {
  return `${N - (i % N)}${RANKS[Math.floor(i / N)]}`;
}

export function squareIndex(name) {
  const file = Number(name[0]);
  const rank = RANKS.indexOf(name[1]);
  return rank * N + (N - file);
}

// The squares a USI move touches: { from, to } (from is null for a drop).
export function moveSquares(usi) {
  if (!usi) return null;
  if (usi[1] === "*") return { from: null, to: usi.slice(2, 4) };
  return { from: usi.slice(0, 2), to: usi.slice(2, 4) };
}

// ------------------------------------------------------------------ positions and SFEN

function emptyHands() {
  return {
    b: Object.fromEntries(HAND_KINDS.map((k) => [k, 0])),
    w: Object.fromEntries(HAND_KINDS.map((k) => [k, 0])),
  };
}

export function emptyPosition() {
  return { board: Array(N * N).fill(null), turn: "b", hands: emptyHands(), moveNumber: 1 };
}

export function clonePosition(pos) {
  return {
    board: [...pos.board],
    turn: pos.turn,
    hands: { b: { ...pos.hands.b }, w: { ...pos.hands.w } },
    moveNumber: pos.moveNumber,
  };
}

// Parse SFEN (as the server's canonical form writes it); throws Error on what it cannot
// read. The server's check is the real one: this only reads.
export function parseSfen(text) {
  const parts = String(text).trim().replace(/^sfen\s+/, "").split(/\s+/);
  if (parts.length < 3) throw new Error("SFEN needs a board, a side to move and the hands");
  const pos = emptyPosition();
  const rows = parts[0].split("/");
  if (rows.length !== N) throw new Error("an SFEN board has 9 ranks");
  rows.forEach((row, r) => {
    let c = 0;
    for (let i = 0; i < row.length; i++) {
      let ch = row[i];
      if (ch >= "1" && ch <= "9") {
        c += Number(ch);
        continue;
      }
      let code = "";
      if (ch === "+") {
        code = "+";
        ch = row[++i] ?? "";
      }
      if (!/^[KRBGSNLPkrbgsnlp]$/.test(ch) || c >= N) throw new Error(`bad SFEN rank ${r + 1}`);
      pos.board[r * N + c] = code + ch;
      c += 1;
    }
    if (c !== N) throw new Error(`SFEN rank ${r + 1} does not cover 9 files`);
  });
  if (parts[1] !== "b" && parts[1] !== "w") throw new Error("the side to move is b or w");
  pos.turn = parts[1];
  if (parts[2] !== "-") {
    const re = /(\d*)([RBGSNLPrbgsnlp])/g;
    let m;
    let seen = 0;
    while ((m = re.exec(parts[2])) !== null) {
      if (m.index !== seen) break;
      seen = re.lastIndex;
      const side = m[2] === m[2].toUpperCase() ? "b" : "w";
      pos.hands[side][m[2].toUpperCase()] += m[1] ? Number(m[1]) : 1;
    }
    if (seen !== parts[2].length) throw new Error("bad SFEN hand");
  }
  pos.moveNumber = parts[3] && /^\d+$/.test(parts[3]) ? Number(parts[3]) : 1;
  return pos;
}

export function toSfen(pos) {
  const rows = [];
  for (let r = 0; r < N; r++) {
    let row = "";
    let empty = 0;
    for (let c = 0; c < N; c++) {
      const code = pos.board[r * N + c];
      if (code === null) {
        empty += 1;
        continue;
      }
      if (empty) row += String(empty);
      empty = 0;
      row += code;
    }
    if (empty) row += String(empty);
    rows.push(row);
  }
  let hand = "";
  for (const side of ["b", "w"]) {
    for (const k of HAND_KINDS) {
      const n = pos.hands[side][k];
      if (n > 0) hand += (n > 1 ? String(n) : "") + (side === "b" ? k : k.toLowerCase());
    }
  }
  return `${rows.join("/")} ${pos.turn} ${hand || "-"} ${pos.moveNumber || 1}`;
}

// SFEN in a URL: spaces as "_" (SFEN has none), everything else as it is.
export function sfenToUrlParam(sfen) {
  return sfen.trim().replace(/\s+/g, "_");
}

// The ?sfen= of `search` (location.search), or null. Read by hand: URLSearchParams would
// turn the "+" of promoted pieces into spaces.
export function sfenFromSearch(search) {
  for (const part of search.replace(/^\?/, "").split("&")) {
    if (!part.startsWith("sfen=")) continue;
    let value = part.slice(5);
    try {
      value = decodeURIComponent(value);
    } catch {
      /* keep it as it is: the server will say what is wrong */
    }
    return value.replace(/_/g, " ");
  }
  return null;
}

// ------------------------------------------------------------------ the editor

// How many pieces of `kind` (promoted or not) are on the board, in each hand, and in the
// box (not in play).
export function pieceCounts(pos, kind) {
  let board = 0;
  for (const code of pos.board) if (code !== null && kindOf(code) === kind) board += 1;
  const b = kind === "K" ? 0 : pos.hands.b[kind];
  const w = kind === "K" ? 0 : pos.hands.w[kind];
  return { board, b, w, box: SET[kind] - board - b - w };
}

// White (the defender) holds every piece not on the board or in black's hand: how tsume
// problems are usually given.
export function fillWhiteHand(pos) {
  for (const k of HAND_KINDS) {
    pos.hands.w[k] = Math.max(0, SET[k] - pieceCounts(pos, k).board - pos.hands.b[k]);
  }
}

// Run `change(pos)` with white's hand treated as the box when `rest` is on (and refilled
// after); `change` returns null or an error line.
export function edit(pos, rest, change) {
  if (rest) for (const k of HAND_KINDS) pos.hands.w[k] = 0;
  const error = change(pos);
  if (rest) fillWhiteHand(pos);
  return error;
}

function takeFromBox(pos, kind) {
  if (pieceCounts(pos, kind).box > 0) return true;
  if (kind === "K") return false;
  for (const side of ["w", "b"]) {
    if (pos.hands[side][kind] > 0) {
      pos.hands[side][kind] -= 1;
      return true;
    }
  }
  return false;
}

function noneLeft(kind) {
  return `no ${LABELS[kind]} (${NAMES[kind]}) left: a set has ${SET[kind]}`;
}

// Put `code` on square `sq`: the piece there goes back to the box; the same piece there
// again is taken off (a tap toggles); a king moves if its side already has one.
export function placePiece(pos, sq, code) {
  const current = pos.board[sq];
  if (current === code) {
    pos.board[sq] = null;
    return null;
  }
  const kind = kindOf(code);
  pos.board[sq] = null;
  if (kind === "K") {
    const other = pos.board.indexOf(code);
    if (other >= 0) pos.board[other] = null;
  }
  if (!takeFromBox(pos, kind)) {
    pos.board[sq] = current;
    return noneLeft(kind);
  }
  pos.board[sq] = code;
  return null;
}

export function removePiece(pos, sq) {
  pos.board[sq] = null;
  return null;
}

export function promotePiece(pos, sq) {
  const code = pos.board[sq];
  if (code === null) return null;
  const kind = kindOf(code);
  if (!PROMOTABLE.has(kind)) return `a ${NAMES[kind]} (${LABELS[kind]}) does not promote`;
  pos.board[sq] = isPromoted(code) ? code.slice(1) : `+${code}`;
  return null;
}

export function flipPiece(pos, sq) {
  const code = pos.board[sq];
  if (code === null) return null;
  const side = ownerOf(code) === "b" ? "w" : "b";
  const flipped = makeCode(kindOf(code), side, isPromoted(code));
  if (kindOf(code) === "K" && pos.board.includes(flipped)) {
    return `${SIDES[side]} already has a king`;
  }
  pos.board[sq] = flipped;
  return null;
}

export function movePiece(pos, from, to) {
  if (from === to) return null;
  const code = pos.board[from];
  if (code === null) return null;
  pos.board[to] = code;
  pos.board[from] = null;
  return null;
}

export function changeHand(pos, side, kind, delta) {
  if (delta > 0) {
    if (pieceCounts(pos, kind).box <= 0) return noneLeft(kind);
    pos.hands[side][kind] += 1;
  } else if (pos.hands[side][kind] > 0) {
    pos.hands[side][kind] -= 1;
  }
  return null;
}

export function clearPosition(pos) {
  pos.board.fill(null);
  pos.hands = emptyHands();
  pos.turn = "b";
  pos.moveNumber = 1;
  return null;
}

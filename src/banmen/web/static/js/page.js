// Helpers shared by the game pages (Mattix, Othello, Go): the page's game id, the game
// socket, messages, the connection badge, level menus and number formatting. Game rules
// stay on the server.

import { GameSocket, showQueueLine } from "./connection.js";

export const $ = (id) => document.getElementById(id);

const ID_RE = /^[A-Za-z0-9_-]{1,64}$/;

// Why a search ended, in words (Result.stopped_by).
export const STOPPED_BY = {
  exact: "solved",
  depth: "depth limit",
  time: "time limit",
  nodes: "node limit",
  stop: "stopped",
  game_over: "game over",
  forced: "forced",
  random: "random",
};

// The game id lives in the address (#id) and in localStorage under `key`, so a reload —
// or a second tab — finds the same game.
export function gameIdStore(key) {
  function stored() {
    try {
      return localStorage.getItem(key);
    } catch {
      return null; // storage can be disabled (private mode); the #id still works
    }
  }
  return {
    wanted() {
      const fromHash = decodeURIComponent(location.hash.slice(1));
      if (ID_RE.test(fromHash)) return fromHash;
      const saved = stored();
      return saved && ID_RE.test(saved) ? saved : null;
    },
    remember(id) {
      try {
        localStorage.setItem(key, id);
      } catch {
        /* see stored() */
      }
      if (location.hash.slice(1) !== id) history.replaceState(null, "", `#${id}`);
    },
  };
}

export function formatCount(n) {
  if (n >= 1e9) return `${(n / 1e9).toFixed(2)} G`;
  if (n >= 1e6) return `${(n / 1e6).toFixed(2)} M`;
  if (n >= 1e4) return `${(n / 1e3).toFixed(1)} k`;
  return String(Math.round(n));
}

let messageTimer = 0;

// One line in the #message box for a few seconds; `kind` is "error" or "notice".
export function showMessage(text, kind) {
  const box = $("message");
  box.textContent = text;
  box.dataset.kind = kind;
  box.hidden = false;
  clearTimeout(messageTimer);
  messageTimer = setTimeout(() => { box.hidden = true; }, 6000);
}

// The connection badge in the top bar.
export function showConnection(status) {
  const conn = $("conn");
  conn.dataset.status = status;
  conn.textContent = status === "connected" ? "connected" : `${status}…`;
}

// A level <select> listing `levels`, showing `value` unless the user is using it.
export function fillLevelSelect(select, levels, value) {
  if (select.options.length !== levels.length) {
    select.replaceChildren(...levels.map((lv) => new Option(lv.label, lv.name)));
  }
  if (document.activeElement !== select) select.value = value;
}

// The error line under the page's load box (#load-error); "" hides it.
export function showLoadError(text) {
  const box = $("load-error");
  box.textContent = text;
  box.hidden = text === "";
}

// The page's socket on `path`: on every (re)connection it joins the game `currentId()`
// names, or the one the address or storage names (`ids`). While the CPU's move waits for
// a free engine (the state's `thinking.queue`), the status line says the place in line —
// after the page's own drawing, which does not know about it.
export function gameSocket(path, ids, currentId, onMessage) {
  let queueLine = null;
  const sock = new GameSocket(path, {
    onOpen: () => sock.send({ type: "join", id: currentId() ?? ids.wanted() }),
    onMessage: (msg) => {
      if (msg.type === "state") queueLine = msg.thinking?.queue ? msg.thinking.queue_message : null;
      else if (msg.type === "queue") queueLine = msg.position > 0 ? msg.message : null;
      onMessage(msg);
      if (queueLine) showQueueLine(queueLine);
    },
    onStatus: showConnection,
  });
  return sock;
}

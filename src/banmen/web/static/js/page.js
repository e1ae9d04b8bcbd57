// Helpers every page shares: elements by id, the message box, the connection badge, the
// load form's error line, copying, number formatting, the data the server rendered into
// the page, and a socket wired to all of these. Game rules stay on the server.

import { GameSocket } from "./connection.js";

export const $ = (id) => document.getElementById(id);

const ID_RE = /^[A-Za-z0-9_-]{1,64}$/;

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

// What the server rendered into the page for its scripts: the JSON in <body data-NAME>
// (`name` in camelCase, as in dataset), or null.
export function pageData(name) {
  const text = document.body.dataset[name];
  if (text === undefined) return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

export function formatCount(n) {
  if (n >= 1e9) return `${(n / 1e9).toFixed(2)} G`;
  if (n >= 1e6) return `${(n / 1e6).toFixed(2)} M`;
  if (n >= 1e4) return `${(n / 1e3).toFixed(1)} k`;
  return String(Math.round(n));
}

export function plural(n, word) {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
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

// Hide the #message box if it shows a line of `kind` (a line of another kind keeps its time).
export function hideMessage(kind) {
  const box = $("message");
  if (box.hidden || box.dataset.kind !== kind) return;
  box.hidden = true;
  clearTimeout(messageTimer);
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

// Copy `text`, and say on `button` for a moment whether it worked.
export async function copyText(text, button) {
  let ok = false;
  try {
    await navigator.clipboard.writeText(text);
    ok = true;
  } catch {
    // No clipboard API (plain http on another host, old browser): select and copy.
    const area = document.createElement("textarea");
    area.value = text;
    area.setAttribute("readonly", "");
    area.className = "offscreen";
    document.body.append(area);
    area.select();
    try {
      ok = document.execCommand("copy");
    } catch {
      ok = false;
    }
    area.remove();
  }
  const label = button.textContent;
  button.textContent = ok ? "Copied" : "Copy failed: select the text";
  setTimeout(() => { button.textContent = label; }, 1500);
}

// The engines' warm-up (the server's "engines" messages) in the line under the top bar,
// until they are ready: a first run compiles them, and CPU moves wait meanwhile.
export function showEngines(msg) {
  const line = $("engines");
  if (!line) return;
  const text = msg.message ?? "";
  line.textContent = msg.ready ? "" : `${text.charAt(0).toUpperCase()}${text.slice(1)}; CPU moves wait.`;
  line.hidden = Boolean(msg.ready);
}

// The page's socket on `path` (see connection.js): the badge follows its status, and the
// server's "error" and "notice" lines go to the message box after the page's own
// `onMessage` has seen them, its "engines" lines to the line under the top bar.
// `onStatus` (optional) hears every status change too.
export function pageSocket(path, { onOpen, onMessage, onStatus = () => {} }) {
  return new GameSocket(path, {
    onOpen,
    onMessage: (msg) => {
      onMessage(msg);
      if (msg.type === "error" || msg.type === "notice") showMessage(msg.message, msg.type);
      if (msg.type === "engines") showEngines(msg);
    },
    onStatus: (status) => {
      showConnection(status);
      onStatus(status);
    },
  });
}

// One game page (Mattix, Othello, Go): the socket, the player levels, the pending flags,
// the info / progress / error / notice messages and the CPU's thinking, the same for every
// game. A game brings its board widget (see svg.js) and its texts:
//
//   const page = gamePage("othello", {
//     board: new OthelloBoard($("board-svg"), { onMove: (sq) => page.move(sq) }),
//     sides: { 1: "Black", 2: "White" },
//     ...texts and hooks (below)
//   });
//
// The server is authoritative: the page keeps no game logic. It draws each "state" message
// as it comes and sends requests ("move", "undo", "new", ...) that the server validates.
// The game id lives in the address (#id) and in localStorage, so a reload — or a second
// tab — finds the same game. The page's HTML (rendered by the server, web/pages.py) has
// the elements this module fills: #board, #status, #player-N, #ctl-N, #level-N,
// #level-note, #delay, #undo, #stop, #pause, #gameover, #game-info, #moves, the CPU panel
// (#think-head, the game's stats, #think-pv, #verdict) and, if the game loads records, the
// #load form.
//
// What a game gives `gamePage` (all texts are plain strings, never HTML):
//   board             the board widget
//   sides             { 1: name, 2: name }
//   yourMove(side)    "Your move (Black)" (the default) — the status line's start when one
//                     human plays
//   prompt(side, state)  the rest of the status line when a human is to move
//   lastMove(cpu)     "Black played d3": the CPU panel's head after a CPU move
//   stats             [[element id, (figures, player) => text], ...]: the CPU panel's
//                     figures, from an "info" (merged with the latest "progress") or the
//                     last CPU move
//   moveText(move)    one entry of the move list
//   gameInfo(state)   the "This game" line
//   gameOver(state)   [text, winner] for the result box, or null while it stays hidden
//   newGame()         the game's own fields of a "new" message (the form's)
//   render(state)     everything else the game shows (scores, notes, its own buttons)
// and optionally phase(state) / status(state) (a game's own phases: Go's counting),
// fresh(state) (a game other than the one shown arrived: the new-game form follows it),
// loadField and loaded(state) (the #load form's text box id, the notice when it loaded).
//
// An error line (a move refused, a bad load) is about the position shown when it came: the
// next new position — a move played, undone, a new or loaded game — hides it at once.
//
// A page with an #analysis switch (Mattix, Othello, Go) offers the analysis: while it is
// on (remembered in localStorage, and sent after every "join"), the server streams
// "analysis" messages for the position shown; the page hands the latest one's values to
// the board (`board.set({ analysis })`, drawn as analysis.js says) and words its progress
// in #analysis-status; the switch's bar says `data-on`, so the game's own options of the
// analysis (`.analysis-only`: Go's territory) show only while it is on. Values of any other
// position are never shown: a new position (another ply, or a game that ends or goes on
// again without a move: Go's resignation and counting) clears them, and messages for
// another game or ply are dropped.
//
// A game on a clock (the state's `clocks`, see clocks.js) shows both clocks in the cards
// and counts the running one down; the new-game form's clock (#clock-preset, or any time
// control typed in #clock-text) goes with every "new" — a malformed one is the server's
// one-line error, shown under the field, and nothing changes. A game lost on time (the
// state's `outcome.termination` "time") is told here, the same for every game.

import { analysisStatus } from "./analysis.js";
import { pageClocks } from "./clocks.js";
import { showQueueLine } from "./connection.js";
import {
  $, fillLevelSelect, formatCount, gameIdStore, hideMessage, pageData, pageSocket, showLoadError,
  showMessage,
} from "./page.js";

// Why a search ended, in words: from the server (banmen.web.games.STOPPED_BY).
const STOPPED_BY = pageData("stoppedBy") ?? {};

// Figures of the CPU panel most games show; each takes the figures (an "info", merged with
// the latest "progress", or the last CPU move) and says "–" for what they lack.
export const FIGURES = {
  depth: (f) => (f.depth === undefined || f.depth === null ? "–" : String(f.depth)),
  nodes: (f) => (typeof f.nodes === "number" ? formatCount(f.nodes) : "–"),
  nps: (f) => (typeof f.nps === "number" ? formatCount(f.nps) : "–"),
  seconds: (f) => (typeof f.seconds === "number" ? `${f.seconds.toFixed(1)} s` : "–"),
};

export function gamePage(game, texts) {
  const ids = gameIdStore(`banmen.${game}.id`);
  const { board, sides } = texts;
  const yourMove = texts.yourMove ?? ((side) => `Your move (${sides[side]})`);
  let state = null;
  let queueLine = null; // "you are 3rd in line for an engine", while the CPU's move waits
  let pending = false; // a move (or another act) was sent; further taps wait for the answer
  let loadPending = false; // a "load" was sent; its error belongs next to the load box
  let errorAt = null; // the position (positionKey) the error line shown came in, or null
  const analysisSwitch = $("analysis"); // null: the game offers no analysis
  const analysisKey = `banmen.${game}.analysis`;
  let analysis = null; // the latest "analysis" message for the position shown
  let newPending = false; // a "new" was sent; a clock's error belongs under the clock field
  const clocks = pageClocks();
  if (analysisSwitch) {
    try {
      analysisSwitch.checked = localStorage.getItem(analysisKey) === "1";
    } catch {
      /* storage disabled: analysis starts off */
    }
    analysisSwitch.closest(".analysis-bar").dataset.on = String(analysisSwitch.checked);
  }

  // ---------------------------------------------------------------- players

  function levelOf(name) {
    return state?.levels.find((lv) => lv.name === name);
  }

  function isCpu(side) {
    return state.players[String(side)] !== "human";
  }

  function humanCount() {
    return [1, 2].filter((s) => !isCpu(s)).length;
  }

  function levelLabel(side) {
    return levelOf(state.players[String(side)])?.label ?? state.players[String(side)];
  }

  function sideName(side) {
    const who = isCpu(side) ? levelLabel(side) : humanCount() === 1 ? "you" : "human";
    return `${sides[side]} (${who})`;
  }

  // ---------------------------------------------------------------- rendering

  function phase() {
    const own = texts.phase?.(state);
    if (own) return own;
    if (state.over) return "over";
    if (state.thinking) return "cpu";
    if (!isCpu(state.turn)) return "human";
    return state.paused ? "paused" : "cpu";
  }

  // The side whose flag fell (the game is lost on time), or null.
  function lostOnTime() {
    const o = state.outcome;
    return o && o.termination === "time" && o.winner !== null ? 3 - o.winner : null;
  }

  function statusText() {
    const flagged = lostOnTime();
    if (flagged !== null) return `Game over: ${sides[flagged]}'s flag fell.`;
    const own = texts.status?.(state);
    if (own) return own;
    const side = state.turn;
    if (state.over) return "Game over.";
    if (state.thinking) {
      return `${sideName(side)} is thinking…${state.thinking.stopping ? " (stopping)" : ""}`;
    }
    if (isCpu(side)) {
      return state.paused
        ? `Paused: ${sideName(side)} is to move. Press Resume.`
        : `${sideName(side)} is to move…`;
    }
    const who = humanCount() === 1 ? yourMove(side) : `${sides[side]} to move`;
    return `${who}: ${texts.prompt(side, state)}`;
  }

  function renderBoard() {
    const p = phase();
    const box = $("board");
    box.dataset.phase = pending ? "sending" : p;
    box.dataset.ply = String(state.history.length);
    if (state.size !== undefined) box.dataset.size = String(state.size);
    const mode = pending ? "view" : p === "human" ? "play" : p === "counting" ? "count" : "view";
    board.set({ state, mode, analysis: shownAnalysis() });
  }

  // ---------------------------------------------------------------- analysis

  function analysisOn() {
    return Boolean(analysisSwitch?.checked);
  }

  function shownAnalysis() {
    return analysisOn() && analysis?.data ? analysis.data : null;
  }

  // The analysis status line (the board draws the values itself, in renderBoard).
  function renderAnalysisLine() {
    if (!analysisSwitch) return;
    const line = $("analysis-status");
    analysisSwitch.closest(".analysis-bar").dataset.on = String(analysisOn());
    const text = analysisOn() && state ? analysisStatus(analysis, STOPPED_BY) : "";
    line.textContent = text;
    line.hidden = text === "";
    line.dataset.status = analysisOn() ? analysis?.status ?? "starting" : "off";
    line.dataset.position = analysis ? String(analysis.position) : "";
  }

  function renderAnalysis() {
    renderAnalysisLine();
    if (state) board.set({ analysis: shownAnalysis() });
  }

  function onAnalysis(msg) {
    // Another game's or another position's: stale (the page has moved on).
    if (!state || msg.id !== state.id || msg.position !== state.history.length) return;
    if (!analysisOn()) return; // switched off meanwhile
    analysis = msg.on ? msg : null;
    renderAnalysis();
  }

  function renderPlayers() {
    for (const side of [1, 2]) {
      $(`ctl-${side}`).textContent = isCpu(side) ? levelLabel(side) : "Human";
      const card = $(`player-${side}`);
      card.classList.toggle("to-move", !state.over && state.turn === side);
      card.classList.toggle("winner", state.over && state.winner === side);
    }
  }

  function renderGameOver() {
    const box = $("gameover");
    const flagged = lostOnTime();
    const result = flagged === null
      ? texts.gameOver(state)
      : [`Game over: ${sideName(3 - flagged)} wins on time (${sides[flagged]}'s flag fell).`,
        String(3 - flagged)];
    box.hidden = result === null;
    if (result === null) return;
    [box.textContent, box.dataset.winner] = result;
  }

  function renderThinking() {
    const t = state.thinking;
    const last = state.cpu;
    const head = $("think-head");
    if (t && queueLine) {
      head.textContent = `${sideName(t.player)} waits for an engine…`; // (the status line says why)
    } else if (t) {
      head.textContent = `${sideName(t.player)} is thinking${t.stopping ? " (stopping)" : ""}…`;
    } else if (last) {
      const how = STOPPED_BY[last.stopped_by] ?? last.stopped_by;
      head.textContent = `Last CPU move: ${texts.lastMove(last)} `
        + `in ${last.seconds.toFixed(2)} s (${how}).`;
    } else {
      head.textContent = "No CPU move yet.";
    }
    const figures = t ? state.info : last;
    const player = t ? t.player : last?.player;
    for (const [id, show] of texts.stats) $(id).textContent = figures ? show(figures, player) : "–";
    $("think-pv").textContent = figures?.pv?.length ? figures.pv.join(" ") : "–";
    $("verdict").textContent = !t && last ? last.verdict : "";
    $("verdict").dataset.exact = String(Boolean(!t && last && last.exact));
  }

  function renderControls() {
    fillLevelSelect($("level-1"), state.levels, state.players["1"]);
    fillLevelSelect($("level-2"), state.levels, state.players["2"]);
    const notes = [1, 2]
      .map((s) => levelOf(state.players[String(s)]))
      .filter((lv, i, all) => lv && lv.spec && lv.note && all.indexOf(lv) === i)
      .map((lv) => `${lv.label}: ${lv.note}.`);
    $("level-note").textContent = notes.join(" ");
    $("level-note").hidden = notes.length === 0;
    const delay = $("delay");
    if (document.activeElement !== delay) delay.value = String(state.delay_ms);
    showDelay();
    $("undo").disabled = !state.can_undo;
    $("stop").disabled = !state.thinking || state.thinking.stopping;
    const pause = $("pause");
    pause.disabled = !(isCpu(1) || isCpu(2)) || state.over;
    pause.textContent = state.paused ? "Resume" : "Pause";
    pause.setAttribute("aria-pressed", String(state.paused));
    $("game-info").textContent = texts.gameInfo(state);
    const list = $("moves");
    list.replaceChildren(...state.history.map((mv) => {
      const li = document.createElement("li");
      li.className = `p${mv.player}`;
      li.textContent = texts.moveText(mv);
      return li;
    }));
    list.scrollTop = list.scrollHeight; // the latest move in view
  }

  function showDelay() {
    $("delay-out").textContent = `${(Number($("delay").value) / 1000).toFixed(1)} s`;
  }

  function render() {
    renderBoard();
    renderAnalysisLine();
    $("status").textContent = statusText();
    renderPlayers();
    renderGameOver();
    renderThinking();
    renderControls();
    clocks.show(state);
    texts.render(state);
  }

  // ---------------------------------------------------------------- the clock field

  function clockChoice() {
    const preset = $("clock-preset").value;
    return preset === "custom" ? $("clock-text").value : preset;
  }

  function showClockError(text) {
    const line = $("clock-error");
    line.textContent = text;
    line.hidden = text === "";
  }

  function showClockField() {
    $("clock-custom").hidden = $("clock-preset").value !== "custom";
  }

  // The form's clock follows the game shown: a new game repeats it unless changed.
  function clockFollows(s) {
    const control = s.clocks ? s.clocks.control : "inf";
    const select = $("clock-preset");
    const preset = [...select.options].find((o) => o.value === control);
    select.value = preset ? preset.value : "custom";
    if (!preset) $("clock-text").value = control;
    showClockField();
  }

  // ---------------------------------------------------------------- messages

  // What tells one position of a game from another (as the server's position_key does).
  function positionKey(s) {
    return `${s.id}:${s.history.length}:${s.over}`;
  }

  function onMessage(msg) {
    switch (msg.type) {
      case "state": {
        const fresh = msg.id !== state?.id;
        // A new position: its values are not the old one's (they come afresh).
        if (fresh || msg.history.length !== state.history.length || msg.over !== state.over) {
          analysis = null;
        }
        state = msg;
        pending = false;
        if (errorAt !== null && positionKey(msg) !== errorAt) {
          errorAt = null; // an error about another position: stale
          hideMessage("error");
        }
        queueLine = msg.thinking?.queue ? msg.thinking.queue_message : null;
        if (fresh) {
          newPending = false;
          showClockError("");
          clockFollows(msg);
        }
        if (loadPending && fresh) {
          loadPending = false;
          $(texts.loadField).value = "";
          showLoadError("");
          showMessage(texts.loaded(state), "notice");
        }
        ids.remember(state.id);
        if (fresh) texts.fresh?.(state);
        render();
        break;
      }
      case "info":
      case "progress":
        if (state?.thinking) {
          state.info = { ...state.info, ...msg };
          renderThinking();
        }
        break;
      case "queue":
        queueLine = msg.position > 0 ? msg.message : null;
        if (state) renderThinking();
        break;
      case "engines": // the CPU's move waits for the warm-up: say how far it is
        if (queueLine && !msg.ready) queueLine = `waiting: ${msg.message}`;
        break;
      case "analysis":
        onAnalysis(msg);
        break;
      case "error":
        pending = false;
        errorAt = state ? positionKey(state) : "";
        if (loadPending) {
          loadPending = false;
          showLoadError(msg.message);
        }
        if (newPending) {
          newPending = false;
          if (/^time control|'clock'/.test(msg.message)) showClockError(msg.message);
        }
        if (state) render();
        break;
      default:
        break;
    }
    // The status line says the place in line after the page's own drawing.
    if (queueLine) showQueueLine(queueLine);
  }

  const sock = pageSocket(`/ws/${game}`, {
    onOpen: () => {
      sock.send({ type: "join", id: state?.id ?? ids.wanted() });
      // A connection starts with analysis off: ask for it again after every (re)join.
      if (analysisOn()) sock.send({ type: "analysis", on: true });
    },
    onMessage,
  });

  // ---------------------------------------------------------------- the page's controls

  // What the game's own code may use: the state shown, whether an act is pending, the
  // phase ("human", "cpu", "paused", "over" or the game's own), a side's name, and
  // sending: `send` any request, `act` one the board waits for, `move`, `load`.
  const page = {
    get state() {
      return state;
    },
    get pending() {
      return pending;
    },
    phase,
    sideName,
    send: (msg) => sock.send(msg),
    // A request whose answer the board waits for: one at a time.
    act(msg) {
      if (pending || !sock.send(msg)) return false;
      pending = true;
      render();
      return true;
    },
    move(square) {
      return page.act({ type: "move", square });
    },
    load(text) {
      showLoadError("");
      if (sock.send({ type: "load", text })) loadPending = true;
    },
  };

  $("new-game").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const players = { 1: $("level-1").value, 2: $("level-2").value };
    showClockError("");
    if (sock.send({ type: "new", ...texts.newGame(), players, clock: clockChoice() })) {
      newPending = true;
    }
  });
  $("clock-preset").addEventListener("change", () => {
    showClockField();
    if ($("clock-preset").value === "custom") $("clock-text").focus();
  });
  for (const side of [1, 2]) {
    $(`level-${side}`).addEventListener("change", (ev) => {
      sock.send({ type: "settings", players: { [side]: ev.target.value } });
    });
  }
  $("delay").addEventListener("input", showDelay);
  $("delay").addEventListener("change", (ev) => {
    sock.send({ type: "settings", delay_ms: Number(ev.target.value) });
  });
  $("undo").addEventListener("click", () => sock.send({ type: "undo" }));
  $("stop").addEventListener("click", () => sock.send({ type: "stop" }));
  $("pause").addEventListener("click", () => {
    if (state) sock.send({ type: "settings", paused: !state.paused });
  });
  $("load")?.addEventListener("submit", (ev) => {
    ev.preventDefault();
    page.load($(texts.loadField).value);
  });
  if (analysisSwitch) {
    analysisSwitch.addEventListener("change", () => {
      try {
        localStorage.setItem(analysisKey, analysisOn() ? "1" : "0");
      } catch {
        /* not remembered, still switched */
      }
      analysis = null; // on: the values come afresh; off: they go at once
      sock.send({ type: "analysis", on: analysisOn() });
      renderAnalysis();
    });
  }
  window.addEventListener("hashchange", () => {
    const id = ids.wanted();
    if (id && id !== state?.id) sock.send({ type: "join", id });
  });
  return page;
}

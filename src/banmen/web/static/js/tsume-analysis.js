// The tsume page's analysis: the words for each check's verdict, the status line, and the
// list of checks under the board (tsume.js owns the switch, the socket and the board).
//
// The server's "analysis" message (banmen.web.tsume) carries `data`, an Analysis record
// (banmen.analysis) whose `moves` are the attacker's checks, mates first: each
// { move (USI), kif ("▲７二香成(75)"), kind, value, extra }, where `kind` is "mate"
// (`value`: its length in plies; `extra.shortest`: no shorter mate follows that check),
// "no_mate" (proved: the defender escapes) or "open" (nothing proved yet).
//
// What the tests read off the DOM:
//   #checks li[data-usi][data-kind][data-value][data-shortest]  one per check
//   #checks li button[aria-pressed]                                 the check pinned
//   #analysis-status[data-status][data-decided][data-total]

// Whether a row is settled: no mate, or a mate proved shortest.
export function decided(row) {
  return row.kind === "no_mate" || (row.kind === "mate" && Boolean(row.extra?.shortest));
}

// The verdict on one check: { text, note, title }; `live`: the analysis is still at work.
export function verdict(row, live) {
  if (row.kind === "no_mate") {
    return { text: "no mate", note: "", title: "no mate: proved that the defender escapes" };
  }
  if (row.kind === "mate") {
    const n = row.value;
    if (row.extra?.shortest) {
      return { text: `mate in ${n}`, note: "", title: `mate in ${n}, proved shortest` };
    }
    return {
      text: `mate in ${n}`,
      note: live ? "shortening…" : "not proved shortest",
      title: `mate in ${n} proved; a shorter one is not ruled out yet`,
    };
  }
  return live
    ? { text: "…", note: "", title: "not proved either way yet" }
    : { text: "not proved", note: "", title: "neither a mate nor an escape was proved" };
}

// Words for why an analysis ended early (its data.stopped_by).
const STOPPED = { time: "time limit", nodes: "node limit", stop: "stopped", depth: "depth limit" };

// The status line for `msg`, the latest "analysis" message of the position shown (null:
// none yet); `blocked`: why there is nothing to analyse (null if there is).
export function analysisLine(msg, blocked) {
  if (blocked) return `Analysis: ${blocked}`;
  if (!msg) return "Analysis: starting…";
  if (msg.status === "failed") return `Analysis: ${msg.message ?? "failed"}.`;
  if (msg.status === "waiting") return `Analysis: ${msg.message ?? "waiting for an engine"}…`;
  const data = msg.data;
  if (!data || !Array.isArray(data.moves)) return "Analysis: loading the solver…";
  const total = data.moves.length;
  const done = data.moves.filter(decided).length;
  if (msg.status === "done" && total === 0) return "Analysis: the attacker has no check: no mate.";
  if (data.complete) {
    const mates = data.moves.filter((r) => r.kind === "mate");
    if (!mates.length) return `Analysis: every check decided: no mate (${total} checks).`;
    const n = Math.min(...mates.map((r) => r.value));
    return `Analysis: every check decided: mate in ${n} (${total} checks).`;
  }
  if (msg.status === "done") {
    const why = STOPPED[data.stopped_by] ?? data.stopped_by;
    return `Analysis: stopped: ${why} (${done} of ${total} checks decided).`;
  }
  return `Analysis: proving… ${done} of ${total} checks decided.`;
}

// The checks of `data` into the list `ol`, one button each (`pinned`: the USI move whose
// button is pressed); keyboard focus stays on the check it was on.
export function renderChecks(ol, data, { live, pinned }) {
  const focused = document.activeElement?.closest?.("#checks li")?.dataset.usi ?? null;
  const rows = data && Array.isArray(data.moves) ? data.moves : [];
  const best = Math.min(...rows.filter((r) => r.kind === "mate").map((r) => r.value));
  ol.replaceChildren(...rows.map((row) => {
    const li = document.createElement("li");
    Object.assign(li.dataset, {
      usi: row.move,
      kind: row.kind,
      value: typeof row.value === "number" ? String(row.value) : "",
      shortest: String(Boolean(row.extra?.shortest)),
      best: String(row.kind === "mate" && row.value === best),
      decided: String(decided(row)),
    });
    const { text, note, title } = verdict(row, live);
    const b = document.createElement("button");
    b.type = "button";
    b.className = "check";
    b.title = `${row.kif ?? row.move} (${row.move}): ${title}. Tap to mark it on the board.`;
    b.setAttribute("aria-pressed", String(row.move === pinned));
    const move = document.createElement("span");
    move.className = "check-move";
    move.textContent = row.kif ?? row.move;
    const what = document.createElement("span");
    what.className = "check-verdict";
    what.textContent = text;
    b.append(move, what);
    if (note) {
      const small = document.createElement("small");
      small.className = "check-note";
      small.textContent = note;
      b.append(small);
    }
    li.append(b);
    return li;
  }));
  ol.hidden = rows.length === 0;
  if (focused) ol.querySelector(`li[data-usi="${CSS.escape(focused)}"] button`)?.focus();
}

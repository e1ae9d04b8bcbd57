// The game clocks on a game page (issue 39). The server is the referee: it runs the clock
// of the side to move, charges each move and lets the flag fall. The state's `clocks` (null:
// no clock) gives the time control's fields, each side's clock as it stood when the timed
// move began ("1", "2": left, moves_left, periods_left, overtime, flagged), which side's
// clock `running` and the seconds the move has taken so far (`elapsed`). The page counts
// the running clock down from there on its own timer, a few times a second, writing two
// text nodes only: nothing it shows is decided here.

// Seconds as a clock shows them: 1:05:09, 4:07, and tenths under ten seconds (9.3).
export function clockText(seconds) {
  const s = Math.max(0, seconds);
  if (s < 10) return (Math.floor(s * 10) / 10).toFixed(1);
  const whole = Math.floor(s);
  const h = Math.floor(whole / 3600);
  const m = Math.floor((whole % 3600) / 60);
  const sec = String(whole % 60).padStart(2, "0");
  return h > 0 ? `${h}:${String(m).padStart(2, "0")}:${sec}` : `${m}:${sec}`;
}

function plural(n, word) {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

// One side's clock after `e` seconds of its move: { seconds, note } — the time shown and
// a line on the overtime (byo-yomi periods, Canadian moves, moves to go).
export function clockFace(clocks, side, e) {
  const c = clocks[String(side)];
  const kind = clocks.kind;
  if (kind === "fixed") return { seconds: clocks.period - e, note: "a move" };
  if (kind === "sudden" || kind === "fischer") {
    return { seconds: c.left - e, note: clocks.increment ? `+${clocks.increment} s a move` : "" };
  }
  if (kind === "moves") {
    return { seconds: c.left - e, note: `${plural(c.moves_left, "move")} to go` };
  }
  const period = clocks.period;
  if (kind === "byoyomi") {
    let into = e; // seconds into the overtime
    let periods = c.periods_left;
    if (!c.overtime) {
      if (c.left - e > 0) {
        return { seconds: c.left - e, note: `then ${clocks.periods}×${period} s` };
      }
      into = e - c.left;
      periods = clocks.periods;
    }
    const lost = Math.floor(into / period);
    const left = Math.max(0, periods - lost);
    return {
      seconds: left > 0 ? period - (into - lost * period) : 0,
      note: `byo-yomi: ${plural(left, "period")}`,
    };
  }
  // canadian
  if (!c.overtime) {
    if (c.left - e > 0) {
      return { seconds: c.left - e, note: `then ${clocks.moves} moves / ${clockText(period)}` };
    }
    return { seconds: period - (e - c.left), note: `${plural(clocks.moves, "move")} to play` };
  }
  return { seconds: c.left - e, note: `${plural(c.moves_left, "move")} to play` };
}

// The two clocks of a page: `#clock-1` and `#clock-2` (in the scoreboard's cards, each with
// a .clock-time and a .clock-note). `show(state)` after every state; the running clock is
// then counted down from the state's reading.
export function pageClocks() {
  const boxes = [1, 2].map((side) => document.getElementById(`clock-${side}`));
  let clocks = null;
  let over = false;
  let at = 0; // performance.now() when the state came
  let timer = 0;

  function draw() {
    if (!clocks) return;
    const running = over ? null : clocks.running;
    const since = running ? (performance.now() - at) / 1000 : 0;
    for (const side of [1, 2]) {
      const box = boxes[side - 1];
      if (!box) continue;
      // (a clock halted mid-move, a paused CPU's: the time its move took so far)
      const e = side === running ? clocks.elapsed + since : side === clocks.side ? clocks.elapsed : 0;
      const face = clockFace(clocks, side, e);
      const flagged = clocks.flagged === side || clocks[String(side)].flagged;
      box.querySelector(".clock-time").textContent = clockText(flagged ? 0 : face.seconds);
      box.querySelector(".clock-note").textContent = flagged ? "flag fell" : face.note;
      box.dataset.running = String(side === running);
      box.dataset.low = String(!flagged && face.seconds < 10);
      box.dataset.flagged = String(Boolean(flagged));
    }
  }

  function tick() {
    draw();
    if (!clocks || over || !clocks.running) {
      clearInterval(timer);
      timer = 0;
    }
  }

  return {
    show(state) {
      clocks = state.clocks ?? null;
      over = Boolean(state.over);
      at = performance.now();
      for (const box of boxes) if (box) box.hidden = clocks === null;
      draw();
      if (clocks && !over && clocks.running && !timer) timer = setInterval(tick, 100);
    },
  };
}

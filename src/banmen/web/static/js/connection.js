// A WebSocket to the game server that reconnects by itself.
//
// The server holds the game, so after a drop (server restart, laptop sleep, flaky phone
// network) the page only needs to reconnect and join its game again: `onOpen` runs on
// every (re)connection and should send the "join" message.
//
// A busy server says so: a connection beyond its limits gets an "error" and is closed
// with code 1013 (try again later), so the next attempt waits longer; a CPU move or a
// solve waiting for a free process gets "queue" / "queued" messages with its place in
// line, shown in the page's status line (#status) until the page redraws it.

// Code 1013: the server is busy (too many connections); wait this long before retrying.
const BUSY_RETRY_MS = 5000;

// The server's "the server is busy: you are 3rd in line for …" in the status line.
export function showQueueLine(text) {
  const line = document.getElementById("status");
  if (line && text) line.textContent = text;
}

export class GameSocket {
  constructor(path, { onOpen, onMessage, onStatus }) {
    this.path = path;
    this.onOpen = onOpen;
    this.onMessage = onMessage;
    this.onStatus = onStatus;
    this.retryMs = 250;
    this.ws = null;
    this.connect();
  }

  url() {
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    return `${scheme}//${location.host}${this.path}`;
  }

  connect() {
    this.onStatus("connecting");
    const ws = new WebSocket(this.url());
    this.ws = ws;
    ws.addEventListener("open", () => {
      this.retryMs = 250;
      this.onStatus("connected");
      this.onOpen();
    });
    ws.addEventListener("message", (ev) => {
      let msg;
      try {
        msg = JSON.parse(ev.data);
      } catch {
        return; // the server only sends JSON; ignore anything else
      }
      this.onMessage(msg);
      if ((msg.type === "queue" || msg.type === "queued") && msg.position > 0) {
        showQueueLine(msg.message);
      }
    });
    ws.addEventListener("close", (ev) => {
      if (this.ws !== ws) return;
      this.onStatus("reconnecting");
      // Back off up to 5 s so a stopped server is not hammered; a busy one gets 5 s.
      if (ev.code === 1013) this.retryMs = Math.max(this.retryMs, BUSY_RETRY_MS);
      setTimeout(() => this.connect(), this.retryMs);
      this.retryMs = Math.min(this.retryMs * 2, 5000);
    });
  }

  get open() {
    return this.ws !== null && this.ws.readyState === WebSocket.OPEN;
  }

  send(msg) {
    if (!this.open) return false;
    this.ws.send(JSON.stringify(msg));
    return true;
  }
}

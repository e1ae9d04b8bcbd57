// A WebSocket to the game server that reconnects by itself.
//
// The server holds the game, so after a drop (server restart, laptop sleep, flaky phone
// network) the page only needs to reconnect and join its game again: `onOpen` runs on
// every (re)connection and should send the "join" message.

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
    });
    ws.addEventListener("close", () => {
      if (this.ws !== ws) return;
      this.onStatus("reconnecting");
      // Back off up to 5 s so a stopped server is not hammered.
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

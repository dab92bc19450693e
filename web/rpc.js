// JSON-RPC 2.0 over the gallery's WebSocket: calls answered by id, notifications handed to onEvent.
// onEnded(sessionEnded) once the socket closes: sessionEnded when splashd closed it with 4001 (the
// session was ended: splashctl open --revoke-all, a sign-out), false when it went away. A refusal
// rejects its call with an Error whose message is the daemon's sentence in the page's language, and
// whose `kind` and `text` are the error's data.
import { portuguese } from "/daemon-text.js";
import { language } from "/i18n.js";

/// A sentence of the daemon's in the page's language: `text` rendered in Portuguese when the page
/// speaks it and knows the sentence, else the daemon's `english`.
export function inPageLanguage(text, english) {
  return (language === "pt-BR" && text && portuguese(text)) || english;
}

function sentence(error) {
  return inPageLanguage(error.data?.text, error.message);
}

export class Connection {
  constructor(url) {
    this.url = url;
    this.next = 1;
    this.waiting = new Map();
    this.onEvent = () => {};
    this.onEnded = () => {};
  }

  open() {
    return new Promise((resolve, reject) => {
      this.socket = new WebSocket(this.url);
      this.socket.onopen = () => resolve();
      this.socket.onerror = () => reject(new Error("the gallery's connection failed"));
      this.socket.onmessage = (message) => this.received(JSON.parse(message.data));
      this.socket.onclose = (close) => {
        for (const { reject } of this.waiting.values()) reject(new Error("connection closed"));
        this.waiting.clear();
        this.onEnded(close.code === 4001);
      };
    });
  }

  isOpen() {
    return this.socket?.readyState === WebSocket.OPEN;
  }

  /// `signal` (an AbortSignal) cancels the call: the daemon is told ($/cancelRequest), and the call
  /// rejects with `kind` "cancelled" when the daemon stopped it, or settles as it would have when
  /// the method cannot be stopped or its answer was already on its way.
  call(method, params = {}, { signal } = {}) {
    const id = this.next++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.socket.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
      signal?.addEventListener("abort", () => {
        if (this.waiting.has(id) && this.isOpen()) this.socket.send(JSON.stringify({ jsonrpc: "2.0", method: "$/cancelRequest", params: { id } }));
      }, { once: true });
    });
  }

  received(message) {
    if (message.id === undefined) {
      if (message.method === "event") this.onEvent(message.params);
      return;
    }
    const call = this.waiting.get(message.id);
    if (!call) return;
    this.waiting.delete(message.id);
    if (message.error) call.reject(Object.assign(new Error(sentence(message.error)), { kind: message.error.data?.kind, text: message.error.data?.text }));
    else call.resolve(message.result);
  }
}

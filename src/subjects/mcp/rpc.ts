import type { Transport } from "./transport.js";

// JSON-RPC 2.0 on a transport: requests matched to responses by id, each with its own timeout.
// An answer is never thrown: a result, an error, a server that went away, or no answer in time.

export interface RpcError {
  code: unknown;
  message: unknown;
  data?: unknown;
}

/** What came back for one request, with the response's text as received. */
export type Answer =
  | { kind: "result"; result: unknown; text: string; ms: number }
  | { kind: "error"; error: RpcError; text: string; ms: number }
  | { kind: "closed"; how: string; ms: number }
  | { kind: "hung"; ms: number };

interface Pending {
  resolve(answer: Answer): void;
  started: number;
  timer: NodeJS.Timeout;
}

export class Rpc {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private gone: string | undefined;
  /** Messages with no pending id (notifications, answers to a malformed frame), newest last, a few kept. */
  readonly stray: string[] = [];

  constructor(readonly transport: Transport) {
    transport.onMessage((text) => this.receive(text));
    transport.onClose((how) => this.end(how));
  }

  /** How the server went away, once it did. */
  get closed(): string | undefined {
    return this.gone;
  }

  request(method: string, params: unknown, timeoutMs: number): Promise<Answer> {
    const id = this.nextId++;
    const message: Record<string, unknown> = { jsonrpc: "2.0", id, method };
    if (params !== undefined) message.params = params;
    return this.exchange(id, JSON.stringify(message), timeoutMs);
  }

  /** Sends `text` as it is (a malformed frame) and waits for the response to `id`, when it has one. */
  exchange(id: number, text: string, timeoutMs: number): Promise<Answer> {
    const started = Date.now();
    if (this.gone !== undefined) return Promise.resolve({ kind: "closed", how: this.gone, ms: 0 });
    return new Promise<Answer>((resolve) => {
      const timer = setTimeout(() => this.settle(id, { kind: "hung", ms: timeoutMs }), timeoutMs);
      this.pending.set(id, { resolve, started, timer });
      this.transport.send(text, id).catch((error: unknown) => this.settle(id, { kind: "closed", how: error instanceof Error ? error.message : String(error), ms: Date.now() - started }));
    });
  }

  /** An id no request has used, for a frame sent by hand. */
  reserveId(): number {
    return this.nextId++;
  }

  async notify(method: string, params?: unknown): Promise<void> {
    const message: Record<string, unknown> = { jsonrpc: "2.0", method };
    if (params !== undefined) message.params = params;
    await this.transport.send(JSON.stringify(message)).catch(() => {});
  }

  /** Sends a text that expects no answer (a frame that is not JSON). */
  async sendRaw(text: string): Promise<void> {
    await this.transport.send(text).catch(() => {});
  }

  private receive(text: string): void {
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      this.keep(text);
      return;
    }
    if (typeof message !== "object" || message === null || Array.isArray(message)) return this.keep(text);
    const record = message as Record<string, unknown>;
    // a request from the server (sampling, roots, ping): refused, the client offers none of it
    if (typeof record.method === "string" && record.id !== undefined) {
      void this.transport.send(JSON.stringify({ jsonrpc: "2.0", id: record.id, ...(record.method === "ping" ? { result: {} } : { error: { code: -32601, message: "method not found" } }) })).catch(() => {});
      return;
    }
    const id = typeof record.id === "number" ? record.id : typeof record.id === "string" && /^\d+$/.test(record.id) ? Number(record.id) : undefined;
    const pending = id === undefined ? undefined : this.pending.get(id);
    if (!pending || id === undefined) return this.keep(text);
    const ms = Date.now() - pending.started;
    if ("error" in record && typeof record.error === "object" && record.error !== null) this.settle(id, { kind: "error", error: record.error as RpcError, text, ms });
    else this.settle(id, { kind: "result", result: record.result, text, ms });
  }

  private settle(id: number, answer: Answer): void {
    const pending = this.pending.get(id);
    if (!pending) return;
    clearTimeout(pending.timer);
    this.pending.delete(id);
    this.transport.finished?.(id);
    pending.resolve(answer);
  }

  private keep(text: string): void {
    this.stray.push(text.length > 2_000 ? `${text.slice(0, 2_000)}…` : text);
    if (this.stray.length > 20) this.stray.shift();
  }

  /** The server is gone: every request waiting is answered so. */
  end(how: string): void {
    if (this.gone !== undefined) return;
    this.gone = how;
    for (const [id, pending] of [...this.pending]) this.settle(id, { kind: "closed", how, ms: Date.now() - pending.started });
  }
}

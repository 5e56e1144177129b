import type { Witness } from "../sandbox/witness.js";

// A transport carries JSON-RPC messages as texts, one message a text, with no framing of its own
// visible to the client: stdio frames them by newline, Streamable HTTP by request and SSE event.

/** One way to reach an MCP server. */
export interface Transport {
  /**
   * Sends one message (a request's `id` given, so that its answer's stream can be closed once done
   * with). Rejects when it cannot be delivered (the process is gone, the HTTP request failed, its
   * answer was larger than MAX_MESSAGE).
   */
  send(text: string, id?: number): Promise<void>;
  /** Called with every message the server sends. */
  onMessage(listener: (text: string) => void): void;
  /** Called once when the server goes away by itself (the process exited, the stream closed), with how. */
  onClose(listener: (how: string) => void): void;
  /** Stops the server (stdio) or ends the session (HTTP). */
  close(): Promise<void>;
  /** The end of what the server wrote on stderr (stdio only). */
  stderrTail?(): string;
  /** What the server's processes are seen to do (stdio: the sandbox's witness, or one that says why it sees nothing). */
  witness?: Witness;
  /** Tells the transport the protocol version agreed on (HTTP sends it as a header). */
  agreed?(version: string): void;
  /** The client is done with request `id` (answered, timed out): what still carries it is closed (HTTP: its SSE stream). */
  finished?(id: number): void;
}

/** The most a single message from the server may hold (a stdio line, an HTTP body, an SSE stream): 16 MB. */
export const MAX_MESSAGE = 16 * 1024 * 1024;

/** The server could not be started or reached at all. */
export class McpStartError extends Error {
  override name = "McpStartError";
  constructor(
    message: string,
    readonly stderr?: string,
  ) {
    super(message);
  }
}

/** Keeps the last `max` characters of a growing text (a server's stderr). */
export class Tail {
  private text = "";
  constructor(private readonly max = 8_192) {}
  add(chunk: string): void {
    this.text += chunk;
    if (this.text.length > 2 * this.max) this.text = this.text.slice(-this.max);
  }
  toString(): string {
    return this.text.length > this.max ? `…${this.text.slice(-this.max)}` : this.text;
  }
}

import { httpTransport } from "./http-transport.js";
import { Rpc, type Answer } from "./rpc.js";
import { stdioTransport } from "./stdio-transport.js";
import { McpStartError, type Transport } from "./transport.js";
import type { Sandbox } from "../sandbox/common.js";
import { unwatched, type CallWindow } from "../sandbox/witness.js";

// A minimal MCP client: what scoring a server's tools from outside needs, and nothing else.
// initialize (offering the newest spec version first), notifications/initialized, tools/list with
// its pages, tools/call and ping. A server that goes away is started again by restart().

/** The spec versions offered, newest first. */
export const PROTOCOL_VERSIONS = ["2025-11-25", "2025-06-18"] as const;

/** Where the server is: a command (stdio) or a URL (Streamable HTTP). */
export type McpEndpoint = { command: string; cwd?: string; env?: Record<string, string | undefined>; sandbox?: Sandbox } | { url: string; headers?: Record<string, string> };

export interface ClientOptions {
  /** Each request's timeout, ms (default 10,000). */
  timeoutMs?: number;
  /** The first initialize's timeout, ms: a server started by npx may first install itself (default 60,000). A restart's is timeoutMs, or twice the first start's time when longer (never past this). */
  startTimeoutMs?: number;
  /** Aborted: a start or restart under way is given up (McpStartError with the abort's reason). */
  signal?: AbortSignal;
}

/** What the server said of itself at initialize. */
export interface ServerHello {
  protocolVersion: string;
  /** Whether the version is one the client offered. */
  offered: boolean;
  serverInfo: { name: string; version?: string };
  capabilities: Record<string, unknown>;
}

/** One tools/list, page by page: the tools and each page's response text. */
export interface ToolList {
  tools: unknown[];
  pages: string[];
  /** Why the listing stopped before the server said it was done (a page cap, a repeated cursor). */
  cut?: string;
}

/** The most pages a tools/list may take: a cursor that never ends is the server's fault. */
export const MAX_PAGES = 100;

export class McpClient {
  private rpc!: Rpc;
  hello!: ServerHello;
  readonly timeoutMs: number;
  private readonly startTimeoutMs: number;
  private readonly signal: AbortSignal | undefined;
  /** How many times the server was started again after it went away. */
  restarts = 0;
  /** How long the first start took, ms: a restart may take as long. */
  private firstStartMs: number | undefined;
  /** What the witnesses of servers already stopped saw outside every call. */
  private readonly pastNotes: string[] = [];

  private constructor(
    readonly endpoint: McpEndpoint,
    options: ClientOptions,
  ) {
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.startTimeoutMs = options.startTimeoutMs ?? 60_000;
    this.signal = options.signal;
  }

  /** Starts or reaches the server and initializes it; McpStartError when it cannot. */
  static async connect(endpoint: McpEndpoint, options: ClientOptions = {}): Promise<McpClient> {
    const client = new McpClient(endpoint, options);
    await client.start();
    return client;
  }

  get label(): string {
    return "command" in this.endpoint ? this.endpoint.command : this.endpoint.url;
  }

  /** The end of the server's stderr (stdio). */
  stderrTail(): string | undefined {
    return this.rpc.transport.stderrTail?.();
  }

  /** Whether the server runs under a witness (the sandbox), so that a call's window can see what it did. */
  get witnessed(): boolean {
    return this.rpc.transport.witness !== undefined;
  }

  /** A window on the next call: what the server's processes do until it is closed (docs/sandbox.md). */
  watch(): CallWindow {
    return this.witness().open();
  }

  /** A window in which no call is sent: what the server's own processes do by themselves until it is closed. */
  watchIdle(): CallWindow {
    return this.witness().idle();
  }

  private witness() {
    return this.rpc.transport.witness ?? unwatched("a server at a URL runs outside the sandbox");
  }

  /** What the sandbox saw the server do outside every call (at start, after a call), each line once. */
  observedNotes(): string[] {
    return [...new Set([...this.pastNotes, ...(this.rpc.transport.witness?.notes() ?? [])])];
  }

  /** How the server went away, when it has. */
  get closed(): string | undefined {
    return this.rpc.closed;
  }

  private async start(timeoutMs = this.startTimeoutMs): Promise<void> {
    const transport: Transport = "command" in this.endpoint ? stdioTransport(this.endpoint.command, { ...(this.endpoint.cwd ? { cwd: this.endpoint.cwd } : {}), ...(this.endpoint.env ? { env: this.endpoint.env } : {}), ...(this.endpoint.sandbox ? { sandbox: this.endpoint.sandbox } : {}) }) : httpTransport(this.endpoint.url, { ...(this.endpoint.headers ? { headers: this.endpoint.headers } : {}) });
    this.rpc = new Rpc(transport);
    const started = Date.now();
    let refusal = "";
    for (const version of PROTOCOL_VERSIONS) {
      const answer = await untilAborted(this.rpc.request("initialize", { protocolVersion: version, capabilities: {}, clientInfo: { name: "tool-conformance", version: "1" } }, timeoutMs), this.signal);
      if (answer === undefined) {
        await transport.close();
        throw new McpStartError(String(this.signal?.reason));
      }
      if (answer.kind === "result") {
        this.firstStartMs ??= Date.now() - started;
        this.hello = helloOf(answer.result);
        transport.agreed?.(this.hello.protocolVersion);
        await this.rpc.notify("notifications/initialized");
        return;
      }
      if (answer.kind === "error") {
        // refused: offer the older version
        refusal = `initialize was refused: ${answer.text}`;
        continue;
      }
      const stderr = transport.stderrTail?.();
      await transport.close();
      const why = answer.kind === "closed" ? answer.how : `no answer to initialize within ${timeoutMs} ms`;
      throw new McpStartError(`the MCP server did not start: ${why}`, stderr);
    }
    const stderr = transport.stderrTail?.();
    await transport.close();
    throw new McpStartError(`the MCP server refused both protocol versions offered (${PROTOCOL_VERSIONS.join(", ")}): ${refusal}`, stderr);
  }

  /** Stops the server and starts it again (after it crashed or hung). */
  async restart(): Promise<void> {
    this.pastNotes.push(...(this.rpc.transport.witness?.notes() ?? []));
    await this.rpc.transport.close();
    this.restarts++;
    // only the first start may be an install (npx): a restart is held to the request timeout, or to twice
    // what the first start took when that was longer (a server that looks something up as it starts)
    await this.start(Math.min(this.startTimeoutMs, Math.max(this.timeoutMs, 2 * (this.firstStartMs ?? 0))));
  }

  /**
   * tools/list, following nextCursor, or the answer that broke it off. It stops, saying why in
   * `cut`, at MAX_PAGES pages or at a cursor it already followed (a loop would only list the same
   * tools again, which would then read as duplicates).
   */
  async listTools(): Promise<{ list: ToolList } | { failed: Answer }> {
    const list: ToolList = { tools: [], pages: [] };
    const followed = new Set<string>();
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const answer = await this.rpc.request("tools/list", cursor === undefined ? {} : { cursor }, this.timeoutMs);
      if (answer.kind !== "result") return { failed: answer };
      list.pages.push(answer.text);
      const result = answer.result as { tools?: unknown; nextCursor?: unknown } | undefined;
      // one by one: a spread of a page of 100,000 tools would overflow the call stack
      if (Array.isArray(result?.tools)) for (const tool of result.tools) list.tools.push(tool);
      if (typeof result?.nextCursor !== "string" || result.nextCursor === "") return { list };
      cursor = result.nextCursor;
      if (followed.has(cursor)) return { list: { ...list, cut: `tools/list repeated cursor ${JSON.stringify(cursor.length > 80 ? `${cursor.slice(0, 80)}…` : cursor)}: listing stopped` } };
      followed.add(cursor);
    }
    return { list: { ...list, cut: `tool list cut at ${MAX_PAGES} pages: tools after it not probed` } };
  }

  /** tools/call with `args` as the arguments value, whatever it is (the probes send non-objects too). */
  call(name: string, args: unknown): Promise<Answer> {
    return this.rpc.request("tools/call", { name, arguments: args }, this.timeoutMs);
  }

  /** tools/call with the arguments given as JSON text, sent as written (a literal such as 3.0 stays 3.0). */
  callText(name: string, argumentsText: string): Promise<Answer> {
    const id = this.rpc.reserveId();
    const frame = `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":${JSON.stringify(name)},"arguments":${argumentsText}}}`;
    return this.rpc.exchange(id, frame, this.timeoutMs);
  }

  /** A request whose params are given whole (a call with no arguments member). */
  request(method: string, params: unknown): Promise<Answer> {
    return this.rpc.request(method, params, this.timeoutMs);
  }

  ping(): Promise<Answer> {
    return this.rpc.request("ping", undefined, this.timeoutMs);
  }

  /** Sends a frame that is not JSON-RPC (`text` as is), then the server's reply to it if any comes within a short wait. */
  async malformed(text: string, waitMs = 500): Promise<string | undefined> {
    const before = this.rpc.stray.length;
    await this.rpc.sendRaw(text);
    const end = Date.now() + waitMs;
    while (Date.now() < end && this.rpc.stray.length === before && this.rpc.closed === undefined) await new Promise((resolve) => setTimeout(resolve, 20));
    return this.rpc.stray.length > before ? this.rpc.stray[this.rpc.stray.length - 1] : undefined;
  }

  async close(): Promise<void> {
    await this.rpc.transport.close();
  }
}

/** The promise's value, or undefined as soon as `signal` is aborted. */
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T | undefined> {
  if (signal === undefined) return promise;
  if (signal.aborted) return Promise.resolve(undefined);
  return new Promise((resolve, reject) => {
    const onAbort = () => resolve(undefined);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => (signal.removeEventListener("abort", onAbort), resolve(value)),
      (error: unknown) => (signal.removeEventListener("abort", onAbort), reject(error)),
    );
  });
}

function helloOf(result: unknown): ServerHello {
  const record = (typeof result === "object" && result !== null ? result : {}) as Record<string, unknown>;
  const version = typeof record.protocolVersion === "string" ? record.protocolVersion : "(none given)";
  const info = (typeof record.serverInfo === "object" && record.serverInfo !== null ? record.serverInfo : {}) as Record<string, unknown>;
  return {
    protocolVersion: version,
    offered: (PROTOCOL_VERSIONS as readonly string[]).includes(version),
    serverInfo: { name: typeof info.name === "string" ? info.name : "(unnamed)", ...(typeof info.version === "string" ? { version: info.version } : {}) },
    capabilities: (typeof record.capabilities === "object" && record.capabilities !== null ? record.capabilities : {}) as Record<string, unknown>,
  };
}

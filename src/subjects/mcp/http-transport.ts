import { McpStartError, type Transport } from "./transport.js";

// MCP over Streamable HTTP: every message is its own POST to one endpoint, accepting JSON or an
// SSE stream; the answer (a JSON body, or each SSE event's data) is handed on as messages. The
// session id the server gives at initialize is sent back on every later request, and so is the
// protocol version once agreed.

export interface HttpOptions {
  /** Extra request headers (an Authorization token). */
  headers?: Record<string, string>;
}

export function httpTransport(url: string, options: HttpOptions = {}): Transport {
  let endpoint: URL;
  try {
    endpoint = new URL(url);
  } catch {
    throw new McpStartError(`--mcp-url ${JSON.stringify(url)} is not a URL`);
  }
  if (endpoint.protocol !== "http:" && endpoint.protocol !== "https:") throw new McpStartError(`--mcp-url ${url}: only http: and https: are supported`);
  const messageListeners: ((text: string) => void)[] = [];
  const streams = new Set<AbortController>();
  let session: string | undefined;
  let version: string | undefined;
  const deliver = (text: string) => {
    for (const listener of messageListeners) listener(text);
  };
  return {
    async send(text) {
      const controller = new AbortController();
      streams.add(controller);
      const headers: Record<string, string> = { "content-type": "application/json", accept: "application/json, text/event-stream", ...options.headers };
      if (session !== undefined) headers["mcp-session-id"] = session;
      if (version !== undefined) headers["mcp-protocol-version"] = version;
      let response: Response;
      try {
        response = await fetch(endpoint, { method: "POST", headers, body: text, signal: controller.signal });
      } catch (error) {
        streams.delete(controller);
        throw new Error(`the HTTP request failed: ${causeOf(error)}`);
      }
      const given = response.headers.get("mcp-session-id");
      if (given !== null && session === undefined) session = given;
      const type = response.headers.get("content-type") ?? "";
      if (type.includes("text/event-stream") && response.body) {
        // read on in the background: the answer may come after other events
        void readEvents(response.body, deliver).finally(() => streams.delete(controller)).catch(() => {});
        return;
      }
      const body = await response.text().catch(() => "");
      streams.delete(controller);
      if (body.trim() !== "" && looksLikeJson(body)) {
        const parsed = safeParse(body);
        if (Array.isArray(parsed)) for (const item of parsed) deliver(JSON.stringify(item));
        else deliver(body);
        return;
      }
      if (!response.ok) throw new Error(`HTTP ${response.status} ${response.statusText}${body ? `: ${body.slice(0, 300)}` : ""}`);
    },
    onMessage: (listener) => void messageListeners.push(listener),
    // an HTTP server has no process to watch: a failed request says it is gone
    onClose: () => {},
    agreed(agreedVersion) {
      version = agreedVersion;
    },
    async close() {
      for (const controller of streams) controller.abort();
      streams.clear();
      if (session === undefined) return;
      const headers: Record<string, string> = { ...options.headers, "mcp-session-id": session };
      await fetch(endpoint, { method: "DELETE", headers, signal: AbortSignal.timeout(2_000) }).catch(() => {});
    },
  };
}

/** Each SSE event's data (its data lines joined by newlines), handed on as it arrives. */
async function readEvents(body: ReadableStream<Uint8Array>, deliver: (text: string) => void): Promise<void> {
  const decoder = new TextDecoder();
  let buffer = "";
  let data: string[] = [];
  const line = (text: string) => {
    if (text === "") {
      if (data.length > 0) deliver(data.join("\n"));
      data = [];
    } else if (text.startsWith("data:")) data.push(text.slice(5).replace(/^ /, ""));
    // event:, id:, retry: and comments carry nothing the client needs here
  };
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    let at: number;
    while ((at = buffer.search(/\r\n|\r|\n/)) !== -1) {
      const end = buffer.startsWith("\r\n", at) ? at + 2 : at + 1;
      line(buffer.slice(0, at));
      buffer = buffer.slice(end);
    }
  }
  line(buffer);
  line("");
}

function looksLikeJson(text: string): boolean {
  const first = text.trimStart()[0];
  return first === "{" || first === "[";
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function causeOf(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as { cause?: unknown }).cause;
    return cause instanceof Error ? `${error.message} (${cause.message})` : error.message;
  }
  return String(error);
}

import { headerProblem, urlProblem } from "./http-endpoint.js";
import { LineSplitter } from "./lines.js";
import { redactorOf } from "./secrets.js";
import { MAX_MESSAGE, McpStartError, type Transport } from "./transport.js";

// MCP over Streamable HTTP: every message is its own POST to one endpoint, accepting JSON or an
// SSE stream; the answer (a JSON body, or each SSE event's data) is handed on as messages. The
// session id the server gives at initialize is sent back on every later request, and so is the
// protocol version once agreed.
//
// As strict as stdio: a body or a stream is read up to MAX_MESSAGE bytes, never more; a request's
// stream is closed as soon as its answer came (or it was given up); a redirect is never followed
// (the headers, a token, would go with it); and every header value given is redacted from what
// the server sends back before anything else reads it.

export interface HttpOptions {
  /** Extra request headers (an Authorization token). */
  headers?: Record<string, string>;
}

/** How long a stream answering a message with no id (a notification) is read at most. */
const NO_ID_STREAM_MS = 10_000;

export function httpTransport(url: string, options: HttpOptions = {}): Transport {
  const problem = urlProblem(url) ?? Object.entries(options.headers ?? {}).map(([name, value]) => headerProblem(name, value)).find((found) => found !== undefined);
  if (problem !== undefined) throw new McpStartError(`--mcp-url: ${problem}`);
  const endpoint = new URL(url);
  const redact = redactorOf(Object.values(options.headers ?? {}));
  const messageListeners: ((text: string) => void)[] = [];
  const streams = new Set<AbortController>();
  /** The open request of each id, closed when the client is done with it. */
  const byId = new Map<number, AbortController>();
  let session: string | undefined;
  let version: string | undefined;
  const deliver = (text: string) => {
    const clean = redact(text);
    for (const listener of messageListeners) listener(clean);
  };
  const post = async (text: string, id: number | undefined, controller: AbortController): Promise<void> => {
    const headers: Record<string, string> = { "content-type": "application/json", accept: "application/json, text/event-stream", ...options.headers };
    if (session !== undefined) headers["mcp-session-id"] = session;
    if (version !== undefined) headers["mcp-protocol-version"] = version;
    let response: Response;
    try {
      response = await fetch(endpoint, { method: "POST", headers, body: text, signal: controller.signal, redirect: "manual" });
    } catch (error) {
      throw new Error(`the HTTP request failed: ${causeOf(error)}`);
    }
    if (response.status >= 300 && response.status < 400) {
      await response.body?.cancel().catch(() => {});
      throw new Error(redirectRefusal(endpoint, response));
    }
    const given = response.headers.get("mcp-session-id");
    if (given !== null && session === undefined) session = given;
    const type = response.headers.get("content-type") ?? "";
    if (type.includes("text/event-stream") && response.body) {
      const read = readEvents(response.body, (message) => {
        deliver(message);
        // a notification's stream has nothing more to bring once it brought something
        if (id === undefined) controller.abort();
      });
      if (id !== undefined) return await read;
      // a notification does not wait on its stream: read for a while in the background
      const timer = setTimeout(() => controller.abort(), NO_ID_STREAM_MS).unref();
      void read.catch(() => {}).finally(() => clearTimeout(timer));
      return;
    }
    const body = response.body ? await readCapped(response.body) : "";
    if (body.trim() !== "" && looksLikeJson(body)) {
      const parsed = safeParse(body);
      if (Array.isArray(parsed)) for (const item of parsed) deliver(JSON.stringify(item));
      else deliver(body);
      return;
    }
    if (!response.ok) throw new Error(`HTTP ${response.status} ${response.statusText}${body ? `: ${body.slice(0, 300)}` : ""}`);
  };
  return {
    async send(text, id) {
      const controller = new AbortController();
      streams.add(controller);
      if (id !== undefined) byId.set(id, controller);
      try {
        await post(text, id, controller);
      } catch (error) {
        // given up by the client (answered, timed out, closed): nothing to tell
        if (controller.signal.aborted) return;
        throw new Error(redact(error instanceof Error ? error.message : String(error)));
      } finally {
        streams.delete(controller);
        if (id !== undefined && byId.get(id) === controller) byId.delete(id);
      }
    },
    onMessage: (listener) => void messageListeners.push(listener),
    // an HTTP server has no process to watch: a failed request says it is gone
    onClose: () => {},
    agreed(agreedVersion) {
      version = agreedVersion;
    },
    finished(id) {
      byId.get(id)?.abort();
    },
    async close() {
      for (const controller of streams) controller.abort();
      streams.clear();
      byId.clear();
      if (session === undefined) return;
      const headers: Record<string, string> = { ...options.headers, "mcp-session-id": session };
      const response = await fetch(endpoint, { method: "DELETE", headers, signal: AbortSignal.timeout(2_000), redirect: "manual" }).catch(() => undefined);
      await response?.body?.cancel().catch(() => {});
    },
  };
}

/** An answer larger than MAX_MESSAGE: cut off, told as the request's failure. */
class CapError extends Error {}

/** Why a redirect is not followed, saying where it led without its path's secrets (origin and path only). */
function redirectRefusal(endpoint: URL, response: Response): string {
  const location = response.headers.get("location");
  let target: URL | undefined;
  try {
    target = location === null ? undefined : new URL(location, endpoint);
  } catch {
    target = undefined;
  }
  const how = `the MCP server redirected (HTTP ${response.status})`;
  if (target === undefined) return `${how} to no valid Location: not followed`;
  if (target.origin !== endpoint.origin) return `${how} to another origin (${target.origin}): not followed, no header was sent there`;
  return `${how} to ${target.origin}${target.pathname}: not followed; give that URL to --mcp-url`;
}

/** A body read whole, up to MAX_MESSAGE bytes. */
async function readCapped(body: ReadableStream<Uint8Array>): Promise<string> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes += value.byteLength;
    if (bytes > MAX_MESSAGE) {
      await reader.cancel().catch(() => {});
      throw new CapError(`the HTTP answer is larger than ${MAX_MESSAGE} bytes (16 MB, the most a message may hold): cut off unread`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * Each SSE event's data (its data lines joined by newlines), handed on as it arrives, until the
 * stream ends or is aborted; a stream that passes MAX_MESSAGE bytes is cut off (a CapError).
 */
async function readEvents(body: ReadableStream<Uint8Array>, deliver: (text: string) => void): Promise<void> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let data: string[] = [];
  let bytes = 0;
  const lines = new LineSplitter({
    max: MAX_MESSAGE,
    crEnds: true,
    onOverflow: () => {},
    onLine(text) {
      if (text === "") {
        if (data.length > 0) deliver(data.join("\n"));
        data = [];
      } else if (text.startsWith("data:")) data.push(text.slice(5).replace(/^ /, ""));
      // event:, id:, retry: and comments carry nothing the client needs here
    },
  });
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      bytes += value.byteLength;
      // the whole stream is capped, not each line: data lines or comments sent forever end here too
      if (bytes > MAX_MESSAGE) throw new CapError(`the SSE stream passed ${MAX_MESSAGE} bytes (16 MB, the most a message may hold) without the answer: cut off`);
      lines.push(decoder.decode(value, { stream: true }));
    }
    lines.end();
    if (data.length > 0) deliver(data.join("\n"));
  } finally {
    await reader.cancel().catch(() => {});
  }
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

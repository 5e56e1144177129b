// An HTTP-side framework's fetch-style handler served over stdio, with no socket:
//   node stdio-http.mjs SERVER.mjs
// SERVER.mjs is written as its framework's docs teach and exports its handler the way they do: a
// Hono app as its default export (`app.fetch`), or Next.js route handlers (`export { handler as POST }`).
// Each JSON-RPC line read on stdin becomes one POST Request to that handler, as a Streamable HTTP
// client sends it (Accept: JSON or SSE; the session id and the agreed protocol version sent back once
// given), and every JSON-RPC message of its answer (a JSON body, or each SSE event's data) is written
// back as one line. So the framework's own HTTP code path answers, as it would behind a socket.
import { createInterface } from "node:readline";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";

const file = process.argv[2];
if (!file) {
  process.stderr.write("usage: node stdio-http.mjs SERVER.mjs\n");
  process.exit(2);
}
const mod = await import(pathToFileURL(resolve(file)).href);
const handler = typeof mod.default?.fetch === "function" ? (request) => mod.default.fetch(request) : mod.POST;
if (typeof handler !== "function") {
  process.stderr.write(`${file}: exports neither a default app with fetch nor a POST route handler\n`);
  process.exit(2);
}

const ENDPOINT = "http://localhost/mcp";
let session;
let version;
const write = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);

/** Each message of an answer, as the text it was sent in: a JSON body (one message or a batch) or SSE events' data. */
async function messagesOf(response) {
  const type = response.headers.get("content-type") ?? "";
  const body = await response.text();
  if (type.includes("text/event-stream")) {
    const events = [];
    for (const event of body.split(/\r?\n\r?\n/)) {
      const data = event.split(/\r?\n/).filter((line) => line.startsWith("data:")).map((line) => line.slice(5).replace(/^ /, ""));
      if (data.length > 0) events.push(data.join("\n"));
    }
    return events;
  }
  // a body that is no JSON-RPC message (empty, or the `null` of a 202) carries nothing to hand on
  return /^\s*[[{]/.test(body) ? [body] : [];
}

async function post(line) {
  const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
  if (session !== undefined) headers["mcp-session-id"] = session;
  if (version !== undefined) headers["mcp-protocol-version"] = version;
  const response = await handler(new Request(ENDPOINT, { method: "POST", headers, body: line }));
  session ??= response.headers.get("mcp-session-id") ?? undefined;
  const texts = await messagesOf(response);
  if (texts.length === 0 && !response.ok) process.stderr.write(`HTTP ${response.status} with no JSON-RPC answer\n`);
  for (const text of texts) {
    let message;
    try {
      message = JSON.parse(text);
    } catch {
      process.stderr.write(`HTTP ${response.status}, not JSON: ${text.slice(0, 300)}\n`);
      continue;
    }
    // a batch's answers one a line, as a client reads them; a single message as it was sent
    for (const one of Array.isArray(message) ? message : [message]) {
      if (typeof one?.result?.protocolVersion === "string") version ??= one.result.protocolVersion;
      if (Array.isArray(message) || text.includes("\n")) write(one);
      else process.stdout.write(`${text}\n`);
    }
  }
}

// initialize first (its session id goes with every later request), then each line as it comes
let initialized = Promise.resolve();
createInterface({ input: process.stdin }).on("line", (line) => {
  const sent = /"method"\s*:\s*"initialize"/.test(line) ? (initialized = post(line)) : initialized.then(() => post(line));
  sent.catch((error) => process.stderr.write(`the handler threw: ${error instanceof Error ? error.stack : String(error)}\n`));
});

import { createInterface } from "node:readline";
import type { Readable, Writable } from "node:stream";
import { PROTOCOL_VERSIONS } from "./client.js";

// The server side of MCP over stdio, for a registry: initialize, tools/list (the registry's
// definitions, in its order), tools/call (Registry.call: a refusal or a failure is an isError
// result whose text is the tool message's), ping. What mcp-serve runs; nothing of the SDK.

/** What is served: the reference's registry or a mutant's (only these two methods are used). */
export interface Served {
  definitions(): { name: string; description: string; parameters: unknown }[];
  call(call: { id: string; name: string; arguments: string }): Promise<{ isError: boolean; message(): { content: string } }>;
}

export async function serveMcp(registry: Served, info: { name: string; version: string }, input: Readable, output: Writable): Promise<void> {
  const lines = createInterface({ input, crlfDelay: Infinity, terminal: false });
  const write = (message: object) => output.write(JSON.stringify(message) + "\n");
  let calls = 0;
  for await (const line of lines) {
    if (line.trim() === "") continue;
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      write({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "parse error: the frame is not JSON" } });
      continue;
    }
    const request = (typeof message === "object" && message !== null && !Array.isArray(message) ? message : {}) as { id?: unknown; method?: unknown; params?: Record<string, unknown> };
    // a notification (no id) needs no answer
    if (request.id === undefined || request.id === null) continue;
    const reply = (body: object) => write({ jsonrpc: "2.0", id: request.id, ...body });
    const params = typeof request.params === "object" && request.params !== null ? request.params : {};
    switch (request.method) {
      case "initialize": {
        const asked = typeof params.protocolVersion === "string" ? params.protocolVersion : "";
        const protocolVersion = (PROTOCOL_VERSIONS as readonly string[]).includes(asked) ? asked : PROTOCOL_VERSIONS[0];
        reply({ result: { protocolVersion, capabilities: { tools: {} }, serverInfo: info } });
        break;
      }
      case "ping":
        reply({ result: {} });
        break;
      case "tools/list":
        reply({ result: { tools: registry.definitions().map((d) => ({ name: d.name, description: d.description, inputSchema: d.parameters })) } });
        break;
      case "tools/call": {
        if (typeof params.name !== "string") {
          reply({ error: { code: -32602, message: "invalid params: tools/call needs a tool name" } });
          break;
        }
        // absent arguments are the registry's "" (read as {}); any other value is validated as sent
        const args = params.arguments === undefined ? "" : JSON.stringify(params.arguments);
        const result = await registry.call({ id: `call_${++calls}`, name: params.name, arguments: args });
        reply({ result: { content: [{ type: "text", text: result.message().content }], isError: result.isError } });
        break;
      }
      default:
        reply({ error: { code: -32601, message: `method not found: ${String(request.method)}` } });
    }
  }
}

// The seed's contract (ag.02: Tool, Registry, Compile/ValidateJSON) on top of the official MCP
// TypeScript SDK (@modelcontextprotocol/sdk), written the way its users write an MCP server:
//
//   const server = new McpServer({name, version});
//   server.registerTool(name, {description, inputSchema}, handler);
//
// and driven the way a model host drives one: a Client connected over InMemoryTransport asks
// `listTools()` for the definitions it would put in the prompt and `callTool({name, arguments})`
// for each tool call the model makes. Served over the harness protocol by the TypeScript template,
// unchanged:  node .build/typescript/adapter.mjs ./mcp-sdk/registry.mjs   (from implementations/)
//
// Where validation happens in this SDK (checked in node_modules/@modelcontextprotocol/sdk 1.32.2):
//   - the SERVER validates a call's arguments: McpServer.validateToolInput runs the tool's zod
//     inputSchema (safeParseAsync) on `request.params.arguments ?? {}`; a failure, an unknown tool or
//     a throwing handler all come back as a CallToolResult {isError: true, content: [{text}]}.
//   - the CLIENT's Ajv validator (AjvJsonSchemaValidator) only checks a tool's *outputSchema*
//     against `structuredContent` (Client.cacheToolMetadata / callTool); tools here have no
//     outputSchema, so Ajv validates nothing on this path. The client also checks the shape of every
//     message with the SDK's own zod schemas (e.g. ListToolsResult: a tool's inputSchema must be
//     {"type": "object", ...}).
//   - the SDK takes zod schemas only; a user holding a JSON Schema converts it with zod 4's
//     `z.fromJSONSchema` (that is what this glue does; it is the only conversion zod offers), and the
//     definitions the host sees are the SDK's re-serialization of that zod schema (toJsonSchemaCompat).
import * as z from "zod";
import { checkSubset, installedVersion, STRICT, validateParsed } from "../js-glue/glue.mjs";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { safeParseAsync } from "@modelcontextprotocol/sdk/server/zod-compat.js";

export const NAME = "@modelcontextprotocol/sdk";
export const LANGUAGE = "javascript";
/** The installed SDK's version, read from its package.json at run time (never hard-coded). */
export const VERSION = installedVersion("@modelcontextprotocol/sdk", "@modelcontextprotocol/sdk/server/mcp.js");

/** What a tool throws to fail on purpose. The MCP server turns any throw into an isError result. */
export class ToolError extends Error {}

// ---- STRICT_SUBSET=1 (checkSubset, js-glue/glue.mjs): the one check a user of zod's converter would add (off by default) ----------
// z.fromJSONSchema ignores or approximates keywords (format, oneOf, ...); a user who wants the seed's
// "refuse what you do not implement" walks the schema first. Off by default: the table shows the
// library as it is.

/** Schema text to the zod schema McpServer takes. JSON.parse errors and fromJSONSchema's refusals are
 *  the refusal. Blank text and "null" are read as "no schema", that is {"type": "object"} (the seed's
 *  reading; the SDK takes a parsed schema, so this reading is the glue's parse step). A tool without
 *  schema is given {"type": "object"} converted like any other, rather than no inputSchema at all:
 *  an MCP handler registered without inputSchema never sees the call's arguments. */
function toZod(schemaText) {
  const parsed = schemaText === undefined || schemaText.trim() === "" ? null : JSON.parse(schemaText);
  const json = parsed === null ? { type: "object" } : parsed;
  if (STRICT) checkSubset(json);
  return z.fromJSONSchema(json);
}

// ---- compile / validate: the conversion and the parse the server applies --------------------------
const jsonType = (v) => (v === null ? "null" : Array.isArray(v) ? "array" : typeof v === "number" ? (Number.isInteger(v) ? "integer" : "number") : typeof v);
/** The value at a zod issue path, and whether its last step exists in its parent. */
function locate(root, path) {
  let parent, value = root;
  for (const key of path) {
    parent = value;
    value = parent !== null && typeof parent === "object" ? parent[key] : undefined;
  }
  const present = path.length === 0 || (parent !== null && typeof parent === "object" && Object.prototype.hasOwnProperty.call(parent, path[path.length - 1]));
  return { value, present };
}
/** zod's path array rendered as the seed's path: `$`, `.name` per property, `[i]` per index. */
const render = (path) => "$" + path.map((k) => (typeof k === "number" ? `[${k}]` : `.${String(k)}`)).join("");

/** One zod issue as the seed's {path, message} list. The four messages the seed's worked example
 *  spells out are worded its way from zod's issue data (contract text, brief rule 1); every other
 *  message is zod's own text. */
function toErrors(issue, root) {
  const path = issue.path ?? [];
  if (issue.code === "invalid_type") {
    const { value, present } = locate(root, path);
    // zod reports a missing required property as invalid_type at the property's path; the seed
    // reports it at the object's path
    if (!present && path.length > 0) return [{ path: render(path.slice(0, -1)), message: `missing required property ${JSON.stringify(String(path[path.length - 1]))}` }];
    // `expected` is zod's (z.int() says "number"); `got` is the JSON type of the value zod rejected
    return [{ path: render(path), message: `expected ${issue.expected}, got ${jsonType(value)}` }];
  }
  if (issue.code === "unrecognized_keys") return issue.keys.map((k) => ({ path: render(path), message: `unexpected property ${JSON.stringify(k)}` }));
  if (issue.code === "invalid_value" && Array.isArray(issue.values)) {
    const { value } = locate(root, path);
    return [{ path: render(path), message: `${JSON.stringify(value)} is not one of ${JSON.stringify(issue.values)}` }];
  }
  return [{ path: render(path), message: issue.message }];
}
// The seed sorts by path, then message (Go byte order = code point order); zod returns them in its
// walk order. Sorting is presentation the library cannot know.
const cmp = (a, b) => {
  const x = [...a], y = [...b];
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i].codePointAt(0) - y[i].codePointAt(0);
  return x.length - y.length;
};

export function compile(schemaText) {
  // a caller's compile step: parse the text, then build the zod schema the server would hold
  const json = JSON.parse(schemaText);
  if (STRICT) checkSubset(json);
  const schema = z.fromJSONSchema(json);
  return {
    async validateJSON(text) {
      // the SDK validates parsed values; text that does not parse is one error at the root (PROTOCOL.md)
      return validateParsed(text, async (value) => {
        const result = await safeParseAsync(schema, value); // the SDK's parse, as validateToolInput calls it
        if (result.success) return [];
        return result.error.issues.flatMap((issue) => toErrors(issue, value)).sort((a, b) => cmp(a.path, b.path) || cmp(a.message, b.message));
      });
    },
  };
}

// ---- tools and the registry --------------------------------------------------------------------
export function newTool(name, description, schemaText, fn) {
  return { name, description, schemaText, fn };
}

/** The registry a host keeps: the accepted tools, in order, and the current server + client pair.
 *  McpServer refuses new registrations once connected, so each register builds a fresh server with
 *  every kept tool and the new one (PROTOCOL.md, "Questions adapters ask"), connects a fresh client,
 *  and swaps it in; calls already in flight finish on the pair they started on. */
export class Registry {
  #kept = [];
  #current; // Promise<{client, server}>
  #lock = Promise.resolve(); // registrations one at a time (a rebuild is async)
  #timeoutMs;

  constructor(options = {}) {
    // timeoutMs: the client's request timeout (callTool's RequestOptions.timeout); the SDK then sends
    // notifications/cancelled and the server aborts the handler's signal. None given: the SDK's
    // default (60 s).
    this.#timeoutMs = options.timeoutMs;
    this.#current = this.#build([]).then((b) => b.pair);
  }

  /** A fresh McpServer with `tools` registered, connected to a fresh Client. The error registerTool
   *  threw for the last tool, if any, is returned (that tool then left out). */
  async #build(tools) {
    const server = new McpServer({ name: "tool-conformance", version: VERSION });
    let error;
    tools.forEach((t, i) => {
      try {
        server.registerTool(t.name, { description: t.description, inputSchema: toZod(t.schemaText) }, async (args, extra) => {
          // the handler receives zod's parsed output, not the model's text: the tool's text is its
          // JSON serialization (key order, numbers as JS prints them, keys zod kept)
          const text = await t.fn(JSON.stringify(args), extra.signal);
          return { content: [{ type: "text", text: String(text) }] };
        });
      } catch (e) {
        if (i === tools.length - 1) error = e;
        else throw e; // a kept tool was accepted before: cannot happen
      }
    });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: "tool-conformance-host", version: VERSION });
    await server.connect(serverSide);
    await client.connect(clientSide);
    return { pair: { client, server }, error };
  }

  async register(tool) {
    const run = this.#lock.then(async () => {
      const { pair, error } = await this.#build([...this.#kept, tool]);
      if (error) {
        await pair.client.close();
        throw error; // the SDK's (or the converter's) refusal, as thrown
      }
      this.#kept.push(tool);
      const old = this.#current;
      this.#current = Promise.resolve(pair);
      // the old pair stays open: a call started on it may still be running
      void old;
    });
    this.#lock = run.catch(() => {});
    return run;
  }

  async #tools() {
    const { client } = await this.#current;
    // A host asks listTools only of a server that advertises the `tools` capability (MCP's
    // initialize handshake); McpServer advertises it only once a tool was registered, and answers
    // listTools "Method not found" before: no capability, no tools.
    if (!client.getServerCapabilities()?.tools) return [];
    return (await client.listTools()).tools;
  }

  async names() {
    return (await this.#tools()).map((t) => t.name);
  }

  /** The tools as listTools gives them to the host, in the SDK's order (registration order). */
  async definitions() {
    return (await this.#tools()).map((t) => ({ name: t.name, description: t.description ?? "", parameters: t.inputSchema }));
  }

  async call({ id, name, arguments: text }) {
    const result = (content, isError) => ({
      callId: id,
      name,
      content,
      isError,
      // the SDK's error texts carry no "error: " prefix: the glue adds it when missing
      message: () => ({ role: "tool", tool_call_id: id, content: isError && !content.startsWith("error: ") ? `error: ${content}` : content }),
    });
    // A host parses the model's argument text before callTool (MCP carries JSON values). Blank text
    // means {} (the seed; providers send "" for a call without parameters). Text that does not parse
    // never reaches the server: the host answers the model with an error result itself.
    let args;
    try {
      args = text.trim() === "" ? {} : JSON.parse(text);
    } catch (error) {
      return result(`invalid JSON arguments for tool ${name}: ${error.message}`, true);
    }
    const { client } = await this.#current;
    try {
      const r = await client.callTool({ name, arguments: args }, undefined, this.#timeoutMs === undefined ? undefined : { timeout: this.#timeoutMs });
      const content = (r.content ?? []).filter((c) => c.type === "text").map((c) => c.text).join("");
      return result(content, r.isError === true);
    } catch (error) {
      // the request itself failed (timeout, arguments that are not an object refused by the
      // protocol's schema): a host reports that to the model as a failed call
      return result(error instanceof Error ? error.message : String(error), true);
    }
  }
}

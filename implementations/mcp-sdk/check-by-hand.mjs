import * as z from "zod";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
const s = new McpServer({ name: "s", version: "1" });
s.registerTool("zeta", { inputSchema: z.fromJSONSchema({ type: "object", properties: { id: { type: "integer" } } }) }, async (a) => ({ content: [{ type: "text", text: JSON.stringify(a) }] }));
s.registerTool("a tool", { inputSchema: z.fromJSONSchema({ type: "object" }) }, async (a) => ({ content: [{ type: "text", text: "ran" }] }));
s.registerTool("alpha", { inputSchema: z.fromJSONSchema({ type: "object", properties: { e: { type: "string", format: "email" } } }) }, async (a) => ({ content: [{ type: "text", text: JSON.stringify(a) }] }));
const [c1, c2] = InMemoryTransport.createLinkedPair(); const c = new Client({ name: "h", version: "1" }); await s.connect(c2); await c.connect(c1);
console.log((await c.listTools()).tools.map((t) => t.name));
console.log(JSON.stringify(await c.callTool({ name: "zeta", arguments: { id: "7" } })));
console.log(JSON.stringify(await c.callTool({ name: "zeta", arguments: JSON.parse('{ "id" : 3.0 }') })));
console.log(JSON.stringify(await c.callTool({ name: "alpha", arguments: { e: "not an email" } })));
console.log(JSON.stringify(await c.callTool({ name: "nope", arguments: {} })));
try { z.fromJSONSchema(null) } catch (e) { console.log(e.name + ": " + e.message) }

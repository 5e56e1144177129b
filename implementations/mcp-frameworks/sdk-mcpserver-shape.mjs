// The MCP TypeScript SDK (v1), its high-level McpServer, written as its README's first example is:
// each tool's inputSchema a raw shape of zod fields (no z.object(...).strict() around it), over stdio.
// Each tool answers its arguments back.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const server = new McpServer({ name: "frameworks-sdk-mcpserver-shape", version: "1.0.0" });
const echo = (args) => ({ content: [{ type: "text", text: JSON.stringify(args) }] });

server.registerTool("get_weather", {
  description: "The weather for a city over the next days",
  inputSchema: { city: z.string().min(1), days: z.number().int().min(1).max(7).optional(), unit: z.enum(["c", "f"]).optional() },
}, echo);
server.registerTool("lookup", {
  description: "Look up a code, with an optional short note",
  inputSchema: { code: z.string().regex(/[0-9]{3}/), note: z.string().min(2).max(5).optional() },
}, echo);
server.registerTool("book_trip", {
  description: "Book seats for a traveler",
  inputSchema: { traveler: z.object({ name: z.string().min(1), age: z.number().int().min(0).max(120) }), seats: z.number().int().min(1).max(4).optional(), cabin: z.literal([1, 2]).optional() },
}, echo);
server.registerTool("tag_items", {
  description: "Tag items with one to three tags",
  inputSchema: { tags: z.array(z.string().min(1)).min(1).max(3) },
}, echo);

await server.connect(new StdioServerTransport());

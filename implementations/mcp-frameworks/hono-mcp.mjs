// @hono/mcp: the SDK's McpServer (each tool's arguments a zod strict object, registerTool) connected to
// @hono/mcp's StreamableHTTPTransport inside a Hono route, as its README teaches; the app is the default
// export, as there. Served over stdio by stdio-http.mjs, which hands each message to app.fetch (no socket).
// Each tool answers its arguments back.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPTransport } from "@hono/mcp";
import { Hono } from "hono";
import { z } from "zod";

const app = new Hono();
const mcpServer = new McpServer({ name: "frameworks-hono-mcp", version: "1.0.0" });
const echo = (args) => ({ content: [{ type: "text", text: JSON.stringify(args) }] });

mcpServer.registerTool("get_weather", {
  description: "The weather for a city over the next days",
  inputSchema: z.object({ city: z.string().min(1), days: z.number().int().min(1).max(7).optional(), unit: z.enum(["c", "f"]).optional() }).strict(),
}, echo);
mcpServer.registerTool("lookup", {
  description: "Look up a code, with an optional short note",
  inputSchema: z.object({ code: z.string().regex(/[0-9]{3}/), note: z.string().min(2).max(5).optional() }).strict(),
}, echo);
mcpServer.registerTool("book_trip", {
  description: "Book seats for a traveler",
  inputSchema: z.object({ traveler: z.object({ name: z.string().min(1), age: z.number().int().min(0).max(120) }).strict(), seats: z.number().int().min(1).max(4).optional(), cabin: z.literal([1, 2]).optional() }).strict(),
}, echo);
mcpServer.registerTool("tag_items", {
  description: "Tag items with one to three tags",
  inputSchema: z.object({ tags: z.array(z.string().min(1)).min(1).max(3) }).strict(),
}, echo);

const transport = new StreamableHTTPTransport();

app.all("/mcp", async (c) => {
  if (!mcpServer.isConnected()) await mcpServer.connect(transport);
  return transport.handleRequest(c);
});

export default app;

// The MCP TypeScript SDK v2 (@modelcontextprotocol/server): McpServer with each tool's inputSchema a zod
// object (a Standard Schema with JSON Schema), registerTool, served on stdio by serveStdio from a server
// factory, as its docs teach. Each tool answers its arguments back.
import { McpServer } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { z } from "zod";

const echo = (args) => ({ content: [{ type: "text", text: JSON.stringify(args) }] });

serveStdio(() => {
  const server = new McpServer({ name: "frameworks-sdk-v2", version: "1.0.0" }, { capabilities: { tools: {} } });
  server.registerTool("get_weather", {
    description: "The weather for a city over the next days",
    inputSchema: z.object({ city: z.string().min(1), days: z.number().int().min(1).max(7).optional(), unit: z.enum(["c", "f"]).optional() }).strict(),
  }, echo);
  server.registerTool("lookup", {
    description: "Look up a code, with an optional short note",
    inputSchema: z.object({ code: z.string().regex(/[0-9]{3}/), note: z.string().min(2).max(5).optional() }).strict(),
  }, echo);
  server.registerTool("book_trip", {
    description: "Book seats for a traveler",
    inputSchema: z.object({ traveler: z.object({ name: z.string().min(1), age: z.number().int().min(0).max(120) }).strict(), seats: z.number().int().min(1).max(4).optional(), cabin: z.literal([1, 2]).optional() }).strict(),
  }, echo);
  server.registerTool("tag_items", {
    description: "Tag items with one to three tags",
    inputSchema: z.object({ tags: z.array(z.string().min(1)).min(1).max(3) }).strict(),
  }, echo);
  return server;
});

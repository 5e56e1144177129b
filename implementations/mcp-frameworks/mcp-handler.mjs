// mcp-handler (Vercel's): createMcpHandler with each tool registered on the SDK v2's McpServer it hands
// over (registerTool, each tool's arguments a zod strict object), exported as Next.js route handlers,
// as its README's quick start teaches. Served over stdio by stdio-http.mjs, which hands each message to
// the POST handler (no socket, no Next.js). Each tool answers its arguments back.
import { createMcpHandler } from "mcp-handler";
import { z } from "zod";

const echo = async (args) => ({ content: [{ type: "text", text: JSON.stringify(args) }] });

const handler = createMcpHandler((server) => {
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
});

export { handler as GET, handler as POST };

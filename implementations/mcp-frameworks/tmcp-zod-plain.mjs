// tmcp with its zod adapter, written as its README's first example is: each tool's schema a plain zod
// object (no .strict()), server.tool with a handler, served by @tmcp/transport-stdio. Each tool answers
// its arguments back.
import { McpServer } from "tmcp";
import { ZodJsonSchemaAdapter } from "@tmcp/adapter-zod";
import { StdioTransport } from "@tmcp/transport-stdio";
import { z } from "zod";

const server = new McpServer({ name: "frameworks-tmcp-zod-plain", version: "1.0.0", description: "the same four tools" }, { adapter: new ZodJsonSchemaAdapter(), capabilities: { tools: { listChanged: true } } });
const echo = async (args) => ({ content: [{ type: "text", text: JSON.stringify(args) }] });

server.tool({
  name: "get_weather",
  description: "The weather for a city over the next days",
  schema: z.object({ city: z.string().min(1), days: z.number().int().min(1).max(7).optional(), unit: z.enum(["c", "f"]).optional() }),
}, echo);
server.tool({
  name: "lookup",
  description: "Look up a code, with an optional short note",
  schema: z.object({ code: z.string().regex(/[0-9]{3}/), note: z.string().min(2).max(5).optional() }),
}, echo);
server.tool({
  name: "book_trip",
  description: "Book seats for a traveler",
  schema: z.object({ traveler: z.object({ name: z.string().min(1), age: z.number().int().min(0).max(120) }), seats: z.number().int().min(1).max(4).optional(), cabin: z.literal([1, 2]).optional() }),
}, echo);
server.tool({
  name: "tag_items",
  description: "Tag items with one to three tags",
  schema: z.object({ tags: z.array(z.string().min(1)).min(1).max(3) }),
}, echo);

new StdioTransport(server).listen();

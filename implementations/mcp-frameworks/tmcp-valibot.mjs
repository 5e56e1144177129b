// tmcp with its valibot adapter: each tool's schema a valibot strict object, server.tool with a handler,
// served by @tmcp/transport-stdio, as tmcp's docs teach. Each tool answers its arguments back.
import { McpServer } from "tmcp";
import { ValibotJsonSchemaAdapter } from "@tmcp/adapter-valibot";
import { StdioTransport } from "@tmcp/transport-stdio";
import * as v from "valibot";

const server = new McpServer({ name: "frameworks-tmcp-valibot", version: "1.0.0", description: "the same four tools" }, { adapter: new ValibotJsonSchemaAdapter(), capabilities: { tools: { listChanged: true } } });
const echo = async (args) => ({ content: [{ type: "text", text: JSON.stringify(args) }] });
const int = (min, max) => v.pipe(v.number(), v.integer(), v.minValue(min), v.maxValue(max));

server.tool({
  name: "get_weather",
  description: "The weather for a city over the next days",
  schema: v.strictObject({ city: v.pipe(v.string(), v.minLength(1)), days: v.optional(int(1, 7)), unit: v.optional(v.picklist(["c", "f"])) }),
}, echo);
server.tool({
  name: "lookup",
  description: "Look up a code, with an optional short note",
  schema: v.strictObject({ code: v.pipe(v.string(), v.regex(/[0-9]{3}/)), note: v.optional(v.pipe(v.string(), v.minLength(2), v.maxLength(5))) }),
}, echo);
server.tool({
  name: "book_trip",
  description: "Book seats for a traveler",
  schema: v.strictObject({ traveler: v.strictObject({ name: v.pipe(v.string(), v.minLength(1)), age: int(0, 120) }), seats: v.optional(int(1, 4)), cabin: v.optional(v.picklist([1, 2])) }),
}, echo);
server.tool({
  name: "tag_items",
  description: "Tag items with one to three tags",
  schema: v.strictObject({ tags: v.pipe(v.array(v.pipe(v.string(), v.minLength(1))), v.minLength(1), v.maxLength(3)) }),
}, echo);

new StdioTransport(server).listen();

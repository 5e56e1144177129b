// The MCP TypeScript SDK (v1), its low-level Server: the tools listed with hand-written JSON Schemas and
// called through a tools/call handler, as the SDK's docs teach it. Those docs validate nothing in the
// handler: the arguments reach the tool as the client sent them. Each tool answers its arguments back.
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const tools = [
  {
    name: "get_weather",
    description: "The weather for a city over the next days",
    inputSchema: { type: "object", properties: { city: { type: "string", minLength: 1 }, days: { type: "integer", minimum: 1, maximum: 7 }, unit: { enum: ["c", "f"] } }, required: ["city"], additionalProperties: false },
  },
  {
    name: "lookup",
    description: "Look up a code, with an optional short note",
    inputSchema: { type: "object", properties: { code: { type: "string", pattern: "[0-9]{3}" }, note: { type: "string", minLength: 2, maxLength: 5 } }, required: ["code"], additionalProperties: false },
  },
  {
    name: "book_trip",
    description: "Book seats for a traveler",
    inputSchema: {
      type: "object",
      properties: {
        traveler: { type: "object", properties: { name: { type: "string", minLength: 1 }, age: { type: "integer", minimum: 0, maximum: 120 } }, required: ["name", "age"], additionalProperties: false },
        seats: { type: "integer", minimum: 1, maximum: 4 },
        cabin: { enum: [1, 2] },
      },
      required: ["traveler"],
      additionalProperties: false,
    },
  },
  {
    name: "tag_items",
    description: "Tag items with one to three tags",
    inputSchema: { type: "object", properties: { tags: { type: "array", items: { type: "string", minLength: 1 }, minItems: 1, maxItems: 3 } }, required: ["tags"], additionalProperties: false },
  },
];

const server = new Server({ name: "frameworks-sdk-server", version: "1.0.0" }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
server.setRequestHandler(CallToolRequestSchema, async (request) => {
  const { name, arguments: args } = request.params;
  if (!tools.some((tool) => tool.name === name)) throw new Error(`Unknown tool: ${name}`);
  return { content: [{ type: "text", text: JSON.stringify(args ?? {}) }] };
});

await server.connect(new StdioServerTransport());

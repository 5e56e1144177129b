// FastMCP written as its README's first example is: each tool's parameters a plain zod object (no
// .strict()), addTool with an execute function, started on stdio. Each tool answers its arguments back.
import { FastMCP } from "fastmcp";
import { z } from "zod";

const server = new FastMCP({ name: "frameworks-fastmcp-plain", version: "1.0.0" });
const echo = async (args) => JSON.stringify(args);

server.addTool({
  name: "get_weather",
  description: "The weather for a city over the next days",
  parameters: z.object({ city: z.string().min(1), days: z.number().int().min(1).max(7).optional(), unit: z.enum(["c", "f"]).optional() }),
  execute: echo,
});
server.addTool({
  name: "lookup",
  description: "Look up a code, with an optional short note",
  parameters: z.object({ code: z.string().regex(/[0-9]{3}/), note: z.string().min(2).max(5).optional() }),
  execute: echo,
});
server.addTool({
  name: "book_trip",
  description: "Book seats for a traveler",
  parameters: z.object({ traveler: z.object({ name: z.string().min(1), age: z.number().int().min(0).max(120) }), seats: z.number().int().min(1).max(4).optional(), cabin: z.literal([1, 2]).optional() }),
  execute: echo,
});
server.addTool({
  name: "tag_items",
  description: "Tag items with one to three tags",
  parameters: z.object({ tags: z.array(z.string().min(1)).min(1).max(3) }),
  execute: echo,
});

server.start({ transportType: "stdio" });

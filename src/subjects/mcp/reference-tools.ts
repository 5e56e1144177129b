import type { ReferenceApi } from "../handler.js";

// The tools mcp-serve offers: a fixed set whose schemas exercise the subset (the seed's worked
// example, bounds, lengths, enum and const, arrays and their elements, unions, anyOf), each
// answering its arguments back. Registered out of name order, so a registry that does not sort
// its definitions (s12) shows it. A model for MCP authors, and what the mutants are served with.

export const REFERENCE_TOOLS: readonly { name: string; description: string; schema: object }[] = [
  {
    name: "get_weather",
    description: "The weather for a city over the next days (the seed's worked example).",
    schema: {
      type: "object",
      properties: { city: { type: "string", minLength: 1 }, days: { type: "integer", minimum: 1, maximum: 7 }, unit: { enum: ["c", "f"] } },
      required: ["city"],
      additionalProperties: false,
    },
  },
  {
    name: "tag_items",
    description: "Adds tags to a list.",
    schema: {
      type: "object",
      properties: { tags: { type: "array", items: { type: "string", maxLength: 20 }, minItems: 1, maxItems: 5 }, mode: { const: "append" }, count: { type: "integer", minimum: 0 } },
      required: ["tags", "mode"],
      additionalProperties: false,
    },
  },
  {
    name: "lookup",
    description: "Looks an item up by its id.",
    schema: {
      type: "object",
      properties: { id: { type: "string", minLength: 3, maxLength: 8, pattern: "^[a-z0-9]+$" }, verbose: { type: "boolean" } },
      required: ["id"],
      additionalProperties: false,
    },
  },
  {
    name: "set_level",
    description: "Sets a level between 0 and 1, with an optional label.",
    schema: {
      type: "object",
      properties: { level: { type: "number", minimum: 0, maximum: 1 }, label: { type: ["string", "null"], maxLength: 12 }, target: { anyOf: [{ type: "string" }, { type: "integer" }] } },
      required: ["level"],
      additionalProperties: false,
    },
  },
];

/** A registry of `api` (the reference's or a mutant's) holding the fixed tools, each echoing its arguments. */
export function referenceRegistry(api: ReferenceApi): InstanceType<ReferenceApi["Registry"]> {
  const registry = new api.Registry();
  for (const tool of REFERENCE_TOOLS) {
    const error = registry.register(api.newTool(tool.name, tool.description, JSON.stringify(tool.schema), (args) => `ran ${tool.name} with ${args}`));
    if (error) throw error;
  }
  return registry;
}

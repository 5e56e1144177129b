import { MCPTool } from "mcp-framework";
import { z } from "zod";

// An array of one to three non-empty strings; answers its arguments back.
class TagItemsTool extends MCPTool {
  name = "tag_items";
  description = "Tag items with one to three tags";
  schema = z.object({
    tags: z.array(z.string().min(1)).min(1).max(3).describe("The tags"),
  }).strict();

  async execute(input) {
    return input;
  }
}

export default TagItemsTool;

import { MCPTool } from "mcp-framework";
import { z } from "zod";

// A pattern and a string 2..5 long; answers its arguments back.
class LookupTool extends MCPTool {
  name = "lookup";
  description = "Look up a code, with an optional short note";
  schema = z.object({
    code: z.string().regex(/[0-9]{3}/).describe("A code holding three digits"),
    note: z.string().min(2).max(5).optional().describe("A short note"),
  }).strict();

  async execute(input) {
    return input;
  }
}

export default LookupTool;

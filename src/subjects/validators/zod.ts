import { arraySegments, type ValidatorLibrary } from "./library.js";

/**
 * zod 4's `fromJSONSchema(schema)` and `safeParse`, as code that takes a tool's JSON Schema into
 * zod does (the MCP SDK requires zod). The conversion throws on what it cannot express: that is a
 * refusal. Issue paths are arrays of keys and indexes: lossless.
 */
export async function loadZod(): Promise<ValidatorLibrary> {
  const { fromJSONSchema } = await import("zod");
  return {
    name: "zod",
    level: "paths",
    note: "fromJSONSchema(schema).safeParse(instance); issue paths converted",
    compile(schema) {
      const type = fromJSONSchema(schema as Parameters<typeof fromJSONSchema>[0]);
      return (instance) => {
        const result = type.safeParse(instance);
        return result.success ? [] : result.error.issues.map((issue) => ({ segments: arraySegments(issue.path as (string | number)[]), message: `${issue.code}: ${issue.message}` }));
      };
    },
  };
}

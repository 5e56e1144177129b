import { insideAnyOfBranch, pointerSegments, type ValidatorLibrary } from "./library.js";

/** Summary errors: "Property x does not match schema." at the parent, besides the real one below. */
const SUMMARIES = new Set(["properties", "items", "additionalProperties", "prefixItems", "allOf", "$ref"]);

/**
 * @cfworker/json-schema, draft 2020-12, no short circuit. It has no compile step (a schema is
 * read when validating), so every schema is accepted. instanceLocation is a URI-fragment
 * pointer (`#/a%20b`): converted losslessly. Summary errors are dropped; the "false" error of
 * `additionalProperties: false` is reported at the object, as the seed does.
 */
export async function loadCfworker(): Promise<ValidatorLibrary> {
  const { Validator } = await import("@cfworker/json-schema");
  return {
    name: "@cfworker/json-schema",
    level: "paths",
    note: 'new Validator(schema, "2020-12", false); instanceLocation converted; summary errors and anyOf-branch errors dropped',
    compile(schema) {
      const validator = new Validator(schema as object, "2020-12", false);
      return (instance) => errorsOf(validator.validate(instance), instance);
    },
  };
}

/**
 * @cfworker/json-schema as LangChain's tools call it on a JSON Schema tool's input:
 * `validate(input, schema)` with the library's defaults, draft 2019-09 and short circuit (it
 * stops at the first error). LangChain's message then names keyword locations only; the paths
 * compared here are cfworker's own instance locations.
 */
export async function loadCfworkerAsLangChain(): Promise<ValidatorLibrary> {
  const { validate } = await import("@cfworker/json-schema");
  return {
    name: "@cfworker/json-schema (LangChain)",
    level: "paths",
    note: "as @langchain/core's tools: validate(input, schema), the defaults (draft 2019-09, short circuit); instanceLocation converted; summary errors and anyOf-branch errors dropped",
    compile(schema) {
      return (instance) => errorsOf(validate(instance, schema as object), instance);
    },
  };
}

type Result = { valid: boolean; errors: { keyword: string; keywordLocation: string; instanceLocation: string; error: string }[] };

function errorsOf(result: Result, instance: unknown) {
  if (result.valid) return [];
  return result.errors
    .filter((e) => !SUMMARIES.has(e.keyword) && !insideAnyOfBranch(e.keywordLocation))
    .map((e) => {
      const segments = pointerSegments(e.instanceLocation, instance, true);
      if (e.keyword === "false") segments.pop();
      return { segments, message: `${e.keyword}: ${e.error}` };
    });
}

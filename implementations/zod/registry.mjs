// The seed's contract (ag.02: Compile, ValidateJSON, a tool Registry) on top of zod 4 alone.
//
//   node .build/typescript/adapter.mjs ./zod/registry.mjs        (from implementations/)
//
// Served by the TypeScript adapter template, unchanged (conformance/adapters/typescript/adapter.mts).
//
// What is zod's: compile is `z.fromJSONSchema(schema)` (it throws on what it cannot express: that
// throw is the refusal), validation is `.safeParse(value)` and its issues (path arrays, codes,
// messages). What is glue (zod has no tool registry): JSON text parsing, rendering issue paths as
// the seed's `$` paths, the four worked-example messages worded the seed's way from the issue data,
// sorting, and the registry written from the seed (js-glue/seed-registry.mjs).
import { checkSubset, compareErrors, installedVersion, STRICT, validateParsed } from "../js-glue/glue.mjs";
import { registryOver } from "../js-glue/seed-registry.mjs";
import { z } from "zod";

export const NAME = "zod";
export const LANGUAGE = "javascript";
// The installed zod's version, read at run time (js-glue/glue.mjs).
export const VERSION = installedVersion("zod");

// STRICT_SUBSET=1 (js-glue/glue.mjs): zod's fromJSONSchema accepts keywords outside the subset
// (format, oneOf, $ref, not, ...) and enforces some of them; a careful user refuses them first.

/** zod's path array rendered as the seed's path: lossless, keys `.name`, indexes `[i]`. */
const renderPath = (segments) => "$" + segments.map((s) => (typeof s === "number" ? `[${s}]` : `.${String(s)}`)).join("");

/** The received value's JSON type (null, boolean, number, string, array, object), as zod's own message names it. */
const jsonType = (v) => (v === null ? "null" : Array.isArray(v) ? "array" : typeof v);
/** zod's `expected` names for the seed's type names ("int" is zod's integer). */
const ZOD_TYPE = { int: "integer", number: "number", string: "string", boolean: "boolean", array: "array", object: "object", null: "null" };

/**
 * One zod issue as the seed's errors. Only the four messages the seed's worked example spells out are
 * worded the seed's way, each from the issue's own data (code, expected, keys, values, input: zod reports
 * the input with `reportInput: true`); every other message is zod's `message`, unchanged.
 */
function errorsOf(issue) {
  const path = issue.path;
  // required: zod reports a missing property as invalid_type at the property, its input undefined
  // (no JSON value is undefined). The seed reports it at the object: the path's last key is the name.
  if (issue.code === "invalid_type" && issue.input === undefined && typeof path.at(-1) === "string") {
    return [{ path: renderPath(path.slice(0, -1)), message: `missing required property ${JSON.stringify(path.at(-1))}` }];
  }
  // type: zod's `expected` and the received value's JSON type; a zod type the seed has no name for keeps zod's message.
  if (issue.code === "invalid_type" && issue.input !== undefined && issue.expected in ZOD_TYPE) {
    return [{ path: renderPath(path), message: `expected ${ZOD_TYPE[issue.expected]}, got ${jsonType(issue.input)}` }];
  }
  // additionalProperties: false: one unrecognized_keys issue lists every extra key; the seed has one error per key.
  if (issue.code === "unrecognized_keys") {
    return issue.keys.map((key) => ({ path: renderPath(path), message: `unexpected property ${JSON.stringify(key)}` }));
  }
  // enum: invalid_value carries the allowed values and (reportInput) the value.
  if (issue.code === "invalid_value" && Array.isArray(issue.values) && issue.input !== undefined) {
    return [{ path: renderPath(path), message: `${JSON.stringify(issue.input)} is not one of ${JSON.stringify(issue.values)}` }];
  }
  return [{ path: renderPath(path), message: issue.message }];
}

/** Compile(raw): parse the text, then zod's fromJSONSchema. Any throw is the refusal. */
export function compile(schemaText) {
  const schema = JSON.parse(schemaText); // not JSON: refused with JSON.parse's SyntaxError message
  if (STRICT) checkSubset(schema);
  const type = z.fromJSONSchema(schema);
  return {
    schema,
    /** ValidateJSON(raw): parse (text that does not parse is one error at $, as the seed says), then safeParse. */
    validateJSON(text) {
      return validateParsed(text, (value) => {
        const result = type.safeParse(value, { reportInput: true });
        if (result.success) return [];
        // Sorted by path then message: the seed's rule (zod's issue order is its own walk).
        return result.error.issues.flatMap(errorsOf).sort(compareErrors);
      });
    },
  };
}

export { newTool, ToolError } from "../js-glue/seed-registry.mjs";

/** The registry of the seed's sections 2.3 and 4 (zod has none), every argument checked by compile above. */
export const Registry = registryOver(compile);


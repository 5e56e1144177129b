// The seed's contract (ag.02: Compile, ValidateJSON, a tool Registry) on top of tv4 alone, a
// draft-04 JSON Schema validator, used the way its users use it:
//
//   const result = tv4.validateMultiple(data, schema);   // {valid, errors: [{code, message, params, dataPath, schemaPath}], missing}
//
//   node .build/typescript/adapter.mjs ./tv4/registry.mjs        (from implementations/)
//
// Served by the TypeScript adapter template, unchanged (conformance/adapters/typescript/adapter.mts).
//
// What is tv4's: every verdict, and each error's code, params, message and dataPath (a JSON Pointer
// into the data). It is draft-04 and is taken as it is: `const` is not a draft-04 keyword (ignored),
// exclusiveMinimum is a boolean modifier of minimum, unknown keywords are ignored. What is glue
// (tv4 has no tool registry and no compile step): JSON text parsing, rendering dataPath as the
// seed's `$` path, the four worked-example messages worded the seed's way from the error data,
// sorting, and the registry written from the seed (js-glue/seed-registry.mjs).
import { checkSubset, compareErrors, installedVersion, STRICT, validateParsed } from "../js-glue/glue.mjs";
import { registryOver } from "../js-glue/seed-registry.mjs";
import tv4 from "tv4";

export const NAME = "tv4";
export const LANGUAGE = "javascript";
// The installed tv4's version, read at run time (js-glue/glue.mjs).
export const VERSION = installedVersion("tv4");

// STRICT_SUBSET=1 (js-glue/glue.mjs): tv4 ignores keywords it does not know and enforces draft-04's
// others (format is ignored unless a format is added); a careful user refuses them first.

/** The JSON type of a parsed value, for "got ...". */
const jsonType = (v) => (v === null ? "null" : Array.isArray(v) ? "array" : typeof v);

/** tv4's dataPath (a JSON Pointer: "/days", "/tags/1", "" for the root) as the seed's path. A
 *  pointer token does not say whether it is an index or a key, so the glue walks the data: a token
 *  into an array is `[i]`, into an object `.name` (unescaped: ~1 is "/", ~0 is "~"). */
function renderPath(pointer, data) {
  if (pointer === "") return { path: "$", value: data };
  let path = "$";
  let value = data;
  for (const raw of pointer.slice(1).split("/")) {
    const token = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    path += Array.isArray(value) ? `[${token}]` : `.${token}`;
    value = value !== null && typeof value === "object" ? value[token] : undefined;
  }
  return { path, value };
}

/** The schema a JSON Pointer names inside the root schema, or undefined. */
function schemaAt(root, pointer) {
  let node = root;
  for (const raw of pointer === "" ? [] : pointer.slice(1).split("/")) {
    if (node === null || typeof node !== "object") return undefined;
    node = node[raw.replace(/~1/g, "/").replace(/~0/g, "~")];
  }
  return node;
}

const { INVALID_TYPE, ENUM_MISMATCH, OBJECT_REQUIRED, OBJECT_ADDITIONAL_PROPERTIES } = tv4.errorCodes;

/**
 * One tv4 error as the seed's error. Only the four messages the seed's worked example spells out are
 * worded the seed's way, each from the error's own data (code, params, dataPath, schemaPath); every
 * other message is tv4's `message`, unchanged.
 */
function errorOf(error, data, schema) {
  const { path, value } = renderPath(error.dataPath, data);
  // type: params {type: the data's type, expected: the allowed types joined by "/"}
  if (error.code === INVALID_TYPE) {
    return { path, message: `expected ${String(error.params.expected).split("/").join(" or ")}, got ${jsonType(value)}` };
  }
  // required: reported at the object, params.key the name
  if (error.code === OBJECT_REQUIRED) {
    return { path, message: `missing required property ${JSON.stringify(error.params.key)}` };
  }
  // additionalProperties: false: tv4 reports it at the property itself (dataPath "/country"); the
  // seed at the object. params.key is the name; the path is the parent's.
  if (error.code === OBJECT_ADDITIONAL_PROPERTIES) {
    const parent = error.dataPath.slice(0, error.dataPath.lastIndexOf("/"));
    return { path: renderPath(parent, data).path, message: `unexpected property ${JSON.stringify(error.params.key)}` };
  }
  // enum: params.value is the data's JSON text; the allowed values are the enum of the schema that
  // failed. tv4 gives this error the schemaPath of its sibling "type" (".../type"), so the schema is
  // the one at the schemaPath's parent; when that has no enum, tv4's message stays.
  if (error.code === ENUM_MISMATCH) {
    const at = schemaAt(schema, error.schemaPath.slice(0, error.schemaPath.lastIndexOf("/")));
    if (at && Array.isArray(at.enum)) return { path, message: `${error.params.value} is not one of ${JSON.stringify(at.enum)}` };
  }
  return { path, message: error.message };
}

/** Compile(raw): parse the text. tv4 has no compile step and no check of a schema: it reads the
 *  schema while it validates, so everything that parses compiles. */
export function compile(schemaText) {
  const schema = JSON.parse(schemaText); // not JSON: refused with JSON.parse's SyntaxError message
  if (STRICT) checkSubset(schema);
  // A fresh tv4 (tv4.freshApi(), its documented way to get an independent validator) for each
  // schema: the global one caches every schema it has seen by its id, across unrelated tools.
  const validator = tv4.freshApi();
  return {
    schema,
    /** ValidateJSON(raw): parse (text that does not parse is one error at $, as the seed says), then
     *  tv4.validateMultiple, which collects every error where validate stops at the first. */
    validateJSON(text) {
      return validateParsed(text, (value) => {
        const result = validator.validateMultiple(value, schema);
        if (result.valid) return [];
        // Sorted by path then message: the seed's rule (tv4's order is its own walk).
        return result.errors.map((e) => errorOf(e, value, schema)).sort(compareErrors);
      });
    },
  };
}

export { newTool, ToolError } from "../js-glue/seed-registry.mjs";

/** The registry of the seed's sections 2.3 and 4 (tv4 has none), every argument checked by compile above. */
export const Registry = registryOver(compile);

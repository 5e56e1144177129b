import { insideAnyOfBranch, pointerSegments, type ValidatorLibrary } from "./library.js";

const DIALECT = "https://json-schema.org/draft/2020-12/schema";
/** Summary keywords: an error there repeats one reported below it. */
const SUMMARIES = new Set(["properties", "items", "additionalProperties", "prefixItems", "allOf", "ref"]);
let next = 0;

/**
 * @hyperjump/json-schema, draft 2020-12 (the default dialect when a schema names none), BASIC
 * output. Compiling validates the schema against the meta-schema. The http, https and file URI
 * schemes are switched off: a `$ref` never leaves the process. instanceLocation is a
 * URI-fragment pointer: converted losslessly.
 */
export async function loadHyperjump(): Promise<ValidatorLibrary> {
  const { registerSchema, unregisterSchema, validate } = await import("@hyperjump/json-schema/draft-2020-12");
  const { BASIC } = await import("@hyperjump/json-schema/experimental");
  try {
    const browser = await import("@hyperjump/browser");
    for (const scheme of ["http", "https", "file"]) browser.removeUriSchemePlugin(scheme);
  } catch {
    // an older layout without the plugin registry: nothing to switch off
  }
  return {
    name: "@hyperjump/json-schema",
    level: "paths",
    note: "registerSchema + validate(uri) with the 2020-12 dialect, BASIC output; instanceLocation converted; summary and anyOf-branch errors dropped",
    async compile(schema) {
      const uri = `https://tool-conformance.invalid/schema/${++next}`;
      registerSchema(schema as never, uri, DIALECT);
      try {
        const check = await validate(uri);
        return (instance) => {
          const output = check(instance as never, BASIC);
          if (output.valid) return [];
          return (output.errors ?? [])
            .map((e) => ({ ...e, name: e.keyword.slice(e.keyword.lastIndexOf("/") + 1) }))
            .filter((e) => !SUMMARIES.has(e.name) && !insideAnyOfBranch(e.absoluteKeywordLocation))
            .map((e) => {
              const segments = pointerSegments(e.instanceLocation, instance, true);
              // additionalProperties: false fails at the property; the seed reports it at the object
              if (e.absoluteKeywordLocation.endsWith("/additionalProperties") && segments.length > 0) segments.pop();
              return { segments, message: e.name };
            });
        };
      } finally {
        unregisterSchema(uri);
      }
    },
  };
}

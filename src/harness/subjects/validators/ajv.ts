import { insideAnyOfBranch, pointerSegments, type ValidatorLibrary } from "./library.js";

/**
 * ajv, draft 2020-12 class, all errors. Its default strict mode refuses unknown keywords
 * (and formats it was not given); `logger: false` keeps its strict-types warnings off stderr.
 * instancePath is an RFC 6901 pointer: converted losslessly. Errors inside an anyOf branch
 * are dropped (the seed reports only the anyOf error).
 */
export async function loadAjv(): Promise<ValidatorLibrary> {
  const module = await import("ajv/dist/2020.js");
  const Ajv2020 = module.default.default ?? module.default;
  const ajv = new Ajv2020({ allErrors: true, logger: false });
  return {
    name: "ajv",
    level: "paths",
    note: "Ajv2020 {allErrors: true}, default strict mode; instancePath (JSON Pointer) converted; errors inside anyOf branches dropped",
    compile(schema) {
      // one instance (building one costs tens of ms); cleared after each compile so a
      // schema's $id never meets the previous row's
      let validate: ReturnType<typeof ajv.compile>;
      try {
        validate = ajv.compile(schema as object);
      } finally {
        ajv.removeSchema();
      }
      return (instance) => {
        if (validate(instance)) return [];
        return (validate.errors ?? [])
          .filter((e) => !insideAnyOfBranch(e.schemaPath))
          .map((e) => ({ segments: pointerSegments(e.instancePath, instance), message: `${e.keyword}: ${e.message ?? ""}` }));
      };
    },
  };
}

import { arraySegments, type ValidatorLibrary } from "./library.js";

/**
 * z-schema 6 (the newest release for Node 20; 7 and later need Node 22). A draft-04
 * validator: `const` and a 2020-12 `$schema` are outside what it knows. `noExtraKeywords`
 * makes it refuse unknown keywords. Paths come as arrays (indexes as numbers): lossless.
 * anyOf branch errors are nested under the anyOf error and not reported.
 */
export async function loadZSchema(): Promise<ValidatorLibrary> {
  const { default: ZSchema } = await import("z-schema");
  return {
    name: "z-schema",
    level: "paths",
    note: "new ZSchema({noExtraKeywords: true, breakOnFirstError: false, reportPathAsArray: true}); draft-04 only",
    compile(schema) {
      const validator = new ZSchema({ noExtraKeywords: true, breakOnFirstError: false, reportPathAsArray: true });
      if (!validator.validateSchema(schema)) {
        throw new Error((validator.getLastErrors() ?? []).map((e) => e.message).join("; ") || "schema refused");
      }
      return (instance) => {
        if (validator.validate(instance, schema)) return [];
        return (validator.getLastErrors() ?? []).map((e) => ({
          segments: arraySegments(Array.isArray(e.path) ? e.path : []),
          message: `${e.code}: ${e.message}`,
        }));
      };
    },
  };
}

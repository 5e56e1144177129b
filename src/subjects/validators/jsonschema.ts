import { arraySegments, type ValidatorLibrary } from "./library.js";

/**
 * jsonschema (npm), `allowUnknownAttributes: false` so it refuses keywords it does not know.
 * It has no compile step: the adapter validates `null` once to let it read the schema.
 * Paths come as arrays (indexes as numbers): lossless. `nestedErrors: false` keeps anyOf
 * to one error.
 */
export async function loadJsonschema(): Promise<ValidatorLibrary> {
  const { Validator } = await import("jsonschema");
  const options = { allowUnknownAttributes: false, nestedErrors: false };
  return {
    name: "jsonschema",
    level: "paths",
    note: "new Validator().validate(instance, schema, {allowUnknownAttributes: false, nestedErrors: false}); a trial run on null reads the schema",
    compile(schema) {
      const validator = new Validator();
      validator.validate(null, schema as never, options);
      return (instance) => {
        const result = validator.validate(instance, schema as never, options);
        return result.errors.map((e) => ({ segments: arraySegments(e.path), message: `${e.name}: ${e.message}` }));
      };
    },
  };
}

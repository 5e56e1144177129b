import { insideAnyOfBranch, pointerSegments, type ValidatorLibrary } from "./library.js";

/**
 * @exodus/schemasafe, default mode (it refuses keywords it does not know), all errors.
 * Its instanceLocation is a pointer whose names are not escaped (`#/a/b` for the property
 * "a/b" and for a.b alike), so it is scored at the verdict level only; the paths it shows
 * are a best-effort reading.
 */
export async function loadSchemasafe(): Promise<ValidatorLibrary> {
  const { validator } = await import("@exodus/schemasafe");
  return {
    name: "@exodus/schemasafe",
    level: "verdict",
    note: "validator(schema, {includeErrors: true, allErrors: true}); instance locations are unescaped pointers: verdict only",
    compile(schema) {
      const validate = validator(schema as never, { includeErrors: true, allErrors: true });
      return (instance) => {
        if (validate(instance as never)) return [];
        return (validate.errors ?? [])
          .filter((e) => !insideAnyOfBranch(e.keywordLocation))
          .map((e) => {
            const segments = pointerSegments(e.instanceLocation, instance, true);
            // required and additionalProperties: false point at the property; the seed reports at the object
            if (/\/(required|additionalProperties)$/.test(e.keywordLocation) && segments.length > 0) segments.pop();
            return { segments, message: e.keywordLocation };
          });
      };
    },
  };
}

import { insideAnyOfBranch, pointerSegments, type ValidatorLibrary } from "./library.js";

/** What both configurations share: one instance, errors mapped to paths. */
interface AjvLike {
  compile(schema: object): ((instance: unknown) => boolean) & { errors?: { instancePath: string; schemaPath: string; keyword: string; message?: string }[] | null };
  removeSchema(): unknown;
}

/**
 * ajv, draft 2020-12 class, all errors. Its default strict mode refuses unknown keywords
 * (and formats it was not given); `logger: false` keeps its strict-types warnings off stderr.
 * instancePath is an RFC 6901 pointer: converted losslessly. Errors inside an anyOf branch
 * are dropped (the seed reports only the anyOf error).
 */
export async function loadAjv(): Promise<ValidatorLibrary> {
  const module = await import("ajv/dist/2020.js");
  const Ajv2020 = module.default.default ?? module.default;
  return ajvLibrary("ajv", new Ajv2020({ allErrors: true, logger: false }) as unknown as AjvLike, "Ajv2020 {allErrors: true}, default strict mode; instancePath (JSON Pointer) converted; errors inside anyOf branches dropped");
}

/**
 * ajv as the MCP TypeScript SDK configures it for a server's tool inputs (its default
 * AjvJsonSchemaValidator): the default draft-07 class, `strict: false` (unknown keywords pass),
 * `validateSchema: false`, `allErrors: true`. The SDK also adds ajv-formats; no validate row
 * here checks a format, so the verdicts are the SDK's.
 */
export async function loadAjvAsMcp(): Promise<ValidatorLibrary> {
  const module = await import("ajv");
  const Ajv = module.default.default ?? module.default;
  const ajv = new Ajv({ strict: false, validateFormats: true, validateSchema: false, allErrors: true, logger: false }) as unknown as AjvLike;
  return ajvLibrary("ajv (MCP SDK)", ajv, "as the MCP SDK's AjvJsonSchemaValidator: new Ajv({strict: false, validateFormats: true, validateSchema: false, allErrors: true}) (draft-07); instancePath converted; errors inside anyOf branches dropped");
}

function ajvLibrary(name: string, ajv: AjvLike, note: string): ValidatorLibrary {
  return {
    name,
    level: "paths",
    note,
    compile(schema) {
      // one instance (building one costs tens of ms); cleared after each compile so a
      // schema's $id never meets the previous row's
      let validate: ReturnType<AjvLike["compile"]>;
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

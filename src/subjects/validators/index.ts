import { loadAjv, loadAjvAsMcp } from "./ajv.js";
import { loadCfworker, loadCfworkerAsLangChain } from "./cfworker.js";
import { loadHyperjump } from "./hyperjump.js";
import { labelOf, packageOf, packageVersion, validatorSubject, type ValidatorLibrary } from "./library.js";
import { loadJsonschema } from "./jsonschema.js";
import { loadSchemasafe } from "./schemasafe.js";
import { loadZSchema } from "./z-schema.js";
import { loadZod } from "./zod.js";
import type { Subject } from "../subject.js";
import { workerScript, workerValidatorSubject } from "./worker-subject.js";

export { createValidatorHandler, packageOf, validatorSubject, pointerSegments, type ValidatorLibrary } from "./library.js";

/**
 * The built-in alternative validators, by npm name, each configured our strict way; and, named
 * `PACKAGE (WHO)`, as a framework users build on runs it. Optional peers: load lazily.
 */
export const VALIDATORS: readonly { name: string; load: () => Promise<ValidatorLibrary> }[] = [
  { name: "ajv", load: loadAjv },
  { name: "ajv (MCP SDK)", load: loadAjvAsMcp },
  { name: "@cfworker/json-schema", load: loadCfworker },
  { name: "@cfworker/json-schema (LangChain)", load: loadCfworkerAsLangChain },
  { name: "@hyperjump/json-schema", load: loadHyperjump },
  { name: "z-schema", load: loadZSchema },
  { name: "@exodus/schemasafe", load: loadSchemasafe },
  { name: "jsonschema", load: loadJsonschema },
  { name: "zod", load: loadZod },
];

export interface LoadedValidator {
  name: string;
  library?: ValidatorLibrary;
  subject?: Subject;
  /** Why it could not be loaded (not installed: dev dependencies are optional). */
  missing?: string;
}

/**
 * Loads every built-in validator that is installed; the others say why not. Each subject runs
 * its library in a worker thread (a hung pattern is cut off) when the compiled worker script
 * exists; `inProcess` (or no build) runs it in this thread.
 */
export async function loadValidators(options: { inProcess?: boolean } = {}): Promise<LoadedValidator[]> {
  const script = options.inProcess ? undefined : workerScript();
  return Promise.all(
    VALIDATORS.map(async ({ name, load }) => {
      try {
        const library = await load();
        const version = packageVersion(packageOf(name));
        const subject = script ? workerValidatorSubject(name, labelOf(name, version), script) : validatorSubject(library, version);
        return { name, library, subject };
      } catch (error) {
        return { name, missing: error instanceof Error ? error.message.split("\n")[0]! : String(error) };
      }
    }),
  );
}

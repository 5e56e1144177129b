import { existsSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Command } from "commander";
import * as reference from "../../index.js";
import { createHandler, type ReferenceApi } from "../../subjects/handler.js";
import { serve } from "../../subjects/serve.js";
import { loadCatalog, MutantError } from "../../mutants/catalog.js";
import { BUILT_DIR, readManifest } from "../../mutants/load.js";
import { UsageError } from "../errors.js";

const VERSION = "0.1.0";

/** `adapter [--mutant sNN]`: the reference (or a mutant) served over stdio, for `score --subject`. */
export function register(program: Command): void {
  program
    .command("adapter")
    .description("serve the reference (or a pitfall mutant) over the stdio protocol of conformance/PROTOCOL.md: one JSON request a line on stdin, one reply a line on stdout")
    .option("--mutant <id>", "serve this pitfall mutant instead of the reference (s01-s17; needs npm run build)")
    .action(async (options: { mutant?: string }) => {
      const api = options.mutant === undefined ? reference : await mutantApi(options.mutant);
      const name = options.mutant === undefined ? "reference" : `mutant:${options.mutant}`;
      await serve(createHandler(api, { name, version: VERSION }), process.stdin, process.stdout);
      // after stop (or the end of stdin) nothing is left to do: flush and leave, even if a
      // cancelled tool left a timer behind
      await new Promise<void>((resolve) => process.stdout.write("", () => resolve()));
      process.exit(0);
    });
}

/** A built mutant's API, checked against its source; a usage error when it is not built or is stale. */
export async function mutantApi(id: string): Promise<ReferenceApi> {
  if (!/^s\d{2,}$/.test(id)) throw new UsageError(`--mutant: ${JSON.stringify(id)} is not a mutant id (s01, s02, ...)`);
  try {
    const mutant = loadCatalog().find((m) => m.id === id);
    if (!mutant) throw new UsageError(`--mutant: there is no mutant ${id}`);
    const built = readManifest().mutants[id];
    const file = join(BUILT_DIR, id, "index.js");
    if (!built || !existsSync(file)) throw new UsageError(`mutant ${id} is not built: run npm run build`);
    if (built.hash !== mutant.hash) throw new UsageError(`mutant ${id} (${mutant.source}) changed since it was built: run npm run build`);
    return (await import(pathToFileURL(file).href)) as ReferenceApi;
  } catch (error) {
    if (error instanceof MutantError) throw new UsageError(error.message);
    throw error;
  }
}

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { PACKAGE_ROOT } from "../corpus/load.js";
import type { ReferenceApi } from "../subjects/handler.js";
import { inProcessSubject } from "../subjects/in-process.js";
import type { Subject } from "../subjects/subject.js";
import { MutantError, type Mutant } from "./catalog.js";

/** Where `npm run build` puts the transpiled mutants: BUILT_DIR/sNN/index.js. */
export const BUILT_DIR = join(PACKAGE_ROOT, "dist", "mutants", "built");
export const MANIFEST = "manifest.json";

/** What was built: each mutant's file and the hash of its bytes at build time. */
export interface Manifest {
  mutants: Record<string, { source: string; hash: string }>;
}

/** Reads the manifest of a build; a MutantError saying how to build when there is none. */
export function readManifest(dir: string = BUILT_DIR): Manifest {
  try {
    return JSON.parse(readFileSync(join(dir, MANIFEST), "utf8")) as Manifest;
  } catch {
    throw new MutantError(`no built mutants in ${dir}: run npm run build`);
  }
}

/**
 * Imports a built mutant and returns it as an in-process subject labelled `mutant:sNN`.
 * Refuses a mutant that was not built, or whose file changed since the build.
 */
export async function loadMutant(mutant: Mutant, dir: string = BUILT_DIR, manifest: Manifest = readManifest(dir)): Promise<Subject> {
  const built = manifest.mutants[mutant.id];
  if (!built) throw new MutantError(`mutant ${mutant.id} (${mutant.source}) is not built: run npm run build`);
  if (built.hash !== mutant.hash) throw new MutantError(`mutant ${mutant.id} (${mutant.source}) changed since it was built: run npm run build`);
  const api = (await import(pathToFileURL(join(dir, mutant.id, "index.js")).href)) as ReferenceApi;
  return inProcessSubject(`mutant:${mutant.id}`, api);
}

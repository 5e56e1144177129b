import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Fingerprint } from "../judge/diagnosis.js";
import { writeFileAtomic } from "../report/directory.js";
import { rowsForProfile, type ProfileName, type Row } from "../corpus/rows.js";
import { loadCatalog, MutantError, mutantsFor, type Mutant } from "./catalog.js";
import { BUILT_DIR, readManifest } from "./load.js";
import { fingerprints as matrixFingerprints } from "./matrix.js";

// The mutants' fingerprints, handed to the harness's diagnosis as data. They are taken under a
// run's own profile, at the strictest scoring whatever the run scores (matrix.ts runs every mutant
// in-process), so the diagnosis of a behaviour does not depend on the tiers or level of a run.
// Rows are independent, so fingerprints over the whole corpus, restricted to the rows a run
// selected, are the fingerprints of those rows: they are taken once and cached next to the built
// mutants, keyed by everything they depend on (the corpus, the mutants' build, this tool's code).
// A grader scoring hundreds of submissions pays for them once.

export interface FingerprintResult {
  fingerprints: Fingerprint[];
  /** Why there are none, when there are none (no built mutants, …). */
  unavailable?: string;
}

export interface FingerprintOptions {
  profile: ProfileName;
  /** The whole corpus (fingerprints are taken over the rows of it that apply to the profile). */
  corpus: readonly Row[];
  /** Where the cache lives; default next to the built mutants. null: no cache. */
  cacheDir?: string | null;
  /**
   * Rows made for this run alone (--fresh's generated cases): fingerprinted every time, never cached
   * (a seed's rows are seen once), and added to the corpus's, so the diagnosis judges them like any row.
   */
  generated?: readonly Row[];
  /** Aborted: the fingerprints are given up (the reason thrown), none cached. */
  signal?: AbortSignal;
}

const CACHE_VERSION = 4;

export async function mutantFingerprints(options: FingerprintOptions): Promise<FingerprintResult> {
  const rows = rowsForProfile(options.corpus, options.profile);
  let catalog: Mutant[];
  let file: string | undefined;
  try {
    catalog = mutantsFor(loadCatalog(), options.profile);
    const dir = options.cacheDir === undefined ? BUILT_DIR : options.cacheDir;
    file = dir === null ? undefined : join(dir, `fingerprints-${cacheKey(rows, catalog, options)}.json`);
  } catch (error) {
    if (error instanceof MutantError) return { fingerprints: [], unavailable: error.message };
    throw error;
  }
  try {
    let fingerprints = file ? readCache(file) : undefined;
    if (!fingerprints) {
      fingerprints = await matrixFingerprints(rows, { profile: options.profile, catalog, ...(options.signal ? { signal: options.signal } : {}) });
      if (file) writeCache(file, fingerprints);
    }
    const generated = rowsForProfile(options.generated ?? [], options.profile);
    if (generated.length === 0) return { fingerprints };
    const more = new Map((await matrixFingerprints(generated, { profile: options.profile, catalog, ...(options.signal ? { signal: options.signal } : {}) })).map((print) => [print.id, print]));
    return {
      fingerprints: fingerprints.map((print) => {
        const fresh = more.get(print.id);
        const wider = { ...print.wider, ...fresh?.wider };
        return { ...print, answers: { ...print.answers, ...fresh?.answers }, ...(Object.keys(wider).length > 0 ? { wider } : {}) };
      }),
    };
  } catch (error) {
    if (error instanceof MutantError) return { fingerprints: [], unavailable: error.message };
    throw error;
  }
}

/** Stores fingerprints computed elsewhere (the demo takes them anyway) for later runs. */
export function cacheFingerprints(fingerprints: Fingerprint[], options: FingerprintOptions): void {
  if (options.cacheDir === null) return;
  try {
    const rows = rowsForProfile(options.corpus, options.profile);
    writeCache(join(options.cacheDir ?? BUILT_DIR, `fingerprints-${cacheKey(rows, mutantsFor(loadCatalog(), options.profile), options)}.json`), fingerprints);
  } catch {
    // a cache is optional
  }
}

function cacheKey(rows: readonly Row[], catalog: readonly Mutant[], options: FingerprintOptions): string {
  const manifest = readManifest();
  const hash = createHash("sha256");
  hash.update(JSON.stringify({ v: CACHE_VERSION, profile: options.profile }));
  hash.update(JSON.stringify(rows));
  hash.update(JSON.stringify(catalog.map((m) => [m.id, m.hash, manifest.mutants[m.id]?.hash ?? null])));
  // the harness that ran them is part of what a fingerprint means
  for (const file of ["../run/run-row.js", "../subjects/handler.js", "../judge/symptom.js", "./matrix.js"]) {
    try {
      hash.update(readFileSync(new URL(file, import.meta.url)));
    } catch {
      hash.update(file);
    }
  }
  return hash.digest("hex").slice(0, 24);
}

function readCache(file: string): Fingerprint[] | undefined {
  try {
    const value = JSON.parse(readFileSync(file, "utf8")) as { version?: number; fingerprints?: Fingerprint[] };
    if (value.version !== CACHE_VERSION || !Array.isArray(value.fingerprints)) return undefined;
    const ok = value.fingerprints.every((f) => typeof f.id === "string" && typeof f.title === "string" && typeof f.symptom === "string" && typeof f.answers === "object" && f.answers !== null);
    return ok ? value.fingerprints : undefined;
  } catch {
    return undefined;
  }
}

function writeCache(file: string, fingerprints: Fingerprint[]): void {
  try {
    writeFileAtomic(file, JSON.stringify({ version: CACHE_VERSION, fingerprints }) + "\n");
  } catch {
    // a read-only install: no cache, the next run computes them again
  }
}

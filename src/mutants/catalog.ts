import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { PACKAGE_ROOT } from "../corpus/load.js";
import { profileNamed, SECTIONS, type ProfileName, type Section } from "../corpus/rows.js";

// The pitfall mutants: mutants/sNN-slug.json, each a few find-and-replace edits
// against the reference's sources. This module reads and checks them; build.ts
// applies them and transpiles the copies. Nothing here needs TypeScript at runtime.

export const MUTANTS_DIR = join(PACKAGE_ROOT, "mutants");

/** The reference's own sources: the only files a mutant may edit (paths from the package root). */
export const REFERENCE_ROOTS = ["src/index.ts", "src/json/", "src/schema/", "src/registry/"] as const;

export interface Edit {
  /** A reference source file, e.g. "src/json/value.ts". */
  file: string;
  /** Text that must occur exactly once in the file (after the mutant's earlier edits). */
  find: string;
  replace: string;
}

export interface Mutant {
  /** s01, s02, … */
  id: string;
  /**
   * The row of seed 000's pitfall table (section 5), the spec section of a rule the table does not
   * list ("§2.2"), or where the lesson (seed 001) names the mistake ("lesson: register and override").
   */
  pitfall: number | string;
  /** The profiles whose corpus must kill it (default ["ag02"]): the lesson's own mistakes are lesson mutants. */
  profiles: ProfileName[];
  title: string;
  /** What is true of every implementation that makes this mistake (the diagnosis says it when it names the mutant). */
  symptom: string;
  /** The sections that must kill it. */
  sections: Section[];
  why: string;
  edits: Edit[];
  /**
   * The same mistake made wherever else the reference could make it (enum's text comparison in
   * `const` too): edits applied after the mutant's own. Never a mutant of its own, never in the kill
   * matrix: its fingerprint tells the diagnosis which further rows a subject named with this
   * pitfall fails for the same reason, so the pitfall takes them.
   */
  wider?: { why: string; edits: Edit[] };
  /** The mutant's file, from the package root (filled in by the loader). */
  source: string;
  /** sha256 of the file's bytes (filled in by the loader): a build is stale when it differs. */
  hash: string;
}

/** A mutant file that is malformed, or whose edits no longer apply: one line naming the mutant and the file. */
export class MutantError extends Error {
  override name = "MutantError";
}

const FILE_NAME = /^(s\d{2})-[a-z0-9]+(?:-[a-z0-9]+)*\.json$/;

/** Reads and checks every mutants/sNN-slug.json (sorted by id). */
export function loadCatalog(dir: string = MUTANTS_DIR): Mutant[] {
  let names: string[];
  try {
    names = readdirSync(dir).filter((name) => name.endsWith(".json")).sort();
  } catch {
    throw new MutantError(`cannot read the mutants folder ${dir}`);
  }
  const mutants: Mutant[] = [];
  const seen = new Map<string, string>();
  for (const name of names) {
    const source = `mutants/${name}`;
    const bytes = readFileSync(join(dir, name));
    const mutant = checkMutant(parse(bytes.toString("utf8"), source), source);
    const match = FILE_NAME.exec(name);
    if (!match || match[1] !== mutant.id) throw new MutantError(`${source}: the file must be named ${mutant.id}-short-slug.json`);
    const before = seen.get(mutant.id);
    if (before) throw new MutantError(`${source}: mutant id ${mutant.id} is also used in ${before}`);
    seen.set(mutant.id, source);
    mutants.push({ ...mutant, source, hash: createHash("sha256").update(bytes).digest("hex") });
  }
  return mutants.sort((a, b) => a.id.localeCompare(b.id));
}

function parse(text: string, source: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new MutantError(`${source}: not JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** Checks the shape of one mutant file's content. */
export function checkMutant(value: unknown, source: string): Omit<Mutant, "source" | "hash"> {
  const fail = (what: string): never => {
    throw new MutantError(`${source}: ${what}`);
  };
  if (typeof value !== "object" || value === null || Array.isArray(value)) return fail("a mutant file must be a JSON object");
  const m = value as Record<string, unknown>;
  const text = (field: string): string => {
    const v = m[field];
    return typeof v === "string" && v.trim() !== "" ? v : fail(`"${field}" must be a non-empty string`);
  };
  const id = text("id");
  if (!/^s\d{2}$/.test(id)) fail(`"id" must look like s01`);
  const pitfall = m.pitfall;
  const row = typeof pitfall === "number" && Number.isInteger(pitfall) && pitfall >= 1;
  if (!row && !(typeof pitfall === "string" && /^(§\d+(\.\d+)*|lesson: \S.*)$/.test(pitfall))) {
    fail(`"pitfall" must be a row of the seed's pitfall table (a positive integer), a spec section ("§2.2") or where the lesson names it ("lesson: register and override")`);
  }
  const named = m.profiles === undefined ? ["ag02"] : m.profiles;
  if (!Array.isArray(named) || named.length === 0) return fail(`"profiles" must be a non-empty array of profile names`);
  const profiles = named.map((name) => (typeof name === "string" ? profileNamed(name) : undefined) ?? fail(`unknown profile ${JSON.stringify(name)} (ag02 or lesson)`));
  const sections = m.sections;
  if (!Array.isArray(sections) || sections.length === 0) return fail(`"sections" must be a non-empty array of section names`);
  for (const section of sections) {
    if (!SECTIONS.includes(section as Section)) fail(`unknown section ${JSON.stringify(section)} (one of ${SECTIONS.join(", ")})`);
  }
  const editsOf = (edits: unknown, where: string): Edit[] => {
    if (!Array.isArray(edits) || edits.length === 0) return fail(`"${where}" must be a non-empty array`);
    return edits.map((edit: unknown, i): Edit => {
      const e = (typeof edit === "object" && edit !== null ? edit : {}) as Record<string, unknown>;
      const { file, find, replace } = e;
      const which = `${where === "edits" ? "" : "wider "}edit ${i + 1}`;
      if (typeof file !== "string" || typeof find !== "string" || typeof replace !== "string" || find === "") {
        return fail(`${which} must be {"file", "find" (non-empty), "replace"}, all strings`);
      }
      if (!isReferenceFile(file)) fail(`${which}: ${file} is not a reference source (${REFERENCE_ROOTS.join(", ")}, *.ts)`);
      if (find === replace) fail(`${which}: "replace" is the same as "find"`);
      return { file, find, replace };
    });
  };
  const edits = editsOf(m.edits, "edits");
  let wider: Mutant["wider"];
  if (m.wider !== undefined) {
    const w = (typeof m.wider === "object" && m.wider !== null && !Array.isArray(m.wider) ? m.wider : fail(`"wider" must be {"why", "edits"}`)) as Record<string, unknown>;
    if (typeof w.why !== "string" || w.why.trim() === "") fail(`"wider.why" must be a non-empty string`);
    wider = { why: w.why as string, edits: editsOf(w.edits, "wider.edits") };
  }
  return { id, pitfall: pitfall as number | string, profiles, title: text("title"), symptom: text("symptom"), sections: sections as Section[], why: text("why"), edits, ...(wider ? { wider } : {}) };
}

/** The suffix of a wider form's id and folder: s09+ is s09 made wherever the reference could make it. */
export const WIDER = "+";

/** A mutant's wider form as a mutant of its own (id sNN+, its edits then the wider ones); none without one. */
export function widerOf(mutant: Mutant): Mutant | undefined {
  if (!mutant.wider) return undefined;
  const { wider, ...rest } = mutant;
  return { ...rest, id: mutant.id + WIDER, why: wider.why, edits: [...mutant.edits, ...wider.edits] };
}

/** The mutants a profile's corpus must kill. */
export function mutantsFor(catalog: readonly Mutant[], profile: ProfileName): Mutant[] {
  return catalog.filter((mutant) => mutant.profiles.includes(profile));
}

export function isReferenceFile(file: string): boolean {
  return file.endsWith(".ts") && !file.includes("..") && REFERENCE_ROOTS.some((root) => (root.endsWith("/") ? file.startsWith(root) : file === root));
}

/**
 * Applies a mutant's edits, in order, to the reference files `read` returns.
 * Returns the changed files' new text. Throws MutantError when a find text is
 * missing or not unique: mutants cannot rot silently.
 */
export function applyEdits(mutant: Pick<Mutant, "id" | "edits"> & { source?: string }, read: (file: string) => string): Map<string, string> {
  const changed = new Map<string, string>();
  const where = mutant.source ? `${mutant.id} (${mutant.source})` : mutant.id;
  for (const [i, edit] of mutant.edits.entries()) {
    let text: string;
    try {
      text = changed.get(edit.file) ?? read(edit.file);
    } catch {
      throw new MutantError(`mutant ${where}: edit ${i + 1}: cannot read ${edit.file}`);
    }
    const count = occurrences(text, edit.find);
    if (count !== 1) {
      const problem = count === 0 ? "find text not found" : `find text occurs ${count} times, must be exactly once`;
      throw new MutantError(`mutant ${where}: edit ${i + 1}: ${edit.file}: ${problem}: ${JSON.stringify(firstLine(edit.find))}`);
    }
    const at = text.indexOf(edit.find);
    changed.set(edit.file, text.slice(0, at) + edit.replace + text.slice(at + edit.find.length));
  }
  return changed;
}

function occurrences(text: string, find: string): number {
  let count = 0;
  for (let at = text.indexOf(find); at !== -1; at = text.indexOf(find, at + 1)) count++;
  return count;
}

function firstLine(text: string): string {
  const line = text.split("\n")[0]!;
  return line.length > 60 || text.includes("\n") ? `${line.slice(0, 60)}…` : line;
}

/** Reads a reference source file from the package's src/. */
export function readSource(file: string): string {
  return readFileSync(join(PACKAGE_ROOT, file), "utf8");
}

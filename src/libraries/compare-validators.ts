import { rowsForProfile, SECTIONS, TIERS, type Row, type Section, type Tier } from "../corpus/rows.js";
import { statusOf, type RowResult } from "../run/outcome.js";
import { runRows } from "../run/runner.js";
import { inProcessSubject } from "../subjects/in-process.js";
import type { Subject } from "../subjects/subject.js";
import { loadValidators } from "../subjects/validators/index.js";

// Runs the reference and the alternative validators over the validator rows (kinds
// validate and compile) and says, per section and tier, how many rows each agrees on.

export interface LibraryRun {
  name: string;
  /** name@version, or the name alone when the library is not installed. */
  label: string;
  /** How far its answers are compared: "paths" when its instance locations convert losslessly. */
  level: "verdict" | "paths";
  note: string;
  /** Why it did not run (a dev dependency not installed). */
  missing?: string;
  /** One per row, in row order (empty when missing). */
  results: RowOutcome[];
  ms: number;
}

export interface RowOutcome {
  id: string;
  verdict: "agreed" | "disagreed" | "errored";
  /** At the paths level; undefined when the library is scored by verdict only. */
  paths?: "agreed" | "disagreed" | "errored";
  /** What was expected and what came back, for the first failed check (or the error). */
  detail?: string;
}

export interface Comparison {
  rows: Row[];
  libraries: LibraryRun[];
}

const ALL_TIERS: Tier[] = [...TIERS];
/** A validator that takes longer than this on one row is cut off (a backtracking pattern): the row is errored. */
export const REQUEST_TIMEOUT_MS = 1000;

/** The rows a validator answers: validate and compile, of the ag02 profile (seed 000's subset, RE2 patterns). */
export function validatorRows(rows: readonly Row[]): Row[] {
  return rowsForProfile(rows, "ag02").filter((row) => row.kind === "validate" || row.kind === "compile");
}

/** Runs the reference and every installed validator over `rows` (validate and compile rows only). */
export async function compareValidators(allRows: readonly Row[], timeoutMs = REQUEST_TIMEOUT_MS): Promise<Comparison> {
  const rows = validatorRows(allRows);
  const loaded = await loadValidators();
  const reference = await runOne("reference", "reference", "paths", "the oracle: src/", inProcessSubject("reference"), rows, timeoutMs);
  // each library runs in its own worker thread: all at once, so hung rows wait side by side
  const others = await Promise.all(
    loaded.map(async (validator): Promise<LibraryRun> => {
      if (!validator.library || !validator.subject) {
        return { name: validator.name, label: validator.name, level: "verdict", note: "", missing: validator.missing, results: [], ms: 0 };
      }
      const { library, subject } = validator;
      return runOne(library.name, subject.label, library.level, library.note, subject, rows, timeoutMs);
    }),
  );
  return { rows, libraries: [reference, ...others] };
}

async function runOne(name: string, label: string, level: "verdict" | "paths", note: string, subject: Subject, rows: Row[], timeoutMs: number): Promise<LibraryRun> {
  const run = await runRows(subject, rows, { profile: "ag02", level: "paths", tiers: ALL_TIERS, jobs: 1, progress: false, requestTimeoutMs: timeoutMs });
  return { name, label, level, note, results: run.results.map((result) => outcomeOf(result, level)), ms: run.ms };
}

function outcomeOf(result: RowResult, level: "verdict" | "paths"): RowOutcome {
  if (result.status === "errored" || result.status === "skipped") {
    return { id: result.id, verdict: "errored", ...(level === "paths" ? { paths: "errored" } : {}), detail: result.error ?? result.status };
  }
  const verdict = statusOf(result.checks, { level: "verdict", tiers: ALL_TIERS }) === "passed";
  const paths = statusOf(result.checks, { level: "paths", tiers: ALL_TIERS }) === "passed";
  const failed = result.checks.find((check) => check.level !== "messages" && !check.pass && (check.level === "verdict" || level === "paths"));
  return {
    id: result.id,
    verdict: verdict ? "agreed" : "disagreed",
    ...(level === "paths" ? { paths: paths ? "agreed" : "disagreed" } : {}),
    ...(failed ? { detail: `${failed.what}: expected ${show(failed.expected)}, got ${show(failed.actual)}` } : {}),
  };
}

function show(value: unknown): string {
  const text = typeof value === "string" ? value : JSON.stringify(value);
  return text.length > 160 ? `${text.slice(0, 157)}...` : text;
}

/** One line of the table: the rows of a section and tier, and how many each library agrees on. */
export interface TableLine {
  section: Section | "all";
  tier: Tier | "all";
  rows: number;
  /** Per library (same order as Comparison.libraries): rows agreed, or undefined when not scored. */
  verdict: (number | undefined)[];
  paths: (number | undefined)[];
}

export function tableOf(comparison: Comparison): TableLine[] {
  const keys: { section: Section; tier: Tier }[] = [];
  for (const row of comparison.rows) {
    if (!keys.some((k) => k.section === row.section && k.tier === row.tier)) keys.push({ section: row.section, tier: row.tier });
  }
  keys.sort((a, b) => SECTIONS.indexOf(a.section) - SECTIONS.indexOf(b.section) || TIERS.indexOf(a.tier) - TIERS.indexOf(b.tier));
  const line = (section: Section | "all", tier: Tier | "all", take: (row: Row) => boolean): TableLine => {
    const indexes = comparison.rows.flatMap((row, i) => (take(row) ? [i] : []));
    const count = (library: LibraryRun, level: "verdict" | "paths") => {
      if (library.missing || (level === "paths" && library.level !== "paths")) return undefined;
      return indexes.filter((i) => library.results[i]![level] === "agreed").length;
    };
    return {
      section,
      tier,
      rows: indexes.length,
      verdict: comparison.libraries.map((library) => count(library, "verdict")),
      paths: comparison.libraries.map((library) => count(library, "paths")),
    };
  };
  return [
    ...keys.map(({ section, tier }) => line(section, tier, (row) => row.section === section && row.tier === tier)),
    line("all", "all", () => true),
  ];
}

/** A rule on which some library disagrees: per library, how many rows and one example. */
export interface RuleDisagreement {
  rule: string;
  rows: number;
  libraries: { name: string; level: "verdict" | "paths"; count: number; errored: number; example: { id: string; detail: string } }[];
}

/**
 * The disagreements grouped by rule, in corpus order. A library is listed once per level:
 * at the verdict level, and at the paths level for rows whose verdict it got right.
 */
export function disagreementsOf(comparison: Comparison): RuleDisagreement[] {
  const rules: RuleDisagreement[] = [];
  for (const [i, row] of comparison.rows.entries()) {
    let rule = rules.find((r) => r.rule === row.rule);
    if (!rule) rules.push((rule = { rule: row.rule, rows: 0, libraries: [] }));
    rule.rows++;
    for (const library of comparison.libraries) {
      const outcome = library.results[i];
      if (!outcome) continue;
      const level = outcome.verdict !== "agreed" ? "verdict" : outcome.paths === "disagreed" ? "paths" : undefined;
      if (!level) continue;
      let entry = rule.libraries.find((l) => l.name === library.name && l.level === level);
      if (!entry) {
        entry = { name: library.name, level, count: 0, errored: 0, example: { id: row.id, detail: outcome.detail ?? "" } };
        rule.libraries.push(entry);
      }
      entry.count++;
      if (outcome.verdict === "errored") entry.errored++;
    }
  }
  return rules.filter((rule) => rule.libraries.length > 0);
}

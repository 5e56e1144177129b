import type { Fingerprint } from "../judge/diagnosis.js";
import { isActive, statusOf, type ScoreOptions } from "../run/outcome.js";
import { runRow } from "../run/run-row.js";
import { LEVELS, rowsForProfile, SECTIONS, TIERS, type ProfileName, type Row, type Section } from "../corpus/rows.js";
import { inProcessSubject } from "../subjects/in-process.js";
import { evidenceOf, type Failure } from "../judge/symptom.js";
import type { Subject } from "../subjects/subject.js";
import { loadCatalog, MutantError, mutantsFor, WIDER, widerOf, type Mutant } from "./catalog.js";
import { BUILT_DIR, loadMutant, readManifest } from "./load.js";

// The kill matrix: the corpus against the reference and every pitfall mutant,
// in-process (the same protocol handler a stdio adapter uses, without the pipes).

export interface MatrixOptions extends ScoreOptions {
  /** The profile rows are run in; default `ag02` (the seed's contract). */
  profile?: ProfileName;
  /** Mutant ids to run (default: all of the catalog). */
  only?: readonly string[];
  /** The mutants' catalog (default: mutants/*.json). */
  catalog?: readonly Mutant[];
  /** Where the built mutants are (default: dist/mutants/built). */
  dir?: string;
  /** A row not done after this long is errored (default 10 s). */
  rowTimeoutMs?: number;
  /** Aborted: the matrix stops and throws the reason (a run's diagnosis given up for the user's signal). */
  signal?: AbortSignal;
}

/** The strictest scoring: every check, every tier. The matrix's default. */
export const STRICTEST: ScoreOptions = { level: "messages", tiers: [...TIERS] };

/** A row that did not pass. */
export interface RowFailure {
  id: string;
  section: Section;
  status: "failed" | "errored";
  /** The first failing check, or why the row errored. */
  what: string;
  /** How it failed, whatever the tiers and level scored (the diagnosis compares these); none when errored. */
  evidence?: Failure[];
}

export interface SubjectRun {
  label: string;
  failing: RowFailure[];
  ms: number;
}

export interface MutantVerdict {
  id: string;
  pitfall: number | string;
  title: string;
  symptom: string;
  /** The sections the seed says must kill it. */
  sections: Section[];
  source: string;
  /** Its fingerprint: the ids of the rows it fails (that the reference passes), sorted. */
  failing: string[];
  /** Failing rows per section. */
  bySection: Record<Section, number>;
  /** Every seed-named section fails at least one row. */
  killed: boolean;
  /** Seed-named sections that did not kill it. */
  missed: Section[];
  /** Sections outside the seed-named ones that also fail rows. */
  alsoFails: Section[];
  failures: RowFailure[];
  /** Rows whose `pitfalls` name this mutant but which it passes: a claim of the corpus to revisit (informational). */
  claimedButPassed: string[];
  ms: number;
}

export interface KillMatrix {
  profile: ProfileName;
  level: ScoreOptions["level"];
  tiers: ScoreOptions["tiers"];
  /** Rows run per section (those that apply to the profile). */
  rows: Record<Section, number>;
  reference: SubjectRun;
  mutants: MutantVerdict[];
  /** The reference passes every row and every mutant is killed by its seed-named sections. */
  ok: boolean;
  ms: number;
}


/** Runs `rows` against one subject and returns the rows that did not pass under `options`. */
export async function runSubject(subject: Subject, rows: readonly Row[], options: MatrixOptions): Promise<SubjectRun> {
  const started = performance.now();
  const profile = options.profile ?? "ag02";
  const failing: RowFailure[] = [];
  let yielded = performance.now();
  for (const row of rowsForProfile(rows, profile)) {
    // in-process rows resolve as microtasks only: every 50 ms the event loop gets a turn, so a signal's handler runs
    if (options.signal !== undefined && performance.now() - yielded > 50) {
      await new Promise((resolve) => setImmediate(resolve));
      yielded = performance.now();
    }
    options.signal?.throwIfAborted();
    const failure = await runOne(subject, row, profile, options);
    if (failure) failing.push(failure);
  }
  return { label: subject.label, failing, ms: performance.now() - started };
}

async function runOne(subject: Subject, row: Row, profile: ProfileName, options: MatrixOptions): Promise<RowFailure | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const limit = options.rowTimeoutMs ?? 10_000;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer after ${limit} ms`)), limit);
  });
  try {
    const session = await subject.open(profile);
    try {
      const checks = await Promise.race([runRow(row, session.send, profile), timeout]);
      if (statusOf(checks, options) === "passed") return undefined;
      const first = checks.find((check) => isActive(check, options) && !check.pass)!;
      return {
        id: row.id,
        section: row.section,
        status: "failed",
        what: `${first.what}: expected ${brief(first.expected)}, got ${brief(first.actual)}`,
        evidence: evidenceOf(checks)!,
      };
    } finally {
      await session.close();
    }
  } catch (error) {
    return { id: row.id, section: row.section, status: "errored", what: error instanceof Error ? error.message : String(error) };
  } finally {
    clearTimeout(timer);
  }
}

function brief(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 160 ? `${text.slice(0, 160)}…` : text;
}

/** The catalog's mutants selected by `only` (all when absent); an unknown id is a MutantError. */
export function selectMutants(catalog: readonly Mutant[], only?: readonly string[]): Mutant[] {
  if (!only || only.length === 0) return [...catalog];
  for (const id of only) {
    if (!catalog.some((m) => m.id === id)) throw new MutantError(`unknown mutant ${id} (known: ${catalog.map((m) => m.id).join(", ")})`);
  }
  return catalog.filter((m) => only.includes(m.id));
}

/**
 * Runs the corpus against the reference and the selected mutants (all at once,
 * in-process) and computes the kill matrix. A mutant is killed by a section when
 * at least one of that section's rows fails under `options` (the strictest by default).
 */
export async function killMatrix(rows: readonly Row[], options: Partial<MatrixOptions> = {}): Promise<KillMatrix> {
  const started = performance.now();
  const opts: MatrixOptions = { ...STRICTEST, ...options };
  const profile = opts.profile ?? "ag02";
  if (!LEVELS.includes(opts.level)) throw new MutantError(`unknown level ${String(opts.level)}`);
  const mutants = selectMutants(opts.catalog ?? mutantsFor(loadCatalog(), profile), opts.only);
  const dir = opts.dir ?? BUILT_DIR;
  const manifest = mutants.length > 0 ? readManifest(dir) : { mutants: {} };
  const subjects = await Promise.all(mutants.map((mutant) => loadMutant(mutant, dir, manifest)));
  const [reference, ...runs] = await Promise.all([
    runSubject(inProcessSubject("reference"), rows, opts),
    ...subjects.map((subject) => runSubject(subject, rows, opts)),
  ]);
  const applicable = rowsForProfile(rows, profile);
  const counts = Object.fromEntries(SECTIONS.map((s) => [s, applicable.filter((r) => r.section === s).length])) as Record<Section, number>;
  const referenceFails = new Set(reference!.failing.map((f) => f.id));
  const verdicts = mutants.map((mutant, i) => verdictOf(mutant, runs[i]!, referenceFails, applicable));
  return {
    profile,
    level: opts.level,
    tiers: opts.tiers,
    rows: counts,
    reference: reference!,
    mutants: verdicts,
    ok: reference!.failing.length === 0 && verdicts.every((v) => v.killed),
    ms: performance.now() - started,
  };
}

function verdictOf(mutant: Mutant, run: SubjectRun, referenceFails: ReadonlySet<string>, rows: readonly Row[]): MutantVerdict {
  const failures = run.failing.filter((f) => !referenceFails.has(f.id));
  const failed = new Set(failures.map((f) => f.id));
  const bySection = Object.fromEntries(SECTIONS.map((s) => [s, failures.filter((f) => f.section === s).length])) as Record<Section, number>;
  const missed = mutant.sections.filter((s) => bySection[s] === 0);
  return {
    id: mutant.id,
    pitfall: mutant.pitfall,
    title: mutant.title,
    symptom: mutant.symptom,
    sections: mutant.sections,
    source: mutant.source,
    failing: failures.map((f) => f.id).sort(),
    bySection,
    killed: missed.length === 0,
    missed,
    alsoFails: SECTIONS.filter((s) => bySection[s] > 0 && !mutant.sections.includes(s)),
    failures,
    claimedButPassed: rows.filter((r) => r.pitfalls.includes(mutant.id) && !failed.has(r.id) && !referenceFails.has(r.id)).map((r) => r.id),
    ms: run.ms,
  };
}

/**
 * Each mutant's fingerprint: for every row it fails (and the reference passes), how it fails it,
 * at the strictest scoring (every check of every tier), so a diagnosis does not depend on what a
 * run scores. A mutant's errored rows are left out: no answer is no evidence.
 */
export async function fingerprints(rows: readonly Row[], options: Pick<MatrixOptions, "profile" | "catalog" | "dir" | "only" | "signal"> = {}): Promise<Fingerprint[]> {
  const catalog = selectMutants(options.catalog ?? mutantsFor(loadCatalog(), options.profile ?? "ag02"), options.only);
  // each mutant's wider form runs beside it: its further rows are the wider fingerprint
  const wider = catalog.flatMap((mutant) => widerOf(mutant) ?? []);
  const matrix = await killMatrix(rows, { ...options, ...STRICTEST, catalog: [...catalog, ...wider], only: undefined });
  const answers = new Map(matrix.mutants.map((verdict) => [verdict.id, answersOf(verdict)]));
  return matrix.mutants.slice(0, catalog.length).map((verdict) => withWider(fingerprintOf(verdict), answers.get(verdict.id + WIDER)));
}

/** A mutant's fingerprint from its verdict in a kill matrix taken at the strictest scoring. */
export function fingerprintOf(verdict: MutantVerdict): Fingerprint {
  return { id: verdict.id, pitfall: verdict.pitfall, title: verdict.title, symptom: verdict.symptom, answers: answersOf(verdict) };
}

function answersOf(verdict: MutantVerdict): Record<string, Failure[]> {
  const answers: Record<string, Failure[]> = {};
  for (const failure of verdict.failures) if (failure.evidence !== undefined) answers[failure.id] = failure.evidence;
  return answers;
}

/** A fingerprint with its wider form's answers on the rows beyond its own (none: as it is). */
export function withWider(print: Fingerprint, wider: Readonly<Record<string, Failure[]>> | undefined): Fingerprint {
  const beyond = Object.entries(wider ?? {}).filter(([id]) => !(id in print.answers));
  return beyond.length > 0 ? { ...print, wider: Object.fromEntries(beyond) } : print;
}

import { existsSync, statSync } from "node:fs";
import { tableFlag, tableSigns } from "../judge/table.js";
import { join, relative, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { loadCorpus } from "../corpus/load.js";
import { diagnose, type Diagnosis } from "../judge/diagnosis.js";
import { UsageError } from "../errors.js";
import type { ReferenceApi } from "../subjects/handler.js";
import type { RowResult, ScoreOptions } from "../run/outcome.js";
import { buildReport, buildStoppedReport } from "../report/build-report.js";
import { type Report } from "../report/report.js";
import { type Rerun } from "../report/reproduction.js";
import { oneLine } from "../report/reporters/text.js";
import { appliesTo, SECTIONS, type Level, type Part, type ProfileName, type Row, type Section, type Tier } from "../corpus/rows.js";
import { DEFAULT_REQUEST_TIMEOUT_MS, runRows, selectRows, type Run } from "../run/runner.js";
import type { Sandbox } from "../subjects/sandbox/index.js";
import { failingIds, score } from "../judge/scoring.js";
import { inProcessSubject } from "../subjects/in-process.js";
import { missingExports, missingText, moduleIdentity } from "../subjects/module-api.js";
import { stdioSubject } from "../subjects/stdio.js";
import { graderFaultOf, SubjectError, type Subject } from "../subjects/subject.js";
import type { Weighting } from "../judge/weighting.js";
import { loadCatalog, MutantError } from "../mutants/catalog.js";
import { mutantFingerprints } from "../mutants/fingerprints.js";
import { loadMutant } from "../mutants/load.js";
import { freshRows } from "../fuzz/fresh.js";
import type { McpEndpoint } from "../subjects/mcp/client.js";
import { scoreMcp } from "./score-mcp.js";
import { SubjectStoppedError } from "./stopped.js";

// The scoring API: one subject, scored against the corpus, as one report object. `score`, `grade`
// (through score), `fuzz`'s subjects, the implementations table and user code all go through here;
// reporters render what it returns.

/** What to score: a built-in subject, a command speaking the stdio protocol, a module with the reference's API, or a ready Subject. */
export type SubjectSpec =
  | "reference"
  | `mutant:${string}`
  | { command: string; cwd?: string; sandbox?: Sandbox }
  | { module: string }
  | { subject: Subject }
  /** An MCP server, reached with no adapter: its own tools are the rows (docs/mcp.md); `run` names the read-only tools that also get valid calls. */
  | { mcp: McpEndpoint; run?: readonly string[] };

export interface ScoreSubjectOptions {
  /** The contract: ag02 (seed 000, the default) or lesson (seed 001). */
  profile?: ProfileName;
  /** Tiers scored (default core: what the spec fixes). */
  tiers?: Tier[];
  /** How strictly answers are compared (default messages). */
  level?: Level;
  /** Only rows whose id or section matches one of these globs (`*` is any text). */
  filters?: string[];
  /** Rows beyond the shipped corpus, loaded and checked by the caller (a JSON-Schema-Test-Suite import, a grader's private rows). */
  extraRows?: Row[];
  /** Exactly these rows, already selected by rowsFor (several subjects scored on one selection): no other is loaded or chosen. */
  rows?: Row[];
  /** Also N cases generated from `seed`, answered by the reference, as the part "fresh". */
  fresh?: { count: number; seed: number };
  /** Sessions in parallel (default: the number of cores, at most 64). */
  jobs?: number;
  /** Per-request timeout, ms (default 5000 for a command, 10000 in-process). */
  timeoutMs?: number;
  /** The whole run's time limit, ms: past it, rows not answered are errored. */
  budgetMs?: number;
  /** A progress bar on stderr ("auto": only on a terminal). */
  progress?: boolean | "auto";
  /** Name the pitfalls the failures resemble (default true; it runs every mutant in-process once). */
  diagnosis?: boolean;
  /** The subject's name in the report (default: the command, module or built-in name). */
  label?: string;
  /** Each failing row's rerun command (undefined: none). */
  rerun?: Rerun;
  /** How the headline is scored (default: rows passed over rows). */
  weighting?: Weighting;
  /** Notes for the grader, kept in the report's summary. */
  flags?: readonly string[];
  /** Parts whose rows no output shows but by status, rule and why (keyed --fresh cases: see secretRow). */
  secretParts?: readonly Part[];
  /** Aborting it stops the run: the report then covers the rows answered, marked interrupted. */
  signal?: AbortSignal;
  /** Called with each row's result as it comes. */
  onResult?: (result: RowResult) => void;
}

export { SubjectStoppedError };

/** The corpus rows a run selects, and the generated ones, for these options; a usage error when none. */
export async function rowsFor(options: ScoreSubjectOptions = {}): Promise<{ rows: Row[]; corpus: Row[]; generated: Row[] }> {
  const profile = options.profile ?? "ag02";
  const tiers = options.tiers ?? ["core"];
  const level = options.level ?? "messages";
  const filters = options.filters ?? [];
  const corpus = [...loadCorpus(), ...(options.extraRows ?? [])];
  const generated = options.fresh ? await freshRows(options.fresh.count, options.fresh.seed, profile, tiers) : [];
  const { rows, unmatched } = selectRows([...corpus, ...generated], { profile, tiers, level, filters });
  if (unmatched.length > 0) throw new UsageError(`--filter ${unmatched.map((f) => JSON.stringify(f)).join(", ")} matches no row (ids look like validate/type/integer-3.0; * matches any text)`);
  if (rows.length === 0) throw new UsageError(`no row of the corpus is selected (profile ${profile}, tiers ${tiers.join(", ")})`);
  return { rows, corpus, generated };
}

/**
 * Scores one subject: selects the rows, runs them, judges them (scores and diagnosis) and returns
 * the report. A run stopped by `signal` returns the report of the rows answered, marked
 * interrupted; a subject that cannot start or keeps failing throws SubjectStoppedError, carrying
 * the report of what it answered (every other row errored with the cause).
 */
export async function scoreSubject(spec: SubjectSpec, options: ScoreSubjectOptions = {}): Promise<Report> {
  if (typeof spec === "object" && "mcp" in spec) return scoreMcp(spec.mcp, { ...options, ...(typeof options.rerun === "string" ? { rerun: options.rerun } : { rerun: undefined }), ...(spec.run ? { run: spec.run } : {}) });
  const profile = options.profile ?? "ag02";
  const scoring: ScoreOptions = { level: options.level ?? "messages", tiers: options.tiers ?? ["core"] };
  const { rows, corpus, generated } = options.rows ? { rows: options.rows, corpus: options.rows.filter((row) => row.part !== "fresh"), generated: options.rows.filter((row) => row.part === "fresh") } : await rowsFor(options);
  const filterList = options.filters ?? [];
  const sections = filterList.filter((f) => (SECTIONS as readonly string[]).includes(f)) as Section[];
  const filters = { ...(sections.length ? { sections } : {}), ...(filterList.length ? { ids: filterList } : {}) };
  const corpusRows = corpus.filter((row) => appliesTo(row, profile)).length + generated.length;
  const common = { profile, ...scoring, filters, corpusRows, rows, ...(options.rerun ? { rerun: options.rerun } : {}), ...(options.weighting ? { weighting: options.weighting } : {}), ...(options.flags ? { flags: options.flags } : {}), ...(options.secretParts ? { secretParts: options.secretParts } : {}) };
  const answered = new Map<string, RowResult>();
  // rows in flight when the signal came were stopped, not answered
  const answeredCount = () => [...answered.values()].filter((r) => !(r.status === "errored" && r.error?.startsWith("interrupted ("))).length;
  const startedAt = new Date();
  const labelOf = () => options.label ?? labelOfSpec(spec);
  let run: Run;
  try {
    const resolved = await resolveSubject(spec, profile, options.timeoutMs);
    run = await runRows(resolved.subject, rows, {
      profile,
      ...scoring,
      ...(options.jobs !== undefined ? { jobs: options.jobs } : {}),
      requestTimeoutMs: resolved.guardMs,
      progress: options.progress ?? false,
      onResult: (result) => {
        answered.set(result.id, result);
        options.onResult?.(result);
      },
      ...(options.signal ? { interrupt: options.signal } : {}),
      ...(options.budgetMs !== undefined ? { budgetMs: options.budgetMs } : {}),
    });
  } catch (error) {
    if (!(error instanceof SubjectError)) throw error;
    const ms = Date.now() - startedAt.getTime();
    if (options.signal?.aborted) {
      // the signal stopped the subject while it started: nothing was answered
      const signal = String(options.signal.reason);
      return buildStoppedReport({ ...common, label: labelOf(), answered, startedAt: startedAt.toISOString(), ms, stopped: { cause: `interrupted (${signal})`, interrupted: signal, answered: answeredCount() } });
    }
    // a whole report all the same: score 0 for what it never answered, the cause and the end of its stderr
    const cause = oneLine(error.message);
    const fault = graderFaultOf(error);
    const stopped = { cause, ...(error.stderr ? { stderr: tailOf(error.stderr) } : {}), ...(fault !== undefined ? { graderFault: fault } : {}) };
    throw new SubjectStoppedError(cause, buildStoppedReport({ ...common, label: labelOf(), answered, startedAt: startedAt.toISOString(), ms, stopped }));
  }
  if (options.label) run.label = options.label;
  const scores = score(run.results, scoring);
  const failing = failingIds(run.results, scoring);
  if (run.stopped?.interrupted !== undefined) {
    const base = diagnose(run.results, scoring, []);
    const diagnosis = { ...base, matches: [], unexplained: failing, lines: ["no diagnosis: the run was interrupted"] };
    return buildReport(run, { ...common, scores, diagnosis, diagnosed: false, stopped: { ...run.stopped, answered: answeredCount() } });
  }
  // the signal may come while the diagnosis runs (every mutant in-process, for long with --fresh): it is given up, the report is the interrupted one
  const interruptedReport = () => {
    const signal = String(options.signal!.reason);
    const base = diagnose(run.results, scoring, []);
    const diagnosis = { ...base, matches: [], unexplained: failing, lines: ["no diagnosis: the run was interrupted"] };
    return buildReport(run, { ...common, scores, diagnosis, diagnosed: false, stopped: { cause: `interrupted (${signal})`, interrupted: signal, answered: answeredCount() } });
  };
  let diagnosis: Diagnosis = diagnose(run.results, scoring, []);
  let diagnosed = true;
  let flags = options.flags ?? [];
  // a graded run (secret generated cases) is checked for a table of answers whatever --no-diagnosis says
  const graded = (options.secretParts?.length ?? 0) > 0 && generated.length > 0;
  let prints: Awaited<ReturnType<typeof mutantFingerprints>> | undefined;
  try {
    prints = diagnosis.failing > 0 && (options.diagnosis !== false || graded) ? await mutantFingerprints({ profile, corpus, generated, ...(options.signal ? { signal: options.signal } : {}) }) : undefined;
  } catch (error) {
    if (options.signal?.aborted) return interruptedReport();
    throw error;
  }
  if (options.signal?.aborted) return interruptedReport();
  if (prints !== undefined && prints.unavailable === undefined) {
    // generated cases failed where the corpus's rows of the same pitfall pass: a table of answers
    const table = tableFlag(tableSigns(run.results, scoring, prints.fingerprints));
    if (table !== undefined) flags = [...flags, table];
  }
  if (diagnosis.failing > 0 && options.diagnosis !== false) {
    if (prints!.unavailable === undefined) diagnosis = diagnose(run.results, scoring, prints!.fingerprints);
    else {
      diagnosed = false;
      diagnosis = { ...diagnosis, matches: [], unexplained: failing, lines: [`no diagnosis: ${prints!.unavailable}`] };
    }
  } else if (diagnosis.failing > 0) {
    diagnosed = false;
    diagnosis = { ...diagnosis, matches: [], unexplained: failing, lines: ["no diagnosis (--no-diagnosis)"] };
  }
  const report = buildReport(run, { ...common, scores, diagnosis, diagnosed, ...(flags.length ? { flags } : {}), ...(run.stopped ? { stopped: run.stopped } : {}) });
  return options.signal?.aborted ? interruptedReport() : report;
}

/** The name a subject gets in reports when no label is given. */
function labelOfSpec(spec: SubjectSpec): string {
  if (typeof spec === "string") return spec;
  if ("command" in spec) return spec.command;
  if ("module" in spec) return `module:${spec.module}`;
  if ("mcp" in spec) return "command" in spec.mcp ? `mcp:${spec.mcp.command}` : `mcp:${spec.mcp.url}`;
  return spec.subject.label;
}

/** The subject to run, and the request guard that suits it. */
export async function resolveSubject(spec: SubjectSpec, profile: ProfileName, timeoutMs: number | undefined): Promise<{ subject: Subject; guardMs: number }> {
  const inProcessGuard = timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  if (typeof spec === "object" && "command" in spec) {
    if (spec.command.trim() === "") throw new UsageError("--subject: the command is empty");
    const subject = stdioSubject(spec.command, { timeoutMs, ...(spec.sandbox ? { sandbox: spec.sandbox } : {}), ...(spec.cwd !== undefined ? { cwd: spec.cwd } : {}) });
    // the stdio subject's own timeout fires first and says more; this guard only backs it up
    return { subject, guardMs: (timeoutMs ?? 5_000) + 5_000 };
  }
  if (typeof spec === "object" && "module" in spec) return { subject: await moduleSubject(spec.module), guardMs: inProcessGuard };
  if (typeof spec === "object" && "mcp" in spec) throw new UsageError("an MCP server is scored by scoreMcp, not as a protocol subject");
  if (typeof spec === "object") return { subject: spec.subject, guardMs: inProcessGuard };
  if (spec === "reference") return { subject: inProcessSubject("reference"), guardMs: inProcessGuard };
  const match = /^mutant:(s\d{2,})$/.exec(spec);
  if (match) return { subject: await mutantSubject(match[1]!, profile), guardMs: inProcessGuard };
  throw new UsageError(`unknown subject ${JSON.stringify(spec)}: use reference, mutant:sNN (e.g. mutant:s03), --subject "COMMAND" or --module PATH`);
}

async function moduleSubject(path: string): Promise<Subject> {
  const file = resolve(path);
  if (!existsSync(file)) throw new UsageError(`--module ${path}: no such file`);
  if (statSync(file).isDirectory()) throw new UsageError(`--module ${path}: is a folder; give the module file (e.g. ${join(path, "index.js")})`);
  let api: Record<string, unknown>;
  try {
    api = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  } catch (error) {
    throw new SubjectError(`--module ${path} could not be loaded: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}`);
  }
  // a module without the interface is a wrong argument, not a subject that failed to start
  const missing = missingExports(api);
  if (missing.length > 0) throw new UsageError(missingText(`--module ${path}`, missing));
  return inProcessSubject(`module:${relative(process.cwd(), file) || path}`, api as unknown as ReferenceApi, moduleIdentity(api, file));
}

/** A mutant that exists and belongs to `profile`, else a usage error saying which profile it belongs to. */
export function checkMutant(id: string, profile: ProfileName): void {
  try {
    const mutant = loadCatalog().find((m) => m.id === id);
    if (!mutant) throw new UsageError(`there is no mutant ${id} (known: ${loadCatalog().map((m) => m.id).join(", ")})`);
    // a mutant makes a mistake of its own profile's contract: under another, its score says nothing
    if (!mutant.profiles.includes(profile)) {
      throw new UsageError(`mutant:${id} belongs to the ${mutant.profiles.join(" and ")} profile${mutant.profiles.length === 1 ? "" : "s"} (its mistake is in that contract), not ${profile}: score it with --profile ${mutant.profiles[0]}`);
    }
  } catch (error) {
    if (error instanceof MutantError) throw new UsageError(error.message);
    throw error;
  }
}

async function mutantSubject(id: string, profile: ProfileName): Promise<Subject> {
  checkMutant(id, profile);
  try {
    const mutant = loadCatalog().find((m) => m.id === id);
    return await loadMutant(mutant!);
  } catch (error) {
    if (error instanceof MutantError) throw new UsageError(error.message);
    throw error;
  }
}

/** The end of a subject's stderr, for a report. */
function tailOf(text: string, max = 4_000): string {
  return text.length > max ? `…${text.slice(-max)}` : text;
}

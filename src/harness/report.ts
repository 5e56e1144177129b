import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { PACKAGE_ROOT } from "./corpus.js";
import { diagnose, type Diagnosis } from "./diagnosis.js";
import { resultOf, type RowResult, type ScoreOptions, type Status } from "./outcome.js";
import type { Implementation } from "./protocol.js";
import { instanceTextOf, LEVELS, parametersTextOf, schemaTextOf, type Level, type ProfileName, type Row, type Section, type SimpleStep, type Step, type Tier } from "./rows.js";
import type { Run } from "./runner.js";
import { clipText, shellQuote } from "./reporters/text.js";
import { failingIds, score, statusAt, type Scores } from "./scoring.js";

// The report of one scoring run, as JSON Lines:
//
//   {"kind":"header", ...}      format and version, tool, subject, profile, level, tiers, filters, corpus size
//   {"kind":"row", ...}         one line per row, in corpus order; a row that did not pass carries
//                               its reproduction ("repro": why, schema, instance or steps, rerun)
//   {"kind":"diagnosis", ...}   the pitfalls that explain the failures
//   {"kind":"summary", ...}     the scores ("stopped": the cause, when the run stopped early)
//   {"kind":"footer", "rows": N, "finishedAt": ...}
//
// The footer comes last and repeats the row count, so a report cut off anywhere (a killed job,
// a full disk, a truncated artifact) is detected: readReport refuses it. Files are written to a
// temporary name and renamed, so a half-written report never sits under the final name.
// conformance/report.schema.json describes every line; fields are only ever added.

export const REPORT_FORMAT = "tool-conformance-report";
export const REPORT_VERSION = 1;

export interface ReportHeader {
  kind: "header";
  format: typeof REPORT_FORMAT;
  formatVersion: number;
  tool: { name: string; version: string };
  subject: { label: string; implementation: Implementation; protocolVersion?: number; capabilities?: string[] };
  profile: ProfileName;
  level: Level;
  tiers: Tier[];
  filters: { sections?: Section[]; ids?: string[] };
  startedAt: string;
  /** Rows in the corpus for this profile, and rows this run selected. */
  corpus: { rows: number; selected: number };
}

/** A row in the report: its result, and its status at every level (passing checks keep no expected/actual). */
export interface ReportRow extends RowResult {
  kind: "row";
  levels: Record<Level, Status>;
  /** For a row that did not pass: what a student needs to reproduce it. */
  repro?: Reproduction;
}

/** What a row sends and why it matters, so that a failing row can be reproduced by hand. */
export interface Reproduction {
  /** The row's sentence of why. */
  why: string;
  /** The exact schema text sent (validate and compile rows). */
  schema?: string;
  /** The exact argument text sent (validate rows). */
  instance?: string;
  /** The registry steps, one a line, each with what it expects (registry rows). */
  steps?: string[];
  /** A command that reruns just this row (`tool-conformance score … --filter ID`), when known. */
  rerun?: string;
}

export interface ReportDiagnosis extends Diagnosis {
  kind: "diagnosis";
  /** Whether mutants' fingerprints were available to compare with. */
  available: boolean;
}

export interface ReportSummary {
  kind: "summary";
  scores: Scores;
  ms: number;
  /** Set when the run stopped early: the subject could not start, or kept failing. */
  stopped?: Stopped;
}

/** Why a run stopped before every row was answered. */
export interface Stopped {
  /** One line: the cause. */
  cause: string;
  /** The end of what the subject wrote on stderr, when known. */
  stderr?: string;
}

export interface ReportFooter {
  kind: "footer";
  rows: number;
  finishedAt: string;
}

export interface Report {
  header: ReportHeader;
  rows: ReportRow[];
  diagnosis: ReportDiagnosis;
  summary: ReportSummary;
  footer: ReportFooter;
}

/** A report that cannot be used: cut off, edited, or not a report at all. */
export class ReportError extends Error {
  override name = "ReportError";
}

let version: string | undefined;
/** This package's version (from package.json). */
export function toolVersion(): string {
  if (version === undefined) {
    try {
      version = String((JSON.parse(readFileSync(join(PACKAGE_ROOT, "package.json"), "utf8")) as { version?: string }).version ?? "0.0.0");
    } catch {
      version = "0.0.0";
    }
  }
  return version;
}

export interface BuildOptions extends ScoreOptions {
  profile: ProfileName;
  filters: ReportHeader["filters"];
  corpusRows: number;
  scores: Scores;
  diagnosis: Diagnosis;
  /** Whether fingerprints were available (false: the diagnosis could not be made). */
  diagnosed?: boolean;
  /** The rows that ran (any order): rows that do not pass get their reproduction from them. */
  rows?: readonly Row[];
  /** The command that scores this subject with these settings, without `--filter`: each failing row's rerun command adds its own. */
  rerun?: string;
  /** Set when the run stopped early. */
  stopped?: Stopped;
}

export function buildReport(run: Run, options: BuildOptions): Report {
  const hello = run.hello;
  const header: ReportHeader = {
    kind: "header",
    format: REPORT_FORMAT,
    formatVersion: REPORT_VERSION,
    tool: { name: "tool-conformance", version: toolVersion() },
    subject: {
      label: run.label,
      implementation: hello.implementation,
      ...(typeof hello.version === "number" ? { protocolVersion: hello.version } : {}),
      ...(Array.isArray(hello.capabilities) ? { capabilities: hello.capabilities } : {}),
    },
    profile: options.profile,
    level: options.level,
    tiers: [...options.tiers],
    filters: options.filters,
    startedAt: run.startedAt,
    corpus: { rows: options.corpusRows, selected: run.results.length },
  };
  const byId = new Map((options.rows ?? []).map((row) => [row.id, row]));
  const rows = run.results.map((result): ReportRow => {
    const levels = Object.fromEntries(LEVELS.map((level) => [level, statusAt(result, { level, tiers: options.tiers })])) as Record<Level, Status>;
    // a passing check's actual is its expected: keep only what a reader needs
    const checks = result.checks.map((check) => (check.pass ? { level: check.level, tier: check.tier, what: check.what, pass: true, expected: undefined, actual: undefined } : check));
    const source = result.status === "passed" ? undefined : byId.get(result.id);
    return { kind: "row", ...result, checks, levels, ...(source ? { repro: reproductionOf(source, options.rerun) } : {}) };
  });
  return {
    header,
    rows,
    diagnosis: { kind: "diagnosis", available: options.diagnosed ?? true, ...options.diagnosis },
    summary: { kind: "summary", scores: options.scores, ms: run.ms, ...(options.stopped ? { stopped: options.stopped } : {}) },
    footer: { kind: "footer", rows: rows.length, finishedAt: run.finishedAt },
  };
}

export interface StoppedRunOptions extends ScoreOptions {
  profile: ProfileName;
  filters: ReportHeader["filters"];
  corpusRows: number;
  label: string;
  /** The rows chosen for the run, in order. */
  rows: readonly Row[];
  /** Rows answered before the run stopped, by id; every other row is errored with the cause. */
  answered?: ReadonlyMap<string, RowResult>;
  startedAt: string;
  ms: number;
  stopped: Stopped;
  rerun?: string;
}

/**
 * The report of a run that stopped early (the subject could not start, or kept failing): every
 * row not answered is errored with the cause, the scores follow (0 when nothing was answered),
 * the summary carries the cause and the end of the subject's stderr. Graders and CI get a whole
 * report, and the student the reason, instead of nothing.
 */
export function buildStoppedReport(options: StoppedRunOptions): Report {
  const results = options.rows.map((row): RowResult => options.answered?.get(row.id) ?? resultOf(row, "errored", [], 0, options.stopped.cause));
  const scoring = { level: options.level, tiers: options.tiers };
  const base = diagnose(results, scoring, []);
  const run: Run = {
    label: options.label,
    hello: { ready: true, version: 0, implementation: { name: options.label, language: "unknown" }, profiles: [], capabilities: [] },
    results,
    startedAt: options.startedAt,
    finishedAt: new Date().toISOString(),
    ms: options.ms,
  };
  const report = buildReport(run, {
    ...scoring,
    profile: options.profile,
    filters: options.filters,
    corpusRows: options.corpusRows,
    scores: score(results, scoring),
    diagnosis: { ...base, matches: [], unexplained: failingIds(results, scoring), lines: ["no diagnosis: the run stopped before every row was answered"] },
    diagnosed: false,
    rows: options.rows,
    ...(options.rerun !== undefined ? { rerun: options.rerun } : {}),
    stopped: options.stopped,
  });
  // the handshake never completed: say so rather than invent one
  delete report.header.subject.protocolVersion;
  delete report.header.subject.capabilities;
  return report;
}

/** The longest schema or argument text a report keeps (the rerun command reproduces any row whole). */
export const REPRO_MAX_CHARS = 64 * 1024;

/** A row's reproduction: its why, what it sends, and the command that reruns it. */
export function reproductionOf(row: Row, rerun?: string): Reproduction {
  const keep = (text: string) => clipText(text, REPRO_MAX_CHARS);
  const out: Reproduction = { why: row.why };
  if (row.kind === "validate") {
    out.schema = keep(schemaTextOf(row));
    out.instance = keep(instanceTextOf(row.instance));
  } else if (row.kind === "compile") {
    out.schema = keep(schemaTextOf(row));
  } else {
    const timeout = row.registry?.timeoutMs;
    out.steps = [`a new registry${timeout !== undefined ? ` (tool timeout ${timeout} ms)` : ""}`, ...row.steps.flatMap((step, i) => stepLines(step, `step ${i + 1}`))].map(keep);
  }
  if (rerun !== undefined) out.rerun = `${rerun} --filter ${shellQuote(row.id)}`;
  return out;
}

/** A registry step as the request it makes and what it expects: `step 2: call {…} → expect …`. */
function stepLines(step: Step, label: string): string[] {
  if (step.op === "concurrently") return [`${label}: at once, on the same registry:`, ...step.steps.flatMap((inner, i) => stepLines(inner, `  ${label}.${i + 1}`))];
  return [`${label}: ${stepText(step)}`];
}

function stepText(step: SimpleStep): string {
  switch (step.op) {
    case "register": {
      const tool = step.tool;
      const parameters = parametersTextOf(tool);
      const spec = { name: tool.name, description: tool.description, parameters, behavior: tool.behavior };
      const expect = step.expect.ok ? "accepted" : `refused${step.expect.error !== undefined ? ` with ${JSON.stringify(step.expect.error)}` : ""}`;
      return `register${step.override ? " (override)" : ""} ${JSON.stringify(spec)} → expect ${expect}`;
    }
    case "names":
      return `names → expect ${JSON.stringify(step.expect)}`;
    case "definitions":
      return `definitions → expect ${JSON.stringify(step.expect)}`;
    case "call": {
      const e = step.expect;
      const parts = [e.isError ? "an error result" : "a result", `runs ${JSON.stringify(e.runs)}`];
      if (e.content !== undefined) parts.push(`content ${JSON.stringify(e.content)}`);
      if (e.contentIncludes?.length) parts.push(`content including ${e.contentIncludes.map((t) => JSON.stringify(t)).join(", ")}`);
      if (e.contentExcludes?.length) parts.push(`content without ${e.contentExcludes.map((t) => JSON.stringify(t)).join(", ")}`);
      return `call ${JSON.stringify(step.call)} → expect ${parts.join(", ")}`;
    }
  }
}

/** The report as JSON Lines text (one object a line, the footer last). */
export function formatReport(report: Report): string {
  const lines = [report.header, ...report.rows, report.diagnosis, report.summary, report.footer].map((line) => JSON.stringify(line));
  return lines.join("\n") + "\n";
}

/** Writes the report atomically: a reader sees the whole report or none. */
export function writeReport(path: string, report: Report): void {
  writeFileAtomic(path, formatReport(report));
}

/**
 * Writes `data` to `path` through a temporary file in the same folder, flushed to disk,
 * then renamed over `path` (atomic on POSIX filesystems). Creates the folder if needed.
 */
export function writeFileAtomic(path: string, data: string | Uint8Array): void {
  const dir = dirname(path);
  mkdirSync(dir, { recursive: true });
  const temp = join(dir, `.${basename(path)}.${process.pid}.${Math.random().toString(36).slice(2, 10)}.tmp`);
  try {
    const fd = openSync(temp, "w");
    try {
      writeSync(fd, typeof data === "string" ? Buffer.from(data, "utf8") : data);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, path);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}

/** Reads a report written by writeReport; a ReportError (one line, naming the file) when it is cut off or not a report. */
export function readReport(path: string): Report {
  const text = readFileSync(path, "utf8");
  return parseReport(text, path);
}

export function parseReport(text: string, name = "report"): Report {
  const fail = (why: string): never => {
    throw new ReportError(`${name}: ${why}`);
  };
  if (text.trim() === "") fail("empty file, not a tool-conformance report");
  const lines = text.split("\n");
  // a complete report ends with a newline after its footer
  const cutMidLine = lines[lines.length - 1] !== "";
  if (!cutMidLine) lines.pop();
  const items: Record<string, unknown>[] = [];
  for (const [i, line] of lines.entries()) {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      if (i === 0 && !line.startsWith('{"kind":"header"')) fail("not a tool-conformance report (the first line is not JSON)");
      fail(i === lines.length - 1 ? `cut off: the last line (${i + 1}) is incomplete; the run or the copy did not finish` : `line ${i + 1} is not JSON; the report is damaged`);
    }
    if (typeof value !== "object" || value === null || Array.isArray(value) || typeof (value as { kind?: unknown }).kind !== "string") {
      fail(`line ${i + 1} is not a report line (no "kind")`);
    }
    items.push(value as Record<string, unknown>);
  }
  const header = items[0]!;
  if (header.kind !== "header" || header.format !== REPORT_FORMAT) fail("not a tool-conformance report (no header line)");
  if (typeof header.formatVersion !== "number" || header.formatVersion > REPORT_VERSION) {
    fail(`report format version ${String(header.formatVersion)} is newer than this tool reads (${REPORT_VERSION}); upgrade tool-conformance`);
  }
  const last = items[items.length - 1]!;
  if (last.kind !== "footer") fail(`cut off: no footer line after ${items.length} line${items.length === 1 ? "" : "s"}; the run or the copy did not finish`);
  if (cutMidLine) fail("cut off: no newline after the footer");
  const rows = items.filter((item) => item.kind === "row") as unknown as ReportRow[];
  const footer = last as unknown as ReportFooter;
  if (footer.rows !== rows.length) fail(`cut off or edited: the footer counts ${String(footer.rows)} rows, the file holds ${rows.length}`);
  const selected = (header as unknown as ReportHeader).corpus?.selected;
  if (typeof selected === "number" && selected !== rows.length) fail(`cut off or edited: the header selected ${selected} rows, the file holds ${rows.length}`);
  const diagnosis = items.find((item) => item.kind === "diagnosis") as ReportDiagnosis | undefined;
  const summary = items.find((item) => item.kind === "summary") as ReportSummary | undefined;
  if (!diagnosis) fail("damaged: no diagnosis line");
  if (!summary) fail("damaged: no summary line");
  const ids = new Set<string>();
  for (const row of rows) {
    if (typeof row.id !== "string" || typeof row.status !== "string" || !Array.isArray(row.checks)) fail(`damaged: a row line without id, status or checks`);
    if (ids.has(row.id)) fail(`damaged: row ${row.id} appears twice`);
    ids.add(row.id);
  }
  return { header: header as unknown as ReportHeader, rows, diagnosis: diagnosis!, summary: summary!, footer };
}

import { createHmac, timingSafeEqual } from "node:crypto";
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, rmSync, statSync, writeSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { PACKAGE_ROOT } from "../corpus/load.js";
import { diagnose, type Diagnosis } from "../judge/diagnosis.js";
import { partOf, resultOf, statusOf, STATUSES, type RowResult, type ScoreOptions, type Status } from "../run/outcome.js";
import type { Implementation } from "../subjects/protocol.js";
import { instanceTextOf, LEVELS, parametersTextOf, PARTS, PROFILES, profileNamed, schemaTextOf, SECTIONS, TIERS, type Level, type Part, type ProfileName, type Row, type Section, type SimpleStep, type Step, type Tier } from "../corpus/rows.js";
import type { Run } from "../run/runner.js";
import { clipText, shellQuote } from "./reporters/text.js";
import { failingIds, formatPercent, score, statusAt, type Scores } from "../judge/scoring.js";
import { checkWeighting, isPlainRows, weightedScore, type WeightedScore, type Weighting } from "../judge/weighting.js";
import { makeDirectory } from "./directory.js";

// The report of one scoring run, as JSON Lines:
//
//   {"kind":"header", ...}      format and version, tool, subject, profile, level, tiers, filters, corpus size
//   {"kind":"row", ...}         one line per row, in corpus order; a row that did not pass carries
//                               its reproduction ("repro": why, schema, instance or steps, rerun)
//   {"kind":"diagnosis", ...}   the pitfalls that explain the failures
//   {"kind":"summary", ...}     the scores ("stopped": the cause, when the run stopped early)
//   {"kind":"footer", "rows": N, "finishedAt": ...}
//   {"kind":"signature", "algorithm":"hmac-sha256", "mac": ...}   only when signed (score --key)
//
// The footer repeats the row count, so a report cut off anywhere (a killed job, a full disk, a
// truncated artifact) is detected: readReport refuses it. Files are written to a temporary name
// and renamed, so a half-written report never sits under the final name. A run marks its report
// file "started" before the subject runs when it holds no whole report, so a killed run leaves
// "incomplete"; a whole report already there is kept until the new one is whole. A run stopped by
// SIGINT or SIGTERM writes its report beside it (report.interrupted.jsonl), its summary's stopped
// block naming the signal: every reader refuses that report as incomplete. conformance/report.schema.json describes every line; fields are only
// ever added.
//
// A report is read as untrusted data (a subject's helper may have rewritten it): every reader
// recomputes the scores from the row lines and refuses a summary, a row status or a diagnosis
// count that does not follow from them. With a key, the signature (HMAC-SHA256 over the exact
// bytes of every line before it) must match too, which no edit can keep without the key.

export const REPORT_FORMAT = "tool-conformance-report";
export const REPORT_VERSION = 1;
/** A signed report's version: a line follows the footer, so a reader of version 1 is told to upgrade rather than that it is cut off. */
export const SIGNED_REPORT_VERSION = 2;
export const SIGNATURE_ALGORITHM = "hmac-sha256";
/** Larger than any real report (rows × the 64 KiB a reproduction keeps): refused unread. */
const MAX_REPORT_BYTES = 512 * 1024 * 1024;

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
  /** How the headline is scored, when not rows passed over rows (score --scoring, --weights, --fresh-weight; or generated rows counted apart). */
  scoring?: Weighting;
}

/** A row in the report: its result, and its status at every level (passing checks keep no expected/actual). */
export interface ReportRow extends RowResult {
  kind: "row";
  levels: Record<Level, Status>;
  /** For a row that did not pass: what a student needs to reproduce it. */
  repro?: Reproduction;
  /** Set on a row of a secret part (secretRow): its inputs and answers are in no output. */
  secret?: true;
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
  /** The headline under the header's scoring, when it has one (recomputed by every reader). */
  weighted?: WeightedScore;
  ms: number;
  /**
   * The end of what the subject wrote on stderr during a run that did not stop: the implementation's
   * own prints, under a template (which keeps them off the protocol). Shown to the student.
   */
  output?: string;
  /**
   * What a grader must look at, set by `grade` before the report is signed: the submission carries
   * this package's files (its reference, its corpus). See flagsOf for every flag a reader shows.
   */
  flags?: string[];
  /** Set when the run stopped early: the subject could not start, or kept failing. */
  stopped?: Stopped;
}

/** Why a run stopped before every row was answered. */
export interface Stopped {
  /** One line: the cause. */
  cause: string;
  /** The end of what the subject wrote on stderr, when known (or of the log `log` names). */
  stderr?: string;
  /** Set when `stderr` is the end of a log rather than the subject's stderr: `build.log` for a build that failed. */
  log?: string;
  /**
   * The signal that interrupted the run (SIGINT, SIGTERM), when one did: the report keeps the rows
   * answered, and every reader refuses it as incomplete (never a baseline, never merged).
   */
  interrupted?: string;
  /** With `interrupted`: how many rows were answered before it. */
  answered?: number;
  /** Set when the run stopped on the grader's side (markGraderFault): what the operating system said. */
  graderFault?: string;
}

export interface ReportFooter {
  kind: "footer";
  rows: number;
  finishedAt: string;
}

/** The last line of a signed report: HMAC-SHA256, keyed with the grader's key, over the exact bytes of every line before it. */
export interface ReportSignature {
  kind: "signature";
  algorithm: typeof SIGNATURE_ALGORITHM;
  /** Lowercase hex, 64 digits. */
  mac: string;
}

/** What report.jsonl holds while its run is under way: read, it is "incomplete", never a report. */
export interface RunMarker {
  kind: "started";
  format: typeof REPORT_FORMAT;
  startedAt: string;
  note: string;
}

export interface Report {
  header: ReportHeader;
  rows: ReportRow[];
  diagnosis: ReportDiagnosis;
  summary: ReportSummary;
  footer: ReportFooter;
  /** Present when the report was signed (it was verified only if a key was given to the reader). */
  signature?: ReportSignature;
}

/** A report that cannot be used: cut off, edited, unsigned, or not a report at all. */
export class ReportError extends Error {
  override name = "ReportError";
  /** Why, without the file's name: what a class table shows beside it. */
  readonly reason: string;
  constructor(message: string, reason?: string) {
    super(message);
    this.reason = reason ?? message;
  }
}

/** A key file that cannot be used (missing, empty, too short): a usage error. */
export class KeyFileError extends ReportError {
  override name = "KeyFileError";
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
  /**
   * The command that scores this subject with these settings, without `--filter`: each failing row's
   * rerun command adds its own. Or a function giving a row's whole rerun command, undefined for a
   * row no student can rerun (a grader's private row, a generated one).
   */
  rerun?: Rerun;
  /** Set when the run stopped early. */
  stopped?: Stopped;
  /** How the headline is scored (default: rows passed over rows). */
  weighting?: Weighting;
  /** Notes for the grader (summary.flags). */
  flags?: readonly string[];
  /** Parts whose rows a student must not see (keyed --fresh cases): each kept as secretRow says. */
  secretParts?: readonly Part[];
}

/**
 * A row of a secret part as every output shows it: its id, status, checks' verdicts (so every
 * reader recomputes the same scores), rule and why; never what it sent, what the subject answered,
 * its error's words or its stderr, which would let a student rebuild the case (a leak served to
 * the whole class if the cases were the same for all).
 */
export function secretRow(row: ReportRow): ReportRow {
  const { error, stderr: _stderr, repro, ...kept } = row;
  const timeout = error === undefined ? undefined : /^no reply to .* within (\d+) ms/.exec(error);
  return {
    ...kept,
    secret: true,
    checks: row.checks.map((check) => ({ level: check.level, tier: check.tier, what: "a check of a generated case", pass: check.pass, expected: undefined, actual: undefined })),
    ...(error !== undefined ? { error: timeout ? `no reply within ${timeout[1]} ms` : "the subject's answer broke the protocol or the process ended" } : {}),
    ...(repro ? { repro: { why: repro.why } } : {}),
  };
}

/**
 * Caps on the subject's own text a report keeps (its handshake, its errors and stderr, what it
 * answered): a bloated or hostile subject cannot make a report of hundreds of megabytes, and no
 * line of it reads as a CI workflow command (`::error`) in any file written from the report (score
 * neutralises each as it writes it).
 */
export const SUBJECT_TEXT_CAPS = {
  /** Each string of the handshake (implementation name, language, version). */
  handshake: 200,
  /** A row's error or stderr; a check's actual, as JSON. */
  check: 4 * 1024,
  /** Every actual of one row together. */
  row: 16 * 1024,
  /** Every actual, error and stderr of the whole report together. */
  report: 4 * 1024 * 1024,
} as const;

/** Subject text as a report keeps it: clipped (each output neutralises workflow commands as it writes). */
export function subjectText(text: string, max: number): string {
  return clipText(text, max);
}

/** Every string inside an answer neutralised; the whole clipped to a string when its JSON is longer than `max`. */
function subjectValue(value: unknown, max: number): { value: unknown; size: number } {
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch {
    json = undefined;
  }
  if (json === undefined) return { value, size: 0 };
  if (json.length <= max) return { value, size: json.length };
  return { value: subjectText(json, max), size: max };
}

/** Applies SUBJECT_TEXT_CAPS to the rows, in order; `budget.left` is the report's budget. */
function capRow(row: ReportRow, budget: { left: number }): ReportRow {
  const spend = (size: number) => (budget.left -= size);
  const text = (value: string | undefined) => {
    if (value === undefined) return undefined;
    if (budget.left <= 0) return "(not kept: the report's room for the subject's text is spent)";
    const kept = subjectText(value, Math.min(SUBJECT_TEXT_CAPS.check, budget.left));
    spend(kept.length);
    return kept;
  };
  let rowLeft: number = SUBJECT_TEXT_CAPS.row;
  const checks = row.checks.map((check) => {
    if (check.pass || check.actual === undefined) return check;
    if (rowLeft <= 0 || budget.left <= 0) return { ...check, actual: `(not kept: the ${rowLeft <= 0 ? "row's" : "report's"} room for the subject's answers is spent)` };
    const kept = subjectValue(check.actual, Math.min(SUBJECT_TEXT_CAPS.check, rowLeft, budget.left));
    rowLeft -= kept.size;
    spend(kept.size);
    return { ...check, actual: kept.value, ...(check.note !== undefined ? { note: subjectText(check.note, SUBJECT_TEXT_CAPS.check) } : {}) };
  });
  const error = text(row.error);
  const stderr = text(row.stderr);
  return { ...row, checks, ...(error !== undefined ? { error } : {}), ...(stderr !== undefined ? { stderr } : {}) };
}

export function buildReport(run: Run, options: BuildOptions): Report {
  const hello = run.hello;
  const said = hello.implementation as Partial<Implementation> | undefined;
  const handshake = (value: unknown) => subjectText(typeof value === "string" ? value : String(value ?? ""), SUBJECT_TEXT_CAPS.handshake);
  const implementation: Implementation = { name: handshake(said?.name), language: handshake(said?.language), ...(said?.version !== undefined ? { version: handshake(said.version) } : {}) };
  const header: ReportHeader = {
    kind: "header",
    format: REPORT_FORMAT,
    formatVersion: REPORT_VERSION,
    tool: { name: "tool-conformance", version: toolVersion() },
    subject: {
      label: run.label,
      implementation,
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
  const budget = { left: SUBJECT_TEXT_CAPS.report as number };
  const rows = run.results.map((result): ReportRow => {
    const levels = Object.fromEntries(LEVELS.map((level) => [level, statusAt(result, { level, tiers: options.tiers })])) as Record<Level, Status>;
    // a passing check's actual is its expected: keep only what a reader needs
    const checks = result.checks.map((check) => (check.pass ? { level: check.level, tier: check.tier, what: check.what, pass: true, expected: undefined, actual: undefined } : check));
    const source = result.status === "passed" ? undefined : byId.get(result.id);
    const row = capRow({ kind: "row", ...result, checks, levels, ...(source ? { repro: reproductionOf(source, options.rerun) } : {}) }, budget);
    return options.secretParts?.includes(partOf(result)) ? secretRow(row) : row;
  });
  // once a secret case was sent, the subject's stderr may carry it: the run's stderr is not kept then
  // (a row of the corpus keeps its own: the corpus runs first, before any generated case)
  const secretSent = run.results.some((result) => options.secretParts?.includes(partOf(result)) && result.error !== options.stopped?.cause);
  const stderr = secretSent ? undefined : run.stderr;
  const stopped: Stopped | undefined = options.stopped && secretSent ? (({ stderr: _, ...rest }) => rest)(options.stopped) : options.stopped;
  const report: Report = {
    header,
    rows,
    diagnosis: { kind: "diagnosis", available: options.diagnosed ?? true, ...options.diagnosis },
    summary: { kind: "summary", scores: options.scores, ms: run.ms, ...(stderr !== undefined && !stopped ? { output: subjectText(stderr, SUBJECT_TEXT_CAPS.check) } : {}), ...(options.flags?.length ? { flags: [...options.flags] } : {}), ...(stopped ? { stopped: { ...stopped, cause: subjectText(stopped.cause, SUBJECT_TEXT_CAPS.check), ...(stopped.stderr !== undefined ? { stderr: subjectText(stopped.stderr, SUBJECT_TEXT_CAPS.check) } : {}) } } : {}) },
    footer: { kind: "footer", rows: rows.length, finishedAt: run.finishedAt },
  };
  return options.weighting ? withWeighting(report, options.weighting) : report;
}

/**
 * The report scored under `weighting`: its header records the scheme and its summary the headline
 * (a plain rows score of a run without generated rows records nothing: the report reads as before).
 * A signed report so changed is no longer the signed one: for rendering, not for writing back.
 */
export function withWeighting(report: Report, weighting: Weighting): Report {
  const header = { ...report.header };
  const summary = { ...report.summary };
  delete header.scoring;
  delete summary.weighted;
  const plain = isPlainRows(weighting) && !report.rows.some((row) => row.part === "fresh");
  if (!plain) {
    header.scoring = weighting;
    // the summary's keys in their usual order: scores, weighted, ms, stopped
    const { kind, scores, ms, output, flags, stopped } = summary;
    const weighted = weightedScore(report.rows, { level: header.level, tiers: header.tiers }, weighting);
    return { ...report, header, summary: { kind, scores, weighted, ms, ...(output !== undefined ? { output } : {}), ...(flags ? { flags } : {}), ...(stopped ? { stopped } : {}) } };
  }
  return { ...report, header, summary };
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
  rerun?: Rerun;
  weighting?: Weighting;
  flags?: readonly string[];
  secretParts?: readonly Part[];
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
    ...(options.weighting ? { weighting: options.weighting } : {}),
    ...(options.flags ? { flags: options.flags } : {}),
    ...(options.secretParts ? { secretParts: options.secretParts } : {}),
  });
  // the handshake never completed: say so rather than invent one
  delete report.header.subject.protocolVersion;
  delete report.header.subject.capabilities;
  return report;
}

/** How many points the fresh part may trail the corpus part before a report is flagged (a table of the public answers passes the corpus, not fresh cases). */
export const FRESH_GAP = 25;

/**
 * Every flag for the grader a report carries: those `grade` wrote (summary.flags), and a fresh part
 * far below the corpus part, recomputed from the scores. Shown in every report and the class table.
 */
export function flagsOf(report: Report): string[] {
  const flags = [...(report.summary.flags ?? [])];
  const { fresh, corpus } = report.summary.scores.byPart ?? {};
  if (fresh && corpus && fresh.rows > 0 && corpus.percent - fresh.percent >= FRESH_GAP) {
    flags.push(`FLAGGED: fresh part ${formatPercent(fresh.percent)} far below corpus part ${formatPercent(corpus.percent)}`);
  }
  return flags;
}

/** The longest schema or argument text a report keeps (the rerun command reproduces any row whole). */
export const REPRO_MAX_CHARS = 64 * 1024;

/** A command to rerun a row: a prefix that `--filter ID` completes, or a row's whole command (undefined: none a student can run). */
export type Rerun = string | ((row: Row) => string | undefined);

/** A row's reproduction: its why, what it sends, and the command that reruns it. */
export function reproductionOf(row: Row, rerun?: Rerun): Reproduction {
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
  const command = typeof rerun === "function" ? rerun(row) : rerun !== undefined ? `${rerun} --filter ${shellQuote(row.id)}` : undefined;
  if (command !== undefined) out.rerun = command;
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
      const record = { ...(tool.idempotent !== undefined ? { idempotent: tool.idempotent } : {}), ...(tool.timeoutMs !== undefined ? { timeoutMs: tool.timeoutMs } : {}), ...(tool.handler ? { handler: tool.handler } : {}) };
      const spec = { name: tool.name, description: tool.description, parameters, behavior: tool.behavior, ...record };
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
    case "get":
      return `get ${JSON.stringify(step.name)} → expect ${step.expect.found ? `the record ${JSON.stringify(step.expect.record)}` : "it raises (not found)"}`;
    case "validate": {
      const e = step.expect;
      return `validate ${JSON.stringify(step.name)} with ${JSON.stringify(step.instance)} → expect ${"refused" in e ? "it raises (no such tool)" : `errors ${JSON.stringify(e.errors.map((x) => ({ path: x.path, ...(x.expectedType ? { expectedType: x.expectedType } : {}) })))}`}`;
    }
  }
}

export interface SignOptions {
  /** The grader's key (readKeyFile): the report is signed with it. */
  key?: Uint8Array;
}

/** The report as JSON Lines text (one object a line, the footer last; with a key, a signature line after it). */
export function formatReport(report: Report, options: SignOptions = {}): string {
  // the version says whether a signature line follows: never claim one that is not there
  const formatVersion = options.key ? SIGNED_REPORT_VERSION : Math.min(report.header.formatVersion, REPORT_VERSION);
  const header = formatVersion === report.header.formatVersion ? report.header : { ...report.header, formatVersion };
  const lines = [header, ...report.rows, report.diagnosis, report.summary, report.footer].map((line) => JSON.stringify(line));
  const body = lines.join("\n") + "\n";
  if (!options.key) return body;
  const signature: ReportSignature = { kind: "signature", algorithm: SIGNATURE_ALGORITHM, mac: macOf(Buffer.from(body, "utf8"), options.key) };
  return body + JSON.stringify(signature) + "\n";
}

/** Writes the report atomically: a reader sees the whole report or none. */
export function writeReport(path: string, report: Report, options: SignOptions = {}): void {
  writeFileAtomic(path, formatReport(report, options));
}

/**
 * Replaces whatever report `path` held with a one-line "started" marker, before a run: if the run
 * never ends (killed, a machine lost), readers find "incomplete", not an earlier run's report.
 */
export function markRunStarted(path: string, startedAt: string): void {
  const marker: RunMarker = { kind: "started", format: REPORT_FORMAT, startedAt, note: "a run is under way or was interrupted: this file is replaced by its report when it ends" };
  writeFileAtomic(path, JSON.stringify(marker) + "\n");
}

/** HMAC-SHA256 of `bytes` under `key`, in lowercase hex. */
export function macOf(bytes: Uint8Array, key: Uint8Array): string {
  return createHmac("sha256", key).update(bytes).digest("hex");
}

/** Keys shorter than this are refused: a guessable key signs nothing. */
export const MIN_KEY_BYTES = 16;

/**
 * Reads a signing key: the file's bytes, less trailing whitespace (the newline an editor or
 * `openssl rand -hex 32 > key` leaves). A missing, unreadable, empty or short key file is a
 * KeyFileError naming it: signing with nothing would look safe and be worthless.
 */
export function readKeyFile(path: string, flag = "--key"): Uint8Array {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    const code = (error as { code?: string }).code;
    const why = code === "ENOENT" ? "no such file" : code === "EACCES" || code === "EPERM" ? "permission denied" : code === "EISDIR" ? "a folder, not a file" : (code ?? String(error));
    throw new KeyFileError(`${flag} ${path}: cannot read the key file (${why})`);
  }
  let end = bytes.length;
  while (end > 0 && [0x20, 0x09, 0x0a, 0x0d].includes(bytes[end - 1]!)) end--;
  const key = bytes.subarray(0, end);
  if (key.length === 0) throw new KeyFileError(`${flag} ${path}: the key file is empty; put at least ${MIN_KEY_BYTES} random bytes in it (e.g. openssl rand -hex 32 > ${path})`);
  if (key.length < MIN_KEY_BYTES) throw new KeyFileError(`${flag} ${path}: the key is ${key.length} bytes; use at least ${MIN_KEY_BYTES} random bytes (e.g. openssl rand -hex 32 > ${path})`);
  return key;
}

/**
 * Writes `data` to `path` through a temporary file in the same folder, flushed to disk,
 * then renamed over `path` (atomic on POSIX filesystems). Creates the folder if needed.
 */
export function writeFileAtomic(path: string, data: string | Uint8Array): void {
  const dir = dirname(path);
  makeDirectory(dir);
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

export interface ReadOptions {
  /** The grader's key: the report must carry a signature made with it. Without one, a signature is not checked. */
  key?: Uint8Array;
}

/**
 * Reads a report written by writeReport and checks it: a ReportError (one line, naming the file)
 * when it is cut off, incomplete, edited (its summary or a row's status does not follow from its
 * rows) or, with a key, unsigned or badly signed.
 */
export function readReport(path: string, options: ReadOptions = {}): Report {
  return parseReport(readFileSync(path), path, options);
}

/** A report that passed every check, or why it did not: what merge (and grade) take, one file at a time. */
export type VerifiedReport = { ok: true; path: string; report: Report } | { ok: false; path: string; reason: string };

/**
 * Reads and checks one report file without throwing: missing, unreadable, cut off, incomplete,
 * edited, unsigned or badly signed (with a key) come back as a reason, so one bad file costs
 * its own line of a class table and no one else's.
 */
export function verifyReportFile(path: string, options: ReadOptions = {}): VerifiedReport {
  let bytes: Buffer;
  try {
    const size = statSync(path).size;
    if (size > MAX_REPORT_BYTES) return { ok: false, path, reason: `unreadable: ${size} bytes, larger than any report` };
    bytes = readFileSync(path);
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === "ENOENT") return { ok: false, path, reason: "missing: no such file" };
    const why = code === "EACCES" || code === "EPERM" ? "permission denied" : code === "EISDIR" ? "a folder, not a report" : error instanceof Error ? error.message : String(error);
    return { ok: false, path, reason: `unreadable: ${why}` };
  }
  try {
    return { ok: true, path, report: parseReport(bytes, path, options) };
  } catch (error) {
    if (error instanceof ReportError) return { ok: false, path, reason: error.reason };
    // the file is untrusted: whatever else breaks while reading it is its fault, not the grader's
    return { ok: false, path, reason: `damaged: ${error instanceof Error ? error.message : String(error)}` };
  }
}

export function parseReport(input: string | Uint8Array, name = "report", options: ReadOptions = {}): Report {
  const fail = (why: string): never => {
    throw new ReportError(`${name}: ${why}`, why);
  };
  const text = typeof input === "string" ? input : Buffer.from(input.buffer, input.byteOffset, input.byteLength).toString("utf8");
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
  if (header.kind === "started" && header.format === REPORT_FORMAT) {
    fail(`incomplete: the run did not finish (it started at ${String(header.startedAt)} and was interrupted, or is still running)`);
  }
  if (header.kind !== "header" || header.format !== REPORT_FORMAT) fail("not a tool-conformance report (no header line)");
  if (typeof header.formatVersion !== "number" || header.formatVersion > SIGNED_REPORT_VERSION) {
    fail(`report format version ${String(header.formatVersion)} is newer than this tool reads (${SIGNED_REPORT_VERSION}); upgrade tool-conformance`);
  }
  const signed = (header.formatVersion as number) >= SIGNED_REPORT_VERSION;
  let last = items[items.length - 1]!;
  let signature: ReportSignature | undefined;
  if (last.kind === "signature") {
    if (!signed) fail("edited: a signature line in a report that says it is unsigned (format version 1)");
    if (cutMidLine) fail("cut off: no newline after the signature");
    if (last.algorithm !== SIGNATURE_ALGORITHM || typeof last.mac !== "string" || !/^[0-9a-f]{64}$/.test(last.mac)) fail(`damaged: the signature line is not ${SIGNATURE_ALGORITHM} in 64 hex digits`);
    signature = last as unknown as ReportSignature;
    items.pop();
    last = items[items.length - 1]!;
  }
  if (last.kind !== "footer") fail(`cut off: no footer line after ${items.length} line${items.length === 1 ? "" : "s"}; the run or the copy did not finish`);
  if (cutMidLine) fail("cut off: no newline after the footer");
  if (signed && !signature) fail("cut off or edited: the report says it is signed (format version 2), and its signature line is missing");
  const rows = items.filter((item) => item.kind === "row") as unknown as ReportRow[];
  const footer = last as unknown as ReportFooter;
  if (footer.rows !== rows.length) fail(`cut off or edited: the footer counts ${String(footer.rows)} rows, the file holds ${rows.length}`);
  const selected = (header as unknown as ReportHeader).corpus?.selected;
  if (typeof selected === "number" && selected !== rows.length) fail(`cut off or edited: the header selected ${selected} rows, the file holds ${rows.length}`);
  const diagnosis = items.find((item) => item.kind === "diagnosis") as ReportDiagnosis | undefined;
  const summary = items.find((item) => item.kind === "summary") as ReportSummary | undefined;
  if (!diagnosis) fail("damaged: no diagnosis line");
  if (!summary) fail("damaged: no summary line");
  const halted = (summary as { stopped?: Partial<Stopped> }).stopped;
  if (halted && halted.interrupted !== undefined) {
    fail(`incomplete: the run was interrupted (${String(halted.interrupted)}) with ${typeof halted.answered === "number" ? halted.answered : "some"} of ${rows.length} rows answered`);
  }
  // header, rows, diagnosis, summary, footer: each once, in that order
  const order = ["header", ...rows.map(() => "row"), "diagnosis", "summary", "footer"];
  const misplaced = items.findIndex((item, i) => item.kind !== order[i]);
  if (misplaced !== -1) fail(`damaged: line ${misplaced + 1} is a ${JSON.stringify(items[misplaced]!.kind)} line where a ${order[misplaced] ?? "footer"} line belongs`);
  const ids = new Set<string>();
  for (const row of rows) {
    if (typeof row.id !== "string" || typeof row.status !== "string" || !Array.isArray(row.checks)) fail(`damaged: a row line without id, status or checks`);
    if (ids.has(row.id)) fail(`damaged: row ${row.id} appears twice`);
    ids.add(row.id);
  }
  // the signature first: with a key, a report changed in any way is "badly signed", whatever else it says
  if (options.key) {
    if (!signature) fail("unsigned: the report carries no signature, and a key was given (sign reports with score --key)");
    const bytes = typeof input === "string" ? Buffer.from(input, "utf8") : Buffer.from(input.buffer, input.byteOffset, input.byteLength);
    // the signature line is the last; the MAC covers every byte before it
    const start = bytes.lastIndexOf(0x0a, bytes.length - 2) + 1;
    const expected = Buffer.from(macOf(bytes.subarray(0, start), options.key), "hex");
    if (!timingSafeEqual(expected, Buffer.from(signature!.mac, "hex"))) fail("bad signature: the report was changed after it was signed, or signed with another key");
  }
  const report = { header: header as unknown as ReportHeader, rows, diagnosis: diagnosis!, summary: summary!, footer, ...(signature ? { signature } : {}) };
  checkConsistency(report, fail);
  return report;
}

/**
 * Recomputes what a report derives from its row lines, with the header's level and tiers and the
 * same scoring functions the run used, and refuses the report when its summary, a row's status or
 * levels, or the diagnosis's counts say otherwise. The row lines' checks are the evidence; a
 * summary is never taken on trust (a subject's helper could have rewritten it).
 */
function checkConsistency(report: Report, fail: (why: string) => never): void {
  const { header, rows, diagnosis, summary } = report;
  const one = <T extends string>(values: readonly T[], value: unknown): value is T => typeof value === "string" && (values as readonly string[]).includes(value);
  // reports of the lesson profile under its older name (pointer) are read as the lesson's
  if (typeof header.profile !== "string" || profileNamed(header.profile) === undefined) fail(`damaged: the header's profile ${JSON.stringify(header.profile)} is not one of ${PROFILES.join(", ")}`);
  else header.profile = profileNamed(header.profile)!;
  if (!one(LEVELS, header.level)) fail(`damaged: the header's level ${JSON.stringify(header.level)} is not one of ${LEVELS.join(", ")}`);
  if (!Array.isArray(header.tiers) || header.tiers.length === 0 || !header.tiers.every((tier) => one(TIERS, tier)) || new Set(header.tiers).size !== header.tiers.length) {
    fail(`damaged: the header's tiers ${JSON.stringify(header.tiers)} are not a set of ${TIERS.join(", ")}`);
  }
  if (typeof header.subject?.label !== "string") fail("damaged: the header has no subject label");
  const options: ScoreOptions = { level: header.level, tiers: header.tiers };
  for (const row of rows) {
    const where = `row ${JSON.stringify(row.id)}`;
    if (!one(SECTIONS, row.section) || !one(TIERS, row.tier) || (row.messageTier !== undefined && !one(TIERS, row.messageTier))) fail(`damaged: ${where} has an unknown section or tier`);
    if (row.part !== undefined && !one(PARTS, row.part)) fail(`damaged: ${where} has an unknown part ${JSON.stringify(row.part)} (${PARTS.join(", ")})`);
    if (!one(STATUSES, row.status)) fail(`damaged: ${where} has an unknown status ${JSON.stringify(row.status)}`);
    if (typeof row.rule !== "string" || !Array.isArray(row.pitfalls) || !row.pitfalls.every((p) => typeof p === "string")) fail(`damaged: ${where} has no rule or pitfalls`);
    for (const check of row.checks as unknown[]) {
      const c = check as Record<string, unknown> | null;
      if (typeof c !== "object" || c === null || !one(LEVELS, c.level) || !one(TIERS, c.tier) || typeof c.pass !== "boolean" || typeof c.what !== "string") fail(`damaged: ${where} has a check without level, tier, what or pass`);
    }
    if (row.status === "passed" || row.status === "failed") {
      const own = statusOf(row.checks, options);
      if (own !== row.status) fail(`edited: ${where} says ${row.status}, its checks say ${own}`);
    }
    if (typeof row.levels !== "object" || row.levels === null) fail(`damaged: ${where} has no status per level`);
    for (const level of LEVELS) {
      const at = statusAt(row, { ...options, level });
      if (row.levels[level] !== at) fail(`edited: ${where} says ${String(row.levels[level])} at level ${level}, its checks say ${at}`);
    }
  }
  const scores = summary.scores as Partial<Scores> | undefined;
  if (typeof scores !== "object" || scores === null) fail("damaged: the summary has no scores");
  const computed = score(rows, options);
  // reports written before parts existed have no byPart: the rest must still match
  const { byPart, ...rest } = computed;
  const difference = firstDifference(scores, scores!.byPart === undefined ? rest : computed, "");
  if (difference) fail(`forged or edited: the summary does not match its rows: ${difference.path} is ${difference.stored} in the summary, ${difference.computed} from the rows`);
  if (scores!.byPart === undefined) scores!.byPart = byPart;
  // the headline under the header's scoring, recomputed like every score
  if (header.scoring !== undefined) {
    const bad = checkWeighting(header.scoring);
    if (bad) fail(`damaged: the header's scoring is not a scoring scheme (${bad})`);
    const weighted = weightedScore(rows, options, header.scoring);
    const d = firstDifference(summary.weighted, weighted, "weighted");
    if (d) fail(`forged or edited: the summary does not match its rows: ${d.path} is ${d.stored} in the summary, ${d.computed} from the rows`);
  } else if (summary.weighted !== undefined) fail("edited: the summary has a weighted score and the header no scoring");
  if (summary.stopped !== undefined && (typeof summary.stopped !== "object" || summary.stopped === null || typeof summary.stopped.cause !== "string")) fail("damaged: the summary's stopped block has no cause");
  if (typeof diagnosis.available !== "boolean" || !Array.isArray(diagnosis.matches) || !Array.isArray(diagnosis.lines)) fail("damaged: the diagnosis line has no matches or lines");
  const base = diagnose(rows, options, []);
  if (diagnosis.failing !== base.failing || diagnosis.errored !== base.errored) {
    fail(`forged or edited: the diagnosis counts ${String(diagnosis.failing)} failing and ${String(diagnosis.errored)} errored rows, the rows give ${base.failing} and ${base.errored}`);
  }
}

/** The first place a stored value differs from the recomputed one: a path and both, a tally as "passed/rows (percent)". */
function firstDifference(stored: unknown, computed: unknown, path: string): { path: string; stored: string; computed: string } | undefined {
  const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null;
  const isTally = (v: unknown) => isObject(v) && "passed" in v && "rows" in v && "percent" in v;
  const text = (v: unknown) => (isTally(v) ? `${String((v as Record<string, unknown>).passed)}/${String((v as Record<string, unknown>).rows)} passed (${String((v as Record<string, unknown>).percent)}%)` : v === undefined ? "absent" : JSON.stringify(v));
  if (isObject(stored) && isObject(computed) && Array.isArray(stored) === Array.isArray(computed)) {
    if ((isTally(stored) || isTally(computed)) && JSON.stringify(stored) !== JSON.stringify(computed)) {
      // a tally with extra or missing fields reads the same as text: name the field instead
      if (text(stored) !== text(computed)) return { path, stored: text(stored), computed: text(computed) };
    }
    for (const key of new Set([...Object.keys(stored), ...Object.keys(computed)])) {
      const d = firstDifference(stored[key], computed[key], path ? `${path}.${key}` : key);
      if (d) return d;
    }
    return undefined;
  }
  return Object.is(stored, computed) ? undefined : { path, stored: text(stored), computed: text(computed) };
}

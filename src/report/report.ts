import { readFileSync } from "node:fs";
import { join } from "node:path";
import { PACKAGE_ROOT } from "../corpus/load.js";
import type { Diagnosis } from "../judge/diagnosis.js";
import type { RowResult, Status } from "../run/outcome.js";
import type { Level, ProfileName, Section, Tier } from "../corpus/rows.js";
import type { Implementation } from "../subjects/protocol.js";
import type { ToolLint } from "../subjects/mcp/lint.js";
import { formatPercent, percentOf, type Scores } from "../judge/scoring.js";
import type { WeightedScore, Weighting } from "../judge/weighting.js";

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
//
// This module says what a report is; build-report.ts makes one from a run (reproduction.ts gives a
// row's), format-report.ts signs and writes it, read-report.ts reads it back and checks it.

export const REPORT_FORMAT = "tool-conformance-report";
export const REPORT_VERSION = 1;
/** A signed report's version: a line follows the footer, so a reader of version 1 is told to upgrade rather than that it is cut off. */
export const SIGNED_REPORT_VERSION = 2;
export const SIGNATURE_ALGORITHM = "hmac-sha256";

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
  /**
   * An MCP server's tools as tools/list advertises them, linted (src/subjects/mcp/lint.ts): the
   * tools with findings, empty when none has any; absent for any other subject. Information for
   * the server's author: no score, status or exit code depends on it, and readers recompute nothing from it.
   */
  lint?: ToolLint[];
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

/** How many points the fresh part may trail the corpus part before a report is flagged (a table of the public answers passes the corpus, not fresh cases). */
export const FRESH_GAP = 25;

/**
 * Every flag for the grader a report carries: those `grade` wrote (summary.flags), and a fresh part
 * far below the corpus part, recomputed from the scores. Shown in every report and the class table.
 */
export function flagsOf(report: Report): string[] {
  const flags = [...(report.summary.flags ?? [])];
  const { fresh, corpus } = report.summary.scores.byPart ?? {};
  // judged on the rows that ran: an errored row (never run, interrupted, past the budget) is no part's 0%
  const ran = (part: { passed: number; failed: number }) => part.passed + part.failed;
  if (fresh && corpus && ran(fresh) > 0 && ran(corpus) > 0) {
    const freshPercent = percentOf(fresh.passed, ran(fresh));
    const corpusPercent = percentOf(corpus.passed, ran(corpus));
    if (corpusPercent - freshPercent >= FRESH_GAP) flags.push(`FLAGGED: fresh part ${formatPercent(freshPercent)} far below corpus part ${formatPercent(corpusPercent)}`);
  }
  return flags;
}

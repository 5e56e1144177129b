import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { PACKAGE_ROOT } from "./corpus.js";
import type { Diagnosis } from "./diagnosis.js";
import type { RowResult, ScoreOptions, Status } from "./outcome.js";
import type { Implementation } from "./protocol.js";
import { instanceTextOf, LEVELS, schemaTextOf, type Level, type ProfileName, type Row, type Section, type SimpleStep, type Step, type Tier } from "./rows.js";
import type { Run } from "./runner.js";
import { clipText, shellQuote } from "./reporters/text.js";
import { score, statusAt, type Scores } from "./scoring.js";

// The report of one scoring run, as JSON Lines:
//
//   {"kind":"header", ...}      format and version, tool, subject, profile, level, tiers, filters, corpus size
//   {"kind":"row", ...}         one line per row, in corpus order
//   {"kind":"diagnosis", ...}   the pitfalls that explain the failures
//   {"kind":"summary", ...}     the scores
//   {"kind":"footer", "rows": N, "finishedAt": ...}
//
// The footer comes last and repeats the row count, so a report cut off anywhere (a killed job,
// a full disk, a truncated artifact) is detected: readReport refuses it. Files are written to a
// temporary name and renamed, so a half-written report never sits under the final name.

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
  const rows = run.results.map((result): ReportRow => {
    const levels = Object.fromEntries(LEVELS.map((level) => [level, statusAt(result, { level, tiers: options.tiers })])) as Record<Level, Status>;
    // a passing check's actual is its expected: keep only what a reader needs
    const checks = result.checks.map((check) => (check.pass ? { level: check.level, tier: check.tier, what: check.what, pass: true, expected: undefined, actual: undefined } : check));
    return { kind: "row", ...result, checks, levels };
  });
  return {
    header,
    rows,
    diagnosis: { kind: "diagnosis", available: options.diagnosed ?? true, ...options.diagnosis },
    summary: { kind: "summary", scores: options.scores, ms: run.ms },
    footer: { kind: "footer", rows: rows.length, finishedAt: run.finishedAt },
  };
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

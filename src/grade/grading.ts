import { constants } from "node:os";
import type { Report } from "../report/report.js";
import { oneLine } from "../report/reporters/text.js";
import type { BuildSandbox, Ending } from "./process.js";
import type { Template } from "./template.js";
import type { WorkCopies } from "./workcopy.js";

// What grading works with: the files it writes, a submission, the options, each submission's
// outcome, and how a command's ending is told.

/** Files grade writes beside the submission folders under --out. */
export const CLASS_FILES = ["class.csv", "class.md"] as const;
export const REPORT_FILE = "report.jsonl";
export const BUILD_LOG = "build.log";
export const SCORE_LOG = "score.log";
/** What a submission was graded with: its commands and the scoring options; a report is kept only under the same. */
export const SETTINGS_FILE = "grade.json";
/** A log is cut after this many bytes of output. */
export const MAX_LOG_BYTES = 1024 * 1024;
/** How long the check of the scoring options may take. */
export const PREFLIGHT_MS = 120_000;

/** A problem with the grade's own inputs: one line, exit 2. */
export class GradeUsageError extends Error {
  override name = "GradeUsageError";
}

export interface Submission {
  name: string;
  /** Absolute path of its folder. */
  dir: string;
}

export interface GradeOptions {
  submissions: Submission[];
  out: string;
  subject: Template;
  build?: Template;
  buildTimeoutMs: number;
  scoreTimeoutMs: number;
  parallel: number;
  /** --jobs for each score. */
  jobs: number;
  /** Scoring options passed through to every score, as words (`--tier=core`). */
  scoreArgs: string[];
  /** Reporters beside json for each submission. */
  reporters: string[];
  force: boolean;
  /** Set: only these submissions are graded (again, whatever they hold); every other keeps the report it has. */
  only?: readonly string[];
  /** The sandbox the build runs in (score gets its own through scoreArgs). */
  sandbox?: BuildSandbox;
  /** Where a sandboxed build runs: a capped copy of the submission, which is then scored (workcopy.ts). */
  copies?: WorkCopies;
  key?: Uint8Array;
  /** This package's dist/cli/main.js. */
  main: string;
}

export type Outcome = (
  /** A whole, verified report (the run may have stopped early: report.summary.stopped says why). */
  | { name: string; status: "graded" | "kept"; report: Report; path: string; ms: number }
  /** No usable report: score 0, and why. */
  | { name: string; status: "failed"; reason: string; path: string; ms: number }
) & {
  /** Set when the submission carries this package's files (fingerprint.ts): shown in the class table. */
  flag?: string;
};

/**
 * What the class table needs of a verified report: its header, diagnosis and summary, not its rows
 * (a class of bloated reports is then held in memory one report at a time, while it is checked).
 */
export function summaryOf(report: Report): Report {
  return { ...report, rows: [] };
}

/** How a command ended, in words: `exit code 2`, `killed by SIGKILL`. */
export function describe(ending: Ending, what: string, signalAsExitCode = false): string {
  if (ending.kind !== "exited") return `${what} could not run: ${ending.reason}`;
  if (ending.signal) return `killed by ${ending.signal}`;
  if (signalAsExitCode && ending.code !== null && ending.code > 128) {
    const name = Object.entries(constants.signals).find(([, n]) => n === ending.code! - 128)?.[0];
    if (name) return `killed by ${name}`;
  }
  return `exit code ${String(ending.code)}`;
}

export function lastLine(text: string): string {
  const lines = text.split("\n").map((l) => l.trim()).filter((l) => l && !l.startsWith("wrote "));
  return oneLine(lines[lines.length - 1] ?? "").slice(0, 300);
}

/** A time limit in words: `90 s`, `2 min`. */
export function duration(ms: number): string {
  if (ms % 60_000 === 0) return `${ms / 60_000} min`;
  if (ms % 1000 === 0) return `${ms / 1000} s`;
  return `${ms} ms`;
}

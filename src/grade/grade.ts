import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { constants, tmpdir } from "node:os";
import { join, resolve, sep } from "node:path";
import { classTable, type ClassTable } from "../cli/commands/merge.js";
import { verifyReportFile, type Report, type ReportHeader } from "../harness/report.js";
import { oneLine } from "../harness/reporters/text.js";
import { SandboxError } from "../harness/sandbox/index.js";
import { formatPercent } from "../harness/scoring.js";
import { buildPlan, runSupervised, type BuildSandbox, type Ending } from "./process.js";
import type { Template } from "./template.js";

// `grade`: every immediate subfolder of a folder is one submission. For each, the build (if any)
// runs in its folder, then `score` runs as a child process with the report under OUT/NAME; the
// class table is written from every submission's report, or its reason for having none.
// A submission whose report is already there, whole, verified and scored with today's settings,
// is kept: an interrupted grade, run again, does only what is left.

/** Files grade writes beside the submission folders under --out. */
export const CLASS_FILES = ["class.csv", "class.md"] as const;
export const REPORT_FILE = "report.jsonl";
export const BUILD_LOG = "build.log";
export const SCORE_LOG = "score.log";
/** What a submission was graded with: its commands and the scoring options; a report is kept only under the same. */
export const SETTINGS_FILE = "grade.json";
/** A log is cut after this many bytes of output. */
const MAX_LOG_BYTES = 1024 * 1024;
/** How long the check of the scoring options may take. */
const PREFLIGHT_MS = 120_000;

/** A problem with the grade's own inputs: one line, exit 2. */
export class GradeUsageError extends Error {
  override name = "GradeUsageError";
}

export interface Submission {
  name: string;
  /** Absolute path of its folder. */
  dir: string;
}

/** The submissions: every immediate subfolder, hidden ones aside, in natural order (s2 before s10). */
export function listSubmissions(root: string, out: string): Submission[] {
  const dir = resolve(root);
  let entries: string[];
  try {
    if (!statSync(dir).isDirectory()) throw new GradeUsageError(`${root}: not a folder (give the folder holding one subfolder per submission)`);
    entries = readdirSync(dir);
  } catch (error) {
    if (error instanceof GradeUsageError) throw error;
    const code = (error as { code?: string }).code;
    throw new GradeUsageError(`${root}: ${code === "ENOENT" ? "no such folder" : code === "EACCES" ? "permission denied" : String(error)}`);
  }
  const outDir = resolve(out);
  if (outDir === dir || outDir.startsWith(dir + sep)) {
    throw new GradeUsageError(`--out ${out} is inside ${root}: its folder would be taken for a submission; put the grades elsewhere`);
  }
  const names = entries
    .filter((name) => !name.startsWith("."))
    .filter((name) => {
      try {
        return statSync(join(dir, name)).isDirectory();
      } catch {
        return false;
      }
    })
    .sort((a, b) => a.localeCompare(b, "en", { numeric: true }) || (a < b ? -1 : a > b ? 1 : 0));
  if (names.length === 0) throw new GradeUsageError(`${root}: no submission in it (each submission is a subfolder; hidden ones are skipped)`);
  const clash = names.find((name) => (CLASS_FILES as readonly string[]).includes(name));
  if (clash) throw new GradeUsageError(`${join(root, clash)}: a submission cannot be named ${clash}, the class table's file under --out; rename the folder`);
  return names.map((name) => ({ name, dir: join(dir, name) }));
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
  /** The sandbox the build runs in (score gets its own through scoreArgs). */
  sandbox?: BuildSandbox;
  key?: Uint8Array;
  /** This package's dist/cli/main.js. */
  main: string;
}

export type Outcome =
  /** A whole, verified report (the run may have stopped early: report.summary.stopped says why). */
  | { name: string; status: "graded" | "kept"; report: Report; path: string; ms: number }
  /** No usable report: score 0, and why. */
  | { name: string; status: "failed"; reason: string; path: string; ms: number };

/** What a report must share with today's run to be kept: the settings that change the rows or their verdicts. */
function settingsOf(header: ReportHeader): string {
  return JSON.stringify([header.profile, header.level, header.tiers, header.filters, header.corpus]);
}

/**
 * Runs score once against a subject that cannot start, with every scoring option the class will
 * get: a bad option stops the grade before any submission (with score's own message), and the
 * report's header is what each kept report must match.
 */
export async function preflight(options: Pick<GradeOptions, "main" | "scoreArgs" | "key">, submission: Submission): Promise<ReportHeader> {
  const scratch = mkdtempSync(join(tmpdir(), "tool-conformance-grade-"));
  try {
    const log = join(scratch, SCORE_LOG);
    writeFileSync(log, "");
    const argv = [process.execPath, options.main, "score", "--subject=exit 0", "--label=preflight", `--submission=${submission.dir}`, `--out=${scratch}`, "--reporter=json", "--min-score=0", "--no-progress", ...options.scoreArgs];
    const ending = await runSupervised(argv, { limitMs: PREFLIGHT_MS, logFile: log, maxLogBytes: MAX_LOG_BYTES });
    const verified = verifyReportFile(join(scratch, REPORT_FILE), options.key ? { key: options.key } : {});
    if (verified.ok) return verified.report.header;
    const said = lastLine(readFileSync(log, "utf8")).replace(/^tool-conformance: /, "");
    if (ending.kind === "exited" && ending.code === 2 && said) throw new GradeUsageError(said);
    throw new GradeUsageError(`the scoring options could not be checked: ${said || describe(ending, "score")}`);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** Grades every submission, `parallel` at a time; resolves with one outcome per submission, in their order. */
export async function gradeAll(options: GradeOptions, expected: ReportHeader, onDone: (outcome: Outcome, index: number) => void): Promise<Outcome[]> {
  const outcomes: Outcome[] = new Array(options.submissions.length);
  let next = 0;
  const worker = async () => {
    while (next < options.submissions.length) {
      const index = next++;
      const submission = options.submissions[index]!;
      let outcome: Outcome;
      try {
        outcome = await gradeOne(submission, options, expected);
      } catch (error) {
        // whatever goes wrong with one submission (its folder under --out made unwritable, say) is its line only
        const reason = `not graded: ${error instanceof Error ? error.message : String(error)}`;
        outcome = { name: submission.name, status: "failed", reason, path: join(options.out, submission.name, REPORT_FILE), ms: 0 };
      }
      outcomes[index] = outcome;
      onDone(outcome, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(options.parallel, options.submissions.length) }, worker));
  return outcomes;
}

/** The report a submission already has, if it can be kept: whole, verified, its own, scored with these settings. */
export function keptReport(submission: Submission, options: Pick<GradeOptions, "out" | "key" | "subject" | "build" | "scoreArgs" | "sandbox">, expected: ReportHeader): Report | undefined {
  const path = join(options.out, submission.name, REPORT_FILE);
  if (!existsSync(path)) return undefined;
  const verified = verifyReportFile(path, options.key ? { key: options.key } : {});
  if (!verified.ok) return undefined;
  const header = verified.report.header;
  if (header.subject.label !== submission.name || settingsOf(header) !== settingsOf(expected)) return undefined;
  let recorded: string;
  try {
    recorded = readFileSync(join(options.out, submission.name, SETTINGS_FILE), "utf8");
  } catch {
    return undefined;
  }
  return recorded === settingsRecord(submission, options) ? verified.report : undefined;
}

/** The commands and options a submission is graded with, as the text of its grade.json. */
function settingsRecord(submission: Submission, options: Pick<GradeOptions, "subject" | "build" | "scoreArgs" | "sandbox">): string {
  const values = { dir: submission.dir, name: submission.name };
  const record = { subject: options.subject.fill(values), build: options.build?.fill(values) ?? null, sandbox: options.sandbox?.mode ?? null, score: options.scoreArgs };
  return JSON.stringify(record, null, 2) + "\n";
}

async function gradeOne(submission: Submission, options: GradeOptions, expected: ReportHeader): Promise<Outcome> {
  const started = Date.now();
  const folder = join(options.out, submission.name);
  const reportPath = join(folder, REPORT_FILE);
  const elapsed = () => Date.now() - started;
  if (!options.force) {
    const kept = keptReport(submission, options, expected);
    if (kept) return { name: submission.name, status: "kept", report: kept, path: reportPath, ms: elapsed() };
  }
  // an earlier report must not stand for this attempt if it fails
  rmSync(reportPath, { force: true });
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, SETTINGS_FILE), settingsRecord(submission, options));
  const values = { dir: submission.dir, name: submission.name };
  const failed = (reason: string): Outcome => ({ name: submission.name, status: "failed", reason, path: reportPath, ms: elapsed() });

  if (options.build) {
    const log = join(folder, BUILD_LOG);
    const command = options.build.fill(values);
    writeFileSync(log, `$ ${command}\n(in ${submission.dir}${options.sandbox && options.sandbox.mode !== "none" ? `, ${options.sandbox.mode} sandbox` : ""}, started ${new Date().toISOString()})\n`);
    let plan;
    try {
      plan = buildPlan(command, submission.dir, options.sandbox);
    } catch (error) {
      if (!(error instanceof SandboxError)) throw error;
      return failed(`build could not run: ${error.message}`);
    }
    const ending = await runSupervised(plan.argv, { cwd: plan.cwd, ...(plan.env ? { env: plan.env } : {}), limitMs: options.buildTimeoutMs, logFile: log, maxLogBytes: MAX_LOG_BYTES });
    const how = describe(ending, "build", plan.signalAsExitCode);
    appendFileSync(log, `\n(${how}, ${(ending.ms / 1000).toFixed(1)} s)\n`);
    if (!(ending.kind === "exited" && ending.code === 0 && !ending.timedOut)) {
      const what = ending.kind === "exited" && ending.timedOut ? `build timed out after ${duration(options.buildTimeoutMs)}` : `build failed: ${how}`;
      return failed(`${what} (see ${log})`);
    }
  }

  const log = join(folder, SCORE_LOG);
  writeFileSync(log, "");
  const argv = [
    process.execPath,
    options.main,
    "score",
    `--subject=${options.subject.fill(values)}`,
    `--label=${submission.name}`,
    // the subject runs in the submission's folder, as the build does (under bwrap, the only folder it sees)
    `--submission=${submission.dir}`,
    `--out=${folder}`,
    `--reporter=${["json", ...options.reporters.filter((r) => r !== "json")].join(",")}`,
    "--min-score=0",
    "--no-progress",
    `--jobs=${options.jobs}`,
    ...options.scoreArgs,
  ];
  const ending = await runSupervised(argv, { limitMs: options.scoreTimeoutMs, logFile: log, maxLogBytes: MAX_LOG_BYTES });
  const verified = verifyReportFile(reportPath, options.key ? { key: options.key } : {});
  if (ending.kind === "exited" && ending.timedOut) return failed(`timed out: scoring took longer than ${duration(options.scoreTimeoutMs)} (see ${log})`);
  if (verified.ok) return { name: submission.name, status: "graded", report: verified.report, path: reportPath, ms: elapsed() };
  const said = lastLine(readFileSync(log, "utf8"));
  return failed(`no report (${verified.reason}); score ${describe(ending, "score")}${said ? `: ${said}` : ""} (see ${log})`);
}

/** How a command ended, in words: `exit code 2`, `killed by SIGKILL`. */
function describe(ending: Ending, what: string, signalAsExitCode = false): string {
  if (ending.kind !== "exited") return `${what} could not run: ${ending.reason}`;
  if (ending.signal) return `killed by ${ending.signal}`;
  if (signalAsExitCode && ending.code !== null && ending.code > 128) {
    const name = Object.entries(constants.signals).find(([, n]) => n === ending.code! - 128)?.[0];
    if (name) return `killed by ${name}`;
  }
  return `exit code ${String(ending.code)}`;
}

function lastLine(text: string): string {
  const lines = text.split("\n").map((l) => l.trim()).filter((l) => l && !l.startsWith("wrote "));
  return oneLine(lines[lines.length - 1] ?? "").slice(0, 300);
}

/** A time limit in words: `90 s`, `2 min`. */
export function duration(ms: number): string {
  if (ms % 60_000 === 0) return `${ms / 60_000} min`;
  if (ms % 1000 === 0) return `${ms / 1000} s`;
  return `${ms} ms`;
}

/** The progress line of one finished submission. */
export function progressLine(outcome: Outcome, done: number, total: number, width: number, cwd = process.cwd()): string {
  const counter = `[${String(done).padStart(String(total).length)}/${total}]`;
  const name = oneLine(outcome.name).padEnd(width);
  const time = `${(outcome.ms / 1000).toFixed(1)} s`;
  if (outcome.status === "failed") return `${counter} ${name}  0%  ${oneLine(relativeIn(outcome.reason, cwd))}  ${time}`;
  const percent = formatPercent(outcome.report.summary.scores.total.percent);
  const stopped = outcome.report.summary.stopped;
  const note = outcome.status === "kept" ? "  (kept: graded by an earlier run)" : "";
  return `${counter} ${name}  ${percent}${stopped ? `  ${oneLine(stopped.cause)}` : ""}${note}${outcome.status === "kept" ? "" : `  ${time}`}`;
}

function relativeIn(text: string, cwd: string): string {
  return text.replaceAll(cwd + sep, "");
}

/** The class table: one line per submission, in their order; a submission without a report scores 0 with its reason. */
export function gradeTable(outcomes: readonly Outcome[]): ClassTable {
  const table = classTable(outcomes.map((o) => (o.status === "failed" ? { path: o.path, reason: o.reason } : { path: o.path, report: o.report })));
  // merge names a refused report by its path; here every line is a submission, named by its folder
  table.lines.forEach((line, i) => (line.label = outcomes[i]!.name));
  return table;
}

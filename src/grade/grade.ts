import { appendFileSync, existsSync, lstatSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { constants, tmpdir } from "node:os";
import { join, resolve, sep } from "node:path";
import { classTable, type ClassTable } from "../report/class-table.js";
import { createHash } from "node:crypto";
import { PACKAGE_ROOT } from "../corpus/load.js";
import { SUBJECT_TEXT_CAPS, subjectText, verifyReportFile, writeReport, type Report, type ReportHeader, type ReportRow } from "../report/report.js";
import { REPORT_FILES } from "../report/reporters/names.js";
import { oneLine } from "../report/reporters/text.js";
import { SandboxError, sandboxOwner } from "../subjects/sandbox/index.js";
import { formatPercent } from "../judge/scoring.js";
import { carriedFiles, describeCarried } from "./fingerprint.js";
import { buildPlan, runSupervised, type BuildSandbox, type Ending } from "./process.js";
import type { Template } from "./template.js";
import type { WorkCopies } from "./workcopy.js";
import { makeDirectory } from "../report/directory.js";

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
 * A report whose run was spoilt on the grader's side (a spawn that failed for want of processes
 * or memory, a sandbox that could not be set up): not the student's score. It is not kept, and a
 * rerun grades the submission again.
 */
export function harnessFailure(report: Report): string | undefined {
  // only what the grader's own code recorded (the operating system's errno, bwrap's status):
  // never words in a row's error or stderr, which the subject writes
  const fault = report.summary.stopped?.graderFault ?? report.rows.find((row) => row.graderFault !== undefined)?.graderFault;
  return fault === undefined ? undefined : oneLine(fault);
}

/** What a report must share with today's run to be kept: the settings that change the rows, their verdicts or the score. */
function settingsOf(header: ReportHeader): string {
  return JSON.stringify([header.profile, header.level, header.tiers, header.filters, header.corpus, header.scoring ?? null]);
}

/** A submission's folder is hashed up to this many files. */
const MAX_HASHED_FILES = 50_000;

/**
 * The SHA-256 of what a folder (or file) holds: every file's path, size and bytes, and every
 * symlink's target, in sorted order. What decides that a kept report graded these very files.
 */
export function contentHash(path: string): string {
  const hash = createHash("sha256");
  const visit = (at: string, name: string, depth: number, count: { files: number }) => {
    let stat;
    try {
      stat = lstatSync(at);
    } catch {
      hash.update(`missing ${name}\0`);
      return;
    }
    if (stat.isSymbolicLink()) hash.update(`link ${name} ${readlinkSync(at)}\0`);
    else if (stat.isFile()) {
      if (++count.files > MAX_HASHED_FILES) return;
      hash.update(`file ${name} ${stat.size}\0`);
      hash.update(readFileSync(at));
    } else if (stat.isDirectory() && depth < 64) {
      hash.update(`dir ${name}\0`);
      for (const entry of readdirSync(at).sort()) visit(join(at, entry), name === "" ? entry : `${name}/${entry}`, depth + 1, count);
    }
  };
  visit(path, "", 0, { files: 0 });
  return hash.digest("hex");
}

/** The files other than the submission that decide its score: the corpus, and a --corpus, --weights or --jsts named in the scoring options. */
function gradingInputs(scoreArgs: readonly string[]): string {
  const named = scoreArgs.flatMap((word) => {
    const match = /^--(corpus|weights|jsts)=(.*)$/.exec(word);
    return match && match[2] !== "default" ? [resolve(match[2]!)] : [];
  });
  return JSON.stringify([join(PACKAGE_ROOT, "conformance", "corpus"), ...named].map((path) => contentHash(path)));
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
export function keptReport(submission: Submission, options: Pick<GradeOptions, "out" | "key" | "subject" | "build" | "scoreArgs" | "sandbox">, expected: ReportHeader, inputs = gradingInputs(options.scoreArgs)): Report | undefined {
  const path = join(options.out, submission.name, REPORT_FILE);
  if (!existsSync(path)) return undefined;
  const verified = verifyReportFile(path, options.key ? { key: options.key } : {});
  if (!verified.ok || harnessFailure(verified.report) !== undefined) return undefined;
  const header = verified.report.header;
  if (header.subject.label !== submission.name || settingsOf(header) !== settingsOf(expected)) return undefined;
  let recorded: SettingsRecord;
  try {
    recorded = JSON.parse(readFileSync(join(options.out, submission.name, SETTINGS_FILE), "utf8")) as SettingsRecord;
  } catch {
    return undefined;
  }
  const today = settingsRecord(submission, options, [], inputs);
  const { files, ...settings } = recorded;
  if (!Array.isArray(files) || JSON.stringify(settings) !== JSON.stringify({ ...today, files: undefined })) return undefined;
  // the files as graded: before the build, or after it (a build run in place leaves its output there)
  return files.includes(contentHash(submission.dir)) ? summaryOf(verified.report) : undefined;
}

/** What a submission was graded with (its grade.json): its commands, the scoring options, the corpus and other inputs, and the hashes of its files. */
interface SettingsRecord {
  subject: string;
  build: string | null;
  sandbox: string | null;
  score: string[];
  inputs: string;
  files: string[] | undefined;
}

function settingsRecord(submission: Submission, options: Pick<GradeOptions, "subject" | "build" | "scoreArgs" | "sandbox">, files: string[], inputs: string): SettingsRecord {
  const values = { dir: submission.dir, name: submission.name };
  return { subject: options.subject.fill(values), build: options.build?.fill(values) ?? null, sandbox: options.sandbox?.mode ?? null, score: options.scoreArgs, inputs, files };
}

function writeSettings(folder: string, record: SettingsRecord): void {
  writeFileSync(join(folder, SETTINGS_FILE), JSON.stringify(record, null, 2) + "\n");
}

/** The reporters asked for that a kept report does not have yet, rendered from its report.jsonl (the `report` command). */
async function renderMissing(folder: string, options: Pick<GradeOptions, "reporters" | "main" | "scoreArgs">): Promise<string | undefined> {
  const missing = options.reporters.filter((r) => r !== "json" && r in REPORT_FILES && !existsSync(join(folder, REPORT_FILES[r as keyof typeof REPORT_FILES])));
  return missing.length === 0 ? undefined : renderReports(folder, missing, options);
}

/** Renders reporters from a submission's report.jsonl with the `report` command; undefined when done, else why not. */
async function renderReports(folder: string, reporters: readonly string[], options: Pick<GradeOptions, "main" | "scoreArgs">): Promise<string | undefined> {
  if (reporters.length === 0) return undefined;
  const log = join(folder, "report.log");
  writeFileSync(log, "");
  // the report carries its own scoring; what the reporters need besides is the key and Gradescope's options
  const passed = options.scoreArgs.filter((word) => /^--(key|gradescope-[a-z-]+)(=|$)/.test(word));
  const argv = [process.execPath, options.main, "report", join(folder, REPORT_FILE), `--reporter=${reporters.join(",")}`, `--out=${folder}`, ...passed];
  const ending = await runSupervised(argv, { limitMs: PREFLIGHT_MS, logFile: log, maxLogBytes: MAX_LOG_BYTES });
  if (ending.kind === "exited" && ending.code === 0) return undefined;
  return `${reporters.join(", ")} not rendered: ${lastLine(readFileSync(log, "utf8")) || describe(ending, "report")} (see ${log})`;
}

async function gradeOne(submission: Submission, options: GradeOptions, expected: ReportHeader): Promise<Outcome> {
  const started = Date.now();
  const folder = join(options.out, submission.name);
  const reportPath = join(folder, REPORT_FILE);
  const elapsed = () => Date.now() - started;
  const flagged = () => {
    const carried = carriedFiles(submission.dir);
    return carried ? { flag: describeCarried(carried) } : {};
  };
  const inputs = gradingInputs(options.scoreArgs);
  if (options.only && !options.only.includes(submission.name)) {
    // left out by --only: it keeps the report it has, whatever it graded
    const verified = existsSync(reportPath) ? verifyReportFile(reportPath, options.key ? { key: options.key } : {}) : undefined;
    if (verified?.ok) return { name: submission.name, status: "kept", report: summaryOf(verified.report), path: reportPath, ms: elapsed(), ...flagged() };
    return { name: submission.name, status: "failed", reason: "not graded: left out by --only, and it has no report", path: existingOf(folder), ms: elapsed() };
  }
  if (!options.force && !options.only) {
    const kept = keptReport(submission, options, expected, inputs);
    if (kept) {
      const unrendered = await renderMissing(folder, options);
      return { name: submission.name, status: "kept", report: kept, path: reportPath, ms: elapsed(), ...flagged(), ...(unrendered ? { flag: [flagged().flag, unrendered].filter(Boolean).join("; ") } : {}) };
    }
  }
  // an earlier report must not stand for this attempt if it fails
  rmSync(reportPath, { force: true });
  makeDirectory(folder);
  const before = contentHash(submission.dir);
  writeSettings(folder, settingsRecord(submission, options, [], inputs));
  const failed = (reason: string): Outcome => ({ name: submission.name, status: "failed", reason, path: existingOf(folder), ms: elapsed() });
  // under the sandbox every submission is graded from a copy owned by its sandbox's uid: the build writes
  // into it (capped), never into the submission, and the copy is what is scored
  let work = submission.dir;
  if (options.copies) {
    try {
      work = options.copies.make(submission.name, submission.dir, sandboxOwner);
    } catch (error) {
      return failed(`build could not run: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  try {
    const outcome = await buildAndScore(submission, { ...options, work, attempt: before }, { started, folder, reportPath, failed });
    // kept next time only while the submission holds the same files (as before the build, or as the build left them)
    if (outcome.status === "graded") writeSettings(folder, settingsRecord(submission, options, [...new Set([before, contentHash(submission.dir)])], inputs));
    return outcome;
  } finally {
    if (work !== submission.dir) options.copies!.drop(work);
  }
}

/** What a class table line without a report points at: the submission's logs, else its folder; never a report that is not there. */
function existingOf(folder: string): string {
  for (const file of [REPORT_FILE, BUILD_LOG, SCORE_LOG]) if (existsSync(join(folder, file))) return join(folder, file);
  return folder;
}

async function buildAndScore(
  submission: Submission,
  options: GradeOptions & { work: string; attempt: string },
  at: { started: number; folder: string; reportPath: string; failed: (reason: string) => Outcome },
): Promise<Outcome> {
  const { started, folder, reportPath, failed } = at;
  const elapsed = () => Date.now() - started;
  const values = { dir: options.work, name: submission.name };
  const flagged = () => {
    const carried = carriedFiles(options.work);
    return carried ? { flag: describeCarried(carried) } : {};
  };

  if (options.build) {
    const log = join(folder, BUILD_LOG);
    const command = options.build.fill(values);
    writeFileSync(log, `$ ${command}\n(in ${options.work === submission.dir ? submission.dir : `a copy of ${submission.dir} (${options.copies!.kind === "tmpfs" ? "capped by --build-disk and --build-files" : "not capped: nothing could be mounted"})`}${options.sandbox && options.sandbox.mode !== "none" ? `, ${options.sandbox.mode} sandbox` : ""}, started ${new Date().toISOString()})\n`);
    let plan;
    try {
      plan = buildPlan(command, options.work, options.sandbox);
    } catch (error) {
      if (!(error instanceof SandboxError)) throw error;
      return failed(`build could not run: ${error.message}`);
    }
    const ending = await runSupervised(plan.argv, { cwd: plan.cwd, ...(plan.env ? { env: plan.env } : {}), limitMs: options.buildTimeoutMs, logFile: log, maxLogBytes: MAX_LOG_BYTES });
    const how = describe(ending, "build", plan.signalAsExitCode);
    appendFileSync(log, `\n(${how}, ${(ending.ms / 1000).toFixed(1)} s)\n`);
    if (!(ending.kind === "exited" && ending.code === 0 && !ending.timedOut)) {
      const what = ending.kind === "exited" && ending.timedOut ? `build timed out after ${duration(options.buildTimeoutMs)}` : `build failed: ${how}`;
      // the student's build failed: the student's 0%, with the build's log in every report they read
      if (ending.kind === "exited") return buildFailed(submission, options, { folder, reportPath, failed, started }, what, log);
      return failed(`${what} (see ${log})`);
    }
  }

  const flag = flagged();
  // a copy of this package found in the submission is kept in the student's signed report too
  const flagArgs = flag.flag ? [`--flag=${flag.flag}`] : [];
  const log = join(folder, SCORE_LOG);
  writeFileSync(log, "");
  const argv = [
    process.execPath,
    options.main,
    "score",
    `--subject=${options.subject.fill(values)}`,
    `--label=${submission.name}`,
    // the subject runs in the submission's folder (its built copy), as the build does (under bwrap, the only folder it sees)
    `--submission=${options.work}`,
    `--out=${folder}`,
    `--reporter=${["json", ...options.reporters.filter((r) => r !== "json")].join(",")}`,
    "--min-score=0",
    "--no-progress",
    `--jobs=${options.jobs}`,
    // the student's rerun line builds the subject first, as the grade did
    ...(options.build ? [`--rerun-build=${options.build.fill(values)}`] : []),
    // each version of the submission gets generated cases of its own (fresh.ts): none a student copied out comes back
    `--attempt=${options.attempt}`,
    ...flagArgs,
    ...options.scoreArgs,
  ];
  const ending = await runSupervised(argv, { limitMs: options.scoreTimeoutMs, logFile: log, maxLogBytes: MAX_LOG_BYTES });
  const verified = verifyReportFile(reportPath, options.key ? { key: options.key } : {});
  if (ending.kind === "exited" && ending.timedOut) return failed(`timed out: scoring took longer than ${duration(options.scoreTimeoutMs)} (see ${log})`);
  if (verified.ok) {
    const spoilt = harnessFailure(verified.report);
    if (spoilt === undefined) return { name: submission.name, status: "graded", report: summaryOf(verified.report), path: reportPath, ms: elapsed(), ...flag };
    // not the student's score: set aside, so that a rerun grades it again
    renameSync(reportPath, join(folder, "report.harness-failure.jsonl"));
    return { ...failed(`not graded: the grader failed (${spoilt}); run the same command again to grade it`), ...flag };
  }
  const said = lastLine(readFileSync(log, "utf8"));
  return { ...failed(`no report (${verified.reason}); score ${describe(ending, "score")}${said ? `: ${said}` : ""} (see ${log})`), ...flag };
}

/**
 * A build that failed is the student's: a whole report scoring 0 (every row unanswered), its cause
 * the build's failure and the end of the build log in the place of the subject's stderr, and every
 * reporter asked for rendered from it. Scored by `score` with every scoring option and a subject
 * that cannot start, so the report is the class's in every other respect.
 */
async function buildFailed(
  submission: Submission,
  options: GradeOptions & { work: string },
  at: { started: number; folder: string; reportPath: string; failed: (reason: string) => Outcome },
  what: string,
  log: string,
): Promise<Outcome> {
  const { folder, reportPath, failed } = at;
  const scoreLog = join(folder, SCORE_LOG);
  writeFileSync(scoreLog, "");
  const argv = [process.execPath, options.main, "score", "--subject=exit 1", `--label=${submission.name}`, `--submission=${options.work}`, `--out=${folder}`, "--reporter=json", "--min-score=0", "--no-progress", "--jobs=1", ...options.scoreArgs];
  const ending = await runSupervised(argv, { limitMs: options.scoreTimeoutMs, logFile: scoreLog, maxLogBytes: MAX_LOG_BYTES });
  const verified = verifyReportFile(reportPath, options.key ? { key: options.key } : {});
  if (!verified.ok) return failed(`${what} (see ${log}); its report could not be written (${verified.reason}; score ${describe(ending, "score")})`);
  const tail = subjectText(readFileSync(log, "utf8"), SUBJECT_TEXT_CAPS.check);
  // every row carries the build's cause (reporters then say it once), and no rerun line: rerunning a
  // row cannot help until the build succeeds
  const cause = `the ${what} (build.log); nothing was scored`;
  const rows = verified.report.rows.map(({ repro, ...row }): ReportRow => {
    if (!repro) return { ...row, error: cause };
    const { rerun: _, ...kept } = repro;
    return { ...row, error: cause, repro: kept };
  });
  const diagnosis = { ...verified.report.diagnosis, lines: [`no diagnosis: nothing was scored, the ${what}`] };
  const report: Report = { ...verified.report, rows, diagnosis, summary: { ...verified.report.summary, stopped: { cause, stderr: tail, log: BUILD_LOG } } };
  writeReport(reportPath, report, options.key ? { key: options.key } : {});
  const unrendered = await renderReports(folder, options.reporters.filter((r) => r !== "json"), options);
  return { name: submission.name, status: "graded", report: summaryOf(report), path: reportPath, ms: Date.now() - at.started, ...(unrendered ? { flag: unrendered } : {}) };
}

/**
 * What the class table needs of a verified report: its header, diagnosis and summary, not its rows
 * (a class of bloated reports is then held in memory one report at a time, while it is checked).
 */
function summaryOf(report: Report): Report {
  return { ...report, rows: [] };
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
  if (outcome.status === "failed") return `${counter} ${name}  0%  ${oneLine(relativeIn(outcome.reason, cwd))}${outcome.flag ? `  ${outcome.flag}` : ""}  ${time}`;
  // the report's headline, under its scoring: the same number as the class table and every report
  const percent = formatPercent(outcome.report.summary.weighted?.percent ?? outcome.report.summary.scores.total.percent);
  const stopped = outcome.report.summary.stopped;
  const note = `${outcome.status === "kept" ? "  (kept: graded by an earlier run)" : ""}${outcome.flag ? `  ${outcome.flag}` : ""}`;
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
  // what the grade noticed beside the report (a report's own flags are in its line already)
  table.lines.forEach((line, i) => {
    const flag = outcomes[i]!.flag;
    if (flag && !line.diagnosis.includes(flag)) line.diagnosis = `${flag}; ${line.diagnosis}`;
  });
  return table;
}

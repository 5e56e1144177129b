import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve, sep } from "node:path";
import { classTable, type ClassTable } from "../report/class-table.js";
import { makeDirectory } from "../report/directory.js";
import { verifyReportFile } from "../report/read-report.js";
import type { ReportHeader } from "../report/report.js";
import { oneLine } from "../report/reporters/text.js";
import { sandboxOwner } from "../subjects/sandbox/index.js";
import { formatPercent } from "../judge/scoring.js";
import { buildAndScore, renderMissing } from "./build-and-score.js";
import { carriedFiles, describeCarried } from "./fingerprint.js";
import { BUILD_LOG, CLASS_FILES, describe, GradeUsageError, lastLine, MAX_LOG_BYTES, PREFLIGHT_MS, REPORT_FILE, SCORE_LOG, summaryOf, type GradeOptions, type Outcome, type Submission } from "./grading.js";
import { contentHash, gradingInputs, keptReport, settingsRecord, writeSettings } from "./kept.js";
import { runSupervised } from "./process.js";

export { CLASS_FILES, GradeUsageError, type GradeOptions, type Outcome, type Submission } from "./grading.js";
export { harnessFailure } from "./kept.js";

// `grade`: every immediate subfolder of a folder is one submission. For each, the build (if any)
// runs in its folder, then `score` runs as a child process with the report under OUT/NAME; the
// class table is written from every submission's report, or its reason for having none.
// A submission whose report is already there, whole, verified and scored with today's settings,
// is kept: an interrupted grade, run again, does only what is left.

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


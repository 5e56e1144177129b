import { existsSync } from "node:fs";
import { join } from "node:path";
import { baselineMismatch, regressions } from "../report/baseline.js";
import { headlineScore, type Gate } from "../report/gate.js";
import { markRunStarted, type SignOptions } from "../report/format-report.js";
import { verifyReportFile } from "../report/read-report.js";
import { type Report } from "../report/report.js";
import { makeDirectory } from "../report/directory.js";
import { renderGithubActions } from "../report/reporters/github-actions.js";
import type { GradescopeOptions } from "../report/reporters/gradescope.js";
import { REPORT_FILES, type ReporterName } from "../report/reporters/names.js";
import { renderTerminal, paintFor } from "../report/reporters/terminal.js";
import { noWorkflowCommands, oneLine } from "../report/reporters/text.js";
import { writeReportFiles } from "../report/write-reports.js";
import type { RowTheReferenceFails } from "../harness/private-rows.js";
import type { ProfileName } from "../corpus/rows.js";
import type { ScoreOptions } from "../run/outcome.js";
import { writeFailure } from "./arguments.js";
import { EXIT, UsageError } from "./errors.js";
import { restoreTerminal, SIGNAL_CODES } from "./interrupt.js";

// What `score` prints and writes once a report is made, and the exit code it means.

export interface Output {
  reporters: ReporterName[];
  out: string;
  /** report.jsonl goes to stdout, which then carries nothing else. */
  jsonToStdout: boolean;
  sign: SignOptions;
  gradescope: GradescopeOptions;
}

/**
 * Writes the report in every chosen form: files under --out (or report.jsonl to stdout), the
 * terminal summary (to stderr when stdout carries the JSON lines), the GitHub Actions annotations.
 * A file that cannot be written is a usage error (exit 2).
 */
export async function emitReports(report: Report, output: Output, quiet = false, gate?: Gate): Promise<string[]> {
  let written: string[];
  try {
    written = await writeReportFiles(report, output.reporters, { out: output.out, sign: output.sign, gradescope: output.gradescope, ...(gate ? { gate } : {}), ...(output.jsonToStdout ? { jsonTo: (text: string) => process.stdout.write(text) } : {}) });
  } catch (error) {
    throw new UsageError(`cannot write the reports under --out ${output.out}: ${writeFailure(error)}`);
  }
  if (quiet) return written;
  const files = written.filter((file) => !file.endsWith("($GITHUB_STEP_SUMMARY)"));
  const terminal = output.jsonToStdout ? process.stderr : process.stdout;
  if (output.reporters.includes("terminal")) terminal.write(renderTerminal(report, { paint: paintFor(terminal), files }));
  if (output.reporters.includes("github-actions")) process.stdout.write(renderGithubActions(report, gate ? { gate } : {}));
  const err = paintFor(process.stderr);
  for (const file of written) process.stderr.write(`${err("dim", "wrote")} ${file}\n`);
  return written;
}

/** Writes an interrupted run's reports, says so in one line, and returns the signal's exit code. */
export async function reportInterrupted(report: Report, rowsSelected: number, output: Output): Promise<number> {
  const signal = report.summary.stopped!.interrupted!;
  restoreTerminal();
  const written = await emitReports(report, output, true);
  const whole = join(output.out, REPORT_FILES.json);
  const kept = output.reporters.includes("json") && !output.jsonToStdout && existsSync(whole) && verifyReportFile(whole).ok ? `; ${whole} still holds the last whole run` : "";
  const where = written.length > 0 ? `, reports of them written (${written.join(", ")}), marked interrupted${kept}` : output.jsonToStdout ? ", their report on stdout, marked interrupted" : "";
  process.stderr.write(`tool-conformance: interrupted (${signal}): ${report.summary.stopped!.answered ?? 0} of ${rowsSelected} rows answered${where}\n`);
  return SIGNAL_CODES[signal] ?? 130;
}

/** With the report's JSON lines on stdout, nothing else may go there; with --out -, no file either. */
export function checkStdoutReporters(reporters: ReporterName[], outIsStdout: boolean): void {
  if (reporters.includes("github-actions")) throw new UsageError("--reporter github-actions writes to stdout, which carries the report's JSON lines here (--out - or --reporter json=-): give --out DIR instead");
  const files = reporters.filter((r) => r !== "terminal" && r !== "json");
  if (outIsStdout && files.length > 0) throw new UsageError(`--out - sends report.jsonl to stdout; ${files.join(", ")} need a folder: give --out DIR with --reporter json=-`);
}

/** The exit code of a whole run: 1 when a row does not pass (without --min-score) or the score is below it. */
export function scoreVerdict(report: Report, minScore: number | undefined, reporters: ReporterName[]): number {
  const total = report.summary.scores.total;
  const stopped = report.summary.stopped;
  if (minScore === undefined) {
    if (total.passed === total.rows) return EXIT.ok;
    // like a test runner: without a threshold, any row that does not pass fails the run;
    // rows the budget left unanswered are no lower score to accept: the advice is the budget's
    const unrun = stopped ? report.rows.filter((r) => r.status === "errored" && r.error?.startsWith(stopped.cause)).length : 0;
    const advice = unrun > 0 ? `${stopped!.cause} with ${unrun} of them unanswered: give a longer --budget, or fewer rows (--filter, --tier)` : "set --min-score to accept a lower score";
    process.stderr.write(`tool-conformance: ${total.rows - total.passed} of ${total.rows} rows did not pass (${advice})\n`);
    return EXIT.failed;
  }
  // the headline: rows passed over rows, or the score under the grader's weighting
  const { exact, shown } = headlineScore(report);
  if (exact < minScore) {
    process.stderr.write(`tool-conformance: score ${shown} is below --min-score ${minScore}%\n`);
    return EXIT.failed;
  }
  if (!reporters.includes("terminal") && !reporters.includes("github-actions")) process.stderr.write(`score ${shown} (--min-score ${minScore}%: ok)\n`);
  return EXIT.ok;
}

/** A baseline scored with other settings is not comparable row for row: refused before the run (exit 2). */
export function checkBaselineSettings(baseline: Report, path: string, run: ScoreOptions & { profile: ProfileName }): void {
  const mismatch = baselineMismatch(baseline, run);
  if (mismatch) throw new UsageError(`--baseline ${path} ${mismatch}: score the baseline with the same settings`);
}

/** Rows that passed in the baseline and do not pass now: printed; exit 1 when there is one. */
export function checkBaseline(report: Report, baseline: Report, path: string): number {
  const { regressed, compared } = regressions(report, baseline);
  if (regressed.length === 0) {
    process.stderr.write(`baseline ${path}: no regression (${compared} rows compared)\n`);
    return EXIT.ok;
  }
  const paint = paintFor(process.stderr);
  process.stderr.write(`tool-conformance: ${regressed.length} row${regressed.length === 1 ? "" : "s"} passed in the baseline ${path} and ${regressed.length === 1 ? "fails" : "fail"} now:\n`);
  for (const row of regressed) process.stderr.write(noWorkflowCommands(`  ${paint("red", "✗")} ${oneLine(row.id)} (${row.status}${row.error ? `: ${oneLine(row.error)}` : ""})`) + "\n");
  return EXIT.failed;
}

/** Names each --corpus row the reference fails; then, unless `trust`, stops the run (exit 2). */
export function reportPrivateRows(failing: RowTheReferenceFails[], run: number, dir: string, trust: boolean): void {
  if (failing.length === 0) return;
  const paint = paintFor(process.stderr);
  for (const row of failing) {
    process.stderr.write(noWorkflowCommands(`  ${trust ? paint("yellow", "!") : paint("red", "✗")} --corpus row ${oneLine(row.id)}${row.source ? ` (${row.source})` : ""}: the reference fails it: ${row.answer}`) + "\n");
  }
  const rowsText = `${failing.length} of ${run} --corpus row${run === 1 ? "" : "s"}`;
  if (trust) {
    process.stderr.write(`tool-conformance: ${rowsText} the reference fails: scored as written (--trust-private)\n`);
    return;
  }
  const one = failing.length === 1;
  throw new UsageError(`${rowsText} under ${dir} disagree${one ? "s" : ""} with the reference (listed above): fix ${one ? "it" : "them"}, or give --trust-private if ${one ? "it encodes" : "they encode"} a choice of your own`);
}

/**
 * A whole report already under --out (the last good run, perhaps the --baseline) is kept until this
 * run's is whole; anything else is replaced by a "started" marker, so a run killed outright leaves
 * "incomplete" rather than a stale file that reads as this run's.
 */
export function markStarted(out: string): void {
  const reportPath = join(out, REPORT_FILES.json);
  try {
    makeDirectory(out);
    if (!verifyReportFile(reportPath).ok) markRunStarted(reportPath, new Date().toISOString());
  } catch (error) {
    throw new UsageError(`cannot write the reports under --out ${out}: ${writeFailure(error)}`);
  }
}

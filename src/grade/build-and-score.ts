import { appendFileSync, existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SUBJECT_TEXT_CAPS, subjectText } from "../report/build-report.js";
import { writeReport } from "../report/format-report.js";
import { verifyReportFile } from "../report/read-report.js";
import type { Report, ReportRow } from "../report/report.js";
import { REPORT_FILES } from "../report/reporters/names.js";
import { SandboxError } from "../subjects/sandbox/index.js";
import { carriedFiles, describeCarried } from "./fingerprint.js";
import { BUILD_LOG, describe, duration, lastLine, MAX_LOG_BYTES, PREFLIGHT_MS, REPORT_FILE, SCORE_LOG, summaryOf, type GradeOptions, type Outcome, type Submission } from "./grading.js";
import { harnessFailure } from "./kept.js";
import { buildPlan, runSupervised } from "./process.js";

// One submission's attempt: its build (sandboxed when asked), then score as a child process; a
// failed build is the student's 0% with its log in every report; the reporters a kept report lacks.

/** The reporters asked for that a kept report does not have yet, rendered from its report.jsonl (the `report` command). */
export async function renderMissing(folder: string, options: Pick<GradeOptions, "reporters" | "main" | "scoreArgs">): Promise<string | undefined> {
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

export async function buildAndScore(
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

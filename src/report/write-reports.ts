import { join } from "node:path";
import { formatReport, writeReport, type SignOptions } from "./format-report.js";
import { writeFileAtomic } from "./directory.js";
import { type Report } from "./report.js";
import type { Gate } from "./gate.js";
import { writeStepSummary } from "./reporters/github-actions.js";
import { formatGradescope, type GradescopeOptions } from "./reporters/gradescope.js";
import { renderHtml } from "./reporters/html.js";
import { renderMarkdown } from "./reporters/markdown.js";
import { REPORT_FILES, type ReporterName } from "./reporters/names.js";
import { noWorkflowCommands } from "./reporters/text.js";

/** Where an interrupted run's report.jsonl goes: beside the last whole report, which it never replaces. */
export const INTERRUPTED_REPORT_FILE = "report.interrupted.jsonl";

export interface WriteReportsOptions {
  /** The folder of the report files. */
  out: string;
  /** report.jsonl goes to stdout (`write`) instead of a file. */
  jsonTo?: (text: string) => void;
  sign?: SignOptions;
  gradescope?: GradescopeOptions;
  env?: Record<string, string | undefined>;
  /** Why the run's gate fails (--min-score, --baseline), for the step summary. */
  gate?: Gate;
  /** The report.jsonl the rendered files link to, when it is not written here (report renders an existing one). */
  reportFile?: string;
}

/**
 * Writes a report's files for the chosen reporters (terminal and github-actions write none, but the
 * step summary): each whole or not at all, every text a subject wrote kept from giving a CI runner
 * commands. Returns what was written; throws the file system's error.
 */
export async function writeReportFiles(report: Report, reporters: readonly ReporterName[], options: WriteReportsOptions): Promise<string[]> {
  // the XML writer loads only when asked for
  const junit = reporters.includes("junit") ? (await import("./reporters/junit.js")).renderJUnit : undefined;
  // an interrupted run's report is written beside the last whole one, never over it
  const jsonName = report.summary.stopped?.interrupted !== undefined ? INTERRUPTED_REPORT_FILE : REPORT_FILES.json;
  const reportFile = options.reportFile ?? (reporters.includes("json") && !options.jsonTo ? join(options.out, jsonName) : undefined);
  const linked = { ...(reportFile ? { reportFile } : {}), ...(options.gate ? { gate: options.gate } : {}) };
  const written: string[] = [];
  for (const reporter of reporters) {
    if (reporter === "terminal" || reporter === "github-actions") continue;
    if (reporter === "json" && options.jsonTo) {
      options.jsonTo(formatReport(report, options.sign ?? {}));
      continue;
    }
    const file = join(options.out, reporter === "json" ? jsonName : REPORT_FILES[reporter]);
    if (reporter === "json") writeReport(file, report, options.sign ?? {});
    // a CI runner that prints a report file (cat summary.md) must not obey a line the subject wrote
    else if (reporter === "junit") writeFileAtomic(file, noWorkflowCommands(junit!(report)));
    else if (reporter === "markdown") writeFileAtomic(file, noWorkflowCommands(renderMarkdown(report, linked)));
    else if (reporter === "html") writeFileAtomic(file, noWorkflowCommands(renderHtml(report, reportFile ? { reportFile } : {})));
    else if (reporter === "gradescope") writeFileAtomic(file, noWorkflowCommands(formatGradescope(report, options.gradescope)));
    written.push(file);
  }
  if (reporters.includes("github-actions")) {
    const summary = writeStepSummary(report, options.env ?? process.env, linked);
    if (summary) written.push(`${summary} ($GITHUB_STEP_SUMMARY)`);
  }
  return written;
}

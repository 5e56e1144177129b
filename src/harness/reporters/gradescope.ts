import type { Report, ReportRow } from "../report.js";
import { clip, countsLine, differences, failingRows, fraction, optionsOf, reasonOf, sectionsOf, settingsLine, subjectLine } from "./common.js";

// Gradescope's autograder results.json (https://gradescope-autograders.readthedocs.io/en/latest/specs/):
// a top-level score, output and visibility, and a list of tests, each with score, max_score,
// name, number, status, output, tags and visibility. Points are spread over the rows: the whole
// run is worth `points` (default 100), each row points/rows, so a test's max_score is its share.

export type Visibility = "visible" | "hidden" | "after_due_date" | "after_published";
export const VISIBILITIES: readonly Visibility[] = ["visible", "hidden", "after_due_date", "after_published"];

export interface GradescopeOptions {
  /** One test per section (default) or one per row. */
  per?: "section" | "row";
  /** Total points of the run (default 100). */
  points?: number;
  /** Test visibility (Gradescope's default is "visible"). */
  visibility?: Visibility;
  /** Visibility of the autograder's stdout (Gradescope's default: hidden from students). */
  stdoutVisibility?: Visibility;
  /** Failing rows listed in a section test's output before "… and N more" (default 25). */
  maxListed?: number;
}

export interface GradescopeTest {
  score: number;
  max_score: number;
  name: string;
  number: string;
  status: "passed" | "failed";
  output: string;
  output_format: "text";
  tags: string[];
  visibility?: Visibility;
}

export interface GradescopeResults {
  score: number;
  execution_time: number;
  output: string;
  output_format: "text";
  visibility?: Visibility;
  stdout_visibility?: Visibility;
  tests: GradescopeTest[];
  extra_data: Record<string, unknown>;
}

export function renderGradescope(report: Report, options: GradescopeOptions = {}): GradescopeResults {
  const points = options.points ?? 100;
  const total = report.rows.length;
  const each = total === 0 ? 0 : points / total;
  const opts = optionsOf(report);
  const visibility = options.visibility ? { visibility: options.visibility } : {};
  const maxListed = options.maxListed ?? 25;
  const tests: GradescopeTest[] = [];

  if ((options.per ?? "section") === "section") {
    sectionsOf(report).forEach((section, i) => {
      const rows = report.rows.filter((row) => row.section === section);
      const tally = report.summary.scores.sections[section]!.total;
      const failing = rows.filter((row) => row.status !== "passed");
      const listed = failing.slice(0, maxListed).map((row) => `✗ ${row.id}\n${detailOf(row, opts)}`);
      if (failing.length > maxListed) listed.push(`… and ${failing.length - maxListed} more`);
      tests.push({
        score: round(tally.passed * each),
        max_score: round(rows.length * each),
        name: section,
        number: String(i + 1),
        status: failing.length === 0 ? "passed" : "failed",
        output: [`${fraction(tally)} rows passed (${countsLine(tally)})`, ...listed].join("\n\n"),
        output_format: "text",
        tags: [section],
        ...visibility,
      });
    });
  } else {
    const numbers = new Map<string, number>();
    const sections = sectionsOf(report);
    for (const row of report.rows) {
      const n = (numbers.get(row.section) ?? 0) + 1;
      numbers.set(row.section, n);
      tests.push({
        score: row.status === "passed" ? round(each) : 0,
        max_score: round(each),
        name: `${row.section}: ${row.id}`,
        number: `${sections.indexOf(row.section) + 1}.${n}`,
        status: row.status === "passed" ? "passed" : "failed",
        output: row.status === "passed" ? "passed" : detailOf(row, opts),
        output_format: "text",
        tags: [row.section, row.tier, ...row.pitfalls],
        ...visibility,
      });
    }
  }

  const t = report.summary.scores.total;
  const diagnosis = report.diagnosis.lines.length > 0 ? report.diagnosis.lines : ["no diagnosis"];
  return {
    score: round((t.passed / Math.max(1, t.rows)) * points),
    execution_time: Math.round(report.summary.ms / 1000),
    output: [
      `${subjectLine(report)}: ${fraction(t)} rows passed (${countsLine(t)})`,
      settingsLine(report),
      "",
      "Diagnosis:",
      ...diagnosis.map((line) => `- ${line}`),
      ...(failingRows(report).length > 0 ? ["", "Each failing row is listed with its expected and actual answer in the tests below."] : []),
    ].join("\n"),
    output_format: "text",
    ...visibility,
    ...(options.stdoutVisibility ? { stdout_visibility: options.stdoutVisibility } : {}),
    tests,
    extra_data: {
      tool: report.header.tool,
      profile: report.header.profile,
      level: report.header.level,
      tiers: report.header.tiers,
      percent: t.percent,
      diagnosis: report.diagnosis.matches.map((m) => m.id),
    },
  };
}

export function formatGradescope(report: Report, options?: GradescopeOptions): string {
  return JSON.stringify(renderGradescope(report, options), null, 2) + "\n";
}

function detailOf(row: ReportRow, options: ReturnType<typeof optionsOf>): string {
  if (row.status !== "failed") return `  ${reasonOf(row, options)}${row.stderr ? `\n  stderr: ${clip(row.stderr, 400)}` : ""}`;
  return differences(row, options)
    .slice(0, 2)
    .map((d) => `  ${d.what}\n    expected: ${clip(d.expected, 400)}\n    actual:   ${clip(d.actual, 400)}`)
    .join("\n");
}

function round(x: number): number {
  return Math.round(x * 100) / 100;
}

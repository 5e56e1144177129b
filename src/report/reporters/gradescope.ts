import { flagsOf, type Report, type ReportRow } from "../report.js";
import { countedRows, countsLine, differences, failingRows, fraction, headlineText, optionsOf, partsLine, partsOf, reasonOf, reproLines, sectionsOf, settingsLine, stoppedBeforeAnswers, stoppedText, subjectLine, weightingLines, outputText, OUTPUT_HEADING } from "./common.js";
import { isPlainRows, rowsWeighting, weightedParts, type WeightedTest } from "../../judge/weighting.js";
import { clipText, oneLine, visible } from "./text.js";

// Gradescope's autograder results.json (https://gradescope-autograders.readthedocs.io/en/latest/specs/;
// a JSON Schema of that format is in test/fixtures/schemas and the tests check against it): a
// top-level score, output and visibility, and a list of tests, each with score, max_score, status,
// name, number, output, tags and visibility.
//
// Points are counted in hundredths, so that every total adds up exactly: the run is worth `points`
// (default 100); the score is floor(passed × points / rows) to the hundredth, the same rounding as
// every percent the tool shows (with 100 points, the score is the percent). The score is spread over
// the tests that passed and the rest of the points over the tests that did not, each in proportion
// to its rows (largest remainders), so the tests' scores add up to the score, their max_scores to
// the points, and a test that passed whole scores its max_score.

export type Visibility = "visible" | "hidden" | "after_due_date" | "after_published";
export const VISIBILITIES: readonly Visibility[] = ["visible", "hidden", "after_due_date", "after_published"];

export interface GradescopeOptions {
  /** One test per section (default) or one per row. */
  per?: "section" | "row";
  /** Total points of the run (default 100); counted to the hundredth. */
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

/** A group of rows that becomes one Gradescope test. */
interface Group {
  name: string;
  number: string;
  rows: ReportRow[];
  tags: string[];
}

export function renderGradescope(report: Report, options: GradescopeOptions = {}): GradescopeResults {
  const cents = Math.round((options.points ?? 100) * 100);
  const opts = optionsOf(report);
  const visibility = options.visibility ? { visibility: options.visibility } : {};
  const maxListed = options.maxListed ?? 25;
  const t = report.summary.scores.total;
  const scoreCents = t.rows === 0 ? cents : Math.floor((t.passed * cents) / t.rows);

  const counted = countedRows(report);
  const groups: Group[] = [];
  let earned: number[];
  let lost: number[];
  let totalCents = scoreCents;
  if ((options.per ?? "section") === "section") {
    // one test per section, its points fixed by the weighting and the rows counted (the same for
    // every student), generated cases a test of their own when the run has any
    const scoring = report.header.scoring ?? rowsWeighting();
    const { parts, fraction: exact } = weightedParts(report.rows, opts, scoring, cents);
    const fresh = counted.filter((row) => row.part === "fresh");
    parts.forEach((part, i) =>
      groups.push(
        part.name === "generated"
          ? { name: "generated cases", number: String(i + 1), rows: fresh, tags: ["generated"] }
          : { name: part.name, number: String(i + 1), rows: counted.filter((row) => row.section === part.name && row.part !== "fresh"), tags: [part.name] },
      ),
    );
    // rows passed over rows keeps its exact percent: the points of the tests partly passed absorb the rounding
    const target = isPlainRows(scoring) ? (report.header.scoring ? Math.floor(exact * cents + 1e-7) : scoreCents) : parts.reduce((a, p) => a + p.earned, 0);
    const got = settle(parts, target);
    earned = got;
    lost = parts.map((p, i) => p.max - got[i]!);
    totalCents = got.reduce((a, b) => a + b, 0);
  } else {
    // one test per row (rows passed over rows only): each passed row gets its share of the score
    const numbers = new Map<string, number>();
    const sections = sectionsOf(report);
    for (const row of counted) {
      const n = (numbers.get(row.section) ?? 0) + 1;
      numbers.set(row.section, n);
      groups.push({ name: `${row.section}: ${oneLine(row.id)}`, number: `${sections.indexOf(row.section) + 1}.${n}`, rows: [row], tags: [row.section, row.tier, ...row.pitfalls] });
    }
    const passed = groups.map((g) => g.rows.filter((row) => row.status === "passed").length);
    const notPassed = groups.map((g, i) => g.rows.length - passed[i]!);
    earned = apportion(scoreCents, passed);
    lost = apportion(cents - scoreCents, notPassed);
  }

  const tests = groups.map((group, i): GradescopeTest => {
    const failing = group.rows.filter((row) => row.status !== "passed");
    let output: string;
    if (stoppedBeforeAnswers(report)) output = "not run: the submission stopped before it answered (the reason is at the top of this page)";
    else if (options.per === "row") output = failing.length === 0 ? "passed" : detailOf(report, failing[0]!, opts);
    else {
      const count = (status: string) => group.rows.filter((row) => row.status === status).length;
      const tally = { rows: group.rows.length, passed: count("passed"), failed: count("failed"), errored: count("errored"), skipped: count("skipped"), percent: 0 };
      const listed = failing.slice(0, maxListed).map((row) => `✗ ${oneLine(row.id)}\n${detailOf(report, row, opts)}`);
      if (failing.length > maxListed) listed.push(`… and ${failing.length - maxListed} more`);
      output = [`${fraction(tally)} rows passed (${countsLine(tally)})`, ...listed].join("\n\n");
    }
    return {
      score: earned[i]! / 100,
      max_score: (earned[i]! + lost[i]!) / 100,
      name: group.name,
      number: group.number,
      status: failing.length === 0 ? "passed" : "failed",
      output,
      output_format: "text",
      tags: group.tags,
      ...visibility,
    };
  });

  const stopped = stoppedText(report);
  const diagnosis = report.diagnosis.lines.length > 0 ? report.diagnosis.lines.map(oneLine) : ["no diagnosis"];
  return {
    score: totalCents / 100,
    execution_time: Math.round(report.summary.ms / 10) / 100,
    output: [
      `${subjectLine(report)}: ${headlineText(report)}, ${fraction(t)} rows passed (${countsLine(t)})`,
      settingsLine(report),
      ...(partsLine(report) ? [partsLine(report)!] : []),
      ...weightingLines(report),
      ...(stopped
        ? ["", `The run stopped: ${stopped.cause}`, ...(stopped.stderr ? ["", `The end of ${stopped.from}:`, stopped.stderr] : []), "", "Every row it did not answer counts as errored."]
        : []),
      ...flagsOf(report).flatMap((flag) => ["", oneLine(flag)]),
      ...(outputText(report) ? ["", `${OUTPUT_HEADING}:`, outputText(report)!] : []),
      "",
      "Diagnosis:",
      ...diagnosis.map((line) => `- ${line}`),
      ...(failingRows(report).length > 0 && !stopped ? ["", "Each failing row is listed in the tests below: why it matters, what it sends, expected against actual, and the command that reruns it."] : []),
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
      percent: report.summary.weighted?.percent ?? t.percent,
      ...(report.summary.weighted ? { rowsPercent: t.percent, scoring: report.header.scoring?.name } : {}),
      ...(partsOf(report).length > 0 ? { parts: Object.fromEntries(partsOf(report).map((part) => [part, report.summary.scores.byPart[part]!.percent])) } : {}),
      diagnosis: report.diagnosis.matches.map((m) => m.id),
      ...(report.summary.stopped ? { stopped: true } : {}),
    },
  };
}

export function formatGradescope(report: Report, options?: GradescopeOptions): string {
  return JSON.stringify(renderGradescope(report, options), null, 2) + "\n";
}

/**
 * `total` split in proportion to `weights`, in whole units, by largest remainders (ties to the
 * earlier): the parts add up to `total` exactly, and a zero weight gets zero.
 */
export function apportion(total: number, weights: readonly number[]): number[] {
  const sum = weights.reduce((a, b) => a + b, 0);
  if (sum === 0) return weights.map(() => 0);
  const parts = weights.map((w) => Math.floor((total * w) / sum));
  const order = weights.map((w, i) => ({ i, rest: (total * w) % sum })).sort((a, b) => b.rest - a.rest || a.i - b.i);
  let left = total - parts.reduce((a, b) => a + b, 0);
  for (const { i } of order) {
    if (left === 0) break;
    if (weights[i] === 0) continue;
    parts[i]!++;
    left--;
  }
  return parts;
}

/**
 * Each test's points earned, adding up to `target` when the tests partly passed can absorb the
 * rounding (a test passed whole keeps its points, one with no row passed keeps 0, a partly passed
 * one stays below its points); else as near as they allow.
 */
function settle(parts: readonly WeightedTest[], target: number): number[] {
  const exact = parts.map((p) => (p.rows === 0 ? 0 : (p.max * p.passed) / p.rows));
  const got = parts.map((p) => p.earned);
  let diff = target - got.reduce((a, b) => a + b, 0);
  const partial = parts.map((p, i) => ({ i, rest: exact[i]! - got[i]! })).filter(({ i }) => !parts[i]!.whole && parts[i]!.max > 0);
  const up = [...partial].sort((a, b) => b.rest - a.rest || a.i - b.i);
  while (diff > 0) {
    const next = up.find(({ i }) => got[i]! < parts[i]!.max - 1);
    if (!next) break;
    got[next.i]!++;
    diff--;
    up.push(up.splice(up.indexOf(next), 1)[0]!);
  }
  const down = [...partial].sort((a, b) => a.rest - b.rest || a.i - b.i);
  while (diff < 0) {
    const next = down.find(({ i }) => got[i]! > 0);
    if (!next) break;
    got[next.i]!--;
    diff++;
    down.push(down.splice(down.indexOf(next), 1)[0]!);
  }
  return got;
}

/** A failing row for a student: why, what it sends, expected against actual, and how to rerun it. */
function detailOf(report: Report, row: ReportRow, options: ReturnType<typeof optionsOf>): string {
  const lines: string[] = [];
  const repro = reproLines(row, 400);
  const rerun = repro.find((line) => line.label === "rerun");
  for (const line of repro) if (line !== rerun) lines.push(line.text.includes("\n") ? `  ${line.label}:\n${indent(line.text, 4)}` : `  ${line.label}: ${line.text}`);
  if (row.status === "failed") {
    for (const d of differences(row, options).slice(0, 2)) {
      lines.push(`  ${d.what}`, `    expected: ${clipText(d.expected, 400).replaceAll("\n", "\n              ")}`, `    actual:   ${clipText(d.actual, 400).replaceAll("\n", "\n              ")}`);
      if (d.note) lines.push(`    ${d.note}`);
    }
  } else {
    lines.push(`  ${reasonOf(row, options)}`);
    if (row.stderr) lines.push(`  stderr: ${visible(clipText(row.stderr.trimEnd(), 400)).replaceAll("\n", "\n          ")}`);
  }
  if (rerun) lines.push(`  rerun: ${rerun.text}`);
  return lines.join("\n");
}

function indent(text: string, n: number): string {
  return text
    .split("\n")
    .map((line) => `${" ".repeat(n)}${line}`)
    .join("\n");
}

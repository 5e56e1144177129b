import { isActive, tiersOfRow, type ScoreOptions } from "../../run/outcome.js";
import type { Report, ReportRow } from "../report.js";
import { PARTS, SECTIONS, TIERS, type Part, type Section, type Tier } from "../../corpus/rows.js";
import { formatPercent, type Tally } from "../../judge/scoring.js";
import { describeWeighting } from "../../judge/weighting.js";
import { clipText, oneLine, visible } from "./text.js";
import { mcpSentence } from "../mcp-words.js";

// What every reporter shows the same way: failing rows with expected against actual,
// the section × tier table, the headline.

export function optionsOf(report: Report): ScoreOptions {
  return { level: report.header.level, tiers: report.header.tiers };
}

/**
 * The rows the score counts, in corpus order: a row with no check of the chosen tiers at the
 * chosen level (a catalog-worded row in a verdict-level core run) ran but is not counted.
 */
export function countedRows(report: Report): ReportRow[] {
  const options = optionsOf(report);
  return report.rows.filter((row) => tiersOfRow(row, options).length > 0);
}

/** Rows not passed at the report's level, in corpus order. */
export function failingRows(report: Report): ReportRow[] {
  return report.rows.filter((row) => row.status !== "passed");
}

export interface Difference {
  what: string;
  /** Expected and actual for people: a list one item a line, every character visible (see `show`). */
  expected: string;
  actual: string;
  /** The same two on one line each, quoted: `["$: expected at least 2 characters, got 1"]`, `(none)`. */
  expectedInline: string;
  actualInline: string;
  /** Words beside the comparison (what a Call threw), visible. */
  note?: string;
}

/**
 * A failed row's active failing checks as text; empty for errored and skipped rows. Condensed
 * (the default), a validate or compile row shows only its most detailed failing check (the
 * exact errors say all the verdict and the paths say), and a registry row at most three.
 */
export function differences(row: ReportRow, options: ScoreOptions, condensed = true): Difference[] {
  if (row.secret) return [];
  let failing = row.checks.filter((check) => isActive(check, options) && !check.pass);
  if (condensed) {
    const stepless = failing.filter((check) => !/^step \d+/.test(check.what));
    if (stepless.length > 1) failing = failing.filter((check) => !stepless.includes(check) || check === stepless[stepless.length - 1]);
    failing = failing.slice(0, 3);
  }
  return failing.map((check) => {
    const [expected, actual] = onlyDiffering(check.expected, check.actual);
    return {
      what: oneLine(check.what),
      expected: show(expected),
      actual: show(actual),
      expectedInline: showInline(expected),
      actualInline: showInline(actual),
      ...(check.note ? { note: oneLine(check.note) } : {}),
    };
  });
}

/** Two objects reduced to the fields where they differ ({isError: true} against {isError: false}); other values as they are. */
export function onlyDiffering(expected: unknown, actual: unknown): [unknown, unknown] {
  const plain = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
  if (!plain(expected) || !plain(actual)) return [expected, actual];
  const keys = [...new Set([...Object.keys(expected), ...Object.keys(actual)])].filter((key) => JSON.stringify(expected[key]) !== JSON.stringify(actual[key]));
  if (keys.length === 0) return [expected, actual];
  const pick = (o: Record<string, unknown>) => Object.fromEntries(keys.filter((key) => key in o).map((key) => [key, o[key]]));
  return [pick(expected), pick(actual)];
}

/**
 * A value for people: a list of strings one item a line, a string as is, anything else as JSON.
 * Every character is visible: a trailing NUL shows as `\u0000`, a line break inside an item as
 * `\n`, so two different texts never read the same.
 */
export function show(value: unknown): string {
  if (value === undefined) return "(nothing)";
  if (typeof value === "string") return value === "" ? '""' : oneLine(value);
  if (Array.isArray(value) && value.every((item) => typeof item === "string")) {
    return value.length === 0 ? "(none)" : value.map((item) => (item === "" ? '""' : oneLine(item))).join("\n");
  }
  return oneLine(JSON.stringify(value) ?? String(value));
}

/** A value on one line: a string or a list of strings quoted as JSON (`"valid"`, `["$", "$.name"]`), an empty list `(none)`. */
export function showInline(value: unknown): string {
  if (value === undefined) return "(nothing)";
  if (Array.isArray(value) && value.length === 0) return "(none)";
  return oneLine(JSON.stringify(value) ?? String(value));
}

/** Shortens a text for one line of a table or a test name; every character visible. */
export function clip(text: string, max = 160): string {
  const line = visible(text).replace(/\s*\n\s*/g, " ⏎ ");
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** One line: why a row did not pass (`errors: expected ["$: …"]; actual (none)`). */
export function reasonOf(row: ReportRow, options: ScoreOptions): string {
  if (row.secret) return `${row.status === "errored" ? `errored (${oneLine(row.error ?? "no reply")})` : row.status} on a generated case testing ${oneLine(row.rule)}: its inputs and the answer are kept secret`;
  if (row.status === "errored") return `errored: ${oneLine(row.error ?? "no reply")}`;
  if (row.status === "skipped") return `not answerable: ${oneLine(row.error ?? "skipped")}`;
  const mcp = mcpReason(row, options);
  if (mcp !== undefined) return mcp;
  const first = differences(row, options)[0];
  if (!first) return "failed";
  return `${first.what}: expected ${clip(first.expectedInline, 100)}; actual ${clip(first.actualInline, 100)}`;
}

/**
 * A row's reason as a sentence naming what differs: `outcome: consistent is false where true is
 * expected; prefixed is missing`, rather than two values to compare by eye (the HTML's summary line).
 */
export function reasonInWords(row: ReportRow, options: ScoreOptions): string {
  if (row.status !== "failed") return reasonOf(row, options);
  const check = row.checks.find((c) => isActive(c, options) && !c.pass && !/^step \d+/.test(c.what)) ?? row.checks.find((c) => isActive(c, options) && !c.pass);
  if (!check) return "failed";
  return mcpSentence(row, check) ?? `${oneLine(check.what)}: ${differenceInWords(check.expected, check.actual)}`;
}

/** An MCP row's first failing check in an MCP author's words (mcp-words.ts); undefined for any other row. */
function mcpReason(row: ReportRow, options: ScoreOptions): string | undefined {
  const check = row.checks.find((c) => isActive(c, options) && !c.pass);
  return check ? mcpSentence(row, check) : undefined;
}

/** What differs between two values, in words, each value shown short. */
export function differenceInWords(expected: unknown, actual: unknown): string {
  const plain = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
  const short = (v: unknown) => clip(showInline(v), 60);
  if (plain(expected) && plain(actual)) {
    const keys = [...new Set([...Object.keys(expected), ...Object.keys(actual)])].filter((key) => JSON.stringify(expected[key]) !== JSON.stringify(actual[key]));
    if (keys.length === 0) return "the same fields, in another form";
    const words = keys.slice(0, 3).map((key) => {
      if (!(key in actual)) return `${key} is missing (${short(expected[key])} expected)`;
      if (!(key in expected)) return `${key} is ${short(actual[key])}, not expected at all`;
      return `${key} is ${short(actual[key])} where ${short(expected[key])} is expected`;
    });
    return words.join("; ") + (keys.length > 3 ? `; and ${keys.length - 3} more field${keys.length - 3 === 1 ? "" : "s"}` : "");
  }
  if (Array.isArray(expected) && Array.isArray(actual)) {
    if (expected.length !== actual.length) return `${actual.length} item${actual.length === 1 ? "" : "s"} where ${expected.length} ${expected.length === 1 ? "is" : "are"} expected (${short(actual)} against ${short(expected)})`;
    const i = expected.findIndex((item, index) => JSON.stringify(item) !== JSON.stringify(actual[index]));
    return `item ${i + 1} is ${short(actual[i])} where ${short(expected[i])} is expected`;
  }
  if (plain(expected)) return `answered ${short(actual)} where an object with ${Object.keys(expected).join(", ") || "no field"} is expected`;
  return `answered ${short(actual)} where ${short(expected)} is expected`;
}

/** A labelled text of a row's reproduction: `why`, `schema`, `arguments`, `steps`, `rerun`. */
export interface ReproLine {
  label: "why" | "schema" | "arguments" | "steps" | "rerun";
  text: string;
}

/**
 * What a student needs to reproduce a row that did not pass, each text visible and at most `max`
 * characters (with a note of what was cut): the why, the schema and argument texts (or the steps
 * of a registry row, one a line), and the command that reruns just this row.
 */
export function reproLines(row: ReportRow, max = 2_000): ReproLine[] {
  const repro = row.repro;
  if (!repro) return [];
  const text = (value: string) => clipText(oneLine(value), max);
  const lines: ReproLine[] = [{ label: "why", text: clipText(oneLine(repro.why), max) }];
  if (repro.schema !== undefined) lines.push({ label: "schema", text: text(repro.schema) });
  if (repro.instance !== undefined) lines.push({ label: "arguments", text: text(repro.instance) });
  if (repro.steps !== undefined) lines.push({ label: "steps", text: repro.steps.map((step) => clipText(visible(step, { newlines: false, tabs: false }), max)).join("\n") });
  if (repro.rerun !== undefined) lines.push({ label: "rerun", text: oneLine(repro.rerun) });
  return lines;
}

/**
 * Whether the run stopped before the subject answered anything: every row not passed errored with
 * the run's cause. Reporters then say the cause once rather than once a row.
 */
export function stoppedBeforeAnswers(report: Report): boolean {
  const stopped = report.summary.stopped;
  return stopped !== undefined && report.rows.every((row) => row.status === "errored" && row.checks.length === 0 && row.error === stopped.cause);
}

/**
 * The run stopped early: its cause and the end of the subject's stderr (or of the build's log), for
 * people; `from` names which ("the subject's stderr", "build.log").
 */
export function stoppedText(report: Report, maxStderr = 2_000): { cause: string; stderr?: string; from: string } | undefined {
  const stopped = report.summary.stopped;
  if (!stopped) return undefined;
  const stderr = stopped.stderr?.trimEnd();
  const from = stopped.log !== undefined ? oneLine(stopped.log) : "the subject's stderr";
  return { cause: oneLine(stopped.cause), from, ...(stderr ? { stderr: visible(stderr.length > maxStderr ? `…${stderr.slice(-maxStderr)}` : stderr) } : {}) };
}

/** What the subject wrote on stderr in a run that did not stop (a template's prints), for people. */
export function outputText(report: Report, maxText = 2_000): string | undefined {
  const output = report.summary.output?.trimEnd();
  if (!output) return undefined;
  return visible(output.length > maxText ? `${output.slice(0, maxText)}…` : output);
}

/** The heading shown above outputText. */
export const OUTPUT_HEADING = "What the implementation wrote on stderr (its prints, kept off the protocol)";

export function fraction(tally: Tally): string {
  return `${tally.passed}/${tally.rows}`;
}

export function percent(tally: Tally): string {
  return formatPercent(tally.percent);
}

/** Sections present in the report, in the seed's order. */
export function sectionsOf(report: Report): Section[] {
  return SECTIONS.filter((section) => report.summary.scores.sections[section] !== undefined);
}

/** Tiers present in the report, in order. */
export function tiersOf(report: Report): Tier[] {
  return TIERS.filter((tier) => report.summary.scores.byTier[tier] !== undefined);
}

/**
 * The parts a report's rows come from, when there is more than the shipped corpus (a grader's
 * private rows, generated ones); empty otherwise, so a plain corpus run reads as before.
 */
export function partsOf(report: Report): Part[] {
  const byPart = report.summary.scores.byPart ?? {};
  const present = PARTS.filter((part) => byPart[part] !== undefined);
  return present.some((part) => part !== "corpus") ? present : [];
}

/** "by part: corpus 100% (572/572) · private 66.66% (2/3)", or undefined when the rows are the corpus's alone. */
export function partsLine(report: Report): string | undefined {
  const parts = partsOf(report);
  if (parts.length === 0) return undefined;
  return `by part: ${parts.map((part) => { const t = report.summary.scores.byPart[part]!; return `${part} ${formatPercent(t.percent)} (${fraction(t)})`; }).join(" · ")}`;
}

/** "mutant:s03 (in-process, typescript)", "python3 adapter.py — my-registry (1.2, python)". */
export function subjectLine(report: Report): string {
  const { label, implementation } = report.header.subject;
  if (!implementation) return oneLine(label);
  // a subject that never completed its handshake has no language to tell ("unknown")
  const about = [implementation.version, implementation.language === "unknown" ? "" : implementation.language].filter(Boolean).join(", ");
  if (implementation.name === label) return oneLine(about ? `${label} (${about})` : label);
  return oneLine(`${label} — ${implementation.name}${about ? ` (${about})` : ""}`);
}

/** "profile ag02 · level messages · tiers core, catalog, hardening · 413 rows". */
export function settingsLine(report: Report): string {
  const h = report.header;
  const filters = [...(h.filters.sections ?? []), ...(h.filters.ids ?? [])];
  return [
    `profile ${h.profile}`,
    `level ${h.level}`,
    `tiers ${h.tiers.join(", ")}`,
    `${h.corpus.selected} of ${h.corpus.rows} rows`,
    ...(filters.length ? [`filter ${filters.join(" ")}`] : []),
  ]
    .map(oneLine)
    .join(" · ");
}

/** Counts apart: "3 failed, 1 errored, 2 not answerable". */
export function countsLine(tally: Tally): string {
  const parts = [`${tally.passed} passed`];
  if (tally.failed) parts.push(`${tally.failed} failed`);
  if (tally.errored) parts.push(`${tally.errored} errored`);
  if (tally.skipped) parts.push(`${tally.skipped} not answerable`);
  return parts.join(", ");
}

/**
 * The run's headline percent: under the header's scoring (score --scoring, --weights), its weighted
 * score; otherwise rows passed over rows. Every reporter shows this one number as the score.
 */
export function headline(report: Report): number {
  return report.summary.weighted?.percent ?? report.summary.scores.total.percent;
}

/** "98.38%", as headline. */
export function headlineText(report: Report): string {
  return formatPercent(headline(report));
}

/** A test's points for people: "12.5/25". */
export function points(cents: number): string {
  return String(cents / 100);
}

/**
 * The lines saying how the headline was scored, when not rows passed over rows: the scheme, each
 * test's points, and the rows' own score beside it. Empty for a plain run.
 */
export function weightingLines(report: Report): string[] {
  const scoring = report.header.scoring;
  const weighted = report.summary.weighted;
  if (!scoring || !weighted) return [];
  const t = report.summary.scores.total;
  const tests = weighted.parts.map((p) => `${p.name === "generated" ? "generated cases" : p.name} ${points(p.earned)}/${points(p.max)}${p.name === "generated" ? ` (${fraction({ ...t, passed: p.passed, rows: p.rows })} rows)` : p.whole ? " ✓" : " ✗"}`);
  return [
    `scored by ${describeWeighting(scoring)}`,
    `points: ${tests.join(" · ")}`,
    `tests passed whole: ${weighted.testsPassed} of ${weighted.tests} · rows passed: ${formatPercent(t.percent)} (${fraction(t)})`,
  ];
}

import { isActive, type ScoreOptions } from "../outcome.js";
import type { Report, ReportRow } from "../report.js";
import { SECTIONS, TIERS, type Section, type Tier } from "../rows.js";
import { formatPercent, type Tally } from "../scoring.js";

// What every reporter shows the same way: failing rows with expected against actual,
// the section × tier table, the headline.

export function optionsOf(report: Report): ScoreOptions {
  return { level: report.header.level, tiers: report.header.tiers };
}

/** Rows not passed at the report's level, in corpus order. */
export function failingRows(report: Report): ReportRow[] {
  return report.rows.filter((row) => row.status !== "passed");
}

export interface Difference {
  what: string;
  expected: string;
  actual: string;
}

/**
 * A failed row's active failing checks as text; empty for errored and skipped rows. Condensed
 * (the default), a validate or compile row shows only its most detailed failing check (the
 * exact errors say all the verdict and the paths say), and a registry row at most three.
 */
export function differences(row: ReportRow, options: ScoreOptions, condensed = true): Difference[] {
  let failing = row.checks.filter((check) => isActive(check, options) && !check.pass);
  if (condensed) {
    const stepless = failing.filter((check) => !/^step \d+:/.test(check.what));
    if (stepless.length > 1) failing = failing.filter((check) => !stepless.includes(check) || check === stepless[stepless.length - 1]);
    failing = failing.slice(0, 3);
  }
  return failing.map((check) => {
    const [expected, actual] = onlyDiffering(check.expected, check.actual);
    return { what: check.what, expected: show(expected), actual: show(actual) };
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

/** A value for people: a list of strings one per line, a string as is, anything else as JSON. */
export function show(value: unknown): string {
  if (value === undefined) return "(nothing)";
  if (typeof value === "string") return value === "" ? '""' : value;
  if (Array.isArray(value) && value.every((item) => typeof item === "string")) {
    return value.length === 0 ? "(none)" : value.join("\n");
  }
  return JSON.stringify(value);
}

/** Shortens a text for one line of a table or a test name. */
export function clip(text: string, max = 160): string {
  const line = text.replace(/\s*\n\s*/g, " ⏎ ");
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** One line: why a row did not pass. */
export function reasonOf(row: ReportRow, options: ScoreOptions): string {
  if (row.status === "errored") return `errored: ${row.error ?? "no reply"}`;
  if (row.status === "skipped") return `not answerable: ${row.error ?? "skipped"}`;
  const first = differences(row, options)[0];
  if (!first) return "failed";
  return `${first.what}: expected ${clip(first.expected, 80)}, got ${clip(first.actual, 80)}`;
}

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

/** "mutant:s03 (in-process, typescript)", "python3 adapter.py — my-registry (1.2, python)". */
export function subjectLine(report: Report): string {
  const { label, implementation } = report.header.subject;
  if (!implementation) return label;
  const about = [implementation.version, implementation.language].filter(Boolean).join(", ");
  if (implementation.name === label) return about ? `${label} (${about})` : label;
  return `${label} — ${implementation.name}${about ? ` (${about})` : ""}`;
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
  ].join(" · ");
}

/** Counts apart: "3 failed, 1 errored, 2 not answerable". */
export function countsLine(tally: Tally): string {
  const parts = [`${tally.passed} passed`];
  if (tally.failed) parts.push(`${tally.failed} failed`);
  if (tally.errored) parts.push(`${tally.errored} errored`);
  if (tally.skipped) parts.push(`${tally.skipped} not answerable`);
  return parts.join(", ");
}

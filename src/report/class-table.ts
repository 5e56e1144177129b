import { createHash } from "node:crypto";
import { csvCell, markdownCell, markdownText } from "./reporters/inert.js";
import { readFileSync, realpathSync } from "node:fs";
import { pitfallLabel } from "../judge/diagnosis.js";
import { flagsOf, type Report } from "./report.js";
import { withWeighting } from "./build-report.js";
import { type VerifiedReport } from "./read-report.js";
import { clipText, noWorkflowCommands, oneLine } from "./reporters/text.js";
import { PARTS, SECTIONS, type Part, type Section } from "../corpus/rows.js";
import { formatPercent } from "../judge/scoring.js";
import type { Weighting } from "../judge/weighting.js";

// The class table: one line per submission's report (its scores per section and part, its status,
// its mistakes and flags), from verified reports, as merge and grade write it (class.csv, class.md).
// A report is kept only as the class needs it (forTheClass), so a class of bloated reports fits in
// memory.

/**
 * The same report given twice (the same file, or a copy with the same bytes) would count one
 * submission twice: every repeat after the first is refused, naming the first.
 */
export function withoutDuplicates(inputs: VerifiedReport[]): VerifiedReport[] {
  const seen = new Map<string, string>();
  return inputs.map((input) => {
    if (!input.ok) return input;
    let keys: string[];
    try {
      keys = [`file:${realpathSync(input.path)}`, `bytes:${createHash("sha256").update(readFileSync(input.path)).digest("hex")}`];
    } catch {
      return input;
    }
    const first = keys.map((k) => seen.get(k)).find((p) => p !== undefined);
    if (first !== undefined) return { ok: false, path: input.path, reason: `duplicate: the same report as ${first}, given again (counted once)` };
    for (const k of keys) seen.set(k, input.path);
    return input;
  });
}

/**
 * What the class table and view need of a verified report: its header, diagnosis, summary and each
 * row's status, rule and checks' verdicts; not what the subject answered, the reproductions or stderr
 * (the bulk of a report, kept in the file for the student's own reports).
 */
export function forTheClass(verified: VerifiedReport): VerifiedReport {
  if (!verified.ok) return verified;
  const rows = verified.report.rows.map(({ repro: _repro, stderr: _stderr, checks, ...row }) => ({ ...row, checks: checks.map(({ expected: _e, actual: _a, ...check }) => ({ ...check, expected: undefined, actual: undefined })) }));
  return { ...verified, report: { ...verified.report, rows } };
}

/** One report for the class table: read and verified (its report), or refused (why). verifyReportFile returns either. */
export type ClassInput = { path: string; report: Report } | { path: string; reason: string };

export interface ClassLine {
  /** The subject's label; a refused report's path (nothing in it can be trusted). */
  label: string;
  /** The report's path, as given. */
  report: string;
  /** ok: scored. stopped: scored, but the subject could not start or kept failing (reason: the cause). refused: not scored, score 0 (reason: why). */
  status: "ok" | "stopped" | "refused";
  reason?: string;
  /** What the student's report says beside the rows (a build's failure, crashes, data races, hangs): the status of a scored line. */
  notes?: string[];
  /** Per section of the table, the percent; undefined when the report has no row of it. */
  sections: (number | undefined)[];
  /** Per part of the table, the percent; undefined when the report has no row of it. */
  parts: (number | undefined)[];
  total: number;
  passed: number;
  rows: number;
  errored: number;
  diagnosis: string;
}

export interface ClassTable {
  sections: Section[];
  /** Empty unless some report has rows beyond the shipped corpus (private, fresh): then every part present. */
  parts: Part[];
  lines: ClassLine[];
}

/**
 * The class table: one line per input, in order; a refused input is a line with score 0 and its
 * reason. Each total is the report's headline (its own scoring), or under `weighting` when given.
 */
export function classTable(given: readonly ClassInput[], weighting?: Weighting): ClassTable {
  const inputs = given.map((input): ClassInput => ("report" in input && weighting ? { path: input.path, report: withWeighting(input.report, weighting) } : input));
  const reports = inputs.flatMap((input) => ("report" in input ? [input.report] : []));
  const sections = SECTIONS.filter((s) => reports.some((report) => report.summary.scores.sections[s] !== undefined));
  const present = PARTS.filter((p) => reports.some((report) => report.summary.scores.byPart?.[p] !== undefined));
  const parts = present.some((p) => p !== "corpus") ? present : [];
  const labels = inputs.map((input) => ("report" in input ? input.report.header.subject.label : input.path));
  const lines = inputs.map((input, i): ClassLine => {
    if (!("report" in input)) {
      return { label: input.path, report: input.path, status: "refused", reason: input.reason, sections: sections.map(() => undefined), parts: parts.map(() => undefined), total: 0, passed: 0, rows: 0, errored: 0, diagnosis: "not scored" };
    }
    const { path, report } = input;
    const scores = report.summary.scores;
    const d = report.diagnosis;
    const top = d.matches[0];
    const diagnosis = !d.available
      ? "no diagnosis"
      : d.failing === 0
        ? "no failures"
        : top
          ? // every mistake named, never "+N"
            d.matches.map((m) => `${m.id} (${pitfallLabel(m.pitfall)}, ${m.title})`).join("; ") + (d.unexplained.length > 0 ? `; ${d.unexplained.length} row${d.unexplained.length === 1 ? "" : "s"} unexplained` : "")
          : d.failing - (d.crashed ?? 0) - (d.hung ?? 0) > 0
            ? "no known pitfall"
            : // every failing row a crash or a hang: the status says it; no wrong answer is left to diagnose
              "nothing else: every failing row crashed or hung";
    const flags = flagsOf(report);
    // a label shared by several submissions (the same adapter command) is told apart by its file
    const label = labels.filter((l) => l === labels[i]).length > 1 ? `${labels[i]} (${path})` : labels[i]!;
    const stopped = report.summary.stopped;
    const notes = faultsOf(report);
    return {
      label,
      report: path,
      status: stopped ? "stopped" : "ok",
      ...(stopped ? { reason: stopped.cause } : {}),
      ...(notes.length > 0 ? { notes } : {}),
      sections: sections.map((s) => scores.sections[s]?.total.percent),
      parts: parts.map((p) => scores.byPart?.[p]?.percent),
      total: report.summary.weighted?.percent ?? scores.total.percent,
      passed: scores.total.passed,
      rows: scores.total.rows,
      errored: buildFailed(report) ? 0 : scores.total.errored,
      diagnosis: [...flags, diagnosis].join("; "),
    };
  });
  return { sections, parts, lines };
}

/** Whether a report is a build's failure (grade writes it: every row unanswered, the build's log in it): nothing ran, so none of its rows is "errored". */
export function buildFailed(report: Report): boolean {
  return report.summary.stopped?.log === "build.log";
}

/** What the student's report says of their code beyond wrong answers: data races, crashes, hangs (the diagnosis's counts). */
function faultsOf(report: Report): string[] {
  const d = report.diagnosis;
  const rows = (n: number) => `${n} row${n === 1 ? "" : "s"}`;
  const raced = d.raced ?? 0;
  const crashed = (d.crashed ?? 0) - raced;
  return [
    ...(raced > 0 ? [`data race on ${rows(raced)}`] : []),
    ...(crashed > 0 ? [`crashed on ${rows(crashed)}`] : []),
    ...(d.hung ? [`hung on ${rows(d.hung)} (no answer in time)`] : []),
  ];
}

/** The status column: `ok` (or what the report says beside it: `crashed on 3 rows`), `stopped: CAUSE`, or the reason a report was refused (`cut off: …`, `missing: no such file`). */
export function statusText(line: ClassLine): string {
  if (line.status === "ok") return line.notes?.length ? line.notes.join("; ") : "ok";
  return line.status === "stopped" ? `stopped: ${line.reason ?? ""}` : (line.reason ?? "refused");
}

export function toCsv(table: ClassTable): string {
  const head = ["label", ...table.sections, ...table.parts.map((p) => `part:${p}`), "total", "passed", "rows", "errored", "status", "diagnosis", "report"];
  const percent = (p: number | undefined) => (p === undefined ? "" : String(p));
  const body = table.lines.map((l) => [l.label, ...l.sections.map(percent), ...l.parts.map(percent), String(l.total), String(l.passed), String(l.rows), String(l.errored), statusText(l), l.diagnosis, l.report]);
  return [head, ...body].map((cells) => cells.map(csvCell).join(",")).join("\r\n") + "\r\n";
}


export function toMarkdown(table: ClassTable): string {
  // labels, reasons and diagnoses come from reports and submissions: shown as text (inert.ts)
  const cell = markdownCell;
  const percent = (p: number | undefined) => (p === undefined ? "·" : formatPercent(p));
  const columns = [...table.sections, ...table.parts.map((p) => `part ${p}`)];
  const row = (cells: string[]) => `| ${cells.join(" | ")} |`;
  const out = [
    row(["submission", ...columns, "total", "status", "diagnosis"]),
    row(["---", ...columns.map(() => "---:"), "---:", "---", "---"]),
    ...table.lines.map((l) =>
      row([cell(l.label), ...[...l.sections, ...l.parts].map(percent), `**${formatPercent(l.total)}**${l.errored ? ` (${l.errored} errored)` : ""}`, cell(shortStatus(l)), cell(l.diagnosis)]),
    ),
  ];
  // a status too long for its cell is given whole below the table
  const long = table.lines.filter((l) => shortStatus(l) !== statusText(l));
  if (long.length > 0) out.push("", ...long.map((l) => `- ${markdownText(l.label)}: ${markdownText(statusText(l))}`));
  return noWorkflowCommands(out.join("\n") + "\n");
}

/** A status for a table cell: at most 80 characters (the whole text is in class.csv and below the table). */
export function shortStatus(line: ClassLine): string {
  return clipText(oneLine(statusText(line)), 80).replace(/… \([\d,]+ more characters\)$/, "…");
}

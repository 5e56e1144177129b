import { join } from "node:path";
import type { Command } from "commander";
import { pitfallLabel } from "../../harness/diagnosis.js";
import { readKeyFile, verifyReportFile, writeFileAtomic, type Report } from "../../harness/report.js";
import { noWorkflowCommands, oneLine } from "../../harness/reporters/text.js";
import { PARTS, SECTIONS, type Part, type Section } from "../../harness/rows.js";
import { formatPercent } from "../../harness/scoring.js";
import { EXIT, UsageError } from "../errors.js";
import { writeFailure } from "./score.js";

// `tool-conformance merge REPORT...`: the class table. A grader scores each submission wherever
// it runs (a CI matrix, a Kubernetes Job array, a loop), collects the report.jsonl files, and
// merges them here: one line per submission, a score per section (and per part), the total, the
// top diagnosis. Reports are untrusted (a submission's helper may outlive its run and rewrite
// them): each is read whole and checked, its scores recomputed from its rows (readReport), its
// signature verified with --key. A report that fails costs its own line only: score 0 and the
// reason, the other lines merged, exit 1.

export function register(program: Command): void {
  program
    .command("merge")
    .description(
      "merge report.jsonl files (one per submission) into a class table: class.csv and class.md under --out, the Markdown also on stdout. Every score is recomputed from the report's rows. A report that is missing, unreadable, cut off, incomplete (its run did not finish), edited so that its summary does not follow from its rows, or with --key unsigned or badly signed, gets a line with score 0 and the reason in its status; the others are merged. Exit 0 every report merged, 1 some refused (one line each on stderr), 2 usage error",
    )
    .argument("<reports...>", "report.jsonl files written by score --reporter json")
    .option("--out <dir>", "folder for class.csv and class.md", "reports")
    .option("--key <file>", "the key file score --key signed the reports with: every report must carry a valid HMAC-SHA256 signature made with it")
    .action((paths: string[], options: { out: string; key?: string }) => {
      // a bad key file stops everything (exit 2): no report could be judged with it
      const key = options.key === undefined ? undefined : readKeyFile(options.key);
      const inputs = paths.map((path) => verifyReportFile(path, key ? { key } : {}));
      const table = classTable(inputs);
      const csv = join(options.out, "class.csv");
      const md = join(options.out, "class.md");
      try {
        writeFileAtomic(csv, toCsv(table));
        writeFileAtomic(md, toMarkdown(table));
      } catch (error) {
        const reason = writeFailure(error);
        throw new UsageError(`cannot write the class table under --out ${options.out}: ${reason}`);
      }
      process.stdout.write(toMarkdown(table));
      const say = (line: string) => process.stderr.write(noWorkflowCommands(oneLine(line)) + "\n");
      const refused = table.lines.filter((line) => line.status === "refused");
      for (const line of refused) say(`tool-conformance: ${line.report}: ${line.reason} (score 0 in the class table)`);
      for (const line of table.lines.filter((l) => l.status === "stopped")) say(`tool-conformance: note: ${line.report}: the run stopped: ${line.reason}`);
      const accepted = inputs.flatMap((input) => (input.ok ? [input.report] : []));
      const settings = new Set(accepted.map(settingsKey));
      if (settings.size > 1) say(`tool-conformance: note: these reports were scored with different settings (${[...settings].join(" | ")}); their scores are not comparable`);
      process.stderr.write(`wrote ${csv}\nwrote ${md}\n`);
      if (refused.length > 0) say(`tool-conformance: ${refused.length} of ${table.lines.length} report${table.lines.length === 1 ? "" : "s"} refused`);
      process.exitCode = refused.length > 0 ? EXIT.failed : EXIT.ok;
    });
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

/** The class table: one line per input, in order; a refused input is a line with score 0 and its reason. */
export function classTable(inputs: readonly ClassInput[]): ClassTable {
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
          ? `${top.id} (${pitfallLabel(top.pitfall)}, ${top.title})${d.matches.length > 1 ? ` +${d.matches.length - 1}` : ""}`
          : "no known pitfall";
    // a label shared by several submissions (the same adapter command) is told apart by its file
    const label = labels.filter((l) => l === labels[i]).length > 1 ? `${labels[i]} (${path})` : labels[i]!;
    const stopped = report.summary.stopped;
    return {
      label,
      report: path,
      status: stopped ? "stopped" : "ok",
      ...(stopped ? { reason: stopped.cause } : {}),
      sections: sections.map((s) => scores.sections[s]?.total.percent),
      parts: parts.map((p) => scores.byPart?.[p]?.percent),
      total: scores.total.percent,
      passed: scores.total.passed,
      rows: scores.total.rows,
      errored: scores.total.errored,
      diagnosis,
    };
  });
  return { sections, parts, lines };
}

/** The status column: `ok`, `stopped: CAUSE`, or the reason a report was refused (`cut off: …`, `missing: no such file`). */
export function statusText(line: ClassLine): string {
  if (line.status === "ok") return "ok";
  return line.status === "stopped" ? `stopped: ${line.reason ?? ""}` : (line.reason ?? "refused");
}

export function toCsv(table: ClassTable): string {
  const head = ["label", ...table.sections, ...table.parts.map((p) => `part:${p}`), "total", "passed", "rows", "errored", "status", "top diagnosis", "report"];
  const percent = (p: number | undefined) => (p === undefined ? "" : String(p));
  const body = table.lines.map((l) => [l.label, ...l.sections.map(percent), ...l.parts.map(percent), String(l.total), String(l.passed), String(l.rows), String(l.errored), statusText(l), l.diagnosis, l.report]);
  return [head, ...body].map((cells) => cells.map(csvCell).join(",")).join("\r\n") + "\r\n";
}

/** RFC 4180 quoting; a text starting like a formula is prefixed with ' so a spreadsheet shows it as text. */
function csvCell(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) && !/^-?\d+(\.\d+)?$/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

export function toMarkdown(table: ClassTable): string {
  // labels and reasons come from reports: every character visible, nothing Markdown or HTML would read
  const cell = (text: string) => oneLine(text).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/\|/g, "\\|");
  const percent = (p: number | undefined) => (p === undefined ? "·" : formatPercent(p));
  const columns = [...table.sections, ...table.parts.map((p) => `part ${p}`)];
  const row = (cells: string[]) => `| ${cells.join(" | ")} |`;
  const out = [
    row(["submission", ...columns, "total", "status", "top diagnosis"]),
    row(["---", ...columns.map(() => "---:"), "---:", "---", "---"]),
    ...table.lines.map((l) =>
      row([cell(l.label), ...[...l.sections, ...l.parts].map(percent), `**${formatPercent(l.total)}**${l.errored ? ` (${l.errored} errored)` : ""}`, cell(statusText(l)), cell(l.diagnosis)]),
    ),
  ];
  return noWorkflowCommands(out.join("\n") + "\n");
}

function settingsKey(report: Report): string {
  const h = report.header;
  return `profile ${h.profile}, level ${h.level}, tiers ${h.tiers.join("+")}${h.filters.ids?.length ? `, filter ${h.filters.ids.join(" ")}` : ""}`;
}

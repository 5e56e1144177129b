import { pitfallLabel } from "../../harness/diagnosis.js";
import { join } from "node:path";
import type { Command } from "commander";
import { writeFileAtomic, type Report } from "../../harness/report.js";
import { SECTIONS, type Section } from "../../harness/rows.js";
import { formatPercent } from "../../harness/scoring.js";
import { UsageError } from "../errors.js";
import { readReportOrExplain, writeFailure } from "./score.js";

// `tool-conformance merge REPORT...`: the class table. A grader scores each submission wherever
// it runs (a CI matrix, a Kubernetes Job array, a loop), collects the report.jsonl files, and
// merges them here: one line per submission, a score per section, the total, the top diagnosis.
// Every report is read in full first; a cut-off one stops the merge (exit 2) naming the file.

export function register(program: Command): void {
  program
    .command("merge")
    .description("merge report.jsonl files (one per submission) into a class table: class.csv and class.md under --out, the Markdown also on stdout; refuses cut-off reports")
    .argument("<reports...>", "report.jsonl files written by score --reporter json")
    .option("--out <dir>", "folder for class.csv and class.md", "reports")
    .action((paths: string[], options: { out: string }) => {
      const reports = paths.map((path) => ({ path, report: readReportOrExplain(path) }));
      const table = classTable(reports);
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
      const settings = new Set(reports.map(({ report }) => settingsKey(report)));
      if (settings.size > 1) {
        process.stderr.write(`tool-conformance: note: these reports were scored with different settings (${[...settings].join(" | ")}); their scores are not comparable\n`);
      }
      process.stderr.write(`wrote ${csv}\nwrote ${md}\n`);
    });
}

export interface ClassTable {
  sections: Section[];
  lines: { label: string; report: string; sections: (number | undefined)[]; total: number; passed: number; rows: number; errored: number; diagnosis: string }[];
}

export function classTable(reports: { path: string; report: Report }[]): ClassTable {
  const sections = SECTIONS.filter((s) => reports.some(({ report }) => report.summary.scores.sections[s] !== undefined));
  const labels = reports.map(({ report }) => report.header.subject.label);
  const lines = reports.map(({ path, report }, i) => {
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
    return {
      label,
      report: path,
      sections: sections.map((s) => scores.sections[s]?.total.percent),
      total: scores.total.percent,
      passed: scores.total.passed,
      rows: scores.total.rows,
      errored: scores.total.errored,
      diagnosis,
    };
  });
  return { sections, lines };
}

export function toCsv(table: ClassTable): string {
  const head = ["label", ...table.sections, "total", "passed", "rows", "errored", "top diagnosis", "report"];
  const body = table.lines.map((l) => [l.label, ...l.sections.map((p) => (p === undefined ? "" : String(p))), String(l.total), String(l.passed), String(l.rows), String(l.errored), l.diagnosis, l.report]);
  return [head, ...body].map((cells) => cells.map(csvCell).join(",")).join("\r\n") + "\r\n";
}

/** RFC 4180 quoting; a text starting like a formula is prefixed with ' so a spreadsheet shows it as text. */
function csvCell(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) && !/^-?\d+(\.\d+)?$/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

export function toMarkdown(table: ClassTable): string {
  const cell = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/\|/g, "\\|").replace(/\r?\n/g, " ");
  const out = [
    `| submission | ${table.sections.join(" | ")} | total | top diagnosis |`,
    `| --- | ${table.sections.map(() => "---:").join(" | ")} | ---: | --- |`,
    ...table.lines.map(
      (l) =>
        `| ${cell(l.label)} | ${l.sections.map((p) => (p === undefined ? "·" : formatPercent(p))).join(" | ")} | **${formatPercent(l.total)}**${l.errored ? ` (${l.errored} errored)` : ""} | ${cell(l.diagnosis)} |`,
    ),
  ];
  return out.join("\n") + "\n";
}

function settingsKey(report: Report): string {
  const h = report.header;
  return `profile ${h.profile}, level ${h.level}, tiers ${h.tiers.join("+")}${h.filters.ids?.length ? `, filter ${h.filters.ids.join(" ")}` : ""}`;
}

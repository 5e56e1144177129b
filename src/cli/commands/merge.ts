import { join } from "node:path";
import type { Command } from "commander";
import { pitfallLabel } from "../../harness/diagnosis.js";
import { createHash } from "node:crypto";
import { existsSync, readFileSync, realpathSync, statSync } from "node:fs";
import { classView, viewHtml, viewMarkdown } from "../../harness/class-view.js";
import { flagsOf, readKeyFile, verifyReportFile, withWeighting, writeFileAtomic, type Report, type VerifiedReport } from "../../harness/report.js";
import { clipText, noWorkflowCommands, oneLine } from "../../harness/reporters/text.js";
import { describeWeighting, type Weighting } from "../../harness/weighting.js";
import { addScoringOptions, scoringGiven, weightingFrom, type ScoringFlags } from "../scoring-options.js";
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

interface MergeFlags extends ScoringFlags {
  out: string;
  key?: string;
  submissions?: string;
  similarity?: string;
}

export function register(program: Command): void {
  const command = program
    .command("merge")
    .description(
      "merge report.jsonl files (one per submission) into a class table and a class view: class.csv, class.md and class.html under --out (the table also on stdout): the score distribution, every mistake with every student who shows it, the rules and rows most students fail, failures no known mistake explains by rule, and with --submissions the pairs of submissions alike by content. Every score is recomputed from the report's rows. A report that is missing, unreadable, cut off, incomplete (its run did not finish), edited so that its summary does not follow from its rows, or with --key unsigned or badly signed, gets a line with score 0 and the reason in its status; the others are merged. Exit 0 every report merged, 1 some refused (one line each on stderr), 2 usage error",
    )
    .argument("<reports...>", "report.jsonl files written by score --reporter json")
    .option("--out <dir>", "folder for class.csv and class.md", "reports")
    .option("--key <file>", "the key file score --key signed the reports with: every report must carry a valid HMAC-SHA256 signature made with it")
    .option("--submissions <dir>", "the folder holding one subfolder per submission, named as the reports' labels (grade's layout): pairs of submissions alike by content are listed for you to look at")
    .option("--similarity <share>", "with --submissions, list pairs at least this alike, from 0 to 1 (default 0.8); identical ones always");
  addScoringOptions(command, "every submission")
    .action((paths: string[], options: MergeFlags) => {
      // a bad key file, weights file or submissions folder stops everything (exit 2), before anything is written
      const key = options.key === undefined ? undefined : readKeyFile(options.key);
      const weighting = scoringGiven(options) ? weightingFrom(options) : undefined;
      const threshold = options.similarity === undefined ? undefined : Number(options.similarity);
      if (threshold !== undefined && (!Number.isFinite(threshold) || threshold < 0 || threshold > 1 || options.similarity!.trim() === "")) throw new UsageError(`--similarity: ${JSON.stringify(options.similarity)} is not a share from 0 to 1`);
      if (options.submissions !== undefined && (!existsSync(options.submissions) || !statSync(options.submissions).isDirectory())) throw new UsageError(`--submissions ${options.submissions}: no such folder`);
      // each report is read, checked, then kept only as the class needs it: a class of bloated reports merges in bounded memory
      const inputs = withoutDuplicates(paths.map((path) => forTheClass(verifyReportFile(path, key ? { key } : {}))));
      const table = classTable(inputs, weighting);
      const csv = join(options.out, "class.csv");
      const md = join(options.out, "class.md");
      const html = join(options.out, "class.html");
      const view = classViewOf(table, inputs, weighting, options.submissions, threshold);
      const classMarkdown = toMarkdown(table) + noWorkflowCommands(viewMarkdown(view));
      try {
        writeFileAtomic(csv, toCsv(table));
        writeFileAtomic(md, classMarkdown);
        writeFileAtomic(html, classHtml(table, view, weighting));
      } catch (error) {
        const reason = writeFailure(error);
        throw new UsageError(`cannot write the class table under --out ${options.out}: ${reason}`);
      }
      process.stdout.write(classMarkdown);
      const say = (line: string) => process.stderr.write(noWorkflowCommands(oneLine(line)) + "\n");
      const refused = table.lines.filter((line) => line.status === "refused");
      for (const line of refused) say(`tool-conformance: ${line.report}: ${line.reason} (score 0 in the class table)`);
      for (const line of table.lines.filter((l) => l.status === "stopped")) say(`tool-conformance: note: ${line.report}: the run stopped: ${line.reason}`);
      const accepted = inputs.flatMap((input) => (input.ok ? [input.report] : []));
      const settings = new Set(accepted.map(settingsKey));
      if (settings.size > 1) say(`tool-conformance: note: these reports were scored with different settings (${[...settings].join(" | ")}); their scores are not comparable`);
      if (weighting) say(`tool-conformance: note: every report scored again by ${describeWeighting(weighting)}`);
      process.stderr.write(`wrote ${csv}\nwrote ${md}\nwrote ${html}\n`);
      if (refused.length > 0) say(`tool-conformance: ${refused.length} of ${table.lines.length} report${table.lines.length === 1 ? "" : "s"} refused`);
      process.exitCode = refused.length > 0 ? EXIT.failed : EXIT.ok;
    });
}

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
          : "no known pitfall";
    const flags = flagsOf(report);
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
      total: report.summary.weighted?.percent ?? scores.total.percent,
      passed: scores.total.passed,
      rows: scores.total.rows,
      errored: scores.total.errored,
      diagnosis: [...flags, diagnosis].join("; "),
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
  const head = ["label", ...table.sections, ...table.parts.map((p) => `part:${p}`), "total", "passed", "rows", "errored", "status", "diagnosis", "report"];
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
    row(["submission", ...columns, "total", "status", "diagnosis"]),
    row(["---", ...columns.map(() => "---:"), "---:", "---", "---"]),
    ...table.lines.map((l) =>
      row([cell(l.label), ...[...l.sections, ...l.parts].map(percent), `**${formatPercent(l.total)}**${l.errored ? ` (${l.errored} errored)` : ""}`, cell(shortStatus(l)), cell(l.diagnosis)]),
    ),
  ];
  // a status too long for its cell is given whole below the table
  const long = table.lines.filter((l) => shortStatus(l) !== statusText(l));
  if (long.length > 0) out.push("", ...long.map((l) => `- ${cell(l.label)}: ${cell(statusText(l))}`));
  return noWorkflowCommands(out.join("\n") + "\n");
}

/** A status for a table cell: at most 80 characters (the whole text is in class.csv and below the table). */
export function shortStatus(line: ClassLine): string {
  return clipText(oneLine(statusText(line)), 80).replace(/… \([\d,]+ more characters\)$/, "…");
}

/** The class view of a table's accepted reports (scored as the table scores them). */
function classViewOf(table: ClassTable, given: readonly ClassInput[], weighting: Weighting | undefined, submissions: string | undefined, threshold: number | undefined) {
  const students = given.flatMap((input, i) => ("report" in input ? [{ label: table.lines[i]!.label, report: weighting ? withWeighting(input.report, weighting) : input.report, percent: table.lines[i]!.total }] : []));
  // a submission's folder is named as its report's label (grade's layout), whatever the table shows
  const folders = given.flatMap((input) => ("report" in input ? [input.report.header.subject.label] : []));
  const view = classView(students.map((s, i) => ({ ...s, label: submissions !== undefined ? folders[i]! : s.label })), { ...(submissions !== undefined ? { submissions } : {}), ...(threshold !== undefined ? { threshold } : {}) });
  return view;
}

/** class.html: the table and the class view on one page. */
function classHtml(table: ClassTable, view: ReturnType<typeof classView>, weighting: Weighting | undefined): string {
  const percent = (p: number | undefined) => (p === undefined ? "·" : formatPercent(p));
  const lines = table.lines.map((l) => ({ label: l.label, cells: [...l.sections, ...l.parts].map(percent), total: l.total, status: shortStatus(l), statusFull: statusText(l), diagnosis: l.diagnosis }));
  const note = `${table.lines.length} reports; ${weighting ? `scored by ${describeWeighting(weighting)}` : "each scored as its report says"}.`;
  return viewHtml([...table.sections, ...table.parts.map((p) => `part ${p}`)], lines, view, note);
}

function settingsKey(report: Report): string {
  const h = report.header;
  return `profile ${h.profile}, level ${h.level}, tiers ${h.tiers.join("+")}${h.filters.ids?.length ? `, filter ${h.filters.ids.join(" ")}` : ""}`;
}

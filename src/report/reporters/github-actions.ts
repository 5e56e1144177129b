import { appendFileSync } from "node:fs";
import type { Report, ReportRow } from "../report.js";
import { formatPercent } from "../../judge/scoring.js";
import { countsLine, differences, failingRows, headlineText, optionsOf, reasonOf, reproLines, sectionsOf, stoppedBeforeAnswers, stoppedText, subjectLine } from "./common.js";
import { renderMarkdown, type MarkdownOptions } from "./markdown.js";
import { clipText, oneLine } from "./text.js";
import { cellTitle, failingChecks, mcpToolsOf, type ToolCheck, type ToolView } from "../mcp-tools.js";
import { CONTRACT_SOURCES, contractOf, contractText } from "../mcp-contract.js";
import type { Gate } from "../gate.js";

// GitHub Actions: workflow commands on stdout (https://docs.github.com/actions/reference/workflow-commands-for-github-actions).
// One `::error` annotation per row that did not pass, carrying what reproduces it, expected against
// actual and the rerun command; past `maxAnnotations` rows (GitHub shows at most 10 error
// annotations a step), one per section instead, listing its rows. A `::notice` gives the score.
// Every value is escaped as the runner unescapes it (`%`, `\r`, `\n`; in properties `:` and `,`
// too), after every invisible character was made visible. The Markdown summary is appended to
// $GITHUB_STEP_SUMMARY when it is set.

export interface GithubActionsOptions {
  /** Annotations for single rows at most; past it, one per section (default 10). */
  maxAnnotations?: number;
  /** The longest text in one annotation value (default 1,000 characters). */
  maxText?: number;
  /** Why the run's gate fails (--min-score, --baseline): with rows that regressed, the first annotation says why, naming each. */
  gate?: Gate;
}

/** A workflow command's message, escaped as the runner reads it back. */
export function escapeData(text: string): string {
  return text.replaceAll("%", "%25").replaceAll("\r", "%0D").replaceAll("\n", "%0A");
}

/** A workflow command's property value (title, file): as data, and `:` and `,` too. */
export function escapeProperty(text: string): string {
  return escapeData(text).replaceAll(":", "%3A").replaceAll(",", "%2C");
}

function command(name: "error" | "notice" | "warning", title: string, message: string): string {
  return `::${name} title=${escapeProperty(oneLine(title))}::${escapeData(message)}`;
}

export function renderGithubActions(report: Report, options: GithubActionsOptions = {}): string {
  const max = options.maxAnnotations ?? 10;
  const maxText = options.maxText ?? 1_000;
  const lines: string[] = [];
  const stopped = stoppedText(report, maxText);
  if (stopped) {
    lines.push(command("error", `tool-conformance: ${subjectLine(report)} could not be scored`, [stopped.cause, ...(stopped.stderr ? ["", `the end of ${stopped.from}:`, stopped.stderr] : [])].join("\n")));
  }
  // a regression against --baseline, first (GitHub shows the first 10 error annotations of a step): the
  // rows' own annotations do not tell a new failure from an old one
  if (options.gate && options.gate.regressed.length > 0) lines.push(command("error", "tool-conformance: the gate failed", gateMessage(report, options.gate, maxText)));
  const tools = stoppedBeforeAnswers(report) ? undefined : mcpToolsOf(report);
  // an MCP server's tools: one annotation a failing tool, naming the checks it fails and a call for each
  if (tools) {
    const bad = tools.tools.filter((t) => t.failing > 0);
    // GitHub shows at most 10 error annotations a step: past `max` tools, the rest in one
    const each = bad.length <= max ? bad : bad.slice(0, max - 1);
    for (const tool of each) lines.push(command("error", `tool-conformance: tool ${tool.tool} fails ${tool.failing} check${tool.failing === 1 ? "" : "s"}`, toolMessage(tool, tools.checks, maxText)));
    const rest = bad.slice(each.length);
    if (rest.length > 0) lines.push(command("error", `tool-conformance: ${rest.length} more tools fail checks`, rest.slice(0, 100).map((tool) => `${oneLine(tool.tool)}: ${failingChecks(tool, tools.checks).map((check) => cellTitle(tool, check)).join("; ")}`).join("\n")));
  }
  const failing = tools ? tools.others.filter((row) => row.status !== "passed") : failingRows(report);
  // a run that never started errored every row with the same cause: said once above
  if (!stoppedBeforeAnswers(report)) {
    if (failing.length <= max) for (const row of failing) lines.push(command("error", `tool-conformance: ${row.id}`, rowMessage(report, row, maxText)));
    else {
      for (const section of sectionsOf(report)) {
        const rows = failing.filter((row) => row.section === section);
        if (rows.length === 0) continue;
        const shown = rows.slice(0, 40).map((row) => `${row.status === "failed" ? "✗" : row.status === "errored" ? "!" : "-"} ${oneLine(row.id)}`);
        if (rows.length > shown.length) shown.push(`… and ${rows.length - shown.length} more`);
        const message = [`${rows.length} row${rows.length === 1 ? "" : "s"} did not pass (one annotation a section past ${max} rows; each row is in the step summary and the reports):`, ...shown, "", "the first of them:", rowMessage(report, rows[0]!, maxText)].join("\n");
        lines.push(command("error", `tool-conformance: ${section}: ${rows.length} row${rows.length === 1 ? "" : "s"} did not pass`, message));
      }
    }
  }
  // the contract tools/list advertises: one notice, information only (an error annotation would read as a failure)
  const contract = tools ? contractOf(report, tools) : undefined;
  if (contract && contract.tools.length > 0) {
    const shown = contract.tools.slice(0, 20);
    const text = shown.flatMap((tool) => {
      const more = tool.lines.length + tool.more - Math.min(tool.lines.length, 5);
      return [oneLine(tool.tool), ...tool.lines.slice(0, 5).map((line) => `  ${clipText(oneLine(contractText(line)), maxText)}`), ...(more > 0 ? [`  … and ${more} more`] : [])];
    });
    if (contract.tools.length > shown.length) text.push(`… and ${contract.tools.length - shown.length} more tools (every one in the step summary and the reports)`);
    text.push("", `information only: no score or exit code depends on it; each rule and the sentence it follows from: ${CONTRACT_SOURCES}`);
    const title = `tool-conformance: the contract tools/list advertises: ${contract.findings} finding${contract.findings === 1 ? "" : "s"} on ${contract.tools.length} tool${contract.tools.length === 1 ? "" : "s"}`;
    lines.push(command("notice", title, text.join("\n")));
  }
  const t = report.summary.scores.total;
  const scoring = report.header.scoring && report.summary.weighted ? `; scored by ${report.header.scoring.name}: ${report.summary.weighted.testsPassed} of ${report.summary.weighted.tests} tests passed whole, rows ${formatPercent(t.percent)}` : "";
  lines.push(command("notice", `tool-conformance: ${headlineText(report)}`, `${subjectLine(report)}: ${headlineText(report)} (${countsLine(t)} of ${t.rows} rows, level ${report.header.level}, tiers ${report.header.tiers.join("+")}${scoring})`));
  return lines.join("\n") + "\n";
}

/** The gate's reasons, then each row that passed in the baseline and does not now, with why (20 at most: the step summary has them all). */
function gateMessage(report: Report, gate: Gate, maxText: number): string {
  const options = optionsOf(report);
  const byId = new Map(report.rows.map((row) => [row.id, row]));
  const out = gate.reasons.map(oneLine);
  if (gate.regressed.length > 0) {
    out.push("", "passed in the baseline, not now:");
    for (const id of gate.regressed.slice(0, 20)) {
      const row = byId.get(id);
      out.push(`✗ ${oneLine(id)}${row ? `: ${clipText(reasonOf(row, options), maxText)}` : ""}`);
    }
    if (gate.regressed.length > 20) out.push(`… and ${gate.regressed.length - 20} more (every one in the step summary)`);
  }
  return out.join("\n");
}

/** A failing tool's annotation text: each check it fails, with the first call that shows it and the verdict. */
function toolMessage(tool: ToolView, checks: readonly ToolCheck[], maxText: number): string {
  const out: string[] = [];
  for (const check of failingChecks(tool, checks)) {
    const cell = tool.failures.filter((failure) => failure.column === check.key);
    const first = cell[0];
    out.push(`✗ ${cellTitle(tool, check)} (${check.pitfalls}): ${cell.length} call${cell.length === 1 ? "" : "s"}`);
    if (first?.call) out.push(`  sent: ${clipText(oneLine(first.call), maxText)}`);
    if (first) out.push(`  ${clipText(oneLine(first.sentence), maxText)}`);
  }
  return out.join("\n");
}

/** A row's annotation text: why it did not pass, what reproduces it, expected against actual, how to rerun it. */
function rowMessage(report: Report, row: ReportRow, maxText: number): string {
  const options = optionsOf(report);
  const out: string[] = [reasonOf(row, options)];
  const repro = reproLines(row, maxText);
  const rerun = repro.find((line) => line.label === "rerun");
  for (const line of repro) if (line !== rerun) out.push(line.text.includes("\n") ? `${line.label}:\n${line.text}` : `${line.label}: ${line.text}`);
  if (row.status === "failed") {
    for (const d of differences(row, options).slice(0, 2)) out.push(`${d.what}`, `  expected: ${clipText(d.expected, maxText)}`, `  actual:   ${clipText(d.actual, maxText)}`);
  } else if (row.stderr) {
    out.push(`stderr: ${clipText(oneLine(row.stderr.trimEnd()), maxText)}`);
  }
  if (rerun) out.push(`rerun: ${rerun.text}`);
  return out.join("\n");
}

/**
 * Appends the Markdown summary to the file $GITHUB_STEP_SUMMARY names, when it is set; returns the
 * file written, or undefined.
 */
export function writeStepSummary(report: Report, env: Record<string, string | undefined> = process.env, options: MarkdownOptions = {}): string | undefined {
  const file = env.GITHUB_STEP_SUMMARY;
  if (!file) return undefined;
  appendFileSync(file, renderMarkdown(report, options));
  return file;
}

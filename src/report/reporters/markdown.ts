import { pitfallLabel } from "../../judge/diagnosis.js";
import { flagsOf, type Report, type ReportRow } from "../report.js";
import { LEVELS } from "../../corpus/rows.js";
import { formatPercent, type Tally } from "../../judge/scoring.js";
import { countsLine, differences, failingRows, headlineText, optionsOf, partsOf, points, reasonOf, reproLines, sectionsOf, settingsLine, stoppedBeforeAnswers, stoppedText, subjectLine, tiersOf, outputText, OUTPUT_HEADING } from "./common.js";
import { describeWeighting } from "../../judge/weighting.js";
import { clipText, oneLine, utf8Bytes, visible } from "./text.js";
import { markdownCell, markdownProse, markdownProseCell, markdownText } from "./inert.js";
import type { Gate } from "../gate.js";
import { CELL_LEGEND, cellTitle, failingChecks, mcpToolsOf, type McpToolsView } from "../mcp-tools.js";
import { CONTRACT_CLEAN, CONTRACT_DOC, CONTRACT_HEADING, CONTRACT_SECTION, contractOf, type ContractView } from "../mcp-contract.js";

// Markdown fit for a CI job summary ($GITHUB_STEP_SUMMARY, GitLab, a PR comment): the headline,
// a table per section and tier, the levels, the diagnosis, and the failing rows folded under
// <details> with what reproduces each one and expected against actual. Bounded: at most
// `maxBytes` (default under GitHub's 1 MiB step-summary limit), with a note of what was cut.
// Every text is visible (a NUL reads `\u0000`); outside code blocks HTML and Markdown are escaped,
// and text the subject or the submission controls is shown inert (inert.ts: a code span, and in
// our sentences that quote it every word that could become a link, mention or reference).

export interface MarkdownOptions {
  /** Failing rows listed in the table and detailed (default 50). */
  maxFailures?: number;
  /** The most bytes of the whole summary (default 1,000,000: GitHub refuses a step summary over 1 MiB). */
  maxBytes?: number;
  /** The longest text shown for one value (default 2,000 characters). */
  maxText?: number;
  /** The report.jsonl this run wrote (as the reader should find it), named for the rows not shown; none is named when not given. */
  reportFile?: string;
  /** Why the run's gate fails (score's --min-score, --baseline): said under the heading. */
  gate?: Gate;
}

export const MARKDOWN_MAX_BYTES = 1_000_000;

export function renderMarkdown(report: Report, options: MarkdownOptions = {}): string {
  const max = options.maxFailures ?? 50;
  const maxBytes = options.maxBytes ?? MARKDOWN_MAX_BYTES;
  const maxText = options.maxText ?? 2_000;
  const elsewhere = options.reportFile ? ` in ${inline(options.reportFile)}` : "; write them all with --reporter json, junit or html";
  const scores = report.summary.scores;
  const t = scores.total;
  const tiers = tiersOf(report);
  const icon = (tally: Tally) => (tally.passed === tally.rows ? "✅" : tally.passed === 0 ? "❌" : "⚠️");
  const cell = (tally: Tally | undefined) => (tally ? `${tally.passed}/${tally.rows}` : "·");
  const out: string[] = [];

  const weighted = report.summary.weighted;
  const headIcon = weighted ? (weighted.percent >= 100 ? "✅" : weighted.percent <= 0 ? "❌" : "⚠️") : icon(t);
  out.push(`## ${headIcon} tool-conformance: ${markdownText(subjectLine(report))}: ${headlineText(report)}`);
  out.push("");
  out.push(`${inline(settingsLine(report))}. ${countsLine(t)}.`);
  out.push("");
  const gate = options.gate;
  if (gate && gate.reasons.length > 0) {
    out.push(`> **The gate failed:** ${gate.reasons.map(inline).join("; ")}.`, "");
    if (gate.regressed.length > 0) {
      out.push("Rows that passed in the baseline and fail now:", "");
      for (const id of gate.regressed.slice(0, 100)) out.push(`- ${markdownText(id)}`);
      if (gate.regressed.length > 100) out.push(`- … and ${gate.regressed.length - 100} more`);
      out.push("");
    }
  }
  const stopped = stoppedText(report, maxText);
  if (stopped) {
    out.push(`> **The run stopped:** ${markdownText(stopped.cause)}`);
    out.push("");
    if (stopped.stderr) out.push(`The end of ${stopped.from}:`, "", ...fence(stopped.stderr));
  }
  // a flag may name files of the submission
  // a grader's FLAGGED in bold; any other flag plain (an empty bold shows as four stars)
  for (const flag of flagsOf(report)) out.push(`> ${flag.startsWith("FLAGGED:") ? "**FLAGGED:** " : ""}${markdownText(flag.replace(/^FLAGGED:\s*/, ""))}`, "");
  const output = outputText(report, maxText);
  if (output) out.push(`${OUTPUT_HEADING}:`, "", ...fence(output));
  // every figure here is rows passed over rows: labelled so, beside the one score in the heading
  out.push(`| section | ${tiers.join(" | ")} | rows | rows passed |`);
  out.push(`| --- | ${tiers.map(() => "---:").join(" | ")} | ---: | ---: |`);
  for (const section of sectionsOf(report)) {
    const s = scores.sections[section]!;
    out.push(`| ${icon(s.total)} ${section} | ${tiers.map((tier) => cell(s.tiers[tier])).join(" | ")} | ${cell(s.total)} | ${formatPercent(s.total.percent)} |`);
  }
  out.push(`| **all rows** | ${tiers.map((tier) => `**${cell(scores.byTier[tier])}**`).join(" | ")} | **${cell(t)}** | **${formatPercent(t.percent)}** |`);
  out.push("");
  out.push(`| level | ${LEVELS.join(" | ")} |`);
  out.push(`| --- | ${LEVELS.map(() => "---:").join(" | ")} |`);
  out.push(`| rows passed | ${LEVELS.map((level) => `${formatPercent(scores.byLevel[level].percent)}${level === scores.level ? " (scored)" : ""}`).join(" | ")} |`);
  out.push("");
  const parts = partsOf(report);
  if (parts.length > 0) {
    out.push(`| part | ${parts.join(" | ")} |`);
    out.push(`| --- | ${parts.map(() => "---:").join(" | ")} |`);
    out.push(`| rows | ${parts.map((part) => cell(scores.byPart[part])).join(" | ")} |`);
    out.push(`| rows passed | ${parts.map((part) => formatPercent(scores.byPart[part]!.percent)).join(" | ")} |`);
    out.push("");
  }
  if (weighted && report.header.scoring) {
    out.push(`**Score ${headlineText(report)}**, ${inline(describeWeighting(report.header.scoring))}; rows passed: ${formatPercent(t.percent)}.`);
    out.push("");
    out.push("| test | weight | rows passed | points |");
    out.push("| --- | ---: | ---: | ---: |");
    for (const p of weighted.parts) out.push(`| ${p.name === "generated" ? "generated cases" : `${p.whole ? "✅" : "❌"} ${p.name}`} | ${p.weight} | ${p.passed}/${p.rows} | ${points(p.earned)} / ${points(p.max)} |`);
    out.push(`| **total** | | | **${points(weighted.parts.reduce((a, p) => a + p.earned, 0))} / ${points(weighted.parts.reduce((a, p) => a + p.max, 0))}** |`);
    out.push("");
  }

  out.push("### Diagnosis");
  out.push("");
  const d = report.diagnosis;
  const lines = d.lines.map(oneLine);
  if (!d.available) out.push(inline(lines[0] ?? "no diagnosis: the mutants' fingerprints were not available"));
  else if (d.matches.length === 0) out.push(...(lines.length ? lines.map((line) => `- ${inline(line)}`) : ["No failures: nothing to diagnose."]));
  else {
    for (const m of d.matches) out.push(`- **${inline(m.id)}** (${inline(`${pitfallLabel(m.pitfall)}, ${m.title}`)}): ${inline(oneLine(m.symptom))}. _${inline(oneLine(m.detail))}_`);
    for (const line of lines.slice(d.matches.length)) out.push(`- ${inline(line)}`);
  }
  out.push("");

  const tools = stoppedBeforeAnswers(report) ? undefined : mcpToolsOf(report);
  if (tools) out.push(...toolsSection(tools, maxText, contractOf(report, tools), elsewhere));
  // an MCP server's tool rows are told per tool above; its list's and server's rows below
  const failing = tools ? tools.others.filter((row) => row.status !== "passed") : failingRows(report);
  const note: string[] = [];
  if (stoppedBeforeAnswers(report)) out.push(`Every row (${failing.length}) errored: the run stopped before the subject answered any (see above).`, "");
  else if (failing.length > 0) {
    const opts = optionsOf(report);
    out.push(`### Failing rows (${failing.length})`);
    out.push("");
    out.push("| row | section | tier | status | why it did not pass |");
    out.push("| --- | --- | --- | --- | --- |");
    for (const row of failing.slice(0, max)) {
      out.push(`| ${markdownCell(row.id)} | ${row.section} | ${row.tier} | ${row.status} | ${markdownCell(clipText(reasonOf(row, opts), 300))} |`);
    }
    if (failing.length > max) out.push(`| … | | | | ${failing.length - max} more rows${elsewhere} |`);
    out.push("");

    // the details, while they fit: the summary must stay under maxBytes with its closing note
    let bytes = utf8Bytes(out.join("\n")) + 1_024;
    let detailed = 0;
    for (const row of failing.slice(0, max)) {
      const block = detailsOf(row, report, maxText).join("\n") + "\n";
      const size = utf8Bytes(block);
      if (bytes + size > maxBytes) break;
      out.push(block);
      bytes += size;
      detailed++;
    }
    const shown = Math.min(failing.length, max);
    if (detailed < shown) {
      note.push(`_${shown - detailed} of the ${shown} failing rows listed above are not detailed here: this summary is capped at ${maxBytes.toLocaleString("en-US")} bytes (a GitHub step summary takes at most 1 MiB). Every row is detailed${elsewhere}._`);
    }
  }
  const text = out.join("\n") + "\n" + (note.length ? note.join("\n") + "\n" : "");
  // the head alone (a very long label or stderr) cannot push the summary over its cap
  return utf8Bytes(text) <= maxBytes ? text : clipBytes(text, maxBytes);
}

const MARK = { pass: "✅", fail: "❌", errored: "❗", none: "·" } as const;

/** The tools × checks table, worst first, the contract tools/list advertises, then each failing tool under <details> with the calls that decided its cells. */
function toolsSection(view: McpToolsView, maxText: number, contract: ContractView | undefined, elsewhere: string): string[] {
  const out: string[] = [`### Tools (${view.tools.length}), worst first`, ""];
  out.push(`| tool | ${view.checks.map((check) => `${inline(check.title)} (${check.pitfalls})`).join(" | ")} | failing |`);
  out.push(`| --- | ${view.checks.map(() => ":---:").join(" | ")} | ---: |`);
  for (const tool of view.tools) out.push(`| ${markdownCell(tool.tool)} | ${view.checks.map((check) => MARK[tool.cells[check.key]]).join(" | ")} | ${tool.failing} |`);
  out.push("", `_${inline(CELL_LEGEND.replace("✓", "✅").replace("✗", "❌").replace("! ", "❗ "))}_`, "");
  if (contract) out.push(...contractSection(contract, maxText, elsewhere));
  // the calls of a tool, while they stay a readable size: the rest are in the report files
  for (const tool of view.tools.filter((t) => t.failing > 0)) {
    const checks = failingChecks(tool, view.checks);
    out.push(`<details><summary><code>${html(oneLine(tool.tool))}</code> fails ${checks.length}: ${html(checks.map((check) => cellTitle(tool, check)).join("; "))}</summary>`, "");
    for (const check of checks) {
      const cell = tool.failures.filter((failure) => failure.column === check.key);
      out.push(`**${inline(cellTitle(tool, check))}** (${check.pitfalls})`, "");
      for (const failure of cell.slice(0, 5)) {
        out.push(`${markdownText(failure.row.id)}:`, "");
        if (failure.call) out.push(...fence(clipText(visible(failure.call), maxText)));
        out.push(...fence(clipText(visible(failure.sentence), maxText)));
      }
      if (cell.length > 5) out.push(`_and ${cell.length - 5} more calls_`, "");
    }
    out.push("</details>", "");
  }
  return out;
}

/** The most lines of the contract's table: the rest are in report.jsonl. */
const CONTRACT_ROWS = 100;

/** The contract tools/list advertises: a line a finding, the tool named on its first; every server text in a code span. */
function contractSection(contract: ContractView, maxText: number, elsewhere: string): string[] {
  const out = [`#### ${inline(CONTRACT_HEADING)}`, ""];
  if (contract.tools.length === 0) return [...out, inline(`${CONTRACT_CLEAN}.`), ""];
  out.push("| tool | where | finding |", "| --- | --- | --- |");
  let shown = 0;
  for (const tool of contract.tools) {
    for (const [i, line] of tool.lines.entries()) {
      if (shown >= CONTRACT_ROWS) break;
      const quote = line.quote !== undefined ? ` ${markdownCell(clipText(line.quote, maxText))}` : "";
      out.push(`| ${i === 0 ? markdownCell(tool.tool) : ""} | ${line.where ? markdownCell(line.where) : ""} | ${markdownProseCell(line.words)}${quote} |`);
      shown++;
    }
    if (tool.more > 0 && shown < CONTRACT_ROWS) out.push(`| | | _${tool.more} more findings of this tool, past the report's cap_ |`);
  }
  const left = contract.findings - shown;
  if (left > 0 && shown >= CONTRACT_ROWS) out.push("", `_${left} more findings not shown here${elsewhere}._`);
  out.push("", `_Each rule and the sentence it follows from: ${markdownText(CONTRACT_DOC)}, ${inline(`"${CONTRACT_SECTION}"`)}._`, "");
  return out;
}

/** One failing row under <details>: what reproduces it, expected against actual, the rerun command. */
function detailsOf(row: ReportRow, report: Report, maxText: number): string[] {
  const out: string[] = [];
  out.push(`<details><summary><code>${html(oneLine(row.id))}</code>: ${row.status}</summary>`);
  out.push("");
  const repro = reproLines(row, maxText);
  const rerun = repro.find((line) => line.label === "rerun");
  for (const line of repro) {
    if (line === rerun) continue;
    if (line.label === "why") out.push(`_${inline(line.text)}_`, "");
    else out.push(`${line.label}:`, ...fence(line.text));
  }
  if (row.status === "failed") {
    for (const diff of differences(row, optionsOf(report))) {
      out.push(`${inline(diff.what)}`);
      out.push("");
      out.push("expected:");
      out.push(...fence(clipText(diff.expected, maxText)));
      out.push("actual:");
      out.push(...fence(clipText(diff.actual, maxText)));
      if (diff.note) out.push(markdownText(diff.note), "");
    }
  } else {
    out.push(markdownText(reasonOf(row, optionsOf(report))));
    out.push("");
    if (row.stderr) out.push("subject stderr:", ...fence(visible(clipText(row.stderr.trimEnd(), maxText))));
  }
  if (rerun) out.push("rerun just this row:", ...fence(rerun.text, "sh"));
  out.push("</details>");
  out.push("");
  return out;
}

/** A fenced code block that no content can close early. */
function fence(text: string, info = ""): string[] {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const bar = "`".repeat(longest + 1);
  return [`${bar}${info}`, text, bar, ""];
}

/** Text in a paragraph (ours, quoting the subject's): HTML and Markdown neutralised, nothing live. */
const inline = markdownProse;

function html(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** The text cut to at most `max` bytes of UTF-8 on a line boundary, with a note. */
function clipBytes(text: string, max: number): string {
  const note = "\n\n_(cut: this summary reached its size cap)_\n";
  let end = Buffer.from(text, "utf8").subarray(0, Math.max(0, max - utf8Bytes(note))).toString("utf8");
  end = end.slice(0, Math.max(0, end.lastIndexOf("\n")));
  return end + note;
}

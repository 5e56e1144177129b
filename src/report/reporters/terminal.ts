import { styleText } from "node:util";
import { flagsOf, type Report, type ReportRow } from "../report.js";
import { LEVELS } from "../../corpus/rows.js";
import { formatPercent, type Tally } from "../../judge/scoring.js";
import { countsLine, differences, failingRows, headline, optionsOf, partsLine, reproLines, sectionsOf, settingsLine, stoppedBeforeAnswers, stoppedText, subjectLine, tiersOf, weightingLines, outputText, OUTPUT_HEADING } from "./common.js";
import { clipText, noWorkflowCommands, oneLine, visible } from "./text.js";
import { CELL_LEGEND, cellMark, cellTitle, failingChecks, mcpToolsOf, type McpToolsView } from "../mcp-tools.js";
import { CONTRACT_CLEAN, CONTRACT_HEADING, CONTRACT_SOURCES, contractOf, contractText, type ContractView } from "../mcp-contract.js";

// The terminal summary: the score per section and tier, per level, the failing rows with what
// reproduces them and expected against actual, and the diagnosis. Colors only on a terminal
// without NO_COLOR. A subject's texts are shown with every control character escaped (no escape
// sequence reaches the terminal) and no line can start a GitHub Actions workflow command.

type Style = Parameters<typeof styleText>[0];
export type Paint = (style: Style, text: string) => string;

/** Colors when the stream is a terminal and NO_COLOR is unset or empty. */
export function paintFor(stream: { isTTY?: boolean } = process.stdout, env: Record<string, string | undefined> = process.env): Paint {
  const on = stream.isTTY === true && !env.NO_COLOR;
  // we decide ourselves (the stream may be stderr); newer Node would otherwise check stdout again
  return on ? (style, text) => styleText(style, text, { validateStream: false }) : (_style, text) => text;
}

export interface TerminalOptions {
  paint?: Paint;
  /** Failing rows shown in full; the rest are counted (default 20). */
  maxFailures?: number;
  /** The longest schema, argument or value text shown (default 300 characters). */
  maxText?: number;
  /** Report files written by this run (e.g. "reports/report.jsonl"), named where the rest of the failing rows are. */
  files?: string[];
}

export function renderTerminal(report: Report, options: TerminalOptions = {}): string {
  const paint = options.paint ?? paintFor();
  const max = options.maxFailures ?? 20;
  const maxText = options.maxText ?? 300;
  const scores = report.summary.scores;
  const tiers = tiersOf(report);
  const out: string[] = [];
  const colorOf = (t: Tally): "green" | "red" | "yellow" => (t.passed === t.rows ? "green" : t.passed === 0 ? "red" : "yellow");
  const cell = (t: Tally | undefined, width: number) => {
    if (!t) return paint("dim", "·".padEnd(width));
    const text = `${t.passed}/${t.rows}`.padEnd(width);
    return paint(colorOf(t), text);
  };

  out.push(`${paint("bold", "tool-conformance")} ${oneLine(report.header.tool.version)} · ${subjectLine(report)}`);
  out.push(paint("dim", `${settingsLine(report)} · ${(report.summary.ms / 1000).toFixed(2)} s`));
  out.push("");

  const stopped = stoppedText(report);
  if (stopped) {
    out.push(`${paint(["bold", "magenta"], "the run stopped:")} ${stopped.cause}`);
    if (stopped.stderr) out.push(paint("dim", `  the end of ${stopped.from}:`), ...indent(stopped.stderr, 4).map((line) => paint("dim", line)));
    out.push("");
  }
  for (const flag of flagsOf(report)) out.push(paint(["bold", "magenta"], oneLine(flag)), "");
  const output = outputText(report, 600);
  if (output) out.push(paint("dim", `${OUTPUT_HEADING}:`), ...indent(output, 4).slice(0, 12).map((line) => paint("dim", line)), "");

  const nameWidth = Math.max(7, ...sectionsOf(report).map((s) => s.length)) + 2;
  const width = 11;
  out.push(paint("dim", `  ${"section".padEnd(nameWidth)}${tiers.map((t) => t.padEnd(width)).join("")}${"rows".padEnd(width)}rows passed`));
  for (const section of sectionsOf(report)) {
    const s = scores.sections[section]!;
    out.push(`  ${section.padEnd(nameWidth)}${tiers.map((t) => cell(s.tiers[t], width)).join("")}${cell(s.total, width)}${paint(colorOf(s.total), formatPercent(s.total.percent))}`);
  }
  out.push(
    `  ${paint("bold", "all rows".padEnd(nameWidth))}${tiers.map((t) => cell(scores.byTier[t], width)).join("")}${cell(scores.total, width)}${paint(["bold", colorOf(scores.total)], formatPercent(scores.total.percent))}`,
  );
  out.push(paint("dim", `  by level: ${LEVELS.map((level) => `${level} ${formatPercent(scores.byLevel[level].percent)}`).join(" · ")}`));
  const parts = partsLine(report);
  if (parts) out.push(`  ${parts}`);
  for (const line of weightingLines(report)) out.push(`  ${line}`);
  out.push("");

  const tools = stoppedBeforeAnswers(report) ? undefined : mcpToolsOf(report);
  // an MCP server's tool rows are told per tool, after the score; its list's and server's rows here
  const failing = tools ? tools.others.filter((row) => row.status !== "passed") : failingRows(report);
  if (failing.length > 0) {
    // "failing rows (1)" above hundreds of failing tool rows would read as the whole count
    out.push(paint("bold", tools ? `failing rows of the tool list and the server (${failing.length}); the tools' own are told per tool, below the score` : `failing rows (${failing.length})`));
    // a run that never started errored every row with the same cause, said once above
    const shown = stoppedBeforeAnswers(report) ? [] : failing.slice(0, max);
    for (const row of shown) out.push(...rowLines(report, row, paint, maxText));
    if (failing.length > shown.length) {
      const where = options.files?.length ? `all of them in ${options.files.join(", ")}` : "all of them with --reporter json, junit, markdown or html";
      out.push(paint("dim", `  ${shown.length === 0 ? `${failing.length} rows errored: ${stopped?.cause ?? ""}` : `… and ${failing.length - shown.length} more`} (${where})`));
    }
    out.push("");
  }

  out.push(paint("bold", "diagnosis"));
  out.push(...renderDiagnosis(report, paint));
  out.push("");
  const t = scores.total;
  const weighted = report.summary.weighted;
  const color = weighted ? (weighted.percent >= 100 ? "green" : weighted.percent <= 0 ? "red" : "yellow") : colorOf(t);
  const how = weighted && report.header.scoring ? `; ${report.header.scoring.name === "rows" ? "rows passed over rows" : report.header.scoring.name === "tests" ? `the spec's tests, ${weighted.testsPassed} of ${weighted.tests} passed` : `weights ${report.header.scoring.name}, ${weighted.testsPassed} of ${weighted.tests} tests passed`}${weighted.parts.some((p) => p.name === "generated") ? `, generated cases ${report.header.scoring.fresh > 0 ? "weighed in" : "apart"}` : ""}` : "";
  out.push(
    // under a weighting the rows are a figure of their own, with their own percent: "N passed of M" never sits beside another number as if it made it
    weighted
      ? `${paint("bold", "score")} ${paint(["bold", color], formatPercent(headline(report)))} ${paint("dim", `(${how.slice(2)}; rows ${formatPercent(t.percent)}: ${countsLine(t)} of ${t.rows}, level ${scores.level}, tiers ${scores.tiers.join("+")})`)}`
      : `${paint("bold", "score")} ${paint(["bold", color], formatPercent(headline(report)))} ${paint("dim", `(${countsLine(t)} of ${t.rows} rows, level ${scores.level}, tiers ${scores.tiers.join("+")})`)}`,
  );
  if (tools) out.push("", ...toolLines(tools, paint, maxText, max, contractOf(report, tools)));
  return noWorkflowCommands(out.join("\n")) + "\n";
}

/**
 * The tools × checks table, worst tools first, then the contract tools/list advertises (when the
 * report has one), then each failing tool's failing cells with the calls that decided them.
 */
export function toolLines(view: McpToolsView, paint: Paint, maxText: number, maxCalls = 20, contract?: ContractView): string[] {
  const out: string[] = [];
  const names = view.tools.map((tool) => clipText(oneLine(tool.tool), 40));
  const nameWidth = Math.max(4, ...names.map((name) => name.length)) + 2;
  const widths = view.checks.map((check) => Math.max(check.short.length, 1) + 2);
  out.push(paint("bold", `tools (${view.tools.length}), worst first`));
  out.push(paint("dim", `  ${"tool".padEnd(nameWidth)}${view.checks.map((check, i) => check.short.padEnd(widths[i]!)).join("")}failing`));
  const mark = (state: string) => (state === "pass" ? paint("green", cellMark("pass")) : state === "fail" ? paint("red", cellMark("fail")) : state === "errored" ? paint("magenta", cellMark("errored")) : paint("dim", cellMark("none")));
  for (const [i, tool] of view.tools.entries()) {
    const cells = view.checks.map((check, j) => `${mark(tool.cells[check.key])}${" ".repeat(widths[j]! - 1)}`).join("");
    out.push(`  ${names[i]!.padEnd(nameWidth)}${cells}${tool.failing === 0 ? paint("green", "0") : paint("red", String(tool.failing))}`);
  }
  out.push(paint("dim", `  ${view.checks.map((check) => `${check.short}: ${check.title} (${check.pitfalls})`).join(" · ")}`));
  out.push(paint("dim", `  ${CELL_LEGEND}`));
  if (contract) out.push("", ...contractLines(contract, paint, maxText));
  const failing = view.tools.filter((tool) => tool.failing > 0);
  let shown = 0;
  for (const tool of failing) {
    out.push("");
    out.push(`${paint(["bold", "red"], oneLine(tool.tool))} ${paint("dim", `fails: ${failingChecks(tool, view.checks).map((check) => `${cellTitle(tool, check)} (${check.pitfalls})`).join("; ")}`)}`);
    for (const check of failingChecks(tool, view.checks)) {
      const cell = tool.failures.filter((failure) => failure.column === check.key);
      out.push(`  ${tool.cells[check.key] === "errored" ? paint("magenta", "!") : paint("red", "✗")} ${cellTitle(tool, check)}`);
      // a few calls a cell: the rest are in the files
      const listed = cell.slice(0, Math.max(0, Math.min(3, maxCalls - shown)));
      for (const failure of listed) {
        out.push(`      ${paint("dim", oneLine(failure.row.id))}`);
        if (failure.call) out.push(...labelled(clipText(visible(failure.call), maxText), paint("dim", "sent   "), 7, 8));
        out.push(...labelled(clipText(visible(failure.sentence), 2 * maxText), paint("red", "verdict"), 7, 8));
      }
      shown += listed.length;
      if (cell.length > listed.length) out.push(paint("dim", `      … and ${cell.length - listed.length} more call${cell.length - listed.length === 1 ? "" : "s"} (every one in the report files)`));
    }
  }
  return out;
}

/** The most tools, and lines a tool, the terminal shows of the contract: the rest are in the report files. */
const CONTRACT_TOOLS = 20;
const CONTRACT_LINES = 8;

/** The contract tools/list advertises, a tool at a time, each finding on a line. */
function contractLines(contract: ContractView, paint: Paint, maxText: number): string[] {
  const out = [paint("bold", `${CONTRACT_HEADING[0]!.toLowerCase()}${CONTRACT_HEADING.slice(1)}`)];
  if (contract.tools.length === 0) return [...out, paint("green", `  ${CONTRACT_CLEAN}`)];
  let left = 0;
  for (const [i, tool] of contract.tools.entries()) {
    if (i >= CONTRACT_TOOLS) {
      left += tool.lines.length + tool.more;
      continue;
    }
    out.push(`  ${paint("bold", clipText(oneLine(tool.tool), 80))}`);
    for (const line of tool.lines.slice(0, CONTRACT_LINES)) out.push(`    ${paint(line.rule === "stricter" ? "red" : "yellow", "·")} ${clipText(oneLine(contractText(line)), maxText)}`);
    const more = tool.lines.length - Math.min(tool.lines.length, CONTRACT_LINES) + tool.more;
    if (more > 0) out.push(paint("dim", `    … and ${more} more`));
  }
  const rest = contract.tools.length - Math.min(contract.tools.length, CONTRACT_TOOLS);
  if (rest > 0) out.push(paint("dim", `  … and ${rest} more tool${rest === 1 ? "" : "s"} with ${left} finding${left === 1 ? "" : "s"} (every one in the report files)`));
  out.push(paint("dim", `  each rule and the sentence it follows from: ${CONTRACT_SOURCES}`));
  return out;
}

/** One failing row: its id and rule, what reproduces it, expected against actual, the rerun command. */
function rowLines(report: Report, row: ReportRow, paint: Paint, maxText: number): string[] {
  const out: string[] = [];
  const mark = row.status === "errored" ? paint("magenta", "!") : row.status === "skipped" ? paint("dim", "-") : paint("red", "✗");
  out.push(`  ${mark} ${paint("bold", oneLine(row.id))} ${paint("dim", `[${row.tier} · ${oneLine(row.rule)}${row.pitfalls.length ? ` · guards ${row.pitfalls.join(", ")}` : ""}]`)}`);
  const repro = reproLines(row, maxText);
  const rerun = repro.find((line) => line.label === "rerun");
  for (const line of repro.filter((l) => l !== rerun)) out.push(...labelled(line.text, paint("dim", line.label.padEnd(9)), 9, 6));
  if (row.status === "errored") {
    out.push(`      ${paint("magenta", "errored:")} ${oneLine(row.error ?? "no reply")}`);
    if (row.stderr) out.push(...indent(`stderr: ${visible(clipText(row.stderr.trimEnd(), 4 * maxText))}`, 6).map((line) => paint("dim", line)));
  } else if (row.status === "skipped") {
    out.push(`      ${paint("dim", `not answerable: ${oneLine(row.error ?? "skipped")}`)}`);
  } else {
    for (const d of differences(row, optionsOf(report)).slice(0, 2)) {
      out.push(`      ${paint("dim", d.what)}`);
      out.push(...labelled(clipLines(d.expected, maxText), paint("green", "expected"), 8, 8));
      out.push(...labelled(clipLines(d.actual, maxText), paint("red", "actual  "), 8, 8));
      if (d.note) out.push(`        ${paint("dim", d.note)}`);
    }
  }
  if (rerun) out.push(...labelled(rerun.text, paint("dim", "rerun    "), 9, 6));
  return out;
}

export function renderDiagnosis(report: Report, paint: Paint): string[] {
  const d = report.diagnosis;
  const lines = d.lines.map(oneLine);
  if (!d.available) return [`  ${paint("dim", lines[0] ?? "no diagnosis: the mutants' fingerprints were not available")}`];
  if (d.matches.length === 0) {
    if (lines.length === 0 || (lines.length === 1 && /^no failures/.test(lines[0]!))) return [`  ${paint("green", "no failures: nothing to diagnose")}`];
    return lines.map((line) => `  ${paint("yellow", line)}`);
  }
  const out: string[] = [];
  for (const m of d.matches) {
    out.push(`  ${paint("cyan", "→")} ${oneLine(m.sentence)}`);
    out.push(`    ${paint("dim", oneLine(m.detail))}`);
  }
  // the lines after the matches' sentences: rows no pitfall explains, rows with no usable answer
  for (const line of lines.slice(d.matches.length)) out.push(`  ${paint("yellow", line)}`);
  return out;
}

function indent(text: string, n: number): string[] {
  return text.split("\n").map((line) => `${" ".repeat(n)}${line}`);
}

/** Each line of a value clipped. */
function clipLines(text: string, max: number): string {
  const lines = text.split("\n");
  const kept = lines.slice(0, 20).map((line) => clipText(line, max));
  if (lines.length > kept.length) kept.push(`… (${lines.length - kept.length} more lines)`);
  return kept.join("\n");
}

/** "expected line1\n         line2": the label (`width` columns wide), then the value's lines aligned after it. */
function labelled(value: string, painted: string, width: number, n: number): string[] {
  const pad = " ".repeat(n + width + 1);
  return value.split("\n").map((line, i) => (i === 0 ? `${" ".repeat(n)}${painted} ${line}` : `${pad}${line}`));
}

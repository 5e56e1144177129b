import xmlbuilder from "xmlbuilder";
import type { Report, ReportRow } from "../report.js";
import { formatPercent, percentOf } from "../../judge/scoring.js";
import { countedRows, differences, fraction, headlineText, optionsOf, partsOf, points, reasonOf, reproLines, sectionsOf, settingsLine, stoppedText, subjectLine } from "./common.js";
import { describeWeighting } from "../../judge/weighting.js";
import { clipText, oneLine, visible } from "./text.js";
import { cellTitle, failingChecks, mcpToolsOf } from "../mcp-tools.js";
import { CONTRACT_HEADING, CONTRACT_SOURCES, contractOf, contractText, type ToolContract } from "../mcp-contract.js";
import type { Section } from "../../corpus/rows.js";

// JUnit XML in the dialect of the strict Jenkins xUnit schema (junit-10.xsd; a copy is in
// test/fixtures/schemas and the tests validate against it with xmllint): <testsuites> around one
// <testsuite> per section, its settings as <properties>, one <testcase> per row. A wrong answer is
// a <failure>, a row without a usable answer an <error>, a row the subject cannot answer (a
// capability it lacks) a <failure> too: it counts against the score, so no test UI may show it
// green as <skipped/> would. Every text is made visible first (a NUL reads `\u0000`, nothing is
// dropped), and CDATA sections are split around each "]]>" so the text survives whole.

/** The longest text kept for one value in a failure's body (the rest is counted). */
const MAX_TEXT = 4_000;

export function renderJUnit(report: Report): string {
  const options = optionsOf(report);
  const sections = sectionsOf(report);
  const seconds = (ms: number) => (Math.max(0, ms) / 1000).toFixed(3);
  const count = (rows: ReportRow[], ...statuses: string[]) => rows.filter((row) => statuses.includes(row.status)).length;
  const stopped = stoppedText(report, MAX_TEXT);

  const root = xmlbuilder.create("testsuites", { version: "1.0", encoding: "UTF-8" }, undefined, { invalidCharReplacement: "\uFFFD" });
  root.att("name", `tool-conformance: ${subjectLine(report)}`);
  const counted = countedRows(report);
  root.att("tests", String(counted.length));
  root.att("failures", String(count(counted, "failed", "skipped")));
  root.att("errors", String(count(counted, "errored")));
  root.att("time", seconds(report.summary.ms));

  // an MCP server's report: a suite per tool (its calls), then its list's and the server's rows; otherwise a suite per section
  const tools = mcpToolsOf(report);
  // the contract tools/list advertises: each tool's findings in its suite's system-out (information, never a testcase)
  const contracts = new Map((tools ? (contractOf(report, tools)?.tools ?? []) : []).map((contract) => [contract.tool, contract]));
  const suites: { name: string; rows: ReportRow[]; fails?: string; contract?: ToolContract }[] = tools
    ? [
        ...tools.tools.map((tool) => ({ name: tool.tool, rows: tool.rows.filter((row) => counted.includes(row)), fails: failingChecks(tool, tools.checks).map((check) => `${cellTitle(tool, check)} (${check.pitfalls})`).join("; "), ...(contracts.has(tool.tool) ? { contract: contracts.get(tool.tool)! } : {}) })),
        ...["mcp-list", "mcp-server"].map((name) => ({ name, rows: tools.others.filter((row) => row.id.startsWith(`${name}/`) && counted.includes(row)) })),
      ].filter((suite) => suite.rows.length > 0)
    : sections.map((section) => ({ name: section, rows: counted.filter((row) => row.section === section) }));
  for (const { name: suiteName, rows, fails, contract } of suites) {
    const section = suiteName;
    const suite = root.ele("testsuite", {
      name: oneLine(suiteName),
      tests: String(rows.length),
      failures: String(count(rows, "failed", "skipped")),
      errors: String(count(rows, "errored")),
      time: seconds(rows.reduce((sum, row) => sum + row.ms, 0)),
      timestamp: report.header.startedAt,
    });
    const properties = suite.ele("properties");
    const passed = rows.filter((row) => row.status === "passed").length;
    const tally = tools ? { passed, rows: rows.length, percent: percentOf(passed, rows.length) } : report.summary.scores.sections[section as Section]!.total;
    for (const [name, value] of [
      ["subject", subjectLine(report)],
      ...(fails !== undefined ? [["checks failing", fails || "none"] as const] : []),
      ...(contract ? [["contract findings", `${contract.lines.length + contract.more} (information only, in system-out)`] as const] : []),
      ["settings", settingsLine(report)],
      ["profile", report.header.profile],
      ["level", report.header.level],
      ["tiers", report.header.tiers.join(",")],
      ["score", `${formatPercent(tally.percent)} (${tally.passed} of ${tally.rows} rows)`],
      // the run's score per part (the corpus, a grader's private rows, generated ones), when there is more than the corpus
      ...partsOf(report).map((part) => [`part ${part}`, `${formatPercent(report.summary.scores.byPart[part]!.percent)} (${fraction(report.summary.scores.byPart[part]!)} rows)`] as const),
      // under a weighting: the run's headline, how it was scored, and this test's points
      ...(report.summary.weighted && report.header.scoring
        ? ([
            ["run score", headlineText(report)],
            ["scoring", describeWeighting(report.header.scoring)],
            ...report.summary.weighted.parts.filter((p) => p.name === section).map((p) => ["points", `${points(p.earned)} of ${points(p.max)}${p.whole ? " (passed whole)" : ""}`] as const),
          ] as const)
        : []),
    ] as const) {
      properties.ele("property", { name, value: oneLine(value) });
    }
    for (const row of rows) {
      const test = suite.ele("testcase", { classname: tools ? `mcp.${oneLine(suiteName)}` : `tool-conformance.${section}`, name: oneLine(row.id), time: seconds(row.ms) });
      if (row.status === "passed") continue;
      const element =
        row.status === "errored"
          ? test.ele("error", { type: "errored", message: clip(reasonOf(row, options)) })
          : test.ele("failure", { type: row.status === "skipped" ? "not answerable" : "failed", message: clip(reasonOf(row, options)) });
      element.raw(cdata(bodyOf(report, row)));
    }
    if (contract) suite.ele("system-out").raw(cdata([`${CONTRACT_HEADING}:`, ...contract.lines.map((line) => `  ${oneLine(contractText(line, MAX_TEXT))}`), ...(contract.more > 0 ? [`  … and ${contract.more} more`] : []), `each rule and the sentence it follows from: ${CONTRACT_SOURCES}`].join("\n")));
    if (stopped) suite.ele("system-err").raw(cdata(`the run stopped: ${stopped.cause}${stopped.stderr ? `\n\nthe end of ${stopped.from}:\n${stopped.stderr}` : ""}`));
  }
  return root.end({ pretty: true }) + "\n";
}

/** A failure's body: expected against actual for each failing check, then what reproduces the row. */
function bodyOf(report: Report, row: ReportRow): string {
  const parts: string[] = [];
  if (row.status === "failed") {
    for (const d of differences(row, optionsOf(report), false)) {
      parts.push(`${d.what}\n  expected:\n${indent(clipText(d.expected, MAX_TEXT))}\n  actual:\n${indent(clipText(d.actual, MAX_TEXT))}${d.note ? `\n  ${d.note}` : ""}`);
    }
  } else {
    parts.push(row.status === "errored" ? `errored: ${oneLine(row.error ?? "no reply")}` : `not answerable: ${oneLine(row.error ?? "skipped")}`);
    if (row.stderr) parts.push(`subject stderr:\n${indent(visible(clipText(row.stderr.trimEnd(), MAX_TEXT)))}`);
  }
  const repro = reproLines(row, MAX_TEXT);
  if (repro.length > 0) parts.push(repro.map((line) => (line.text.includes("\n") ? `${line.label}:\n${indent(line.text)}` : `${line.label}: ${line.text}`)).join("\n"));
  parts.push(`(tier ${row.tier} · rule ${oneLine(row.rule)}${row.pitfalls.length ? ` · guards ${row.pitfalls.join(", ")}` : ""})`);
  return parts.join("\n\n");
}

/**
 * A CDATA section holding `text` whole: a "]]>" inside would end the section early, so the section
 * is closed after its "]]" and a new one opened for the ">". The text is already visible (no
 * character XML cannot hold).
 */
export function cdata(text: string): string {
  return `<![CDATA[${text.replaceAll("]]>", "]]]]><![CDATA[>")}]]>`;
}

function clip(text: string): string {
  return clipText(text, 500);
}

function indent(text: string): string {
  return text
    .split("\n")
    .map((line) => `    ${line}`)
    .join("\n");
}

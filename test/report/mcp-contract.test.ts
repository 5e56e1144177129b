import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../src/corpus/load.js";
import { score } from "../../src/judge/scoring.js";
import { buildReport, SUBJECT_TEXT_CAPS, withWeighting } from "../../src/report/build-report.js";
import { formatReport } from "../../src/report/format-report.js";
import { contractOf } from "../../src/report/mcp-contract.js";
import { mcpToolsOf } from "../../src/report/mcp-tools.js";
import { parseReport } from "../../src/report/read-report.js";
import type { Report, ReportRow } from "../../src/report/report.js";
import { renderGithubActions } from "../../src/report/reporters/github-actions.js";
import { renderHtml } from "../../src/report/reporters/html.js";
import { renderJUnit } from "../../src/report/reporters/junit.js";
import { renderMarkdown } from "../../src/report/reporters/markdown.js";
import { renderTerminal } from "../../src/report/reporters/terminal.js";
import type { Check } from "../../src/run/run-row.js";
import type { ToolLint } from "../../src/subjects/mcp/lint.js";
import { defaultWeighting } from "../../src/judge/weighting.js";

// The contract tools/list advertises, as every reporter shows it beside the per-tool table: the
// lint's findings (summary.lint) and, with --mcp-run, a tool stricter than its own schema; in the
// per-tool table's order; information only (the scores and statuses are the rows' alone); every
// server text inert.

const options = { level: "messages" as const, tiers: ["core" as const] };
const pass = (what: string, level: Check["level"] = "verdict"): Check => ({ level, tier: "core", what, expected: undefined, actual: undefined, pass: true });
const refusedOk = pass("refused before the tool runs");
const answers = pass("the server keeps answering");
const ran: Check = { level: "verdict", tier: "core", what: "refused before the tool runs", expected: { ran: false }, actual: { ran: true, answer: "ran", text: "ok", rule: "a normal result" }, pass: false };
const refusedValid: Check = { level: "verdict", tier: "core", what: "a valid call runs the tool", expected: { ran: true }, actual: { ran: false, answer: "refused", text: "days: expected integer", rule: "isError in a validator's words" }, pass: false };

function row(id: string, rule: string, checks: Check[]): ReportRow {
  const status = checks.every((c) => c.pass) ? "passed" : "failed";
  return { kind: "row", id, section: "TestCallNeverPanics", tier: "core", rule, pitfalls: [], status, checks, ms: 1, levels: { verdict: status, paths: status, messages: status }, ...(status === "failed" ? { repro: { why: "w" } } : {}) };
}

const bait = "<img src=x onerror=alert(1)> @octocat https://evil.example/x #12";
const rows: ReportRow[] = [
  row("mcp/fine/non-object/array", "mcp/type/object", [refusedOk, answers]),
  row("mcp/lax/non-object/array", "mcp/type/object", [refusedOk, answers]),
  row("mcp/lax/extra-property", "mcp/additionalProperties", [ran, answers]),
  row("mcp/strict/non-object/array", "mcp/type/object", [refusedOk, answers]),
  row("mcp-accept/strict/integer-3.0/days", "mcp-accept/type/integer", [refusedValid, answers]),
  row(`mcp/${bait}/non-object/array`, "mcp/type/object", [refusedOk, answers]),
];
const lint: ToolLint[] = [
  { tool: "fine", findings: [{ rule: "unbounded-string", at: "$.properties.q" }] },
  { tool: "lax", findings: [{ rule: "open-object", at: "$" }, { rule: "no-required", at: "$" }] },
  { tool: bait, findings: [{ rule: "name-mcp" }, { rule: "unbounded-string", at: `$.properties.${bait}` }, { rule: "not-judged", detail: `format at $.properties.${bait}` }], more: 7 },
];

function reportOf(withLint: readonly ToolLint[] | undefined): Report {
  const scores = score(rows, options);
  const run = { label: "mcp:x", hello: { ready: true as const, version: 0, implementation: { name: "x", language: "MCP 2025-11-25" }, profiles: ["ag02"], capabilities: ["mcp"] }, results: rows, startedAt: "2026-01-01T00:00:00.000Z", finishedAt: "2026-01-01T00:00:01.000Z", ms: 1 };
  return buildReport(run, { ...options, profile: "ag02", filters: {}, corpusRows: rows.length, scores, diagnosis: { failing: 2, errored: 0, matches: [], unexplained: [], lines: ["no diagnosis"] }, diagnosed: false, ...(withLint ? { lint: withLint } : {}) });
}

describe("the contract in the report", () => {
  const report = reportOf(lint);

  it("is the lint's findings in the per-tool table's order (worst first), then a tool stricter than its own schema said so", () => {
    const contract = contractOf(report, mcpToolsOf(report))!;
    // worst first, then by name ("<" sorts before "f")
    expect(contract.tools.map((t) => t.tool)).toEqual(["lax", "strict", bait, "fine"]);
    expect(contract.tools[1]!.lines).toEqual([{ rule: "stricter", where: "", words: "stricter than its own schema: 1 valid call its inputSchema accepts was refused", quote: "mcp-accept/strict/integer-3.0/days" }]);
    expect(contract.tools[2]!.lines.map((l) => l.where)).toEqual(["name", `$.properties.${bait}`, ""]);
    expect(contract.findings).toBe(1 + 1 + 2 + 3 + 7);
  });

  it("changes no score, status or gate: the report with it and without it differ in summary.lint alone", () => {
    const without = reportOf(undefined);
    const { lint: kept, ...summary } = report.summary;
    expect(kept).toHaveLength(3);
    expect(summary).toEqual(without.summary);
    expect(report.rows).toEqual(without.rows);
    // read back: recomputed and accepted; a weighting keeps it
    const read = parseReport(formatReport(report));
    expect(read.summary.lint).toEqual(report.summary.lint);
    expect(withWeighting(report, defaultWeighting()).summary.lint).toEqual(report.summary.lint);
  });

  it("a report without a lint (another subject, an older report) and no tool stricter has no contract", () => {
    const plain = { ...reportOf(undefined), rows: rows.filter((r) => !r.id.startsWith("mcp-accept/")) };
    expect(contractOf(plain, mcpToolsOf(plain))).toBeUndefined();
    expect(renderMarkdown(plain)).not.toContain("The contract tools/list advertises");
  });

  it("an empty lint says there is nothing to say, in every reporter", () => {
    const clean = { ...reportOf([]), rows: rows.filter((r) => !r.id.startsWith("mcp-accept/")) };
    expect(contractOf(clean, mcpToolsOf(clean))!.tools).toEqual([]);
    expect(renderTerminal(clean, { paint: (_s, t) => t })).toMatch(/the contract tools\/list advertises, linted .*\n {2}nothing to say: every tool's objects are closed/);
    expect(renderMarkdown(clean)).toContain("nothing to say: every tool");
    expect(renderHtml(clean)).toContain('<section class="contract"><h2>The contract tools/list advertises, linted');
  });

  it("is kept within caps: each text clipped, past the report's count each tool's findings counted in more", () => {
    const long = "p".repeat(5_000);
    const many: ToolLint[] = Array.from({ length: 100 }, (_, i) => ({ tool: `t${i}`, findings: Array.from({ length: 25 }, () => ({ rule: "unbounded-string" as const, at: `$.properties.${long}` })) }));
    const kept = reportOf(many).summary.lint!;
    expect(kept.reduce((n, t) => n + t.findings.length, 0)).toBe(SUBJECT_TEXT_CAPS.lintFindings);
    expect(kept.reduce((n, t) => n + t.findings.length + (t.more ?? 0), 0)).toBe(2_500);
    expect(kept[0]!.findings[0]!.at!.length).toBeLessThan(600);
    expect(kept.at(-1)).toEqual({ tool: "t99", findings: [], more: 25 });
  });

  it("a damaged lint is refused by every reader", () => {
    const text = formatReport(report).replace('"lint":[{"tool":"fine"', '"lint":[{"tool":7');
    expect(() => parseReport(text)).toThrow(/damaged: the summary's lint is not a list of tools/);
  });
});

describe("every reporter shows it beside the per-tool table, inert", () => {
  const report = reportOf(lint);

  it("terminal: after the table, a tool at a time, before the failing tools' calls", () => {
    const text = renderTerminal(report, { paint: (_s, t) => t });
    const table = text.indexOf("tools (4), worst first");
    const contract = text.indexOf("the contract tools/list advertises, linted (information only");
    const calls = text.indexOf("lax fails:");
    expect(table).toBeGreaterThan(0);
    expect(contract).toBeGreaterThan(table);
    expect(calls).toBeGreaterThan(contract);
    expect(text).toContain("  lax\n    · $: accepts properties it does not list: additionalProperties is absent or true (set it to false)\n    · $: requires nothing: no required list, so {} is a valid call");
    expect(text).toContain("    · stricter than its own schema: 1 valid call its inputSchema accepts was refused (mcp-accept/strict/integer-3.0/days)");
    expect(text).toContain("    … and 7 more");
    // the per-tool view says the same of the failing valid cell
    expect(text).toContain("strict fails: stricter than its own schema: refuses a valid call (--mcp-run)");
  });

  it("Markdown: a table, every server text in a code span, nothing live outside code", () => {
    const md = renderMarkdown(report);
    expect(md.indexOf("#### The contract tools/list advertises")).toBeGreaterThan(md.indexOf("### Tools (4), worst first"));
    expect(md).toContain("| `lax` | `$` | accepts properties it does not list: additionalProperties is absent or true (set it to false) |");
    const outside = md.replace(/```[\s\S]*?```/g, "").replace(/`[^`\n]*`/g, "").replace(/<code>[^<]*<\/code>/g, "");
    expect(outside).not.toMatch(/<img|@octocat|https:|#12/);
  });

  it("HTML: a table after the tools' table, escaped", () => {
    const html = renderHtml(report);
    expect(html.indexOf('<section class="contract">')).toBeGreaterThan(html.indexOf('<section class="tools">'));
    expect(html).toContain('<tr class="stricter">');
    expect(html).not.toContain("<img src=x");
    expect(html).toContain("&lt;img src=x onerror=alert(1)&gt;");
  });

  it("JUnit: the tool's suite carries it as a property and in system-out, valid against junit-10.xsd", () => {
    const xml = renderJUnit(report);
    const file = join(mkdtempSync(join(tmpdir(), "tc-contract-")), "junit.xml");
    writeFileSync(file, xml);
    const result = spawnSync("xmllint", ["--noout", "--schema", join(PACKAGE_ROOT, "test", "fixtures", "schemas", "junit-10.xsd"), file], { encoding: "utf8" });
    if (result.error) throw new Error(`xmllint is needed (Debian: libxml2-utils): ${result.error.message}`);
    expect(result.status, result.stderr).toBe(0);
    expect(xml).toContain('<property name="contract findings" value="2 (information only, in system-out)"/>');
    expect(xml).toMatch(/<system-out><!\[CDATA\[The contract tools\/list advertises, linted \(information only: no score or exit code depends on it\):\n {2}\$: accepts properties it does not list/);
    // a finding is never a testcase: the counts are the rows'
    expect(xml).toMatch(/<testsuites [^>]*tests="6" failures="2" errors="0"/);
  });

  it("GitHub Actions: one notice, never an error annotation", () => {
    const lines = renderGithubActions(report).trim().split("\n");
    const notices = lines.filter((line) => line.startsWith("::notice title=tool-conformance%3A the contract"));
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatch(/^::notice title=tool-conformance%3A the contract tools\/list advertises%3A 14 findings on 4 tools::lax%0A/);
    expect(lines.filter((line) => line.startsWith("::error")).every((line) => !line.includes("the contract"))).toBe(true);
  });
});

describe("a long answer in a check's actual", () => {
  it("keeps the actual's shape, its long text clipped: a tool that ran on 100,000 characters of output is still seen to have run", () => {
    const checks: Check[] = [{ level: "verdict", tier: "core", what: "refused before the tool runs", expected: { ran: false }, actual: { ran: true, answer: "ran", text: "h".repeat(100_000), rule: "a normal result" }, pass: false }];
    const long = [row("mcp/t/extra-property", "mcp/additionalProperties", checks)];
    const scores = score(long, options);
    const run = { label: "mcp:x", hello: { ready: true as const, version: 0, implementation: { name: "x", language: "MCP 2025-11-25" }, profiles: ["ag02"], capabilities: ["mcp"] }, results: long, startedAt: "2026-01-01T00:00:00.000Z", finishedAt: "2026-01-01T00:00:01.000Z", ms: 1 };
    const built = buildReport(run, { ...options, profile: "ag02", filters: {}, corpusRows: 1, scores, diagnosis: { failing: 1, errored: 0, matches: [], unexplained: [], lines: [] }, diagnosed: false });
    const actual = built.rows[0]!.checks[0]!.actual as { ran: boolean; answer: string; text: string; rule: string };
    expect(actual).toMatchObject({ ran: true, answer: "ran", rule: "a normal result" });
    expect(actual.text).toMatch(/^h+… \([\d,]+ more characters\)$/);
    expect(JSON.stringify(actual).length).toBeLessThanOrEqual(SUBJECT_TEXT_CAPS.check);
  });
});

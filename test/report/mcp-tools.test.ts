import { describe, expect, it } from "vitest";
import type { Check } from "../../src/run/run-row.js";
import type { Report, ReportRow } from "../../src/report/report.js";
import { mcpTools } from "../../src/report/mcp-tools.js";
import { renderMarkdown } from "../../src/report/reporters/markdown.js";
import { renderHtml } from "../../src/report/reporters/html.js";
import { reasonOf } from "../../src/report/reporters/common.js";
import { score } from "../../src/judge/scoring.js";
import { buildReport } from "../../src/report/build-report.js";
import { renderTerminal } from "../../src/report/reporters/terminal.js";

// The per-tool model on rows written by hand, as run/mcp/checks.ts words its checks: which tool
// fails which check, worst first; and a hostile tool name and answer kept inert.

const options = { level: "messages" as const, tiers: ["core" as const] };
const refusedOk: Check = { level: "verdict", tier: "core", what: "refused before the tool runs", expected: undefined, actual: undefined, pass: true };
const answers: Check = { level: "verdict", tier: "core", what: "the server keeps answering", expected: undefined, actual: undefined, pass: true };
const readable: Check = { level: "verdict", tier: "core", what: "the refusal is an error the model reads", expected: undefined, actual: undefined, pass: true };
const named: Check = { level: "paths", tier: "core", what: "the refusal names what is wrong", expected: undefined, actual: undefined, pass: true };
const ran = (text: string): Check => ({ level: "verdict", tier: "core", what: "refused before the tool runs", expected: { ran: false }, actual: { ran: true, answer: "ran", text, rule: "a normal result" }, pass: false });
const unnamed: Check = { level: "paths", tier: "core", what: "the refusal names what is wrong", expected: { named: true }, actual: { named: false, answer: "refused without saying what", text: "invalid input", rule: "isError naming nothing" }, pass: false };

function row(id: string, rule: string, checks: Check[], args?: string, tool = id.split("/")[1]!): ReportRow {
  const status = checks.every((c) => c.pass) ? "passed" : "failed";
  return {
    kind: "row",
    id,
    section: "TestCallNeverPanics",
    tier: "core",
    rule,
    pitfalls: [],
    status,
    checks,
    ms: 1,
    levels: { verdict: status, paths: status, messages: status },
    ...(status === "failed" ? { repro: { why: "w", ...(args !== undefined ? { steps: [`tools/call ${JSON.stringify({ name: tool, arguments: JSON.parse(args) })}`] } : {}) } } : {}),
  };
}

const rows: ReportRow[] = [
  // "good": refuses everything it is sent, readably, naming the argument
  row("mcp/good/non-object/array", "mcp/type/object", [refusedOk, answers, readable, named]),
  row("mcp/good/missing-required/q", "mcp/required", [refusedOk, answers, readable, named]),
  // "lax": runs on an unknown property and on "3", and names nothing when it refuses
  row("mcp/lax/non-object/array", "mcp/type/object", [refusedOk, answers, readable, unnamed], '["x"]'),
  row("mcp/lax/extra-property", "mcp/additionalProperties", [ran("ok"), answers], '{"q":"a","tool_conformance_extra":"x"}'),
  row("mcp/lax/integer-as-string/n", "mcp/type/integer", [ran("ok"), answers], '{"q":"a","n":"3"}'),
  // "half": one bound let through
  row("mcp/half/non-object/array", "mcp/type/object", [refusedOk, answers, readable, named]),
  row("mcp/half/too-long/s", "mcp/maxLength", [ran("ok"), answers], '{"s":"aaaa"}'),
  row("mcp-list/stable", "list/stable", [{ level: "verdict", tier: "core", what: "the list is the same twice", expected: undefined, actual: undefined, pass: true }]),
];

describe("mcpTools: rows → tools × checks", () => {
  const view = mcpTools(rows, options);

  it("puts the worst tool first and says which checks each fails", () => {
    expect(view.tools.map((t) => [t.tool, t.failing])).toEqual([
      ["lax", 3],
      ["half", 1],
      ["good", 0],
    ]);
    const lax = view.tools[0]!.cells;
    expect([lax.unknown, lax["string-number"], lax.named, lax.type, lax.readable, lax.survived, lax.bounds, lax.required]).toEqual(["fail", "fail", "fail", "pass", "pass", "pass", "none", "none"]);
    expect(view.tools[1]!.cells.bounds).toBe("fail");
    expect(view.tools[2]!.cells.required).toBe("pass");
    expect(view.others.map((r) => r.id)).toEqual(["mcp-list/stable"]);
    // no valid calls were made: no column for them
    expect(view.checks.map((c) => c.key)).not.toContain("valid");
  });

  it("keeps the call sent and words the verdict for an author", () => {
    const failure = view.tools[0]!.failures.find((f) => f.column === "unknown")!;
    expect(failure.call).toBe('tools/call {"name":"lax","arguments":{"q":"a","tool_conformance_extra":"x"}}');
    expect(failure.sentence).toBe('the tool ran on {"q":"a","tool_conformance_extra":"x"}: its inputSchema refuses it (additionalProperties: false), so it should have been refused before running (answered "ok": classed ran by the rule "a normal result")');
    expect(reasonOf(rows[3]!, options)).toBe(failure.sentence);
    expect(reasonOf(rows[3]!, options)).not.toMatch(/where false is expected|not expected at all/);
  });
});

describe("a refusal that names another of the tool's properties", () => {
  const other: Check = { level: "paths", tier: "core", what: "the refusal names what is wrong", expected: { named: true }, actual: { named: false, other: ["id"], answer: "refused without saying what", text: "id is required for get", rule: "isError in a refusal's words, naming nothing wrong" }, pass: false };
  const masked = row("mcp/wit/extra-property", "mcp/additionalProperties", [refusedOk, answers, readable, other], '{"action":"get","tool_conformance_extra":"x"}');
  it("says the refusal may be of that property, and that the probe's own rule is not shown enforced", () => {
    expect(reasonOf(masked, options)).toBe('the refusal on {"action":"get","tool_conformance_extra":"x"} does not name what is wrong (additionalProperties: false) but "id": it may be of that, and whether additionalProperties: false is enforced is not shown (answered "id is required for get": classed refused without saying what by the rule "isError in a refusal\'s words, naming nothing wrong")');
  });
});

describe("a hostile tool name and answer stay inert", () => {
  const bait = "<img src=x onerror=alert(1)> @octocat https://evil.example/x #12 [l](https://evil.example)";
  const hostile = [
    row(`mcp/${bait}/non-object/array`, "mcp/type/object", [refusedOk, answers, readable, named], undefined, bait),
    row(`mcp/${bait}/extra-property`, "mcp/additionalProperties", [ran(bait), answers], '{"tool_conformance_extra":"x"}', bait),
  ];
  const scores = score(hostile, options);
  const report: Report = {
    header: { kind: "header", format: "tool-conformance-report", formatVersion: 1, tool: { name: "tool-conformance", version: "0" }, subject: { label: "mcp:x", implementation: { name: "x", language: "MCP" }, capabilities: ["mcp"] }, profile: "ag02", level: "messages", tiers: ["core"], filters: {}, startedAt: "2026-01-01T00:00:00.000Z", corpus: { rows: 2, selected: 2 } },
    rows: hostile,
    diagnosis: { kind: "diagnosis", available: false, failing: 1, errored: 0, matches: [], unexplained: [], lines: ["no diagnosis"] },
    summary: { kind: "summary", scores, ms: 1 },
    footer: { kind: "footer", rows: 2, finishedAt: "2026-01-01T00:00:01.000Z" },
  };

  it("in Markdown: the tool's row and details hold no live link, mention or HTML", () => {
    const md = renderMarkdown(report);
    expect(md).toContain("### Tools (1), worst first");
    const table = md.split("\n").find((line) => line.includes("@octocat") && line.startsWith("| "))!;
    expect(table.startsWith("| `")).toBe(true);
    // outside code (fences, spans, <code>, which GitHub neither links nor mentions in), no bait survives
    const outside = md.replace(/```[\s\S]*?```/g, "").replace(/`[^`\n]*`/g, "").replace(/<code>[^<]*<\/code>/g, "");
    expect(outside).not.toMatch(/<img|@octocat|https:|#12|\]\(/);
  });

  it("in Markdown: a flag that is no FLAGGED is a plain quote, never an empty bold", () => {
    const md = renderMarkdown({ ...report, summary: { ...report.summary, flags: ["mcp: protocol version 2025-11-25", "FLAGGED: carries files"] } });
    expect(md).toContain("> `mcp: protocol version 2025-11-25`");
    expect(md).toContain("> **FLAGGED:** ");
    expect(md).not.toContain("****");
  });

  it("in HTML: escaped everywhere", () => {
    const html = renderHtml(report);
    expect(html).toContain('<section class="tools">');
    expect(html).not.toContain("<img src=x");
    expect(html).toContain("&lt;img src=x onerror=alert(1)&gt;");
  });
});

describe("the terminal's count of failing rows beside the per-tool table", () => {
  it("says the rows it counts are the list's and the server's, the tools' own told per tool", () => {
    const unstable = row("mcp-list/stable", "list/stable", [{ level: "verdict", tier: "core", what: "the list is the same twice", expected: { same: true }, actual: { same: false }, pass: false }]);
    const all = [...rows.filter((r) => r.id !== "mcp-list/stable"), unstable];
    const run = { label: "mcp:x", hello: { ready: true as const, version: 0, implementation: { name: "x", language: "MCP 2025-11-25" }, profiles: ["ag02"], capabilities: ["mcp"] }, results: all, startedAt: "2026-01-01T00:00:00.000Z", finishedAt: "2026-01-01T00:00:01.000Z", ms: 1 };
    const report = buildReport(run, { ...options, profile: "ag02", filters: {}, corpusRows: all.length, scores: score(all, options), diagnosis: { failing: 5, errored: 0, matches: [], unexplained: [], lines: ["no diagnosis"] }, diagnosed: false });
    const text = renderTerminal(report, { paint: (_s, t) => t });
    // five failing rows in all: one of the list, four of the tools ("lax" three, "half" one)
    expect(text).toContain("failing rows of the tool list and the server (1); the tools' own are told per tool, below the score");
    expect(text).not.toMatch(/^failing rows \(/m);
    expect(text.indexOf("tools (3), worst first")).toBeGreaterThan(text.indexOf("failing rows of the tool list"));
  });
});

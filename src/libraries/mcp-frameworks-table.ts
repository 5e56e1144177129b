import { formatPercent } from "../judge/scoring.js";
import type { ReportRow } from "../report/report.js";
import { markdownCell, markdownText } from "../report/reporters/inert.js";
import type { ScoredMcpServer, WorkedCall } from "./mcp-servers.js";
import { clip, compact, saidOf, serverSection, steadyPaths } from "./mcp-servers-table.js";

// docs/mcp-frameworks.md: one small server per MCP server framework (implementations/mcp-frameworks/),
// each serving the same tools, scored on both sides: invalid calls (refused?) and valid ones (run?).
// Deterministic (no timings, dates or paths), so CI regenerates it and compares byte for byte. Every
// text a server wrote is shown inert (reporters/inert.ts), as on docs/mcp-servers.md.

/** The seed's worked example, sent to each server's get_weather once it is scored: how its refusal reads. */
export const WORKED_CALL: WorkedCall = { tool: "get_weather", argumentsText: '{"days": "3", "unit": "kelvin", "country": "FR"}' };

/** The key the probes add where additionalProperties is false (src/subjects/mcp/probes.ts). */
const EXTRA_KEY = "tool_conformance_extra";
const REFUSAL_CHARS = 160;

/** What one framework did, from its report: the figures of its line in the table. */
export interface FrameworkFacts {
  invalid: number;
  ran: number;
  valid: number;
  /** The valid calls refused, by row. */
  refusedValidRows: number;
  /** Their kinds (`integer-3.0/days`), once each. */
  refusedValid: string[];
  coerces: string;
  unknownKey: string;
  pitfalls: string[];
  /** Failing rows on neither side (the server's own rows: an unknown tool, a malformed frame). */
  otherFailing: string[];
  verdict: string;
}

export function frameworkFacts({ report }: ScoredMcpServer): FrameworkFacts {
  const invalidRows = report.rows.filter((row) => row.id.startsWith("mcp/"));
  const ranRows = invalidRows.filter(ranOn);
  const validRows = report.rows.filter((row) => row.id.startsWith("mcp-accept/"));
  const refusedValid = validRows.filter((row) => row.status !== "passed").map((row) => row.id.split("/").slice(2).join("/"));
  const pitfalls = report.diagnosis.matches.map((match) => match.id);
  const otherFailing = report.rows.filter((row) => !row.id.startsWith("mcp/") && !row.id.startsWith("mcp-accept/") && row.status !== "passed").map((row) => row.id);
  const facts = { invalid: invalidRows.length, ran: ranRows.length, valid: validRows.length, refusedValidRows: refusedValid.length, refusedValid: [...new Set(refusedValid)].sort(), coerces: coercion(invalidRows), unknownKey: unknownKey(invalidRows), pitfalls, otherFailing };
  return { ...facts, verdict: verdictOf(facts, report.summary.stopped !== undefined) };
}

export function mcpFrameworksMarkdown(servers: ScoredMcpServer[]): string {
  const out: string[] = [
    "# Which MCP server framework keeps the contract",
    "",
    "<!-- Written by `npm run mcp-frameworks` (tool-conformance mcp-frameworks --write docs/mcp-frameworks.md); CI checks it is current. -->",
    "",
    "One small server per framework, in `implementations/mcp-frameworks/` (its own pinned `package.json` and lockfile;",
    "mcp-framework, on zod 3, in a folder of its own), each written as that framework's own documentation teaches (a few",
    "also as their README's first example writes them) and each serving **the same four tools**: the seed's `get_weather`",
    "(`city` a string of at least 1, `days` an integer 1..7, `unit` one of `c`, `f`, nothing else), `lookup` (a pattern,",
    "a string 2..5 long), `book_trip` (a nested object, integer bounds, an enum of numbers) and `tag_items` (an array of",
    "1..3 non-empty strings), every object `additionalProperties: false`. Each tool answers its arguments back, so what",
    "reached it is seen. An HTTP-side framework (`@hono/mcp`, `mcp-handler`) answers through its own fetch handler, driven",
    "from stdio with no socket (`stdio-http.mjs`: each line a POST `Request`, each JSON or SSE message of the answer a line).",
    "Each server is scored as `tool-conformance score --mcp \"COMMAND\" --sandbox bwrap --mcp-run TOOLS`",
    "scores any server: **invalid arguments** (each proven invalid by the reference against the tool's own `inputSchema`:",
    "refused?) and, since these tools are our own, **valid ones** to every tool (run? `3.0` for an integer, the bounds",
    "themselves, `maxLength` astral characters, a pattern matched mid-string, an enum's number written `1.0`).",
    "[docs/mcp.md](mcp.md) says how each answer is classed; the pitfalls are the seed's.",
    "",
  ];
  out.push(
    "| framework | version | how its tools are declared | score | invalid calls that ran | valid calls refused | `\"3\"` for an integer | an unknown key | pitfalls | verdict |",
    "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
  );
  for (const server of servers) {
    const facts = frameworkFacts(server);
    const total = server.report.summary.scores.total;
    const refused = facts.refusedValid.length > 0 ? `${facts.refusedValidRows} of ${facts.valid}: ${facts.refusedValid.map((id) => markdownText(id)).join(", ")}` : `0 of ${facts.valid}`;
    out.push(`| [${server.entry.name}](#${anchor(server)}) | ${server.version} | ${markdownCell(server.entry.kind)} | **${formatPercent(total.percent)}** | ${facts.ran} of ${facts.invalid} | ${refused} | ${facts.coerces} | ${facts.unknownKey} | ${facts.pitfalls.length > 0 ? facts.pitfalls.join(", ") : "none"} | ${facts.verdict} |`);
  }
  out.push("", `**How a refusal reads**: the seed's worked call, \`get_weather\` with \`${WORKED_CALL.argumentsText}\` (no \`city\`, \`days\` a string, \`unit\` not listed, \`country\` unknown), answered by each:`, "", "| framework | its answer |", "| --- | --- |");
  for (const server of servers) out.push(`| ${server.entry.name} | ${server.worked !== undefined ? markdownCell(clip(compact(server.worked)).slice(0, REFUSAL_CHARS + 1)) : "–"} |`);
  for (const server of servers) out.push("", ...serverSection(server));
  return `${out.map(steadyPaths).join("\n")}\n`;
}

function anchor({ entry, version }: ScoredMcpServer): string {
  return `${entry.name} ${version}`.toLowerCase().replace(/[^a-z0-9 -]/g, "").replace(/ /g, "-");
}

function ranOn(row: ReportRow): boolean {
  return row.checks.some((check) => saidOf(check.actual)?.answer?.startsWith("ran") === true);
}

/** The text the tool answered on a row it ran on (its arguments back). */
function ranText(row: ReportRow): string {
  for (const check of row.checks) {
    const said = saidOf(check.actual);
    if (said?.answer?.startsWith("ran") === true) return said.text ?? "";
  }
  return "";
}

/** `"3"` where an integer is wanted: refused, coerced to 3 (the tool got a number), or passed as it came. */
function coercion(rows: ReportRow[]): string {
  const probes = rows.filter((row) => /\/integer-as-string\//.test(row.id));
  if (probes.length === 0) return "–";
  const ran = probes.filter(ranOn);
  if (ran.length === 0) return "refused";
  const coerced = ran.filter((row) => !ranText(row).includes('"3"'));
  return coerced.length === ran.length ? "coerced to 3" : coerced.length === 0 ? "reaches the tool as the string" : "coerced on some";
}

/** A property outside properties: refused, stripped before the tool (the tool never sees it), or passed through. */
function unknownKey(rows: ReportRow[]): string {
  const probes = rows.filter((row) => /\/extra-property/.test(row.id));
  if (probes.length === 0) return "–";
  const ran = probes.filter(ranOn);
  if (ran.length === 0) return "refused";
  const kept = ran.filter((row) => ranText(row).includes(EXTRA_KEY));
  return kept.length === ran.length ? "passed to the tool" : kept.length === 0 ? "stripped, the tool runs" : "stripped on some";
}

function verdictOf(facts: Omit<FrameworkFacts, "verdict">, stopped: boolean): string {
  if (stopped) return "not scored to the end";
  const refusedValid = facts.refusedValidRows;
  const others = facts.otherFailing.length > 0 ? `; fails ${facts.otherFailing.map((id) => markdownText(id)).join(", ")}` : "";
  if (facts.ran === 0 && refusedValid === 0) return `keeps the contract: every invalid call refused, every valid call run${others}`;
  const parts: string[] = [];
  if (facts.ran === facts.invalid) parts.push("validates nothing: every invalid call reaches the tool");
  else if (facts.ran > 0) parts.push(`${facts.ran} invalid call${facts.ran === 1 ? "" : "s"} reach the tool`);
  else parts.push("every invalid call refused");
  if (refusedValid > 0) parts.push(`but ${refusedValid} valid call${refusedValid === 1 ? "" : "s"} refused`);
  return `${parts.join(", ")}${others}`;
}

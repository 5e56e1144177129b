import type { LintRule } from "../subjects/mcp/lint.js";
import type { McpToolsView } from "./mcp-tools.js";
import type { Report } from "./report.js";
import { clipText } from "./reporters/text.js";

// The contract an MCP server advertises in tools/list, as every reporter shows it beside the
// per-tool table: the lint's findings (summary.lint) in an author's words, and, with --mcp-run,
// each tool that refused a valid call: stricter than its own schema. Information only: no score,
// status or exit code depends on any of it. Every `where` and `quote` is the server's text, made
// inert by each reporter.

export type ContractRule = LintRule | "stricter";

export interface ContractLine {
  rule: ContractRule;
  /** Where: a path in the inputSchema ($, $.properties.city), "name", or "" when the quote says where. */
  where: string;
  /** Our words. */
  words: string;
  /** The server's text the words quote (what was not judged; the calls refused), when any. */
  quote?: string;
}

export interface ToolContract {
  tool: string;
  lines: ContractLine[];
  /** Findings past the report's caps, counted, not listed. */
  more: number;
}

export interface ContractView {
  /** The tools with something to say: the per-tool table's order (worst first), then any other. */
  tools: ToolContract[];
  /** Lines over all tools, and those past the caps. */
  findings: number;
}

/** Each rule in an author's words: what the schema or the name lets through, and what closes it. */
export const CONTRACT_WORDS: Record<ContractRule, string> = {
  "open-object": "accepts properties it does not list: additionalProperties is absent or true (set it to false)",
  "no-required": "requires nothing: no required list, so {} is a valid call (list the properties a call needs)",
  "unbounded-string": "a string of any length: no maxLength, enum, const or anchored pattern (set maxLength)",
  "name-mcp": "the name is outside MCP's rule: 1 to 128 of A-Za-z0-9 _ - .",
  "name-seed": "the name is outside the seed's ^[A-Za-z0-9_-]{1,64}$ (a \".\", or over 64 characters): model APIs with that rule refuse it",
  "not-judged": "not judged, outside the subset: the score cannot hold the tool to it",
  stricter: "stricter than its own schema: refuses valid calls its inputSchema accepts",
};

/** Where a reader finds each rule and the sentence it follows from: a document of this package, and its section. */
export const CONTRACT_DOC = "docs/mcp.md";
export const CONTRACT_SECTION = "The advertised contract, linted";
export const CONTRACT_SOURCES = `${CONTRACT_DOC}, "${CONTRACT_SECTION}"`;

/** The heading every reporter gives the section. */
export const CONTRACT_HEADING = "The contract tools/list advertises, linted (information only: no score or exit code depends on it)";

/** What a report with nothing to say says. */
export const CONTRACT_CLEAN = "nothing to say: every tool's objects are closed and list what they require, its strings are bounded, its name is within the seed's rule and MCP's, and its whole schema is judged";

/**
 * The contract of an MCP server's report, or undefined when it has neither a lint (another
 * subject, a report written before the lint) nor a tool stricter than its schema.
 */
export function contractOf(report: Report, tools: McpToolsView | undefined): ContractView | undefined {
  const lint = report.summary.lint;
  const stricter = (tools?.tools ?? []).filter((tool) => tool.cells.valid === "fail");
  if (lint === undefined && stricter.length === 0) return undefined;
  const byTool = new Map<string, ToolContract>();
  const entry = (tool: string) => byTool.get(tool) ?? byTool.set(tool, { tool, lines: [], more: 0 }).get(tool)!;
  for (const tool of lint ?? []) {
    const contract = entry(tool.tool);
    for (const finding of tool.findings) {
      const words = CONTRACT_WORDS[finding.rule as ContractRule] ?? finding.rule;
      const where = finding.at ?? (finding.rule === "name-mcp" || finding.rule === "name-seed" ? "name" : "");
      contract.lines.push({ rule: finding.rule, where, words, ...(finding.detail !== undefined ? { quote: finding.detail } : {}) });
    }
    contract.more += tool.more ?? 0;
  }
  for (const tool of stricter) {
    const refused = tool.failures.filter((failure) => failure.column === "valid" && failure.row.status === "failed").map((failure) => failure.row.id);
    const one = refused.length === 1;
    const words = `stricter than its own schema: ${refused.length} valid call${one ? "" : "s"} its inputSchema accepts ${one ? "was" : "were"} refused`;
    entry(tool.tool).lines.push({ rule: "stricter", where: "", words, quote: refused.join(", ") });
  }
  // the table's order first, so that the worst tool's contract is read first
  const order = new Map((tools?.tools ?? []).map((tool, i) => [tool.tool, i]));
  const listed = [...byTool.values()].filter((contract) => contract.lines.length > 0 || contract.more > 0);
  const rank = (contract: ToolContract) => order.get(contract.tool) ?? order.size;
  const sorted = listed.map((contract, i) => ({ contract, i })).sort((a, b) => rank(a.contract) - rank(b.contract) || a.i - b.i).map(({ contract }) => contract);
  return { tools: sorted, findings: sorted.reduce((sum, contract) => sum + contract.lines.length + contract.more, 0) };
}

/** A line as plain text (terminal, JUnit, annotations): `$.properties.city: a string of any length: … (quote)`; the caller makes it visible. */
export function contractText(line: ContractLine, maxQuote = 300): string {
  const quote = line.quote !== undefined ? ` (${clipText(line.quote, maxQuote)})` : "";
  return `${line.where ? `${line.where}: ` : ""}${line.words}${quote}`;
}

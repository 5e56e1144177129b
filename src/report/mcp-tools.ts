import { isActive, type ScoreOptions } from "../run/outcome.js";
import type { Check } from "../run/run-row.js";
import { WHAT } from "../run/mcp/checks.js";
import { answerOf, isMcpRow, mcpSentence, type McpAnswer } from "./mcp-words.js";
import type { Report, ReportRow } from "./report.js";

// An MCP server's report seen per tool: each tool × each check an author asks about (does it refuse
// a missing required property? a wrong type? …), a cell pass, fail, errored or not probed, and for
// each failing cell the calls that decided it. Every reporter renders this one model.

export type ToolCheckKey = "required" | "type" | "string-number" | "unknown" | "bounds" | "enum" | "readable" | "named" | "survived" | "valid";

export interface ToolCheck {
  key: ToolCheckKey;
  /** In MCP's words. */
  title: string;
  /** A column heading a few characters wide. */
  short: string;
  /** The seed's pitfalls it stands for. */
  pitfalls: string;
  /** How a failing cell of it is said, when not by its title. */
  failed?: string;
}

export const TOOL_CHECKS: readonly ToolCheck[] = [
  { key: "required", title: "refuses a missing required property", short: "required", pitfalls: "s06" },
  { key: "type", title: "refuses a wrong type", short: "type", pitfalls: "s10" },
  { key: "string-number", title: 'refuses "3" for a number', short: '"3"', pitfalls: "s01" },
  { key: "unknown", title: "refuses an unknown property", short: "unknown", pitfalls: "s07" },
  { key: "bounds", title: "refuses a value out of bounds (min/max, lengths, item counts, pattern)", short: "bounds", pitfalls: "s10" },
  { key: "enum", title: "refuses a value outside enum/const", short: "enum", pitfalls: "s10" },
  { key: "readable", title: "the refusal is an error the model reads", short: "readable", pitfalls: "s15" },
  { key: "named", title: "the refusal names the argument", short: "names", pitfalls: "s23/s17" },
  { key: "survived", title: "the server survived", short: "survived", pitfalls: "s11" },
  { key: "valid", title: "runs a valid call (--mcp-run)", short: "valid", pitfalls: "s01/s03/s04/s05/s09", failed: "stricter than its own schema: refuses a valid call (--mcp-run)" },
];

/** Which column a probe's "refused before the tool runs" fills, by the probe's kind (src/subjects/mcp/probes.ts). */
const KIND_COLUMN: Record<string, ToolCheckKey> = {
  "missing-required": "required",
  "wrong-type": "type",
  "integer-fraction": "type",
  "array-element": "type",
  "non-object": "type",
  "integer-as-string": "string-number",
  "extra-property": "unknown",
  "below-minimum": "bounds",
  "above-maximum": "bounds",
  "too-short": "bounds",
  "too-long": "bounds",
  "too-few-items": "bounds",
  "too-many-items": "bounds",
  pattern: "bounds",
  enum: "enum",
  const: "enum",
};

const REFUSAL_COLUMNS: readonly ToolCheckKey[] = ["required", "type", "string-number", "unknown", "bounds", "enum"];

export type CellState = "pass" | "fail" | "errored" | "none";

/** One failing (or errored) cell's evidence: a row, the call it sent, and what decided it. */
export interface ToolFailure {
  column: ToolCheckKey;
  row: ReportRow;
  /** The exact `tools/call` sent, when known. */
  call?: string;
  /** The answer as classed (verdict, text, rule, the sandbox's observation), when there was one. */
  answer?: McpAnswer;
  /** What failed, in an author's words (or the row's error). */
  sentence: string;
}

export interface ToolView {
  tool: string;
  /** The tool's rows, in report order. */
  rows: ReportRow[];
  cells: Record<ToolCheckKey, CellState>;
  /** Cells failing or errored. */
  failing: number;
  failures: ToolFailure[];
}

export interface McpToolsView {
  /** The columns shown: the valid-call column only when some tool got valid calls. */
  checks: ToolCheck[];
  /** Worst first (most failing cells), then by name. */
  tools: ToolView[];
  /** The server's rows that are no tool's (mcp-list/*, mcp-server/*). */
  others: ReportRow[];
}

/** Whether a report is an MCP server's: every row is one of a server's. */
export function isMcpReport(report: Report): boolean {
  return report.rows.length > 0 && report.rows.every(isMcpRow);
}

/** The tool a row belongs to and its probe, or undefined for a server's or list's row. */
function split(id: string, known: readonly string[]): { tool: string; probe: string } | undefined {
  const match = /^mcp(?:-accept)?\/(.*)$/.exec(id);
  if (!match) return undefined;
  const rest = match[1]!;
  // a tool's name may hold a "/": the longest name known from its non-object probe wins
  const tool = known.filter((name) => rest.startsWith(`${name}/`)).sort((a, b) => b.length - a.length)[0];
  if (tool !== undefined) return { tool, probe: rest.slice(tool.length + 1) };
  const slash = rest.indexOf("/");
  return slash < 0 ? undefined : { tool: rest.slice(0, slash), probe: rest.slice(slash + 1) };
}

/** Rows → tools × checks. */
export function mcpTools(rows: readonly ReportRow[], options: ScoreOptions): McpToolsView {
  const known = [...new Set(rows.map((row) => /^mcp\/(.*)\/(?:non-object\/(?:array|string)|probes)$/.exec(row.id)?.[1]).filter((name): name is string => name !== undefined))];
  const byTool = new Map<string, ToolView>();
  const others: ReportRow[] = [];
  let valid = false;
  for (const row of rows) {
    const parts = isMcpRow(row) && !/^mcp-(list|server)\//.test(row.id) ? split(row.id, known) : undefined;
    if (!parts) {
      others.push(row);
      continue;
    }
    const view = byTool.get(parts.tool) ?? { tool: parts.tool, rows: [] as ReportRow[], cells: Object.fromEntries(TOOL_CHECKS.map((c) => [c.key, "none"])) as Record<ToolCheckKey, CellState>, failing: 0, failures: [] };
    byTool.set(parts.tool, view);
    view.rows.push(row);
    const accept = row.id.startsWith("mcp-accept/");
    if (accept) valid = true;
    const kind = parts.probe.split("/")[0]!;
    const columnOf = (check: Check): ToolCheckKey | undefined => {
      if (check.what === WHAT.refused) return KIND_COLUMN[kind];
      if (check.what === WHAT.readable) return "readable";
      if (check.what === WHAT.named) return "named";
      if (check.what === WHAT.answers) return "survived";
      if (check.what === WHAT.accepted) return "valid";
      return undefined;
    };
    const call = row.repro?.steps?.[0];
    if (row.status === "errored") {
      // no answer: the cells this row would have filled are errored (a tool whose rows could not be made, all its refusal cells)
      const columns = accept ? (["valid"] as ToolCheckKey[]) : kind === "probes" ? REFUSAL_COLUMNS : KIND_COLUMN[kind] ? [KIND_COLUMN[kind]!] : [];
      for (const column of columns) {
        if (view.cells[column] !== "fail") view.cells[column] = "errored";
        view.failures.push({ column, row, ...(call ? { call } : {}), sentence: `no answer: ${row.error ?? "errored"}` });
      }
      continue;
    }
    for (const check of row.checks) {
      if (!isActive(check, options)) continue;
      const column = columnOf(check);
      if (column === undefined) continue;
      if (check.pass) {
        if (view.cells[column] === "none") view.cells[column] = "pass";
        continue;
      }
      view.cells[column] = "fail";
      view.failures.push({ column, row, ...(call ? { call } : {}), answer: answerOf(check), sentence: mcpSentence(row, check) ?? check.what });
    }
  }
  const checks = TOOL_CHECKS.filter((check) => check.key !== "valid" || valid);
  const tools = [...byTool.values()];
  for (const view of tools) {
    view.failing = checks.filter((check) => view.cells[check.key] === "fail" || view.cells[check.key] === "errored").length;
    const order = checks.map((check) => check.key);
    view.failures.sort((a, b) => order.indexOf(a.column) - order.indexOf(b.column));
  }
  tools.sort((a, b) => b.failing - a.failing || (a.tool < b.tool ? -1 : a.tool > b.tool ? 1 : 0));
  return { checks, tools, others };
}

/** The per-tool view of a report, or undefined when it is not an MCP server's. */
export function mcpToolsOf(report: Report): McpToolsView | undefined {
  if (!isMcpReport(report)) return undefined;
  return mcpTools(report.rows, { level: report.header.level, tiers: report.header.tiers });
}

/** A cell as one character: ✓ pass, ✗ fail, ! errored, · not probed. */
export function cellMark(state: CellState): string {
  return state === "pass" ? "✓" : state === "fail" ? "✗" : state === "errored" ? "!" : "·";
}

/** The checks a tool fails, by title. */
export function failingChecks(view: ToolView, checks: readonly ToolCheck[]): ToolCheck[] {
  return checks.filter((check) => view.cells[check.key] === "fail" || view.cells[check.key] === "errored");
}

/** A check as a tool's cell says it: a failing valid call is the tool being stricter than its own schema; an errored cell had no answer. */
export function cellTitle(view: ToolView, check: ToolCheck): string {
  return view.cells[check.key] === "fail" && check.failed !== undefined ? check.failed : check.title;
}

export const CELL_LEGEND = "✓ passes · ✗ fails · ! no answer (errored) · · not probed (the schema gave no such probe, or nothing was refused to judge)";

import { compareCodePoints } from "../../json/value.js";
import { NAME_PATTERN } from "../../registry/names.js";
import type { ToolList } from "../../subjects/mcp/client.js";
import { MCP_NAME_PATTERN } from "../../subjects/mcp/lint.js";
import type { Check } from "../run-row.js";
import type { McpRow } from "./checks.js";

// The rows of a server's tool list: the seed's rules that can be seen in tools/list (a list that
// stays the same, names of the seed's pattern, no duplicates) are core; what MCP leaves open or
// allows where the seed does not (any order; names of 1 to 128 of A-Za-z0-9_-.) is catalog.

export interface ListRow extends McpRow {
  checks: Check[];
}

export function listRows(first: ToolList, second: ToolList): ListRow[] {
  const names = first.tools.map((tool) => String((tool as { name?: unknown } | null)?.name ?? ""));
  const sorted = [...names].sort(compareCodePoints);
  const same = sameJson(first.tools, second.tools);
  const badSeed = names.filter((name) => !NAME_PATTERN.test(name));
  const badMcp = names.filter((name) => !MCP_NAME_PATTERN.test(name));
  // by a set: indexOf for each name is quadratic, hours for a list of 200,000 tools
  const once = new Set<string>();
  const twice = [...new Set(names.filter((name) => once.has(name) || !once.add(name)))];
  const row = (id: string, section: McpRow["section"], tier: McpRow["tier"], rule: string, pitfalls: string[], why: string, check: Omit<Check, "level" | "tier">): ListRow => ({ id, section, tier, rule, pitfalls, why, checks: [{ level: "verdict", tier, ...check }] });
  return [
    row("mcp-list/stable", "TestDefinitionsSorted", "core", "definitions/stable", [], "tools/list twice gives the same tools in the same order, member for member: the prompt is the same bytes on every run", {
      what: "the second tools/list equals the first",
      expected: { same: true },
      actual: { same, ...(same ? {} : { first: names, second: second.tools.map((tool) => String((tool as { name?: unknown } | null)?.name ?? "")) }) },
      pass: same,
    }),
    row("mcp-list/sorted", "TestDefinitionsSorted", "catalog", "definitions/sorted", ["s12"], "the seed sends definitions sorted by name; MCP sets no order for tools/list, so this is catalog, not core", {
      what: "tools/list is sorted by name",
      expected: { sorted: true },
      actual: { sorted: JSON.stringify(sorted) === JSON.stringify(names), order: names },
      pass: JSON.stringify(sorted) === JSON.stringify(names),
    }),
    row("mcp-list/names", "TestRegisterRules", "core", "register/name-pattern", ["s14"], "every tool name matches the seed's ^[A-Za-z0-9_-]{1,64}$ (providers reject a whole request for one bad name)", {
      what: "every name matches ^[A-Za-z0-9_-]{1,64}$",
      expected: { valid: true },
      actual: { valid: badSeed.length === 0, outside: badSeed },
      pass: badSeed.length === 0,
    }),
    row("mcp-list/names-mcp", "TestRegisterRules", "catalog", "register/name-pattern-mcp", [], "MCP's own, looser rule: 1 to 128 of A-Za-z0-9_-.", {
      what: "every name matches ^[A-Za-z0-9_.-]{1,128}$",
      expected: { valid: true },
      actual: { valid: badMcp.length === 0, outside: badMcp },
      pass: badMcp.length === 0,
    }),
    row("mcp-list/duplicates", "TestRegisterRules", "core", "register/duplicate", ["s13"], "no two tools share a name: one would hide the other", {
      what: "no name is listed twice",
      expected: { unique: true },
      actual: { unique: twice.length === 0, twice },
      pass: twice.length === 0,
    }),
  ];
}

/** Whether two parsed JSON values are the same, member for member in order: walked with a stack, since a server's schema may nest deeper than recursion (JSON.stringify) goes. */
export function sameJson(a: unknown, b: unknown): boolean {
  const stack: [unknown, unknown][] = [[a, b]];
  while (stack.length > 0) {
    const [x, y] = stack.pop()!;
    if (typeof x !== "object" || x === null || typeof y !== "object" || y === null) {
      if (x !== y) return false;
      continue;
    }
    if (Array.isArray(x) !== Array.isArray(y)) return false;
    const xs = Object.entries(x);
    const ys = Object.entries(y);
    if (xs.length !== ys.length) return false;
    for (let i = 0; i < xs.length; i++) {
      if (xs[i]![0] !== ys[i]![0]) return false;
      stack.push([xs[i]![1], ys[i]![1]]);
    }
  }
  return true;
}

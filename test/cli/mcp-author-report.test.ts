import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../src/corpus/load.js";
import { readReport } from "../../src/report/read-report.js";
import { cli } from "../helpers/cli-helpers.js";

// What an MCP server's author reads, through the CLI: the tools × checks table worst first in the
// terminal and the step summary, a JUnit testsuite per tool, one annotation per failing tool, and
// why the gate failed in summary.md; beside the table, the contract tools/list advertises, linted,
// which never moves a score or an exit code.

const FIXTURES = join(PACKAGE_ROOT, "test", "fixtures", "mcp");
const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

function scoreServer(args: string, ...more: string[]) {
  const out = mkdtempSync(join(tmpdir(), "tc-author-"));
  dirs.push(out);
  const result = cli("score", "--mcp", `node ${join(FIXTURES, args)}`, "--reporter", "terminal,markdown,html,junit,github-actions,json", "--out", out, "--min-score", "100", ...more);
  return { ...result, out, md: readFileSync(join(out, "summary.md"), "utf8"), junit: join(out, "junit.xml"), report: readReport(join(out, "report.jsonl")) };
}

/** The terminal table's rows: tool → its marks in column order, and its failing count. */
function table(stdout: string): { header: string[]; rows: [string, string[]][] } {
  const lines = stdout.split("\n");
  const start = lines.findIndex((line) => /^tools \(\d+\), worst first$/.test(line));
  expect(start, stdout).toBeGreaterThan(0);
  const header = lines[start + 1]!.trim().split(/\s+/);
  const rows: [string, string[]][] = [];
  for (const line of lines.slice(start + 2)) {
    const cells = line.trim().split(/\s+/);
    if (cells.length !== header.length) break;
    rows.push([cells[0]!, cells.slice(1)]);
  }
  return { header, rows };
}

function xpath(file: string, expression: string): string {
  const result = spawnSync("xmllint", ["--xpath", expression, file], { encoding: "utf8" });
  if (result.error) throw new Error(`xmllint is needed (Debian: libxml2-utils): ${result.error.message}`);
  return result.stdout.trim();
}

describe("score --mcp: the report in an MCP author's words", () => {
  it("the zod server: get_weather fails a wrong type, \"3\" and an unknown property, in every reporter", () => {
    const run = scoreServer("zod-server.mjs");
    expect(run.code).toBe(1);
    const { header, rows } = table(run.stdout);
    expect(header).toEqual(["tool", "required", "type", '"3"', "unknown", "bounds", "enum", "readable", "names", "survived", "failing"]);
    expect(rows).toEqual([["get_weather", ["✓", "✗", "✗", "✗", "✓", "·", "✓", "✓", "✓", "3"]]]);
    // the failing cell's call and its verdict in MCP's words, never the harness's fields
    expect(run.stdout).toContain('sent    tools/call {"name":"get_weather","arguments":{"city":"a","tool_conformance_extra":"x"}}');
    expect(run.stdout).toContain('the tool ran on {"city":"a","tool_conformance_extra":"x"}: its inputSchema refuses it (additionalProperties: false), so it should have been refused before running');
    expect(run.stdout).not.toMatch(/where false is expected|not expected at all/);
    // one annotation for the one failing tool, naming its checks
    const annotations = run.stdout.split("\n").filter((line) => line.startsWith("::error "));
    expect(annotations).toHaveLength(1);
    expect(annotations[0]).toMatch(/^::error title=tool-conformance%3A tool get_weather fails 3 checks::/);
    expect(annotations[0]).toContain("refuses an unknown property (s07)");
    // the step summary: the table and why the gate failed
    expect(run.md).toMatch(/^\| `get_weather` \| ✅ \| ❌ \| ❌ \| ❌ \| ✅ \| · \| ✅ \| ✅ \| ✅ \| 3 \|$/m);
    expect(run.md).toMatch(/> \*\*The gate failed:\*\* score \d+\.\d+% is below --min-score 100%/);
    // JUnit: a suite per tool, then the list's and the server's
    expect(spawnSync("xmllint", ["--noout", "--schema", join(PACKAGE_ROOT, "test", "fixtures", "schemas", "junit-10.xsd"), run.junit]).status).toBe(0);
    expect(xpath(run.junit, "//testsuite/@name").split("\n").map((s) => s.trim())).toEqual(['name="get_weather"', 'name="mcp-list"', 'name="mcp-server"']);
    expect(xpath(run.junit, 'count(//testsuite[@name="get_weather"]/testcase[failure])')).toBe("3");
    // the contract it advertises: z.string().min(1) bounds the city below only
    expect(run.report.summary.lint).toEqual([{ tool: "get_weather", findings: [{ rule: "unbounded-string", at: "$.properties.city" }] }]);
    expect(run.stdout).toContain("the contract tools/list advertises, linted (information only: no score or exit code depends on it)\n  get_weather\n    · $.properties.city: a string of any length: no maxLength, enum, const or anchored pattern (set maxLength)");
    expect(run.md).toContain("| `get_weather` | `$.properties.city` | a string of any length: no maxLength, enum, const or anchored pattern (set maxLength) |");
    expect(readFileSync(join(run.out, "report.html"), "utf8")).toContain("<code>$.properties.city</code></td><td>a string of any length");
    expect(xpath(run.junit, 'string(//testsuite[@name="get_weather"]/system-out)')).toContain("$.properties.city: a string of any length");
  }, 120_000);

  it("the contract is information only: a server that passes every row exits 0 whatever its lint says; with --mcp-run, a valid call refused is the tool stricter than its own schema", () => {
    const strict = scoreServer("strict-server.mjs");
    expect(strict.code, strict.stderr).toBe(0);
    expect(strict.report.summary.scores.total.percent).toBe(100);
    expect(strict.report.summary.lint).toEqual([{ tool: "get_weather", findings: [{ rule: "unbounded-string", at: "$.properties.tags.items" }] }]);
    expect(strict.stdout.split("\n").filter((line) => line.startsWith("::error"))).toEqual([]);
    expect(strict.stdout).toMatch(/^::notice title=tool-conformance%3A the contract tools\/list advertises%3A 1 finding on 1 tool::/m);
    // the accept fixture judges an integer by its literal: 3.0 refused
    const stricter = scoreServer("accept-server.mjs integer-text", "--mcp-run", "get_weather");
    expect(stricter.code).toBe(1);
    expect(stricter.stdout).toContain("get_weather fails: stricter than its own schema: refuses a valid call (--mcp-run)");
    expect(stricter.stdout).toContain("    · stricter than its own schema: 1 valid call its inputSchema accepts was refused (mcp-accept/get_weather/integer-3.0/days)");
    expect(stricter.md).toContain("| `get_weather` |  | stricter than its own schema: 1 valid call its inputSchema accepts was refused `mcp-accept/get_weather/integer-3.0/days` |");
  }, 120_000);

  it("the server that validates nothing: worst tool first, an annotation each", () => {
    const run = scoreServer("lowlevel-server.mjs none");
    const { rows } = table(run.stdout);
    expect(rows.map(([tool, cells]) => [tool, cells.at(-1)])).toEqual([
      ["search", "5"],
      ["tag", "3"],
    ]);
    expect(rows[0]![1].slice(0, 5)).toEqual(["✗", "✗", "✗", "✗", "✗"]);
    const annotations = run.stdout.split("\n").filter((line) => line.startsWith("::error "));
    expect(annotations.map((line) => /title=([^:]*)::/.exec(line)![1])).toEqual(["tool-conformance%3A tool search fails 5 checks", "tool-conformance%3A tool tag fails 3 checks"]);
    expect(xpath(run.junit, "//testsuite/@name").split("\n").map((s) => s.trim()).slice(0, 2)).toEqual(['name="search"', 'name="tag"']);
    expect(run.md.indexOf("<code>search</code> fails 5")).toBeLessThan(run.md.indexOf("<code>tag</code> fails 3"));
    expect(readFileSync(join(run.out, "report.html"), "utf8")).toContain('<section class="tools">');
  }, 120_000);
});

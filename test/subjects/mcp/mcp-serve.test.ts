import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { cli, MAIN, oneLineError } from "../../helpers/cli-helpers.js";

// `score --mcp` as a user runs it, on `mcp-serve`: the reference registry served over MCP scores
// 100%, a mutant is diagnosed as itself, and every report, --min-score and --baseline work.

const dir = mkdtempSync(join(tmpdir(), "mcp-serve-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const served = (subject = "reference") => `${process.execPath} ${MAIN} mcp-serve ${subject}`;

describe("score --mcp on mcp-serve", () => {
  test("the reference scores 100%, in every report", () => {
    const out = join(dir, "reference");
    const run = cli("score", "--mcp", served(), "--reporter", "terminal,json,junit,gradescope,markdown,html,github-actions", "--out", out);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain("score 100% (");
    for (const file of ["report.jsonl", "junit.xml", "results.json", "summary.md", "report.html"]) expect(existsSync(join(out, file)), file).toBe(true);
    const junit = readFileSync(join(out, "junit.xml"), "utf8");
    expect(junit).toContain('failures="0"');
  });

  test("mutant:s07 is diagnosed s07, and each failing row shows the call and the tool's answer", () => {
    const out = join(dir, "s07");
    const run = cli("score", "--mcp", served("mutant:s07"), "--reporter", "terminal,json,github-actions", "--out", out);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/your failures match s07 \(pitfall 5, additionalProperties: false not enforced\)/);
    expect(run.stdout).toContain('tools/call {"name":"get_weather","arguments":{"city":"a","tool_conformance_extra":"x"}}');
    expect(run.stdout).toContain('ran get_weather with {\\"city\\":\\"a\\",\\"tool_conformance_extra\\":\\"x\\"}');
    // one annotation a failing tool, its call in it
    expect(run.stdout).toMatch(/^::error title=tool-conformance%3A tool get_weather fails 1 check::.*"tool_conformance_extra":"x"/m);
  });

  test("--baseline gates a server from run to run; --min-score accepts a lower score", () => {
    const good = join(dir, "good");
    expect(cli("score", "--mcp", served(), "--reporter", "json", "--out", good).code).toBe(0);
    const worse = cli("score", "--mcp", served("mutant:s06"), "--reporter", "json", "--out", join(dir, "worse"), "--min-score", "0", "--baseline", join(good, "report.jsonl"));
    expect(worse.code).toBe(1);
    expect(worse.stderr).toMatch(/mcp\/get_weather\/missing-required\/city/);
    const same = cli("score", "--mcp", served(), "--reporter", "json", "--out", join(dir, "same"), "--baseline", join(good, "report.jsonl"));
    expect(same.code).toBe(0);
    expect(same.stderr).toMatch(/no regression \(\d+ rows compared\)/);
  });

  test("usage errors are one line, exit 2; a server that cannot start exits 3", () => {
    const both = cli("score", "--mcp", "x", "--mcp-url", "http://127.0.0.1:1/mcp");
    expect(both.code).toBe(2);
    expect(oneLineError(both.stderr)).toContain("--mcp or --mcp-url");
    const header = cli("score", "--mcp", served(), "--mcp-header", "no colon");
    expect(header.code).toBe(2);
    const fresh = cli("score", "--mcp", served(), "--fresh", "10");
    expect(fresh.code).toBe(2);
    expect(oneLineError(fresh.stderr)).toBe("tool-conformance: --fresh does not apply to an MCP server: its rows are its own tools', sent one call at a time");
    const dead = cli("score", "--mcp", `${process.execPath} -e "process.exit(5)"`, "--out", join(dir, "dead"));
    expect(dead.code).toBe(3);
    expect(oneLineError(dead.stderr)).toBe("tool-conformance: the MCP server did not start: the process exited with code 5");
  });

  test("mcp-serve refuses a subject it does not know", () => {
    const run = cli("mcp-serve", "nonsense");
    expect(run.code).toBe(2);
    expect(oneLineError(run.stderr)).toContain('"nonsense" is neither reference nor mutant:sNN');
  });
});

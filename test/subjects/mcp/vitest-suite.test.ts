import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { expect, test } from "vitest";
import { PACKAGE_ROOT } from "../../../src/corpus/load.js";
import { MAIN } from "../../helpers/cli-helpers.js";

// tool-conformance/vitest's mcpConformanceSuite from the outside: a suite around mcp-serve
// mutant:s07, run by its own vitest: a test per row of the server, the extra property failing.

interface Assertion {
  fullName: string;
  title: string;
  status: string;
  failureMessages: string[];
}

test("mcpConformanceSuite makes each row of a server a test: s07's extra property fails with the call and the answer", { timeout: 120_000 }, () => {
  const out = join(mkdtempSync(join(tmpdir(), "tc-mcp-vitest-")), "result.json");
  const root = join(PACKAGE_ROOT, "test", "fixtures", "mcp", "vitest-suite");
  try {
    const run = spawnSync(process.execPath, [join(PACKAGE_ROOT, "node_modules", "vitest", "vitest.mjs"), "run", "--root", root, "--reporter=json", `--outputFile=${out}`], {
      encoding: "utf8",
      env: { ...process.env, SUITE_SERVER: `${process.execPath} ${MAIN} mcp-serve mutant:s07`, NO_COLOR: "1" },
      timeout: 110_000,
    });
    expect(run.status, run.stderr).toBe(1);
    const results = JSON.parse(readFileSync(out, "utf8")) as { testResults: { assertionResults: Assertion[] }[] };
    const tests = results.testResults.flatMap((file) => file.assertionResults);
    expect(tests.length).toBeGreaterThan(10);
    expect(tests.every((t) => t.title.startsWith("mcp/get_weather/"))).toBe(true);
    const failed = tests.filter((t) => t.status === "failed");
    expect(failed.map((t) => t.title)).toEqual(["mcp/get_weather/extra-property"]);
    expect(failed[0]!.fullName).toBe("TestCallNeverPanics mcp/get_weather/extra-property");
    expect(failed[0]!.failureMessages[0]).toMatch(/^Error: refused before the tool runs \(verdict, core\)\n {2}expected \{"ran":false\}\n {2}actual {3}\{"ran":true,"answer":"ran"/);
    expect(failed[0]!.failureMessages[0]).toContain('sent      tools/call {"name":"get_weather","arguments":{"city":"a","tool_conformance_extra":"x"}}');
  } finally {
    rmSync(dirname(out), { recursive: true, force: true });
  }
});

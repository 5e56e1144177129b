import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../src/corpus/load.js";

// tool-conformance/vitest from the outside: a suite around the built mutant s05 (minimum treated as
// exclusive), run by its own vitest as a user's CI runs it. Its rows are tests named by their ids,
// the rows the mistake breaks fail with expected against actual, the others pass.

interface Assertion {
  fullName: string;
  title: string;
  status: string;
  failureMessages: string[];
}

describe("tool-conformance/vitest", () => {
  it("makes each row a test named by its id: a mutant's rows fail with what differs, the rest pass", { timeout: 120_000 }, () => {
    const out = join(mkdtempSync(join(tmpdir(), "tc-vitest-")), "result.json");
    const root = join(PACKAGE_ROOT, "test", "fixtures", "vitest-suite");
    const run = spawnSync(process.execPath, [join(PACKAGE_ROOT, "node_modules", "vitest", "vitest.mjs"), "run", "--root", root, "--reporter=json", `--outputFile=${out}`], {
      encoding: "utf8",
      env: { ...process.env, SUITE_MODULE: join(PACKAGE_ROOT, "dist", "mutants", "built", "s05", "index.js"), NO_COLOR: "1" },
      timeout: 110_000,
    });
    expect(run.status, run.stderr).toBe(1);
    const results = JSON.parse(readFileSync(out, "utf8")) as { testResults: { assertionResults: Assertion[] }[] };
    const tests = results.testResults.flatMap((file) => file.assertionResults);
    expect(tests.length).toBeGreaterThan(10);
    expect(tests.every((t) => /^(validate\/minimum|validate\/type)\//.test(t.title))).toBe(true);
    expect(tests.every((t) => t.fullName.startsWith("TestValidateTable "))).toBe(true);
    const failed = tests.filter((t) => t.status === "failed");
    expect(failed.map((t) => t.title)).toContain("validate/minimum/equal-passes");
    expect(failed.every((t) => t.title.startsWith("validate/minimum/"))).toBe(true);
    const equal = failed.find((t) => t.title === "validate/minimum/equal-passes")!;
    expect(equal.failureMessages[0]).toMatch(/^Error: verdict \(verdict, core\)\n {2}expected "valid"\n {2}actual {3}"invalid"\n[^]*\nwhy {7}minimum is inclusive[^\n]*\nschema {4}\{"type":"integer","minimum":1\}\narguments 1\n/);
    expect(tests.filter((t) => t.status === "passed").length).toBeGreaterThan(failed.length);
  });
});

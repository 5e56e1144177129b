import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../src/corpus/load.js";
import { cli, oneLineError } from "../helpers/cli-helpers.js";

// A JavaScript module scored in-process (`--module`, conformanceSuite's `{ api }`) with the
// interface the TypeScript adapter documents: errors as {path, message}, no renderPath. Scored
// as it is, named as it names itself (else by its file, in its file's language); a module that
// lacks part of the interface is told so once, in one line, naming what it lacks.

const FIXTURES = join(PACKAGE_ROOT, "test", "fixtures", "module-api");

interface Assertion {
  title: string;
  status: string;
  failureMessages: string[];
}

/** The fixture vitest suite around SUITE_MODULE, as a user's CI runs it: its exit code and tests. */
function suiteOf(module: string): { status: number | null; tests: Assertion[]; output: string } {
  const out = join(mkdtempSync(join(tmpdir(), "tc-module-api-")), "result.json");
  const run = spawnSync(process.execPath, [join(PACKAGE_ROOT, "node_modules", "vitest", "vitest.mjs"), "run", "--root", join(PACKAGE_ROOT, "test", "fixtures", "vitest-suite"), "--reporter=json", `--outputFile=${out}`], {
    encoding: "utf8",
    env: { ...process.env, SUITE_MODULE: join(FIXTURES, module), NO_COLOR: "1" },
    timeout: 110_000,
  });
  const results = JSON.parse(readFileSync(out, "utf8")) as { testResults: { assertionResults: Assertion[] }[] };
  return { status: run.status, tests: results.testResults.flatMap((file) => file.assertionResults), output: run.stdout + run.stderr };
}

describe("a module scored in-process", () => {
  it("with errors as {path, message} and no renderPath, scores as its answers say (the reference's: 100%), named by its file, in JavaScript", { timeout: 60_000 }, () => {
    const run = cli("score", "--module", "test/fixtures/module-api/toolreg.mjs");
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.split("\n")[0]).toMatch(/module:test\/fixtures\/module-api\/toolreg\.mjs — toolreg \(in-process, javascript\)$/);
    expect(run.stdout).toMatch(/^score 100% \(\d+ passed of \d+ rows/m);
  });

  it("is named by its own NAME, VERSION and LANGUAGE when it exports them", { timeout: 60_000 }, () => {
    const run = cli("score", "--module", "test/fixtures/module-api/named.mjs");
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.split("\n")[0]).toContain("— acme-tools (2.1.0, javascript (acme))");
  });

  it("lacking part of the interface, is a usage error (exit 2) naming what it lacks, once, with no scoreboard", () => {
    const run = cli("score", "--module", "test/fixtures/module-api/no-tool-error.mjs");
    expect(run.code).toBe(2);
    const line = oneLineError(run.stderr);
    expect(line).toContain("does not export newTool, ToolError");
    expect(line).toContain("docs/api.md");
    expect(run.stdout).not.toMatch(/^score /m);
  });

  it("in conformanceSuite, passes its rows", { timeout: 120_000 }, () => {
    const { status, tests, output } = suiteOf("toolreg.mjs");
    expect(status, output).toBe(0);
    expect(tests.length).toBeGreaterThan(10);
    expect(tests.every((t) => t.status === "passed")).toBe(true);
  });

  it("in conformanceSuite, lacking part of the interface, is one failing test naming it, no stack trace of ours", { timeout: 120_000 }, () => {
    const { status, tests } = suiteOf("no-tool-error.mjs");
    expect(status).toBe(1);
    expect(tests).toHaveLength(1);
    expect(tests[0]!.status).toBe("failed");
    expect(tests[0]!.failureMessages[0]).toMatch(/^Error: the module s05 does not export newTool, ToolError: /);
    expect(tests[0]!.failureMessages.join("\n")).not.toContain("TypeError");
  });
});

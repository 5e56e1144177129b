import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../src/corpus/load.js";
import { cli, oneLineError } from "../helpers/cli-helpers.js";

// Every line the CLI prints to a terminal shows controls as escapes: C0 (ESC), DEL, C1 (U+009B is
// a CSI on many terminals) and the bidi overrides, isolates and marks that reorder what is read,
// however they reach it: a server's tool names quoted in a usage error, a report, an argument.

/** A character no line on a terminal may carry raw (line feeds and tabs aside). */
const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/u;
const server = `node ${join(PACKAGE_ROOT, "test/fixtures/hostile-mcp/text-controls.mjs")}`;

describe("terminal text", () => {
  it("a usage error listing a server's tools shows their controls and bidi characters as escapes", () => {
    const run = cli("score", "--mcp", server, "--mcp-run", "x");
    expect(run.code).toBe(2);
    const line = oneLineError(run.stderr);
    expect(line).toContain("is not a tool of this server");
    expect(run.stderr).not.toMatch(RAW);
    for (const escape of ["\\u001b", "\\u007f", "\\u009b", "\\u0085", "\\u202e", "\\u2066", "\\u2069", "\\u200f", "\\u061c"]) expect(line).toContain(escape);
  });

  it("the run's own report of that server and its stderr carry none raw", { timeout: 60_000 }, () => {
    const run = cli("score", "--mcp", server);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain("\\u009b");
    expect(run.stdout + run.stderr).not.toMatch(RAW);
  });

  it("commander's own usage errors quote the argument escaped", () => {
    const run = cli("score", "--no-such-option\u202e\u009b");
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("\\u202e");
    expect(run.stderr).not.toMatch(RAW);
  });
});

import { chmodSync, cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { cli } from "../../helpers/cli-helpers.js";
import { needs } from "../../helpers/machine.mjs";

// score --mcp under --sandbox bwrap: the server runs in the sandbox a --subject command gets,
// seeing only its own folder, and is scored as it is outside.

const bwrap = needs("bwrap");
const base = mkdtempSync(join(tmpdir(), "mcp-sandbox-"));
afterAll(() => rmSync(base, { recursive: true, force: true }));

describe("an MCP server in the sandbox", () => {
  test.skipIf(bwrap.lacking)(`is scored as outside it ${bwrap.tag}`, () => {
    // a folder the sandbox's own user can read
    const folder = join(base, "server");
    cpSync(join(import.meta.dirname, "..", "..", "fixtures", "mcp", "raw-server.mjs"), join(folder, "raw-server.mjs"));
    chmodSync(base, 0o755);
    chmodSync(folder, 0o755);
    const outside = cli("score", "--mcp", "node raw-server.mjs old", "--submission", folder, "--reporter", "terminal,json", "--out", join(base, "outside"), "--min-score", "0");
    const inside = cli("score", "--mcp", "node raw-server.mjs old", "--sandbox", "bwrap", "--submission", folder, "--reporter", "terminal,json", "--out", join(base, "inside"), "--min-score", "0");
    expect(inside.code, inside.stderr).toBe(0);
    expect(inside.stderr).toMatch(/^bwrap sandbox: sees /m);
    const score = (stdout: string) => /score [\d.]+% \(\d+ passed/.exec(stdout)?.[0];
    expect(score(inside.stdout)).toBeDefined();
    expect(score(inside.stdout)).toBe(score(outside.stdout));
  });

  test.skipIf(bwrap.lacking)(`is fuzzed as outside it ${bwrap.tag}`, () => {
    const folder = join(base, "fuzzed");
    cpSync(join(import.meta.dirname, "..", "..", "fixtures", "mcp", "raw-server.mjs"), join(folder, "raw-server.mjs"));
    chmodSync(base, 0o755);
    chmodSync(folder, 0o755);
    const run = (...more: string[]) => cli("fuzz", "--mcp", "node raw-server.mjs old", "--submission", folder, "--seed", "4", "--runs", "150", "--json", ...more);
    const [outside, inside] = [run(), run("--sandbox", "bwrap")];
    expect(inside.code, inside.stderr).toBe(outside.code);
    expect(inside.stderr).toMatch(/^bwrap sandbox: sees /m);
    const seen = (stdout: string) => {
      const outcome = JSON.parse(stdout) as { cases: number; tools: unknown; findings: { key: string; arguments: unknown }[] };
      return { cases: outcome.cases, tools: outcome.tools, findings: outcome.findings.map((f) => [f.key, f.arguments]) };
    };
    expect(seen(inside.stdout)).toEqual(seen(outside.stdout));
    expect(seen(inside.stdout).cases).toBe(150);
  });

  test("a server at a URL cannot be sandboxed: a usage error", () => {
    const run = cli("score", "--mcp-url", "http://127.0.0.1:1/mcp", "--sandbox", "bwrap");
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("--sandbox runs a command: a server at --mcp-url runs where it is");
  });
});

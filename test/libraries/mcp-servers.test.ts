import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { PACKAGE_ROOT } from "../../src/corpus/load.js";
import { cli, oneLineError } from "../helpers/cli-helpers.js";
import { has, MCP_SERVERS_INSTALLED, needs } from "../helpers/machine.mjs";

// docs/mcp-servers.md is what the real MCP servers of implementations/mcp/ answer now, scored in the
// sandbox with no network; each server's figures below were checked by hand against its own answers
// (server-github's extra-property calls reach for api.github.com: its stderr says so).

// a fresh clone's `npm ci && npm test` lacks the servers: the test says how to get them (.ci/run installs them)
const machine = needs("bwrap", MCP_SERVERS_INSTALLED);
const installed = has(MCP_SERVERS_INSTALLED);
const out = mkdtempSync(join(tmpdir(), "mcp-servers-"));
afterAll(() => rmSync(out, { recursive: true, force: true }));

describe("the public table of real MCP servers", () => {
  test.skipIf(machine.lacking)(`docs/mcp-servers.md is current, and says what each server did ${machine.tag}`, () => {
    const run = cli("mcp-servers", "--check", "docs/mcp-servers.md", "--out", out);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain("docs/mcp-servers.md is current");
    const page = readFileSync(join(PACKAGE_ROOT, "docs", "mcp-servers.md"), "utf8");
    // zod strips an unknown key and server-github's tools then call out: ran, every one of them
    expect(page).toMatch(/\| server-github \| 2025\.4\.8 \|.*\| 26 \| 26 of 26 \|/);
    expect(page).toContain("ran, then failed: JSON-RPC error -32603: fetch failed");
    expect(page).toMatch(/your failures match s07 .*your failures match s15/s);
    // "3" coerced into an integer: the tool runs
    expect(page).toMatch(/## server-sequential-thinking[\s\S]*your failures match s01/);
    expect(page).toMatch(/\| server-filesystem \| .* \| \*\*100%\*\* \|/);
    // the README's rows say what the page says
    const readme = readFileSync(join(PACKAGE_ROOT, "README.md"), "utf8");
    const rows = [...readme.matchAll(/^\| \[(server-[a-z-]+) [\d.]+\]\(docs\/mcp-servers\.md#[^)]+\) \| (\d+ of \d+) \| ([\d.]+%) \|/gm)];
    expect(rows.length).toBe(5);
    for (const [, name, ran, score] of rows) expect(page, name).toMatch(new RegExp(`^\\| ${name} \\|.*\\| ${ran} \\|.*\\| \\*\\*${score!.replace(".", "\\.")}\\*\\* \\|$`, "m"));
  }, 120_000);

  test("the servers never run outside the sandbox: without bwrap the command refuses", () => {
    const result = spawnSync(process.execPath, [join(PACKAGE_ROOT, "dist", "cli", "main.js"), "mcp-servers", "--out", out], { cwd: PACKAGE_ROOT, encoding: "utf8", env: { PATH: "/nonexistent", NO_COLOR: "1" } });
    if (!installed) return void expect(result.stderr).toContain("npm ci --prefix implementations/mcp");
    expect(result.status).toBe(2);
    expect(oneLineError(result.stderr)).toContain("the MCP servers run only in the sandbox, with no network");
  });
});

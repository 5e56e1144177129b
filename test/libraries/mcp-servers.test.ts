import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { PACKAGE_ROOT } from "../../src/corpus/load.js";
import { onlyOf, parseShard, readMcpServerList, shardOf } from "../../src/libraries/mcp-servers.js";
import { inconsistencies, parsePage } from "../../src/libraries/mcp-servers-page.js";
import { cli, oneLineError } from "../helpers/cli-helpers.js";
import { has, MCP_SERVERS_INSTALLED, needs } from "../helpers/machine.mjs";

// docs/mcp-servers.md is the census: what the real MCP servers of implementations/mcp/ answer, scored in
// the sandbox with no network. CI runs a few of them (CI_SERVERS: fast, and each doing nothing on its own
// timers, so they answer alike on every run) and checks that the page still says what they answer now,
// and that every row of the page says what its section says; the whole census runs on demand
// (npm run mcp-servers). Each finding asserted below was replayed by hand with a raw JSON-RPC client in
// a sandbox with no network (implementations/mcp/README.md, "Replayed by hand").

// a fresh clone's `npm ci && npm test` lacks the servers: the test says how to get them (.ci/run installs them)
const machine = needs("bwrap", MCP_SERVERS_INSTALLED);
const installed = has(MCP_SERVERS_INSTALLED);
const out = mkdtempSync(join(tmpdir(), "mcp-servers-"));
afterAll(() => rmSync(out, { recursive: true, force: true }));
const page = readFileSync(join(PACKAGE_ROOT, "docs", "mcp-servers.md"), "utf8");
const list = readMcpServerList(join(PACKAGE_ROOT, "implementations", "mcp"));

const CI_SERVERS = ["server-filesystem", "server-sequential-thinking", "server-github", "server-postgres", "server-google-maps", "eslint-mcp"];

/** A server's section of the page. */
const section = (name: string) => parsePage(page).sections.get(name)?.join("\n") ?? "";

describe("the census of real MCP servers", () => {
  test.skipIf(machine.lacking)(`docs/mcp-servers.md says what a few servers answer now, and --from reads their reports back to the same rows ${machine.tag}`, () => {
    const run = cli("mcp-servers", "--check", "docs/mcp-servers.md", "--only", CI_SERVERS.join(","), "--out", out);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain("docs/mcp-servers.md is current for server-filesystem, server-sequential-thinking, server-github, server-postgres, server-google-maps, eslint-mcp");
    // the reports just written, read back without running anything, give the same rows and sections
    const merged = cli("mcp-servers", "--check", "docs/mcp-servers.md", "--only", CI_SERVERS.join(","), "--from", out);
    expect(merged.code, merged.stderr).toBe(0);
  }, 180_000);

  test("the page lists every server of the list, each row saying what its section says", () => {
    expect(list.length).toBeGreaterThanOrEqual(20);
    const parsed = parsePage(page);
    expect([...parsed.rows.keys()]).toEqual(list.map((entry) => entry.name));
    expect(inconsistencies(parsed)).toEqual([]);
    expect(page).toContain(`**The census: ${list.length} servers.**`);
  });

  test("what the page says of servers checked by hand", () => {
    // zod strips an unknown key and server-github's tools then call out: ran, every one of them
    expect(page).toMatch(/\| server-github \| 2025\.4\.8 \|.*\| 26 \| 26 \/ 0 \| 26 of 26 \|/);
    expect(page).toContain("ran, then failed: JSON-RPC error -32603: fetch failed");
    expect(section("server-github")).toMatch(/your failures match s07 .*your failures match s15/s);
    // "3" coerced into an integer: the tool runs
    expect(section("server-sequential-thinking")).toContain("your failures match s01");
    expect(page).toMatch(/\| server-filesystem \| .* \| \*\*100%\*\* \|/);
    // server-postgres validates nothing: a number for sql reaches pg, which dials the database (the witness sees it)
    expect(section("server-postgres")).toMatch(/ran, then failed: JSON-RPC error -32603: connect ECONNREFUSED 127\.0\.0\.1:5432/);
    expect(page).toMatch(/\| server-postgres \| 0\.6\.2 \| @modelcontextprotocol\/sdk 1\.0\.1 \|.*\| 1 \| 1 \/ 0 \| 1 of 1 \|/);
    // server-google-maps: no validation, a wrong type goes to the API with the dummy key
    expect(section("server-google-maps")).toContain("your failures match s10");
    // the SDK v2 refuses before the tool runs: context7 and mongodb ran on nothing
    expect(page).toMatch(/\| context7-mcp \| [\d.]+ \| @modelcontextprotocol\/server 2\.0\.0 \|.*\| 2 \| 2 \/ 0 \| 0 of 2 \|/);
    expect(page).toMatch(/\| mongodb-mcp-server \|.*\| 0 of \d+ \|/);
  });

  test("the README's rows say what the page says", () => {
    const readme = readFileSync(join(PACKAGE_ROOT, "README.md"), "utf8");
    const rows = [...readme.matchAll(/^\| \[([a-z0-9-]+) [\d.]+\]\(docs\/mcp-servers\.md#[^)]+\) \| (\d+ of \d+) \| ([\d.]+%) \|/gm)];
    expect(rows.length).toBeGreaterThanOrEqual(5);
    for (const [, name, ran, score] of rows) expect(page, name).toMatch(new RegExp(`^\\| ${name} \\|.*\\| ${ran} \\|.*\\| \\*\\*${score!.replace(".", "\\.")}\\*\\* \\|$`, "m"));
    expect(readme).toContain(`census of ${list.length} servers`);
  });

  test("shards split the list deterministically, each server in exactly one", () => {
    for (const count of [1, 2, 3, 5, list.length, list.length + 2]) {
      const parts = Array.from({ length: count }, (_, i) => shardOf(list, { index: i + 1, count }).map((entry) => entry.name));
      expect(parts.flat().sort()).toEqual(list.map((entry) => entry.name).sort());
      expect(parts).toEqual(Array.from({ length: count }, (_, i) => shardOf(list, { index: i + 1, count }).map((entry) => entry.name)));
    }
    expect(parseShard("2/3")).toEqual({ index: 2, count: 3 });
    expect(onlyOf(list, ["server-github", "server-everything"]).map((entry) => entry.name)).toEqual(["server-everything", "server-github"]);
  });

  test("a bad --shard, --shard with --only, or an unknown --only name is a usage error (exit 2) that says what it takes", () => {
    for (const shard of ["0/3", "4/3", "1/0", "x", "1/", "-1/2", "1.5/2"]) {
      const run = cli("mcp-servers", "--shard", shard, "--out", out);
      expect(run.code, shard).toBe(2);
      expect(oneLineError(run.stderr)).toContain(`--shard ${JSON.stringify(shard)}: expected i/n`);
    }
    const both = cli("mcp-servers", "--shard", "1/2", "--only", "server-github", "--out", out);
    expect(both.code).toBe(2);
    expect(oneLineError(both.stderr)).toContain("--shard and --only: give one or the other");
    const unknown = cli("mcp-servers", "--only", "server-nope", "--out", out);
    expect(unknown.code).toBe(2);
    expect(oneLineError(unknown.stderr)).toContain('--only: no server named "server-nope"');
    const missing = cli("mcp-servers", "--from", join(out, "nowhere"), "--only", "server-github", "--check", "docs/mcp-servers.md");
    expect(missing.code).toBe(2);
    expect(oneLineError(missing.stderr)).toContain("server-github/report.jsonl");
  });

  test("the servers never run outside the sandbox: without bwrap the command refuses", () => {
    const result = spawnSync(process.execPath, [join(PACKAGE_ROOT, "dist", "cli", "main.js"), "mcp-servers", "--out", out], { cwd: PACKAGE_ROOT, encoding: "utf8", env: { PATH: "/nonexistent", NO_COLOR: "1" } });
    if (!installed) return void expect(result.stderr).toContain("npm ci --prefix implementations/mcp");
    expect(result.status).toBe(2);
    expect(oneLineError(result.stderr)).toContain("the MCP servers run only in the sandbox, with no network");
  });
});

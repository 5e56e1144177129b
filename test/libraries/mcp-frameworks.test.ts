import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { PACKAGE_ROOT } from "../../src/corpus/load.js";
import { MAIN } from "../helpers/cli-helpers.js";
import { MCP_FRAMEWORK_ZOD3_INSTALLED, MCP_FRAMEWORKS_INSTALLED, needs } from "../helpers/machine.mjs";

// docs/mcp-frameworks.md is what one small server per MCP server framework answers now, invalid calls and
// valid ones, scored in the sandbox; the verdicts below were replayed by hand with a raw JSON-RPC client
// (implementations/mcp-frameworks/replay.mjs; its README says what was seen).

const machine = needs("bwrap", MCP_FRAMEWORKS_INSTALLED, MCP_FRAMEWORK_ZOD3_INSTALLED);
const out = mkdtempSync(join(tmpdir(), "mcp-frameworks-"));
afterAll(() => rmSync(out, { recursive: true, force: true }));

describe("the public table of MCP server frameworks", () => {
  test.skipIf(machine.lacking)(`docs/mcp-frameworks.md is current ${machine.tag}`, () => {
    // a dozen servers, each started a few times in the sandbox: longer than cli()'s minute
    const run = spawnSync(process.execPath, [MAIN, "mcp-frameworks", "--check", "docs/mcp-frameworks.md", "--out", out], { cwd: PACKAGE_ROOT, encoding: "utf8", env: { ...process.env, NO_COLOR: "1" }, timeout: 230_000 });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain("docs/mcp-frameworks.md is current");
    const page = readFileSync(join(PACKAGE_ROOT, "docs", "mcp-frameworks.md"), "utf8");
    // the low-level Server validates nothing: the seed's worked call comes back as it was sent
    expect(page).toMatch(/^\| \[sdk-server\].*\| reaches the tool as the string \| passed to the tool \| s10, s01 \|/m);
    expect(page).toContain('| sdk-server | `result: {"days":"3","unit":"kelvin","country":"FR"}` |');
    // valibot counts UTF-16 units: five astral characters are refused by maxLength 5
    expect(page).toMatch(/^\| \[tmcp-valibot\].*\| 1 of \d+: `max-length-code-points\/note` \|.*\| s03 \|/m);
    // the SDK's McpServer with zod strict objects keeps the contract
    expect(page).toMatch(/^\| \[sdk-mcpserver\].*\| \*\*100%\*\* \| 0 of \d+ \| 0 of \d+ \| refused \| refused \| none \| keeps the contract/m);
    // fastmcp and tmcp with zod, as their READMEs' first examples write a tool (a plain z.object): their inputSchema
    // says additionalProperties: false, yet {"city":"a","country":"FR"} runs as {"city":"a"}, the key stripped (inside
    // traveler too)
    expect(page).toMatch(/^\| \[fastmcp-plain\].*\| [1-9]\d* of \d+ \| 0 of \d+ \| refused \| stripped, the tool runs \| s07, s10 \|/m);
    expect(page).toMatch(/^\| \[tmcp-zod-plain\].*\| [1-9]\d* of \d+ \| 0 of \d+ \| refused \| stripped, the tool runs \| s07, s10 \|/m);
    // mcp-framework writes its own JSON Schema, looser than its zod 3 validator: no minItems, so {"tags": []} is a
    // valid call by it and zod refuses it (too_small); zod 3 counts UTF-16 units, so five astral characters are too
    // long (too_big, s03); no additionalProperties either, so no unknown key is sent (zod's strict object refuses one)
    expect(page).toMatch(/^\| \[mcp-framework\].*\| 0 of \d+ \| 2 of \d+: `max-length-code-points\/note`, `valid\/base` \| refused \| – \| s03 \|/m);
    expect(page).toMatch(/^\| \[mcp-framework\].*fails `mcp-server\/unknown-tool` \|$/m);
    expect(page).toContain('| mcp-framework | `isError: [{"code":"invalid_type","expected":"string","received":"undefined","path":["city"]');
    // the HTTP-side ones, driven through their own fetch handlers over stdio, refuse as the SDKs beneath them do
    expect(page).toMatch(/^\| \[hono-mcp\].*\| \*\*100%\*\* \| 0 of \d+ \| 0 of \d+ \| refused \| refused \| none \| keeps the contract/m);
    expect(page).toMatch(/^\| \[mcp-handler\].*\| \*\*100%\*\* \| 0 of \d+ \| 0 of \d+ \| refused \| refused \| none \| keeps the contract/m);
    expect(page).toContain("| mcp-handler | `isError: Input validation error: Invalid arguments for tool get_weather: city: Invalid input: expected string, received undefined");
  }, 240_000);
});

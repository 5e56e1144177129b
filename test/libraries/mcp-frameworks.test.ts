import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { PACKAGE_ROOT } from "../../src/corpus/load.js";
import { cli } from "../helpers/cli-helpers.js";
import { MCP_FRAMEWORKS_INSTALLED, needs } from "../helpers/machine.mjs";

// docs/mcp-frameworks.md is what one small server per MCP server framework answers now, invalid calls and
// valid ones, scored in the sandbox; the verdicts below were replayed by hand with a raw JSON-RPC client
// (implementations/mcp-frameworks/replay.mjs; its README says what was seen).

const machine = needs("bwrap", MCP_FRAMEWORKS_INSTALLED);
const out = mkdtempSync(join(tmpdir(), "mcp-frameworks-"));
afterAll(() => rmSync(out, { recursive: true, force: true }));

describe("the public table of MCP server frameworks", () => {
  test.skipIf(machine.lacking)(`docs/mcp-frameworks.md is current ${machine.tag}`, () => {
    const run = cli("mcp-frameworks", "--check", "docs/mcp-frameworks.md", "--out", out);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain("docs/mcp-frameworks.md is current");
    const page = readFileSync(join(PACKAGE_ROOT, "docs", "mcp-frameworks.md"), "utf8");
    // the low-level Server validates nothing: the seed's worked call comes back as it was sent
    expect(page).toMatch(/^\| \[sdk-server\].*\| reaches the tool as the string \| passed to the tool \| s10, s01 \|/m);
    expect(page).toContain('| sdk-server | `result: {"days":"3","unit":"kelvin","country":"FR"}` |');
    // valibot counts UTF-16 units: five astral characters are refused by maxLength 5
    expect(page).toMatch(/^\| \[tmcp-valibot\].*\| 1 of 13: `max-length-code-points\/note` \|.*\| s03 \|/m);
    // the SDK's McpServer with zod strict objects keeps the contract
    expect(page).toMatch(/^\| \[sdk-mcpserver\].*\| \*\*100%\*\* \| 0 of \d+ \| 0 of 13 \| refused \| refused \| none \| keeps the contract/m);
  }, 120_000);
});

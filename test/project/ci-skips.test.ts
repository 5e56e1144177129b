import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../src/corpus/load.js";
import { has, MCP_FRAMEWORK_ZOD3_INSTALLED, MCP_SERVERS_INSTALLED, needs, statedNeeds } from "../helpers/machine.mjs";

// .ci/run's rule for skipped tests: a skip is allowed only when a need its name states is missing here.

function checkSkips(names: string[]) {
  const file = join(mkdtempSync(join(tmpdir(), "tc-skips-")), "vitest.json");
  const report = { testResults: [{ assertionResults: [{ status: "passed", fullName: "runs" }, ...names.map((fullName) => ({ status: "skipped", fullName }))] }] };
  writeFileSync(file, JSON.stringify(report));
  const result = spawnSync(process.execPath, [join(PACKAGE_ROOT, ".ci", "skips.mjs"), file], { encoding: "utf8" });
  return { wrong: result.status, out: result.stdout };
}

describe("skipped tests and their reasons", () => {
  it("a need is a command on PATH or a path that exists (a device: one we can open)", () => {
    expect(has("sh")).toBe(true);
    expect(has("tc-no-such-command")).toBe(false);
    expect(has("/")).toBe(true);
    expect(has("/dev/tc-no-such-device")).toBe(false);
    expect(needs("sh", "tc-no-such-command")).toEqual({ lacking: true, tag: "[needs: sh, tc-no-such-command]" });
    expect(statedNeeds("a VM [needs: /dev/kvm, qemu-system-x86_64] boots")).toEqual(["/dev/kvm", "qemu-system-x86_64"]);
    expect(statedNeeds("no reason")).toBeUndefined();
  });

  it("a skip for a tool the machine lacks is allowed, and printed with its reason", () => {
    const { wrong, out } = checkSkips(["a test [needs: tc-no-such-command]", "another [needs: /dev/tc-no-such-device]"]);
    expect(wrong).toBe(0);
    expect(out).toContain("skipped: a test [needs: tc-no-such-command] (allowed: this machine lacks tc-no-such-command)");
    expect(out).not.toContain("runs");
  });

  it("a skip whose need is met here, or that states none, counts as wrong", () => {
    const { wrong, out } = checkSkips(["uses sh [needs: sh]", "skipped for the build layout", "fine [needs: tc-no-such-command]"]);
    expect(wrong).toBe(2);
    expect(out).toContain("skipped: uses sh [needs: sh] (NOT ALLOWED: sh is here)");
    expect(out).toContain("skipped: skipped for the build layout (NOT ALLOWED: it states no [needs: …] the machine lacks)");
  });

  it("the real MCP servers are a need met by installing them, which .ci/run does: a skip for them while installed counts as wrong", () => {
    const installed = existsSync(join(PACKAGE_ROOT, "implementations", "mcp", "node_modules"));
    expect(MCP_SERVERS_INSTALLED).toContain("npm ci --prefix implementations/mcp");
    expect(has(MCP_SERVERS_INSTALLED)).toBe(installed);
    expect(checkSkips([`the table [needs: bwrap, ${MCP_SERVERS_INSTALLED}]`]).wrong).toBe(installed && has("bwrap") ? 1 : 0);
    expect(readFileSync(join(PACKAGE_ROOT, ".ci", "run"), "utf8")).toMatch(/npm ci --prefix implementations\/mcp/);
  });

  it("mcp-framework's folder of its own is a need of its own, met the same way", () => {
    const installed = existsSync(join(PACKAGE_ROOT, "implementations", "mcp-frameworks", "mcp-framework", "node_modules"));
    expect(has(MCP_FRAMEWORK_ZOD3_INSTALLED)).toBe(installed);
    expect(checkSkips([`the table [needs: bwrap, ${MCP_FRAMEWORK_ZOD3_INSTALLED}]`]).wrong).toBe(installed && has("bwrap") ? 1 : 0);
    expect(readFileSync(join(PACKAGE_ROOT, ".ci", "run"), "utf8")).toContain("npm ci --prefix implementations/mcp-frameworks/mcp-framework ");
  });
});

import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Ajv } from "ajv";
import { afterAll, describe, expect, test } from "vitest";
import { fuzzMcp, keywordOfMessage, type McpFuzzOutcome } from "../../src/fuzz/mcp/fuzz-mcp.js";
import { shrink, sizeOf, smaller } from "../../src/fuzz/mcp/shrink.js";
import { compile } from "../../src/schema/compile.js";
import { cli, oneLineError } from "../helpers/cli-helpers.js";

// fuzz --mcp against servers written here whose faults are known: the low-level one that validates
// nothing, the strict one, the zod one that strips unknown keys, the one that exits on a bad call.
// Whether an argument was invalid is checked with ajv on the fixtures' own schemas, written out here.

const dir = mkdtempSync(join(tmpdir(), "fuzz-mcp-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const FIXTURES = join(import.meta.dirname, "..", "fixtures", "mcp");

/** lowlevel-server.mjs's tools, as it lists them. */
const LOWLEVEL = {
  search: { type: "object", properties: { query: { type: "string", minLength: 1 }, limit: { type: "integer", minimum: 1, maximum: 50 } }, required: ["query"], additionalProperties: false },
  tag: { type: "object", properties: { id: { type: "string" }, tags: { type: "array", items: { type: "string" }, maxItems: 5 } }, required: ["id"] },
};

async function fuzzed(fixture: string, args: string, options: Partial<Parameters<typeof fuzzMcp>[1]> = {}): Promise<{ outcome: McpFuzzOutcome; runs: { tool: string; args: unknown }[] }> {
  const log = join(dir, `run-${++logs}.log`);
  const outcome = await fuzzMcp({ command: `node ${join(FIXTURES, fixture)} ${args}`, env: { ...process.env, MCP_RUN_LOG: log } }, { seed: 1, runs: 600, timeMs: 60_000, maxFindings: 50, ...options });
  const runs = existsSync(log) ? readFileSync(log, "utf8").trim().split("\n").map((line) => JSON.parse(line) as { tool: string; args: unknown }) : [];
  return { outcome, runs };
}

let logs = 0;
const keys = (outcome: McpFuzzOutcome) => outcome.findings.map((f) => `${f.tool} ${f.key}`).sort();

describe("fuzz --mcp", () => {
  test("a server that validates nothing: every rule its tools break is a finding, each shrunk, and every call it ran on was invalid", async () => {
    const { outcome, runs } = await fuzzed("lowlevel-server.mjs", "none");
    expect(keys(outcome)).toEqual(
      expect.arrayContaining(["search mcp/ran/additionalProperties", "search mcp/ran/maximum", "search mcp/ran/minLength", "search mcp/ran/minimum", "search mcp/ran/required", "search mcp/ran/type", "tag mcp/ran/maxItems", "tag mcp/ran/required", "tag mcp/ran/type"]),
    );
    // shrunk: a missing required property is the empty object; the unknown key stands beside the required one only
    expect(outcome.findings.find((f) => f.tool === "search" && f.key === "mcp/ran/required")!.arguments).toEqual({});
    const extra = outcome.findings.find((f) => f.tool === "search" && f.key === "mcp/ran/additionalProperties")!;
    expect(Object.keys(extra.arguments as object).sort()).toEqual(["query", "tool_conformance_extra"]);
    const maxItems = outcome.findings.find((f) => f.key === "mcp/ran/maxItems")!;
    expect((maxItems.arguments as { tags: unknown[] }).tags).toHaveLength(6);
    for (const f of outcome.findings) expect(sizeOf(f.arguments)).toBeLessThanOrEqual(sizeOf(f.found));
    // the safety promise, checked by another validator: nothing valid was ever sent
    const ajv = new Ajv({ strict: false });
    const validators = { search: ajv.compile(LOWLEVEL.search), tag: ajv.compile(LOWLEVEL.tag) };
    expect(runs.length).toBeGreaterThan(500);
    for (const run of runs) expect(validators[run.tool as "search" | "tag"](run.args), JSON.stringify(run)).toBe(false);
    expect(outcome.tools.map((t) => t.tool)).toEqual(["search", "tag"]);
    expect(outcome.tools.every((t) => t.sent > 200)).toBe(true);
  });

  test("a strict server: no finding, and no tool ever ran", async () => {
    const { outcome, runs } = await fuzzed("strict-server.mjs", "");
    expect(outcome.findings).toEqual([]);
    expect(runs).toEqual([]);
    expect(outcome.cases).toBe(600);
    for (const tool of outcome.tools) expect(tool.verdicts.ran ?? 0).toBe(0);
    expect(outcome.tools.reduce((n, t) => n + (t.verdicts.refused ?? 0), 0)).toBeGreaterThan(500);
  });

  test("zod that strips unknown keys: the extra property runs the tool, and is shrunk to it alone beside the required city", async () => {
    const { outcome } = await fuzzed("zod-server.mjs", "");
    const extra = outcome.findings.find((f) => f.key === "mcp/ran/additionalProperties");
    expect(extra, keys(outcome).join(", ")).toBeDefined();
    expect(Object.keys(extra!.arguments as object).sort()).toEqual(["city", "tool_conformance_extra"]);
  });

  test("a server that exits on a bad call: crashed findings, started again each time, and the run goes on", async () => {
    const { outcome } = await fuzzed("lowlevel-server.mjs", "exit", { runs: 120 });
    const crashed = outcome.findings.filter((f) => f.symptom === "crashed");
    expect(crashed.map((f) => `${f.tool} ${f.key}`)).toEqual(expect.arrayContaining(["search mcp/crashed/required", "tag mcp/crashed/required"]));
    expect(crashed.find((f) => f.tool === "search")!.arguments).toEqual({});
    expect(outcome.notes.join("\n")).toMatch(/search: the server was started again after it crashed/);
    expect(outcome.cases).toBe(120);
    // 120 calls, most a crash and a start again: slow on a loaded machine
  }, 120_000);

  test("the same seed gives the same calls and findings; another seed other calls", async () => {
    const [a, b, c] = await Promise.all([fuzzed("lowlevel-server.mjs", "none", { runs: 80, seed: 5 }), fuzzed("lowlevel-server.mjs", "none", { runs: 80, seed: 5 }), fuzzed("lowlevel-server.mjs", "none", { runs: 80, seed: 6 })]);
    expect(b.runs).toEqual(a.runs);
    expect(b.outcome.findings.map((f) => f.arguments)).toEqual(a.outcome.findings.map((f) => f.arguments));
    expect(c.runs).not.toEqual(a.runs);
  });
});

describe("shrinking and keys", () => {
  test("shrinking keeps only what the predicate keeps, ends, and never grows", async () => {
    const start = { query: "a long query", limit: 50.5, tags: ["x", "y", "z"] };
    // keep: still has a fractional limit
    const shrunk = await shrink(start, async (v) => typeof (v as { limit?: unknown }).limit === "number" && !Number.isInteger((v as { limit: number }).limit), { tries: 1_000, until: Date.now() + 10_000 });
    expect(shrunk.value).toEqual({ limit: 0.5 });
    for (const candidate of smaller(start)) expect(sizeOf(candidate)).not.toBeNaN();
    const none = await shrink(start, async () => false, { tries: 1_000, until: Date.now() + 10_000 });
    expect(none).toMatchObject({ value: start, steps: 0 });
  });

  test("each of the reference's messages maps to its keyword", () => {
    const cases: [string, unknown, string][] = [
      ['{"type":"object","required":["a"]}', {}, "required"],
      ['{"type":"object","properties":{},"additionalProperties":false}', { b: 1 }, "additionalProperties"],
      ['{"type":"integer"}', 1.5, "type"],
      ['{"enum":["c","f"]}', "k", "enum"],
      ['{"const":3}', 4, "const"],
      ['{"minLength":2}', "a", "minLength"],
      ['{"maxLength":1}', "ab", "maxLength"],
      ['{"minItems":2}', [1], "minItems"],
      ['{"maxItems":1}', [1, 2], "maxItems"],
      ['{"minimum":1}', 0, "minimum"],
      ['{"maximum":1}', 2, "maximum"],
      ['{"pattern":"^a"}', "b", "pattern"],
      ['{"anyOf":[{"type":"string"},{"type":"integer"}]}', true, "anyOf"],
    ];
    for (const [schema, value, keyword] of cases) {
      const errors = compile(schema).validate(value as never);
      expect(errors.length, schema).toBeGreaterThan(0);
      expect(errors.map((e) => keywordOfMessage(e.message)), schema).toContain(keyword);
    }
  });
});

describe("fuzz --mcp from the command line", () => {
  const server = (mode: string) => `node ${join(FIXTURES, "lowlevel-server.mjs")} ${mode}`;

  test("findings exit 1 and print the shrunk call to send; --json is one object; --ignore sets them aside (exit 0)", () => {
    const found = cli("fuzz", "--mcp", server("none"), "--seed", "3", "--runs", "200");
    expect(found.code, found.stderr).toBe(1);
    expect(found.stdout).toMatch(/search ran on invalid arguments · mcp\/ran\/required/);
    expect(found.stdout).toContain('send it    tools/call {"name":"search","arguments":{}}');
    expect(found.stdout).toContain(`replay the run: tool-conformance fuzz --mcp '${server("none")}' --seed 3`);
    const json = cli("fuzz", "--mcp", server("none"), "--seed", "3", "--runs", "200", "--json");
    const parsed = JSON.parse(json.stdout) as McpFuzzOutcome;
    expect(parsed.findings.length).toBeGreaterThan(3);
    expect(json.stderr).toBe("");
    const aside = cli("fuzz", "--mcp", server("none"), "--seed", "3", "--runs", "200", "--ignore", "mcp/ran");
    expect(aside.code, aside.stdout).toBe(0);
    expect(aside.stdout).toMatch(/set aside \(--ignore\): search mcp\/ran\/required in \d+ calls/);
  });

  test("a strict server exits 0; a server that does not start exits 3; corpus flags exit 2, each in one line", () => {
    const strict = cli("fuzz", "--mcp", `node ${join(FIXTURES, "strict-server.mjs")}`, "--runs", "100");
    expect(strict.code, strict.stdout).toBe(0);
    expect(strict.stdout).toMatch(/✓ no tool ran on the 100 invalid calls sent/);
    const dead = cli("fuzz", "--mcp", `node -e "process.exit(1)"`, "--runs", "10");
    expect(dead.code).toBe(3);
    expect(oneLineError(dead.stderr)).toMatch(/the MCP server did not start/);
    const save = cli("fuzz", "--mcp", server("none"), "--save", join(dir, "x.json"));
    expect(save.code).toBe(2);
    expect(oneLineError(save.stderr)).toMatch(/--save does not apply to an MCP server/);
    const both = cli("fuzz", "--mcp", server("none"), "--mcp-url", "http://127.0.0.1:1/mcp");
    expect(both.code).toBe(2);
    expect(oneLineError(both.stderr)).toMatch(/not both/);
  });
});

import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { score } from "../../../src/harness/index.js";
import { scoreMcp } from "../../../src/harness/score-mcp.js";
import type { Report } from "../../../src/report/report.js";

// MCP servers written here on the SDK, scored over stdio with no adapter: what each does with
// invalid arguments is known, so the score, the classes and the diagnosis can be checked.

const dir = mkdtempSync(join(tmpdir(), "mcp-servers-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const FIXTURES = join(import.meta.dirname, "..", "..", "fixtures", "mcp");

/** Scores `node FIXTURE ARGS` with a run log of its own; returns the report and the tools that ran. */
async function scored(fixture: string, args = "", tiers: ("core" | "catalog")[] = ["core"]): Promise<{ report: Report; runs: unknown[] }> {
  const log = join(dir, `${fixture}-${args || "plain"}.log`);
  const report = await scoreMcp({ command: `node ${join(FIXTURES, fixture)} ${args}`, env: { ...process.env, MCP_RUN_LOG: log } }, { tiers });
  const runs = existsSync(log) ? readFileSync(log, "utf8").trim().split("\n").map((line) => JSON.parse(line) as unknown) : [];
  return { report, runs };
}

const named = (report: Report) => report.diagnosis.matches.map((m) => m.id);
const answerOf = (report: Report, id: string) => {
  const row = report.rows.find((r) => r.id === id);
  expect(row, id).toBeDefined();
  return (row!.checks.find((c) => !c.pass)?.actual as { answer?: string } | undefined)?.answer;
};

describe("scoring MCP servers over stdio", () => {
  test("a strict server scores 100% and none of its tools runs", async () => {
    const { report, runs } = await scored("strict-server.mjs");
    expect(report.summary.scores.total.percent).toBe(100);
    expect(report.summary.scores.total.rows).toBeGreaterThan(40);
    expect(runs).toEqual([]);
    expect(report.header.subject.implementation.language).toBe("MCP 2025-11-25");
  });

  test("a low-level server that validates nothing runs every tool: s10, and each run is shown as ran", async () => {
    const { report, runs } = await scored("lowlevel-server.mjs", "none");
    expect(named(report)).toEqual(["s10"]);
    expect(runs.length).toBeGreaterThan(20);
    expect(answerOf(report, "mcp/search/missing-required/query")).toBe("ran");
    const failing = report.rows.find((r) => r.id === "mcp/search/extra-property")!;
    expect(failing.repro?.steps).toEqual([`tools/call {"name":"search","arguments":{"query":"a","tool_conformance_extra":"x"}}`]);
  });

  test("McpServer with zod that strips unknown keys and coerces numbers: s07 and s01", async () => {
    const { report, runs } = await scored("zod-server.mjs");
    expect(named(report)).toEqual(expect.arrayContaining(["s07", "s01"]));
    // its tools ran on invalid calls: s10 beside the rules that let them through
    expect(named(report)).toContain("s10");
    expect(answerOf(report, "mcp/get_weather/extra-property")).toBe("ran");
    // the stripped key never reached the tool, the coerced number did, as a number
    expect(runs).toContainEqual({ tool: "get_weather", args: { city: "a" } });
    expect(runs).toContainEqual({ tool: "get_weather", args: { city: "a", days: 3 } });
  });

  test("valid calls added (--mcp-run: it rightly accepts 3.0) take away none of its diagnoses", async () => {
    const without = named((await scored("zod-server.mjs")).report);
    const report = await scoreMcp({ command: `node ${join(FIXTURES, "zod-server.mjs")}` }, { tiers: ["core"], run: ["get_weather"] });
    expect(report.rows.some((row) => row.id.startsWith("mcp-accept/get_weather/integer-3.0/"))).toBe(true);
    expect(named(report)).toEqual(expect.arrayContaining(without));
  });

  test("a server that exits on a bad call is a crash, started again, and the run goes on", async () => {
    const { report } = await scored("lowlevel-server.mjs", "exit");
    expect(answerOf(report, "mcp/search/missing-required/query")).toBe("crashed");
    const crashed = report.rows.find((r) => r.id === "mcp/search/missing-required/query")!;
    expect(crashed.checks.find((c) => c.what === "the server keeps answering")?.actual).toEqual({ died: "crashed: the process exited with code 3" });
    expect(report.diagnosis.crashed).toBe(2);
    expect(report.rows.filter((r) => r.status === "errored")).toEqual([]);
    expect(report.summary.flags).toContain("mcp: the server was started again 2 times after a crash or a hang");
  });

  test("a server answering -32603 refuses unreadably: s15", async () => {
    const { report } = await scored("lowlevel-server.mjs", "internal");
    expect(named(report)).toEqual(["s15"]);
    expect(answerOf(report, "mcp/tag/missing-required/id")).toBe("unreadable refusal");
  });

  test("a server whose refusals name nothing: s23", async () => {
    const { report } = await scored("lowlevel-server.mjs", "nameless");
    expect(named(report)).toEqual(["s23"]);
    // refused all the same: only the paths level (naming) fails
    expect(report.summary.scores.byLevel.verdict.percent).toBe(100);
  });

  test("a server that lists one tool a page is probed on every page", async () => {
    const { report } = await scored("lowlevel-server.mjs", "page");
    const tools = new Set(report.rows.filter((r) => r.id.startsWith("mcp/")).map((r) => r.id.split("/")[1]));
    expect([...tools].sort()).toEqual(["search", "tag"]);
    expect(report.rows.find((r) => r.id === "mcp-list/stable")?.status).toBe("passed");
  });

  test("MCP's own looser rules are catalog: the strict server's unsorted list fails only there", async () => {
    const { report } = await scored("strict-server.mjs", "", ["core", "catalog"]);
    const sorted = report.rows.find((r) => r.id === "mcp-list/sorted")!;
    expect(sorted.tier).toBe("catalog");
    expect(sorted.status).toBe("failed");
    expect(report.summary.scores.byTier?.core?.percent).toBe(100);
  });
});

test("the scoring API takes a server as { mcp }: the same report as score --mcp", async () => {
  const report = await score({ mcp: { command: `node ${join(FIXTURES, "lowlevel-server.mjs")} internal` } }, { tiers: ["core"] });
  expect(report.header.subject.label).toBe(`mcp:node ${join(FIXTURES, "lowlevel-server.mjs")} internal`);
  expect(report.diagnosis.matches.map((m) => m.id)).toEqual(["s15"]);
});

test("a run stopped by its signal reports the rows answered, marked interrupted", async () => {
  const controller = new AbortController();
  let seen = 0;
  const report = await scoreMcp({ command: `node ${join(FIXTURES, "strict-server.mjs")}` }, { signal: controller.signal, onResult: () => ++seen === 10 && controller.abort("SIGINT") });
  expect(report.rows.length).toBe(10);
  expect(report.summary.stopped).toMatchObject({ interrupted: "SIGINT", answered: 10 });
  expect(report.diagnosis.lines).toEqual(["no diagnosis: the run was interrupted"]);
});

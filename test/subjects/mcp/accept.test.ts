import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { UsageError } from "../../../src/errors.js";
import { score } from "../../../src/harness/index.js";
import { scoreMcp } from "../../../src/harness/score-mcp.js";
import type { Report } from "../../../src/report/report.js";
import { compile } from "../../../src/schema/compile.js";
import { acceptsFor } from "../../../src/subjects/mcp/accept.js";
import { cli, oneLineError } from "../../helpers/cli-helpers.js";

// --mcp-run: valid calls, for the named tools only, each on an edge of the subset the seed accepts.

const dir = mkdtempSync(join(tmpdir(), "mcp-accept-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const SERVER = join(import.meta.dirname, "..", "..", "fixtures", "mcp", "accept-server.mjs");
const POO = "\u{1F4A9}";

const WEATHER = {
  type: "object",
  properties: { city: { type: "string", minLength: 1, maxLength: 5 }, days: { type: "integer", minimum: 1, maximum: 7 }, code: { type: "string", pattern: "[0-9]{3}" }, level: { enum: [1, 2, 3] }, v: { const: 2 } },
  required: ["city"],
  additionalProperties: false,
};

describe("valid calls from a tool's inputSchema", () => {
  const { calls } = acceptsFor("get_weather", WEATHER);
  const textOf = (probe: string) => calls.find((c) => c.probe === probe)?.text;

  test("each edge of the seed's acceptance side, as the text sent", () => {
    expect(textOf("valid/base")).toBe('{"city":"a"}');
    expect(textOf("integer-3.0/days")).toBe('{"city":"a","days":3.0}');
    expect(textOf("minimum-inclusive/days")).toBe('{"city":"a","days":1}');
    expect(textOf("maximum-inclusive/days")).toBe('{"city":"a","days":7}');
    expect(textOf("max-length-code-points/city")).toBe(`{"city":"${POO.repeat(5)}"}`);
    expect(textOf("enum-by-value/level")).toBe('{"city":"a","level":1.0}');
    expect(textOf("const-by-value/v")).toBe('{"city":"a","v":2.0}');
    // a match only mid-string: the pattern matches somewhere, not the whole text
    const mid = JSON.parse(textOf("pattern-mid-string/code")!).code as string;
    expect(/[0-9]{3}/.test(mid) && !/^[0-9]{3}$/.test(mid)).toBe(true);
    expect(calls.map((c) => c.id)).toContain("mcp-accept/get_weather/integer-3.0/days");
  });

  test("every call is valid under the tool's own schema, by the reference, read as text", () => {
    const schema = compile(JSON.stringify(WEATHER));
    expect(calls.length).toBe(8);
    for (const call of calls) expect(schema.validateJSON(call.text), call.id).toEqual([]);
  });

  test("an edge the schema refuses is not sent: an anchored pattern, a maxLength the pattern forbids astral characters in", () => {
    const { calls: anchored } = acceptsFor("t", { type: "object", properties: { code: { type: "string", pattern: "^[0-9]{3}$" }, name: { type: "string", maxLength: 3, pattern: "^[a-z]+$" } }, required: [] });
    expect(anchored.map((c) => c.probe)).toEqual(["valid/base"]);
  });

  test("edges inside a nested object and an array's element, each the whole arguments written as text", () => {
    const trip = {
      type: "object",
      properties: { trip: { type: "object", properties: { nights: { type: "integer", minimum: 1, maximum: 14 }, code: { type: "string", maxLength: 2 } }, required: ["nights"], additionalProperties: false }, rooms: { type: "array", items: { type: "object", properties: { beds: { enum: [1, 2] } } } } },
      required: ["trip"],
      additionalProperties: false,
    };
    const { calls: nestedCalls } = acceptsFor("book", trip);
    const text = (probe: string) => nestedCalls.find((c) => c.probe === probe)?.text;
    expect(text("integer-3.0/trip.nights")).toBe('{"trip":{"nights":3.0}}');
    expect(text("maximum-inclusive/trip.nights")).toBe('{"trip":{"nights":14}}');
    expect(text("max-length-code-points/trip.code")).toBe(`{"trip":{"nights":1,"code":"${POO.repeat(2)}"}}`);
    expect(text("enum-by-value/rooms[0].beds")).toBe('{"trip":{"nights":1},"rooms":[{"beds":1.0}]}');
    expect(nestedCalls.find((c) => c.probe === "integer-3.0/trip.nights")?.names).toEqual([["nights"]]);
    const schema = compile(JSON.stringify(trip));
    for (const call of nestedCalls) expect(schema.validateJSON(call.text), call.id).toEqual([]);
  });

  test("a schema with a keyword outside the subset gets no valid call: that keyword might refuse it", () => {
    const made = acceptsFor("mail", { type: "object", properties: { to: { type: "string", format: "email", maxLength: 9 } } });
    expect(made.calls).toEqual([]);
    expect(made.unjudged).toContain("not wholly in the subset");
  });
});

/** Scores the fixture in MODE, its tools in `run` named as runnable; the report and the runs it logged. */
async function scored(mode: string, run: string[]): Promise<{ report: Report; runs: { tool: string; args: unknown }[] }> {
  const log = join(dir, `${mode}-${run.join("+") || "none"}.log`);
  const report = await scoreMcp({ command: `node ${SERVER} ${mode}`, env: { ...process.env, MCP_RUN_LOG: log } }, { run });
  const runs = existsSync(log) ? readFileSync(log, "utf8").trim().split("\n").map((line) => JSON.parse(line) as { tool: string; args: unknown }) : [];
  return { report, runs };
}
const accepted = (report: Report) => report.rows.filter((r) => r.id.startsWith("mcp-accept/"));
const failing = (report: Report) => report.rows.filter((r) => r.status !== "passed").map((r) => r.id);

describe("score --mcp-run on servers of known behaviour", () => {
  test("a strict server passes every row, and only the named tools ran", async () => {
    const { report, runs } = await scored("strict", ["get_weather", "lookup"]);
    expect(failing(report)).toEqual([]);
    expect(accepted(report).map((r) => r.id).sort()).toEqual([
      "mcp-accept/get_weather/integer-3.0/days",
      "mcp-accept/get_weather/max-length-code-points/city",
      "mcp-accept/get_weather/maximum-inclusive/days",
      "mcp-accept/get_weather/minimum-inclusive/days",
      "mcp-accept/get_weather/valid/base",
      "mcp-accept/lookup/enum-by-value/level",
      "mcp-accept/lookup/pattern-mid-string/code",
      "mcp-accept/lookup/valid/base",
    ]);
    expect(accepted(report).every((r) => r.tier === "core")).toBe(true);
    // each valid call ran once; the tool not named never ran, though it says readOnlyHint
    expect(runs.length).toBe(8);
    expect(new Set(runs.map((r) => r.tool))).toEqual(new Set(["get_weather", "lookup"]));
    expect(runs).toContainEqual({ tool: "get_weather", args: { city: POO.repeat(5) } });
  });

  test("an unnamed tool receives no valid call: without --mcp-run no tool runs at all", async () => {
    const { report, runs } = await scored("strict", []);
    expect(accepted(report)).toEqual([]);
    expect(runs).toEqual([]);
    expect(failing(report)).toEqual([]);
  });

  test("a server that judges integers by their literal fails exactly the 3.0 row, sent as 3.0", async () => {
    const { report } = await scored("integer-text", ["get_weather", "lookup"]);
    expect(failing(report)).toEqual(["mcp-accept/get_weather/integer-3.0/days"]);
    const row = report.rows.find((r) => r.id === "mcp-accept/get_weather/integer-3.0/days")!;
    expect(row.repro?.steps).toEqual(['tools/call {"name":"get_weather","arguments":{"city":"a","days":3.0}}']);
    expect(row.checks.find((c) => !c.pass)?.actual).toMatchObject({ ran: false, answer: "refused" });
  });

  test("a server that counts UTF-16 units fails exactly the astral maxLength row, diagnosed as pitfall 2", async () => {
    const { report } = await scored("utf16", ["get_weather"]);
    expect(failing(report)).toEqual(["mcp-accept/get_weather/max-length-code-points/city"]);
    expect(report.diagnosis.matches.map((m) => m.id)).toContain("s03");
  });

  test("a name the server does not list is a usage error naming the tools listed; nothing is sent", async () => {
    const log = join(dir, "unknown.log");
    const error = await scoreMcp({ command: `node ${SERVER} strict`, env: { ...process.env, MCP_RUN_LOG: log } }, { run: ["get_wether"] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toBe('--mcp-run: "get_wether" is not a tool of this server (its tools: "delete_everything", "get_weather", "lookup")');
    expect(existsSync(log)).toBe(false);
  });

  test("the scoring API takes the tools as { mcp, run }", async () => {
    const report = await score({ mcp: { command: `node ${SERVER} utf16` }, run: ["get_weather"] }, { tiers: ["core"] });
    expect(failing(report)).toEqual(["mcp-accept/get_weather/max-length-code-points/city"]);
  });
});

describe("score --mcp-run as a user runs it", () => {
  test("an unknown tool and --mcp-run without a server are usage errors (exit 2)", () => {
    const unknown = cli("score", "--mcp", `node ${SERVER}`, "--mcp-run", "nope", "--out", join(dir, "cli-unknown"));
    expect(unknown.code).toBe(2);
    expect(oneLineError(unknown.stderr)).toContain('"nope" is not a tool of this server (its tools: "delete_everything", "get_weather", "lookup")');
    const alone = cli("score", "reference", "--mcp-run", "get_weather");
    expect(alone.code).toBe(2);
    expect(oneLineError(alone.stderr)).toContain("--mcp-run names tools of an MCP server");
  });

  test("score --help says --mcp-run is for read-only tools only", () => {
    expect(cli("score", "--help").stdout).toMatch(/--mcp-run <tools>\s+with --mcp or --mcp-url, only read-only tools/);
  });
});

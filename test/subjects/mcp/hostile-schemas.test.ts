import { spawnSync } from "node:child_process";
import { chmodSync, cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Ajv } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import { afterAll, describe, expect, test } from "vitest";
import { PACKAGE_ROOT } from "../../../src/corpus/load.js";
import { MAIN } from "../../helpers/cli-helpers.js";
import { needs } from "../../helpers/machine.mjs";

// Servers whose schemas attacked the probes: each validates nothing and logs every call it gets.
// The promise checked on each: its own schema, read as its dialect reads it, accepts none of the
// calls it got (from score and from fuzz --mcp), and the run ends with every tool accounted for.
// Each run is a process of its own, killed at its deadline: a loop that never ends fails the test
// instead of hanging it.

const FIXTURES = join(import.meta.dirname, "..", "..", "fixtures", "hostile-mcp");
const dir = mkdtempSync(join(tmpdir(), "hostile-schemas-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Tool {
  name: string;
  inputSchema: Record<string, unknown>;
}
interface Fixture {
  tools: Tool[];
  /** A schema as draft-07 reads it, where the validator here reads it otherwise. */
  asDraft07?: Record<string, unknown>;
  /** What a tool's schema accepts, where it is too deep for a validator here. */
  validators?: Record<string, (value: unknown) => boolean>;
}
interface Call {
  tool: string;
  args: unknown;
}

/** A long enum checked by a loop, and the schema not checked against its meta-schema (whose uniqueness check takes ajv a minute at 150,000 values). */
const OPTIONS = { strict: false, loopEnum: 64, validateSchema: false };

let logs = 0;
/** The CLI on the fixture, killed after 90 s; its exit code (null when it was killed) and output. */
function run(fixture: string, log: string, ...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [MAIN, ...args, "--mcp", `node ${join(FIXTURES, fixture)}`], { cwd: PACKAGE_ROOT, encoding: "utf8", env: { ...process.env, NO_COLOR: "1", GITHUB_STEP_SUMMARY: "", MCP_CALL_LOG: log }, timeout: 90_000, killSignal: "SIGKILL", maxBuffer: 64 * 1024 * 1024 });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}
const callsIn = (log: string): Call[] => (existsSync(log) ? readFileSync(log, "utf8").trim().split("\n").map((line) => JSON.parse(line) as Call) : []);

/** Validators by tool: every way the tool's dialect may read its schema (both draft-07 and 2020-12 when it names none). */
function readings(fixture: Fixture): Map<string, ((value: unknown) => boolean)[]> {
  const out = new Map<string, ((value: unknown) => boolean)[]>();
  for (const tool of fixture.tools) {
    const uri = tool.inputSchema.$schema;
    const own = fixture.validators?.[tool.name];
    if (own) {
      out.set(tool.name, [own]);
      continue;
    }
    const list: ((value: unknown) => boolean)[] = [];
    const draft07 = fixture.asDraft07?.[tool.name] ?? tool.inputSchema;
    if (uri === undefined || String(uri).includes("draft-07")) list.push(new Ajv(OPTIONS).compile(draft07 as object));
    if (uri === undefined || String(uri).includes("2020-12")) list.push(new Ajv2020(OPTIONS).compile(tool.inputSchema));
    out.set(tool.name, list);
  }
  return out;
}

/** The calls a listed tool's own schema accepts: each one a tool run that nobody named. */
function accepted(fixture: Fixture, calls: Call[]): Call[] {
  const validators = readings(fixture);
  return calls.filter((call) => (validators.get(call.tool) ?? []).some((valid) => valid(call.args)));
}

const CASES: { fixture: string; notes: string[] }[] = [
  { fixture: "ref-sibling-draft07.mjs", notes: ["count: not judged", "$ref at $.properties.n"] },
  { fixture: "ref-sibling-no-schema.mjs", notes: ["$ref at $.properties.n", "any: not judged"] },
  { fixture: "prefix-items.mjs", notes: ["items at $.properties.pair"] },
  { fixture: "lists-unknown-tool-name.mjs", notes: [] },
  { fixture: "enum-2-pow-53.mjs", notes: ["above-maximum/f"] },
  { fixture: "enum-150000.mjs", notes: ["enum/n", "150000"] },
  { fixture: "schema-3000-deep.mjs", notes: ["deep: its schema could not be judged", "64"] },
  { fixture: "huge-lengths.mjs", notes: ["long: could not be probed", "many: could not be probed", "too-short/s", "too-few-items/l"] },
];

describe("score --mcp against hostile schemas", () => {
  for (const { fixture, notes } of CASES) {
    test(`${fixture}: no call its own schema accepts, and a whole report`, async () => {
      const module = (await import(join(FIXTURES, fixture))) as Fixture;
      const log = join(dir, `score-${++logs}.log`);
      const { code, stdout, stderr } = run(fixture, log, "score", "--tier", "core", "--tier", "catalog", "--reporter", "json=-");
      expect(accepted(module, callsIn(log))).toEqual([]);
      // it ended by itself, below the gate (this server runs everything), with one line on stderr
      expect(code, stderr).toBe(1);
      const lines = stdout.trim().split("\n").map((line) => JSON.parse(line) as { kind: string; id?: string; flags?: string[] });
      const ids = lines.filter((line) => line.kind === "row").map((line) => line.id!);
      // the run got to its end: the server's own rows come after every tool's
      expect(ids).toContain("mcp-server/unknown-tool");
      const flags = (lines.find((line) => line.kind === "summary")?.flags ?? []).join("\n");
      for (const tool of module.tools) {
        const probed = ids.some((id) => id.startsWith(`mcp/${tool.name}/`));
        expect(probed || flags.includes(`mcp: ${tool.name}:`), tool.name).toBe(true);
      }
      for (const note of notes) expect(flags).toContain(note);
    }, 120_000);
  }
});

describe("fuzz --mcp against hostile schemas", () => {
  for (const { fixture } of CASES) {
    test(`${fixture}: no call its own schema accepts, and every tool tallied`, async () => {
      const module = (await import(join(FIXTURES, fixture))) as Fixture;
      const log = join(dir, `fuzz-${++logs}.log`);
      const { code, stdout, stderr } = run(fixture, log, "fuzz", "--seed", "1", "--runs", "200", "--time", "30s");
      expect(accepted(module, callsIn(log))).toEqual([]);
      expect([0, 1], stderr).toContain(code);
      for (const tool of module.tools) expect(stdout).toMatch(new RegExp(`^  ${tool.name} +\\S`, "m"));
    }, 120_000);
  }
});

describe("a fault a probe's base could hide", () => {
  test("a server that ignores unknown properties but checks a pattern: the extra-property probe (on a base matching the pattern) is the one call it runs", () => {
    const log = join(dir, `score-${++logs}.log`);
    const { stdout } = run("ignores-unknown-properties.mjs", log, "score", "--reporter", "json=-");
    const rows = stdout.trim().split("\n").map((line) => JSON.parse(line) as { kind: string; id?: string; status?: string });
    expect(rows.find((row) => row.id === "mcp/ids/extra-property")?.status).toBe("failed");
    const calls = callsIn(log);
    expect(calls).toHaveLength(1);
    expect(Object.keys(calls[0]!.args as object).sort()).toEqual(["id", "tool_conformance_extra"]);
  }, 120_000);
});

describe("a fault only inside the arguments' one object", () => {
  test("a server that ignores unknown keys inside params and inside an array's elements: those two probes are the calls it runs, failed and diagnosed s07", () => {
    const log = join(dir, `score-${++logs}.log`);
    const { stdout } = run("ignores-unknown-inside.mjs", log, "score", "--reporter", "json=-");
    const lines = stdout.trim().split("\n").map((line) => JSON.parse(line) as { kind: string; id?: string; status?: string; diagnosis?: { matches: { id: string }[] } });
    const rows = lines.filter((line) => line.kind === "row");
    const failed = rows.filter((row) => row.status !== "passed").map((row) => row.id);
    expect(failed.sort()).toEqual(["mcp/create/extra-property/labels[0]", "mcp/create/extra-property/params"]);
    // probed inside: each nested rule has its own row, refused as it should be
    for (const id of ["mcp/create/missing-required/params.name", "mcp/create/integer-as-string/params.count", "mcp/create/below-minimum/params.count", "mcp/create/too-short/labels[0].name"]) expect(rows.find((row) => row.id === id)?.status, id).toBe("passed");
    const calls = callsIn(log);
    expect(calls).toHaveLength(2);
    expect(calls.map((call) => JSON.stringify(call.args)).sort()).toEqual(['{"params":{"name":"n-0"},"labels":[{"name":"a","tool_conformance_extra":"x"}]}', '{"params":{"name":"n-0","tool_conformance_extra":"x"}}'].sort());
    // the words say which object: additionalProperties of params, not of the arguments
    const text = spawnSync(process.execPath, [MAIN, "score", "--mcp", `node ${join(FIXTURES, "ignores-unknown-inside.mjs")}`], { cwd: PACKAGE_ROOT, encoding: "utf8", env: { ...process.env, NO_COLOR: "1", GITHUB_STEP_SUMMARY: "" }, timeout: 90_000 }).stdout;
    expect(text).toContain('its inputSchema refuses it (additionalProperties: false in "params")');
    const summary = lines.find((line) => line.kind === "summary") as { diagnosis?: { matches?: { id: string }[] } } | undefined;
    expect(JSON.stringify(summary?.diagnosis ?? lines.find((line) => line.kind === "diagnosis"))).toContain('"s07"');
  }, 120_000);

  const machine = needs("bwrap", "strace");
  test.skipIf(machine.lacking)(`the same under the sandbox, with nothing it does observed: the same two rows fail ${machine.tag}`, () => {
    // the sandbox sees a folder of the server's own, readable by its own user
    const folder = join(dir, "inside");
    cpSync(join(FIXTURES, "ignores-unknown-inside.mjs"), join(folder, "server.mjs"));
    chmodSync(dir, 0o755);
    chmodSync(folder, 0o755);
    const result = spawnSync(process.execPath, [MAIN, "score", "--mcp", "node server.mjs", "--sandbox", "bwrap", "--submission", folder, "--reporter", "json=-"], { cwd: PACKAGE_ROOT, encoding: "utf8", env: { ...process.env, NO_COLOR: "1", GITHUB_STEP_SUMMARY: "" }, timeout: 90_000, killSignal: "SIGKILL" });
    const stdout = result.stdout;
    const rows = stdout.trim().split("\n").map((line) => JSON.parse(line) as { kind: string; id?: string; status?: string }).filter((line) => line.kind === "row");
    expect(rows.filter((row) => row.status !== "passed").map((row) => row.id).sort()).toEqual(["mcp/create/extra-property/labels[0]", "mcp/create/extra-property/params"]);
    expect(stdout).toContain("nothing observed");
  }, 120_000);
});

import { existsSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import * as reference from "../../src/index.js";
import { loadCorpus, PACKAGE_ROOT } from "../../src/corpus/load.js";
import { createHandler, type ReferenceApi } from "../../src/subjects/handler.js";
import type { Body, Request } from "../../src/subjects/protocol.js";
import { crashOf, deathOf, runRow, type Check } from "../../src/run/run-row.js";
import type { CompileRow, ProfileName, RegistryRow, Row, ValidateRow } from "../../src/corpus/rows.js";
import { runRows } from "../../src/run/runner.js";
import { stdioSubject } from "../../src/subjects/stdio.js";
import { smoke } from "../../src/harness/smoke.js";

// The implementation owns its answers, crashes included. An implementation that raises or panics
// inside its own call answers `threw`: the row FAILS, attributed to it, with what it threw in the
// failing check ({threw: TEXT}). A process that dies while answering `concurrently` (a registry
// without its lock, under the race detector) fails its row too, with the end of its stderr. Only a
// broken protocol is errored.

const FIXTURES = join(PACKAGE_ROOT, "test", "fixtures", "bad-subjects");
const score = { level: "messages", tiers: ["core", "catalog", "hardening"] } as const;
const run = (subject: string, rows: Row[], jobs = 1) =>
  runRows(stdioSubject(subject, { timeoutMs: 2000 }), rows, { profile: "ag02", jobs, progress: false, level: score.level, tiers: [...score.tiers] });

const base = { section: "TestValidateTable" as const, rule: "crash", tier: "core" as const, pitfalls: [] as string[], why: "the implementation crashes on it" };
const validateRow = (id: string, schema: unknown, instance: string, errors: ValidateRow["expect"]["errors"] = []): ValidateRow => ({ ...base, id, kind: "validate", schema, instance, expect: { errors } });
const compileRow = (id: string, schema: unknown): CompileRow => ({ ...base, section: "TestCompileRejectsUnsupported", id, kind: "compile", schema, expect: { ok: true } });
const registryRow = (id: string, steps: RegistryRow["steps"]): RegistryRow => ({ ...base, section: "TestRegisterRules", id, kind: "registry", steps });
const tool = (name: string) => ({ name, description: "", parameters: { type: "object" }, behavior: { kind: "echo" as const } });

const failedChecks = (checks: Check[]) => checks.filter((check) => !check.pass);

beforeAll(() => {
  if (!existsSync(join(PACKAGE_ROOT, "dist", "subjects", "handler.js"))) throw new Error("the bad subjects run the built reference: run npm run build first");
});

describe("a threw reply is a failed check, one representation for every crash", () => {
  /** A send that answers every request with `reply` (registry with ok). */
  const answering = (reply: Record<string, unknown>) => async (body: Body) => (body.cmd === "registry" ? { ok: true } : reply);

  const cases: [string, Row, ProfileName, unknown, string][] = [
    ["validate", validateRow("v", { type: "string" }, '"x"'), "ag02", "valid", "verdict"],
    ["validate (invalid expected)", validateRow("v2", { type: "string" }, "1", [{ path: [], message: "expected string, got integer" }]), "ag02", "invalid", "verdict"],
    ["compile", compileRow("c", { type: "string" }), "ag02", "accepted", "schema accepted"],
    ["register", registryRow("r", [{ op: "register", tool: tool("t"), expect: { ok: true } }]), "ag02", "accepted", 'step 1: register "t" accepted'],
    ["names", registryRow("n", [{ op: "names", expect: [] }]), "ag02", [], "step 1: names"],
    ["definitions", registryRow("d", [{ op: "definitions", expect: [] }]), "ag02", [], "step 1: definitions"],
    ["call", registryRow("k", [{ op: "call", call: { id: "c1", name: "t", arguments: "{}" }, expect: { isError: true, runs: [] } }]), "ag02", "a Result", 'step 1: call "t": Call returns a Result'],
    ["get", registryRow("g", [{ op: "get", name: "t", expect: { found: false } }]), "lesson", "raises: not found", 'step 1: get "t"'],
    ["validate by name", registryRow("vt", [{ op: "validate", name: "t", instance: "{}", expect: { errors: [] } }]), "lesson", "valid", 'step 1: validate "t": verdict'],
    ["validate by name (refusal expected)", registryRow("vr", [{ op: "validate", name: "t", instance: "{}", expect: { refused: true } }]), "lesson", "refused", 'step 1: validate "t" refused'],
  ];
  for (const [what, row, profile, expected, label] of cases) {
    it(`${what}: {threw} in actual, what was expected there in expected, "it threw …" in the note, at verdict level`, async () => {
      const checks = await runRow(row, answering({ threw: "RecursionError: maximum recursion depth exceeded" }), profile);
      expect(checks).toEqual([
        { level: "verdict", tier: "core", what: label, expected, actual: { threw: "RecursionError: maximum recursion depth exceeded" }, pass: false, note: "it threw RecursionError: maximum recursion depth exceeded" },
      ]);
      expect(crashOf(checks[0]!)).toBe("RecursionError: maximum recursion depth exceeded");
    });
  }

  it("a threw inside a concurrently batch fails that request's check; the others are checked as usual", async () => {
    const row = registryRow("b", [
      {
        op: "concurrently",
        steps: [
          { op: "names", expect: [] },
          { op: "register", tool: tool("t"), expect: { ok: true } },
        ],
      },
    ]);
    const send = async (body: Body) => (body.cmd === "registry" ? { ok: true } : { replies: [{ threw: "panic: names exploded" }, { ok: true }], runs: {} });
    const checks = await runRow(row, send, "ag02");
    expect(failedChecks(checks)).toEqual([
      { level: "verdict", tier: "core", what: "step 1.1: names", expected: [], actual: { threw: "panic: names exploded" }, pass: false, note: "it threw panic: names exploded" },
    ]);
    expect(checks.filter((c) => c.pass).map((c) => c.what)).toEqual(['step 1.2: register "t" accepted', "step 1: every tool ran once per valid call, with its arguments"]);
  });

  it("caps the thrown text at 300 characters, with …", async () => {
    const [check] = await runRow(validateRow("v", { type: "string" }, '"x"'), answering({ threw: "x".repeat(1000) }), "ag02");
    expect(crashOf(check!)).toBe(`${"x".repeat(299)}…`);
    expect(check!.note).toBe(`it threw ${"x".repeat(299)}…`);
  });

  it("crashOf is undefined for any other check, and deathOf for a crash", async () => {
    const checks = await runRow(validateRow("v", { type: "string" }, "1", [{ path: [], message: "expected string, got integer" }]), answering({ ok: true, errors: [] }), "ag02");
    expect(checks.length).toBeGreaterThan(0);
    for (const check of checks) expect(crashOf(check)).toBeUndefined();
    expect(crashOf({ level: "verdict", tier: "core", what: "x", expected: "a", actual: { threw: "t", more: 1 }, pass: false })).toBeUndefined();
    expect(deathOf({ level: "verdict", tier: "core", what: "x", expected: "a", actual: { threw: "t" }, pass: false })).toBeUndefined();
  });
});

describe("the in-process handler answers threw when the implementation throws", () => {
  /** The reference, crashing on marked input: what the handler serves for the reference and the mutants. */
  class CrashingRegistry extends reference.Registry {
    override names(): string[] {
      if (super.names().includes("crash_names")) throw new TypeError("names is not iterable");
      return super.names();
    }
    override definitions() {
      if (super.names().includes("crash_names")) throw new RangeError("Maximum call stack size exceeded");
      return super.definitions();
    }
    override get(name: string) {
      if (name === "crash_get") throw new TypeError("Cannot read properties of undefined (reading 'schema')");
      return super.get(name);
    }
    override validate(name: string, text: string) {
      if (text.includes("CRASH")) throw new ReferenceError("entry is not defined");
      return super.validate(name, text);
    }
    override register(t: reference.Tool, options?: reference.RegisterOptions) {
      if (t.definition().name === "crash_register") throw new TypeError("tool.definition is not a function");
      return super.register(t, options);
    }
  }
  const api = {
    ...reference,
    Registry: CrashingRegistry,
    compile(text: string, options?: reference.CompileOptions) {
      if (text.includes("CRASH_COMPILE")) throw new RangeError("Maximum call stack size exceeded");
      const schema = reference.compile(text, options);
      return Object.assign(Object.create(schema) as reference.Schema, {
        validateJSON(instance: string) {
          if (instance.includes("CRASH_VALIDATE")) throw new Error("validate exploded");
          return schema.validateJSON(instance);
        },
      });
    },
  } as unknown as ReferenceApi;

  const session = async (profile: ProfileName) => {
    const handle = createHandler(api, { name: "crashing", version: "test" });
    let seq = 0;
    const send = (body: Body) => handle({ seq: ++seq, ...body } as Request);
    await send({ cmd: "start", version: 1, profile });
    await send({ cmd: "registry" });
    return send;
  };
  const spec = (name: string) => ({ name, description: "", parameters: '{"type":"object"}', behavior: { kind: "echo" as const } });

  it("compile and validate: a crash is threw, a SchemaError is still a refusal", async () => {
    const send = await session("ag02");
    expect(await send({ cmd: "compile", schema: '{"description":"CRASH_COMPILE"}' })).toEqual({ threw: "RangeError: Maximum call stack size exceeded" });
    expect(await send({ cmd: "validate", schema: '{"description":"CRASH_COMPILE"}', instance: "1" })).toEqual({ threw: "RangeError: Maximum call stack size exceeded" });
    expect(await send({ cmd: "validate", schema: '{"type":"string"}', instance: '"CRASH_VALIDATE"' })).toEqual({ threw: "validate exploded" });
    expect(await send({ cmd: "compile", schema: '{"format":"email"}' })).toEqual({ ok: false, error: expect.stringContaining("format") });
    expect(await send({ cmd: "validate", schema: '{"type":"string"}', instance: "1" })).toEqual({ ok: true, errors: [{ path: "$", message: "expected string, got number" }] });
  });

  it("register, names, definitions: threw, alone and inside concurrently; a refused tool is still ok: false", async () => {
    const send = await session("ag02");
    expect(await send({ cmd: "register", tool: spec("crash_register") })).toEqual({ threw: "TypeError: tool.definition is not a function" });
    expect(await send({ cmd: "register", tool: spec("bad name") })).toEqual({ ok: false, error: expect.stringContaining("bad name") });
    expect(await send({ cmd: "register", tool: spec("crash_names") })).toEqual({ ok: true });
    expect(await send({ cmd: "names" })).toEqual({ threw: "TypeError: names is not iterable" });
    expect(await send({ cmd: "definitions" })).toEqual({ threw: "RangeError: Maximum call stack size exceeded" });
    expect(await send({ cmd: "concurrently", requests: [{ cmd: "names" }, { cmd: "register", tool: spec("other") }, { cmd: "definitions" }] })).toEqual({
      replies: [{ threw: "TypeError: names is not iterable" }, { ok: true }, { threw: "RangeError: Maximum call stack size exceeded" }],
      runs: {},
    });
  });

  it("get and validate by name (lesson): threw for a crash, found: false / ok: false for a LookupError", async () => {
    const send = await session("lesson");
    expect(await send({ cmd: "register", tool: spec("weather.current") })).toEqual({ ok: true });
    expect(await send({ cmd: "get", name: "crash_get" })).toEqual({ threw: "TypeError: Cannot read properties of undefined (reading 'schema')" });
    expect(await send({ cmd: "get", name: "nothing" })).toEqual({ found: false, error: expect.stringContaining("nothing") });
    expect(await send({ cmd: "validate", tool: "weather.current", instance: '{"a":"CRASH"}' })).toEqual({ threw: "ReferenceError: entry is not defined" });
    expect(await send({ cmd: "validate", tool: "nothing", instance: "{}" })).toEqual({ ok: false, error: expect.stringContaining("nothing") });
  });
});

describe("a stdio subject whose implementation throws (test/fixtures/bad-subjects/throws.mjs)", () => {
  const corpus = loadCorpus();
  const good = ["example/validate/four-errors", "call/panic/registry-survives", "validate/type/integer-3.0"].map((id) => corpus.find((row) => row.id === id)!);
  const rows: Row[] = [
    validateRow("crash/validate", { type: "string" }, JSON.stringify("CRASH_VALIDATE")),
    good[0]!,
    compileRow("crash/compile", { type: "string", description: "CRASH_COMPILE" }),
    validateRow("crash/validate-compile", { type: "string", description: "CRASH_COMPILE" }, '"x"'),
    good[1]!,
    registryRow("crash/names", [
      { op: "register", tool: tool("crash_names"), expect: { ok: true } },
      { op: "names", expect: ["crash_names"] },
    ]),
    good[2]!,
  ];

  it("its rows FAIL (not errored) with the thrown text in the check; the other rows pass, in one process", async () => {
    const result = await run(`node ${join(FIXTURES, "throws.mjs")}`, rows);
    const by = Object.fromEntries(result.results.map((r) => [r.id, r]));
    for (const row of good) expect(by[row.id]!.status, row.id).toBe("passed");
    const crashes: Record<string, [string, unknown]> = {
      "crash/validate": ["TypeError: Cannot read properties of undefined (reading 'type')", "valid"],
      "crash/compile": ["RangeError: Maximum call stack size exceeded", "accepted"],
      "crash/validate-compile": ["RangeError: Maximum call stack size exceeded", "valid"],
      "crash/names": ["TypeError: names is not iterable", ["crash_names"]],
    };
    for (const [id, [thrown, expected]] of Object.entries(crashes)) {
      const r = by[id]!;
      expect({ id, status: r.status, error: r.error }).toEqual({ id, status: "failed", error: undefined });
      const [failing, ...others] = failedChecks(r.checks);
      expect(others).toEqual([]);
      expect(failing).toMatchObject({ level: "verdict", tier: "core", expected, actual: { threw: thrown }, note: `it threw ${thrown}` });
      expect(crashOf(failing!)).toBe(thrown);
    }
  });
});

describe("a stdio subject that dies of a data race during concurrently (test/fixtures/bad-subjects/data-race.mjs)", () => {
  const corpus = loadCorpus();
  const pick = (id: string) => corpus.find((row) => row.id === id)!;
  const rows: Row[] = [pick("call/concurrent/calls"), pick("example/validate/four-errors"), pick("call/concurrent/registrations"), pick("definitions/sorted/reverse-registration")];

  it("the batch's row FAILS, its note naming the data race and quoting the end of stderr; the process is restarted and the next rows run", async () => {
    const result = await run(`node ${join(FIXTURES, "data-race.mjs")}`, rows);
    const by = Object.fromEntries(result.results.map((r) => [r.id, r]));
    expect(result.results.map((r) => [r.id, r.status])).toEqual([
      ["call/concurrent/calls", "failed"],
      ["example/validate/four-errors", "passed"],
      ["call/concurrent/registrations", "failed"],
      ["definitions/sorted/reverse-registration", "passed"],
    ]);
    for (const id of ["call/concurrent/calls", "call/concurrent/registrations"]) {
      const r = by[id]!;
      expect(r.error).toBeUndefined();
      const [death, ...others] = failedChecks(r.checks);
      expect(others).toEqual([]);
      expect(death).toMatchObject({ level: "verdict", tier: "core", expected: "a reply to every request", actual: { died: "the process exited with code 66" } });
      expect(deathOf(death!)).toBe("the process exited with code 66");
      expect(crashOf(death!)).toBeUndefined();
      expect(death!.note).toBe(
        "it died during the concurrent requests: the process exited with code 66: a data race (the race detector stopped the process): " +
          "Write at 0x00c0000a2030 by goroutine 9: | runtime.mapassign_faststr() | tinyllm/agent/tool.(*Registry).Register() | Previous write at 0x00c0000a2030 by goroutine 8:; " +
          "its stderr ends: tinyllm/agent/tool.(*Registry).Register() | /src/agent/tool/registry.go:61 +0x1a4 | Previous write at 0x00c0000a2030 by goroutine 8: | tinyllm/agent/tool.(*Registry).Register() | /src/agent/tool/registry.go:61 +0x1a4 | ==================",
      );
    }
    // the row ends at the death: the registry is gone, so the step after it is not run
    expect(by["call/concurrent/registrations"]!.checks.map((c) => c.what)).toEqual(["step 1: every concurrent request answered"]);
  });

  it("with several sessions at once, the same: failed, never errored", async () => {
    const result = await run(`node ${join(FIXTURES, "data-race.mjs")}`, [...rows, ...rows], 2);
    expect(result.results.filter((r) => r.status === "errored")).toEqual([]);
    expect(result.results.filter((r) => r.id.startsWith("call/concurrent/")).map((r) => r.status)).toEqual(["failed", "failed", "failed", "failed"]);
  });

  it("a death outside concurrently is still errored: the adapter's fault", async () => {
    const subject = `FAULT_ON='"cmd":"validate"' node ${join(FIXTURES, "data-race.mjs")}`;
    const result = await run(subject, [pick("example/validate/four-errors"), pick("definitions/sorted/reverse-registration")]);
    expect(result.results.map((r) => [r.id, r.status])).toEqual([
      ["example/validate/four-errors", "errored"],
      ["definitions/sorted/reverse-registration", "passed"],
    ]);
    expect(result.results[0]!.error).toMatch(/exited with code 66 while answering "validate"/);
    expect(result.results[0]!.stderr).toContain("WARNING: DATA RACE");
  });
});

describe("smoke probes the adapter's crash handling with requests nested 100000 deep", () => {
  /** Runs smoke on a bad subject whose marked requests (those holding DEEP_MARK) get `reply`, or kill it. */
  const smokeOn = async (fixture: string, env: string): Promise<{ code: number; lines: string[] }> => {
    const lines: string[] = [];
    const code = await smoke({ subject: `${env} node ${join(FIXTURES, fixture)}`, profile: "ag02", timeout: 5000, startTimeout: 10_000 }, (line) => lines.push(line));
    return { code, lines };
  };
  // only the deep validate and call probes hold a run of brackets; the deep compile does not
  const DEEP_MARK = "FAULT_ON='[[[[[[[[[['";

  it("the reference: every probe answered, no crash (exit 0)", async () => {
    const { code, lines } = await smokeOn("answers.mjs", "FAULT_ON=nothing-is-marked");
    expect(lines).toContain("ok    compile   a schema nested 100000 deep: refused, no crash");
    expect(lines).toContain("ok    validate  an argument nested 100000 deep: answered, no crash");
    expect(lines).toContain("ok    call      a call whose arguments nest 100000 deep: answered with a Result, no crash");
    expect(code).toBe(0);
  });

  it("a threw answer keeps the protocol: a warning naming the command and what it threw; still a wrong answer (exit 1)", async () => {
    const { code, lines } = await smokeOn("answers.mjs", `${DEEP_MARK} REPLY='{"threw":"RecursionError: maximum recursion depth exceeded"}'`);
    expect(lines).toContain('warn  validate  an argument nested 100000 deep: the implementation threw "RecursionError: maximum recursion depth exceeded": a wrong answer (its row fails), correctly reported');
    expect(lines).toContain('warn  call      a call whose arguments nest 100000 deep: the implementation threw "RecursionError: maximum recursion depth exceeded": a wrong answer (its row fails), correctly reported');
    expect(lines.filter((line) => line.startsWith("FAIL"))).toEqual([]);
    expect(lines.at(-1)).toMatch(/^smoke: the subject speaks protocol 1 and answered wrongly: see warn above/);
    expect(code).toBe(1);
  });

  it("an adapter that dies on the deep validate: FAIL on validate, with the hint and its stderr (exit 1)", async () => {
    const { code, lines } = await smokeOn("crash.mjs", DEEP_MARK);
    expect(lines).toContainEqual(expect.stringMatching(/^FAIL {2}validate {2}an argument nested 100000 deep: the process exited with code 70 while answering "validate" \(seq \d+\)$/));
    expect(lines).toContainEqual(expect.stringMatching(/^ {6}a crash inside your implementation is its answer: recover \(Go\) or catch around the call into it and reply \{"seq": N, "threw": "Type: message"\}/));
    expect(lines).toContain("      | crashing on purpose");
    expect(lines.at(-1)).toMatch(/^smoke: the subject answered wrongly/);
    expect(code).toBe(1);
  });

  it("an adapter that answers the deep validate with an errored reply: FAIL on validate (exit 1)", async () => {
    const { code, lines } = await smokeOn("answers.mjs", `${DEEP_MARK} REPLY='{"errored":true,"message":"RecursionError: maximum recursion depth exceeded"}'`);
    expect(lines).toContainEqual(expect.stringMatching(/^FAIL {2}validate {2}an argument nested 100000 deep: the subject could not answer "validate" \(seq \d+\): RecursionError: maximum recursion depth exceeded$/));
    expect(code).toBe(1);
  });

  it("a threw that is not a string breaks the reply schema: FAIL on the command (exit 1)", async () => {
    const { code, lines } = await smokeOn("answers.mjs", `${DEEP_MARK} REPLY='{"threw":42}'`);
    expect(lines).toContainEqual(expect.stringMatching(/^FAIL {2}validate {2}an argument nested 100000 deep: the reply to "validate" \(seq \d+\) breaks the protocol: .*\$\.threw: expected string/));
    expect(code).toBe(1);
  });
});

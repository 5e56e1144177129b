import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { markdownOf, textOf } from "../../src/libraries/validators-table.js";
import { validatorRows, type Comparison } from "../../src/libraries/compare-validators.js";
import { loadCorpus, PACKAGE_ROOT } from "../../src/corpus/load.js";
import { statusOf } from "../../src/run/outcome.js";
import type { CompileRow, ValidateRow } from "../../src/corpus/rows.js";
import { runRow } from "../../src/run/run-row.js";
import { runRows } from "../../src/run/runner.js";
import { loadValidators, pointerSegments, type LoadedValidator } from "../../src/subjects/validators/index.js";
import { arraySegments, insideAnyOfBranch } from "../../src/subjects/validators/library.js";
import { workerScript, workerValidatorSubject } from "../../src/subjects/validators/worker-subject.js";

const EXAMPLE_SCHEMA = {
  type: "object",
  properties: { city: { type: "string", minLength: 1 }, days: { type: "integer", minimum: 1, maximum: 7 }, unit: { enum: ["c", "f"] } },
  required: ["city"],
  additionalProperties: false,
};
const example: ValidateRow = {
  id: "example/invalid",
  section: "TestHandWorkedExample",
  kind: "validate",
  rule: "example",
  tier: "core",
  pitfalls: [],
  why: "the seed's hand-worked example",
  schema: EXAMPLE_SCHEMA,
  instance: '{"days": "3", "unit": "kelvin", "country": "FR"}',
  expect: {
    errors: [
      { path: [], message: 'missing required property "city"' },
      { path: [], message: 'unexpected property "country"' },
      { path: ["days"], message: "expected integer, got string" },
      { path: ["unit"], message: '"kelvin" is not one of ["c","f"]' },
    ],
  },
};
const format: CompileRow = {
  id: "compile/format",
  section: "TestCompileRejectsUnsupported",
  kind: "compile",
  rule: "unsupported/format",
  tier: "core",
  pitfalls: ["s08"],
  why: "format is outside the subset",
  schema: { type: "string", format: "email" },
  expect: { ok: false },
};
const ALL = { tiers: ["core", "catalog", "hardening"] as ("core" | "catalog" | "hardening")[] };

describe("validator subjects", () => {
  let validators: LoadedValidator[];
  beforeAll(async () => {
    validators = await loadValidators({ inProcess: true });
  });

  it("loads all seven libraries (dev dependencies), and two as frameworks configure them", () => {
    expect(validators.map((v) => [v.name, v.missing])).toEqual([
      ["ajv", undefined],
      ["ajv (MCP SDK)", undefined],
      ["@cfworker/json-schema", undefined],
      ["@cfworker/json-schema (LangChain)", undefined],
      ["@hyperjump/json-schema", undefined],
      ["z-schema", undefined],
      ["@exodus/schemasafe", undefined],
      ["jsonschema", undefined],
      ["zod", undefined],
    ]);
  });

  it("answers start with the validate capability only", async () => {
    for (const v of validators) {
      const session = await v.subject!.open("ag02");
      expect(session.hello.capabilities).toEqual(["validate"]);
      expect(session.hello.implementation.name).toBe(v.name);
      expect(await session.send({ cmd: "registry" })).toMatchObject({ ok: false });
    }
  });

  it("every library gets the hand-worked example's verdict, and its paths where its locations are lossless", async () => {
    for (const v of validators) {
      const session = await v.subject!.open("ag02");
      const checks = await runRow(example, session.send, "ag02");
      expect(statusOf(checks, { level: "verdict", ...ALL }), v.name).toBe("passed");
      // as LangChain calls it, cfworker short-circuits: fewer than the example's four errors;
      // zod puts a missing property's error at the property ($.city), not at the object ($)
      const short = v.name === "@cfworker/json-schema (LangChain)";
      const zod = v.name === "zod";
      const paths = checks.find((c) => c.what === "error paths in order")?.actual as string[];
      if (v.library!.level === "paths") expect(statusOf(checks, { level: "paths", ...ALL }), v.name).toBe(short || zod ? "failed" : "passed");
      if (short) expect(paths.length, v.name).toBeLessThan(4);
      if (zod) expect(paths, v.name).toContain("$.city");
    }
  });

  it("zod's fromJSONSchema, checked by hand: required ignored without properties, keywords ignored without type, 1e20 not an integer", async () => {
    const zod = await validators.find((v) => v.name === "zod")!.subject!.open("ag02");
    const verdict = async (schema: unknown, instance: string) => ((await zod.send({ cmd: "validate", schema: JSON.stringify(schema), instance })) as { errors: unknown[] }).errors.length === 0;
    expect(await verdict({ required: ["a"] }, "{}")).toBe(true);
    expect(await verdict({ minLength: 3 }, '"a"')).toBe(true);
    expect(await verdict({ type: "integer" }, "1e20")).toBe(false);
    expect(await verdict({ type: "object", required: ["a"], properties: { a: {} } }, "{}")).toBe(false);
  });

  it("ajv as the MCP SDK configures it (strict: false) accepts a keyword outside the subset that our strict ajv refuses", async () => {
    const strict = await validators.find((v) => v.name === "ajv")!.subject!.open("ag02");
    const mcp = await validators.find((v) => v.name === "ajv (MCP SDK)")!.subject!.open("ag02");
    const schema = JSON.stringify({ type: "object", properties: { a: { type: "string", fooBar: 1 } } });
    expect(await strict.send({ cmd: "compile", schema })).toMatchObject({ ok: false });
    expect(await mcp.send({ cmd: "compile", schema })).toMatchObject({ ok: true });
  });

  it("a keyword a library does not refuse is a failed row, not a crash", async () => {
    const cfworker = validators.find((v) => v.name === "@cfworker/json-schema")!;
    const checks = await runRow(format, (await cfworker.subject!.open("ag02")).send, "ag02");
    expect(checks[0]).toMatchObject({ level: "verdict", expected: "refused", actual: "accepted", pass: false });
  });

  it("a library that throws while validating errors the row", async () => {
    const cfworker = validators.find((v) => v.name === "@cfworker/json-schema")!;
    const session = await cfworker.subject!.open("ag02");
    await expect(session.send({ cmd: "validate", schema: '{"$ref":"#"}', instance: "1" })).rejects.toThrow(/threw while validating/);
  });

  it("malformed argument text is one error at $, as JSON.parse reads it", async () => {
    const ajv = validators.find((v) => v.name === "ajv")!;
    const reply = await (await ajv.subject!.open("ag02")).send({ cmd: "validate", schema: "{}", instance: '{"a":' });
    expect(reply).toMatchObject({ ok: true, errors: [{ path: "$" }] });
  });
});

describe("instance locations", () => {
  it("a JSON Pointer becomes segments, told apart by walking the instance", () => {
    const instance = { tags: ["a", "b"], "1": { "a/b": 0, "~": 1 } };
    expect(pointerSegments("", instance)).toEqual([]);
    expect(pointerSegments("/tags/1", instance)).toEqual(["tags", 1]);
    expect(pointerSegments("/1/a~1b", instance)).toEqual(["1", "a/b"]);
    expect(pointerSegments("#/1/~0", instance, true)).toEqual(["1", "~"]);
    expect(pointerSegments("#/%C3%A9%20%C3%BC", { "é ü": 1 }, true)).toEqual(["é ü"]);
    expect(pointerSegments("/missing/0", instance)).toEqual(["missing", "0"]);
  });

  it("array paths keep numbers as indexes", () => {
    expect(arraySegments(["tags", 1, "x"])).toEqual(["tags", 1, "x"]);
  });

  it("anyOf branches are recognised in keyword locations", () => {
    expect(insideAnyOfBranch("#/properties/x/anyOf/0/type")).toBe(true);
    expect(insideAnyOfBranch("#/properties/x/anyOf")).toBe(false);
    expect(insideAnyOfBranch("#/properties/anyOf/type")).toBe(false);
  });
});

// `npm test` builds first; a worker thread runs only the compiled script, so a missing one is a failure
describe("worker-thread validator subjects (built)", () => {
  it("the compiled worker is found from the sources", () => {
    expect(workerScript(), "no dist/subjects/validators/worker.js: run npm run build").toBe(`${PACKAGE_ROOT}dist/subjects/validators/worker.js`);
  });

  it("a backtracking pattern that hangs a library fails that row only, as a hang (no answer in time); the next row runs", async () => {
    const hang: ValidateRow = {
      ...example,
      id: "validate/hang",
      section: "TestValidateTable",
      schema: { pattern: "^(a+)+$" },
      instance: JSON.stringify("a".repeat(5000) + "!"),
      expect: { errors: [{ path: [], message: "x" }] },
    };
    const subject = workerValidatorSubject("ajv", "ajv", workerScript()!);
    const run = await runRows(subject, [hang, example], { profile: "ag02", level: "paths", ...ALL, jobs: 1, progress: false, requestTimeoutMs: 500 });
    expect(run.results.map((r) => r.status)).toEqual(["failed", "passed"]);
    expect(run.results[0]!.checks).toEqual([expect.objectContaining({ pass: false, actual: { hung: "no answer in 500 ms" } })]);
  });
});

const main = `${PACKAGE_ROOT}dist/cli/main.js`;
describe("tool-conformance validators (built)", () => {
  it("prints the comparison as JSON, with the JSON-Schema-Test-Suite rows", () => {
    expect(existsSync(main), "no dist/cli/main.js: run npm run build").toBe(true);
    const jsts = fileURLToPath(new URL("../fixtures/jsts", import.meta.url));
    const out = execFileSync(process.execPath, [main, "validators", "--format", "json", "--jsts", jsts], { encoding: "utf8", timeout: 60_000 });
    const report = JSON.parse(out) as { rows: number; jsts: string; libraries: { name: string; agreed: { verdict: number } }[]; table: unknown[]; disagreements: unknown[] };
    expect(report.jsts).toMatch(/7 groups kept \(19 tests\), 5 left out/);
    expect(report.libraries.map((l) => l.name)).toEqual(["reference", "ajv", "ajv (MCP SDK)", "@cfworker/json-schema", "@cfworker/json-schema (LangChain)", "@hyperjump/json-schema", "z-schema", "@exodus/schemasafe", "jsonschema", "zod"]);
    // the reference is the oracle: it agrees with every row
    expect(report.libraries[0]!.agreed.verdict).toBe(report.rows);
    expect(report.disagreements.length).toBeGreaterThan(0);
  }, 90_000);
});

describe("validators without its peers", () => {
  it("prints no empty heading: the disagreements say why there are none", () => {
    const comparison: Comparison = {
      rows: validatorRows(loadCorpus()).slice(0, 5),
      libraries: ["ajv", "@cfworker/json-schema", "@hyperjump/json-schema", "z-schema", "@exodus/schemasafe", "jsonschema"].map((name) => ({ name, label: name, level: "verdict" as const, note: "", missing: "not installed", results: [], ms: 0 })),
    };
    const text = textOf(comparison, 10);
    expect(text).toContain("Disagreements by rule: none: no library is installed to compare (see the install line above)");
    expect(text).not.toContain("Disagreements by rule (one example each):");
    expect(text.trimEnd().endsWith(":")).toBe(false);
    const markdown = markdownOf(comparison);
    expect(markdown).toMatch(/## Disagreements by rule\n\nNone: no library is installed to compare \(see the install line above\)\.\n$/);
  });
});

import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv, type ValidateFunction } from "ajv";
import { describe, expect, it } from "vitest";
import YAML from "yaml";
import { PACKAGE_ROOT } from "../../src/corpus/load.js";

// The grading templates (conformance/grading/) checked by the schemas their engines are described
// by: SchemaStore's GitHub workflow schema and the Kubernetes batch/v1 Job schema, standalone and
// strict (test/fixtures/schemas/README.md names their sources). A deliberately broken copy of each
// must fail, so the check is known to bite. The tool-conformance commands they run must use
// options the CLI has.

const TEMPLATES = join(PACKAGE_ROOT, "conformance", "grading");
const SCHEMAS = join(PACKAGE_ROOT, "test", "fixtures", "schemas");
const MAIN = join(PACKAGE_ROOT, "dist", "cli", "main.js");

type Json = Record<string, unknown>;

function load(file: string): Json {
  const doc = YAML.parseDocument(readFileSync(join(TEMPLATES, file), "utf8"), { prettyErrors: false });
  expect(doc.errors.map((e) => e.message)).toEqual([]);
  return doc.toJS() as Json;
}

function schema(file: string): Json {
  const value = JSON.parse(readFileSync(join(SCHEMAS, file), "utf8")) as Json;
  // the Kubernetes schemas name the meta-schema "http://json-schema.org/schema#", which ajv does not know; they are draft-04-compatible
  if (value.$schema === "http://json-schema.org/schema#") delete value.$schema;
  return value;
}

function validator(file: string): ValidateFunction {
  // strict: false: the schemas carry keywords of their own (x-kubernetes-*, markdownDescription);
  // validateFormats: false: their formats (int32, int64) are not ajv's, and nothing here is a date
  return new Ajv({ strict: false, allErrors: true, validateFormats: false }).compile(schema(file));
}

const errorsOf = (validate: ValidateFunction, value: unknown) => (validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`));
const clone = <T>(value: T): T => structuredClone(value);

describe("the GitHub Actions workflow", () => {
  const validate = validator("github-workflow.json");
  const workflow = load("github-actions.yml");

  it("is valid against SchemaStore's github-workflow schema", () => {
    expect(errorsOf(validate, workflow)).toEqual([]);
  });

  it("is a matrix over the submissions, each job uploading its report, then a merge of them all", () => {
    const jobs = workflow.jobs as Record<string, Json>;
    const score = jobs.score!;
    expect((score.strategy as Json).matrix).toEqual({ names: "${{ fromJSON(needs.list.outputs.batches) }}" });
    const steps = score.steps as Json[];
    expect(steps.some((s) => s.uses === "actions/upload-artifact@v4" && s.if === "always()")).toBe(true);
    expect(jobs.merge!.needs).toEqual(["list", "score"]);
    expect((jobs.merge!.steps as Json[]).some((s) => typeof s.run === "string" && s.run.includes("tool-conformance merge"))).toBe(true);
  });

  it("a broken copy fails: a job without runs-on, a step with a misspelt key", () => {
    const noRunner = clone(workflow);
    delete ((noRunner.jobs as Record<string, Json>).score as Json)["runs-on"];
    expect(errorsOf(validate, noRunner).length).toBeGreaterThan(0);
    const misspelt = clone(workflow);
    const steps = ((misspelt.jobs as Record<string, Json>).merge as Json).steps as Json[];
    steps[0] = { ...steps[0], wiht: steps[0]!.with };
    delete steps[0]!.with;
    expect(errorsOf(validate, misspelt).length).toBeGreaterThan(0);
  });
});

describe("the Kubernetes Jobs", () => {
  const validate = validator("kubernetes-job-batch-v1.json");
  const indexed = load("kubernetes-indexed-job.yaml");
  const merge = load("kubernetes-merge-job.yaml");

  it("are valid against the batch/v1 Job schema (standalone, strict)", () => {
    expect(errorsOf(validate, indexed)).toEqual([]);
    expect(errorsOf(validate, merge)).toEqual([]);
  });

  it("the scoring Job is Indexed: one completion per submission, picked by JOB_COMPLETION_INDEX", () => {
    const spec = indexed.spec as Json;
    expect(spec.completionMode).toBe("Indexed");
    expect(JSON.stringify(spec.template)).toContain("JOB_COMPLETION_INDEX");
    expect(JSON.stringify(merge.spec)).toContain("tool-conformance merge");
  });

  it("a broken copy fails: a misspelt field, a count that is not a number", () => {
    const misspelt = clone(indexed);
    (misspelt.spec as Json).completionmode = "Indexed";
    delete (misspelt.spec as Json).completionMode;
    expect(errorsOf(validate, misspelt).join("\n")).toMatch(/must NOT have additional properties/);
    const notNumber = clone(indexed);
    (notNumber.spec as Json).parallelism = "twenty";
    expect(errorsOf(validate, notNumber).join("\n")).toMatch(/\/spec\/parallelism must be integer/);
  });
});

describe("the commands the templates run", () => {
  // every --option given to tool-conformance in a template must be one the command has
  const help = (command: string) => spawnSync(process.execPath, [MAIN, command, "--help"], { encoding: "utf8" }).stdout;
  // the commands, not the comments about them
  const texts = ["github-actions.yml", "kubernetes-indexed-job.yaml", "kubernetes-merge-job.yaml"].map((f) => readFileSync(join(TEMPLATES, f), "utf8").split("\n").filter((line) => !/^\s*#/.test(line)).join("\n"));

  for (const command of ["grade", "merge"]) {
    it(`tool-conformance ${command}: every option exists`, () => {
      // called by name, or as "$TC_BIN" (the Kubernetes script's path to it)
      const calls = texts.flatMap((text) => [...text.replace(/\\\n\s*/g, " ").matchAll(new RegExp(`(?:tool-conformance|"\\$TC_BIN") ${command}\\b([^\\n|]*)`, "g"))].map((m) => m[1]!));
      expect(calls.length).toBeGreaterThan(0);
      const options = new Set(calls.flatMap((call) => [...call.matchAll(/(?:^|\s)(--[a-z][a-z-]*)/g)].map((m) => m[1]!)));
      expect(options.size).toBeGreaterThan(0);
      // as safe as the recipe: every grade sandboxed and signed, every merge checking the signatures
      for (const call of calls) expect(call, command).toMatch(command === "grade" ? /--sandbox bwrap\b[\s\S]*--key\b/ : /--key\b/);
      const known = help(command);
      for (const option of options) expect(known, option).toMatch(new RegExp(`(^|\\s)${option}\\b`, "m"));
    });
  }
});

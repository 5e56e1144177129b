import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import fc from "fast-check";
import { fuzz, type FuzzOptions } from "../../src/fuzz/fuzz.js";
import { parseRule, ruleMatches } from "../../src/fuzz/findings.js";
import { freshRows } from "../../src/fuzz/fresh.js";
import { CORE_DOMAIN } from "../../src/fuzz/domain.js";
import { keywordsOf } from "../../src/fuzz/model.js";
import { validateProbe } from "../../src/fuzz/probes.js";
import { PACKAGE_ROOT, loadCorpus } from "../../src/corpus/load.js";
import { readReport } from "../../src/report/read-report.js";
import type { Row } from "../../src/corpus/rows.js";
import { inProcessSubject } from "../../src/subjects/in-process.js";
import { stdioSubject } from "../../src/subjects/stdio.js";
import type { Subject } from "../../src/subjects/subject.js";
import { buildMutants } from "../../src/mutants/build.js";
import { loadCatalog, type Mutant } from "../../src/mutants/catalog.js";
import { loadMutant } from "../../src/mutants/load.js";

// Differential fuzzing (docs/fuzzing.md): the reference never disagrees with itself through the
// protocol; implementations written apart from it are never reported in the default domain; and
// bugs planted in test/fixtures/fuzz-bugs/ (none of them a pitfall of the seed's table) are each
// found and shrunk to a case of a few keywords. A run goes on past a finding and reports each
// distinct one (by its key) once; --ignore and --known set keys aside.

const MAIN = join(PACKAGE_ROOT, "dist", "cli", "main.js");
const INDEPENDENT = `node ${JSON.stringify(join(PACKAGE_ROOT, "test/fixtures/independent-js/adapter.mjs"))}`;
const BUGS_DIR = join(PACKAGE_ROOT, "test", "fixtures", "fuzz-bugs");
// inside the package, so the built copies resolve the reference's dependencies
const BUILT = join(PACKAGE_ROOT, "dist", "test-fuzz-bugs");

const options = (overrides: Partial<FuzzOptions> = {}): FuzzOptions => ({
  profile: "ag02",
  level: "messages",
  tiers: ["core"],
  seed: 20261130,
  runs: 10_000,
  timeMs: 120_000,
  requestTimeoutMs: 10_000,
  ...overrides,
});

function cli(...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [MAIN, ...args], { encoding: "utf8", env: { ...process.env, NO_COLOR: "1" }, timeout: 120_000 });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe("fuzz: no false alarm", () => {
  it("finds no disagreement between the reference and itself in 10,000 cases, in-process", async () => {
    const outcome = await fuzz(inProcessSubject("reference"), options());
    expect(outcome.finding).toBeUndefined();
    expect(outcome.cases).toBe(10_000);
  });

  it("finds no disagreement in 10,000 cases over stdio (the package's own adapter)", async () => {
    const outcome = await fuzz(stdioSubject(`node ${JSON.stringify(MAIN)} adapter`), options({ seed: 7 }));
    expect(outcome.finding).toBeUndefined();
    expect(outcome.cases).toBe(10_000);
  });

  it("never reports the independent implementation (written from the seed alone) in the default domain", async () => {
    const outcome = await fuzz(stdioSubject(INDEPENDENT), options({ seed: 11, runs: 5_000 }));
    expect(outcome.finding?.row).toBeUndefined();
    expect(outcome.cases).toBe(5_000);
  });
});

const bugs = loadCatalog(BUGS_DIR);
const subjects = new Map<string, Subject>();
const bug = (id: string) => bugs.find((b) => b.id === id)!;
// one subject with two planted bugs: anyOf never rejects (s54), an unknown tool's reply misses a name (s58)
const TWO: Mutant = { ...bug("s54"), id: "s54-s58", title: "two planted bugs", edits: [...bug("s54").edits, ...bug("s58").edits] };
const TWO_KEYS = ["registry/call-lists", "validate/accepts/anyOf,type"];

beforeAll(async () => {
  const manifest = buildMutants({ outDir: BUILT, mutants: [...bugs, TWO] });
  for (const b of [...bugs, TWO]) subjects.set(b.id, await loadMutant(b, BUILT, manifest));
});

describe("fuzz: planted bugs the seed's table does not name", () => {
  it("has at least nine of them", () => {
    expect(bugs.length).toBeGreaterThanOrEqual(9);
  });

  it.each(bugs.map((b) => [b.id, b] as [string, Mutant]))("%s is found within 30 s and shrunk to a few keywords", async (_id, b) => {
    const outcome = await fuzz(subjects.get(b.id)!, options({ seed: 1, runs: 1_000_000, timeMs: 30_000 }));
    const finding = outcome.finding;
    expect(finding, `${b.id} (${b.title}) not found in ${outcome.cases} cases`).toBeDefined();
    expect(finding!.status).toBe("failed");
    expect(sizeOf(finding!.row)).toBeLessThanOrEqual(4);
  });

  it("finds the same case for the same seed, and replays it from its path", async () => {
    const subject = subjects.get("s57")!;
    const first = await fuzz(subject, options({ seed: 3, runs: 100_000, timeMs: 30_000 }));
    const again = await fuzz(subject, options({ seed: 3, runs: 100_000, timeMs: 30_000 }));
    expect(first.finding).toBeDefined();
    expect(again.finding!.row).toEqual(first.finding!.row);
    const replay = await fuzz(subject, options({ seed: 3, path: first.finding!.path, runs: 100_000, timeMs: 30_000 }));
    expect(replay.finding!.row).toEqual(first.finding!.row);
    expect(replay.cases).toBe(1);
  });
});

describe("fuzz: past the first finding", () => {
  const two = () => subjects.get(TWO.id)!;

  it("reports both bugs of a subject with two, each once under its own key, and searches on to the end of --runs", async () => {
    const outcome = await fuzz(two(), options({ seed: 1, runs: 1_500, maxFindings: 10 }));
    expect(outcome.findings.map((f) => f.key).sort()).toEqual(TWO_KEYS);
    expect(outcome.cases).toBe(1_500);
    expect(outcome.stopped).toBe("runs");
    // each was met again after it was reported, and counted, not reported twice
    for (const f of outcome.findings) expect(f.seen, f.key).toBeGreaterThan(1);
    expect(outcome.finding).toEqual(outcome.findings[0]);
    // the anyOf finding is shrunk to its bug's keywords, not the ones the generator drew
    expect(outcome.findings.find((f) => f.key.startsWith("validate/"))!.row).toMatchObject({ schema: { anyOf: [{ type: expect.any(String) }] } });
  });

  it("replays each finding alone from its path, the second one too (found after the run went on past the first)", async () => {
    const outcome = await fuzz(two(), options({ seed: 2, runs: 500, maxFindings: 10 }));
    expect(outcome.findings).toHaveLength(2);
    for (const f of outcome.findings) {
      const replay = await fuzz(two(), options({ seed: 2, path: f.path, runs: 500 }));
      expect(replay.stopped).toBe("replay");
      expect(replay.findings.map((r) => [r.key, r.row])).toEqual([[f.key, f.row]]);
      expect(replay.cases).toBe(1);
    }
  });

  it("--max-findings 1 stops at the first finding: the same case, path and row as a longer run's first", async () => {
    const all = await fuzz(two(), options({ seed: 1, runs: 1_500, maxFindings: 10 }));
    const one = await fuzz(two(), options({ seed: 1, runs: 1_500, maxFindings: 1 }));
    expect(one.findings).toHaveLength(1);
    expect(one.stopped).toBe("findings");
    expect(one.cases).toBe(all.findings[0]!.after);
    expect(one.findings[0]).toMatchObject({ key: all.findings[0]!.key, path: all.findings[0]!.path, row: all.findings[0]!.row, seen: 1 });
  });

  it("an --ignore rule sets one bug aside, counted, and the other is still found", async () => {
    for (const [rule, left] of [["registry", "validate/accepts/anyOf,type"], ["anyOf", "registry/call-lists"], ["registry/call-lists", "validate/accepts/anyOf,type"]] as const) {
      const outcome = await fuzz(two(), options({ seed: 1, runs: 1_500, maxFindings: 10, ignore: [parseRule(rule)] }));
      expect(outcome.findings.map((f) => f.key), rule).toEqual([left]);
      const aside = outcome.setAside.map((a) => a.key);
      expect(aside, rule).toEqual(TWO_KEYS.filter((k) => k !== left));
      expect(outcome.setAside[0]!.cases).toBeGreaterThan(0);
    }
    // both set aside: nothing new is found
    const none = await fuzz(two(), options({ seed: 1, runs: 500, maxFindings: 10, ignore: [parseRule("*/call-lists"), parseRule("validate/accepts/type,anyOf")] }));
    expect(none.findings).toEqual([]);
    expect(none.setAside.map((a) => a.key).sort()).toEqual(TWO_KEYS);
  });

  it("known rows set their keys aside while the subject still fails them, and nothing once it passes them", async () => {
    const first = await fuzz(two(), options({ seed: 1, runs: 500, maxFindings: 10 }));
    const known = first.findings.map((f) => f.row);
    expect(known).toHaveLength(2);
    const again = await fuzz(two(), options({ seed: 3, runs: 500, maxFindings: 10, known }));
    expect(again.knownKeys.sort()).toEqual(TWO_KEYS);
    expect(again.findings).toEqual([]);
    // a subject with only one of the bugs still fails one row: only that key is set aside
    const one = await fuzz(subjects.get("s58")!, options({ seed: 3, runs: 200, maxFindings: 10, known }));
    expect(one.knownKeys).toEqual(["registry/call-lists"]);
    const fixed = await fuzz(inProcessSubject("reference"), options({ seed: 3, runs: 200, maxFindings: 10, known }));
    expect(fixed.knownKeys).toEqual([]);
  });
});

describe("finding keys and --ignore rules", () => {
  const matches = (rule: string, key: string) => ruleMatches(parseRule(rule), key);

  it("a rule matches the whole key, its leading parts, a keyword it lists, or parts given as *", () => {
    for (const rule of ["compile/accepts/format", "compile/accepts", "compile", "format", "*/accepts", "*/*/format", "*"]) expect(matches(rule, "compile/accepts/format"), rule).toBe(true);
    for (const rule of ["validate", "compile/refuses", "compile/accepts/format,type", "type", "registry/*"]) expect(matches(rule, "compile/accepts/format"), rule).toBe(false);
    // a keyword list matches as a whole, in any order; a key without keywords matches a rule that names none
    expect(matches("validate/accepts/type,anyOf", "validate/accepts/anyOf,type")).toBe(true);
    expect(matches("validate/accepts/anyOf", "validate/accepts/anyOf,type")).toBe(false);
    expect(matches("anyOf", "validate/accepts/anyOf,type")).toBe(true);
    expect(matches("registry/definitions", "registry/definitions")).toBe(true);
    expect(matches("registry/definitions/type", "registry/definitions")).toBe(false);
  });

  it("refuses a rule that names no kind or symptom there is, in one line", () => {
    for (const rule of ["", " ", "comple/accepts", "validate/acc", "registry/accepts", "a/b/c/d", "validate//x", "a b"]) {
      expect(() => parseRule(rule), JSON.stringify(rule)).toThrow(/^[^\n]+$/);
    }
  });
});

describe("the domain: JSON equality inside arrays", () => {
  it("generates the cases real libraries got wrong: enum [[1]] against [true], const [0] against [false]", () => {
    const probes = fc.sample(validateProbe(CORE_DOMAIN), { numRuns: 100_000, seed: 5 });
    const count = (schema: unknown, instance: string) => probes.filter((p) => JSON.stringify(p.schema) === JSON.stringify(schema) && p.instance === instance).length;
    expect(count({ enum: [[1]] }, "[true]")).toBeGreaterThan(0);
    expect(count({ const: [0] }, "[false]")).toBeGreaterThan(0);
  });

  it("a planted loose equality inside arrays (s59) shrinks to such a case, under enum and under const", async () => {
    const outcome = await fuzz(subjects.get("s59")!, options({ seed: 1, runs: 5_000, maxFindings: 2 }));
    expect(outcome.findings.map((f) => f.key).sort()).toEqual(["validate/accepts/const", "validate/accepts/enum"]);
    for (const f of outcome.findings) {
      const row = f.row as Extract<Row, { kind: "validate" }>;
      const listed = (row.schema as { const?: unknown; enum?: unknown[] }).const ?? (row.schema as { enum: unknown[] }).enum[0];
      expect([[0], [1], [true], [false]], JSON.stringify(row)).toContainEqual(listed);
      expect(["[true]", "[false]", "[1]", "[0]"], JSON.stringify(row)).toContain(row.instance);
    }
  });
});

/** How big a found case is: the keywords of its schemas, or of its tools' parameters and its steps. */
function sizeOf(row: Row): number {
  if (row.kind !== "registry") return keywordsOf(row.schema).length;
  const params = row.steps.flatMap((s) => (s.op === "register" && s.tool.parametersText ? keywordsOf(JSON.parse(s.tool.parametersText)) : []));
  return Math.max(new Set(params).size, row.steps.length - 1);
}

describe("fuzz: the command", () => {
  it("exits 0 with nothing found, and says how many cases it ran and which limit stopped it", () => {
    const { code, stdout } = cli("fuzz", "reference", "--runs", "500", "--seed", "1");
    expect(code).toBe(0);
    expect(stdout).toMatch(/no disagreement with the reference in 500 cases, .* \(stopped at --runs, before --time\)$/m);
  });

  it("exits 1 on a pitfall mutant, prints the replay command and a corpus row that --save appends and the corpus loader accepts", () => {
    const dir = mkdtempSync(join(tmpdir(), "tc-fuzz-"));
    const file = join(dir, "found.json");
    writeFileSync(file, "[]\n");
    const { code, stdout } = cli("fuzz", "mutant:s05", "--seed", "2", "--max-findings", "1", "--save", file);
    expect(code).toBe(1);
    expect(stdout).toMatch(/replay: tool-conformance fuzz mutant:s05 --seed 2 --path \d+(:\d+)*/);
    const saved = JSON.parse(readFileSync(file, "utf8")) as Row[];
    expect(saved).toHaveLength(1);
    expect(stdout).toContain(JSON.stringify(saved[0]));
    // the saved row is in the corpus format: the loader (row.schema.json) reads it
    const rows = loadCorpus(dir);
    expect(rows.map((r) => r.id)).toEqual([saved[0]!.id]);
    // and, as a grader's own row, the reference passes it and the mutant fails it
    const scoreOne = (subject: string) => cli("score", subject, "--corpus", dir, "--filter", saved[0]!.id, "--out", join(dir, "out"), "--reporter", "json", "--no-diagnosis").code;
    expect(scoreOne("reference")).toBe(0);
    expect(scoreOne("mutant:s05")).toBe(1);
  });

  it("refuses bad arguments with one line and exit 2", { timeout: 90_000 }, () => {
    for (const args of [
      ["--time", "2x"],
      ["--time", "25h"],
      ["--seed", "x"],
      ["--path", "1:2"],
      ["--runs", "0"],
      ["--runs", "100000001"],
      ["--max-findings", "0"],
      ["--max-findings", "1001"],
      ["--max-findings", "x"],
      ["--timeout", "0"],
      ["--ignore", "comple/accepts"],
      ["--ignore", "validate/acc"],
      ["--known", "/nonexistent/found.json"],
    ]) {
      const { code, stderr } = cli("fuzz", "reference", ...args);
      expect(code, args.join(" ")).toBe(2);
      expect(stderr.trim().split("\n")).toHaveLength(1);
    }
    expect(cli("fuzz").code).toBe(2);
  });

  it("goes on past a finding: mutant:s08 (unknown keywords ignored) is reported once, as a compile row, and the search runs to the end", { timeout: 90_000 }, () => {
    const { code, stdout } = cli("fuzz", "mutant:s08", "--seed", "1", "--runs", "1500", "--json");
    expect(code).toBe(1);
    const outcome = JSON.parse(stdout) as { cases: number; stopped: string; findings: { key: string; seen: number; row: Row; replay: string }[]; finding: unknown };
    expect(outcome.findings.map((f) => f.key)).toEqual(["compile/accepts/format"]);
    expect(outcome.findings[0]!.seen).toBeGreaterThan(1);
    expect(outcome.findings[0]!.row).toMatchObject({ kind: "compile", section: "TestCompileRejectsUnsupported", schema: { format: expect.any(String) }, expect: { ok: false } });
    expect(outcome.findings[0]!.row.id).toMatch(/^compile\/found-/);
    expect(outcome.findings[0]!.replay).toMatch(/^tool-conformance fuzz mutant:s08 --seed 1 --path \d+(:\d+)*$/);
    expect(outcome.finding).toEqual(outcome.findings[0]);
    expect([outcome.cases, outcome.stopped]).toEqual([1500, "runs"]);
    // set aside, it no longer counts: exit 0, and how often it was met is said
    const ignored = cli("fuzz", "mutant:s08", "--seed", "1", "--runs", "1500", "--ignore", "format");
    expect(ignored.code).toBe(0);
    expect(ignored.stdout).toMatch(/no new disagreement with the reference in 1500 cases/);
    expect(ignored.stdout).toMatch(/set aside \(--ignore, --known\): compile\/accepts\/format in \d+ cases/);
  });

  it("prints every finding of a subject with two bugs; --max-findings 1 prints one; --save then --known sets both aside", { timeout: 90_000 }, () => {
    const dir = mkdtempSync(join(tmpdir(), "tc-fuzz-"));
    const file = join(dir, "found.json");
    const module = join(BUILT, TWO.id, "index.js");
    const run = (...args: string[]) => cli("fuzz", "--module", module, "--seed", "1", "--runs", "200", ...args);
    const both = run("--save", file);
    expect(both.code).toBe(1);
    expect(both.stdout).toMatch(/^✗ 2 distinct disagreements with the reference in 200 cases/);
    for (const key of TWO_KEYS) expect(both.stdout).toContain(`. ${key}: after `);
    expect(both.stdout.match(/replay: tool-conformance fuzz --module .* --seed 1 --path \d+(:\d+)*/g)).toHaveLength(2);
    expect(loadCorpus(dir).map((r) => r.id).sort()).toEqual((JSON.parse(readFileSync(file, "utf8")) as Row[]).map((r) => r.id).sort());
    expect(loadCorpus(dir)).toHaveLength(2);

    const one = run("--max-findings", "1", "--json");
    expect(one.code).toBe(1);
    const first = JSON.parse(one.stdout) as { stopped: string; findings: { key: string }[] };
    expect([first.stopped, first.findings.length]).toEqual(["findings", 1]);

    const known = run("--known", file, "--save", file);
    expect(known.code).toBe(0);
    expect(known.stdout).toMatch(/no new disagreement/);
    expect(known.stderr).toMatch(/--known .*found\.json: 2 rows; the subject still fails 2 keys/);
    // nothing new was appended, and a row saved again is not doubled
    expect(JSON.parse(readFileSync(file, "utf8"))).toHaveLength(2);
    // an earlier run's --json output and a file of rules work as --known too
    writeFileSync(join(dir, "run.json"), run("--json").stdout);
    expect(run("--known", join(dir, "run.json")).code).toBe(0);
    writeFileSync(join(dir, "rules.txt"), "# known bugs\nregistry/call-lists\nanyOf   # s54\n");
    expect(run("--known", join(dir, "rules.txt")).code).toBe(0);
  });

  it("exits 3 when the subject cannot start", () => {
    expect(cli("fuzz", "--subject", "exit 7", "--runs", "5").code).toBe(3);
  });
});

describe("the lesson's generated cases", () => {
  const EIGHT = ["type", "properties", "required", "enum", "minLength", "maxLength", "pattern", "items"];

  it("use the lesson's eight keywords only, as the lesson writes them: enum alone, properties and required under type object, items under type array", async () => {
    const rows = await freshRows(400, 11, "lesson", ["core"]);
    const visit = (schema: Record<string, unknown>): string[] => {
      const wrong: string[] = [];
      const keys = Object.keys(schema);
      if (keys.some((k) => !EIGHT.includes(k))) wrong.push(`outside the eight: ${keys.join(",")}`);
      if ("enum" in schema && keys.length > 1) wrong.push("enum with another keyword");
      if (Array.isArray(schema.type)) wrong.push("a type list");
      if (("properties" in schema || "required" in schema) && schema.type !== "object") wrong.push("properties without type object");
      if ("items" in schema && schema.type !== "array") wrong.push("items without type array");
      for (const sub of Object.values((schema.properties ?? {}) as Record<string, Record<string, unknown>>)) wrong.push(...visit(sub));
      if (schema.items) wrong.push(...visit(schema.items as Record<string, unknown>));
      return wrong;
    };
    for (const row of rows) {
      expect(row.kind, row.id).toBe("validate");
      expect(row.tier, row.id).toBe("core");
      expect(row.profiles, row.id).toEqual(["lesson"]);
      expect(row.why, row.id).toMatch(/^A case generated for this run, .*JSON Pointer path.*expected_type/);
      if (row.kind === "validate") expect(visit(row.schema as Record<string, unknown>), row.id).toEqual([]);
    }
    // and they cover the eight, with errors and without
    const used = new Set(rows.flatMap((row) => (row.kind === "validate" ? keywordsOf(row.schema) : [])));
    expect([...used].sort()).toEqual([...EIGHT].sort());
    const failing = rows.filter((row) => row.kind === "validate" && row.expect.errors.length > 0);
    expect(failing.length).toBeGreaterThan(100);
    expect(failing.length).toBeLessThan(350);
    // a missing required property: the verdict alone (the lesson does not place its error); others keep their paths and expected_type
    const verdictOnly = rows.filter((row) => row.kind === "validate" && row.verdictOnly);
    for (const row of verdictOnly) if (row.kind === "validate") expect(row.expect.errors.some((e) => /^missing required property/.test(e.message)), row.id).toBe(true);
    expect(rows.some((row) => row.kind === "validate" && row.expect.errors.some((e) => e.expectedType !== undefined))).toBe(true);
  });
});

describe("score --fresh", () => {
  it("generates the same rows for the same seed, and others for another", async () => {
    const a = await freshRows(50, 9, "ag02", ["core"]);
    const b = await freshRows(50, 9, "ag02", ["core"]);
    const c = await freshRows(50, 10, "ag02", ["core"]);
    expect(b).toEqual(a);
    expect(c).not.toEqual(a);
    expect(a.every((row) => row.part === "fresh" && row.tier === "core")).toBe(true);
  });

  it("scores the generated cases as their own part, beside the corpus", () => {
    const out = mkdtempSync(join(tmpdir(), "tc-fresh-"));
    const { code } = cli("score", "reference", "--fresh", "200", "--seed", "4", "--reporter", "json", "--out", out);
    expect(code).toBe(0);
    const report = readReport(join(out, "report.jsonl"));
    const fresh = report.rows.filter((row) => row.part === "fresh");
    expect(fresh).toHaveLength(200);
    expect(fresh.every((row) => row.status === "passed")).toBe(true);
  });

  it("fails a planted bug on rows of the fresh part", () => {
    const out = mkdtempSync(join(tmpdir(), "tc-fresh-"));
    const module = join(BUILT, "s57", "index.js");
    const { code } = cli("score", "--module", module, "--fresh", "300", "--seed", "4", "--reporter", "json", "--out", out, "--no-diagnosis");
    expect(code).toBe(1);
    const report = readReport(join(out, "report.jsonl"));
    const failed = report.rows.filter((row) => row.part === "fresh" && row.status === "failed");
    expect(failed.length).toBeGreaterThan(0);
    // each failing generated row reruns alone: same count, same seed, its id
    // a student-facing report carries no seed and no placeholder: a generated row has no rerun line, and a real why
    expect(failed[0]!.repro?.rerun).toBeUndefined();
    expect(failed[0]!.id).not.toContain("/4/");
    expect(failed[0]!.repro?.why).toMatch(/^A case generated for this run, answered by the reference implementation\. .*\(spec 2\.[23]\)\.$/);
  });

  it("judges generated cases by the diagnosis like any row: a pitfall's failing fresh rows are its own, none unexplained", () => {
    const out = mkdtempSync(join(tmpdir(), "tc-fresh-"));
    // s05 (minimum treated as exclusive) and s12 (definitions in map order) fail some of seed 7's cases
    for (const mutant of ["s05", "s12"]) {
      cli("score", `mutant:${mutant}`, "--fresh", "200", "--seed", "7", "--reporter", "json", "--out", out, "--min-score", "0");
      const report = readReport(join(out, "report.jsonl"));
      const failing = report.rows.filter((row) => row.part === "fresh" && row.status !== "passed").map((row) => row.id);
      expect(failing.length, mutant).toBeGreaterThan(0);
      expect(report.diagnosis.matches.map((m) => m.id), mutant).toEqual([mutant]);
      expect(report.diagnosis.matches[0]!.rows, mutant).toEqual(expect.arrayContaining(failing));
      expect(report.diagnosis.unexplained, mutant).toEqual([]);
    }
  });
});

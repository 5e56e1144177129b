import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadCorpus, PACKAGE_ROOT } from "../../src/corpus/load.js";
import { diagnose, pitfallLabel } from "../../src/judge/diagnosis.js";
import { runRows, selectRows } from "../../src/run/runner.js";
import { SECTIONS } from "../../src/corpus/rows.js";
import { buildMutants } from "../../src/mutants/build.js";
import { applyEdits, checkMutant, loadCatalog, MutantError, mutantsFor, readSource, WIDER, widerOf, type Mutant } from "../../src/mutants/catalog.js";
import { loadMutant } from "../../src/mutants/load.js";
import { fingerprints, killMatrix, type KillMatrix } from "../../src/mutants/matrix.js";

// The pitfall mutants against the corpus, built from the current src/ (not dist/):
// the reference passes every row, and each mutant is killed by the section(s) the
// seed's pitfall table names for it.

// Built mutants import "re2js", so they must live inside the package to resolve it.
const dir = join(PACKAGE_ROOT, "node_modules", ".cache", "tool-conformance", `mutants-${process.pid}`);
const everyMutant = loadCatalog();
/** seed 000's pitfall mutants, on the ag02 profile's rows (the lesson's own are tested below). */
const catalog = mutantsFor(everyMutant, "ag02");
const lessonMutants = mutantsFor(everyMutant, "lesson");
const rows = loadCorpus();
let matrix: KillMatrix;

beforeAll(async () => {
  buildMutants({ outDir: dir, mutants: everyMutant });
  matrix = await killMatrix(rows, { dir, catalog });
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The seed's pitfall table (section 5): which pitfall each of s01–s17 makes. */
const PITFALL_OF: Record<string, number> = {
  s01: 1, s02: 1, s09: 1, s03: 2, s04: 3, s05: 4, s06: 5, s07: 5, s08: 6,
  s10: 7, s15: 7, s16: 7, s11: 8, s12: 9, s13: 9, s14: 9, s17: 10,
};

describe("the catalog", () => {
  it("docs/scoring.md lists every mutant's symptom as its file says it", () => {
    const doc = readFileSync(join(PACKAGE_ROOT, "docs", "scoring.md"), "utf8");
    const table = doc.slice(doc.indexOf("### Every mutant's symptom"));
    for (const m of everyMutant) expect(table).toContain(`| ${m.id} | ${pitfallLabel(m.pitfall)} | ${m.title} | ${m.symptom.replaceAll("|", "\\|")} |`);
    expect(table.split("\n").filter((line) => /^\| s\d\d /.test(line))).toHaveLength(everyMutant.length);
  });


  it("holds s01–s17 with the seed's pitfall numbers, and later mutants after them", () => {
    const ids = catalog.map((m) => m.id);
    expect(ids.slice(0, 17)).toEqual(Object.keys(PITFALL_OF).sort());
    for (const m of catalog) if (PITFALL_OF[m.id] !== undefined) expect(m.pitfall, m.id).toBe(PITFALL_OF[m.id]);
  });

  it("every mutant names at least one section, with its symptom and why", () => {
    for (const m of catalog) {
      expect(m.sections.length, m.id).toBeGreaterThan(0);
      expect(m.symptom.length, m.id).toBeGreaterThan(0);
      expect(m.why.length, m.id).toBeGreaterThan(0);
    }
  });
});

describe("the kill matrix", () => {
  it("the reference passes every row", () => {
    expect(matrix.reference.failing).toEqual([]);
  });

  for (const m of catalog) {
    it(`${m.id} (${m.title}) is killed by ${m.sections.join(" and ")}`, () => {
      const verdict = matrix.mutants.find((v) => v.id === m.id)!;
      expect(verdict.missed).toEqual([]);
      expect(verdict.killed).toBe(true);
    });
  }

  it("every row that names a mutant in its pitfalls is failed by that mutant (the tags are honest)", () => {
    for (const verdict of matrix.mutants) expect(verdict.claimedButPassed, verdict.id).toEqual([]);
  });

  it("counts rows per section and passes overall", () => {
    for (const section of SECTIONS) expect(matrix.rows[section], section).toBeGreaterThan(0);
    expect(matrix.ok).toBe(true);
  });

  it("gives every mutant a fingerprint of its own", async () => {
    const prints = await fingerprints(rows, { dir, catalog });
    expect(prints.map((p) => p.id)).toEqual(catalog.map((m) => m.id));
    const seen = new Map<string, string>();
    for (const { id, answers } of prints) {
      expect(Object.keys(answers).length, id).toBeGreaterThan(0);
      const key = JSON.stringify(Object.entries(answers).sort(([a], [b]) => (a < b ? -1 : 1)));
      expect(seen.get(key), `${id} has the same fingerprint as ${seen.get(key)}`).toBeUndefined();
      seen.set(key, id);
    }
  });

  it("--only runs just the named mutants; an unknown id is refused", async () => {
    const some = await killMatrix(rows, { dir, catalog, only: ["s03"] });
    expect(some.mutants.map((v) => v.id)).toEqual(["s03"]);
    await expect(killMatrix(rows, { dir, catalog, only: ["s99"] })).rejects.toThrow(/unknown mutant s99/);
  });
});

describe("the diagnosis of each mutant, scored as a grader scores (core, messages)", () => {
  const options = { level: "messages" as const, tiers: ["core" as const] };
  const core = selectRows(rows, { profile: "ag02", tiers: options.tiers, level: options.level }).rows;

  it("names the mutant itself first", async () => {
    const prints = await fingerprints(core, { dir, catalog, ...options });
    const named: Record<string, string[]> = {};
    for (const m of catalog) {
      const run = await runRows(await loadMutant(m, dir), core, { profile: "ag02", ...options, jobs: 1, progress: false });
      const d = diagnose(run.results, options, prints);
      named[m.id] = d.matches.length ? [d.matches[0]!.id, ...d.matches[0]!.alike] : [];
    }
    for (const m of catalog) expect(named[m.id], m.id).toContain(m.id);
  });
});

describe("a mutant's wider form: the same mistake wherever else the reference could make it", () => {
  const options = { level: "messages" as const, tiers: ["core" as const] };
  const core = selectRows(rows, { profile: "ag02", tiers: options.tiers, level: options.level }).rows;

  it("s09's reaches const and s05's maximum; each is built beside its mutant, never in the kill matrix", () => {
    expect(catalog.filter((m) => m.wider).map((m) => m.id)).toEqual(["s05", "s09"]);
    expect(readdirSync(dir).filter((name) => name.endsWith(WIDER)).sort()).toEqual(["s05+", "s09+"]);
    expect(matrix.mutants.map((v) => v.id)).toEqual(catalog.map((m) => m.id));
  });

  it("gives a fingerprint the rows beyond its own that its wider form fails, and none to a mutant without one", async () => {
    const prints = new Map((await fingerprints(rows, { dir, catalog })).map((p) => [p.id, p]));
    const s09 = prints.get("s09")!;
    expect(Object.keys(s09.answers).filter((id) => id.startsWith("validate/const/"))).toEqual([]);
    expect(Object.keys(s09.wider!)).toContain("validate/const/number-1-vs-1.0");
    expect(Object.keys(s09.wider!).some((id) => id in s09.answers)).toBe(false);
    expect(Object.keys(prints.get("s05")!.wider!).length).toBeGreaterThan(0);
    expect(prints.get("s03")!.wider).toBeUndefined();
  });

  it("scored as a subject, is named as its mutant's pitfall, which takes every row it fails", async () => {
    const prints = await fingerprints(core, { dir, catalog, ...options });
    for (const id of ["s05", "s09"]) {
      const run = await runRows(await loadMutant(widerOf(catalog.find((m) => m.id === id)!)!, dir), core, { profile: "ag02", ...options, jobs: 1, progress: false });
      const d = diagnose(run.results, options, prints);
      expect(d.matches.map((m) => m.id), id).toEqual([id]);
      expect(d.matches[0]!.explains, id).toBe(d.failing);
      expect(d.unexplained, id).toEqual([]);
    }
  });

  it("a malformed wider form is one clear line naming the file", () => {
    const check = (wider: unknown) => () => checkMutant({ ...JSON.parse(readFileSync(join(PACKAGE_ROOT, catalog[0]!.source), "utf8")), wider }, "mutants/s01-x.json");
    expect(check([])).toThrow(/^mutants\/s01-x\.json: "wider" must be \{"why", "edits"\}$/);
    expect(check({ why: " ", edits: [] })).toThrow(/"wider\.why" must be a non-empty string/);
    expect(check({ why: "w", edits: [] })).toThrow(/"wider\.edits" must be a non-empty array/);
    expect(check({ why: "w", edits: [{ file: "README.md", find: "a", replace: "b" }] })).toThrow(/wider edit 1: README\.md is not a reference source/);
  });
});

describe("the lesson profile's own mutants, on its rows", () => {
  const options = { level: "messages" as const, tiers: ["core" as const] };
  const core = selectRows(rows, { profile: "lesson", tiers: options.tiers, level: options.level }).rows;

  it("are the lesson's named mistakes (duplicates replacing silently, coercion, pointer paths), and seed 000's length miscounts, which 2020-12's minLength and maxLength make core in the lesson too", () => {
    expect(lessonMutants.map((m) => m.id)).toEqual(["s03", "s18", "s20", "s21", "s22"]);
    for (const m of lessonMutants.filter((m) => !["s03", "s18"].includes(m.id))) expect(String(m.pitfall), m.id).toMatch(/^lesson: /);
    // the other seed-000 mutants are not the lesson's
    expect(catalog.filter((m) => m.profiles.includes("lesson")).map((m) => m.id)).toEqual(["s03", "s18"]);
  });

  it("each is killed by a core row of the section it names, and diagnosed as itself", async () => {
    const prints = await fingerprints(core, { dir, catalog: lessonMutants, profile: "lesson", ...options });
    for (const m of lessonMutants) {
      const run = await runRows(await loadMutant(m, dir), core, { profile: "lesson", ...options, jobs: 1, progress: false });
      const failing = run.results.filter((r) => r.status === "failed");
      expect(failing.some((r) => m.sections.includes(r.section)), m.id).toBe(true);
      const d = diagnose(run.results, options, prints);
      expect(d.matches[0]?.id, m.id).toBe(m.id);
    }
  });
});

describe("mutants cannot rot silently", () => {
  const stale = (find: string): Mutant => ({
    ...catalog[0]!,
    id: "s99",
    source: "mutants/s99-stale.json",
    edits: [{ file: "src/json/value.ts", find, replace: "x" }],
  });

  it("a find text that no longer occurs is one clear line naming the mutant and the file", () => {
    expect(() => applyEdits(stale("this text is not in the reference"), readSource)).toThrow(MutantError);
    expect(() => applyEdits(stale("this text is not in the reference"), readSource)).toThrow(
      /^mutant s99 \(mutants\/s99-stale\.json\): edit 1: src\/json\/value\.ts: find text not found: "this text is not in the reference"$/,
    );
  });

  it("a find text that occurs twice is refused too", () => {
    expect(() => applyEdits(stale("export function"), readSource)).toThrow(/s99 .*src\/json\/value\.ts: find text occurs \d+ times, must be exactly once/);
  });

  it("a build with a broken mutant fails and leaves the previous build in place", () => {
    const before = readdirSync(dir).sort();
    expect(() => buildMutants({ outDir: dir, mutants: [...catalog, stale("no such text")] })).toThrow(/mutant s99/);
    expect(readdirSync(dir).sort()).toEqual(before);
  });

  it("a mutant file that changed since the build is refused, not run stale", async () => {
    const changed = { ...catalog[0]!, hash: "0".repeat(64) };
    await expect(loadMutant(changed, dir)).rejects.toThrow(/changed since it was built: run npm run build/);
  });

  it("a folder without a build says how to build", async () => {
    const empty = join(dir, "..", `empty-${process.pid}`);
    mkdirSync(empty, { recursive: true });
    writeFileSync(join(empty, "README"), "");
    try {
      await expect(loadMutant(catalog[0]!, empty)).rejects.toThrow(/no built mutants .* run npm run build/);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});

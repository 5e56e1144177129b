import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { fuzz, type FuzzOptions } from "../src/fuzz/fuzz.js";
import { freshRows } from "../src/fuzz/fresh.js";
import { keywordsOf } from "../src/fuzz/model.js";
import { PACKAGE_ROOT, loadCorpus } from "../src/harness/corpus.js";
import { readReport } from "../src/harness/report.js";
import type { Row } from "../src/harness/rows.js";
import { inProcessSubject } from "../src/harness/subjects/in-process.js";
import { stdioSubject } from "../src/harness/subjects/stdio.js";
import type { Subject } from "../src/harness/subjects/subject.js";
import { buildMutants } from "../src/mutants/build.js";
import { loadCatalog, type Mutant } from "../src/mutants/catalog.js";
import { loadMutant } from "../src/mutants/load.js";

// Differential fuzzing (docs/fuzzing.md): the reference never disagrees with itself through the
// protocol; implementations written apart from it are never reported in the default domain; and
// bugs planted in test/fixtures/fuzz-bugs/ (none of them a pitfall of the seed's table) are each
// found and shrunk to a case of a few keywords.

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

beforeAll(async () => {
  const manifest = buildMutants({ outDir: BUILT, mutants: bugs });
  for (const bug of bugs) subjects.set(bug.id, await loadMutant(bug, BUILT, manifest));
});

describe("fuzz: planted bugs the seed's table does not name", () => {
  it("has at least eight of them", () => {
    expect(bugs.length).toBeGreaterThanOrEqual(8);
  });

  it.each(bugs.map((bug) => [bug.id, bug] as [string, Mutant]))("%s is found within 30 s and shrunk to a few keywords", async (_id, bug) => {
    const outcome = await fuzz(subjects.get(bug.id)!, options({ seed: 1, runs: 1_000_000, timeMs: 30_000 }));
    const finding = outcome.finding;
    expect(finding, `${bug.id} (${bug.title}) not found in ${outcome.cases} cases`).toBeDefined();
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

/** How big a found case is: the keywords of its schemas, or of its tools' parameters and its steps. */
function sizeOf(row: Row): number {
  if (row.kind !== "registry") return keywordsOf(row.schema).length;
  const params = row.steps.flatMap((s) => (s.op === "register" && s.tool.parametersText ? keywordsOf(JSON.parse(s.tool.parametersText)) : []));
  return Math.max(new Set(params).size, row.steps.length - 1);
}

describe("fuzz: the command", () => {
  it("exits 0 with nothing found, and says how many cases it ran", () => {
    const { code, stdout } = cli("fuzz", "reference", "--runs", "500", "--seed", "1");
    expect(code).toBe(0);
    expect(stdout).toMatch(/no disagreement with the reference in 500 cases/);
  });

  it("exits 1 on a pitfall mutant, prints the replay command and a corpus row that --save appends and the corpus loader accepts", () => {
    const dir = mkdtempSync(join(tmpdir(), "tc-fuzz-"));
    const file = join(dir, "found.json");
    writeFileSync(file, "[]\n");
    const { code, stdout } = cli("fuzz", "mutant:s05", "--seed", "2", "--save", file);
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

  it("refuses bad arguments with one line and exit 2", () => {
    for (const args of [["--time", "2x"], ["--seed", "x"], ["--path", "1:2"], ["--runs", "0"]]) {
      const { code, stderr } = cli("fuzz", "reference", ...args);
      expect(code, args.join(" ")).toBe(2);
      expect(stderr.trim().split("\n")).toHaveLength(1);
    }
    expect(cli("fuzz").code).toBe(2);
  });

  it("exits 3 when the subject cannot start", () => {
    expect(cli("fuzz", "--subject", "exit 7", "--runs", "5").code).toBe(3);
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
    expect(failed[0]!.repro?.rerun).toMatch(new RegExp(`--fresh 300 --seed 4 --filter ${failed[0]!.id}$`));
  });
});

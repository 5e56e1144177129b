import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { loadCorpus, PACKAGE_ROOT } from "../../src/corpus/load.js";
import type { RowResult } from "../../src/run/outcome.js";
import { formatReport } from "../../src/report/format-report.js";
import { parseReport, readReport } from "../../src/report/read-report.js";
import { withWeighting } from "../../src/report/build-report.js";
import { type Report } from "../../src/report/report.js";
import { renderGradescope } from "../../src/report/reporters/gradescope.js";
import { selectRows, runRows } from "../../src/run/runner.js";
import { defaultWeighting, parseWeights, rowsWeighting, testsWeighting, weightedScore } from "../../src/judge/weighting.js";
import { loadCatalog } from "../../src/mutants/catalog.js";
import { loadMutant } from "../../src/mutants/load.js";
import { cli, MAIN, oneLineError } from "../helpers/cli-helpers.js";

// The grader's choice of score (--scoring, --weights, --fresh-weight), the `report` command and
// merge's class view, end to end from the CLI and on real mutants' answers.

const core = { level: "messages" as const, tiers: ["core" as const] };
const results = new Map<string, RowResult[]>();

beforeAll(async () => {
  const { rows } = selectRows(loadCorpus(), { profile: "ag02", ...core, filters: [] });
  for (const id of ["s02", "s11", "s17", "s19", "s12"]) {
    const mutant = loadCatalog().find((m) => m.id === id)!;
    results.set(id, (await runRows(await loadMutant(mutant), rows, { profile: "ag02", ...core, progress: false })).results);
  }
  // three mistakes at once: a row fails when any of the three fails it
  const three = ["s17", "s19", "s11"].map((id) => results.get(id)!);
  results.set("three", three[0]!.map((row, i) => three.find((r) => r[i]!.status !== "passed")?.[i] ?? row));
}, 60_000);

const scoreOf = (id: string, w = defaultWeighting()) => weightedScore(results.get(id)!, core, w).percent;

describe("the spec's tests, as its Go suite grades them", () => {
  it("a test passes when all its rows pass: tests passed over six", () => {
    const s11 = weightedScore(results.get("s11")!, core, testsWeighting());
    expect(s11.testsPassed).toBe(5);
    expect(s11.tests).toBe(6);
    expect(s11.percent).toBeCloseTo(83.33, 1);
    // s17 fails TestValidateTable and TestCallNeverPanics: two tests
    expect(weightedScore(results.get("s17")!, core, testsWeighting()).testsPassed).toBe(4);
  });
});

describe("the default weighting (--weights default)", () => {
  it("ranks a broken Call and a wrong hand-worked example below a cosmetic miss, and three mistakes below each", () => {
    // rows passed over rows puts the panic escaping Call above the cosmetic misses: the complaint
    expect(scoreOf("s11", rowsWeighting())).toBeGreaterThan(scoreOf("s12", rowsWeighting()));
    expect(scoreOf("s11")).toBeLessThan(scoreOf("s02"));
    expect(scoreOf("s11")).toBeLessThan(scoreOf("s12"));
    expect(scoreOf("s19")).toBeLessThan(scoreOf("s02"));
    expect(scoreOf("s19")).toBeLessThan(scoreOf("s12"));
    // a failed test costs at least half its points: a broken Call at least 12.5
    expect(scoreOf("s11")).toBeLessThanOrEqual(87.5);
    for (const one of ["s11", "s17", "s19"]) expect(scoreOf("three")).toBeLessThan(scoreOf(one));
  });

  it("points add up: each test's earned points sum to the score, a whole test earns its points", () => {
    const w = weightedScore(results.get("s19")!, core, defaultWeighting());
    expect(w.parts.reduce((a, p) => a + p.max, 0)).toBe(10_000);
    expect(w.parts.reduce((a, p) => a + p.earned, 0) / 100).toBe(w.percent);
    for (const p of w.parts) if (p.whole) expect(p.earned).toBe(p.max);
    expect(w.parts.find((p) => p.name === "TestHandWorkedExample")!.max).toBe(2500);
  });
});

describe("a weights file", () => {
  const catalog = loadCatalog();
  it("weighs tests and pitfalls (by number or mutant id), the rest 1", () => {
    const w = parseWeights(JSON.stringify({ sections: { TestCallNeverPanics: 40 }, pitfalls: { "8": 5, s19: 3 }, whole: 1 }), "w.json", catalog);
    expect(w).toMatchObject({ name: "w.json", whole: 1, pitfalls: { s11: 5, s19: 3 }, sections: { TestCallNeverPanics: 40, TestValidateTable: 1 } });
  });
  for (const [text, error] of [
    ["{", /^not JSON/],
    ['{"sections": {"TestNope": 1}}', /"TestNope" is not one of the spec's tests/],
    ['{"pitfalls": {"42": 1}}', /"42" names no pitfall/],
    ['{"whole": 2}', /"whole" must be a number from 0 to 1/],
    ['{"weight": 1}', /unknown field "weight"/],
  ] as const) {
    it(`refuses ${text}`, () => expect(parseWeights(text, "w.json", catalog)).toMatch(error));
  }
});

describe("score --weights, and a reader that recomputes it", () => {
  const out = mkdtempSync(join(tmpdir(), "tc-weights-"));
  let report: Report;
  beforeAll(() => {
    const run = cli("score", "mutant:s11", "--weights", "default", "--reporter", "terminal,json,gradescope,markdown,html,junit", "--out", out, "--min-score", "0", "--no-diagnosis");
    expect(run.code, run.stderr).toBe(0);
    report = readReport(join(out, "report.jsonl"));
    // the weighting first, then the rows with their own percent: "N passed of M" agrees with the percent beside it
    const t = report.summary.scores.total;
    expect(run.stdout).toMatch(new RegExp(`^score ${report.summary.weighted!.percent}% \\(weights default, 5 of 6 tests passed; rows ${t.percent}%: ${t.passed} passed, .* of ${t.rows}, level messages, tiers core\\)$`, "m"));
  }, 60_000);

  it("records the scheme in the header and the weighted score in the summary, shown by every reporter", () => {
    expect(report.header.scoring).toMatchObject({ name: "default", whole: 0.5 });
    const percent = report.summary.weighted!.percent;
    expect(percent).toBeLessThan(report.summary.scores.total.percent);
    const gradescope = JSON.parse(readFileSync(join(out, "results.json"), "utf8")) as { score: number; tests: { name: string; score: number; max_score: number }[] };
    expect(gradescope.score).toBe(percent);
    expect(gradescope.tests.find((t) => t.name === "TestCallNeverPanics")!.max_score).toBe(25);
    expect(gradescope.tests.find((t) => t.name === "TestHandWorkedExample")).toMatchObject({ score: 25, max_score: 25 });
    expect(readFileSync(join(out, "summary.md"), "utf8")).toContain(`: ${percent}%`);
    expect(readFileSync(join(out, "summary.md"), "utf8")).toMatch(/\| ❌ TestCallNeverPanics \| 25 \| 34\/39 \| [\d.]+ \/ 25 \|/);
    expect(readFileSync(join(out, "report.html"), "utf8")).toContain(`>${percent}%</span>`);
    expect(readFileSync(join(out, "junit.xml"), "utf8")).toContain(`name="run score" value="${percent}%"`);
  });

  it("a reader refuses a weighted score edited alone, or a scheme edited under it", () => {
    const text = readFileSync(join(out, "report.jsonl"), "utf8");
    const edited = text.replace(`"percent":${report.summary.weighted!.percent},"testsPassed"`, `"percent":100,"testsPassed"`);
    expect(edited).not.toBe(text);
    expect(() => parseReport(edited)).toThrow(/forged or edited: the summary does not match its rows: weighted\.percent is 100 in the summary/);
    expect(() => parseReport(text.replace('"whole":0.5', '"whole":0'))).toThrow(/forged or edited/);
  });

  it("a bad weights file is one line, exit 2, before anything runs", () => {
    const file = join(out, "bad.json");
    writeFileSync(file, '{"sections": {"TestCall": 3}}');
    const run = cli("score", "reference", "--weights", file, "--reporter", "json", "--out", join(out, "never"));
    expect(run.code).toBe(2);
    expect(oneLineError(run.stderr)).toMatch(/--weights .*bad\.json: "sections": "TestCall" is not one of the spec's tests/);
    expect(existsSync(join(out, "never"))).toBe(false);
  });
});

describe("Gradescope points", () => {
  it("each test's max_score is the same for every student, and the tests add up to the score", () => {
    const reports = ["s02", "s11", "s19"].map((id) => {
      const out = mkdtempSync(join(tmpdir(), "tc-gs-"));
      cli("score", `mutant:${id}`, "--reporter", "json", "--out", out, "--no-diagnosis");
      return readReport(join(out, "report.jsonl"));
    });
    for (const weighting of [undefined, defaultWeighting(), testsWeighting()]) {
      const all = reports.map((r) => renderGradescope(weighting ? withWeighting(r, weighting) : r));
      const maxima = all.map((g) => g.tests.map((t) => t.max_score));
      expect(maxima[1]).toEqual(maxima[0]);
      expect(maxima[2]).toEqual(maxima[0]);
      for (const [i, g] of all.entries()) {
        expect(Math.round(g.tests.reduce((a, t) => a + t.score * 100, 0))).toBe(Math.round(g.score * 100));
        expect(g.score).toBe(weighting ? withWeighting(reports[i]!, weighting).summary.weighted!.percent : reports[i]!.summary.scores.total.percent);
      }
    }
  }, 60_000);
});

describe("generated cases count apart by default", () => {
  it("a seed cannot move the headline: fresh rows are shown apart, counted only with --fresh-weight", () => {
    const a = mkdtempSync(join(tmpdir(), "tc-fresh-"));
    const b = mkdtempSync(join(tmpdir(), "tc-fresh-"));
    cli("score", "mutant:s03", "--fresh", "60", "--seed", "1", "--reporter", "json", "--out", a, "--no-diagnosis");
    cli("score", "mutant:s03", "--fresh", "60", "--seed", "2", "--reporter", "json", "--out", b, "--no-diagnosis");
    const [ra, rb] = [readReport(join(a, "report.jsonl")), readReport(join(b, "report.jsonl"))];
    expect(ra.header.scoring).toMatchObject({ name: "rows", fresh: 0 });
    expect(ra.summary.weighted!.percent).toBe(rb.summary.weighted!.percent);
    expect(ra.summary.weighted!.parts.at(-1)).toMatchObject({ name: "generated", max: 0, earned: 0, rows: 60 });
    const weighed = withWeighting(ra, { ...rowsWeighting(), fresh: 0.5 });
    const generated = weighed.summary.weighted!.parts.at(-1)!;
    expect(generated.max).toBe(5000);
    // no seed and no placeholder in what a student reads
    const text = formatReport(ra);
    expect(text).not.toContain("TO WRITE");
    expect(text).not.toContain("--seed");
    expect(ra.rows.filter((r) => r.part === "fresh").every((r) => !r.id.includes("/1/"))).toBe(true);
  }, 60_000);
});

describe("report: any reporter from an existing report.jsonl", () => {
  it("renders HTML, Markdown and Gradescope beside the report, checked as every reader checks it", () => {
    const out = mkdtempSync(join(tmpdir(), "tc-report-"));
    const key = join(out, "grader.key");
    writeFileSync(key, "0123456789abcdef0123456789abcdef\n");
    expect(cli("score", "mutant:s19", "--reporter", "json", "--out", out, "--key", key, "--no-diagnosis").code).toBe(1);
    const run = cli("report", join(out, "report.jsonl"), "--reporter", "html,markdown,gradescope", "--key", key);
    expect(run.code, run.stderr).toBe(0);
    for (const file of ["report.html", "summary.md", "results.json"]) expect(existsSync(join(out, file)), file).toBe(true);
    const percent = readReport(join(out, "report.jsonl")).summary.scores.total.percent;
    expect(readFileSync(join(out, "summary.md"), "utf8")).toContain(`: ${percent}%`);
    // scored again under another weighting, without running anything
    const again = cli("report", join(out, "report.jsonl"), "--reporter", "terminal", "--scoring", "tests");
    expect(again.stdout).toMatch(/^score [\d.]+% \(the spec's tests, 4 of 6 passed; rows [\d.]+%: \d+ passed, .*\)$/m);
    // without --key the report is rendered, and the reader is told that nothing was verified
    expect(run.stderr).not.toContain("not verified");
    expect(again.stderr).toContain("not verified: the report is signed, but no --key was given to check it");
    // an edited report, or one signed with another key, is refused: one line, exit 2
    writeFileSync(join(out, "other.key"), "fedcba9876543210fedcba9876543210\n");
    const bad = cli("report", join(out, "report.jsonl"), "--reporter", "html", "--key", join(out, "other.key"));
    expect(bad.code).toBe(2);
    expect(oneLineError(bad.stderr)).toMatch(/bad signature/);
  }, 60_000);
});

describe("merge: the class view", () => {
  it("writes class.md and class.html: the distribution, every student of every mistake, the rules most fail, the copies", () => {
    const root = mkdtempSync(join(tmpdir(), "tc-class-"));
    const subs = join(root, "submissions");
    const reports: string[] = [];
    for (const id of ["s02", "s11", "s19", "s19b"]) {
      const out = join(root, "grades", id);
      // the diagnosis may build the mutants' fingerprints first: more time than cli() gives
      spawnSync(process.execPath, [MAIN, "score", `mutant:${id.slice(0, 3)}`, "--label", id, "--reporter", "json", "--out", out], { cwd: PACKAGE_ROOT, timeout: 170_000 });
      reports.push(join(out, "report.jsonl"));
      mkdirSync(join(subs, id), { recursive: true });
    }
    const honest = join(PACKAGE_ROOT, "test", "fixtures", "python-impl", "toolreg.py");
    cpSync(honest, join(subs, "s02", "toolreg.py"));
    cpSync(honest, join(subs, "s11", "toolreg.py"));
    // a copy with two cosmetic edits, and one written apart
    writeFileSync(join(subs, "s19", "toolreg.py"), `# mine\n${readFileSync(honest, "utf8").replace("def ", "def  ")}`);
    writeFileSync(join(subs, "s19b", "toolreg.py"), "def compile(schema):\n    return schema\n");
    const run = cli("merge", ...reports, "--out", join(root, "class"), "--weights", "default", "--submissions", subs);
    expect(run.code, run.stderr).toBe(0);
    const md = readFileSync(join(root, "class", "class.md"), "utf8");
    expect(md).toMatch(/\| \*\*s19\*\* \(spec §2\.2, errors in discovery order\): .* \| 2 \| `s19`, `s19b` \|/);
    expect(md).not.toMatch(/\+\d/);
    expect(md).toContain("## Rules most students fail");
    expect(md).toMatch(/\| `s02` \| `s11` \| identical files \|/);
    expect(md).toMatch(/\| `s02` \| `s19` \| 9\d\.\d% \|/);
    expect(md).not.toMatch(/s19b` \| [\d.]+% \|$/m);
    const html = readFileSync(join(root, "class", "class.html"), "utf8");
    expect(html).toContain("<h2>Mistakes</h2>");
    expect(html).toContain("identical files");
    // the table's totals are the weighted headline
    const s11 = readReport(reports[1]!);
    expect(md).toContain(`**${withWeighting(s11, defaultWeighting()).summary.weighted!.percent}%**`);
  }, 600_000);
});

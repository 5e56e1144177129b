import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseDuration, positiveInt } from "../../src/cli/arguments.js";
import { describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../src/corpus/load.js";
import { readReport } from "../../src/report/read-report.js";

// The score and merge commands as a user runs them (npm test builds dist/ first).

const MAIN = join(PACKAGE_ROOT, "dist", "cli", "main.js");
const ADAPTER = `node ${JSON.stringify(MAIN)} adapter`;

function cli(...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [MAIN, ...args], { encoding: "utf8", env: { ...process.env, NO_COLOR: "1" }, timeout: 60_000 });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

const fresh = () => mkdtempSync(join(tmpdir(), "tc-score-"));

/** Every error a user sees is one line, never a stack trace. */
function noStack(stderr: string): void {
  expect(stderr).not.toMatch(/\n\s+at /);
}

describe("score: the reference", () => {
  it("scores core by default, and says so in the report", () => {
    const out = fresh();
    const { code, stdout } = cli("score", "reference", "--reporter", "terminal,json", "--out", out);
    expect(code).toBe(0);
    expect(stdout).toMatch(/tiers core\b/);
    const report = readReport(join(out, "report.jsonl"));
    expect(report.header.tiers).toEqual(["core"]);
    expect(report.header.level).toBe("messages");
    expect(report.rows.every((row) => row.tier === "core" || row.messageTier === "core" || row.checks.some((c) => c.tier === "core"))).toBe(true);
  });

  it("scores 100% on every tier and level, in-process", () => {
    const out = fresh();
    const { code, stdout } = cli("score", "reference", "--tier", "all", "--reporter", "terminal,json", "--out", out);
    expect(code).toBe(0);
    expect(stdout).toMatch(/score 100% \(\d+ passed of \d+ rows/);
    const report = readReport(join(out, "report.jsonl"));
    const scores = report.summary.scores;
    expect(Object.keys(scores.byTier)).toEqual(["core", "catalog", "hardening"]);
    for (const tally of [scores.total, ...Object.values(scores.byTier), ...Object.values(scores.byLevel)]) expect(tally!.percent).toBe(100);
    expect(report.diagnosis.lines).toEqual(["no failures: nothing to diagnose"]);
  });

  it("scores 100% over stdio, through the adapter command, in both profiles", { timeout: 90_000 }, () => {
    // pointer is the lesson profile's older name
    for (const [profile, named] of [["ag02", "ag02"], ["lesson", "lesson"], ["pointer", "lesson"]] as const) {
      const out = fresh();
      const { code, stderr } = cli("score", "--subject", ADAPTER, "--profile", profile, "--reporter", "json", "--out", out);
      expect(code, stderr).toBe(0);
      const report = readReport(join(out, "report.jsonl"));
      expect(report.header.subject.implementation.name).toBe("reference");
      expect(report.header.profile).toBe(named);
      expect(report.summary.scores.total).toMatchObject({ percent: 100, errored: 0 });
    }
  });

  it("loads a module in-process with --module", () => {
    const { code, stdout } = cli("score", "--module", join(PACKAGE_ROOT, "dist", "index.js"), "--tier", "core");
    expect(code).toBe(0);
    expect(stdout).toContain("score 100%");
  });
});

describe("score: a mutant", () => {
  it("is diagnosed, and every reporter writes its file", { timeout: 60_000 }, () => {
    const out = fresh();
    const { code, stdout, stderr } = cli("score", "mutant:s03", "--reporter", "terminal", "--reporter", "json,junit,gradescope,markdown,html", "--out", out);
    // without --min-score, any row that does not pass fails the run, as a test runner does
    expect(code).toBe(1);
    expect(stderr).toMatch(/\d+ of \d+ rows did not pass \(set --min-score to accept a lower score\)/);
    expect(stdout).toContain('your failures match s03 (pitfall 2, string length in UTF-16 units): a character outside the Basic Multilingual Plane ("💩") counts as 2, so length bounds miscount it');
    expect(stdout).toMatch(/failing rows \(\d+\)/);
    for (const file of ["report.jsonl", "junit.xml", "results.json", "summary.md", "report.html"]) {
      expect(existsSync(join(out, file)), file).toBe(true);
      expect(stderr).toContain(`wrote ${join(out, file)}`);
    }
    expect(readReport(join(out, "report.jsonl")).diagnosis.matches[0]).toMatchObject({ id: "s03", exact: true });
    const results = JSON.parse(readFileSync(join(out, "results.json"), "utf8")) as { score: number; tests: unknown[] };
    expect(results.tests.length).toBe(6);
    expect(results.score).toBeLessThan(100);
  });

  it("over stdio is diagnosed the same", { timeout: 60_000 }, () => {
    const { code, stdout } = cli("score", "--subject", `${ADAPTER} --mutant s05`, "--filter", "validate/*");
    expect(code).toBe(1);
    expect(stdout).toContain("your failures match s05 (pitfall 4, minimum treated as exclusive)");
  });
});

describe("score: CI gating", () => {
  it("--min-score: exit 1 below the threshold, 0 at or above it", { timeout: 60_000 }, () => {
    const below = cli("score", "mutant:s03", "--min-score", "99.9", "--no-diagnosis");
    expect(below.code).toBe(1);
    expect(below.stderr).toMatch(/score \d+(\.\d\d?)?% is below --min-score 99\.9%/);
    expect(cli("score", "mutant:s03", "--min-score", "90", "--no-diagnosis").code).toBe(0);
    expect(cli("score", "reference", "--min-score", "100").code).toBe(0);
  });

  it("--baseline: exit 1 listing the rows that passed there and fail now; 0 without regression", { timeout: 60_000 }, () => {
    const base = fresh();
    expect(cli("score", "reference", "--reporter", "json", "--out", base).code).toBe(0);
    const baseline = join(base, "report.jsonl");
    const regressed = cli("score", "mutant:s05", "--baseline", baseline, "--no-diagnosis");
    expect(regressed.code).toBe(1);
    expect(regressed.stderr).toMatch(/\d+ rows passed in the baseline .* and fail now:/);
    expect(regressed.stderr).toContain("validate/minimum/equal-passes");
    const same = cli("score", "reference", "--baseline", baseline);
    expect(same.code).toBe(0);
    expect(same.stderr).toMatch(/no regression \(\d+ rows compared\)/);
  });

  it("refuses a cut-off baseline before running anything (exit 2)", () => {
    const base = fresh();
    cli("score", "reference", "--reporter", "json", "--out", base);
    const text = readFileSync(join(base, "report.jsonl"), "utf8");
    const cut = join(base, "cut.jsonl");
    writeFileSync(cut, text.slice(0, text.lastIndexOf('{"kind":"footer"')));
    const { code, stderr } = cli("score", "reference", "--baseline", cut);
    expect(code).toBe(2);
    expect(stderr.trim()).toBe(`tool-conformance: ${cut}: cut off: no footer line after ${text.trim().split("\n").length - 1} lines; the run or the copy did not finish`);
  });
});

describe("score: usage and subject errors", () => {
  const cases: [string, string[], number, RegExp][] = [
    ["an unknown tier", ["reference", "--tier", "gold"], 2, /--tier: "gold" is not a tier \(core, catalog, hardening, extension, or all\)/],
    ["an unknown subject", ["python"], 2, /unknown subject "python": use reference, mutant:sNN/],
    ["an unknown mutant", ["mutant:s99"], 2, /there is no mutant s99/],
    ["two subjects", ["reference", "--subject", "cat"], 2, /give one subject/],
    ["a filter matching nothing", ["reference", "--filter", "nothing/*"], 2, /--filter "nothing\/\*" matches no row/],
    ["a bad --min-score", ["reference", "--min-score", "lots"], 2, /--min-score: "lots" is not a percent/],
    ["a mutant of another profile", ["mutant:s20"], 2, /^tool-conformance: mutant:s20 belongs to the lesson profile \(its mistake is in that contract\), not ag02: score it with --profile lesson$/m],
    ["a bad --jobs", ["reference", "--jobs", "0"], 2, /--jobs: "0" is not a whole number from 1 to 64/],
    ["too many --jobs", ["reference", "--jobs", "1000"], 2, /^tool-conformance: --jobs: "1000" is not a whole number from 1 to 64$/m],
    ["a --timeout past setTimeout's limit", ["reference", "--timeout", "3000000000"], 2, /^tool-conformance: --timeout: "3000000000" is not a whole number from 1 to 3600000$/m],
    ["a --timeout the harness's margin would overflow", ["reference", "--timeout", "2147483647"], 2, /--timeout: "2147483647" is not a whole number from 1 to 3600000/],
    ["a --budget past setTimeout's limit", ["reference", "--budget", "1000h"], 2, /^tool-conformance: --budget: "1000h" is longer than 596h, the longest it takes$/m],
    ["a --fresh beyond memory", ["reference", "--fresh", "10000000"], 2, /^tool-conformance: --fresh: "10000000" is not a whole number from 1 to 100000$/m],
    ["a --gradescope-points out of range", ["reference", "--gradescope-points", "1e9"], 2, /--gradescope-points: "1e9" is not a number above 0 and at most 1000000/],
    ["a missing module", ["--module", "no/such/file.js"], 2, /--module no\/such\/file.js: no such file/],
    ["a module without the interface", ["--module", join(PACKAGE_ROOT, "dist", "corpus", "rows.js")], 2, /does not export compile, Registry, newTool, ToolError: .*docs\/api\.md/],
    ["a command that dies at once", ["--subject", "exit 7"], 3, /could not start "exit 7": the process exited with code 7/],
    ["a command that is not an adapter", ["--subject", "echo hello"], 3, /could not start "echo hello": .*not JSON/],
    ["file reporters in the demo", ["--reporter", "junit"], 2, /--reporter need a subject/],
    // Node's own recursive mkdir never returns here
    ["an --out folder that cannot be made", ["reference", "--filter", "validate/type/*", "--reporter", "json", "--out", "/proc/no/such/folder"], 2, /cannot write the reports under --out \/proc\/no\/such\/folder: ENOENT/],
  ];
  for (const [what, args, expected, message] of cases) {
    it(`${what}: exit ${expected}, one line`, () => {
      const { code, stderr } = cli("score", ...args);
      expect(code, stderr).toBe(expected);
      expect(stderr).toMatch(message);
      noStack(stderr);
    });
  }
});

describe("numeric options: a documented range", () => {
  it("score --help states each range once, and no default twice", () => {
    const { stdout } = cli("score", "--help");
    const help = stdout.replace(/\s+/g, " ");
    for (const range of ["--jobs <n> sessions in parallel, 1 to 64", "--timeout <ms> per-request timeout in ms, 1 to 3600000", "N from 1 to 100000 (every case and its answer is held in memory)", "at most 596h", "from -2147483648 to 2147483647"]) expect(help).toContain(range);
    expect(stdout).not.toContain("(default: [])");
    for (const line of stdout.split("\n")) expect(line.split("(default").length, line).toBeLessThanOrEqual(2);
  });

  it("no command's help shows an empty list as a default", () => {
    for (const command of ["validate", "validators", "mutants", "smoke", "merge", "report", "grade", "fuzz"]) expect(cli(command, "--help").stdout, command).not.toContain("(default: [])");
  });

  it("every duration stays under setTimeout's limit, whatever command parses it (grade --score-timeout too)", () => {
    expect(parseDuration("596h", "--score-timeout")).toBe(596 * 3_600_000);
    expect(596 * 3_600_000 + 5_000).toBeLessThan(2 ** 31 - 1);
    expect(() => parseDuration("1000h", "--score-timeout")).toThrow(/^--score-timeout: "1000h" is longer than 596h, the longest it takes$/);
    expect(() => parseDuration("9".repeat(400), "--budget")).toThrow(/is not a duration|is longer than/);
    expect(() => positiveInt("1e3", "--jobs")).toThrow(/is not a whole number from 1 to/);
  });
});

describe("score: what a run says", () => {
  it("--jsts says which tier its tests count under, and how to score them when this run's tiers leave them out", () => {
    const { stderr } = cli("score", "reference", "--jsts", join("test", "fixtures", "jsts"), "--no-progress", "--filter", "validate/type/*");
    expect(stderr).toMatch(/^JSON-Schema-Test-Suite: 7 groups kept \(19 tests\), .*; they count under tier hardening, which this run \(tiers core\) does not score: add --tier hardening \(or --tier all\) to score them$/m);
    const all = cli("score", "reference", "--jsts", join("test", "fixtures", "jsts"), "--no-progress", "--tier", "all", "--filter", "validate/type/*", "--filter", "jsts/*");
    expect(all.stderr).toMatch(/; they count under tier hardening, scored in this run$/m);
  });

  it("after a run ended by --budget, the advice is the budget's, not --min-score", { timeout: 60_000 }, () => {
    const slow = `${JSON.stringify(process.execPath)} ${JSON.stringify(join(PACKAGE_ROOT, "test", "fixtures", "hostile", "slow.mjs"))} budget-advice 100`;
    const { code, stderr } = cli("score", "--subject", slow, "--budget", "1500ms", "--jobs", "2", "--no-progress", "--reporter", "json", "--out", mkdtempSync(join(tmpdir(), "tc-budget-")));
    expect(code).toBe(1);
    expect(stderr).toMatch(/^tool-conformance: \d+ of \d+ rows did not pass \(the run's time budget \(1500 ms\) ran out with \d+ of them unanswered: give a longer --budget, or fewer rows \(--filter, --tier\)\)$/m);
    expect(stderr).not.toContain("set --min-score");
  });
});

describe("a closed pipe", () => {
  it("ends quietly, with the run's own exit code, whoever stops reading", () => {
    for (const command of [
      `${JSON.stringify(process.execPath)} ${JSON.stringify(MAIN)} score reference --reporter json=- --no-progress | head -c 10`,
      `${JSON.stringify(process.execPath)} ${JSON.stringify(MAIN)} mutants --format json | head -c 10`,
    ]) {
      const result = spawnSync("bash", ["-c", `${command} >/dev/null; echo "exit \${PIPESTATUS[0]}" >&2`], { cwd: PACKAGE_ROOT, encoding: "utf8", timeout: 60_000 });
      expect(result.stderr).toMatch(/^exit 0\n$/);
    }
  });
});

describe("score with no subject: the demo", () => {
  it("scores the reference and every mutant, each diagnosed as its own pitfall", { timeout: 60_000 }, () => {
    const { code, stdout } = cli("score");
    expect(code).toBe(0);
    expect(stdout).toMatch(/^ {2}reference +100% +0 /m);
    expect(stdout).toMatch(/^ {2}mutant:s03 .*s03 · pitfall 2, string length in UTF-16 units: a character outside the Basic Multilingual Plane/m);
    const [, diagnosed, total] = /(\d+) of (\d+) mutants diagnosed as their own pitfall/.exec(stdout)!;
    expect(Number(total)).toBeGreaterThanOrEqual(17);
    expect(diagnosed).toBe(total);
  });
});

describe("merge", () => {
  it("builds the class table, CSV and Markdown, one line per submission", { timeout: 60_000 }, () => {
    const a = fresh();
    const b = fresh();
    const out = fresh();
    cli("score", "reference", "--reporter", "json", "--out", a, "--label", "alice");
    cli("score", "mutant:s03", "--reporter", "json", "--out", b, "--label", "bob");
    const { code, stdout } = cli("merge", join(a, "report.jsonl"), join(b, "report.jsonl"), "--out", out);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^\| `alice` \| 100% \|/m);
    expect(stdout).toMatch(/^\| `bob` \| .* \| `s03 \(pitfall 2, string length in UTF-16 units\)` \|$/m);
    const csv = readFileSync(join(out, "class.csv"), "utf8").trimEnd().split("\r\n");
    expect(csv[0]).toBe("label,TestHandWorkedExample,TestValidateTable,TestCompileRejectsUnsupported,TestRegisterRules,TestDefinitionsSorted,TestCallNeverPanics,total,passed,rows,errored,status,diagnosis,report");
    expect(csv[1]).toMatch(/^alice,100,100,100,100,100,100,100,/);
    expect(csv[2]).toMatch(/^bob,.*,"s03 \(pitfall 2, string length in UTF-16 units\)",/);
    expect(readFileSync(join(out, "class.md"), "utf8")).toBe(stdout);
  });

  it("refuses a cut-off report (exit 1), naming it, and gives it a line with score 0 and the reason", () => {
    const a = fresh();
    cli("score", "reference", "--reporter", "json", "--out", a);
    const path = join(a, "report.jsonl");
    const text = readFileSync(path, "utf8");
    writeFileSync(path, text.slice(0, Math.floor(text.length / 2)));
    const out = fresh();
    const { code, stderr } = cli("merge", path, "--out", out);
    expect(code).toBe(1);
    expect(stderr).toMatch(new RegExp(`^tool-conformance: ${path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: cut off`));
    expect(readFileSync(join(out, "class.csv"), "utf8").split("\r\n")[1]).toMatch(/^[^,]+,0,0,0,0,cut off: /);
    noStack(stderr);
  });
});

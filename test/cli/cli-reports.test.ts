import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../src/corpus/load.js";
import { parseReport, readReport } from "../../src/report/read-report.js";

// The reports as a user gets them from the CLI (npm test builds dist/ first): a subject that
// cannot start still gets every report, hostile subject output never reaches the terminal raw,
// report.jsonl can go to stdout for a pipeline, the GitHub Actions reporter, and one number for
// one run in every file.

const MAIN = join(PACKAGE_ROOT, "dist", "cli", "main.js");
const XSD = join(PACKAGE_ROOT, "test", "fixtures", "schemas", "junit-10.xsd");

function cli(args: string[], env: NodeJS.ProcessEnv = {}): { code: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [MAIN, ...args], { encoding: "utf8", env: { ...process.env, NO_COLOR: "1", GITHUB_STEP_SUMMARY: "", ...env }, timeout: 60_000 });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}
const fresh = () => mkdtempSync(join(tmpdir(), "tc-cli-reports-"));
const ALL = ["--reporter", "terminal,json,junit,gradescope,markdown,html"];
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f]/;

/** A user-facing error: one line on stderr, no stack trace. */
function oneLineError(stderr: string): string {
  const errors = stderr.split("\n").filter((line) => line.startsWith("tool-conformance: "));
  expect(errors.length, stderr).toBe(1);
  expect(stderr).not.toMatch(/\n\s+at /);
  return errors[0]!;
}

describe("a subject that cannot start", () => {
  it("still gets every report (score 0, the cause and the end of its stderr), and exit 3 with one line", () => {
    const out = fresh();
    const subject = "echo 'Traceback (most recent call last):' >&2; echo 'ModuleNotFoundError: No module named toolreg' >&2; exit 1";
    const { code, stdout, stderr } = cli(["score", "--subject", subject, ...ALL, "--out", out]);
    expect(code).toBe(3);
    expect(oneLineError(stderr)).toMatch(/^tool-conformance: could not start .*the process exited with code 1/);
    for (const file of ["report.jsonl", "junit.xml", "results.json", "summary.md", "report.html"]) expect(existsSync(join(out, file)), file).toBe(true);

    const report = readReport(join(out, "report.jsonl"));
    expect(report.summary.scores.total).toMatchObject({ passed: 0, percent: 0 });
    expect(report.summary.stopped!.cause).toMatch(/^could not start/);
    expect(report.summary.stopped!.stderr).toContain("ModuleNotFoundError: No module named toolreg");
    expect(report.rows.every((row) => row.status === "errored")).toBe(true);
    expect(report.rows[0]!.repro!.rerun).toMatch(/^tool-conformance score --subject '.*' --tier core --filter /);

    const results = JSON.parse(readFileSync(join(out, "results.json"), "utf8")) as { score: number; output: string; tests: { score: number }[] };
    expect(results.score).toBe(0);
    expect(results.output).toContain("The run stopped: could not start");
    expect(results.output).toContain("ModuleNotFoundError: No module named toolreg");
    expect(results.tests.every((test) => test.score === 0)).toBe(true);

    expect(readFileSync(join(out, "summary.md"), "utf8")).toContain("ModuleNotFoundError: No module named toolreg");
    expect(readFileSync(join(out, "report.html"), "utf8")).toContain("ModuleNotFoundError: No module named toolreg");
    const xmllint = spawnSync("xmllint", ["--noout", "--schema", XSD, join(out, "junit.xml")], { encoding: "utf8" });
    expect(xmllint.status, xmllint.stderr).toBe(0);
    expect(stdout).toContain("the run stopped: could not start");
    expect(stdout).toContain("ModuleNotFoundError: No module named toolreg");
  });

  it("a --module that cannot be loaded is reported the same way", () => {
    const out = fresh();
    const { code, stderr } = cli(["score", "--module", join(PACKAGE_ROOT, "test", "fixtures", "module-api", "throws-on-load.mjs"), "--reporter", "json", "--out", out]);
    expect(code).toBe(3);
    oneLineError(stderr);
    expect(readReport(join(out, "report.jsonl")).summary.stopped!.cause).toMatch(/could not be loaded: toolreg: config file missing/);
  });
});

describe("hostile subject output", () => {
  it("reaches neither the terminal nor a CI log raw: escape sequences shown visibly, no workflow command", () => {
    const out = fresh();
    const subject = `printf '\\033[2J\\033]0;pwned\\007 \\000 nul\\n::error title=x::fake\\n  ::add-mask::secret\\n##[error]legacy\\n' >&2; exit 1`;
    const { code, stdout, stderr } = cli(["score", "--subject", subject, "--reporter", "terminal,json", "--out", out]);
    expect(code).toBe(3);
    for (const text of [stdout, stderr]) {
      expect(text).not.toMatch(RAW_CONTROL);
      for (const line of text.split("\n")) {
        expect(line).not.toMatch(/^\s*::/);
        expect(line).not.toContain("##[");
      }
    }
    expect(stdout).toContain("\\u001b[2J\\u001b]0;pwned\\u0007 \\u0000 nul");
    expect(stdout).toContain("\\u003a:error title=x::fake");
    // the report keeps the subject's text exactly: it is data, not a screen
    expect(readReport(join(out, "report.jsonl")).summary.stopped!.stderr).toContain("\u001b[2J");
  });
});

describe("report.jsonl on stdout", () => {
  it("--out - writes the report's JSON lines and nothing else on stdout", () => {
    const { code, stdout, stderr } = cli(["score", "reference", "--filter", "validate/type/*", "--out", "-"]);
    expect(code, stderr).toBe(0);
    const report = parseReport(stdout, "stdout");
    expect(report.rows.length).toBeGreaterThan(5);
    expect(report.rows.every((row) => row.id.startsWith("validate/type/"))).toBe(true);
  });

  it("--out - beside --reporter terminal still sends the JSON lines to stdout, the terminal summary to stderr", () => {
    const { code, stdout, stderr } = cli(["score", "reference", "--filter", "validate/type/*", "--out", "-", "--reporter", "terminal"]);
    expect(code, stderr).toBe(0);
    expect(parseReport(stdout, "stdout").rows.length).toBeGreaterThan(5);
    expect(stderr).toMatch(/^score 100% /m);
  });

  it("--reporter json=- sends the JSON lines to stdout, the terminal summary to stderr, the other reports to --out", () => {
    const out = fresh();
    const { code, stdout, stderr } = cli(["score", "mutant:s03", "--reporter", "json=-", "--reporter", "terminal,junit", "--out", out, "--no-diagnosis"]);
    expect(code).toBe(1);
    const report = parseReport(stdout, "stdout");
    expect(report.summary.scores.total.percent).toBeLessThan(100);
    expect(stderr).toContain("failing rows (");
    expect(stderr).toContain(`wrote ${join(out, "junit.xml")}`);
    expect(existsSync(join(out, "junit.xml"))).toBe(true);
    expect(existsSync(join(out, "report.jsonl"))).toBe(false);
  });

  const refused: [string, string[], RegExp][] = [
    ["--out - with a file reporter", ["--out", "-", "--reporter", "junit"], /--out - sends report\.jsonl to stdout; junit need a folder/],
    ["json=- with github-actions", ["--reporter", "json=-,github-actions"], /--reporter github-actions writes to stdout/],
  ];
  for (const [what, args, message] of refused) {
    it(`refuses ${what}: exit 2, one line`, () => {
      const { code, stderr, stdout } = cli(["score", "reference", ...args]);
      expect(code).toBe(2);
      expect(oneLineError(stderr)).toMatch(message);
      expect(stdout).toBe("");
    });
  }
});

describe("--reporter github-actions", () => {
  it("writes one ::error per failing row and a ::notice on stdout, and the Markdown summary to $GITHUB_STEP_SUMMARY", () => {
    const dir = fresh();
    const summary = join(dir, "step-summary.md");
    writeFileSync(summary, "");
    const { code, stdout } = cli(["score", "mutant:s03", "--reporter", "github-actions", "--no-diagnosis", "--out", dir], { GITHUB_STEP_SUMMARY: summary });
    expect(code).toBe(1);
    const lines = stdout.trimEnd().split("\n");
    expect(lines.every((line) => line.startsWith("::error title=") || line.startsWith("::notice title="))).toBe(true);
    const errors = lines.filter((line) => line.startsWith("::error"));
    expect(errors.length).toBeGreaterThan(0);
    expect(errors[0]).toMatch(/^::error title=tool-conformance%3A (validate\/\S+)::[^%]+: expected .+; actual .+%0Awhy: .+%0Aschema: .+%0Aarguments: .+%0A.+%0Arerun: tool-conformance score mutant:s03 --tier core --filter \1$/);
    expect(readFileSync(summary, "utf8")).toMatch(/^## ⚠️ tool-conformance: `mutant:s03/);
  });
});

describe("one number for one run", () => {
  it("the terminal, report.jsonl, results.json, summary.md, report.html and merge's class.csv and class.md all say the same percent", () => {
    const out = fresh();
    const { stdout } = cli(["score", "mutant:s06", ...ALL, "--out", out, "--tier", "all", "--no-diagnosis"]);
    const percent = readReport(join(out, "report.jsonl")).summary.scores.total.percent;
    expect(percent).toBeGreaterThan(0);
    expect(percent).toBeLessThan(100);
    expect(String(percent)).toMatch(/\.\d/); // a score with decimals, where rounding rules would show
    expect(stdout).toContain(`score ${percent}% (`);
    expect((JSON.parse(readFileSync(join(out, "results.json"), "utf8")) as { score: number }).score).toBe(percent);
    expect(readFileSync(join(out, "summary.md"), "utf8")).toContain(`: ${percent}%`);
    expect(readFileSync(join(out, "report.html"), "utf8")).toContain(`>${percent}%</span>`);
    const merged = fresh();
    const merge = cli(["merge", join(out, "report.jsonl"), "--out", merged]);
    expect(merge.code).toBe(0);
    const [head, line] = readFileSync(join(merged, "class.csv"), "utf8").trimEnd().split("\r\n");
    const total = head!.split(",").indexOf("total");
    expect(line!.split(",")[total]).toBe(String(percent));
    expect(merge.stdout).toContain(`**${percent}%**`);
  });
});

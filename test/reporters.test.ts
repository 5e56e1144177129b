import { spawnSync } from "node:child_process";
import { beforeAll, describe, expect, it } from "vitest";
import { loadCorpus } from "../src/harness/corpus.js";
import { diagnose, signatureOf } from "../src/harness/diagnosis.js";
import type { RowResult } from "../src/harness/outcome.js";
import { buildReport, type Report } from "../src/harness/report.js";
import { renderGradescope } from "../src/harness/reporters/gradescope.js";
import { renderHtml } from "../src/harness/reporters/html.js";
import { renderJUnit } from "../src/harness/reporters/junit.js";
import { renderMarkdown } from "../src/harness/reporters/markdown.js";
import { paintFor, renderTerminal } from "../src/harness/reporters/terminal.js";
import { SECTIONS, TIERS } from "../src/harness/rows.js";
import { runRows } from "../src/harness/runner.js";
import { score } from "../src/harness/scoring.js";
import { loadCatalog } from "../src/mutants/catalog.js";
import { loadMutant } from "../src/mutants/load.js";

const options = { level: "messages" as const, tiers: [...TIERS] };
/** Text that breaks careless XML, HTML and Markdown writers. */
const NASTY = "</script><b>bold</b> ]]> & \"quotes\" | pipe ``` fence \u0001 \ud800 <!-- end";
let report: Report;

beforeAll(async () => {
  // s06 fails rows in several sections; then one row errors (with nasty stderr) and one is not answerable
  const rows = loadCorpus().filter((r) => !r.profiles || r.profiles.includes("ag02"));
  const s06 = loadCatalog().find((m) => m.id === "s06")!;
  const run = await runRows(await loadMutant(s06), rows, { profile: "ag02", ...options, progress: false });
  const passedCall = run.results.findIndex((r) => r.section === "TestCallNeverPanics" && r.status === "passed");
  run.results[passedCall] = { ...run.results[passedCall]!, status: "errored", checks: [], error: `the reply to "call" (seq 9) is not JSON: ${JSON.stringify(NASTY)}`, stderr: `panic: ${NASTY}\n` };
  const passedRegister = run.results.findIndex((r) => r.section === "TestRegisterRules" && r.status === "passed");
  run.results[passedRegister] = { ...run.results[passedRegister]!, status: "skipped", checks: [], error: 'the subject does not offer the "registry" capability' };
  // a failing check whose texts are nasty
  const failed = run.results.findIndex((r) => r.status === "failed");
  const f = run.results[failed]!;
  run.results[failed] = { ...f, checks: f.checks.map((c) => (c.pass ? c : { ...c, expected: [NASTY], actual: `${NASTY}\nsecond line` })) };
  report = buildReport(run, {
    profile: "ag02",
    ...options,
    filters: {},
    corpusRows: rows.length,
    scores: score(run.results, options),
    diagnosis: diagnose(run.results, options, [
      { id: "s06", pitfall: 5, title: "required not enforced", symptom: "the tool runs without city, or with a field it ignores", answers: answersOf(run.results) },
    ]),
  });
});

/** The run's own failures as a fingerprint (so the diagnosis names it). */
function answersOf(results: RowResult[]): Record<string, string> {
  const answers: Record<string, string> = {};
  for (const result of results) {
    const signature = signatureOf(result, options);
    if (signature !== undefined) answers[result.id] = signature;
  }
  return answers;
}

const count = (status: string, section?: string) => report.rows.filter((r) => r.status === status && (!section || r.section === section)).length;

/** Parses XML with Python's standard library (a real parser, not ours) and returns its counts. */
function parseXml(xml: string): { suites: { name: string; tests: number; failures: number; errors: number; skipped: number; cases: number; failureElements: number; errorElements: number; skippedElements: number }[] } {
  const script = `
import json, sys, xml.etree.ElementTree as ET
root = ET.fromstring(sys.stdin.buffer.read())
out = []
for s in root.iter("testsuite"):
    cases = s.findall("testcase")
    out.append({"name": s.get("name"), "tests": int(s.get("tests")), "failures": int(s.get("failures")), "errors": int(s.get("errors")), "skipped": int(s.get("skipped")),
                "cases": len(cases), "failureElements": sum(1 for c in cases if c.find("failure") is not None),
                "errorElements": sum(1 for c in cases if c.find("error") is not None), "skippedElements": sum(1 for c in cases if c.find("skipped") is not None)})
print(json.dumps({"suites": out}))
`;
  const result = spawnSync("python3", ["-c", script], { input: xml, encoding: "utf8" });
  if (result.status !== 0) throw new Error(`python3 could not parse the XML: ${result.stderr}`);
  return JSON.parse(result.stdout) as ReturnType<typeof parseXml>;
}

const hasPython = spawnSync("python3", ["--version"]).status === 0;

describe("JUnit", () => {
  it.skipIf(!hasPython)("parses as XML, one suite per section, one case per row, with the right counts", () => {
    const xml = renderJUnit(report);
    const { suites } = parseXml(xml);
    expect(suites.map((s) => s.name)).toEqual(SECTIONS.filter((s) => report.rows.some((r) => r.section === s)));
    for (const suite of suites) {
      const rows = report.rows.filter((r) => r.section === suite.name);
      expect(suite).toEqual({
        name: suite.name,
        tests: rows.length,
        cases: rows.length,
        failures: count("failed", suite.name),
        failureElements: count("failed", suite.name),
        errors: count("errored", suite.name),
        errorElements: count("errored", suite.name),
        skipped: count("skipped", suite.name),
        skippedElements: count("skipped", suite.name),
      });
    }
    expect(count("failed")).toBeGreaterThan(0);
    expect(count("errored")).toBe(1);
    expect(count("skipped")).toBe(1);
  });

  it("carries expected against actual in a failure, the cause and stderr in an error", () => {
    const xml = renderJUnit(report);
    expect(xml).toContain("expected:");
    expect(xml).toContain("actual:");
    expect(xml).toMatch(/<error message="the reply to &quot;call&quot;/);
    expect(xml).toContain("subject stderr:");
  });
});

describe("Gradescope", () => {
  it("has the autograder's results.json shape: one test per section by default", () => {
    const results = renderGradescope(report, { visibility: "after_due_date", stdoutVisibility: "hidden" });
    expect(Object.keys(results).sort()).toEqual(["execution_time", "extra_data", "output", "output_format", "score", "stdout_visibility", "tests", "visibility"]);
    expect(results.visibility).toBe("after_due_date");
    expect(results.tests.map((t) => t.name)).toEqual(SECTIONS.filter((s) => report.rows.some((r) => r.section === s)));
    for (const test of results.tests) {
      expect(typeof test.score).toBe("number");
      expect(test.score).toBeLessThanOrEqual(test.max_score);
      expect(["passed", "failed"]).toContain(test.status);
      expect(test.visibility).toBe("after_due_date");
      expect(typeof test.output).toBe("string");
    }
    expect(results.tests.reduce((sum, t) => sum + t.max_score, 0)).toBeCloseTo(100, 1);
    const t = report.summary.scores.total;
    expect(results.score).toBeCloseTo((100 * t.passed) / t.rows, 2);
    expect(results.output).toContain("your failures match s06");
    expect(results.tests.find((test) => test.status === "failed")!.output).toMatch(/expected: .*\n.*actual:/);
  });

  it("can give one test per row, worth points/rows each", () => {
    const results = renderGradescope(report, { per: "row", points: 50 });
    expect(results.tests.length).toBe(report.rows.length);
    expect(results.tests.filter((t) => t.status === "passed").length).toBe(count("passed"));
    expect(results.tests[0]!.max_score).toBeCloseTo(50 / report.rows.length, 2);
    expect(results.tests.every((t) => /^\d+\.\d+$/.test(t.number))).toBe(true);
    expect(results.visibility).toBeUndefined();
    expect(JSON.parse(JSON.stringify(results))).toEqual(results);
  });
});

describe("HTML", () => {
  it("is one self-contained file: no external script, style, image, font or link", () => {
    const html = renderHtml(report);
    expect(html.startsWith("<!doctype html>")).toBe(true);
    expect(html).not.toMatch(/<(script|img|iframe|link)[^>]+(src|href)=/i);
    expect(html).not.toMatch(/@import|url\(/i);
    expect(html).not.toMatch(/https?:\/\//);
    expect(html.match(/<script/g)!.length).toBe(2);
    expect(html.match(/<\/script>/g)!.length).toBe(2);
  });

  it("escapes every text: the nasty one appears only escaped", () => {
    const html = renderHtml(report);
    expect(html).not.toContain("<b>bold</b>");
    expect(html).not.toContain("<!-- end");
    const data = /<script type="application\/json" id="data">([\s\S]*?)<\/script>/.exec(html)![1]!;
    const rows = JSON.parse(data) as { id: string; status: string; stderr: string; diffs: { expected: string }[] }[];
    expect(rows.length).toBe(report.rows.length);
    expect(rows.find((r) => r.status === "errored")!.stderr).toContain("</script><b>bold</b>");
    expect(rows.some((r) => r.diffs.some((d) => d.expected.includes("</script>")))).toBe(true);
  });

  it("puts the diagnosis on top and a grid cell per row, colored by status", () => {
    const html = renderHtml(report);
    expect(html.indexOf('class="diagnosis"')).toBeLessThan(html.indexOf('class="grid"'));
    expect(html.match(/<button class="c (passed|failed|errored|skipped)"/g)!.length).toBe(report.rows.length);
    expect(html.match(/<button class="c failed"/g)!.length).toBe(count("failed"));
  });

  it("has a script that parses", () => {
    const html = renderHtml(report);
    const script = /<script>([\s\S]*?)<\/script>/.exec(html)![1]!;
    expect(() => new Function(script)).not.toThrow();
  });
});

describe("Markdown", () => {
  it("has the section table, the diagnosis and the failing rows, with every fence closed", () => {
    const md = renderMarkdown(report);
    expect(md).toMatch(/^## .* tool-conformance: mutant:s06/);
    expect(md).toContain("| section | core | catalog | hardening | total | score |");
    expect(md).toContain("### Diagnosis");
    expect(md).toContain("**s06** (pitfall 5, required not enforced)");
    expect(md).toContain(`### Failing rows (${report.rows.length - count("passed")})`);
    // outside code blocks, no raw HTML from a text
    expect(md.replace(/^(`{3,})\n[\s\S]*?\n\1$/gm, "")).not.toContain("<b>bold</b>");
    const fences = md.split("\n").filter((line) => /^`{3,}$/.test(line));
    expect(fences.length % 2).toBe(0);
    // the table rows have the header's number of cells (no pipe leaked from a text)
    for (const line of md.split("\n").filter((l) => l.startsWith("| `"))) expect(line.split(/(?<!\\)\|/).length).toBe(7);
  });
});

describe("terminal", () => {
  it("has no color when the stream is not a terminal or NO_COLOR is set", () => {
    expect(paintFor({ isTTY: false }, {})("red", "x")).toBe("x");
    expect(paintFor({ isTTY: true }, { NO_COLOR: "1" })("red", "x")).toBe("x");
    expect(paintFor({ isTTY: true }, {})("red", "x")).not.toBe("x");
    const text = renderTerminal(report, { paint: paintFor({ isTTY: false }) });
    expect(text).not.toContain("\u001b[");
    expect(text).toContain("failing rows");
    expect(text).toContain("→ your failures match s06 (pitfall 5, required not enforced)");
    expect(text).toMatch(/score \d+(\.\d)?% \(\d+ passed, \d+ failed, 1 errored, 1 not answerable of \d+ rows/);
  });
});

import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Ajv } from "ajv";
import { beforeAll, describe, expect, it } from "vitest";
import { loadCorpus, PACKAGE_ROOT } from "../../src/corpus/load.js";
import { buildStoppedReport } from "../../src/report/build-report.js";
import { type Report } from "../../src/report/report.js";
import { apportion, renderGradescope } from "../../src/report/reporters/gradescope.js";
import { escapeData, escapeProperty, renderGithubActions, writeStepSummary } from "../../src/report/reporters/github-actions.js";
import { differenceInWords } from "../../src/report/reporters/common.js";
import { band, renderHtml } from "../../src/report/reporters/html.js";
import { cdata, renderJUnit } from "../../src/report/reporters/junit.js";
import { renderMarkdown } from "../../src/report/reporters/markdown.js";
import { paintFor, renderTerminal } from "../../src/report/reporters/terminal.js";
import { noWorkflowCommands, oneLine, visible } from "../../src/report/reporters/text.js";
import { SECTIONS } from "../../src/corpus/rows.js";
import { formatPercent, percentOf } from "../../src/judge/scoring.js";
import { hostileFixture, NASTY, RERUN, type Fixture } from "../helpers/report-fixture.js";

// Every reporter over one report with hostile text in it (see report-fixture.ts), each checked
// against its real consumer where one is at hand: xmllint with the strict Jenkins junit-10.xsd,
// a JSON Schema of Gradescope's documented results.json, the GitHub runner's unescaping rules.

let fx: Fixture;
let report: Report;
beforeAll(async () => {
  fx = await hostileFixture();
  report = fx.report;
});

const count = (status: string, section?: string) => report.rows.filter((r) => r.status === status && (!section || r.section === section)).length;
const notPassed = () => report.rows.filter((r) => r.status !== "passed");
/** Characters no report a person reads may carry raw. */
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f\u202e\u200b]/;

describe("visible text", () => {
  it("shows invisible and control characters as escapes, never drops them", () => {
    expect(visible("a\u0000b")).toBe("a\\u0000b");
    expect(visible("\u001b[2J")).toBe("\\u001b[2J");
    expect(visible("x\u200by\u202ez\ufeff")).toBe("x\\u200by\\u202ez\\ufeff");
    expect(visible("lone \ud800 surrogate")).toBe("lone \\ud800 surrogate");
    expect(visible("tag \u{e0041}")).toBe("tag \\u{e0041}");
    expect(visible("two\nlines\tand\r")).toBe("two\nlines\tand\\r");
    expect(oneLine("two\nlines\tand\r")).toBe("two\\nlines\\tand\\r");
    expect(visible("héllo 💩 — ok")).toBe("héllo 💩 — ok");
    expect(visible("nbsp\u00a0here")).toBe("nbsp\\u00a0here");
  });

  it("neutralises workflow commands at line starts (after white space) and the legacy ##[ anywhere", () => {
    expect(noWorkflowCommands("::error::x\n  ::add-mask::y\nok :: fine\nsee ##[error]z")).toBe("\\u003a:error::x\n  \\u003a:add-mask::y\nok :: fine\nsee \\u0023#[error]z");
  });
});

describe("JUnit", () => {
  const xsd = join(PACKAGE_ROOT, "test", "fixtures", "schemas", "junit-10.xsd");
  let file: string;
  beforeAll(() => {
    file = join(mkdtempSync(join(tmpdir(), "tc-junit-")), "junit.xml");
    writeFileSync(file, renderJUnit(report));
  });
  const xpath = (expression: string): string => {
    const result = spawnSync("xmllint", ["--xpath", expression, file], { encoding: "utf8" });
    if (result.error) throw new Error(`xmllint is needed (Debian: libxml2-utils; .ci/run installs it): ${result.error.message}`);
    return result.stdout.replace(/\n$/, "");
  };

  it("is valid against the strict Jenkins xUnit junit-10.xsd (xmllint --schema)", () => {
    const result = spawnSync("xmllint", ["--noout", "--schema", xsd, file], { encoding: "utf8" });
    if (result.error) throw new Error(`xmllint is needed (Debian: libxml2-utils; .ci/run installs it): ${result.error.message}`);
    expect(result.stderr).toContain("validates");
    expect(result.status, result.stderr).toBe(0);
  });

  it("the schema check can fail: a <properties> inside a <testcase> is refused", () => {
    const bad = file.replace(/junit\.xml$/, "bad.xml");
    writeFileSync(bad, readFileSync(file, "utf8").replace(/<testcase ([^>]*)\/>/, '<testcase $1><properties><property name="tier" value="core"/></properties></testcase>'));
    expect(spawnSync("xmllint", ["--noout", "--schema", xsd, bad], { encoding: "utf8" }).status).not.toBe(0);
  });

  it("counts every row; a row not answerable is a failure, never <skipped/>", () => {
    const counted = report.rows.length;
    expect(xpath("count(//testsuite)")).toBe(String(SECTIONS.filter((s) => report.rows.some((r) => r.section === s)).length));
    expect(xpath("count(//testcase)")).toBe(String(counted));
    expect(xpath("count(//skipped)")).toBe("0");
    expect(xpath("count(//testcase/failure)")).toBe(String(count("failed") + count("skipped")));
    expect(xpath("count(//testcase/error)")).toBe(String(count("errored")));
    expect(xpath("string(/testsuites/@failures)")).toBe(String(count("failed") + count("skipped")));
    expect(xpath("string(/testsuites/@errors)")).toBe(String(count("errored")));
    expect(xpath(`string(//testcase[@name="${fx.skipped}"]/failure/@type)`)).toBe("not answerable");
    // the score fails, and so does the test UI
    expect(Number(xpath("string(/testsuites/@failures)")) + Number(xpath("string(/testsuites/@errors)"))).toBe(notPassed().length);
  });

  it("keeps a trailing NUL visible: expected and actual read differently", () => {
    const text = xpath(`string(//testcase[@name="${fx.nul}"]/failure)`);
    const [, expected, actual] = /expected:\n {4}(.*)\n {2}actual:\n {4}(.*)/.exec(text.slice(text.indexOf("errors\n")))!;
    expect(actual).toBe(`${expected}\\u0000`);
    expect(xpath(`string(//testcase[@name="${fx.nul}"]/failure/@message)`)).toMatch(/^errors: expected \[".*"\]; actual \[".*\\u0000"\]$/);
  });

  it("keeps every ]]> intact (the CDATA section is split around each) and shows the nasty text visibly", () => {
    const text = xpath(`string(//testcase[@name="${fx.nasty}"]/failure)`);
    expect(text.split("]]>").length - 1).toBeGreaterThanOrEqual(4);
    expect(text).toContain("</script><b>bold</b>");
    expect(text).toContain("\\u0000");
    expect(text).toContain("\\u001b[2J");
    expect(text).not.toMatch(RAW_CONTROL);
    expect(cdata("a]]>b]]>c")).toBe("<![CDATA[a]]]]><![CDATA[>b]]]]><![CDATA[>c]]>");
  });

  it("reads sensibly: expected … ; actual …, then what reproduces the row and the rerun command", () => {
    const id = report.rows.find((r) => r.status === "failed" && r.id !== fx.nul && r.id !== fx.nasty && r.section === "TestValidateTable")!.id;
    const message = xpath(`string(//testcase[@name="${id}"]/failure/@message)`);
    expect(message).toMatch(/^[^:]+: expected .+; actual .+$/);
    expect(message).not.toMatch(/, got .*, got /);
    const text = xpath(`string(//testcase[@name="${id}"]/failure)`);
    expect(text).toMatch(/\n {2}expected:\n {4}.+\n {2}actual:\n {4}/);
    expect(text).toMatch(/\nwhy: .+\nschema: .+\narguments: .+\nrerun: tool-conformance score mutant:s06 --tier all --filter /);
    const error = xpath(`string(//testcase[@name="${fx.errored}"]/error)`);
    expect(error).toContain("subject stderr:");
    expect(error).toMatch(/steps:\n {4}a new registry/);
  });
});

describe("Gradescope", () => {
  const schema = JSON.parse(readFileSync(join(PACKAGE_ROOT, "test", "fixtures", "schemas", "gradescope-results.schema.json"), "utf8")) as object;
  const validate = new Ajv({ allErrors: true, strictRequired: false }).compile(schema);
  const cents = (x: number) => Math.round(x * 100);

  it("matches the JSON Schema of Gradescope's documented results.json, per section and per row", () => {
    for (const results of [renderGradescope(report, { visibility: "after_due_date", stdoutVisibility: "hidden" }), renderGradescope(report, { per: "row", points: 7 })]) {
      expect(validate(JSON.parse(JSON.stringify(results))), JSON.stringify(validate.errors)).toBe(true);
    }
  });

  it("the schema check can fail: a misspelt field or a wrong status is refused", () => {
    const results = JSON.parse(JSON.stringify(renderGradescope(report))) as { tests: Record<string, unknown>[] };
    results.tests[0]!.stauts = "passed";
    expect(validate(results)).toBe(false);
    delete results.tests[0]!.stauts;
    results.tests[0]!.status = "green";
    expect(validate(results)).toBe(false);
  });

  for (const per of ["section", "row"] as const) {
    for (const points of [100, 7, 33.33, 1]) {
      it(`adds up exactly (one test per ${per}, ${points} points): tests' scores to the score, max_scores to the points`, () => {
        const results = renderGradescope(report, { per, points });
        const t = report.summary.scores.total;
        expect(cents(results.score)).toBe(Math.floor((t.passed * cents(points)) / t.rows));
        expect(results.tests.reduce((sum, test) => sum + cents(test.score), 0)).toBe(cents(results.score));
        expect(results.tests.reduce((sum, test) => sum + cents(test.max_score), 0)).toBe(cents(points));
        for (const test of results.tests) {
          expect(test.score).toBeLessThanOrEqual(test.max_score);
          if (test.status === "passed") expect(test.score).toBe(test.max_score);
          // two decimals at most: what Gradescope shows is what adds up
          expect(cents(test.score) / 100).toBe(test.score);
          expect(cents(test.max_score) / 100).toBe(test.max_score);
        }
      });
    }
  }

  it("with 100 points, scores the very percent every other report shows", () => {
    const results = renderGradescope(report);
    expect(results.score).toBe(report.summary.scores.total.percent);
    expect(results.output).toContain(formatPercent(report.summary.scores.total.percent));
  });

  it("has a real execution_time, in seconds", () => {
    const slow = { ...report, summary: { ...report.summary, ms: 1234 } };
    expect(renderGradescope(slow).execution_time).toBe(1.23);
    expect(renderGradescope(report).execution_time).toBe(Math.round(report.summary.ms / 10) / 100);
  });

  it("shows a student what reproduces each failing row, with every character visible", () => {
    const results = renderGradescope(report);
    const validateTest = results.tests.find((t) => t.name === "TestValidateTable")!;
    expect(validateTest.status).toBe("failed");
    expect(validateTest.output).toMatch(/✗ \S+\n {2}why: .+\n {2}schema: .+\n {2}arguments: .+\n(.|\n)*\n {4}expected: .+\n {4}actual: {3}.+\n {2}rerun: tool-conformance score mutant:s06 --tier all --filter /);
    expect(validateTest.output).toContain("\\u0000");
    for (const test of results.tests) expect(test.output).not.toMatch(RAW_CONTROL);
    expect(results.output).toContain("your failures match s06");
  });

  it("apportions by largest remainders: the parts add up and a zero weight gets zero", () => {
    expect(apportion(700, [1, 1, 1])).toEqual([234, 233, 233]);
    expect(apportion(10, [0, 3, 0, 1])).toEqual([0, 8, 0, 2]);
    expect(apportion(5, [0, 0])).toEqual([0, 0]);
  });
});

describe("one number for one run", () => {
  it("percent: passed/rows rounded down to two decimals, in whole-number arithmetic, shown as is", () => {
    expect(percentOf(29, 100)).toBe(29); // (29 / 100) * 10000 is 2899.9999999999995 in floating point
    expect(percentOf(57, 100)).toBe(57);
    expect(percentOf(436, 442)).toBe(98.64);
    expect(percentOf(441, 442)).toBe(99.77);
    expect(formatPercent(98.38)).toBe("98.38%");
    expect(formatPercent(100)).toBe("100%");
    const p = report.summary.scores.total.percent;
    for (const text of [renderTerminal(report, { paint: paintFor({ isTTY: false }) }), renderMarkdown(report), renderHtml(report)]) expect(text).toContain(`${p}%`);
  });
});

describe("HTML", () => {
  it("is one self-contained file: no external script, style, image, font or link", () => {
    const html = renderHtml(report);
    expect(html.startsWith("<!doctype html>")).toBe(true);
    expect(html).not.toMatch(/<(script|img|iframe|link)[^>]+(src|href)=/i);
    expect(html).not.toMatch(/@import|url\(/i);
    expect(html).not.toMatch(/https?:\/\//);
    expect(html.match(/<script/g)!.length).toBe(1);
  });

  it("escapes every text and shows invisible characters visibly", () => {
    const html = renderHtml(report);
    expect(html).not.toContain("<b>bold</b>");
    expect(html).not.toContain("<!-- end");
    expect(html).toContain("&lt;/script&gt;&lt;b&gt;bold&lt;/b&gt;");
    expect(html).toContain("\\u0000");
    expect(html).not.toMatch(RAW_CONTROL);
  });

  it("lists the ids of the rows not passed per section, each detailed without JavaScript: why, texts, expected and actual, rerun", () => {
    const html = renderHtml(report);
    for (const section of SECTIONS) {
      const bad = report.rows.filter((r) => r.section === section && r.status !== "passed");
      const block = html.slice(html.indexOf(`<section class="sec" id="${section}">`));
      if (bad.length === 0) continue;
      expect(block).toContain(`not passed (${bad.length}):`);
      for (const row of bad) expect(block).toContain(`<code>${row.id}</code></a>`);
    }
    expect(html.match(/<details id="row-\d+" class="row (failed|errored|skipped)">/g)!.length).toBe(notPassed().length);
    const detail = html.slice(html.indexOf(`<code>${fx.nul}</code> <span`));
    expect(detail).toMatch(/^[^]*?<p class="why">[^<]+<\/p><h4>schema<\/h4><pre>[^<]+<\/pre><h4>arguments<\/h4><pre>[^<]*<\/pre>[^]*?<pre class="exp">[^<]+<\/pre>[^]*?<pre class="act">[^<]+\\u0000<\/pre>[^]*?<h4>rerun just this row<\/h4><pre class="cmd">tool-conformance score mutant:s06 --tier all --filter /);
  });

  it("colours scores by threshold, as Stryker's high and low: 61% is not the colour of 99%", () => {
    expect([band(100), band(99), band(80), band(79.99), band(61), band(60), band(59.99), band(0)]).toEqual(["all", "high", "high", "mid", "mid", "mid", "low", "low"]);
    const html = renderHtml(report);
    const t = report.summary.scores.total;
    expect(html).toContain(`<span class="score band-${band(t.percent, t.rows - t.passed)}">`);
  });

  it("follows the failing count: a run with rows not passed is never coloured like one where every row passed, even rounded to 100%", () => {
    expect(band(100, 1)).toBe("high");
    expect(band(100, 0)).toBe("all");
    // 1 failing row of 30,000 is 100% at two decimals: still not the all-passed colour
    const t = report.summary.scores.total;
    const rounded = { ...report, summary: { ...report.summary, scores: { ...report.summary.scores, total: { ...t, percent: 100 } } } };
    expect(t.rows - t.passed).toBeGreaterThan(0);
    expect(renderHtml(rounded)).toContain('<span class="score band-high">');
    // and the colour of "high" is not a green
    expect(renderHtml(report)).toMatch(/--high:#9a6700;/);
  });

  it("names what differs in words on a failing row's summary line", () => {
    expect(differenceInWords({ prefixed: true, consistent: true }, { prefixed: true, consistent: false })).toBe("consistent is false where true is expected");
    expect(differenceInWords({ prefixed: true, consistent: true }, {})).toBe("prefixed is missing (true expected); consistent is missing (true expected)");
    expect(differenceInWords(["$.a"], [])).toBe('0 items where 1 is expected ((none) against ["$.a"])');
    expect(differenceInWords("valid", "invalid")).toBe('answered "invalid" where "valid" is expected');
    const html = renderHtml(report);
    const failed = report.rows.find((r) => r.status === "failed" && r.checks.some((c) => !c.pass && typeof c.expected === "string"))!;
    const line = html.slice(html.indexOf(`<code>${failed.id}</code> <span class="st failed">`)).split("</summary>")[0]!;
    expect(line).toMatch(/(answered|where|missing|items)/);
    expect(line).not.toMatch(/: expected .*; actual /);
  });

  it("stays under its size cap, listing every id and saying what was not detailed", () => {
    const big = { ...report, rows: report.rows.map((r) => (r.status === "failed" ? { ...r, checks: r.checks.map((c) => (c.pass ? c : { ...c, actual: ["x".repeat(9_000)] })) } : r)) };
    const html = renderHtml(big, { maxBytes: 300_000, reportFile: "reports/report.jsonl" });
    expect(Buffer.byteLength(html)).toBeLessThanOrEqual(300_000);
    expect(html).toMatch(/<p class="note">\d+ of the \d+ rows not passed are listed by id but not detailed: this page is capped at 300,000 bytes; every row is in reports\/report\.jsonl\.<\/p>/);
    for (const row of notPassed()) expect(html).toContain(`<code>${row.id}</code></a>`);
    expect(html).toContain("more characters)");
  });
});

describe("Markdown", () => {
  it("has the section table, the diagnosis and the failing rows, with every fence closed", () => {
    const md = renderMarkdown(report);
    expect(md).toMatch(/^## .* tool-conformance: `mutant:s06/);
    expect(md).toContain("| section | core | catalog | hardening | rows | rows passed |");
    expect(md).toContain("### Diagnosis");
    expect(md).toContain("**s06** (pitfall 5, required not enforced)");
    expect(md).toContain(`### Failing rows (${notPassed().length})`);
    // outside code blocks and code spans (where nothing renders), no raw HTML from a text
    expect(md.replace(/^(`{3,})\w*\n[\s\S]*?\n\1$/gm, "").replace(/(`+)(?!`)[\s\S]*?(?<!`)\1(?!`)/g, "")).not.toContain("<b>bold</b>");
    const fences = md.split("\n").filter((line) => /^`{3,}\w*$/.test(line));
    expect(fences.length % 2).toBe(0);
    // the table rows have the header's number of cells (no pipe leaked from a text)
    for (const line of md.split("\n").filter((l) => l.startsWith("| `"))) expect(line.split(/(?<!\\)\|/).length).toBe(7);
  });

  it("shows NULs and escape sequences visibly, never raw", () => {
    const md = renderMarkdown(report);
    expect(md).toContain("\\u0000");
    expect(md).not.toMatch(RAW_CONTROL);
  });

  it("details each failing row: why, schema and arguments, expected and actual, the rerun command", () => {
    const md = renderMarkdown(report);
    const block = md.slice(md.indexOf(`<details><summary><code>${fx.nul}</code>`));
    expect(block).toMatch(/^<details><summary><code>\S+<\/code>: failed<\/summary>\n\n_.+_\n\nschema:\n```+\n.+\n```+\n\narguments:\n```+\n.+\n```+\n\n[^]*?expected:\n```+\n.+\n```+\n\nactual:\n```+\n.+\\u0000\n```+\n\n[^]*?rerun just this row:\n```+sh\ntool-conformance score mutant:s06 --tier all --filter \S+\n```+\n/);
  });

  it("names report.jsonl only when the run wrote one", () => {
    const many = renderMarkdown(report, { maxFailures: 3 });
    expect(many).not.toContain("report.jsonl");
    expect(many).toMatch(/\| … \| \| \| \| \d+ more rows; write them all with --reporter json, junit or html \|/);
    expect(renderMarkdown(report, { maxFailures: 3, reportFile: "reports/report.jsonl" })).toMatch(/\d+ more rows in `reports\/report\.jsonl`/);
  });

  it("stays under 1 MiB with a note of what was cut, however large the answers (a 10 KB instance quoted in every message)", () => {
    const huge = "x".repeat(10_000);
    const big = { ...report, rows: report.rows.map((r) => (r.status === "failed" ? { ...r, repro: { ...r.repro!, instance: huge, schema: huge }, checks: r.checks.map((c) => (c.pass ? c : { ...c, expected: [`$: ${huge}`], actual: [`$: ${huge}!`] })) } : r)) };
    const md = renderMarkdown(big, { maxFailures: 1000, maxText: 100_000 });
    expect(Buffer.byteLength(md)).toBeLessThan(1024 * 1024);
    expect(Buffer.byteLength(md)).toBeLessThanOrEqual(1_000_000);
    expect(md).toMatch(/_\d+ of the \d+ failing rows listed above are not detailed here: this summary is capped at 1,000,000 bytes/);
    const small = renderMarkdown(big, { maxBytes: 50_000 });
    expect(Buffer.byteLength(small)).toBeLessThanOrEqual(50_000);
    expect(small).toContain("more characters)");
  });
});

describe("terminal", () => {
  const plain = () => renderTerminal(report, { paint: paintFor({ isTTY: false }) });

  it("has no color when the stream is not a terminal or NO_COLOR is set", () => {
    expect(paintFor({ isTTY: false }, {})("red", "x")).toBe("x");
    expect(paintFor({ isTTY: true }, { NO_COLOR: "1" })("red", "x")).toBe("x");
    expect(paintFor({ isTTY: true }, {})("red", "x")).not.toBe("x");
    const text = plain();
    expect(text).not.toContain("\u001b[");
    expect(text).toContain("failing rows");
    expect(text).toContain("→ your failures match s06 (pitfall 5, required not enforced)");
    expect(text).toMatch(/score \d+(\.\d\d?)?% \(\d+ passed, \d+ failed, 1 errored, 1 not answerable of \d+ rows/);
  });

  it("neutralises hostile text: no escape sequence, control character or workflow command reaches the screen or the CI log", () => {
    // the subject's name and handshake are its own words too
    const hostile = { ...report, header: { ...report.header, subject: { ...report.header.subject, label: `evil\u001b]0;title\u0007`, implementation: { name: "::error::pwned", language: "\u001b[2J" } } } };
    for (const text of [renderTerminal(hostile, { paint: paintFor({ isTTY: false }), maxFailures: 1000 }), renderTerminal(hostile, { paint: paintFor({ isTTY: true }, {}), maxFailures: 1000 })]) {
      // colours are ours: the only escape sequences are SGR ones
      const withoutColours = text.replace(/\u001b\[[0-9;]*m/g, "");
      expect(withoutColours).not.toMatch(RAW_CONTROL);
      expect(withoutColours).not.toMatch(/\u0007|\u009b|\r/);
      for (const line of withoutColours.split("\n")) {
        expect(line).not.toMatch(/^\s*::/);
        expect(line).not.toContain("##[");
      }
      expect(withoutColours).toContain("\\u001b[2J\\u001b]0;pwned\\u0007");
      expect(withoutColours).toContain("\\u003a:error title=x::fake");
      expect(withoutColours).toContain("evil\\u001b]0;title\\u0007");
    }
  });

  it("shows what reproduces each failing row and the command that reruns it", () => {
    const text = plain();
    expect(text).toMatch(new RegExp(`✗ ${fx.nul.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")} \\[[^\\]]+\\]\\n {6}why {7}.+\\n {6}schema {4}.+\\n {6}arguments .+\\n {6}errors\\n {8}expected .+\\n {8}actual {3}.+\\\\u0000\\n {6}rerun {5}tool-conformance score mutant:s06 --tier all --filter `));
    expect(text).toMatch(/ {6}steps {5}a new registry/);
  });

  it("names the files that hold the rest of the failing rows", () => {
    const text = renderTerminal(report, { paint: paintFor({ isTTY: false }), maxFailures: 2, files: ["out/report.jsonl", "out/report.html"] });
    expect(text).toMatch(/… and \d+ more \(all of them in out\/report\.jsonl, out\/report\.html\)/);
  });
});

describe("GitHub Actions", () => {
  /** The runner's reading of a command line (actions/runner ActionCommand.TryParseV2, its unescaping). */
  function parseCommand(line: string): { command: string; properties: Record<string, string>; data: string } | undefined {
    const trimmed = line.trimStart();
    if (!trimmed.startsWith("::")) return undefined;
    const end = trimmed.indexOf("::", 2);
    if (end < 0) return undefined;
    const info = trimmed.slice(2, end);
    const space = info.indexOf(" ");
    const unescape = (s: string, property: boolean) => {
      let out = s.replaceAll("%0D", "\r").replaceAll("%0A", "\n");
      if (property) out = out.replaceAll("%3A", ":").replaceAll("%2C", ",");
      return out.replaceAll("%25", "%");
    };
    const properties: Record<string, string> = {};
    if (space > 0) {
      for (const pair of info.slice(space + 1).split(",")) {
        const eq = pair.indexOf("=");
        properties[pair.slice(0, eq)] = unescape(pair.slice(eq + 1), true);
      }
    }
    return { command: space > 0 ? info.slice(0, space) : info, properties, data: unescape(trimmed.slice(end + 2), false) };
  }

  it("escapes as the runner unescapes: %, CR and LF in messages; : and , too in properties", () => {
    expect(escapeData("50% done\r\nnext")).toBe("50%25 done%0D%0Anext");
    expect(escapeProperty("a:b,c%d\n")).toBe("a%3Ab%2Cc%25d%0A");
    const line = `::error title=${escapeProperty("t: a, b %0A")}::${escapeData("m %25\n::x")}`;
    expect(parseCommand(line)).toEqual({ command: "error", properties: { title: "t: a, b %0A" }, data: "m %25\n::x" });
  });

  it("one ::error per row not passed, carrying why, the texts, expected and actual, the rerun command; every line a command", () => {
    const few = { ...report, rows: report.rows.filter((r) => r.status === "passed" || [fx.nul, fx.nasty, fx.errored, fx.skipped].includes(r.id)) };
    const out = renderGithubActions(few);
    const lines = out.trimEnd().split("\n");
    const commands = lines.map(parseCommand);
    expect(commands.every((c) => c !== undefined)).toBe(true);
    const errors = commands.filter((c) => c!.command === "error");
    expect(errors.map((c) => c!.properties.title)).toEqual([fx.errored, fx.skipped, fx.nul, fx.nasty].sort((a, b) => few.rows.findIndex((r) => r.id === a) - few.rows.findIndex((r) => r.id === b)).map((id) => `tool-conformance: ${id}`));
    const nul = errors.find((c) => c!.properties.title === `tool-conformance: ${fx.nul}`)!;
    expect(nul.data).toMatch(/^errors: expected .+; actual .+\nwhy: .+\nschema: .+\narguments: .+\nerrors\n {2}expected: .+\n {2}actual: {3}.+\\u0000\nrerun: tool-conformance score mutant:s06 --tier all --filter /);
    const nasty = errors.find((c) => c!.properties.title === `tool-conformance: ${fx.nasty}`)!;
    expect(nasty.data).not.toMatch(RAW_CONTROL);
    expect(nasty.data).toContain("%0A %25"); // the subject's own text, as it wrote it
    expect(commands.at(-1)).toMatchObject({ command: "notice", properties: { title: `tool-conformance: ${formatPercent(few.summary.scores.total.percent)}` } });
  });

  it("past the cap, one ::error per section listing its rows", () => {
    const out = renderGithubActions(report, { maxAnnotations: 10 });
    expect(notPassed().length).toBeGreaterThan(10);
    const errors = out.trimEnd().split("\n").map(parseCommand).filter((c) => c?.command === "error");
    const sections = SECTIONS.filter((s) => notPassed().some((r) => r.section === s));
    expect(errors.map((c) => c!.properties.title)).toEqual(sections.map((s) => `tool-conformance: ${s}: ${notPassed().filter((r) => r.section === s).length} row${notPassed().filter((r) => r.section === s).length === 1 ? "" : "s"} did not pass`));
    for (const error of errors) expect(error!.data).toContain("rerun: tool-conformance score");
  });

  it("a regression against --baseline: one ::error first, the gate's reasons and each row with why; a score below --min-score alone adds none", () => {
    const regressed = [fx.nul, fx.errored];
    const gate = { reasons: ["score 90% is below --min-score 100%", "2 rows passed in the baseline last/report.jsonl and fail now"], regressed };
    const commands = renderGithubActions(report, { gate }).trimEnd().split("\n").map(parseCommand);
    expect(commands[0]).toMatchObject({ command: "error", properties: { title: "tool-conformance: the gate failed" } });
    const data = commands[0]!.data.split("\n");
    expect(data.slice(0, 4)).toEqual([...gate.reasons, "", "passed in the baseline, not now:"]);
    expect(data[4]).toMatch(new RegExp(`^✗ ${fx.nul.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: errors: expected `));
    expect(data[5]).toMatch(/: errored: /);
    expect(commands.filter((c) => c!.properties.title === "tool-conformance: the gate failed")).toHaveLength(1);
    const scoreOnly = renderGithubActions(report, { gate: { reasons: [gate.reasons[0]!], regressed: [] } });
    expect(scoreOnly).toBe(renderGithubActions(report));
  });

  it("appends the Markdown summary to $GITHUB_STEP_SUMMARY when set", () => {
    const file = join(mkdtempSync(join(tmpdir(), "tc-gha-")), "summary.md");
    writeFileSync(file, "before\n");
    expect(writeStepSummary(report, { GITHUB_STEP_SUMMARY: file })).toBe(file);
    const text = readFileSync(file, "utf8");
    expect(text.startsWith("before\n## ")).toBe(true);
    expect(text).toContain("### Diagnosis");
    expect(writeStepSummary(report, {})).toBeUndefined();
  });
});

describe("the fixture", () => {
  it("holds what the tests above rely on", () => {
    expect(count("errored")).toBe(1);
    expect(count("skipped")).toBe(1);
    expect(report.rows.find((r) => r.id === fx.nasty)!.repro!.why).toContain(NASTY);
    expect(report.rows.find((r) => r.id === fx.nul)!.repro!.rerun).toBe(`${RERUN} --filter ${fx.nul}`);
    expect(report.rows.filter((r) => r.status === "passed").every((r) => r.repro === undefined)).toBe(true);
  });
});

describe("a run that stopped before any answer", () => {
  const stopped = () =>
    buildStoppedReport({
      profile: "ag02",
      level: "messages",
      tiers: ["core"],
      filters: {},
      corpusRows: 500,
      label: "python3 adapter.py",
      rows: loadCorpus().filter((r) => r.section === "TestHandWorkedExample" || r.section === "TestRegisterRules"),
      startedAt: new Date().toISOString(),
      ms: 80,
      stopped: { cause: 'could not start "python3 adapter.py": the process exited with code 1', stderr: "Traceback (most recent call last):\nModuleNotFoundError: No module named 'toolreg'\u0000\n::error::x\n" },
      rerun: "tool-conformance score --subject 'python3 adapter.py' --tier core",
    });
  const STDERR = "ModuleNotFoundError: No module named 'toolreg'\\u0000";

  it("every reporter says the cause and the end of stderr once, visibly, and scores 0", () => {
    const report = stopped();
    const terminal = renderTerminal(report, { paint: paintFor({ isTTY: false }) });
    expect(terminal).toContain("the run stopped: could not start");
    expect(terminal).toContain(STDERR);
    expect(terminal).toContain("\\u003a:error::x");
    expect(terminal.match(/could not start/g)!.length).toBe(2); // the cause, and the count of rows it errored
    const md = renderMarkdown(report);
    expect(md).toContain("> **The run stopped:** `could not start");
    expect(md).toContain(STDERR);
    expect(md).toMatch(/Every row \(\d+\) errored: the run stopped before the subject answered any/);
    const html = renderHtml(report);
    expect(html).toContain('<section class="stopped"><h2>The run stopped</h2>');
    expect(html).toContain(STDERR.replace("'", "&#39;").replace("'", "&#39;"));
    const results = renderGradescope(report);
    expect(results.score).toBe(0);
    expect(results.output).toContain("The run stopped: could not start");
    expect(results.output).toContain(STDERR);
    expect(results.tests.every((t) => t.score === 0 && t.status === "failed")).toBe(true);
    const annotations = renderGithubActions(report).trimEnd().split("\n");
    expect(annotations.length).toBe(2);
    expect(annotations[0]).toBe(
      `::error title=tool-conformance%3A python3 adapter.py could not be scored::could not start "python3 adapter.py": the process exited with code 1%0A%0Athe end of the subject's stderr:%0ATraceback (most recent call last):%0A${STDERR}%0A::error::x`, // one line: inside a message, "::" is text
    );
    expect(annotations[1]).toMatch(/^::notice title=tool-conformance%3A 0%25::/);
  });

  it("its JUnit is valid against junit-10.xsd, every row an <error>, the stderr in <system-err>", () => {
    const file = join(mkdtempSync(join(tmpdir(), "tc-junit-stopped-")), "junit.xml");
    writeFileSync(file, renderJUnit(stopped()));
    const result = spawnSync("xmllint", ["--noout", "--schema", join(PACKAGE_ROOT, "test", "fixtures", "schemas", "junit-10.xsd"), file], { encoding: "utf8" });
    expect(result.status, result.stderr).toBe(0);
    const xml = readFileSync(file, "utf8");
    expect(xml.match(/<error type="errored"/g)!.length).toBe(stopped().summary.scores.total.rows);
    expect(xml).toContain(`<system-err><![CDATA[the run stopped: could not start`);
  });
});

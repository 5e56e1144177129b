import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { loadCorpus, PACKAGE_ROOT } from "../../src/corpus/load.js";
import { readReport } from "../../src/report/read-report.js";
import { type Report } from "../../src/report/report.js";
import { compile } from "../../src/schema/compile.js";
import { parseJSON } from "../../src/json/parse.js";
import { score } from "../../src/judge/scoring.js";
import type { RowResult } from "../../src/run/outcome.js";
import { cli, oneLineError } from "../helpers/cli-helpers.js";

// score --corpus DIR: a grader's own rows, in the corpus's format, checked file by file by
// row.schema.json, scored as their own part ("private") beside the shipped corpus, in every
// report and in merge's class table. The fixture's three rows: the reference passes them all;
// mutant s03 (string length in UTF-16 units) fails the two about emoji.

const FIXTURE = join("test", "fixtures", "private-corpus");
const PRIVATE_IDS = ["validate/private/maxlength-two-emoji", "validate/private/minlength-one-emoji", "validate/private/required-missing"];
const fresh = () => mkdtempSync(join(tmpdir(), "tc-private-"));


const ALL = ["--reporter", "terminal,json,junit,gradescope,markdown,html"];
let reference: { out: string; stdout: string; report: Report };
let s03: { out: string; stdout: string; report: Report };

beforeAll(() => {
  const run = (subject: string, ...extra: string[]) => {
    const out = fresh();
    const { code, stdout, stderr } = cli("score", subject, "--corpus", FIXTURE, ...ALL, "--out", out, "--label", subject, ...extra);
    expect(code, stderr).toBe(subject === "reference" ? 0 : 1);
    return { out, stdout, report: readReport(join(out, "report.jsonl")) };
  };
  reference = run("reference");
  s03 = run("mutant:s03", "--no-diagnosis");
}, 120_000);

describe("score --corpus DIR", () => {
  it("adds the grader's rows, marked part private, each with its source file", () => {
    const rows = reference.report.rows.filter((row) => row.part === "private");
    expect(rows.map((row) => row.id).sort()).toEqual(PRIVATE_IDS);
    // the shipped corpus's rows carry no part: their lines read as before
    expect(reference.report.rows.filter((row) => row.part === undefined).length).toBe(reference.report.rows.length - 3);
    expect(reference.report.header.corpus.rows).toBe(loadCorpus().filter((r) => !r.profiles || r.profiles.includes("ag02")).length + 3);
  });

  it("scores them as their own part beside the corpus: the reference passes all three, s03 fails the two about emoji", () => {
    const corpusRows = reference.report.rows.length - 3;
    expect(reference.report.summary.scores.byPart).toEqual({
      corpus: { rows: corpusRows, passed: corpusRows, failed: 0, errored: 0, skipped: 0, percent: 100 },
      private: { rows: 3, passed: 3, failed: 0, errored: 0, skipped: 0, percent: 100 },
    });
    expect(s03.report.summary.scores.byPart.private).toEqual({ rows: 3, passed: 1, failed: 2, errored: 0, skipped: 0, percent: 33.33 });
    const failing = s03.report.rows.filter((row) => row.status !== "passed").map((row) => row.id);
    expect(failing).toEqual(expect.arrayContaining(["validate/private/maxlength-two-emoji", "validate/private/minlength-one-emoji"]));
    const corpus = s03.report.summary.scores.byPart.corpus!;
    expect(corpus.passed + 1).toBe(s03.report.summary.scores.total.passed);
    expect(corpus.rows + 3).toBe(s03.report.summary.scores.total.rows);
    // a failing private row carries no rerun line (it would name the grader's private folder, which a student cannot run);
    // its schema and arguments reproduce it, and a corpus row's rerun names no --corpus
    const privateRow = s03.report.rows.find((row) => row.id === "validate/private/maxlength-two-emoji")!;
    expect(privateRow.repro!.rerun).toBeUndefined();
    expect(privateRow.repro!.schema).toBeDefined();
    const corpusRow = s03.report.rows.find((row) => row.part === undefined && row.repro?.rerun !== undefined)!;
    expect(corpusRow.repro!.rerun).toBe(`tool-conformance score mutant:s03 --tier core --filter ${corpusRow.id}`);
    expect(JSON.stringify(s03.report)).not.toContain(FIXTURE);
  });

  it("shows the part's tally in the terminal, Markdown, HTML, JUnit and Gradescope reports", () => {
    const corpus = s03.report.summary.scores.byPart.corpus!;
    const line = `by part: corpus ${corpus.percent}% (${corpus.passed}/${corpus.rows}) · private 33.33% (1/3)`;
    expect(s03.stdout).toContain(`  ${line}\n`);
    const md = readFileSync(join(s03.out, "summary.md"), "utf8");
    expect(md).toContain(`| part | corpus | private |\n| --- | ---: | ---: |\n| rows | ${corpus.passed}/${corpus.rows} | 1/3 |\n| rows passed | ${corpus.percent}% | 33.33% |\n`);
    expect(readFileSync(join(s03.out, "report.html"), "utf8")).toContain(`<tr><th>private</th><td class="band-low">1/3</td><td class="band-low">33.33%</td></tr>`);
    const junit = readFileSync(join(s03.out, "junit.xml"), "utf8");
    expect(junit).toContain(`<property name="part private" value="33.33% (1/3 rows)"/>`);
    const xmllint = spawnSync("xmllint", ["--noout", "--schema", join(PACKAGE_ROOT, "test", "fixtures", "schemas", "junit-10.xsd"), join(s03.out, "junit.xml")], { encoding: "utf8" });
    expect(xmllint.status, xmllint.stderr).toBe(0);
    const gradescope = JSON.parse(readFileSync(join(s03.out, "results.json"), "utf8")) as { output: string; extra_data: { parts?: Record<string, number> } };
    expect(gradescope.output).toContain(line);
    expect(gradescope.extra_data.parts).toEqual({ corpus: corpus.percent, private: 33.33 });
    // a plain corpus run shows no part at all
    const plain = cli("score", "reference", "--filter", "validate/type/*");
    expect(plain.code).toBe(0);
    expect(plain.stdout).not.toContain("by part");
  });

  it("every line of such a report, and of a signed one, is valid against conformance/report.schema.json", () => {
    const schema = compile(readFileSync(join(PACKAGE_ROOT, "conformance", "report.schema.json"), "utf8"));
    const out = fresh();
    writeFileSync(join(out, "k"), "a-key-of-at-least-16-bytes");
    expect(cli("score", "mutant:s03", "--corpus", FIXTURE, "--no-diagnosis", "--reporter", "json", "--out", out, "--key", join(out, "k")).code).toBe(1);
    const lines = readFileSync(join(out, "report.jsonl"), "utf8").trimEnd().split("\n");
    expect(lines.at(-1)).toMatch(/^\{"kind":"signature"/);
    for (const line of lines) expect(schema.validate(parseJSON(line)).map(String), line.slice(0, 100)).toEqual([]);
    const marker = '{"kind":"started","format":"tool-conformance-report","startedAt":"2026-01-01T00:00:00.000Z","note":"n"}';
    expect(schema.validate(parseJSON(marker))).toEqual([]);
    // and the schema can fail: an unknown part
    const row = lines.find((l) => l.includes('"part":"private"'))!;
    expect(schema.validate(parseJSON(row.replace('"part":"private"', '"part":"secret"'))).length).toBeGreaterThan(0);
  });

  it("merge's class table gets a column per part", () => {
    const out = fresh();
    const { code, stdout } = cli("merge", join(reference.out, "report.jsonl"), join(s03.out, "report.jsonl"), "--out", out);
    expect(code).toBe(0);
    const [head, ref, mutant] = readFileSync(join(out, "class.csv"), "utf8").trimEnd().split("\r\n");
    expect(head).toMatch(/,TestCallNeverPanics,part:corpus,part:private,total,passed,rows,errored,status,diagnosis,report$/);
    expect(ref).toMatch(/^reference,(100,){6}100,100,100,/);
    expect(mutant).toMatch(/^mutant:s03,.*,33\.33,[\d.]+,\d+,\d+,0,ok,no diagnosis,/);
    expect(stdout).toContain("| part corpus | part private | total |");
  });
});

describe("score --corpus DIR refuses rows it cannot use (exit 2, one line naming the file)", () => {
  const row = (extra: Record<string, unknown> = {}) => ({
    id: "validate/private/x",
    section: "TestValidateTable",
    kind: "validate",
    rule: "type/integer",
    tier: "core",
    pitfalls: [],
    why: "a test row",
    schema: { type: "integer" },
    instance: "3",
    expect: { errors: [] },
    ...extra,
  });
  const folder = (files: Record<string, string>) => {
    const dir = fresh();
    for (const [name, text] of Object.entries(files)) {
      mkdirSync(join(dir, name, ".."), { recursive: true });
      writeFileSync(join(dir, name), text);
    }
    return dir;
  };
  const cases: [string, () => string, (dir: string) => string][] = [
    ["a row missing a required field", () => folder({ "ok.json": JSON.stringify([row()]), "sub/bad.json": JSON.stringify([row({ id: "validate/private/y", why: undefined })]) }), (dir) => `tool-conformance: ${join(dir, "sub/bad.json")}: row 1 (validate/private/y): `],
    ["a file that is not JSON", () => folder({ "broken.json": '[{"id": ' }), (dir) => `tool-conformance: ${join(dir, "broken.json")}: `],
    ["a file that is not an array", () => folder({ "one.json": JSON.stringify(row()) }), (dir) => `tool-conformance: ${join(dir, "one.json")}: a corpus file must be a JSON array of rows`],
    ["a field the format does not have (a row cannot choose its part)", () => folder({ "p.json": JSON.stringify([row({ part: "corpus" })]) }), (dir) => `tool-conformance: ${join(dir, "p.json")}: row 1 (validate/private/x): `],
    ["an id of the shipped corpus", () => folder({ "clash.json": JSON.stringify([row({ id: "validate/type/integer-3.0", instance: "3.0" })]) }), (dir) => `tool-conformance: ${join(dir, "clash.json")}: row id "validate/type/integer-3.0" is already a corpus row (`],
    ["the same id twice", () => folder({ "a.json": JSON.stringify([row()]), "b.json": JSON.stringify([row()]) }), (dir) => `tool-conformance: ${join(dir, "b.json")}: row id "validate/private/x" is also used in ${join(dir, "a.json")}`],
    ["a folder with no row file", () => folder({ "notes.txt": "" }), (dir) => `tool-conformance: no corpus files (*.json) under ${dir}`],
    ["no such folder", () => join(fresh(), "nope"), (dir) => `tool-conformance: cannot read the corpus folder ${dir}`],
  ];
  for (const [what, make, start] of cases) {
    it(what, () => {
      const dir = make();
      const out = fresh();
      const { code, stdout, stderr } = cli("score", "reference", "--corpus", dir, "--reporter", "json", "--out", out);
      expect(code, stderr).toBe(2);
      const line = oneLineError(stderr);
      expect(line.startsWith(start(dir)), `${line}\n  should start with\n${start(dir)}`).toBe(true);
      expect(stdout).toBe("");
    });
  }

  it("names what is wrong with a malformed row", () => {
    const dir = folder({ "bad.json": JSON.stringify([row({ tier: "gold" })]) });
    const { stderr } = cli("score", "reference", "--corpus", dir);
    expect(oneLineError(stderr)).toMatch(/bad\.json: row 1 \(validate\/private\/x\): .*tier/);
  });
});

describe("scores by part", () => {
  it("tally each part apart, in the order corpus, private, fresh; only parts with rows", () => {
    const base = { section: "TestValidateTable" as const, tier: "core" as const, rule: "r", pitfalls: [] as string[], ms: 0 };
    const check = (pass: boolean) => ({ level: "verdict" as const, tier: "core" as const, what: "verdict", expected: "valid", actual: pass ? "valid" : "invalid", pass });
    const results: RowResult[] = [
      { ...base, id: "validate/f", part: "fresh", status: "failed", checks: [check(false)] },
      { ...base, id: "validate/a", status: "passed", checks: [check(true)] },
      { ...base, id: "validate/p", part: "private", status: "passed", checks: [check(true)] },
      { ...base, id: "validate/q", part: "private", status: "errored", checks: [] },
    ];
    const scores = score(results, { level: "messages", tiers: ["core"] });
    expect(Object.keys(scores.byPart)).toEqual(["corpus", "private", "fresh"]);
    expect(scores.byPart).toMatchObject({ corpus: { rows: 1, passed: 1 }, private: { rows: 2, passed: 1, errored: 1, percent: 50 }, fresh: { rows: 1, passed: 0, failed: 1, percent: 0 } });
    expect(score(results.slice(1, 2), { level: "messages", tiers: ["core"] }).byPart).toEqual({ corpus: { rows: 1, passed: 1, failed: 0, errored: 0, skipped: 0, percent: 100 } });
  });
});

describe("score --corpus DIR: rows the reference fails", () => {
  const wrongRow = {
    id: "validate/private/float-is-integer",
    section: "TestValidateTable",
    kind: "validate",
    rule: "type/integer",
    tier: "core",
    pitfalls: [],
    why: "a grader's mistaken row: 3.5 is an integer",
    schema: { type: "integer" },
    instance: "3.5",
    expect: { errors: [] },
  };
  const folder = () => {
    const dir = fresh();
    writeFileSync(join(dir, "rows.json"), JSON.stringify([wrongRow]));
    return dir;
  };

  it("are named, one line each with the reference's answer, and the run stops before any subject is scored (exit 2)", () => {
    const dir = folder();
    const out = fresh();
    const { code, stdout, stderr } = cli("score", "reference", "--corpus", dir, "--reporter", "json", "--out", out, "--no-progress");
    expect(code, stderr).toBe(2);
    expect(stdout).toBe("");
    const rowLines = stderr.split("\n").filter((line) => line.startsWith("  "));
    expect(rowLines).toEqual([
      `  ✗ --corpus row validate/private/float-is-integer (${join(dir, "rows.json")}): the reference fails it: verdict: the row expects "valid", the reference answers "invalid"; error paths in order: the row expects [], the reference answers ["$"]; errors: the row expects [], the reference answers ["$: expected integer, got number"]`,
    ]);
    expect(oneLineError(stderr)).toBe(`tool-conformance: 1 of 1 --corpus row under ${dir} disagrees with the reference (listed above): fix it, or give --trust-private if it encodes a choice of your own`);
    expect(readdirSync(out)).toEqual([]);
  });

  it("with --trust-private: the same lines as notes, then scored as written (the reference's own score shows the row failing)", () => {
    const dir = folder();
    const out = fresh();
    const { code, stderr } = cli("score", "reference", "--corpus", dir, "--trust-private", "--reporter", "json", "--out", out, "--no-progress", "--min-score", "0");
    expect(code, stderr).toBe(0);
    expect(stderr).toContain("  ! --corpus row validate/private/float-is-integer");
    expect(stderr).toContain("tool-conformance: 1 of 1 --corpus row the reference fails: scored as written (--trust-private)");
    expect(readReport(join(out, "report.jsonl")).summary.scores.byPart.private).toMatchObject({ rows: 1, passed: 0, failed: 1 });
  });
});

import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { loadCorpus } from "../../src/corpus/load.js";
import { diagnose } from "../../src/judge/diagnosis.js";
import { evidenceOf } from "../../src/judge/symptom.js";
import { buildReport, buildStoppedReport } from "../../src/report/build-report.js";
import { flagsOf, REPORT_FORMAT, ReportError, type Report } from "../../src/report/report.js";
import { formatReport, writeReport } from "../../src/report/format-report.js";
import { parseReport, readReport } from "../../src/report/read-report.js";
import { REPRO_MAX_CHARS, reproductionOf } from "../../src/report/reproduction.js";
import { writeFileAtomic } from "../../src/report/directory.js";
import { inProcessSubject } from "../../src/subjects/in-process.js";
import { instanceTextOf, schemaTextOf, TIERS } from "../../src/corpus/rows.js";
import { runRows } from "../../src/run/runner.js";
import { failingIds, score } from "../../src/judge/scoring.js";
import { loadCatalog } from "../../src/mutants/catalog.js";
import { loadMutant } from "../../src/mutants/load.js";

const options = { level: "messages" as const, tiers: [...TIERS] };
let report: Report;
let text: string;

beforeAll(async () => {
  // a mutant that fails a few rows, so the report carries failing checks and a diagnosis
  const rows = loadCorpus().filter((r) => r.section === "TestValidateTable" && !r.profiles && /length/.test(r.id));
  const s03 = loadCatalog().find((m) => m.id === "s03")!;
  const run = await runRows(await loadMutant(s03), rows, { profile: "ag02", ...options, progress: false });
  const failing = failingIds(run.results, options);
  report = buildReport(run, {
    profile: "ag02",
    ...options,
    filters: { ids: ["*length*"] },
    corpusRows: 448,
    scores: score(run.results, options),
    diagnosis: diagnose(run.results, options, [
      {
        id: "s03",
        pitfall: 2,
        title: "string length in UTF-16 units",
        symptom: '"héllo" too long for maxLength: 5',
        answers: Object.fromEntries(run.results.flatMap((r) => (failing.includes(r.id) ? [[r.id, evidenceOf(r.checks)!]] : []))),
      },
    ]),
  });
  text = formatReport(report);
});

describe("the JSON Lines report", () => {
  it("is a header, one line per row, a diagnosis, a summary and a footer", () => {
    const lines = text.trimEnd().split("\n").map((line) => JSON.parse(line) as { kind: string });
    expect(lines[0]).toMatchObject({ kind: "header", format: REPORT_FORMAT, formatVersion: 1, profile: "ag02", level: "messages", corpus: { rows: 448, selected: report.rows.length } });
    expect(lines[0]).toMatchObject({ subject: { label: "mutant:s03", implementation: { name: "mutant:s03", language: "typescript" } }, filters: { ids: ["*length*"] } });
    expect(lines.slice(1, -3).every((line) => line.kind === "row")).toBe(true);
    expect(lines.slice(-3).map((line) => line.kind)).toEqual(["diagnosis", "summary", "footer"]);
    expect(lines.at(-1)).toMatchObject({ rows: report.rows.length });
  });

  it("keeps expected and actual for failing checks only", () => {
    const failed = report.rows.find((row) => row.status === "failed")!;
    expect(failed.checks.filter((c) => !c.pass).every((c) => c.expected !== undefined && c.actual !== undefined)).toBe(true);
    const line = text.split("\n").find((l) => l.includes('"status":"passed"'))!;
    expect(line).not.toContain('"expected"');
    expect(failed.levels).toEqual({ verdict: "failed", paths: "failed", messages: "failed" });
  });

  it("reads back what it wrote", () => {
    expect(formatReport(parseReport(text))).toBe(text);
  });

  it("refuses a report cut off anywhere: at a line end, or in the middle of a line", () => {
    const cuts = new Set<number>();
    for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) {
      cuts.add(at); // the newline itself is missing
      cuts.add(at + 1); // cut cleanly after a line
      cuts.add(Math.max(1, at - 7)); // mid-line
    }
    cuts.delete(text.length);
    expect(cuts.size).toBeGreaterThan(3 * report.rows.length);
    for (const at of cuts) expect(() => parseReport(text.slice(0, at), "r.jsonl"), `cut at ${at}`).toThrow(ReportError);
  });

  it("says why a cut-off report is refused, naming the file", () => {
    const lines = text.split("\n");
    expect(() => parseReport(lines.slice(0, 5).join("\n") + "\n", "a/report.jsonl")).toThrow("a/report.jsonl: cut off: no footer line after 5 lines; the run or the copy did not finish");
    expect(() => parseReport(text.slice(0, 300), "r.jsonl")).toThrow("r.jsonl: cut off: the last line (1) is incomplete; the run or the copy did not finish");
    expect(() => parseReport(text.slice(0, text.indexOf("\n") + 300), "r.jsonl")).toThrow("r.jsonl: cut off: the last line (2) is incomplete; the run or the copy did not finish");
    // a row line lost in the middle, the footer intact
    const dropped = [...lines.slice(0, 3), ...lines.slice(4)].join("\n");
    expect(() => parseReport(dropped, "r.jsonl")).toThrow(`r.jsonl: cut off or edited: the footer counts ${report.rows.length} rows, the file holds ${report.rows.length - 1}`);
  });

  it("refuses what is not a report", () => {
    expect(() => parseReport("", "x")).toThrow("x: empty file, not a tool-conformance report");
    expect(() => parseReport("<testsuites/>\n", "x")).toThrow("x: not a tool-conformance report (the first line is not JSON)");
    expect(() => parseReport('{"kind":"footer","rows":0}\n', "x")).toThrow("x: not a tool-conformance report (no header line)");
    const newer = text.replace('"formatVersion":1', '"formatVersion":99');
    expect(() => parseReport(newer, "x")).toThrow(/newer than this tool reads/);
  });
});

describe("writing files atomically", () => {
  it("writes the whole report under its name and leaves no temporary file", () => {
    const dir = mkdtempSync(join(tmpdir(), "tc-report-"));
    const path = join(dir, "nested", "report.jsonl");
    writeReport(path, report);
    expect(readFileSync(path, "utf8")).toBe(text);
    expect(readReport(path).rows.length).toBe(report.rows.length);
    expect(readdirSync(join(dir, "nested"))).toEqual(["report.jsonl"]);
  });

  it("replaces an older file whole", () => {
    const dir = mkdtempSync(join(tmpdir(), "tc-report-"));
    const path = join(dir, "report.jsonl");
    writeFileSync(path, "x".repeat(10 * text.length));
    writeReport(path, report);
    expect(readFileSync(path, "utf8")).toBe(text);
  });

  it("on failure, leaves neither a partial file under the name nor a temporary file", () => {
    const dir = mkdtempSync(join(tmpdir(), "tc-report-"));
    const path = join(dir, "report.jsonl");
    // the final name is taken by a non-empty folder: the rename fails
    mkdirSync(path);
    writeFileSync(join(path, "keep"), "");
    expect(() => writeFileAtomic(path, text)).toThrow();
    expect(readdirSync(dir)).toEqual(["report.jsonl"]);
    expect(readdirSync(path)).toEqual(["keep"]);
  });
});

describe("reproduction in the report", () => {
  it("a row that does not pass carries its why, the exact texts it sends and the command that reruns it; a passing row carries none", async () => {
    const rows = loadCorpus().filter((r) => ["validate/string/maxlength-bmp", "example/step-5-calls/bad-weather"].includes(r.id) || r.id.startsWith("validate/maxlength/"));
    const s03 = loadCatalog().find((m) => m.id === "s03")!;
    const run = await runRows(await loadMutant(s03), rows, { profile: "ag02", ...options, progress: false });
    // one registry row made to fail, so its steps are carried too
    const registry = run.results.findIndex((r) => rows.find((row) => row.id === r.id)!.kind === "registry");
    if (registry >= 0) run.results[registry] = { ...run.results[registry]!, status: "errored", checks: [], error: "crashed" };
    const built = buildReport(run, { profile: "ag02", ...options, filters: {}, corpusRows: rows.length, scores: score(run.results, options), diagnosis: diagnose(run.results, options, []), rows, rerun: "tool-conformance score mutant:s03 --tier all" });
    const failed = built.rows.filter((r) => r.status !== "passed");
    expect(failed.length).toBeGreaterThan(0);
    for (const row of failed) {
      const source = rows.find((r) => r.id === row.id)!;
      expect(row.repro!.why).toBe(source.why);
      expect(row.repro!.rerun).toBe(`tool-conformance score mutant:s03 --tier all --filter ${row.id}`);
      if (source.kind === "validate") {
        expect(row.repro!.schema).toBe(schemaTextOf(source));
        expect(row.repro!.instance).toBe(instanceTextOf(source.instance));
      }
      if (source.kind === "registry") expect(row.repro!.steps![0]).toMatch(/^a new registry/);
    }
    expect(built.rows.filter((r) => r.status === "passed").every((r) => r.repro === undefined)).toBe(true);
    // and it survives the round trip
    expect(parseReport(formatReport(built)).rows.find((r) => r.status !== "passed")!.repro).toEqual(failed[0]!.repro);
  });

  it("shows a registry row's steps as the requests it makes, each with what it expects", () => {
    const row = loadCorpus().find((r) => r.kind === "registry" && r.steps.some((s) => s.op === "call"))!;
    const repro = reproductionOf(row);
    expect(repro.steps!.some((step) => /^step \d+: register \{"name":.*"behavior":\{.*\}\} → expect (accepted|refused)/.test(step))).toBe(true);
    expect(repro.steps!.some((step) => /^step \d+: call \{"id":.*"arguments":.*\} → expect (a result|an error result), runs \[/.test(step))).toBe(true);
    expect(repro.rerun).toBeUndefined();
  });

  it("keeps at most 64 KiB of one text, saying how much was cut", () => {
    const row = loadCorpus().find((r) => r.kind === "validate" && typeof r.instance !== "string" && instanceTextOf(r.instance).length > REPRO_MAX_CHARS)!;
    const repro = reproductionOf(row);
    expect(repro.instance!.length).toBeLessThan(REPRO_MAX_CHARS + 100);
    expect(repro.instance).toMatch(/… \([\d,]+ more characters\)$/);
  });
});

describe("a run that stopped early", () => {
  const rows = loadCorpus().filter((r) => r.section === "TestHandWorkedExample");

  it("is a whole report: every row errored with the cause, score 0, the cause and the end of stderr in the summary", () => {
    const stopped = buildStoppedReport({
      profile: "ag02",
      ...options,
      filters: {},
      corpusRows: 500,
      label: "python3 adapter.py",
      rows,
      startedAt: new Date().toISOString(),
      ms: 120,
      stopped: { cause: 'could not start "python3 adapter.py": the process exited with code 1', stderr: "Traceback …\nImportError: no module named toolreg\n" },
      rerun: "tool-conformance score --subject 'python3 adapter.py' --tier core",
    });
    const back = parseReport(formatReport(stopped));
    expect(back.rows.length).toBe(rows.length);
    expect(back.rows.every((r) => r.status === "errored" && r.error!.startsWith("could not start"))).toBe(true);
    expect(back.summary.scores.total).toMatchObject({ rows: rows.length, passed: 0, errored: rows.length, percent: 0 });
    expect(back.summary.stopped).toEqual({ cause: 'could not start "python3 adapter.py": the process exited with code 1', stderr: "Traceback …\nImportError: no module named toolreg\n" });
    expect(back.diagnosis).toMatchObject({ available: false, matches: [] });
    expect(back.header.subject).toEqual({ label: "python3 adapter.py", implementation: { name: "python3 adapter.py", language: "unknown" } });
    expect(back.rows[0]!.repro!.rerun).toBe(`tool-conformance score --subject 'python3 adapter.py' --tier core --filter ${rows[0]!.id}`);
  });

  it("keeps the rows answered before it stopped", async () => {
    const run = await runRows(inProcessSubject("reference"), rows.slice(0, 3), { profile: "ag02", ...options, progress: false });
    const answered = new Map(run.results.map((r) => [r.id, r]));
    const stopped = buildStoppedReport({ profile: "ag02", ...options, filters: {}, corpusRows: 500, label: "x", rows, answered, startedAt: run.startedAt, ms: 5, stopped: { cause: "the subject keeps failing" } });
    expect(stopped.rows.slice(0, 3).map((r) => r.status)).toEqual(["passed", "passed", "passed"]);
    expect(stopped.rows.slice(3).every((r) => r.status === "errored")).toBe(true);
    expect(stopped.summary.scores.total.passed).toBe(3);
  });
});

describe("flags for the grader", () => {
  const tally = (passed: number, rows: number) => ({ rows, passed, failed: rows - passed, errored: 0, skipped: 0, percent: Math.floor((passed / rows) * 10000) / 100 });
  const withParts = (corpus: [number, number], fresh?: [number, number], flags?: string[]) =>
    ({ summary: { scores: { byPart: { corpus: tally(...corpus), ...(fresh ? { fresh: tally(...fresh) } : {}) } }, ...(flags ? { flags } : {}) } }) as unknown as Report;

  it("a fresh part 25 points or more below the corpus part is flagged; a smaller gap, or no fresh part, is not", () => {
    expect(flagsOf(withParts([100, 100], [74, 100]))).toEqual(["FLAGGED: fresh part 74% far below corpus part 100%"]);
    expect(flagsOf(withParts([100, 100], [75, 100]))).toEqual(["FLAGGED: fresh part 75% far below corpus part 100%"]);
    expect(flagsOf(withParts([100, 100], [76, 100]))).toEqual([]);
    expect(flagsOf(withParts([50, 100], [30, 100]))).toEqual([]);
    expect(flagsOf(withParts([100, 100]))).toEqual([]);
  });

  it("the flags grade wrote come first, then the recomputed ones", () => {
    expect(flagsOf(withParts([100, 100], [10, 100], ["FLAGGED: carries 3 files of tool-conformance"]))).toEqual(["FLAGGED: carries 3 files of tool-conformance", "FLAGGED: fresh part 10% far below corpus part 100%"]);
  });
});

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { loadCorpus, PACKAGE_ROOT } from "../../src/corpus/load.js";
import { buildStoppedReport } from "../../src/report/build-report.js";
import { formatReport } from "../../src/report/format-report.js";
import { type Report } from "../../src/report/report.js";
import { parseJSON } from "../../src/json/parse.js";
import { compile, type Schema } from "../../src/schema/compile.js";
import { hostileFixture } from "../helpers/report-fixture.js";

// conformance/report.schema.json describes every line of report.jsonl. It is written in the
// subset the reference validates, so the reference itself checks it here: every line of real
// reports (a mutant's with hostile text, a run that stopped early) passes, and broken lines fail.

const SCHEMA_FILE = join(PACKAGE_ROOT, "conformance", "report.schema.json");
let schema: Schema;
let reports: Report[];

beforeAll(async () => {
  schema = compile(readFileSync(SCHEMA_FILE, "utf8"));
  const fx = await hostileFixture();
  const stopped = buildStoppedReport({
    profile: "lesson",
    level: "paths",
    tiers: ["core"],
    filters: { sections: ["TestHandWorkedExample"], ids: ["TestHandWorkedExample"] },
    corpusRows: 500,
    label: "./adapter",
    rows: loadCorpus().filter((r) => r.section === "TestHandWorkedExample"),
    startedAt: new Date().toISOString(),
    ms: 3,
    stopped: { cause: 'could not start "./adapter": the process exited with code 127', stderr: "sh: ./adapter: not found\n" },
    rerun: "tool-conformance score --subject ./adapter --profile pointer --level paths --tier core",
  });
  // an MCP server's report carries its advertised contract, linted (summary.lint)
  const linted: Report = { ...fx.report, summary: { ...fx.report.summary, lint: [{ tool: "get weather", findings: [{ rule: "name-mcp" }, { rule: "open-object", at: "$" }, { rule: "not-judged", detail: "format at $.properties.email" }], more: 3 }] } };
  reports = [fx.report, stopped, linted];
});

const lines = (report: Report) => formatReport(report).trimEnd().split("\n");
const summaryOf = (report: Report) => lines(report).find((l) => l.startsWith('{"kind":"summary"'))!;
/**
 * A line's errors against the schema. The reference reads JSON strictly and refuses a lone surrogate
 * (docs/semantics.md); a report keeps a subject's text exactly, so `\ud800` may appear escaped in
 * it: such escapes become U+FFFD first. Nothing else is changed.
 */
const errorsOf = (line: string) =>
  schema.validate(parseJSON(line.replace(/\\u[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F])|(?<!\\u[dD][89abAB][0-9a-fA-F]{2})\\u[dD][c-fC-F][0-9a-fA-F]{2}/g, "\\ufffd"))).map(String);

describe("conformance/report.schema.json", () => {
  it("compiles with the reference (it stays inside the subset)", () => {
    expect(() => compile(readFileSync(SCHEMA_FILE, "utf8"))).not.toThrow();
  });

  it("accepts every line of real reports: rows failed, errored, not answerable, with reproductions; a run that stopped early; an MCP server's lint", () => {
    for (const report of reports) {
      for (const line of lines(report)) expect(errorsOf(line), line.slice(0, 120)).toEqual([]);
    }
  });

  it("refuses broken lines", () => {
    const [header, row] = lines(reports[0]!);
    const broken = [
      header!.replace('"kind":"header"', '"kind":"heading"'),
      header!.replace('"formatVersion":1', '"formatVersion":"1"'),
      row!.replace(/"status":"\w+"/, '"status":"green"'),
      row!.replace(/"section":"\w+"/, '"section":"TestEverything"'),
      row!.replace('"kind":"row",', ""),
      row!.replace('"kind":"row",', '"kind":"row","colour":"red",'),
      lines(reports[1]!).find((l) => l.startsWith('{"kind":"summary"'))!.replace('"percent":0', '"percent":101'),
      lines(reports[1]!).at(-1)!.replace(/"finishedAt":"[^"]+"/, '"finishedAt":"yesterday"'),
      summaryOf(reports[2]!).replace('"rule":"open-object"', '"rule":"open"'),
      summaryOf(reports[2]!).replace('"more":3', '"more":0'),
      summaryOf(reports[2]!).replace('{"rule":"name-mcp"}', '{"rule":"name-mcp","words":"x"}'),
    ];
    for (const line of broken) expect(errorsOf(line).length, line.slice(0, 120)).toBeGreaterThan(0);
  });
});

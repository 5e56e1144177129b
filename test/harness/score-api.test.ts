import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../src/corpus/load.js";
import { score, SubjectStoppedError } from "../../src/harness/index.js";

// The scoring API (tool-conformance/harness): a subject and options in, one report out, the same
// report score writes. What a grader scripting a class calls instead of shelling out.

const ADAPTER = `${process.execPath} ${join(PACKAGE_ROOT, "dist", "cli", "main.js")} adapter`;

describe("score(subject, options)", () => {
  it("scores a command over stdio: the reference's adapter passes every core row it is given", async () => {
    const report = await score({ command: ADAPTER }, { filters: ["example/*"] });
    expect(report.header.subject.implementation.name).toBe("reference");
    expect(report.header.tiers).toEqual(["core"]);
    expect(report.summary.scores.total.rows).toBeGreaterThan(0);
    expect(report.summary.scores.total.passed).toBe(report.summary.scores.total.rows);
  }, 60_000);

  it("names the pitfall of a mutant, as score's report does", async () => {
    const report = await score("mutant:s03", { filters: ["TestValidateTable"] });
    expect(report.summary.scores.total.passed).toBeLessThan(report.summary.scores.total.rows);
    expect(report.diagnosis.matches[0]?.id).toBe("s03");
  }, 60_000);

  it("a subject that cannot start throws SubjectStoppedError carrying the whole report: every row errored with the cause", async () => {
    const error = await score({ command: "exit 7" }, { filters: ["example/*"] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SubjectStoppedError);
    const report = (error as SubjectStoppedError).report;
    expect(report.rows.length).toBeGreaterThan(0);
    expect(report.rows.every((row) => row.status === "errored")).toBe(true);
    expect(report.summary.stopped?.cause).toBe((error as Error).message);
  }, 60_000);

  it("an aborted signal ends the run with the rows answered, marked interrupted", async () => {
    const controller = new AbortController();
    let seen = 0;
    const report = await score("reference", { tiers: ["core", "catalog", "hardening"], jobs: 1, signal: controller.signal, onResult: () => ++seen === 5 && controller.abort("SIGINT") });
    expect(report.summary.stopped?.interrupted).toBe("SIGINT");
    expect(report.summary.scores.total.passed).toBeGreaterThanOrEqual(5);
    expect(report.summary.scores.total.passed).toBeLessThan(report.rows.length);
  }, 60_000);

  it("refuses a filter that matches no row, before running anything", async () => {
    await expect(score("reference", { filters: ["no/such/row"] })).rejects.toThrow(/matches no row/);
  });
});

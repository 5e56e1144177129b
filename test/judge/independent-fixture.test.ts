import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../src/corpus/load.js";
import { readReport } from "../../src/report/read-report.js";
import { type Report } from "../../src/report/report.js";

// The tester, tested with an implementation it did not derive: test/fixtures/independent-js was
// written from the seed alone (plain objects, JSON.parse floats, ECMA-262 patterns, its own
// wording). Graded as a user grades, through the CLI with default options, it must score 100%
// with no pitfall named; each bug planted in it (none of them a catalogued pitfall) must fail a
// core row and get an honest diagnosis: "no known pitfall", at most a "closest", never a match.

const MAIN = join(PACKAGE_ROOT, "dist", "cli", "main.js");
const FIXTURE = join(PACKAGE_ROOT, "test", "fixtures", "independent-js");
const SUBJECT = `node ${JSON.stringify(join(FIXTURE, "adapter.mjs"))}`;

interface Bug {
  id: string;
  title: string;
  /** The tier whose rows catch it; "core" unless the bug breaks nothing the spec fixes ("none": no row can, see its note). */
  caughtBy?: "core" | "hardening" | "none";
  note?: string;
}
const bugs = JSON.parse(readFileSync(join(FIXTURE, "bugs.json"), "utf8")) as Bug[];

const scratch = mkdtempSync(join(tmpdir(), "tc-independent-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** `score --subject …` as a user runs it, with `bug` planted; the exit code and the report. */
async function grade(bug: string | undefined, ...args: string[]): Promise<{ code: number; report: Report }> {
  const out = join(scratch, bug ?? "correct", args.join("_").replace(/\W+/g, "_"));
  const env = { ...process.env, NO_COLOR: "1", ...(bug ? { TOOLREG_BUG: bug } : {}) };
  let code = 0;
  try {
    await promisify(execFile)(process.execPath, [MAIN, "score", "--subject", SUBJECT, "--reporter", "json", "--out", out, "--no-progress", ...args], { env, timeout: 120_000 });
  } catch (error) {
    code = (error as { code?: number }).code ?? -1;
  }
  return { code, report: readReport(join(out, "report.jsonl")) };
}

describe("an independent implementation, written from the seed alone", () => {
  it("scores 100% with default options (core, messages), at every level, and no pitfall is named", async () => {
    const { code, report } = await grade(undefined);
    expect(report.header.tiers).toEqual(["core"]);
    expect(report.header.level).toBe("messages");
    const failing = report.rows.filter((row) => row.status !== "passed").map((row) => `${row.id}: ${row.error ?? JSON.stringify(row.checks.find((c) => !c.pass))}`);
    expect(failing).toEqual([]);
    for (const tally of Object.values(report.summary.scores.byLevel)) expect(tally.percent).toBe(100);
    expect(report.diagnosis.matches).toEqual([]);
    expect(code).toBe(0);
  });

  it("has at least twelve planted bugs that the core tier must catch", () => {
    expect(bugs.filter((bug) => (bug.caughtBy ?? "core") === "core").length).toBeGreaterThanOrEqual(12);
  });

  describe.each(bugs.filter((bug) => (bug.caughtBy ?? "core") === "core"))("planted bug $id ($title)", (bug) => {
    it("fails a core row, and the diagnosis names no pitfall", async () => {
      const { code, report } = await grade(bug.id);
      const failed = report.rows.filter((row) => row.status === "failed");
      expect(failed.length, "core rows failed").toBeGreaterThan(0);
      expect(code).toBe(1);
      expect(report.diagnosis.matches.map((m) => m.sentence)).toEqual([]);
      expect(report.diagnosis.lines.join("\n")).not.toMatch(/your failures match/);
      // what is left: rows no pitfall explains, or rows where the implementation crashed (its own wrong answer)
      expect(report.diagnosis.lines[0]).toMatch(/^(no known pitfall matches|your implementation crashed on)/);
    });
  });

  describe.each(bugs.filter((bug) => bug.caughtBy === "hardening"))("planted bug $id, beyond the spec ($title)", (bug) => {
    it("passes core, and makes a hardening row fail that the correct fixture passes, with no pitfall named", async () => {
      expect((await grade(bug.id)).code).toBe(0);
      const passing = (report: Report) => new Set(report.rows.filter((row) => row.tier === "hardening" && row.status === "passed").map((row) => row.id));
      const correct = passing((await grade(undefined, "--tier", "all", "--level", "verdict", "--min-score", "0", "--timeout", "1500")).report);
      const { report } = await grade(bug.id, "--tier", "all", "--level", "verdict", "--min-score", "0", "--timeout", "1500");
      const now = passing(report);
      expect([...correct].filter((id) => !now.has(id)).length).toBeGreaterThan(0);
      expect(report.diagnosis.matches).toEqual([]);
    });
  });
});

import { describe, expect, it } from "vitest";
import type { RowResult } from "../../src/run/outcome.js";
import { TIERS } from "../../src/corpus/rows.js";
import type { Check } from "../../src/run/run-row.js";
import { failingIds, formatPercent, percentOf, score, statusAt } from "../../src/judge/scoring.js";

// Scores: rows passed over rows, per section, tier, level and part (the judging code, under the
// Stryker gate: in-process, no subject). Selecting and running rows: test/runner.test.ts.

const all = { level: "messages", tiers: [...TIERS] } as const;
const options = { ...all, tiers: [...all.tiers] };

const check = (level: Check["level"], tier: Check["tier"], pass: boolean): Check => ({ level, tier, what: level, expected: "e", actual: pass ? "e" : "a", pass });

/** A row's result; a core row whose exact texts are checked has them in the catalog tier. */
function result(id: string, section: RowResult["section"], tier: RowResult["tier"], status: RowResult["status"], checks: Check[] = [], messageTier?: RowResult["tier"]): RowResult {
  return { id, section, tier, ...(messageTier ? { messageTier } : {}), rule: "r", pitfalls: [], status, checks, ms: 1 };
}

describe("score", () => {
  const results: RowResult[] = [
    result("validate/a", "TestValidateTable", "core", "passed", [check("verdict", "core", true), check("paths", "core", true), check("messages", "catalog", true)], "catalog"),
    // right verdict and paths, wrong message text (a catalog message)
    result("validate/b", "TestValidateTable", "core", "failed", [check("verdict", "core", true), check("paths", "core", true), check("messages", "catalog", false)], "catalog"),
    // wrong verdict
    result("validate/c", "TestValidateTable", "hardening", "failed", [check("verdict", "hardening", false)]),
    result("call/d", "TestCallNeverPanics", "core", "errored"),
    result("call/e", "TestCallNeverPanics", "core", "skipped"),
    result("example/f", "TestHandWorkedExample", "core", "passed", [check("verdict", "core", true)]),
  ];

  it("counts a row once, errored and not-answerable rows apart from wrong answers, all of them against the score", () => {
    const s = score(results, options);
    expect(s.total).toEqual({ rows: 6, passed: 2, failed: 2, errored: 1, skipped: 1, percent: 33.33 });
  });

  it("scores per section in the seed's order, per tier, and per level", () => {
    const s = score(results, options);
    expect(Object.keys(s.sections)).toEqual(["TestHandWorkedExample", "TestValidateTable", "TestCallNeverPanics"]);
    expect(s.sections.TestValidateTable!.total).toMatchObject({ rows: 3, passed: 1, failed: 2 });
    // each tier's tally judges its own checks: b's core checks pass, its catalog wording does not
    expect(s.sections.TestValidateTable!.tiers.core).toMatchObject({ rows: 2, passed: 2 });
    expect(s.sections.TestValidateTable!.tiers.catalog).toMatchObject({ rows: 2, passed: 1 });
    expect(Object.keys(s.byTier)).toEqual(["core", "catalog", "hardening"]);
    expect(s.byTier.core).toMatchObject({ rows: 5, passed: 3, errored: 1, skipped: 1 });
    expect(s.byLevel.verdict).toMatchObject({ passed: 3, failed: 1, errored: 1, skipped: 1 });
    expect(s.byLevel.paths).toMatchObject({ passed: 3 });
    expect(s.byLevel.messages).toMatchObject({ passed: 2 });
  });

  it("counts a row in the same tiers for every subject: an answer cut short is not passed in a tier it never reached", () => {
    // the same row, answered whole by one subject and refused early by another (no message check made)
    const whole = result("validate/x", "TestValidateTable", "core", "failed", [check("verdict", "core", true), check("paths", "core", true), check("messages", "catalog", false)], "catalog");
    const short = result("validate/x", "TestValidateTable", "core", "failed", [check("verdict", "core", false)], "catalog");
    for (const answer of [whole, short]) expect(Object.keys(score([answer], options).byTier)).toEqual(["core", "catalog"]);
    expect(score([short], options).byTier.catalog).toMatchObject({ rows: 1, passed: 0, failed: 1 });
    expect(score([whole], options).byTier.core).toMatchObject({ rows: 1, passed: 1 });
    // a row with no exact text to check (a compile row expecting acceptance) is never counted in catalog
    expect(Object.keys(score([result("compile/y", "TestCompileRejectsUnsupported", "core", "passed", [check("verdict", "core", true)])], options).byTier)).toEqual(["core"]);
  });

  it("leaves a message check out when its tier is not scored", () => {
    const coreOnly = { level: "messages" as const, tiers: ["core" as const] };
    expect(statusAt(results[1]!, coreOnly)).toBe("passed");
    // the hardening row has nothing to check under core: it is not counted at all
    expect(score(results, coreOnly).total).toMatchObject({ rows: 5, passed: 3 });
  });

  it("keeps errored and skipped rows so at every level", () => {
    expect(statusAt(results[3]!, { level: "verdict", tiers: ["core"] })).toBe("errored");
    expect(statusAt(results[4]!, { level: "verdict", tiers: ["core"] })).toBe("skipped");
    expect(failingIds(results, { level: "verdict", tiers: ["core"] })).toEqual(["call/d", "call/e"]);
    expect(failingIds(results, { level: "verdict", tiers: ["core", "hardening"] })).toEqual(["validate/c", "call/d", "call/e"]);
  });

  it("keeps the tiers scored, and per section only the tiers it has rows of", () => {
    const s = score(results, options);
    expect(s.tiers).toEqual(options.tiers);
    expect(Object.keys(s.sections.TestValidateTable!.tiers)).toEqual(["core", "catalog", "hardening"]);
    expect(Object.keys(s.sections.TestCallNeverPanics!.tiers)).toEqual(["core"]);
  });

  it("tallies by part only the parts that have rows", () => {
    expect(Object.keys(score(results, options).byPart)).toEqual(["corpus"]);
    const mixed = [...results, { ...results[0]!, id: "p/1", part: "private" as const }];
    expect(Object.keys(score(mixed, options).byPart)).toEqual(["corpus", "private"]);
    const freshOnly = results.map((r) => ({ ...r, part: "fresh" as const }));
    expect(Object.keys(score(freshOnly, options).byPart)).toEqual(["fresh"]);
  });

  it("lists as failing only rows counted under the tiers scored, whatever their status", () => {
    const erroredHardening = result("validate/h", "TestValidateTable", "hardening", "errored");
    expect(failingIds([...results, erroredHardening], { level: "verdict", tiers: ["core"] })).toEqual(["call/d", "call/e"]);
  });

  it("rounds down: 100% only when every row passed", () => {
    expect(percentOf(999, 1000)).toBe(99.9);
    expect(percentOf(9999, 10000)).toBe(99.99);
    expect(formatPercent(percentOf(9999, 10000))).toBe("99.99%");
    expect(formatPercent(100)).toBe("100%");
    expect(formatPercent(97.5)).toBe("97.5%");
    expect(percentOf(0, 0)).toBe(100);
  });
});


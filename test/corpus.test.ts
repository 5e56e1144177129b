import { describe, expect, it } from "vitest";
import { loadCorpus } from "../src/harness/corpus.js";
import { statusOf } from "../src/harness/outcome.js";
import { runRow } from "../src/harness/run-row.js";
import { appliesTo, PROFILES, SECTIONS, TIERS } from "../src/harness/rows.js";
import { inProcessSubject } from "../src/harness/subjects/in-process.js";

// The whole corpus against the reference, at the strictest level and every tier,
// in each profile a row applies to. A failure prints the row's expected and actual.
const rows = loadCorpus();
const reference = inProcessSubject("reference");
const strictest = { level: "messages", tiers: [...TIERS] } as const;

for (const section of SECTIONS) {
  describe(section, () => {
    for (const row of rows.filter((r) => r.section === section)) {
      it(`${row.id}: ${row.why}`, async () => {
        for (const profile of PROFILES.filter((p) => appliesTo(row, p))) {
          const session = await reference.open(profile);
          const checks = await runRow(row, session.send, profile);
          const failure = checks.find((c) => !c.pass);
          expect(failure && { profile, what: failure.what, expected: failure.expected, actual: failure.actual }).toBeUndefined();
          expect(statusOf(checks, { ...strictest, tiers: [...strictest.tiers] })).toBe("passed");
        }
      });
    }
  });
}

describe("the corpus itself", () => {
  it("has rows in each of the six sections", () => {
    for (const section of SECTIONS) expect(rows.filter((r) => r.section === section).length, section).toBeGreaterThan(0);
  });
});

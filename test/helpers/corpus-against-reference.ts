import { describe, expect, it } from "vitest";
import { runRow } from "../../src/run/run-row.js";
import { appliesTo, PROFILES, SECTIONS, type Row } from "../../src/corpus/rows.js";
import { inProcessSubject } from "../../src/subjects/in-process.js";

/**
 * One `describe` per section, named as the seed names the test, and one `it` per row id:
 * every check of the row must pass against the reference (the strictest level, every tier),
 * in each profile the row applies to. A failure prints the row's expected and actual.
 */
export function describeCorpusAgainstReference(rows: readonly Row[]): void {
  const reference = inProcessSubject("reference");
  for (const section of SECTIONS) {
    describe(section, () => {
      for (const row of rows.filter((r) => r.section === section)) {
        it(`${row.id}: ${row.why}`, async () => {
          for (const profile of PROFILES.filter((p) => appliesTo(row, p))) {
            const session = await reference.open(profile);
            const checks = await runRow(row, session.send, profile);
            expect(checks.length).toBeGreaterThan(0);
            const failure = checks.find((c) => !c.pass);
            expect(failure && { profile, what: failure.what, expected: failure.expected, actual: failure.actual }).toBeUndefined();
          }
        });
      }
    });
  }
}

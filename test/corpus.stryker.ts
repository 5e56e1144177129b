import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CORPUS_DIR } from "../src/harness/corpus.js";
import { runRow } from "../src/harness/run-row.js";
import { appliesTo, PROFILES, SECTIONS, type Row } from "../src/harness/rows.js";
import { inProcessSubject } from "../src/harness/subjects/in-process.js";

// The corpus against the reference, for Stryker only (vitest.stryker.config.ts).
// test/corpus.test.ts loads rows with loadCorpus(), which checks every row with the
// reference's own parser and validator at module load: under Stryker that makes two
// thirds of the reference's mutants "static" (each one reruns every test). Here rows
// are read with JSON.parse, so each mutant runs only the rows that reach its code.
// The loader's checks are test/corpus.test.ts's job.

function files(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((entry) => {
      const path = join(dir, entry);
      return statSync(path).isDirectory() ? files(path) : entry.endsWith(".json") ? [path] : [];
    });
}

const rows = files(CORPUS_DIR).flatMap((file) => JSON.parse(readFileSync(file, "utf8")) as Row[]);
const reference = inProcessSubject("reference");

for (const section of SECTIONS) {
  describe(section, () => {
    for (const row of rows.filter((r) => r.section === section)) {
      it(`${row.id}: ${row.why}`, async () => {
        for (const profile of PROFILES.filter((p) => appliesTo(row, p))) {
          const session = await reference.open(profile);
          const checks = await runRow(row, session.send, profile);
          const failure = checks.find((c) => !c.pass);
          expect(failure && { profile, what: failure.what, expected: failure.expected, actual: failure.actual }).toBeUndefined();
        }
      });
    }
  });
}

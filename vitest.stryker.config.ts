import { defineConfig } from "vitest/config";

// The tests Stryker runs against each mutant of the reference (src/json, src/schema,
// src/registry) and of the judging code (scores, the diagnosis and its symptoms): in-process only, no
// build, no subprocesses, no pitfall-mutant matrix.
// test/corpus/corpus.stryker.ts is test/corpus/corpus.test.ts without loading rows through the
// reference at module load (see the file), so per-test coverage stays precise.
export default defineConfig({
  test: {
    include: ["test/corpus/corpus.stryker.ts", "test/reference/properties*.test.ts", "test/reference/reference-*.test.ts", "test/judge/scoring.test.ts", "test/judge/diagnosis.test.ts", "test/judge/symptom.test.ts"],
    exclude: ["**/node_modules/**", ".stryker-tmp/**", "dist/**"],
    testTimeout: 30_000,
  },
});

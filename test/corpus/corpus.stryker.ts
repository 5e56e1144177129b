import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { CORPUS_DIR } from "../../src/corpus/load.js";
import type { Row } from "../../src/corpus/rows.js";
import { describeCorpusAgainstReference } from "../helpers/corpus-against-reference.js";

// The corpus against the reference, for Stryker only (vitest.stryker.config.ts).
// test/corpus/corpus.test.ts loads rows with loadCorpus(), which checks every row with the
// reference's own parser and validator at module load: under Stryker that makes two
// thirds of the reference's mutants "static" (each one reruns every test). Here rows
// are read with JSON.parse, so each mutant runs only the rows that reach its code.
// The loader's checks are test/corpus/corpus.test.ts's job.

function files(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((entry) => {
      const path = join(dir, entry);
      return statSync(path).isDirectory() ? files(path) : entry.endsWith(".json") ? [path] : [];
    });
}

const rows = files(CORPUS_DIR).flatMap((file) => JSON.parse(readFileSync(file, "utf8")) as Row[]);
describeCorpusAgainstReference(rows);

import { describe, expect, it } from "vitest";
import { loadCorpus } from "../../src/corpus/load.js";
import { SECTIONS } from "../../src/corpus/rows.js";
import { describeCorpusAgainstReference } from "../helpers/corpus-against-reference.js";

// The whole corpus, loaded and checked against its row schema, against the reference.
const rows = loadCorpus();

describeCorpusAgainstReference(rows);

describe("the corpus itself", () => {
  it("has rows in each of the six sections", () => {
    for (const section of SECTIONS) expect(rows.filter((r) => r.section === section).length, section).toBeGreaterThan(0);
  });
});

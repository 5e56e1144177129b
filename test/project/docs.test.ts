import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../src/corpus/load.js";
import { blocksOf, DOCUMENTS, generatedBlocks, generatedValidators, sameButTimings, withBlocks } from "../helpers/docs-generator.js";

// The numbers and outputs the documents show are the ones the code prints today (docs-generator.ts).
// `npm run docs` (DOCS_WRITE=1) writes them; here a committed document that differs fails, with the
// command that fixes it.

const WRITE = process.env.DOCS_WRITE === "1";
const FIX = "run `npm run docs` and commit the documents";

let blocks: Record<string, string>;
beforeAll(() => {
  blocks = generatedBlocks();
}, 240_000);

describe("the documents' generated blocks", () => {
  it("are exactly what the code prints now (timings aside), in every document", () => {
    const stale: string[] = [];
    for (const document of DOCUMENTS) {
      const path = join(PACKAGE_ROOT, document);
      const text = readFileSync(path, "utf8");
      const changed: Record<string, string> = {};
      for (const { name, body } of blocksOf(text)) {
        expect(blocks[name], `${document}: no generator for block "${name}"`).toBeDefined();
        const wanted = body.startsWith("\n") ? `\n${blocks[name]}\n` : blocks[name]!;
        if (!sameButTimings(body, wanted)) {
          stale.push(`${document}: ${name}`);
          changed[name] = blocks[name]!;
        }
      }
      // only what changed beyond its timings is rewritten: a rerun leaves the documents alone
      if (WRITE) writeFileSync(path, withBlocks(text, changed));
    }
    if (!WRITE) expect(stale, FIX).toEqual([]);
  });

  it("each stands in some document (a generator nobody reads is a number nobody checks)", () => {
    const used = new Set(DOCUMENTS.flatMap((document) => blocksOf(readFileSync(join(PACKAGE_ROOT, document), "utf8")).map((b) => b.name)));
    expect(Object.keys(blocks).filter((name) => !used.has(name))).toEqual([]);
  });

  it("docs/validators.md is what `validators --format markdown` writes now", { timeout: 120_000 }, () => {
    const path = join(PACKAGE_ROOT, "docs", "validators.md");
    const now = generatedValidators();
    if (WRITE) writeFileSync(path, now);
    expect(readFileSync(path, "utf8") === now, FIX).toBe(true);
  });

  it("the timing mask hides timings and nothing else", () => {
    expect(sameButTimings("done in 7.76 s (234/s), 350 ms", "done in 9.1 s (1,770/s), 12 ms")).toBe(true);
    expect(sameButTimings("526 of 656 rows · 3.35 s", "526 of 657 rows · 3.35 s")).toBe(false);
    expect(sameButTimings("s03 fails 7 rows", "s03 fails 9 rows")).toBe(false);
  });
});

describe("the documents' links", () => {
  it("every relative link of the README, docs/, conformance/ and mutants/ reaches a file of the repository", () => {
    const documents = ["README.md", "mutants/README.md", "conformance/README.md", "conformance/PROTOCOL.md", ...readdirSync(join(PACKAGE_ROOT, "docs")).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`)];
    const broken: string[] = [];
    for (const document of documents) {
      const text = readFileSync(join(PACKAGE_ROOT, document), "utf8");
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^(https?:|mailto:|#)/.test(target!)) continue;
        const path = target!.split("#")[0]!;
        if (!existsSync(join(PACKAGE_ROOT, dirname(document), path))) broken.push(`${document}: ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });
});

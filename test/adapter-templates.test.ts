import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadCorpus, PACKAGE_ROOT } from "../src/harness/corpus.js";
import { statusOf } from "../src/harness/outcome.js";
import { runRow } from "../src/harness/run-row.js";
import { appliesTo } from "../src/harness/rows.js";
import { stdioSubject } from "../src/harness/subjects/stdio.js";

// The TypeScript adapter template, transpiled as a user would compile it, wrapped around the
// built reference (dist/index.js): every ag02 row passes through it over stdio. (The Python
// template is proven by stdio-python.test.ts, the Go one by stdio-go.test.ts.)

const TEMPLATES = join(PACKAGE_ROOT, "conformance", "adapters");
let scratch: string;

beforeAll(() => {
  if (!existsSync(join(PACKAGE_ROOT, "dist", "index.js"))) throw new Error("this test wraps the built reference: run npm run build first");
  scratch = mkdtempSync(join(tmpdir(), "adapter-template-"));
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("the adapter templates", () => {
  it("each has an adapter of a few hundred lines at most and a README", () => {
    for (const [dir, file] of [["go", "main.go"], ["python", "adapter.py"], ["typescript", "adapter.ts"]] as const) {
      const lines = readFileSync(join(TEMPLATES, dir, file), "utf8").split("\n").length;
      expect(lines, `${dir}/${file}`).toBeLessThan(260);
      expect(existsSync(join(TEMPLATES, dir, "README.md")), `${dir}/README.md`).toBe(true);
    }
  });

  it("typescript: wrapped around the reference, passes every ag02 row over stdio", async () => {
    const source = readFileSync(join(TEMPLATES, "typescript", "adapter.ts"), "utf8");
    const { outputText } = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2022 } });
    const adapter = join(scratch, "adapter.mjs");
    writeFileSync(adapter, outputText);
    const session = await stdioSubject(`node ${adapter} ${join(PACKAGE_ROOT, "dist", "index.js")}`).open("ag02");
    const failures: unknown[] = [];
    try {
      for (const row of loadCorpus().filter((r) => appliesTo(r, "ag02"))) {
        const checks = await runRow(row, session.send, "ag02");
        if (statusOf(checks, { level: "messages", tiers: ["core", "catalog", "hardening"] }) !== "passed") failures.push({ id: row.id, failure: checks.find((c) => !c.pass) });
      }
    } finally {
      await session.close();
    }
    expect(failures).toEqual([]);
  });
});

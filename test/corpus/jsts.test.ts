import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { CorpusError } from "../../src/corpus/load.js";
import { describeJsts, importJsts, outsideSubset, slug } from "../../src/corpus/jsts.js";
import { runRow } from "../../src/run/run-row.js";
import { statusOf } from "../../src/run/outcome.js";
import { inProcessSubject } from "../../src/subjects/in-process.js";
import { parseJSON } from "../../src/json/parse.js";

const FIXTURES = fileURLToPath(new URL("../fixtures/jsts", import.meta.url));
const ID = /^(example|validate|compile|register|definitions|call)\/[a-z0-9]+([-/._][a-z0-9]+)*$/;

describe("JSON-Schema-Test-Suite import", () => {
  const imported = importJsts(FIXTURES);

  it("keeps the groups inside the subset and says why the others were left out", () => {
    expect(imported.kept).toBe(7);
    expect(imported.leftOut).toEqual([
      { group: 'left-out.json: validation of e-mail addresses', reason: 'keyword "format" at #' },
      { group: "left-out.json: items with boolean schema (false)", reason: "boolean subschema at #/items" },
      { group: "left-out.json: nested unsupported keyword", reason: 'keyword "not" at #/properties/foo/anyOf/1' },
      { group: "left-out.json: boolean schema true", reason: "boolean subschema at #" },
      {
        group: "left-out.json: pattern with a lookahead",
        reason: expect.stringMatching(/^refused by the reference: invalid pattern "\^\(\?=a\)" at #/) as unknown as string,
      },
    ]);
    expect(describeJsts(imported)).toMatch(/^JSON-Schema-Test-Suite: 7 groups kept \(19 tests\), 5 left out: 2 boolean subschema, /);
  });

  it("gives every test a stable id from file, group and test descriptions, valid as a corpus id and unique", () => {
    const ids = imported.rows.map((row) => row.id);
    expect(ids).toContain("validate/jsts/type/integer-type-matches-integers/a-float-with-zero-fractional-part-is-an-integer");
    // a repeated group description and a repeated test description get -2
    expect(ids).toContain("validate/jsts/pattern/pattern-is-not-anchored-2/three-digits-ok-2");
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(ID);
    expect(importJsts(FIXTURES).rows.map((row) => row.id)).toEqual(ids);
  });

  it("makes verdict-only validate rows that keep the suite's number literals", () => {
    const row = imported.rows.find((r) => r.id.endsWith("/a-float-with-zero-fractional-part-is-an-integer"))!;
    expect(row).toMatchObject({ kind: "validate", section: "TestValidateTable", verdictOnly: true, instance: "1.0", rule: "jsts/type", tier: "hardening" });
    expect(row.expect.errors).toEqual([]);
    const decimal = imported.rows.find((r) => r.id.startsWith("validate/jsts/minlength/minlength-validation-with-a-decimal/"))!;
    expect(decimal.schemaText).toBe('{"minLength":2.0}');
  });

  it("the reference agrees with every kept test", async () => {
    const session = await inProcessSubject("reference").open("ag02");
    for (const row of imported.rows) {
      const checks = await runRow(row, session.send, "ag02");
      expect(checks).toHaveLength(1);
      expect(statusOf(checks, { level: "messages", tiers: ["core", "catalog", "hardening"] }), row.id).toBe("passed");
    }
  });

  it("refuses a folder that is not laid out like the suite", () => {
    expect(() => importJsts(fileURLToPath(new URL("../fixtures/no-such-folder", import.meta.url)))).toThrow(CorpusError);
  });

  it("reads subschemas at every level", () => {
    expect(outsideSubset(parseJSON('{"properties":{"a":{"items":{"anyOf":[{"type":"string"}]}}},"additionalProperties":false}'), "#")).toBeUndefined();
    expect(outsideSubset(parseJSON('{"additionalProperties":{"minimum":1,"exclusiveMinimum":0}}'), "#")).toBe('keyword "exclusiveMinimum" at #/additionalProperties');
    expect(outsideSubset(parseJSON('{"properties":{"a/b":{"$ref":"#"}}}'), "#")).toBe('keyword "$ref" at #/properties/a~1b');
  });

  it("slugs descriptions into id words", () => {
    expect(slug("Three digits: OK!")).toBe("three-digits-ok");
    expect(slug("héllo wörld")).toBe("hello-world");
    expect(slug("!!!")).toBe("x");
  });
});

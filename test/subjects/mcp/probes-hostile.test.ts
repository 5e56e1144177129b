import { describe, expect, test } from "vitest";
import { outside, probesFor } from "../../../src/subjects/mcp/probes.js";
import { judgeable } from "../../../src/subjects/mcp/subset.js";
import { unlistedName } from "../../../src/subjects/mcp/unlisted.js";

// Probe generation on schemas built to break it: a dialect whose reading is looser than the
// subset's, and sizes no loop or allocation may follow. Each ends, and what it cannot judge it
// does not probe.

const DRAFT_07 = "http://json-schema.org/draft-07/schema#";
const DRAFT_04 = "http://json-schema.org/draft-04/schema#";
const DRAFT_03 = "http://json-schema.org/draft-03/schema#";
const V2019 = "https://json-schema.org/draft/2019-09/schema";
const V2020 = "https://json-schema.org/draft/2020-12/schema";

const ids = (tool: string, schema: unknown) => probesFor(tool, schema).probes.map((p) => p.probe);
const about = (tool: string, schema: unknown, name: string) => ids(tool, schema).filter((id) => id.split("/").includes(name));

const withRef = (uri?: string) => ({
  ...(uri ? { $schema: uri } : {}),
  type: "object",
  properties: { n: { $ref: "#/definitions/any", type: "integer", minimum: 1 }, label: { type: "string" } },
  definitions: { any: {} },
});

describe("the server's dialect", () => {
  test("draft-07 ignores the siblings of $ref: nothing about that property is probed, the rest is", () => {
    expect(about("t", withRef(DRAFT_07), "n")).toEqual([]);
    expect(ids("t", withRef(DRAFT_07))).toContain("wrong-type/label/number");
  });
  test("with no $schema, $ref's siblings are not judged either (draft-07 may be how it is read)", () => {
    expect(about("t", withRef(), "n")).toEqual([]);
  });
  test("2019-09 and 2020-12 apply the siblings of $ref, so they are probed", () => {
    expect(about("t", withRef(V2019), "n")).toContain("wrong-type/n/string");
    expect(about("t", withRef(V2020), "n")).toContain("below-minimum/n");
  });
  test("a $ref at the root under draft-07 leaves nothing judged: not even a string is proven invalid", () => {
    expect(ids("t", { $schema: DRAFT_07, $ref: "#/definitions/a", type: "object", definitions: { a: {} } })).toEqual([]);
  });
  const pair = (uri?: string) => ({ ...(uri ? { $schema: uri } : {}), type: "object", properties: { p: { type: "array", prefixItems: [{}, {}], items: { type: "integer" } } } });
  test("items beside prefixItems is not judged under 2020-12 or with no $schema; under 2019-09 it applies to every element", () => {
    expect(about("t", pair(V2020), "p")).not.toContain("array-element/p");
    expect(about("t", pair(V2020), "p")).toContain("wrong-type/p/string");
    expect(about("t", pair(), "p")).not.toContain("array-element/p");
    expect(about("t", pair(V2019), "p")).toContain("array-element/p");
  });
  test("draft-04 has no const: no const probe, though the enum beside it is probed", () => {
    const schema = { $schema: DRAFT_04, type: "object", properties: { c: { const: "x" }, e: { enum: ["x"] } } };
    expect(ids("t", schema)).not.toContain("const/c");
    expect(ids("t", schema)).toContain("enum/e");
    expect(ids("t", { ...schema, $schema: DRAFT_07 })).toContain("const/c");
  });
  test("draft-03 reads required as a boolean on the property: no missing-required probe, and the schema is still judged", () => {
    const schema = { $schema: DRAFT_03, type: "object", properties: { a: { type: "string", required: true } }, required: ["a"] };
    expect(ids("t", schema).filter((id) => id.startsWith("missing-required"))).toEqual([]);
    expect(ids("t", schema)).toContain("wrong-type/a/number");
  });
  test("nullable: true lets null in: null is not proven invalid", () => {
    const judged = judgeable({ type: "object", properties: { a: { type: "integer", nullable: true } } });
    expect(judged.schema!.validate({ a: null } as never)).toEqual([]);
    expect(judged.schema!.validate({ a: "1" } as never)).not.toEqual([]);
  });
});

describe("bounded work", () => {
  test("an enum and a const of 2^53 give a number that is not listed (2^53 + 1 is 2^53 in a double)", () => {
    const { probes } = probesFor("t", { type: "object", properties: { e: { enum: [9007199254740992] }, c: { const: 9007199254740992 } } });
    for (const id of ["enum/e", "const/c"]) {
      const value = Object.values(probes.find((p) => p.probe === id)!.arguments as object)[0];
      expect(typeof value).toBe("number");
      expect(value).not.toBe(9007199254740992);
    }
    expect(outside([0, 1, 2, Number.MAX_VALUE])).toBe(3);
  });
  test("a bound next to 2^53 or near the largest double is crossed by a number that differs, or not probed", () => {
    const made = probesFor("t", { type: "object", properties: { i: { type: "integer", maximum: 9007199254740992 }, f: { type: "number", minimum: -1e308, maximum: 1.7976931348623157e308 } } });
    const value = (id: string) => (made.probes.find((p) => p.probe === id)?.arguments as Record<string, number> | undefined);
    expect(value("above-maximum/i")!.i).toBeGreaterThan(9007199254740992);
    expect(value("below-minimum/f")!.f).toBeLessThan(-1e308);
    expect(value("above-maximum/f")).toBeUndefined();
    expect(made.cut.join("\n")).toContain("above-maximum/f");
  });
  test("an enum of 150,000 values: no enum probe, said; the other probes are made", () => {
    const made = probesFor("t", { type: "object", properties: { n: { enum: Array.from({ length: 150_000 }, (_, i) => i) }, s: { type: "string" } }, required: ["n"] });
    expect(made.probes.map((p) => p.probe)).not.toContain("enum/n");
    expect(made.probes.map((p) => p.probe)).toContain("missing-required/n");
    expect(made.cut.join("\n")).toContain("150000");
  });
  test("a schema 3,000 deep is not walked: only its root's type is judged, and that is said", () => {
    let deep: Record<string, unknown> = { type: "string" };
    for (let i = 0; i < 3_000; i++) deep = { type: "object", properties: { a: deep } };
    const made = probesFor("t", deep);
    expect(made.probes.map((p) => p.probe)).toEqual(["non-object/array", "non-object/string"]);
    expect(made.unjudged).toContain("64");
    // with no type at its root, nothing can be proven invalid, so nothing is sent
    expect(probesFor("t", { properties: { a: deep } }).probes).toEqual([]);
  });
  test("minLength 1e9 and minItems 5e9 required: no valid base, so only non-object probes, and that is said", () => {
    for (const sub of [{ type: "string", minLength: 1e9 }, { type: "array", minItems: 5e9 }]) {
      const made = probesFor("t", { type: "object", properties: { a: sub }, required: ["a"] });
      expect(made.probes.map((p) => p.probe)).toEqual(["non-object/array", "non-object/string"]);
      expect(made.cut.join("\n")).toContain("no valid base");
    }
  });
  test("huge bounds on an optional property: the probes that would need them are not made, the rest are", () => {
    const made = probesFor("t", { type: "object", properties: { s: { type: "string", minLength: 1e9, maxLength: 1e12 }, l: { type: "array", minItems: 5e9, maxItems: 1e12 } } });
    const names = made.probes.map((p) => p.probe);
    for (const id of ["too-short/s", "too-long/s", "too-few-items/l", "too-many-items/l", "array-element/l"]) expect(names).not.toContain(id);
    expect(names).toContain("wrong-type/s/number");
    for (const id of ["too-short/s", "too-long/s", "too-few-items/l", "too-many-items/l"]) expect(made.cut.join("\n")).toContain(id);
  });
});

describe("the unknown tool's name", () => {
  test("is one the server does not list", () => {
    expect(unlistedName("x", [])).toBe("x");
    const listed = ["x", "x_2", "x_3"];
    expect(listed).not.toContain(unlistedName("x", listed));
  });
});

describe("single-fault probes", () => {
  const SCHEMA = { type: "object", properties: { id: { type: "string", pattern: "^n-[0-9]+$" }, q: { type: "integer" } }, required: ["id"], additionalProperties: false };
  test("a base string is built from its pattern, so the extra-property probe is refused for the extra property alone", () => {
    const probe = probesFor("t", SCHEMA).probes.find((p) => p.probe === "extra-property");
    expect(probe).toBeDefined();
    expect(new RegExp(SCHEMA.properties.id.pattern).test((probe!.arguments as { id: string }).id)).toBe(true);
    expect(probe!.errors).toHaveLength(1);
  });
  test("every object probe has exactly one error", () => {
    for (const probe of probesFor("t", SCHEMA).probes) expect(probe.errors, probe.probe).toHaveLength(1);
  });
  test("a base no value can be built for: not probed beyond non-object arguments, and said", () => {
    const made = probesFor("t", { type: "object", properties: { id: { type: "string", pattern: "^(a|b)c$" } }, required: ["id"], additionalProperties: false });
    expect(made.probes.map((p) => p.probe)).toEqual(["non-object/array", "non-object/string"]);
    expect(made.cut.join("\n")).toContain("no valid base");
  });
});

import { describe, expect, it } from "vitest";
import { lintTool, lintTools, MAX_FINDINGS, MCP_NAME_PATTERN } from "../../../src/subjects/mcp/lint.js";
import { judgeable } from "../../../src/subjects/mcp/subset.js";

// The advertised contract, linted from tools/list alone: each rule on schemas written to show it,
// and on the seed's own get_weather, which the seed itself leaves open in one place.

const rules = (name: string, schema: unknown) => lintTool(name, schema).map((f) => `${f.rule}${f.at !== undefined ? ` ${f.at}` : ""}${f.detail !== undefined ? `: ${f.detail}` : ""}`);
const object = (properties: Record<string, unknown>, more: Record<string, unknown> = {}) => ({ type: "object", properties, required: Object.keys(properties).slice(0, 1), additionalProperties: false, ...more });

describe("the schema's rules", () => {
  it("the seed's get_weather: closed and required, its city bounded below only", () => {
    const weather = { type: "object", properties: { city: { type: "string", minLength: 1 }, days: { type: "integer", minimum: 1, maximum: 7 }, unit: { enum: ["c", "f"] } }, required: ["city"], additionalProperties: false };
    expect(rules("get_weather", weather)).toEqual(["unbounded-string $.properties.city"]);
  });

  it("open-object: additionalProperties absent, true or {} where there are properties, at the root and nested; a schema or unevaluatedProperties: false closes it", () => {
    const p = { n: { type: "integer" } };
    expect(rules("t", { type: "object", properties: p, required: ["n"] })).toEqual(["open-object $"]);
    expect(rules("t", object(p, { additionalProperties: true }))).toEqual(["open-object $"]);
    expect(rules("t", object(p, { additionalProperties: {} }))).toEqual(["open-object $"]);
    expect(rules("t", object(p, { additionalProperties: { type: "integer" } }))).toEqual([]);
    expect(rules("t", object({ address: { type: "object", properties: p, required: ["n"] } }))).toEqual(["open-object $.properties.address"]);
    expect(rules("t", object(p, { additionalProperties: undefined, unevaluatedProperties: false }))).toEqual(["not-judged: unevaluatedProperties at $"]);
  });

  it("open-object: a tool with no parameters left open at its root (MCP recommends it closed); a nested free-form object is not one", () => {
    expect(rules("now", { type: "object" })).toEqual(["open-object $"]);
    expect(rules("now", { type: "object", additionalProperties: false })).toEqual([]);
    expect(rules("t", object({ meta: { type: "object" } }))).toEqual([]);
  });

  it("no-required: properties and no required list; an empty list or draft-03's booleans say what is required", () => {
    const p = { q: { type: "integer" } };
    expect(rules("t", { type: "object", properties: p, additionalProperties: false })).toEqual(["no-required $"]);
    expect(rules("t", { type: "object", properties: p, required: [], additionalProperties: false })).toEqual([]);
    expect(rules("t", { $schema: "http://json-schema.org/draft-03/schema#", type: "object", properties: { q: { type: "integer", required: true } }, additionalProperties: false })).toEqual(["not-judged: required at $.properties.q (not a list: draft-03's form)"]);
    expect(rules("t", object({ inner: { type: "object", properties: p, additionalProperties: false } }))).toEqual(["no-required $.properties.inner"]);
  });

  it("unbounded-string: a string with no maxLength, enum, const, nor a pattern anchored at both ends without *, +, {n,} or |", () => {
    const string = (more: Record<string, unknown>) => rules("t", object({ s: { type: "string", ...more } }));
    expect(string({})).toEqual(["unbounded-string $.properties.s"]);
    expect(string({ minLength: 1 })).toEqual(["unbounded-string $.properties.s"]);
    expect(string({ maxLength: 40 })).toEqual([]);
    expect(string({ enum: ["a", "b"] })).toEqual([]);
    expect(string({ const: "a" })).toEqual([]);
    expect(string({ pattern: "^[A-Z]{2}$" })).toEqual([]);
    for (const pattern of ["[0-9]{3}", "^[a-z]+$", "^a*$", "^a{2,}$", "^(a|bb)$", "^abc", "abc$", "^abc\\$"]) expect(string({ pattern }), pattern).toEqual(["unbounded-string $.properties.s"]);
    expect(rules("t", object({ s: { type: ["string", "null"] } }))).toEqual(["unbounded-string $.properties.s"]);
    // no type: not read as a string here
    expect(rules("t", object({ s: { minLength: 1 } }))).toEqual([]);
  });

  it("walks where the subset reads: properties, items, an additionalProperties schema, anyOf; never through $ref", () => {
    const schema = object({
      tags: { type: "array", items: { type: "string" }, maxItems: 3 },
      map: { type: "object", additionalProperties: { type: "string" } },
      either: { anyOf: [{ type: "string" }, { type: "integer" }] },
      linked: { $ref: "#/$defs/x", type: "string" },
    });
    expect(rules("t", schema).filter((r) => !r.startsWith("not-judged"))).toEqual(["unbounded-string $.properties.tags.items", "unbounded-string $.properties.map.additionalProperties", "unbounded-string $.properties.either.anyOf[0]"]);
  });
});

describe("the name's rules", () => {
  const closed = { type: "object", additionalProperties: false };
  it("outside MCP's rule (and so the seed's): one finding, name-mcp; within MCP's, outside the seed's: name-seed", () => {
    expect(rules("get weather", closed)).toEqual(["name-mcp"]);
    expect(rules("", closed)).toEqual(["name-mcp"]);
    expect(rules("a".repeat(129), closed)).toEqual(["name-mcp"]);
    expect(rules("admin.tools.list", closed)).toEqual(["name-seed"]);
    expect(rules("a".repeat(65), closed)).toEqual(["name-seed"]);
    expect(rules("a".repeat(64), closed)).toEqual([]);
    expect(rules("DATA_EXPORT_v2", closed)).toEqual([]);
  });

  it("MCP's rule is the 2025-11-25 spec's: 1 to 128 of A-Za-z0-9, _, - and .", () => {
    for (const name of ["getUser", "DATA_EXPORT_v2", "admin.tools.list", "a".repeat(128)]) expect(MCP_NAME_PATTERN.test(name), name).toBe(true);
    for (const name of ["", "a b", "a,b", "a/b", "é", "a".repeat(129)]) expect(MCP_NAME_PATTERN.test(name), name).toBe(false);
  });
});

describe("not judged: what subset.ts drops, as it says it", () => {
  it("is subset.ts's own list, in its words and order", () => {
    const schema = { type: "object", properties: { email: { type: "string", format: "email", maxLength: 99 }, kind: { oneOf: [{ const: 1 }, { const: 2 }] } }, required: ["email"], additionalProperties: false, allOf: [] };
    const notJudged = lintTool("t", schema).filter((f) => f.rule === "not-judged").map((f) => f.detail);
    expect(notJudged).toEqual(judgeable(schema).dropped);
    expect(notJudged).toContain("format at $.properties.email");
  });

  it("a schema deeper than the cap: not walked, said once", () => {
    let deep: Record<string, unknown> = { type: "string" };
    for (let i = 0; i < 100; i++) deep = { type: "object", properties: { x: deep }, required: ["x"], additionalProperties: false };
    const found = lintTool("t", deep);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ rule: "not-judged" });
    expect(found[0]!.detail).toMatch(/nests deeper than 64 levels/);
  });
});

describe("lintTools", () => {
  it("leaves clean tools out, keeps the order given, and caps each tool's findings at MAX_FINDINGS, counting the rest", () => {
    const many = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`s${i}`, { type: "string" }]));
    const out = lintTools([
      { name: "wide", inputSchema: object(many) },
      { name: "clean", inputSchema: { type: "object", additionalProperties: false } },
      { name: "open", inputSchema: { type: "object" } },
    ]);
    expect(out.map((t) => t.tool)).toEqual(["wide", "open"]);
    expect(out[0]!.findings).toHaveLength(MAX_FINDINGS);
    expect(out[0]!.more).toBe(100 - MAX_FINDINGS);
    expect(out[1]).toEqual({ tool: "open", findings: [{ rule: "open-object", at: "$" }] });
  });

  it("no inputSchema: open, as the seed reads it ({\"type\":\"object\"}); one that is not an object: not judged, in the reference's words; nothing thrown", () => {
    const out = lintTools([{ name: "a" }, { name: "b", inputSchema: null }, { name: "c", inputSchema: "x" }, { name: "d", inputSchema: [1] }]);
    expect(out[0]).toEqual({ tool: "a", findings: [{ rule: "open-object", at: "$" }] });
    expect(out.slice(1).map((t) => [t.tool, t.findings.map((f) => f.rule)])).toEqual([["b", ["not-judged"]], ["c", ["not-judged"]], ["d", ["not-judged"]]]);
  });
});

import { describe, expect, test } from "vitest";
import { compile } from "../../../src/schema/compile.js";
import { EXTRA_KEY, probesFor } from "../../../src/subjects/mcp/probes.js";
import { judgeable } from "../../../src/subjects/mcp/subset.js";

// Probes are invalid arguments only, each proven so by the reference on the tool's own schema,
// and the same on every run.

const WEATHER = {
  type: "object",
  properties: { city: { type: "string", minLength: 1 }, days: { type: "integer", minimum: 1, maximum: 7 }, unit: { enum: ["c", "f"] }, tags: { type: "array", items: { type: "string" }, maxItems: 3 } },
  required: ["city"],
  additionalProperties: false,
};

describe("probes from a tool's inputSchema", () => {
  const { probes } = probesFor("get_weather", WEATHER);
  const byProbe = new Map(probes.map((p) => [p.probe, p]));

  test("every probe is invalid under the tool's own schema, by the reference", () => {
    const schema = compile(JSON.stringify(WEATHER));
    expect(probes.length).toBeGreaterThan(10);
    for (const probe of probes) expect(schema.validate(probe.arguments as never).length, probe.id).toBeGreaterThan(0);
  });

  test("the issue's kinds of invalid argument are each there", () => {
    expect(byProbe.get("missing-required/city")?.arguments).toEqual({});
    expect(byProbe.get("extra-property")?.arguments).toEqual({ city: "a", [EXTRA_KEY]: "x" });
    expect(byProbe.get("integer-as-string/days")?.arguments).toEqual({ city: "a", days: "3" });
    expect(byProbe.get("integer-fraction/days")?.arguments).toEqual({ city: "a", days: 3.5 });
    expect(byProbe.get("below-minimum/days")?.arguments).toEqual({ city: "a", days: 0 });
    expect(byProbe.get("above-maximum/days")?.arguments).toEqual({ city: "a", days: 8 });
    expect(byProbe.get("too-short/city")?.arguments).toEqual({ city: "" });
    expect(byProbe.get("enum/unit")).toBeDefined();
    expect(byProbe.get("too-many-items/tags")?.arguments).toEqual({ city: "a", tags: ["a", "a", "a", "a"] });
    expect(byProbe.get("array-element/tags")?.arguments).toEqual({ city: "a", tags: ["a", 12.5] });
    expect(byProbe.get("wrong-type/days/string")?.arguments).toEqual({ city: "a", days: "not a number" });
    expect(byProbe.get("non-object/array")?.arguments).toEqual(["x"]);
  });

  test("row ids are stable per tool and probe", () => {
    expect(byProbe.get("missing-required/city")?.id).toBe("mcp/get_weather/missing-required/city");
    expect(probesFor("get_weather", WEATHER)).toEqual(probesFor("get_weather", WEATHER));
  });

  test("what a refusal must name comes from the reference's errors: the property, or the array and the index", () => {
    expect(byProbe.get("missing-required/city")?.names).toEqual([["city"]]);
    expect(byProbe.get("extra-property")?.names).toEqual([[EXTRA_KEY]]);
    expect(byProbe.get("array-element/tags")?.names).toEqual([["tags", "1"]]);
  });

  test("no extra-property probe where additionalProperties is not false", () => {
    const { probes: open } = probesFor("t", { ...WEATHER, additionalProperties: true });
    expect(open.some((p) => p.probe === "extra-property")).toBe(false);
  });
});

describe("a schema outside the subset is loosened, never tightened", () => {
  test("format is dropped and listed; the rest still judged", () => {
    const judged = judgeable({ type: "object", properties: { email: { type: "string", format: "email" } }, required: ["email"] });
    expect(judged.dropped).toEqual(["format at $.properties.email"]);
    expect(judged.schema?.validate({} as never).length).toBe(1);
  });
  test("additionalProperties: false goes too beside patternProperties (which it would otherwise tighten)", () => {
    const judged = judgeable({ type: "object", patternProperties: { "^x-": {} }, additionalProperties: false });
    expect(judged.dropped).toContain("patternProperties at $");
    expect(judged.schema?.validate({ "x-a": 1 } as never)).toEqual([]);
    const { probes } = probesFor("t", { type: "object", patternProperties: { "^x-": {} }, additionalProperties: false });
    expect(probes.some((p) => p.probe === "extra-property")).toBe(false);
  });
  test("a pattern RE2 cannot read is dropped and the schema judged without it", () => {
    const judged = judgeable({ type: "object", properties: { a: { type: "string", pattern: "(?=x)" } } });
    expect(judged.dropped).toEqual(["pattern at $.properties.a (outside what RE2 reads)"]);
    expect(judged.schema).toBeDefined();
  });
  test("no probe is made that the loosened schema cannot prove invalid", () => {
    const { probes } = probesFor("t", { type: "object", properties: { a: { oneOf: [{ type: "string" }, { type: "number" }] } } });
    expect(probes.map((p) => p.probe)).toEqual(["non-object/array", "non-object/string"]);
  });
});

describe("each probe breaks only its own rule", () => {
  test("a required property with a pattern gets a value the pattern accepts in the base", () => {
    const { probes } = probesFor("repo", { type: "object", properties: { owner: { type: "string", pattern: "^[0-9]+$" }, n: { type: "integer" } }, required: ["owner"] });
    const probe = probes.find((p) => p.probe === "wrong-type/n/string")!;
    expect(probe.arguments).toEqual({ owner: "0", n: "not a number" });
    expect(probe.errors).toEqual(["$.n: expected integer, got string"]);
  });
  test('"3" and 3.5 stay inside the bounds, so the type or the fraction is all that is wrong', () => {
    const { probes } = probesFor("t", { type: "object", properties: { n: { type: "integer", minimum: 5, maximum: 6 } }, required: ["n"] });
    expect(probes.find((p) => p.probe === "integer-as-string/n")?.arguments).toEqual({ n: "5" });
    expect(probes.find((p) => p.probe === "integer-fraction/n")?.arguments).toEqual({ n: 5.5 });
    expect(probes.find((p) => p.probe === "integer-fraction/n")?.errors).toEqual(["$.n: expected integer, got number"]);
  });
  test("a tool without an inputSchema is probed as {\"type\":\"object\"}: non-object arguments only", () => {
    expect(probesFor("t", undefined).probes.map((p) => p.probe)).toEqual(["non-object/array", "non-object/string"]);
  });
});

// The shapes generated SDKs give a tool: one object holding the real arguments, an array of objects.
const ONE_OBJECT = {
  type: "object",
  properties: {
    params: {
      type: "object",
      properties: { name: { type: "string", pattern: "^n-[0-9]+$" }, count: { type: "integer", minimum: 1 } },
      required: ["name"],
      additionalProperties: false,
    },
    request: { type: "object", properties: { body: { type: "object", properties: { title: { type: "string", maxLength: 5 } }, required: ["title"], additionalProperties: false } }, required: ["body"] },
    rows: { type: "array", items: { type: "object", properties: { id: { type: "integer" } }, required: ["id"], additionalProperties: false } },
  },
  required: ["params"],
  additionalProperties: false,
};

describe("objects nested in the arguments are probed inside", () => {
  const { probes, cut } = probesFor("t", ONE_OBJECT);
  const byProbe = new Map(probes.map((p) => [p.probe, p]));
  const schema = compile(JSON.stringify(ONE_OBJECT));

  test("a property of params: missing, of a wrong type, '3' for an integer, an unknown key beside it", () => {
    // the base's name matches its pattern, so each probe breaks one rule only
    expect(byProbe.get("missing-required/params.name")?.arguments).toEqual({ params: {} });
    expect(byProbe.get("wrong-type/params.name/number")?.arguments).toEqual({ params: { name: 12.5 } });
    expect(byProbe.get("integer-as-string/params.count")?.arguments).toEqual({ params: { name: "n-0", count: "3" } });
    expect(byProbe.get("extra-property/params")?.arguments).toEqual({ params: { name: "n-0", [EXTRA_KEY]: "x" } });
    expect(byProbe.get("extra-property/params")?.names).toEqual([[EXTRA_KEY]]);
    expect(byProbe.get("wrong-type/params.name/number")?.names).toEqual([["name"]]);
  });

  test("two levels down, and inside an array's element", () => {
    expect(byProbe.get("too-long/request.body.title")?.arguments).toEqual({ params: { name: "n-0" }, request: { body: { title: "aaaaaa" } } });
    expect(byProbe.get("missing-required/request.body.title")?.arguments).toEqual({ params: { name: "n-0" }, request: { body: {} } });
    expect(byProbe.get("integer-fraction/rows[0].id")?.arguments).toEqual({ params: { name: "n-0" }, rows: [{ id: 3.5 }] });
    expect(byProbe.get("extra-property/rows[0]")?.arguments).toEqual({ params: { name: "n-0" }, rows: [{ id: 1, [EXTRA_KEY]: "x" }] });
  });

  test("each nested probe has exactly one error, at the place it names", () => {
    const nested = probes.filter((p) => p.probe.includes("."));
    expect(nested.length).toBeGreaterThan(10);
    for (const probe of nested) {
      const errors = schema.validate(probe.arguments as never);
      expect(errors.length, probe.id).toBe(1);
      expect(String(errors[0]), probe.id).toMatch(/^\$\.(params|request|rows\[0\])/);
    }
    expect(cut).toEqual([]);
  });

  test("deeper than the cap, objects are not probed inside, and that is said", () => {
    let deep: Record<string, unknown> = { type: "object", properties: { leaf: { type: "integer" } }, required: ["leaf"] };
    for (let i = 0; i < 6; i++) deep = { type: "object", properties: { a: deep }, required: ["a"] };
    const made = probesFor("t", deep);
    expect(made.probes.some((p) => p.probe === "integer-fraction/a.a.a.a")).toBe(false);
    expect(made.probes.some((p) => p.probe === "wrong-type/a.a.a.a/string")).toBe(true);
    expect(made.cut.join("\n")).toContain("a.a.a.a: not probed inside, it is nested more than 4 levels deep (the cap)");
  });

  test("a nested name that is not an identifier is quoted, so two paths never read the same", () => {
    const made = probesFor("t", { type: "object", properties: { a: { type: "object", properties: { "b.c": { type: "integer" } } }, "a.b": { type: "object", properties: { c: { type: "integer" } } } } });
    const ids = made.probes.map((p) => p.probe).filter((p) => p.startsWith("integer-fraction/"));
    expect(ids.sort()).toEqual(['integer-fraction/a.b.c', 'integer-fraction/a["b.c"]']);
  });
});

describe("a base that keeps the formats the subset drops", () => {
  test("a required uri gets a URL, so a server that checks formats refuses each probe for its own rule (discogs' externalLink)", () => {
    const schema = { type: "object", properties: { externalLink: { type: "string", format: "uri" }, when: { type: "string", format: "date" } }, required: ["externalLink", "when"], additionalProperties: false };
    const made = probesFor("t", schema);
    expect(made.probes.find((p) => p.probe === "extra-property")?.arguments).toEqual({ externalLink: "https://example.com/a", when: "2024-01-01", [EXTRA_KEY]: "x" });
    // a format next to a bound that refuses its sample: the plain sample, as before
    const short = probesFor("t", { type: "object", properties: { u: { type: "string", format: "uri", maxLength: 3 } }, required: ["u"], additionalProperties: false });
    expect(short.probes.find((p) => p.probe === "extra-property")?.arguments).toEqual({ u: "a", [EXTRA_KEY]: "x" });
  });

  test("a UUID pattern with its version and variant digits gets a UUID base, so the tool is probed (firecrawl's jobId)", () => {
    const schema = { type: "object", properties: { jobId: { type: "string", pattern: "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[1-8][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}$" } }, required: ["jobId"], additionalProperties: false };
    const made = probesFor("t", schema);
    expect(made.unprobed).toBeUndefined();
    expect(made.probes.find((p) => p.probe === "extra-property")?.arguments).toEqual({ jobId: "00000000-0000-4000-8000-000000000000", [EXTRA_KEY]: "x" });
  });
});

describe("a pattern is probed with a text it does not match", () => {
  const tool = (id: Record<string, unknown>) => probesFor("t", { type: "object", properties: { id: { type: "string", ...id } }, required: ["id"], additionalProperties: false });
  test("the first text the reference proves breaks the pattern alone, the base matching it", () => {
    const { probes } = tool({ pattern: "^n-[0-9]+$" });
    const probe = probes.find((p) => p.probe === "pattern/id")!;
    expect(probe.arguments).toEqual({ id: "tool-conformance-not-matching" });
    expect(probe.rule).toBe("pattern");
    expect(probe.errors).toHaveLength(1);
    // the other probes' base matches it: an extra property breaks only additionalProperties
    expect(probes.find((p) => p.probe === "extra-property")!.errors).toHaveLength(1);
  });
  test("a text of a length its bounds allow; a pattern every text matches is said not probed", () => {
    const { probes } = tool({ pattern: "^[a-z-]+$", minLength: 3, maxLength: 5 });
    expect(probes.find((p) => p.probe === "pattern/id")!.arguments).toEqual({ id: "!!!" });
    const open = tool({ pattern: "" });
    expect(open.probes.some((p) => p.probe.startsWith("pattern/"))).toBe(false);
    expect(open.cut).toContain("pattern/id: not probed, no text was found that breaks its pattern alone");
  });
});

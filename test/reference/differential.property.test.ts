import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { compile } from "../../src/schema/compile.js";
import { loadAjv } from "../../src/subjects/validators/ajv.js";
import type { LibraryValidate, ValidatorLibrary } from "../../src/subjects/validators/library.js";

// Law: for a schema inside the subset and an argument text, the reference and ajv (Ajv2020,
// all errors, instances read with JSON.parse) give the same verdict.
//
// Generation stays clear of the differences that are the spec's choice; each has rows in
// conformance/corpus/TestValidateTable/differences.json (and docs/validators.md lists them):
//  - patterns: RE2 against ECMA-262. Only patterns both engines read alike are generated
//    (no ., \s, \p{..}, lookaround, backreferences, inline flags).
//  - exact numbers: every number literal is the shortest text of a float64 (or an integer
//    respelled exactly, 3.0, 3e0, 30e-1), so exact decimals and float64 order them alike.
//    9007199254740993, 2.0000000000000001 and 1e400 are not generated.
//  - JSON text: no duplicate keys, lone surrogates or nesting deeper than 1000 (JSON.parse reads them).
//  - property names: never ones JavaScript objects inherit (valueOf, __proto__, constructor …).

const NAMES = ["a", "b", "c", "é"];
/** Patterns RE2 and ECMA-262 (u flag) read alike. */
const PATTERNS = ["", "a", "^a", "b$", "^[a-c]+$", "[0-9]{2}", "^$", "x|é", "^[^a]*$", "\\d", "💩", "^a*b?$", "[A-Z]"];
/** Numbers whose texts are float64's own: boundaries for minimum/maximum and enum values. */
const NUMBERS = [-2, -1, -0.5, 0, 0.1, 0.5, 1, 1.5, 2, 3, 7, 7.5, 8, 1e21, 2.5e-7];
const TYPES = ["null", "boolean", "object", "array", "number", "string", "integer"] as const;
const CHARS = ["a", "b", "c", "0", "1", "é", "💩", "\n", " ", "A", "x"];

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const number = fc.constantFrom(...NUMBERS);
const string = fc.array(fc.constantFrom(...CHARS), { maxLength: 6 }).map((chars) => chars.join(""));
const count = fc.integer({ min: 0, max: 5 });

/** A JSON value, nested at most `depth` levels. */
function valueAt(depth: number): fc.Arbitrary<Json> {
  const leaves = [fc.constant(null), fc.boolean(), number, string] as fc.Arbitrary<Json>[];
  if (depth === 0) return fc.oneof(...leaves);
  const below = valueAt(depth - 1);
  return fc.oneof(
    ...leaves,
    fc.array(below, { maxLength: 4 }),
    fc.dictionary(fc.constantFrom(...NAMES), below, { maxKeys: 4 }),
  );
}
const value = valueAt(2);

const typeKeyword = fc.oneof(fc.constantFrom(...TYPES), fc.uniqueArray(fc.constantFrom(...TYPES), { minLength: 1, maxLength: 3 }));

/** A schema of up to four keywords of the subset, subschemas nested at most `depth` levels. */
function schemaAt(depth: number): fc.Arbitrary<Record<string, unknown>> {
  const keywords: Record<string, fc.Arbitrary<unknown>> = {
    type: typeKeyword,
    enum: fc.array(value, { minLength: 1, maxLength: 3 }),
    const: value,
    required: fc.uniqueArray(fc.constantFrom(...NAMES), { maxLength: 3 }),
    additionalProperties: fc.boolean(),
    minItems: count,
    maxItems: count,
    minLength: count,
    maxLength: count,
    pattern: fc.constantFrom(...PATTERNS),
    minimum: number,
    maximum: number,
    title: fc.constant("annotation"),
  };
  if (depth > 0) {
    const below = schemaAt(depth - 1);
    keywords.properties = fc.dictionary(fc.constantFrom(...NAMES), below, { maxKeys: 3 });
    keywords.additionalProperties = fc.oneof(fc.boolean(), below);
    keywords.items = below;
    keywords.anyOf = fc.array(below, { minLength: 1, maxLength: 3 });
  }
  return fc
    .uniqueArray(fc.constantFrom(...Object.keys(keywords)), { maxLength: 4 })
    .chain((names) => fc.record(Object.fromEntries(names.map((name) => [name, keywords[name]!]))));
}
const smallSchema = schemaAt(2);

/** JSON text for a value; integers are sometimes respelled exactly (3.0, 3e0, 30e-1). */
function text(value: Json, spell: number): string {
  if (typeof value === "number") {
    if (Number.isInteger(value) && Math.abs(value) < 1e6) {
      const spellings = [String(value), `${value}.0`, `${value}e0`, `${value * 10}e-1`];
      return spellings[spell % spellings.length]!;
    }
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) return `[${value.map((item, i) => text(item, spell + i)).join(",")}]`;
  if (value !== null && typeof value === "object") {
    return `{${Object.entries(value)
      .map(([key, item], i) => `${JSON.stringify(key)}:${text(item, spell + i)}`)
      .join(",")}}`;
  }
  return JSON.stringify(value);
}

describe("differential: the reference and ajv agree on the verdict inside the subset", () => {
  let ajv: ValidatorLibrary;
  beforeAll(async () => {
    ajv = await loadAjv();
  });

  it("for every generated schema and argument near its boundaries, both say valid or both say invalid", async () => {
    await fc.assert(
      fc.asyncProperty(smallSchema, fc.array(fc.tuple(value, fc.nat(3)), { minLength: 1, maxLength: 6 }), async (schemaValue, instances) => {
        const schemaText = JSON.stringify(schemaValue);
        const reference = compile(schemaText);
        const check: LibraryValidate = await ajv.compile(JSON.parse(schemaText));
        for (const [instance, spell] of instances) {
          const argument = text(instance, spell);
          const ours = reference.validateJSON(argument).length === 0;
          const theirs = (await check(JSON.parse(argument))).length === 0;
          expect({ schema: schemaText, argument, valid: ours }).toEqual({ schema: schemaText, argument, valid: theirs });
        }
      }),
      { numRuns: 300 },
    );
  });

  it("the documented differences are real: ajv answers them the other way", async () => {
    const cases: [string, string][] = [
      ['{"pattern":"^a\\\\sb$"}', '"a\\u2003b"'],
      ['{"pattern":"^a.b$"}', '"a\\u2029b"'],
      ['{"maximum":9007199254740992}', "9007199254740993"],
      ['{"type":"object","properties":{"n":{"type":"integer"}}}', '{"n":2.0000000000000001}'],
      ['{"enum":[0.3]}', "0.30000000000000001"],
      ['{"type":"object","properties":{"n":{"maximum":7}}}', '{"n":100,"n":1}'],
      ['{"maxLength":1}', '"\\udc00"'],
      ['{"items":{"type":"array"}}', "[".repeat(1001) + "]".repeat(1001)],
      ['{"type":"object","required":["valueOf"]}', "{}"],
      ['{"type":"object","properties":{"__proto__":{"maximum":0}}}', '{"__proto__":5}'],
    ];
    for (const [schemaText, argument] of cases) {
      const ours = compile(schemaText).validateJSON(argument).length === 0;
      const theirs = (await (await ajv.compile(JSON.parse(schemaText)))(JSON.parse(argument))).length === 0;
      expect({ schemaText, differs: ours !== theirs }).toEqual({ schemaText, differs: true });
    }
  });
});

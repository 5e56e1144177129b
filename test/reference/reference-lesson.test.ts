import fc from "fast-check";
import { RE2JS } from "re2js";
import { describe, expect, it } from "vitest";
import {
  compile,
  compileECMA,
  FuncTool,
  handlerKindOf,
  isLesson,
  LookupError,
  newTool,
  Registry,
  SchemaError,
  translateECMA,
  type Tool,
} from "../../src/index.js";

// The reference's lesson profile (seed 001): ECMA-262 patterns (on RE2 where the translation is
// exact), `$ref` into a local definitions block, expectedType on type errors, and the registry's
// records (get, validate by name, handler kind).

const lesson = (schema: unknown) => compile(JSON.stringify(schema), { profile: "lesson" });
const errorsOf = (schema: unknown, instance: unknown) =>
  lesson(schema)
    .validateJSON(JSON.stringify(instance))
    .map((e) => `${e.path}: ${e.message}`);
const refusal = (schema: unknown, profile: "ag02" | "lesson" = "lesson") => {
  try {
    compile(JSON.stringify(schema), { profile });
  } catch (error) {
    expect(error).toBeInstanceOf(SchemaError);
    return (error as Error).message;
  }
  throw new Error("compiled");
};
const matches = (pattern: string, text: string) => lesson({ pattern }).validateJSON(JSON.stringify(text)).length === 0;

describe("profiles", () => {
  it('"pointer" is the lesson profile\'s former name; ag02 is the default', () => {
    expect(isLesson("lesson")).toBe(true);
    expect(isLesson("pointer")).toBe(true);
    expect(isLesson("ag02")).toBe(false);
    expect(isLesson(undefined)).toBe(false);
    // the dialect follows: an ECMA-only pattern compiles in the lesson profile alone
    expect(() => compile('{"pattern": "a(?=b)"}', { profile: "pointer" })).not.toThrow();
    expect(() => compile('{"pattern": "a(?=b)"}', { profile: "ag02" })).toThrow(SchemaError);
    expect(() => compile('{"pattern": "a(?=b)"}')).toThrow(SchemaError);
  });
});

describe("ECMA-262 patterns, translated to RE2 where exact", () => {
  it("translates each construct as the rules say", () => {
    const table: [string, string][] = [
      [".", "[^\\x{A}\\x{D}\\x{2028}-\\x{2029}]"],
      ["\\s", "[\\x{9}-\\x{D} \\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}-\\x{2029}\\x{202F}\\x{205F}\\x{3000}\\x{FEFF}]"],
      ["\\S", "[^\\x{9}-\\x{D} \\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}-\\x{2029}\\x{202F}\\x{205F}\\x{3000}\\x{FEFF}]"],
      ["\\d\\D", "[0-9][^0-9]"],
      ["\\w\\W", "[0-9A-Z_a-z][^0-9A-Z_a-z]"],
      ["\\b\\B", "\\b\\B"],
      ["^a$|b", "^a$|b"],
      ["\\t\\n\\v\\f\\r", "\\x{9}\\x{A}\\x{B}\\x{C}\\x{D}"],
      ["\\0\\cJ\\cj\\x41\\x7e", "\\x{0}\\x{A}\\x{A}A\\~"],
      ["\\u0041\\u00e9\\u{1F4A9}\\u{00000041}", "A\\x{E9}\\x{1F4A9}A"],
      // a lead and a trail surrogate escape are one code point; anything else stays as written
      ["\\ud83d\\udca9", "\\x{1F4A9}"],
      ["\\uD83D\\uDCA9", "\\x{1F4A9}"],
      ["\\ud83d\\u0041", "\\x{D83D}A"],
      ["\\ud83d\\u{dca9}", "\\x{D83D}\\x{DCA9}"],
      ["\\udca9\\ud83d", "\\x{DCA9}\\x{D83D}"],
      ["\\ud83d", "\\x{D83D}"],
      ["\\ud83dx", "\\x{D83D}x"],
      ["\\ud83d\\n", "\\x{D83D}\\x{A}"],
      ["\\ud7ff\\udc00", "\\x{D7FF}\\x{DC00}"],
      ["\\udbff\\udfff", "\\x{10FFFF}"],
      ["\\ud800\\udc00", "\\x{10000}"],
      ["\\udc00\\udc00", "\\x{DC00}\\x{DC00}"],
      ["\\ud800\\udbff", "\\x{D800}\\x{DBFF}"],
      ["\\ud800\\ue000", "\\x{D800}\\x{E000}"],
      ["\\ud83dxudc00", "\\x{D83D}xudc00"],
      ["\\ud83d\\xdc00", "\\x{D83D}\\x{DC}00"],
      ["\\^\\$\\\\\\.\\*\\+\\?\\(\\)\\[\\]\\{\\}\\|\\/", "\\^\\$\\\\\\.\\*\\+\\?\\(\\)\\[\\]\\{\\}\\|\\/"],
      ["a_Z 9-@é💩\u2028", "a_Z 9\\-\\@\\x{E9}\\x{1F4A9}\\x{2028}"],
      ["~`!:", "\\~\\`\\!\\:"],
      ["(a)(?:b)(?<year>c)", "(a)(?:b)(c)"],
      ["a*b+c?d{2}e{2,}f{2,3}g*?h{01,010}?i{0}j{00}", "a*b+c?d{2}e{2,}f{2,3}g*?h{1,10}?i{0}j{0}"],
      ["a{100}b{001}c{0010,100}", "a{100}b{1}c{10,100}"],
      // classes: ranges merged and sorted; a set escape becomes its ranges
      ["[a-z\\d_-]", "[\\-0-9_a-z]"],
      ["[c-ea-d]", "[a-e]"],
      ["[a-cb-d]", "[a-d]"],
      ["[a-ce-g]", "[a-ce-g]"],
      ["[a-cd-f]", "[a-f]"],
      ["[a-za-c]", "[a-z]"],
      ["[ba]", "[a-b]"],
      ["[--a]", "[\\--a]"],
      ["[a-]", "[\\-a]"],
      ["[-a]", "[\\-a]"],
      ["[\\w-]", "[\\-0-9A-Z_a-z]"],
      ["[\\]\\-\\\\\\^]", "[\\-\\\\-\\^]"],
      ["[\\]-a]", "[\\]-a]"],
      ["[\\b]", "[\\x{8}]"],
      ["[\\0\\t\\cJ\\x41\\u{42}]", "[\\x{0}\\x{9}-\\x{A}A-B]"],
      ["[\\s]", "[\\x{9}-\\x{D} \\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}-\\x{2029}\\x{202F}\\x{205F}\\x{3000}\\x{FEFF}]"],
      ["[\\D]", "[^0-9]"],
      ["[^\\d]", "[^0-9]"],
      ["[^\\D]", "[0-9]"],
      ["[^a]", "[^a]"],
      ["[^\\0]", "[^\\x{0}]"],
      ["[\\u{10FFFF}]", "[^\\x{0}-\\x{10FFFE}]"],
      ["[\\u{10FFFE}-\\u{10FFFF}a]", "[^\\x{0}-\\`b-\\x{10FFFD}]"],
      ["[\\0-\\u{10FFFE}]", "[\\x{0}-\\x{10FFFE}]"],
      ["[^\\u{10FFFF}]", "[\\x{0}-\\x{10FFFE}]"],
      ["[^\\0-\\u{10FFFE}]", "[^\\x{0}-\\x{10FFFE}]"],
      ["[]", "[^\\x{0}-\\x{10FFFF}]"],
      ["[^]", "[\\x{0}-\\x{10FFFF}]"],
      ["[\\s\\S]", "[\\x{0}-\\x{10FFFF}]"],
      ["[^\\s\\S]", "[^\\x{0}-\\x{10FFFF}]"],
      ["[\\ud83d\\udca9]x", "[\\x{1F4A9}]x"],
      ["[💩]", "[\\x{1F4A9}]"],
    ];
    for (const [ecma, re2] of table) expect(translateECMA(ecma), ecma).toBe(re2);
  });

  it("has no translation for a pattern that is not ECMA-262 with u", () => {
    for (const pattern of ["[a", "(?<a", "(", "a{", "\\", "\\u{110000}", "(?i)a", "\\-"]) expect(translateECMA(pattern), pattern).toBeUndefined();
  });

  it("has no translation for lookaround, backreferences and property escapes", () => {
    for (const pattern of ["a(?=b)", "a(?!b)", "(?<=a)b", "(?<!a)b", "(a)\\1", "(?<n>a)\\k<n>", "\\p{L}", "\\P{L}", "[\\p{Lu}]", "[a\\P{Lu}]", "[\\p{L}-]", "x(a)(b)(c)(d)(e)(f)(g)(h)(i)\\9"]) {
      expect(translateECMA(pattern), pattern).toBeUndefined();
    }
  });

  it("runs a translated pattern on re2js and the rest on the native RegExp", () => {
    // (an anchored, deterministic translation such as ^a.b$ runs natively: see test/reference/reference-linear.test.ts)
    expect(compileECMA("a.b")).toBeInstanceOf(RE2JS);
    expect(compileECMA("^(a|b)$")).toBeInstanceOf(RE2JS);
    expect(compileECMA("a(?=b)")).not.toBeInstanceOf(RE2JS);
    // RE2 refuses a count over 1000 (or nested counts whose product is): the native engine runs it
    expect(translateECMA("a{1000}")).toBe("a{1000}");
    expect(translateECMA("a{1001}")).toBeUndefined();
    expect(translateECMA("(?:a{100}){100}")).toBeUndefined();
    const big = compileECMA("a{1001}");
    expect(big).not.toBeInstanceOf(RE2JS);
    expect(big.test("b" + "a".repeat(1001))).toBe(true);
    expect(big.test("a".repeat(1000))).toBe(false);
  });

  it("the native engine's test searches and its matches anchors, as RE2JS's do", () => {
    const native = compileECMA("a(?=b)|c");
    expect(native.test("xab")).toBe(true);
    expect(native.test("xa")).toBe(false);
    expect(native.matches("c")).toBe(true);
    expect(native.matches("cc")).toBe(false);
    expect(native.matches("ab")).toBe(false);
    expect(compileECMA("a|b(?=c)").matches("a")).toBe(true);
    // both with the u flag: "." is one code point
    expect(compileECMA("(?=x)|^.$").test("💩")).toBe(true);
    expect(compileECMA("(?=x)|.").matches("💩")).toBe(true);
  });

  it("refuses a pattern that is not ECMA-262 with the u flag, with the engine's reason", () => {
    expect(() => compileECMA("(")).toThrow(SyntaxError);
    for (const pattern of ["(", "\\-", "(?i)a", "a{", "\\Qa\\E", "[[:alpha:]]", "\\z"]) {
      expect(refusal({ pattern }), pattern).toMatch(new RegExp(`^invalid pattern ${escape(JSON.stringify(pattern))} at #: Invalid regular expression: `));
    }
    expect(refusal({ properties: { a: { pattern: "(?<" } } })).toMatch(/^invalid pattern "\(\?<" at #\/properties\/a: Invalid regular expression/);
    expect(refusal({ pattern: 1 })).toBe('"pattern" at # must be a string');
    // RE2 syntax is still ag02's
    expect(() => compile('{"pattern": "\\\\Qa\\\\E"}')).not.toThrow();
  });

  it("tells the engines apart where ECMA and RE2 differ: . and line terminators, \\s and no-break space", () => {
    expect(matches("^.$", "\r")).toBe(false);
    expect(matches("^.$", "\u2028")).toBe(false);
    expect(matches("^.$", "\u2029")).toBe(false);
    expect(matches("^.$", "\n")).toBe(false);
    expect(matches("^.$", "💩")).toBe(true);
    expect(matches("^.$", "\u0085")).toBe(true);
    expect(matches("^\\s$", "\u00a0")).toBe(true);
    expect(matches("^\\s$", "\ufeff")).toBe(true);
    expect(matches("^\\s$", "\u0085")).toBe(false);
    expect(matches("^\\S$", "\u00a0")).toBe(false);
    expect(matches("^[^\\s]$", "\u3000")).toBe(false);
    expect(matches("^\\w$", "é")).toBe(false);
    expect(matches("\\B", "ab")).toBe(true);
    expect(matches("\\B", "a b")).toBe(false);
    expect(matches("\\B", "a💩💩a")).toBe(true);
    expect(matches("\\ba\\b", "é a")).toBe(true);
    expect(matches("^\\d$", "٣")).toBe(false);
    // ag02 reads the same patterns as RE2
    const ag02 = (pattern: string, text: string) => compile(JSON.stringify({ pattern })).validateJSON(JSON.stringify(text)).length === 0;
    expect(ag02("^.$", "\r")).toBe(true);
    expect(ag02("^\\s$", "\u00a0")).toBe(false);
  });

  it("runs lookahead and backreferences natively", () => {
    expect(matches("^(?=.*\\d)(?=.*[a-z]).{8,}$", "abcdefg1")).toBe(true);
    expect(matches("^(?=.*\\d)(?=.*[a-z]).{8,}$", "abcdefgh")).toBe(false);
    expect(matches("^(?!admin$)", "admin")).toBe(false);
    expect(matches("(?<=\\$)\\d+", "cost $42")).toBe(true);
    expect(matches("(?<=\\$)\\d+", "cost 42")).toBe(false);
    expect(matches("^(\\w)\\1$", "aa")).toBe(true);
    expect(matches("^(\\w)\\1$", "ab")).toBe(false);
    expect(matches("^(?<q>['\"]).*\\k<q>$", "'x'")).toBe(true);
    expect(matches("^(?<q>['\"]).*\\k<q>$", "'x\"")).toBe(false);
    expect(matches("^\\p{Lu}", "Éa")).toBe(true);
    expect(errorsOf({ pattern: "^(\\w)\\1$" }, "ab")).toEqual(['$: "ab" does not match pattern "^(\\\\w)\\\\1$"']);
  });

  it("a catastrophic-looking pattern translates to RE2 and answers on 10,000 a's and a !", () => {
    expect(translateECMA("^(a+)+$")).toBe("^(a+)+$");
    const text = "a".repeat(10_000) + "!";
    expect(matches("^(a+)+$", text)).toBe(false);
    expect(matches("^(a+)+$", "a".repeat(10_000))).toBe(true);
  });

  it("is unanchored, and code points are characters", () => {
    expect(matches("[0-9]{3}", "ab123cd")).toBe(true);
    expect(matches("^.{2}$", "💩💩")).toBe(true);
    expect(matches("^\\u{1F4A9}$", "💩")).toBe(true);
    expect(matches("^\\ud83d\\udca9$", "💩")).toBe(true);
    expect(matches("^[^a]$", "💩")).toBe(true);
  });

  it("a translation matches exactly what the native RegExp with u matches (generated patterns and strings)", () => {
    // no \B: V8 also tries it inside a surrogate pair (it finds one at index 2 of "a💩a"), which ECMA-262 does not
    const atom = fc.constantFrom(
      ".", "\\s", "\\S", "\\d", "\\D", "\\w", "\\W", "\\b", "a", "b", "é", "💩", " ", "\\.", "\\n", "\\r", "\\u2028", "\\u00a0",
      "\\x41", "\\u{1F4A9}", "\\ud83d\\udca9", "\\0", "\\cM", "^", "$", "[^a\\s]", "[\\S]", "[a-c]", "[^]", "[]", "[\\w-]", "[^\\d\\s]", "[--a]", "[\\b]",
    );
    const quantifier = fc.constantFrom("", "", "*", "+", "?", "{2}", "{0,1}", "{1,}", "*?", "+?");
    const term: fc.Arbitrary<string> = fc.letrec<{ term: string }>((tie) => ({
      term: fc.oneof(
        { depthSize: "small", withCrossShrink: true },
        atom,
        fc.tuple(fc.constantFrom("(", "(?:", "(?<g>"), fc.array(tie("term"), { maxLength: 3 }), fc.array(tie("term"), { maxLength: 2 }), fc.boolean()).map(
          ([open, left, right, alternate]) => (open === "(?<g>" ? "(" : open) + left.join("") + (alternate ? "|" + right.join("") : "") + ")",
        ),
      ),
    })).term;
    const pattern = fc.array(fc.tuple(term, quantifier), { maxLength: 5 }).map((parts) =>
      // a quantifier after an assertion is a syntax error with u: leave those bare
      parts.map(([t, q]) => (/^(\^|\$|\\[bB])$/.test(t) ? t : t + q)).join(""),
    );
    const text = fc.array(fc.constantFrom("a", "b", "A", "0", "_", " ", ".", "é", "💩", "\n", "\r", "\t", "\u2028", "\u00a0", "\u0085", "\ufeff", "\u180e", "\0", "\x0d"), { maxLength: 8 }).map((cs) => cs.join(""));
    fc.assert(
      fc.property(pattern, fc.array(text, { minLength: 1, maxLength: 6 }), (source, texts) => {
        let native: RegExp;
        try {
          native = new RegExp(source, "u");
        } catch {
          return;
        }
        const translated = translateECMA(source);
        expect(translated).toBeDefined();
        const re2 = RE2JS.compile(translated!);
        const whole = new RegExp(`^(?:${source})$`, "u");
        for (const t of texts) {
          expect(re2.test(t), `${source} on ${JSON.stringify(t)}`).toBe(native.test(t));
          expect(re2.matches(t), `${source} whole ${JSON.stringify(t)}`).toBe(whole.test(t));
        }
      }),
      { numRuns: 600 },
    );
  });
});

describe("$ref into a local definitions block", () => {
  const address = { type: "object", properties: { city: { type: "string" } }, required: ["city"] };

  it("resolves #/definitions/NAME and #/$defs/NAME against the root", () => {
    const schema = (ref: string) => ({
      type: "object",
      properties: { home: { $ref: ref }, work: { $ref: ref } },
      definitions: { address },
      $defs: { address: { type: "string" } },
    });
    expect(errorsOf(schema("#/definitions/address"), { home: { city: "Oslo" }, work: {} })).toEqual(['$.work: missing required property "city"']);
    expect(errorsOf(schema("#/definitions/address"), { home: { city: 1 } })).toEqual(["$.home.city: expected string, got number"]);
    expect(errorsOf(schema("#/$defs/address"), { home: "Oslo", work: {} })).toEqual(["$.work: expected string, got object"]);
  });

  it("a $ref's siblings apply too (2020-12), and a ref at the root works", () => {
    const schema = { $ref: "#/definitions/address", required: ["zip"], definitions: { address } };
    expect(errorsOf(schema, {})).toEqual(['$: missing required property "city"', '$: missing required property "zip"']);
    expect(errorsOf(schema, { city: "Oslo", zip: 1 })).toEqual([]);
  });

  it("decodes the fragment: percent-escapes, then ~1 and ~0", () => {
    const schema = (ref: string) => ({ properties: { a: { $ref: ref } }, definitions: { "a b": { type: "string" }, "x/y": { type: "integer" }, "m~n": { type: "boolean" }, "~1": { type: "null" } } });
    expect(errorsOf(schema("#/definitions/a%20b"), { a: 1 })).toEqual(["$.a: expected string, got number"]);
    expect(errorsOf(schema("#/definitions/x~1y"), { a: "s" })).toEqual(["$.a: expected integer, got string"]);
    expect(errorsOf(schema("#/definitions/m~0n"), { a: "s" })).toEqual(["$.a: expected boolean, got string"]);
    expect(errorsOf(schema("#/definitions/~01"), { a: "s" })).toEqual(["$.a: expected null, got string"]);
    expect(refusal(schema("#/definitions/a%2"))).toBe('$ref "#/definitions/a%2" at #/properties/a does not resolve');
  });

  it("a recursive schema (a tree of nodes) compiles and validates finite instances", () => {
    const tree = {
      $ref: "#/definitions/node",
      definitions: {
        node: { type: "object", required: ["value"], properties: { value: { type: "integer" }, children: { type: "array", items: { $ref: "#/definitions/node" } } } },
      },
    };
    const leaf = (value: unknown) => ({ value });
    expect(errorsOf(tree, { value: 1, children: [leaf(2), { value: 3, children: [leaf(4), leaf("5")] }] })).toEqual(["$.children[1].children[1].value: expected integer, got string"]);
    expect(errorsOf(tree, { value: 1, children: [{}] })).toEqual(['$.children[0]: missing required property "value"']);
    // a deep instance: recursion follows the value, which the parser bounds
    let deep: unknown = leaf(0);
    for (let i = 0; i < 200; i++) deep = { value: i, children: [deep] };
    expect(errorsOf(tree, deep)).toEqual([]);
    // mutual recursion through additionalProperties and properties
    const mutual = { properties: { a: { $ref: "#/$defs/a" } }, $defs: { a: { additionalProperties: { $ref: "#/$defs/b" } }, b: { properties: { x: { $ref: "#/$defs/a" } }, type: "object" } } };
    expect(errorsOf(mutual, { a: { p: { x: { q: 1 } } } })).toEqual(["$.a.p.x.q: expected object, got number"]);
  });

  it("refuses a loop of references that never steps into the value", () => {
    expect(refusal({ $ref: "#/definitions/a", definitions: { a: { $ref: "#/definitions/a" } } })).toBe("$ref loop that never steps into the value: #/definitions/a -> #/definitions/a");
    expect(refusal({ definitions: { a: { $ref: "#/definitions/b" }, b: { anyOf: [{ type: "string" }, { $ref: "#/definitions/a" }] } } })).toBe(
      "$ref loop that never steps into the value: #/definitions/b -> #/definitions/a -> #/definitions/b",
    );
    expect(refusal({ $defs: { c: { type: "object" }, a: { $ref: "#/$defs/c" }, b: { anyOf: [{ $ref: "#/$defs/a" }, { $ref: "#/$defs/b" }] } } })).toBe(
      "$ref loop that never steps into the value: #/$defs/b -> #/$defs/b",
    );
    // a chain of diamonds: many paths, each definition explored once
    const defs: Record<string, unknown> = { d0: { type: "string" } };
    for (let i = 1; i <= 40; i++) defs[`d${i}`] = { anyOf: [{ $ref: `#/$defs/d${i - 1}` }, { $ref: `#/$defs/d${i - 1}` }] };
    expect(errorsOf({ $ref: "#/$defs/d40", $defs: defs }, "s")).toEqual([]);
  });

  it("refuses a ref that is not local, or that does not resolve", () => {
    const at = (ref: unknown) => refusal({ properties: { a: { $ref: ref } }, definitions: { a: { type: "string" } } });
    for (const ref of ["https://example.com/s.json#/definitions/a", "other.json#/definitions/a", "#", "#/properties/a", "#/definitions/a/type", "#/definitions/", "#/definition/a", "/definitions/a", "#/definitions/a/", "x#/definitions/a"]) {
      expect(at(ref), ref).toBe(`$ref ${JSON.stringify(ref)} at #/properties/a is not local: only "#/definitions/NAME" and "#/$defs/NAME" are supported`);
    }
    expect(at("#/definitions/b")).toBe('$ref "#/definitions/b" at #/properties/a does not resolve');
    expect(at("#/$defs/a")).toBe('$ref "#/$defs/a" at #/properties/a does not resolve');
    expect(at(1)).toBe('"$ref" at #/properties/a must be a string');
    expect(refusal({ $ref: "#/definitions/a" })).toBe('$ref "#/definitions/a" at # does not resolve');
    // only the root's block: a nested one is checked, but never a target
    expect(refusal({ properties: { a: { $ref: "#/definitions/a", definitions: { a: {} } } } })).toBe('$ref "#/definitions/a" at #/properties/a does not resolve');
  });

  it("definitions are schemas, checked even when nothing refers to them", () => {
    expect(refusal({ definitions: 1 })).toBe('"definitions" at # must be an object');
    expect(refusal({ $defs: [] })).toBe('"$defs" at # must be an object');
    expect(refusal({ definitions: { a: 1 } })).toBe("schema at #/definitions/a must be an object");
    expect(refusal({ definitions: { a: { format: "email" } } })).toBe('unsupported keyword "format" at #/definitions/a');
    expect(refusal({ $defs: { "a/b": { type: "nope" } } })).toBe('unknown type "nope" at #/$defs/a~1b');
    expect(refusal({ properties: { x: { definitions: { a: { minLength: -1 } } } } })).toBe('"minLength" at #/properties/x/definitions/a must be a non-negative integer');
    // a referenced definition is compiled at its own place
    expect(refusal({ properties: { x: { $ref: "#/definitions/a" } }, definitions: { a: { maxLength: "1" } } })).toBe('"maxLength" at #/definitions/a must be a non-negative integer');
    // they check nothing where they stand
    expect(errorsOf({ definitions: { a: { type: "string" } }, $defs: { b: { type: "string" } } }, 1)).toEqual([]);
  });

  it("ag02 still refuses $ref, definitions and $defs", () => {
    expect(refusal({ $ref: "#/definitions/a", definitions: { a: {} } }, "ag02")).toBe('unsupported keyword "$ref" at #');
    expect(refusal({ definitions: { a: {} } }, "ag02")).toBe('unsupported keyword "definitions" at #');
    expect(refusal({ $defs: { a: {} } }, "ag02")).toBe('unsupported keyword "$defs" at #');
  });
});

describe("expectedType", () => {
  it("a type mismatch carries the schema's type; a list is its names joined with \" or \"", () => {
    const schema = {
      type: "object",
      properties: { user: { type: "object", properties: { email: { type: "string" }, age: { type: "integer" }, nick: { type: ["string", "null"] } } } },
      required: ["id"],
    };
    const errors = lesson(schema).validateJSON('{"user": {"email": 42, "age": 1.5, "nick": 3}}');
    expect(errors.map((e) => [e.path, e.expectedType, e.message])).toEqual([
      ["$", undefined, 'missing required property "id"'],
      ["$.user.age", "integer", "expected integer, got number"],
      ["$.user.email", "string", "expected string, got number"],
      ["$.user.nick", "string or null", "expected string or null, got number"],
    ]);
    // ag02 too; its messages are unchanged
    const [ag02] = compile('{"type": "number"}').validateJSON('"42"');
    expect([ag02!.expectedType, String(ag02)]).toEqual(["number", "$: expected number, got string"]);
  });

  it("every other error has none", () => {
    const schema = { properties: { a: { enum: [1] }, b: { minLength: 2 }, c: { pattern: "^x" }, d: { items: { maxLength: 0 } } }, required: ["e"] };
    const errors = lesson(schema).validateJSON('{"a": 2, "b": "", "c": "y", "d": ["z"]}');
    expect(errors).toHaveLength(5);
    for (const error of errors) expect(error.expectedType, error.toString()).toBeUndefined();
    expect(lesson({}).validateJSON("{")[0]!.expectedType).toBeUndefined();
  });
});

describe("the lesson registry's records", () => {
  const weather = '{"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}';
  const sync = (args: string) => args;
  const asyncFn = async (args: string) => args;

  it("get returns the record: defaults, and the options given", () => {
    const registry = new Registry({ profile: "lesson" });
    expect(registry.register(newTool("weather.current", "Current weather", weather, sync))).toBeUndefined();
    expect(registry.register(newTool("clock.now", "The time", undefined, asyncFn), { idempotent: true, timeoutMs: 2500 })).toBeUndefined();
    expect(registry.get("weather.current")).toEqual({
      name: "weather.current",
      description: "Current weather",
      schema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
      idempotent: false,
      timeoutMs: null,
      handler: "sync",
    });
    expect(registry.get("clock.now")).toEqual({ name: "clock.now", description: "The time", schema: { type: "object" }, idempotent: true, timeoutMs: 2500, handler: "async" });
    expect(registry.register(newTool("zero", "", undefined, sync), { timeoutMs: 0, idempotent: false })).toBeUndefined();
    expect(registry.get("zero")).toMatchObject({ timeoutMs: 0, idempotent: false });
    // a fresh copy each time
    (registry.get("weather.current").schema as { type: string }).type = "string";
    expect(registry.get("weather.current").schema).toMatchObject({ type: "object" });
    expect(registry.names()).toEqual(["weather.current", "clock.now", "zero"]);
  });

  it("override replaces the record; a refused registration leaves it", () => {
    const registry = new Registry({ profile: "lesson" });
    registry.register(newTool("a.b", "first", undefined, sync), { idempotent: true });
    expect(registry.register(newTool("a.b", "second", undefined, asyncFn), { timeoutMs: 5 })?.message).toBe('tool "a.b" is already registered');
    expect(registry.get("a.b")).toMatchObject({ description: "first", idempotent: true, timeoutMs: null, handler: "sync" });
    expect(registry.register(newTool("a.b", "second", undefined, asyncFn), { override: true, timeoutMs: 5 })).toBeUndefined();
    expect(registry.get("a.b")).toMatchObject({ description: "second", idempotent: false, timeoutMs: 5, handler: "async" });
  });

  it("refuses record options that are not what the lesson says", () => {
    const registry = new Registry({ profile: "lesson" });
    const tool = newTool("a", "", undefined, sync);
    for (const timeoutMs of [-1, 1.5, Number.NaN, Infinity, 2 ** 60]) {
      expect(registry.register(tool, { timeoutMs })?.message, String(timeoutMs)).toBe('tool "a": timeoutMs must be a non-negative integer or null');
    }
    expect(registry.register(tool, { idempotent: "yes" as unknown as boolean })?.message).toBe('tool "a": idempotent must be a boolean');
    expect(() => registry.get("a")).toThrow(LookupError);
    expect(registry.register(tool, { timeoutMs: null })).toBeUndefined();
  });

  it("get and validate throw a LookupError for a name that is not registered", () => {
    const registry = new Registry({ profile: "lesson" });
    expect(() => registry.get("nope")).toThrow(new LookupError('unknown tool "nope" (available: none)'));
    registry.register(newTool("b.x", "", undefined, sync));
    registry.register(newTool("a.y", "", undefined, sync));
    expect(() => registry.validate("nope", "{}")).toThrow(new LookupError('unknown tool "nope" (available: a.y, b.x)'));
    expect(new LookupError("x").name).toBe("LookupError");
    expect(registry.names()).toEqual(["b.x", "a.y"]);
  });

  it("validate checks arguments against the tool's schema, with paths and expectedType", () => {
    const registry = new Registry({ profile: "lesson" });
    registry.register(newTool("weather.current", "", weather, sync));
    expect(registry.validate("weather.current", '{"city": "Oslo"}')).toEqual([]);
    const [error, ...rest] = registry.validate("weather.current", '{"city": 42}');
    expect(rest).toEqual([]);
    expect([error!.segments, error!.message, error!.expectedType]).toEqual([["city"], "expected string, got number", "string"]);
    expect(registry.validate("weather.current", "").map(String)).toEqual(["$: invalid JSON: unexpected end of input"]);
  });

  it("compiles parameters in the lesson dialect", () => {
    const schema = '{"type": "object", "properties": {"a": {"$ref": "#/definitions/code"}}, "definitions": {"code": {"type": "string", "pattern": "^(?!x)\\\\w+$"}}}';
    const registry = new Registry({ profile: "lesson" });
    expect(registry.register(newTool("codes", "", schema, sync))).toBeUndefined();
    expect(registry.validate("codes", '{"a": "xy"}').map(String)).toEqual(['$.a: "xy" does not match pattern "^(?!x)\\\\w+$"']);
    expect(new Registry({ profile: "pointer" }).register(newTool("codes", "", schema, sync))).toBeUndefined();
    expect(new Registry().register(newTool("codes", "", schema, sync))?.message).toBe('tool "codes": invalid parameters: unsupported keyword "definitions" at #');
  });

  it("ag02 keeps records too", () => {
    const registry = new Registry();
    registry.register(newTool("Weather_1", "w", weather, asyncFn));
    expect(registry.get("Weather_1")).toMatchObject({ name: "Weather_1", handler: "async", idempotent: false, timeoutMs: null });
    expect(registry.validate("Weather_1", "{}").map(String)).toEqual(['$: missing required property "city"']);
  });
});

describe("handler kind", () => {
  it("an async function is async; anything else is sync, even when it returns a promise", () => {
    expect(handlerKindOf(async () => "")).toBe("async");
    expect(handlerKindOf(async function named() {
      return "";
    })).toBe("async");
    expect(handlerKindOf(() => "")).toBe("sync");
    expect(handlerKindOf(() => Promise.resolve(""))).toBe("sync");
    expect(handlerKindOf(function plain() {
      return "";
    })).toBe("sync");
    const tool = newTool("t", "", undefined, async () => "");
    expect(tool).toBeInstanceOf(FuncTool);
    expect((tool as FuncTool).handlerKind).toBe("async");
    expect((newTool("t", "", undefined, () => "") as FuncTool).handlerKind).toBe("sync");
  });

  it("a tool that is not a FuncTool: its execute decides", () => {
    const plain: Tool = { definition: () => ({ name: "p.q", description: "plain", parameters: { type: "object" } }), execute: async () => "" };
    const registry = new Registry({ profile: "lesson" });
    expect(registry.register(plain)).toBeUndefined();
    expect(registry.get("p.q")).toEqual({ name: "p.q", description: "plain", schema: { type: "object" }, idempotent: false, timeoutMs: null, handler: "async" });
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

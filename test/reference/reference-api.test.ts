import fc from "fast-check";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  compile,
  formatPointer,
  JsonNumber,
  JsonSyntaxError,
  newTool,
  parseJSON,
  Registry,
  renderPath,
  SchemaError,
  ToolError,
  type Tool,
  type ToolDef,
} from "../../src/index.js";
import { parseExact } from "../../src/json/parse.js";
import { compareCodePoints, quote, stringify } from "../../src/json/value.js";

// The reference's TypeScript API where the protocol cannot reach: values a wire
// message cannot carry (a raw lone surrogate, a non-string name or arguments),
// tools that are not built with newTool, cancellation, and the error classes.
// Each case is a rule of the spec (or of docs/semantics.md) seen from the API.

const echo = (name: string, schema?: string) => newTool(name, `the ${name} tool`, schema, (args) => args);

/** A tool that is not a FuncTool: its definition is all the registry sees of its schema. */
function plainTool(definition: ToolDef, run: Tool["execute"] = (args) => args): Tool {
  return { definition: () => definition, execute: run };
}

describe("error classes say what they are", () => {
  it("JsonSyntaxError, SchemaError and ToolError carry their names (String(error) shows them in logs)", () => {
    expect(new JsonSyntaxError("x").name).toBe("JsonSyntaxError");
    expect(new SchemaError("x").name).toBe("SchemaError");
    expect(new ToolError("x").name).toBe("ToolError");
    expect(() => compile("{")).toThrow(SchemaError);
    expect(String(new ToolError("quota exceeded"))).toBe("ToolError: quota exceeded");
  });
});

describe("JsonNumber", () => {
  it("refuses a text that is not exactly one JSON number literal", () => {
    for (const text of ["x1", "1x", "1.5x", " 1", "", "--1", "1e"]) {
      expect(() => JsonNumber.fromLiteral(text), text).toThrow(`not a JSON number: ${text}`);
    }
  });

  it("toSafeInteger is the exact value when it is a safe integer, else undefined", () => {
    const safe = (literal: string) => JsonNumber.fromLiteral(literal).toSafeInteger();
    expect(safe("-12")).toBe(-12);
    expect(safe("1e2")).toBe(100);
    expect(safe("120e-1")).toBe(12);
    expect(safe("0")).toBe(0);
    // zero has no sign: -0, -0.0 and -0e5 are zero, never negative, and their safe integer is 0, not -0
    for (const zero of ["-0", "-0.0", "-0e5"]) {
      expect(JsonNumber.fromLiteral(zero).negative, zero).toBe(false);
      expect(Object.is(safe(zero), 0), zero).toBe(true);
    }
    expect(JsonNumber.fromLiteral("-0.5").negative).toBe(true);
    expect(safe("1e15")).toBe(1_000_000_000_000_000);
    expect(safe("2.5")).toBeUndefined();
    expect(safe("9007199254740993")).toBeUndefined();
    expect(safe("1e16")).toBeUndefined();
    // the exponent alone says it is too big: no 10^999999999-digit string is ever built
    expect(safe("1e999999999")).toBeUndefined();
  });
});

describe("how the parser holds a number", () => {
  // A literal that is its own float64's text is that JavaScript number, as JSON.parse gives it.
  // Any other literal is a JsonNumber: a short one (at most 15 digits, no exponent) with its
  // float64 for fast comparisons, every other one with its exact decimal only.
  const shortForm = (literal: string) => {
    const n = parseJSON(literal) as unknown as { short: number | undefined; plainInteger: boolean };
    expect(n, literal).toBeInstanceOf(JsonNumber);
    return { short: n.short, plainInteger: n.plainInteger };
  };

  it("a literal that is its number's own text is that number, by both parsers", () => {
    const own: [string, number][] = [
      ["0", 0],
      ["-7", -7],
      ["1234", 1234],
      ["2.5", 2.5],
      ["-0.25", -0.25],
      ["123456789012345", 123456789012345],
      ["0.12345678901234", 0.12345678901234],
      ["0.000001", 0.000001],
    ];
    for (const [literal, value] of own) {
      expect(parseJSON(literal), literal).toBe(value);
      expect(parseExact(literal), literal).toBe(value);
      expect(parseJSON(`[${literal}]`), literal).toEqual([value]);
    }
  });

  it("a short literal spelled otherwise keeps its text, with its float64", () => {
    expect(shortForm("3.0")).toEqual({ short: 3, plainInteger: false });
    expect(shortForm("-0")).toEqual({ short: -0, plainInteger: true });
    expect(shortForm("1.50")).toEqual({ short: 1.5, plainInteger: false });
    expect(shortForm("0.0000001")).toEqual({ short: 1e-7, plainInteger: false });
    expect((parseJSON("[10.750]") as unknown as { short: number }[])[0]!.short).toBe(10.75);
    for (const literal of ["3.0", "-0", "1.50", "0.0000001"]) expect(stringify(parseJSON(literal)), literal).toBe(literal);
  });

  it("leaves exponents and longer literals to the exact path", () => {
    for (const literal of ["1e2", "1.5E3", "0e0", "-2e-1", "1234567890123456", "0.123456789012345", "-1234567890123456"]) {
      expect(shortForm(literal).short, literal).toBeUndefined();
    }
  });
});

describe("the parser refuses text that is not Unicode (raw lone surrogates)", () => {
  // the corpus is UTF-8 and the protocol JSON, so neither can carry these: only the API can
  // parseJSON hands a text it can prove plain to JSON.parse: parseExact is the exact parser alone
  const refused = (text: string, offset: number) => {
    for (const parse of [parseJSON, parseExact]) {
      expect(() => parse(text), JSON.stringify(text)).toThrow(`invalid JSON: lone surrogate in string at byte ${offset}`);
    }
  };
  const read = (text: string) => {
    const value = parseExact(text);
    expect(parseJSON(text), JSON.stringify(text)).toEqual(value);
    return value;
  };

  it("a raw high surrogate not followed by a low one", () => {
    refused('"a\uD800b"', 2);
    refused('"\uDBFF"', 1);
    refused('"\uD800\uD800\uDC00"', 1);
  });

  it("a raw low surrogate with no high one before it", () => {
    refused('"\uDC00"', 1);
    refused('"ab\uDFFF"', 3);
    refused('"\uDC00\uDC00"', 1);
  });

  it("a raw high surrogate followed by a character just past the low ones", () => {
    refused('"\uD800\uE000"', 1);
  });

  it("raw surrogate pairs at both ends of the range are one character each", () => {
    expect(read('"\uD800\uDC00\uDBFF\uDFFF"')).toBe("\u{10000}\u{10FFFF}");
    expect(read('"\\uD800\\uDC00\\udbff\\udfff"')).toBe("\u{10000}\u{10FFFF}");
    expect(compile('{"maxLength": 2}').validateJSON('"\uD800\uDC00\uDBFF\uDFFF"')).toEqual([]);
    expect(compile('{"minLength": 3}').validateJSON('"\uD800\uDC00\uDBFF\uDFFF"').map(String)).toEqual(["$: expected at least 3 characters, got 2"]);
  });

  it("the characters just above the surrogates are ordinary", () => {
    expect(read('"\uD7FF\uE000\uFFFF"')).toBe("\uD7FF\uE000\uFFFF");
    expect(read('"\\ud7ff\\ue000\\uffff"')).toBe("\uD7FF\uE000\uFFFF");
  });
});

describe("Registry.register from the API", () => {
  it("refuses a name that is not a string", () => {
    const tool = plainTool({ name: 42 as unknown as string, description: "d", parameters: { type: "object" } });
    expect(new Registry().register(tool)?.message).toBe('invalid tool name "42": must match ^[A-Za-z0-9_-]{1,64}$');
  });

  it("a missing description is the empty string", () => {
    const registry = new Registry();
    expect(registry.register(plainTool({ name: "t", description: undefined as unknown as string, parameters: { type: "object" } }))).toBeUndefined();
    expect(registry.definitions()).toEqual([{ name: "t", description: "", parameters: { type: "object" } }]);
  });

  it("takes a plain Tool's schema from its definition, and a missing one means {\"type\":\"object\"}", () => {
    const registry = new Registry();
    const schema = { type: "object", properties: { n: { type: "integer" } }, required: ["n"] };
    expect(registry.register(plainTool({ name: "with", description: "d", parameters: schema }))).toBeUndefined();
    expect(registry.register(plainTool({ name: "without", description: "d", parameters: undefined }))).toBeUndefined();
    expect(registry.definitions().map((d) => d.parameters)).toEqual([schema, { type: "object" }]);
  });

  it("mustRegister throws the first refusal and returns the registry otherwise", () => {
    const registry = new Registry();
    expect(registry.mustRegister(echo("a"), echo("b"))).toBe(registry);
    expect(() => registry.mustRegister(echo("c"), echo("a"))).toThrow('tool "a" is already registered');
    expect(registry.names()).toEqual(["a", "b", "c"]);
  });
});

describe("Registry.call from the API", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("arguments that are missing or not a string are empty, so {}", async () => {
    const registry = new Registry().mustRegister(echo("echo"));
    for (const args of [undefined, null]) {
      const result = await registry.call({ id: "c1", name: "echo", arguments: args as unknown as string });
      expect(result.message()).toEqual({ role: "tool", tool_call_id: "c1", content: "{}" });
    }
  });

  it("a tool that outlives the timeout is cancelled: its signal aborts", async () => {
    let seen: AbortSignal | undefined;
    const stuck = newTool("stuck", "never returns", undefined, (_, signal) => {
      seen = signal;
      return new Promise<string>(() => {});
    });
    const result = await new Registry({ timeoutMs: 20 }).mustRegister(stuck).call({ id: "c1", name: "stuck", arguments: "{}" });
    expect(result.content).toBe("tool stuck timed out after 20ms");
    expect(seen?.aborted).toBe(true);
  });

  it("a call that finished leaves no timer behind (the timeout is cleared)", async () => {
    vi.useFakeTimers();
    const registry = new Registry({ timeoutMs: 60_000 }).mustRegister(echo("echo"));
    const result = await registry.call({ id: "c1", name: "echo", arguments: '{"a":1}' });
    expect(result.content).toBe('{"a":1}');
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe("paths in the pointer profile", () => {
  it("render as RFC 6901 pointers: ~ as ~0, / as ~1, indexes as numbers", () => {
    expect(formatPointer([])).toBe("");
    expect(formatPointer(["a~b", "c/d", 0, "~/"])).toBe("/a~0b/c~1d/0/~0~1");
    expect(renderPath(["tags", 1], "pointer")).toBe("/tags/1");
    expect(renderPath(["tags", 1], "dollar")).toBe("$.tags[1]");
  });
});

describe("code-point order", () => {
  // the order of definitions and errors: UTF-8 byte order, which UTF-16 order is not where a
  // surrogate pair meets U+E000–U+FFFF; lone surrogates (only the API can pass them) are code points too
  const codePoints = (text: string) => Array.from(text, (char) => char.codePointAt(0)!);
  const expected = (a: string, b: string) => {
    const x = codePoints(a);
    const y = codePoints(b);
    for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! < y[i]! ? -1 : 1;
    return Math.sign(x.length - y.length);
  };
  const text = fc.string({ unit: fc.constantFrom("a", "b", "\uD83D", "\uDE00", "\uDE01", "\uD800", "\uDBFF", "\uDC00", "\uDFFF", "\uE000", "\uFFFF", "é") });

  it("agrees with comparing the code points one by one", () => {
    fc.assert(
      fc.property(text, text, (a, b) => {
        expect(compareCodePoints(a, b)).toBe(expected(a, b));
        expect(compareCodePoints(a + "x", a + b)).toBe(expected(a + "x", a + b));
      }),
      { numRuns: 3000 },
    );
  });

  it("orders a call's errors by path, then message, however many there are", () => {
    // declared names get a type error at their own path, others an "unexpected property" at $:
    // a few errors or dozens, in any key order, come out sorted
    const name = fc.string({ unit: fc.constantFrom("a", "b", "~", "\u{1F600}", "\uFFFF", "é"), minLength: 1, maxLength: 4 });
    const names = fc.oneof(fc.uniqueArray(name, { maxLength: 8 }), fc.uniqueArray(name, { minLength: 17, maxLength: 40 }));
    fc.assert(
      fc.property(names, names, (declared, sent) => {
        const properties = Object.fromEntries(declared.map((key) => [key, { type: "string" }]));
        const schema = compile(JSON.stringify({ type: "object", properties, additionalProperties: false }));
        const errors = schema.validateJSON(JSON.stringify(Object.fromEntries(sent.map((key) => [key, 1])))).map(String);
        expect(errors).toHaveLength(sent.length);
        const order = (x: string, y: string) => {
          const [a, b] = [x, y].map((error) => error.split(": "));
          return expected(a![0]!, b![0]!) || expected(a![1]!, b![1]!);
        };
        for (let i = 1; i < errors.length; i++) expect(order(errors[i - 1]!, errors[i]!)).toBeLessThanOrEqual(0);
      }),
      { numRuns: 300 },
    );
  });

  it("puts a character beyond the BMP after U+FFFF, unlike UTF-16 order", () => {
    expect(compareCodePoints("\u{1F600}", "\uFFFF")).toBe(1);
    expect(compareCodePoints("a\u{1F600}", "a\u{1F601}")).toBe(-1);
    expect(compareCodePoints("a\uD83D\uDE00", "a\uD83D\uE000")).toBe(1);
    expect(compareCodePoints("\uD800\uDC00", "\uD800\uE000")).toBe(1);
    expect(compareCodePoints("\uDBFF\uDFFF", "\uDBFF\uE000")).toBe(1);
    expect(compareCodePoints("\uDBFF\uE000", "\uDBFF\uDFFF")).toBe(-1);
    expect(compareCodePoints("ab", "ab")).toBe(0);
    expect(compareCodePoints("ab", "abc")).toBe(-1);
    expect(compareCodePoints("abc", "ab")).toBe(1);
  });
});

describe("members are own properties, whatever Object.prototype holds", () => {
  // JSON.parse's objects inherit from Object.prototype: a property added to it, enumerable,
  // must not read as a member of every argument
  const schema = compile('{"type":"object","properties":{"polluted":{"type":"string"}},"required":["city"],"additionalProperties":false}');

  it("neither an additional property nor a declared one, nor a required one present", () => {
    const prototype = Object.prototype as Record<string, unknown>;
    prototype.polluted = 7;
    prototype.city = "Paris";
    try {
      expect(schema.validateJSON('{"a":1}').map(String)).toEqual(['$: missing required property "city"', '$: unexpected property "a"']);
      expect(schema.validateJSON('{"polluted":1}').map(String)).toEqual(['$: missing required property "city"', "$.polluted: expected string, got number"]);
    } finally {
      delete prototype.polluted;
      delete prototype.city;
    }
    expect(schema.validateJSON('{"polluted":"y"}').map(String)).toEqual(['$: missing required property "city"']);
  });
});

describe("quote", () => {
  it("writes what JSON.stringify writes, lone surrogates and control characters included", () => {
    const unit = fc.constantFrom("a", " ", "\u001f", "\u0000", '"', "\\", "\uD7FF", "\uD800", "\uDBFF", "\uDC00", "\uDFFF", "\uE000", "é", "\u2028");
    fc.assert(
      fc.property(fc.string({ unit }), (text) => {
        expect(quote(text)).toBe(JSON.stringify(text));
      }),
      { numRuns: 2000 },
    );
    for (const text of ["\uD800", "\uDFFF", "a\u001fb", '"', "\\", "", "plain"]) expect(quote(text), text).toBe(JSON.stringify(text));
  });
});

describe("required", () => {
  it("reports each missing name, and only those, however many are listed", () => {
    const schema = compile('{"type":"object","properties":{"a":{}},"required":["a","b","c","b"]}');
    expect(schema.validateJSON('{"a":1,"c":2}').map(String)).toEqual(['$: missing required property "b"', '$: missing required property "b"']);
    expect(schema.validateJSON('{"b":1,"c":2}').map(String)).toEqual(['$: missing required property "a"']);
    expect(schema.validateJSON('{"c":2,"b":1,"a":0}')).toEqual([]);
  });
});

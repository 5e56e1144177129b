import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MAX_DEPTH } from "../../src/json/limits.js";
import { parseExact, parseJSON } from "../../src/json/parse.js";
import { isPlain } from "../../src/json/plain.js";

// A text is plain when JSON.parse gives exactly what the exact parser gives: parseJSON then
// lets JSON.parse build it. Both answers are checked here: every plain text must be safe to
// hand over (no duplicate key, no lone surrogate, no deep nesting, every number its own
// float64's text), and every such text should be called plain (or the fast path is lost).

const members = (names: string[]) => `{${names.map((name, i) => `"${name}":${i}`).join(",")}}`;
const nested = (depth: number) => "[".repeat(depth) + "]".repeat(depth);

describe("isPlain", () => {
  // first in the file: the scan's buffers grow once per process, here
  it("keeps track of every open object's keys, however many are open", () => {
    const outer = Array.from({ length: 70 }, (_, i) => `"k${i}":${i}`).join(",");
    expect(isPlain(`{${outer},"o":{"a":1,"b":2}}`)).toBe(true);
    expect(isPlain(`{${outer},"o":{"a":1,"a":2}}`)).toBe(false);
    expect(isPlain(`{${outer},"o":{"a":1},"k69":0}`)).toBe(false);
    expect(isPlain(`[{${outer}},{${outer},"k0":1}]`)).toBe(false);
  });

  it("takes everyday arguments", () => {
    for (const text of [
      '{"city":"Paris","days":3,"unit":"c"}',
      '{"a":{"a":1},"b":[{"a":1,"b":2},{"a":1}],"c":null,"d":true,"e":false}',
      '{"x":{"y":1},"y":2}',
      '{"k":["a","a"],"ab":1,"ba":2}',
      '{"a":"b","b":"a"}',
      '"a\\nd800 \\td9ff \\\\dbff \\"dc00"',
      '["{1.0}", "\\"1.0\\"", "1e2", "-0"]',
      '"caf\\u00e9 \\n \\\\ud800"',
      ' [ 1 , -2.5 , 0.000001 , 123456789012345 , 0.12345678901234 , 10.01 , 100 ] ',
      "",
    ]) {
      expect(isPlain(text), text).toBe(true);
    }
  });

  it("refuses a duplicate key, in an object of any size, wherever it is", () => {
    expect(isPlain('{"a":1,"a":2}')).toBe(false);
    expect(isPlain('{"x":{"y":1},"x":2}')).toBe(false);
    expect(isPlain('{"a":[1,{"b":2}],"a":3}')).toBe(false);
    expect(isPlain('[{"a":1},{"b":1,"b":2}]')).toBe(false);
    for (const size of [31, 32, 33, 100]) {
      const names = Array.from({ length: size }, (_, i) => `key${i}`);
      expect(isPlain(members(names)), `${size} keys`).toBe(true);
      expect(isPlain(`[${members(names)},${members(names)}]`), `${size} keys twice`).toBe(true);
      for (const twice of [0, size - 1]) {
        expect(isPlain(members([...names, names[twice]!])), `${size} keys, key ${twice} again`).toBe(false);
        expect(isPlain(`{"o":${members([...names, names[twice]!])}}`), `${size} keys nested`).toBe(false);
      }
    }
  });

  it("refuses an escaped key: it may equal another one spelled otherwise", () => {
    expect(isPlain('{"ab":1,"a\\u0062":2}')).toBe(false);
    expect(isPlain('{"a\\"b":1}')).toBe(false);
  });

  it("refuses a surrogate, raw or escaped", () => {
    expect(isPlain('"\uD800"')).toBe(false);
    expect(isPlain('"\\ud800"')).toBe(false);
    expect(isPlain('"\\uDBFF"')).toBe(false);
    expect(isPlain('"\\udc00"')).toBe(false);
    expect(isPlain('["ok","\\uDFFF"]')).toBe(false);
    expect(isPlain('"\\uD83D\\uDE00"')).toBe(false);
    for (const escape of ["\\ud800", "\\uD8FF", "\\ud9ab", "\\uDA00", "\\udbff", "\\uDc00", "\\udeff", "\\uDFFF"]) {
      expect(isPlain(`"x${escape}"`), escape).toBe(false);
    }
    expect(isPlain('"\\ud7ff \\ue000 \\u0dff \\u1d80 \\uc800 \\u0d80"')).toBe(true);
  });

  it("refuses nesting deeper than the limit", () => {
    expect(isPlain(nested(MAX_DEPTH))).toBe(true);
    expect(isPlain(nested(MAX_DEPTH + 1))).toBe(false);
    expect(isPlain(`{"a":${nested(MAX_DEPTH - 1)}}`)).toBe(true);
    expect(isPlain(`[${nested(MAX_DEPTH - 1)},${nested(MAX_DEPTH - 1)}]`)).toBe(true);
  });

  it("refuses a number that is not its own float64's text", () => {
    for (const literal of ["3.0", "-0", "1.50", "-0.0", "0.0000001", "1e2", "1E2", "1234567890123456", "0.123456789012345", "-1234567890123456"]) {
      expect(isPlain(`[1,${literal}]`), literal).toBe(false);
      expect(isPlain(`{"n":${literal}}`), literal).toBe(false);
    }
  });

  it("reads runs of integers in an array, and what stops them", () => {
    for (const text of ["[1,2,123456789012345,3]", "[0,0,0]", "[1,2,3.5,4]", "[[1,2],[3,4]]", "[1 , 2,3 ,4]", '{"a":[1,2],"b":3}']) {
      expect(isPlain(text), text).toBe(true);
    }
    for (const text of [
      "[1,2,1234567890123456,3]",
      "[1,2,-0,3]",
      "[1,2,3.0,4]",
      "[5,6,7e1,8]",
      "[5,6,7E1]",
      '[1,2,{"a":1,"a":2}]',
      '{"a":[1,2],"b":3,"a":4}',
      '[1,2,"\ud800"]',
    ]) {
      expect(isPlain(text), text).toBe(false);
    }
  });

  it("scans on after a string with escaped quotes and backslashes", () => {
    expect(isPlain('["a\\"b\\\\", 1.0]')).toBe(false);
    expect(isPlain('["a\\\\", "b", {"c":1,"c":2}]')).toBe(false);
    expect(isPlain('["\\\\", "\\u0041", "\\ud800"]')).toBe(false);
  });

  it("ends at an unterminated string, leaving the error to the exact parser", () => {
    // "plain" or not, the text is malformed: what matters is that the scan stops
    const open = '"' + "x".repeat(60);
    for (const text of [open, `[${open}`, `{"a":1,"b":${open}`]) {
      expect(() => parseJSON(text), text).toThrow("invalid JSON: unexpected end of input");
    }
  });

  it("a short number literal is plain, and held as a JavaScript number, exactly when it is its float64's own text", () => {
    const literal = fc.oneof(
      fc.integer().map(String),
      fc.double({ noNaN: true, noDefaultInfinity: true }).map(String),
      fc.tuple(fc.nat(999999), fc.nat(7), fc.nat(99999)).map(([whole, zeros, digits]) => `${whole}.${"0".repeat(zeros)}${digits}`),
      fc.tuple(fc.integer({ min: -99, max: 99 }), fc.integer({ min: -30, max: 30 })).map(([digits, exponent]) => `${digits}e${exponent}`),
      fc.stringMatching(/^-?(0|[1-9][0-9]{0,17})(\.[0-9]{1,17})?$/),
    );
    fc.assert(
      fc.property(literal, (text) => {
        // short: at most 15 digits, no exponent (where a decimal survives float64 both ways)
        const short = /^-?\d+(\.\d+)?$/.test(text) && text.replace(/[-.]/g, "").length <= 15;
        const own = short && String(JSON.parse(text)) === text;
        expect(typeof parseExact(text) === "number", "held as a number exactly when it is its own text").toBe(own);
        expect(isPlain(text)).toBe(own);
      }),
      { numRuns: 3000 },
    );
  });

  it("the exact parser makes names such as __proto__ own members, as JSON.parse does", () => {
    for (const text of ['{"__proto__":{"a":1},"constructor":2,"b":3.0}', '{"__proto__":1,"toString":"x"}']) {
      const value = parseExact(text) as Record<string, unknown>;
      expect(Object.getPrototypeOf(value), text).toBe(Object.prototype);
      expect(Object.keys(value), text).toEqual(Object.keys(JSON.parse(text) as object));
      expect(Object.getOwnPropertyDescriptor(value, "__proto__"), text).toEqual(Object.getOwnPropertyDescriptor(JSON.parse(text), "__proto__"));
    }
  });

  it("the exact parser reads keys met before, and keys that only look alike, as JSON.parse does", () => {
    for (const text of [
      '[{"a":1,"ab":2,"b":[{"a":3}]},{"a":4,"ab":5,"b":null,"":6},{"":7}]',
      '[{"a\\"b":1},{"a\\"b":2},{"a\\u0062":3},{"ab":4},{"ab":5}]',
      '[{"a\\\\b":1},{"a\\\\b":2},{"a\\bb":3}]',
      '[{"a\\u0000":1},{"a\\u0000":2}]',
      '[{"acb":1},{"adb":2},{"acb":3,"adb":4}]',
    ]) {
      expect(parseExact(text), text).toEqual(JSON.parse(text));
    }
    expect(() => parseExact('[{"a\u0001":1},{"a\u0001":2}]')).toThrow("unexpected character");
    expect(() => parseExact('[{"ab":1},{"ab')).toThrow("unexpected end of input");
  });

  it("the exact parser reads wide and spaced texts as JSON.parse does", () => {
    // more containers in all than the nesting limit, side by side
    const wide = `[${"[[]],".repeat(1500)}{}]`;
    expect(parseExact(wide)).toEqual(JSON.parse(wide));
    const spaced = ' \t\r\n{ "a" :\n[ 1 ,\t2 ] ,\r\n "b" : { } }\n ';
    expect(parseExact(spaced)).toEqual(JSON.parse(spaced));
  });

  it("JSON.parse and the exact parser agree on every plain text", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = JSON.stringify(value);
        if (isPlain(text)) expect(parseExact(text)).toEqual(JSON.parse(text));
        expect(parseJSON(text)).toEqual(parseExact(text));
      }),
      { numRuns: 1000 },
    );
  });
});

import { JsonNumber } from "./number.js";

// A parsed JSON value. Objects are Maps so that property names such as
// "__proto__" or "constructor" are plain data, never inherited members.
export type JsonValue = null | boolean | string | JsonNumber | JsonValue[] | JsonObject;
export type JsonObject = Map<string, JsonValue>;

export type JsonType = "null" | "boolean" | "object" | "array" | "number" | "string";

export function typeOf(value: JsonValue): JsonType {
  if (value === null) return "null";
  if (typeof value === "boolean") return "boolean";
  if (typeof value === "string") return "string";
  if (value instanceof JsonNumber) return "number";
  if (Array.isArray(value)) return "array";
  return "object";
}

/** JSON equality: numbers by exact value, arrays in order, objects whatever their key order. */
export function equal(a: JsonValue, b: JsonValue): boolean {
  if (a instanceof JsonNumber) return b instanceof JsonNumber && a.equals(b);
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((item, i) => equal(item, b[i]!));
  if (a instanceof Map) {
    if (!(b instanceof Map) || a.size !== b.size) return false;
    for (const [key, item] of a) {
      const other = b.get(key);
      if (other === undefined || !equal(item, other)) return false;
    }
    return true;
  }
  return a === b;
}

/** Compact JSON text, with number literals as they were written. */
export function stringify(value: JsonValue): string {
  if (value instanceof JsonNumber) return value.literal;
  if (Array.isArray(value)) return `[${value.map(stringify).join(",")}]`;
  if (value instanceof Map) {
    return `{${[...value].map(([key, item]) => `${JSON.stringify(key)}:${stringify(item)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/** Length in Unicode code points: "héllo" is 5, "💩" is 1. */
export function codePointLength(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    // a high surrogate followed by a low one is a single code point (past the end, charCodeAt is NaN: no low one)
    // Stryker disable next-line ConditionalExpression,LogicalOperator: strings come from parseJSON, which refuses lone surrogates, so a low surrogate only ever follows a high one
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      // Stryker disable next-line ConditionalExpression,LogicalOperator: likewise, a high surrogate is always followed by a low one
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    count++;
  }
  return count;
}

/** Code-point order of two strings (the byte order of their UTF-8 forms, as Go sorts). */
export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.codePointAt(i)!;
    const y = b.codePointAt(i)!;
    // Stryker disable next-line EqualityOperator: x and y differ here, so < and <= agree
    if (x !== y) return x < y ? -1 : 1;
    // Stryker disable next-line ConditionalExpression: not skipping the low half of an equal pair compares two equal units next
    if (x > 0xffff) i++;
  }
  // Stryker disable next-line EqualityOperator: the lengths differ here, so < and <= agree
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

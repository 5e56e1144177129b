import { JsonNumber } from "./number.js";

// A parsed JSON value, in the shape JSON.parse gives, so that a text proven plain can be
// parsed by JSON.parse itself (see plain.ts). Two differences keep the promises exact:
// - a number is a JavaScript number only when that number's own text is the literal as
//   written ("3", "2.5"); any other literal ("3.0", "1e2", "-0", 9007199254740993) is a
//   JsonNumber that keeps its exact decimal value and its text;
// - an object's members are its own properties, read only through `member`, so names such
//   as "__proto__" or "constructor" are plain data, never inherited members.
export type JsonValue = null | boolean | string | number | JsonNumber | JsonValue[] | JsonObject;
export interface JsonObject {
  [name: string]: JsonValue;
}

export type JsonType = "null" | "boolean" | "object" | "array" | "number" | "string";

export function typeOf(value: JsonValue): JsonType {
  switch (typeof value) {
    case "string":
      return "string";
    case "number":
      return "number";
    case "boolean":
      return "boolean";
  }
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return value instanceof JsonNumber ? "number" : "object";
}

/** Whether a value is a JSON object (not null, an array or a number). */
export function isObject(value: JsonValue): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof JsonNumber);
}

/** The member of an object by that name, or undefined: never an inherited property. */
export function member(object: JsonObject, name: string): JsonValue | undefined {
  return Object.hasOwn(object, name) ? object[name] : undefined;
}

/** Whether a value is a JSON number, in either form. */
export function isNumber(value: JsonValue): value is number | JsonNumber {
  return typeof value === "number" || value instanceof JsonNumber;
}

/** JSON equality: numbers by exact value, arrays in order, objects whatever their key order. */
export function equal(a: JsonValue, b: JsonValue): boolean {
  if (isNumber(a)) return isNumber(b) && JsonNumber.compare(a, b) === 0;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((item, i) => equal(item, b[i]!));
  if (a !== null && typeof a === "object") {
    if (!isObject(b)) return false;
    const names = Object.keys(a);
    if (names.length !== Object.keys(b).length) return false;
    return names.every((name) => {
      const other = member(b, name);
      return other !== undefined && equal(a[name]!, other);
    });
  }
  return a === b;
}

/** Compact JSON text, with number literals as they were written. */
export function stringify(value: JsonValue): string {
  if (typeof value === "string") return quote(value);
  if (isNumber(value)) return JsonNumber.literalOf(value);
  if (Array.isArray(value)) return `[${value.map(stringify).join(",")}]`;
  if (value !== null && typeof value === "object") {
    return `{${Object.keys(value)
      .map((name) => `${JSON.stringify(name)}:${stringify(value[name]!)}`)
      .join(",")}}`;
  }
  // true, false or null
  return String(value);
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
  let i = 0;
  // Stryker disable next-line ConditionalExpression,EqualityOperator: past the shorter end charCodeAt is NaN, equal to nothing
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  // Stryker disable next-line EqualityOperator: the lengths differ here, so < and <= agree
  if (i === n) return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
  // the strings differ at i: compare whole code points, from the shared high half when it starts a pair
  // Stryker disable next-line ConditionalExpression,EqualityOperator: at 0, charCodeAt(-1) is NaN, no high half
  if (i > 0 && isHighSurrogate(a.charCodeAt(i - 1)) && (isLowSurrogate(a.charCodeAt(i)) || isLowSurrogate(b.charCodeAt(i)))) i--;
  // Stryker disable next-line EqualityOperator: they differ here, so < and <= agree
  return a.codePointAt(i)! < b.codePointAt(i)! ? -1 : 1;
}

function isHighSurrogate(unit: number): boolean {
  return unit >= 0xd800 && unit <= 0xdbff;
}

function isLowSurrogate(unit: number): boolean {
  return unit >= 0xdc00 && unit <= 0xdfff;
}

/** A string as a JSON string literal: what Go's %q prints for the texts messages quote. */
export function quote(text: string): string {
  // most texts need no escape: JSON.stringify would only add the quotes, at several times the cost
  // Stryker disable next-line EqualityOperator: past the end charCodeAt is NaN, which needs no escape
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    // Stryker disable next-line ConditionalExpression,EqualityOperator: JSON.stringify writes any string right (a space as it is), the test only spares it
    if (c < 0x20) return JSON.stringify(text);
    // Stryker disable next-line ConditionalExpression,LogicalOperator: JSON.stringify writes any string right, the test only spares it
    if (c === 0x22 || c === 0x5c || (c >= 0xd800 && c <= 0xdfff)) return JSON.stringify(text);
  }
  return `"${text}"`;
}

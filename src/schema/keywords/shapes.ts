import { JsonNumber } from "../../json/number.js";
import { isNumber, type JsonValue } from "../../json/value.js";
import type { CompileContext } from "../keyword.js";

// Shape checks shared by keywords whose values are counts or numbers.

export interface Limit {
  /** The limit as a JavaScript number (a huge one becomes MAX_SAFE_INTEGER: no text is that long). */
  readonly value: number;
  /** The limit as the message shows it. */
  readonly text: string;
}

export function countLimit(value: JsonValue, context: CompileContext): Limit {
  if (!isNumber(value) || !JsonNumber.isInteger(value) || JsonNumber.compare(value, 0) < 0) return context.refuse("a non-negative integer");
  const safe = typeof value === "number" ? value : value.toSafeInteger();
  return safe === undefined ? { value: Number.MAX_SAFE_INTEGER, text: JsonNumber.literalOf(value) } : { value: safe, text: String(safe) };
}

export function numberLimit(value: JsonValue, context: CompileContext): number | JsonNumber {
  if (!isNumber(value)) return context.refuse("a number");
  return value;
}

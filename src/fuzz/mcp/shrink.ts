import type { Json } from "./cases.js";

// Shrinking an argument object a tool ran on: each step tries smaller objects, one change at a
// time (a property left out, an element dropped, a string shortened, a number brought toward 0, a
// value made null), and keeps the first that `keeps` (still invalid, in the same ways, and the tool
// still runs on it). Smaller means fewer bytes of JSON text, so the search always ends.

export interface Shrunk {
  value: Json;
  /** Changes kept. */
  steps: number;
  /** Candidates tried (each one a call to the server). */
  tried: number;
}

/** The smallest value reached from `start` by changes `keeps` accepts, within `budget.tries` tries and before `budget.until` (ms since the epoch). */
export async function shrink(start: Json, keeps: (candidate: Json) => Promise<boolean>, budget: { tries: number; until: number }): Promise<Shrunk> {
  let value = start;
  let steps = 0;
  let tried = 0;
  for (;;) {
    let moved = false;
    const size = sizeOf(value);
    for (const candidate of smaller(value)) {
      if (sizeOf(candidate) >= size) continue;
      if (tried >= budget.tries || Date.now() >= budget.until) return { value, steps, tried };
      tried++;
      if (await keeps(candidate)) {
        value = candidate;
        steps++;
        moved = true;
        break;
      }
    }
    if (!moved) return { value, steps, tried };
  }
}

export function sizeOf(value: Json): number {
  return Buffer.byteLength(JSON.stringify(value), "utf8");
}

/** Values one change smaller than `value`, the largest cuts first. */
export function* smaller(value: Json): Generator<Json> {
  if (Array.isArray(value)) {
    if (value.length > 1) yield value.slice(0, Math.floor(value.length / 2));
    for (let i = 0; i < value.length; i++) yield [...value.slice(0, i), ...value.slice(i + 1)];
    for (let i = 0; i < value.length; i++) for (const inner of smaller(value[i]!)) yield value.map((item, j) => (j === i ? inner : item));
    return;
  }
  if (value !== null && typeof value === "object") {
    const keys = Object.keys(value);
    for (const key of keys) {
      const { [key]: _gone, ...rest } = value;
      yield rest;
    }
    for (const key of keys) for (const inner of smaller(value[key]!)) yield { ...value, [key]: inner };
    return;
  }
  if (typeof value === "string") {
    const chars = [...value];
    if (chars.length > 0) yield "";
    if (chars.length > 1) yield chars.slice(0, Math.ceil(chars.length / 2)).join("");
    if (chars.length > 1) yield chars.slice(0, -1).join("");
    // a wide character made plain, which keeps the length in code points
    const plain = chars.map((c) => (c.length > 1 || c.charCodeAt(0) > 0x7f ? "a" : c)).join("");
    if (plain !== value) yield plain;
  } else if (typeof value === "number") {
    if (value !== 0) yield 0;
    if (!Number.isInteger(value)) {
      // the whole part dropped or cut, the fraction kept: 50.5 to 0.5 and 5.5
      const fraction = value - Math.trunc(value);
      yield fraction;
      if (Math.abs(value) >= 10) yield Math.trunc(value / 10) + fraction;
      yield Math.trunc(value);
    }
    if (Math.abs(value) >= 10) yield Math.trunc(value / 10);
    if (value < 0) yield -value;
  }
  if (value !== null) yield null;
}

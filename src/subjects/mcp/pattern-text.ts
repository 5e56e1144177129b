import { piecesOf } from "../../schema/linear.js";
import { MAX_STRING } from "./limits.js";

// A text a pattern matches, built from the pattern itself (a regular language: each piece's set
// repeated its count), for a base whose string properties must match their pattern. Only patterns
// of the subset linear.ts reads ("^", pieces, "$"; one without "^" is read as if it had one, since a
// text matching from the start matches anywhere); others get none. Bounded: RE2 counts are at most
// 1,000 and a text at most MAX_STRING characters.

/** Code points preferred in a set, so the text stays readable: a letter, a digit, a dash. */
const PREFERRED = [..."a0A-_."].map((c) => c.codePointAt(0)!);

/** Texts `pattern` matches, shortest first, then longer ones reaching `minLength`; empty when none can be built. */
export function textsMatching(pattern: string, minLength: number): string[] {
  const parsed = piecesOf(pattern.startsWith("^") ? pattern : `^${pattern}`);
  if (parsed === undefined) return [];
  const points: number[] = [];
  for (const piece of parsed.pieces) {
    const point = pick(piece.set);
    if (point === undefined) return [];
    points.push(point);
  }
  const counts = parsed.pieces.map((piece) => piece.min);
  const shortest = textOf(points, counts);
  if (shortest === undefined) return [];
  const out = [shortest];
  // longer: the first piece that may repeat more takes the characters still missing
  const missing = minLength - [...shortest].length;
  const open = parsed.pieces.findIndex((piece) => piece.max > piece.min);
  if (missing > 0 && open >= 0 && minLength <= MAX_STRING) {
    const longer = [...counts];
    longer[open] = Math.min(parsed.pieces[open]!.max, longer[open]! + missing);
    const text = textOf(points, longer);
    if (text !== undefined) out.push(text);
  }
  return out;
}

function textOf(points: number[], counts: number[]): string | undefined {
  let total = 0;
  for (const count of counts) total += count;
  if (total > MAX_STRING) return undefined;
  return points.map((point, i) => String.fromCodePoint(point).repeat(counts[i]!)).join("");
}

/** A code point of `set`: a preferred one when it holds one, else its first that is not a lone surrogate. */
function pick(set: readonly (readonly [number, number])[]): number | undefined {
  for (const point of PREFERRED) if (set.some(([low, high]) => low <= point && point <= high)) return point;
  for (const [low, high] of set) {
    if (high < 0xd800 || low > 0xdfff) return low;
    if (low < 0xd800) return low;
    if (high > 0xdfff) return 0xe000;
  }
  return undefined;
}

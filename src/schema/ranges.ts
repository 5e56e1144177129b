// Sets of code points as inclusive ranges: how both pattern readers (ecma.ts, linear.ts) see a
// class, a class escape or a character.

/** Inclusive code point ranges. */
export type Ranges = readonly (readonly [number, number])[];

export const MAX_CODE_POINT = 0x10ffff;

/** \d: ASCII in RE2 and in ECMA-262 alike. */
export const DIGIT: Ranges = [[0x30, 0x39]];

/** \w: ASCII in RE2 and in ECMA-262 alike (without the `i` flag). */
export const WORD: Ranges = [
  [0x30, 0x39],
  [0x41, 0x5a],
  [0x5f, 0x5f],
  [0x61, 0x7a],
];

/** The code points not in a set (its ranges in any order, overlapping or not), in order. */
export function complement(set: Ranges): Ranges {
  const sorted = [...set].sort((a, b) => a[0] - b[0]);
  const gaps: [number, number][] = [];
  let next = 0;
  for (const [low, high] of sorted) {
    if (low > next) gaps.push([next, low - 1]);
    next = Math.max(next, high + 1);
  }
  if (next <= MAX_CODE_POINT) gaps.push([next, MAX_CODE_POINT]);
  return gaps;
}

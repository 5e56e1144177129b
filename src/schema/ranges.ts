// Sets of code points as inclusive ranges: how both pattern readers (ecma.ts, linear.ts) see a
// class, a class escape or a character.

/** Inclusive code point ranges. */
export type Ranges = readonly (readonly [number, number])[];

export const MAX_CODE_POINT = 0x10ffff;

/** \d: ASCII in RE2 and in ECMA-262 alike. */
const DIGIT: Ranges = [[0x30, 0x39]];

/** \w: ASCII in RE2 and in ECMA-262 alike (without the `i` flag). */
const WORD: Ranges = [
  [0x30, 0x39],
  [0x41, 0x5a],
  [0x5f, 0x5f],
  [0x61, 0x7a],
];

/** \d \D \w \W \s \S as sets, with the dialect's own \s (RE2's is ASCII, ECMA-262's is Unicode). */
export function classEscapes(space: Ranges): ReadonlyMap<string | undefined, Ranges> {
  return new Map([
    ["d", DIGIT],
    ["D", complement(DIGIT)],
    ["w", WORD],
    ["W", complement(WORD)],
    ["s", space],
    ["S", complement(space)],
  ]);
}

/** \t \n \v \f \r: the same code points in RE2 and in ECMA-262. */
export const CONTROL_ESCAPES: ReadonlyMap<string | undefined, number> = new Map([
  ["t", 0x09],
  ["n", 0x0a],
  ["v", 0x0b],
  ["f", 0x0c],
  ["r", 0x0d],
]);

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

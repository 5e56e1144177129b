// What the generators draw from. The default domain holds only what every honest implementation
// can handle and what the spec fixes (docs/fuzzing.md): numbers whose text is float64's own or an
// exact respelling of a whole number, patterns that RE2 and ECMA-262 read alike, texts without
// lone surrogates or duplicate keys, property names whose sort by rendered path and by segment
// agree. The hardening domain widens each.

export interface PatternCase {
  source: string;
  /** Strings the pattern matches (somewhere: patterns are not anchored by the validator). */
  matches: string[];
  /** Strings it does not match. */
  misses: string[];
}

export interface Domain {
  name: "core" | "hardening";
  /** Property names. */
  names: string[];
  /** Characters strings are made of. */
  chars: string[];
  /** Numbers written in instances and enum/const values. */
  numbers: number[];
  /** Bounds for minimum and maximum. */
  bounds: number[];
  /** Exact respellings of a whole number. */
  spellings: ((n: number) => string)[];
  patterns: PatternCase[];
  /** Raw number texts beyond float64 (hardening only). */
  wideNumbers: string[];
  /** Raw string texts with lone surrogates (hardening only). */
  wideStrings: string[];
  /** Whether objects may repeat a key (hardening only). */
  duplicateKeys: boolean;
}

// Lowercase and `_` only, and no name a prefix of another followed by a capital: `$.a[0]` and
// `$.ab`, `$.aB` sort alike whether paths are compared as text or segment by segment.
const NAMES = ["a", "b", "city", "days", "unit", "tags", "x_y", "toString", "__proto__", "constructor", "valueOf", "hasOwnProperty"];

const CHARS = ["a", "b", "z", "é", "\u0301", "💩", "𝄞", " ", '"', "\\", "\n", "0", "7"];

const PATTERNS: PatternCase[] = [
  { source: "^[a-z]+$", matches: ["a", "abz"], misses: ["", "aZ", "a b", "é"] },
  { source: "[0-9]{3}", matches: ["123", "ab123cd"], misses: ["12", "1a23", ""] },
  { source: "^a", matches: ["a", "ab"], misses: ["ba", ""] },
  { source: "b$", matches: ["b", "ab"], misses: ["ba", ""] },
  { source: "x|é", matches: ["é", "axb"], misses: ["abc", "e\u0301"] },
  { source: "^$", matches: [""], misses: ["a", " "] },
  { source: "💩", matches: ["💩", "a💩b"], misses: ["a", ""] },
  { source: "^[^0-9]*$", matches: ["", "ab", "é💩"], misses: ["a1", "7"] },
  { source: "^a*b?$", matches: ["", "aab", "b"], misses: ["ba", "abb"] },
  { source: "\\d", matches: ["7", "a0"], misses: ["a", ""] },
  { source: "^[a-c]{2,3}$", matches: ["ab", "cba"], misses: ["a", "abcd", "ad"] },
];

const NUMBERS = [0, 1, 2, 3, 7, 8, -1, -7, 0.5, 1.5, -0.5, 7.25, 100, 1e21, 2.5e-7];
const BOUNDS = [0, 1, 2, 7, -1, 0.5, 1.5, 100];
const SPELLINGS: ((n: number) => string)[] = [(n) => `${n}.0`, (n) => `${n}e0`, (n) => `${n}0e-1`, (n) => (n === 0 ? "-0" : `${n}.00`), (n) => `${n}E+0`];

export const CORE_DOMAIN: Domain = {
  name: "core",
  names: NAMES,
  chars: CHARS,
  numbers: NUMBERS,
  bounds: BOUNDS,
  spellings: SPELLINGS,
  patterns: PATTERNS,
  wideNumbers: [],
  wideStrings: [],
  duplicateKeys: false,
};

/** `--tier hardening`: also what float64, RE2 and UTF-16 get wrong, and our choices where the spec is silent. */
export const HARDENING_DOMAIN: Domain = {
  name: "hardening",
  names: [...NAMES, "A", "a1", "a b", "é", "💩", "", "a.b", "[0]"],
  chars: [...CHARS, "\u2028", "\r", "\t", "\u0000"],
  numbers: [...NUMBERS, 9007199254740992, -9007199254740992, 1e308, 5e-324, 0.1, 0.2, 0.30000000000000004],
  bounds: [...BOUNDS, 0.1, 9007199254740992],
  spellings: SPELLINGS,
  patterns: [
    ...PATTERNS,
    { source: "^.$", matches: ["a", "💩"], misses: ["", "ab", "\n"] },
    { source: "\\s", matches: [" ", "a\tb"], misses: ["ab"] },
  ],
  wideNumbers: ["9007199254740993", "2.0000000000000001", "1e400", "-1e400", "0.1e1", "100000000000000000000000000001"],
  wideStrings: ['"\\ud800"', '"a\\udc00b"', '"\\ud83d"'],
  duplicateKeys: true,
};

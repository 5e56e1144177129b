import { classEscapes, complement, CONTROL_ESCAPES, MAX_CODE_POINT, type Ranges } from "./ranges.js";

// A fast path for RE2 patterns: a native RegExp, used only for patterns in a subset where it is
// proven to match exactly what RE2 matches and to run in linear time in V8's backtracking engine.
//
// The subset, read with RE2's syntax and default flags: "^", then at most 64 pieces, then an
// optional "$" (end of text only, as RE2 reads it without the m flag). A piece is an atom with an
// optional greedy quantifier * + ? {n} {n,} {n,m} (counts up to 1000, no leading zeros). An atom is
// a literal code point that is not a metacharacter, \ + ASCII punctuation, \t \n \v \f \r, \xHH,
// \x{H…} (up to 10FFFF), \d \D \w \W \s \S (ASCII: [0-9], [0-9A-Za-z_], [\t\n\f\r ]), "." (any
// code point but \n), or a class [… ] / [^… ] of those escapes, literal code points and ranges a-z
// (a negated class matches \n, as in RE2). Anything else, such as groups, alternation, lazy
// quantifiers, \b, \p{…}, \Q…\E, POSIX classes, flags, is refused.
//
// Same matches: every atom is read here into a set of code point ranges, and the native expression
// is written from those ranges ([\u{61}-\u{7A}]{1,}), with the u flag, so both engines see the same
// sets of code points (lone surrogates included) and the same counts in the same order.
//
// Linear time: the pattern is deterministic. Every piece whose count can vary (min < max) has a set
// disjoint from the sets of the pieces after it, up to and including the first one with min >= 1.
// Say a match fails and V8 backtracks into such a piece, making it give back the character at
// position p. That character is in the piece's set, so every following optional piece matches it
// zero times (one choice each) and the first mandatory piece fails on it, or, with none left, the
// final "$" fails before it (without "$" the attempt would already have succeeded): the give-back
// fails after O(pieces) steps without opening any choice.
// Each character is consumed once going forward and given back at most once, so one attempt costs
// O(n × pieces), and with "^" there is only one attempt (an unanchored pattern would be retried
// at every start, which is quadratic even when deterministic).
//
// Patterns outside the subset return undefined: they run on re2js, which is linear too, but slower.

/** An atom's set with its count: min to max times (max Infinity when unbounded). */
export interface Piece {
  readonly set: Ranges;
  readonly min: number;
  readonly max: number;
}

const MAX_PIECES = 64;
// RE2's own limit: a larger count is a compile error there
const MAX_COUNT = 1000;

// RE2's \s: no \v
const SPACE: Ranges = [
  [0x09, 0x0a],
  [0x0c, 0x0d],
  [0x20, 0x20],
];
const ANY_BUT_NEWLINE = complement([[0x0a, 0x0a]]);

const CLASS_ESCAPES = classEscapes(SPACE);
const QUANTIFIERS = new Map<string | undefined, readonly [number, number]>([
  ["*", [0, Infinity]],
  ["+", [1, Infinity]],
  ["?", [0, 1]],
]);
const PUNCTUATION: ReadonlySet<string | undefined> = new Set("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~");
// the characters with a meaning outside a class; as literals they are refused, not guessed at
const METACHARACTERS: ReadonlySet<string | undefined> = new Set("\\.+*?()|[]{}^$");
const DIGITS: ReadonlySet<string | undefined> = new Set("0123456789");
const HEX_DIGITS: ReadonlySet<string | undefined> = new Set("0123456789ABCDEFabcdef");

/** What the pattern keyword needs of a compiled expression: RE2JS's own methods, so either engine fits. */
export interface Expression {
  /** Whether the expression matches somewhere in the input. */
  test(input: string): boolean;
  /** Whether the expression matches the whole input. */
  matches(input: string): boolean;
}

/**
 * A native expression that matches exactly what RE2 matches for `source`, in linear time, or
 * undefined when `source` is outside the subset described above.
 */
export function linear(source: string): Expression | undefined {
  const pattern = parse(source);
  if (pattern === undefined || !deterministic(pattern.pieces)) return undefined;
  const body = pattern.pieces.map(pieceText).join("");
  const search = new RegExp(`^${body}${pattern.anchoredAtEnd ? "$" : ""}`, "u");
  const whole = new RegExp(`^${body}$`, "u");
  return { test: (input) => search.test(input), matches: (input) => whole.test(input) };
}

/** The pieces of `source` when it is in the subset above (for building a text it matches); undefined otherwise. */
export function piecesOf(source: string): { pieces: readonly Piece[]; anchoredAtEnd: boolean } | undefined {
  // Stryker disable next-line all: read by MCP probe generation only, whose tests cover it (test/subjects/mcp/probes-hostile.test.ts)
  return parse(source);
}

function parse(source: string): { pieces: Piece[]; anchoredAtEnd: boolean } | undefined {
  const chars = [...source];
  if (chars[0] !== "^") return undefined;
  let i = 1;

  /** The escape after a "\": a code point, a set, or undefined when outside the subset. */
  const escape = (): number | Ranges | undefined => {
    const c = chars[i++];
    const control = CONTROL_ESCAPES.get(c);
    if (control !== undefined) return control;
    if (PUNCTUATION.has(c)) return c!.codePointAt(0);
    if (c === "x") return hexEscape();
    return CLASS_ESCAPES.get(c);
  };

  /** Up to `limit` hex digits from here. */
  const hexDigits = (limit: number): string => {
    const start = i;
    while (i - start < limit && HEX_DIGITS.has(chars[i])) i++;
    return chars.slice(start, i).join("");
  };

  /** \xHH or \x{H…}, after the "x". */
  const hexEscape = (): number | undefined => {
    let digits: string;
    if (chars[i] === "{") {
      i++;
      digits = hexDigits(Infinity);
      if (chars[i++] !== "}") return undefined;
    } else {
      digits = hexDigits(2);
      if (digits.length < 2) return undefined;
    }
    // NaN for \x{}, which RE2 refuses
    const code = parseInt(digits, 16);
    return code <= MAX_CODE_POINT ? code : undefined;
  };

  /** One item of a class: a code point, a set, or undefined. */
  const classItem = (): number | Ranges | undefined => {
    const c = chars[i++];
    if (c === "\\") return escape();
    // "[" may open a POSIX class, "-" outside a range reads differently in RE2's dialects,
    // "]" here ends a range ("[a-]" is a literal "-" in RE2)
    if (c === "[" || c === "-" || c === "]" || c === undefined) return undefined;
    return c.codePointAt(0);
  };

  /** A class after its "[": the union of its items, complemented when it starts with "^". */
  const bracket = (): Ranges | undefined => {
    const negated = chars[i] === "^";
    if (negated) i++;
    // RE2 reads a "]" right after the opening as a literal
    if (chars[i] === "]") return undefined;
    const ranges: (readonly [number, number])[] = [];
    while (chars[i] !== "]") {
      const low = classItem();
      if (low === undefined) return undefined;
      if (typeof low !== "number") {
        ranges.push(...low);
        continue;
      }
      let high = low;
      if (chars[i] === "-") {
        i++;
        const end = classItem();
        if (typeof end !== "number" || end < low) return undefined;
        high = end;
      }
      ranges.push([low, high]);
    }
    i++;
    return negated ? complement(ranges) : ranges;
  };

  const atom = (): Ranges | undefined => {
    const c = chars[i++];
    if (c === ".") return ANY_BUT_NEWLINE;
    if (c === "[") return bracket();
    if (c === "\\") {
      const meaning = escape();
      return typeof meaning === "number" ? [[meaning, meaning]] : meaning;
    }
    if (METACHARACTERS.has(c)) return undefined;
    const code = c!.codePointAt(0)!;
    return [[code, code]];
  };

  /** A decimal count without leading zeros (RE2 reads "{01}" as text, not as a count). */
  const count = (): number | undefined => {
    const start = i;
    while (DIGITS.has(chars[i])) i++;
    const digits = chars.slice(start, i).join("");
    return String(Number(digits)) === digits ? Number(digits) : undefined;
  };

  /** The quantifier after an atom as [min, max], [1, 1] when there is none. */
  const quantifier = (): readonly [number, number] | undefined => {
    const symbol = QUANTIFIERS.get(chars[i]);
    if (symbol) {
      i++;
      return symbol;
    }
    if (chars[i] !== "{") return [1, 1];
    i++;
    const min = count();
    let max = min;
    if (chars[i] === ",") {
      i++;
      max = chars[i] === "}" ? Infinity : count();
    }
    if (chars[i++] !== "}" || min === undefined || max === undefined || min > max) return undefined;
    return (max === Infinity ? min : max) > MAX_COUNT ? undefined : [min, max];
  };

  const pieces: Piece[] = [];
  while (i < chars.length) {
    if (chars[i] === "$" && i === chars.length - 1) return { pieces, anchoredAtEnd: true };
    const set = atom();
    if (set === undefined) return undefined;
    const counts = quantifier();
    if (counts === undefined || pieces.length === MAX_PIECES) return undefined;
    pieces.push({ set, min: counts[0], max: counts[1] });
  }
  return { pieces, anchoredAtEnd: false };
}

/** Whether every variable piece is disjoint from the pieces it could give characters to. */
function deterministic(pieces: readonly Piece[]): boolean {
  return pieces.every((piece, i) => {
    if (piece.min === piece.max) return true;
    for (const next of pieces.slice(i + 1)) {
      if (overlaps(piece.set, next.set)) return false;
      if (next.min > 0) return true;
    }
    return true;
  });
}

function overlaps(a: Ranges, b: Ranges): boolean {
  return a.some(([low, high]) => b.some(([otherLow, otherHigh]) => low <= otherHigh && otherLow <= high));
}


function pieceText({ set, min, max }: Piece): string {
  const hex = (code: number) => `\\u{${code.toString(16)}}`;
  const items = set.map(([low, high]) => `${hex(low)}-${hex(high)}`).join("");
  return `[${items}]{${min},${max === Infinity ? "" : max}}`;
}

import { RE2JS } from "re2js";
import { linear, type Expression } from "./linear.js";
import { classEscapes, complement, CONTROL_ESCAPES, MAX_CODE_POINT, type Ranges } from "./ranges.js";

// The lesson profile's patterns: ECMA-262 regular expressions with the `u` flag (a pattern is
// read as code points and matched against code points). A pattern is first compiled by the
// native RegExp with "u": one it refuses is a compile error. Then it is translated to RE2 when
// the translation is exact, so it runs in linear time on re2js:
//
//   .            [^\x{A}\x{D}\x{2028}-\x{2029}]   (no line terminator; lone surrogates are code points in both)
//   \d \D        [0-9] [^0-9]                     (ASCII in both)
//   \w \W        [0-9A-Z_a-z] and its negation    (ASCII in both, no `i` flag)
//   \s \S        [\x{9}-\x{D} \x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}-\x{2029}\x{202F}\x{205F}\x{3000}\x{FEFF}]
//                and its negation: ECMA's WhiteSpace and LineTerminator (RE2's \s is ASCII)
//   \b \B        \b \B                            (both: ASCII word boundary)
//   ^ $          ^ $                              (no `m` flag: start and end of the input in both)
//   \t \n \v \f \r, \0, \cX, \xHH, \uHHHH, \uLEAD\uTRAIL (one code point), \u{H…}: the code point
//   \ + syntax character or "/" (and "-" in a class): the character itself
//   any other character: itself (ASCII letters, digits, "_" and space as they are, other ASCII
//                punctuation escaped with "\", anything else as \x{H…})
//   [ … ], [^ … ] a class of code point ranges computed here: class escapes inside it become
//                their ranges, a negated class is complemented over U+0000–U+10FFFF, and the
//                result is written as ranges or as the negation of its complement;
//                [] is [^\x{0}-\x{10FFFF}] (nothing) and [^] is [\x{0}-\x{10FFFF}] (anything)
//   ( … ), (?: … ), (?<name> … )   a group (names do not matter to a match)
//   * + ? {n} {n,} {n,m}, each optionally lazy   the same (counts without leading zeros)
//   |            |
//
// (V8 also tries an empty match such as \B inside a surrogate pair, finding \B at index 2 of "a💩a";
// ECMA-262 and the translation do not.)
//
// What has no exact RE2 form runs on the native RegExp with "u": lookahead (?= (?!, lookbehind
// (?<= (?<!, backreferences \1… and \k<name>, Unicode property escapes \p{…} \P{…} (the two
// engines' Unicode tables need not agree), and any translation RE2 itself refuses (a count
// over 1000, or nested counts whose product is). Those patterns have no linear-time guarantee:
// the schema's author writes them, not the model.

const SPACE: Ranges = [
  [0x09, 0x0d],
  [0x20, 0x20],
  [0xa0, 0xa0],
  [0x1680, 0x1680],
  [0x2000, 0x200a],
  [0x2028, 0x2029],
  [0x202f, 0x202f],
  [0x205f, 0x205f],
  [0x3000, 0x3000],
  [0xfeff, 0xfeff],
];
const LINE_TERMINATORS: Ranges = [
  [0x0a, 0x0a],
  [0x0d, 0x0d],
  [0x2028, 0x2029],
];

const SETS = classEscapes(SPACE);

/**
 * Compiles an ECMA-262 pattern: on re2js when it translates exactly, else on the native RegExp.
 * Throws the native SyntaxError for a pattern that is not ECMA-262 with the `u` flag.
 */
export function compileECMA(source: string): Expression {
  const native = new RegExp(source, "u");
  const re2 = re2Of(source);
  // the translation is exact, so where linear.ts proves it safe the native engine runs it faster
  if (re2) return linear(re2.pattern()) ?? re2;
  const whole = new RegExp(`^(?:${source})$`, "u");
  return { test: (input) => native.test(input), matches: (input) => whole.test(input) };
}

/**
 * The RE2 pattern that matches exactly what an ECMA-262 pattern matches, or undefined when there is
 * none that re2js runs (or the pattern is not ECMA-262 with the `u` flag).
 */
export function translateECMA(source: string): string | undefined {
  return re2Of(source)?.pattern();
}

function re2Of(source: string): RE2JS | undefined {
  const translated = translate(source);
  // Stryker disable next-line ConditionalExpression: RE2JS refuses undefined as it refuses a count over 1000: either way the answer is undefined
  if (translated === undefined) return undefined;
  try {
    return RE2JS.compile(translated);
  } catch {
    // beyond RE2's limits (a count over 1000, or nested counts whose product is): the native engine runs it
  }
  return undefined;
}

function translate(source: string): string | undefined {
  try {
    new RegExp(source, "u");
  } catch {
    return undefined;
  }
  // from here on the pattern is valid, so the reading below need not check it
  const chars = [...source];
  let i = 0;

  /** The escape after a "\": a code point, a set, or undefined when RE2 has no exact form of it. */
  const escape = (): number | Ranges | undefined => {
    const c = chars[i++]!;
    const set = SETS.get(c);
    if (set) return set;
    const control = CONTROL_ESCAPES.get(c);
    if (control !== undefined) return control;
    // outside a class \b is an assertion, handled before this is called
    if (c === "b") return 0x08;
    if (c === "0") return 0;
    if (c === "c") return chars[i++]!.codePointAt(0)! % 32;
    if (c === "x") return hex(2);
    if (c === "u") return unicodeEscape();
    // backreferences and property escapes (c is one code point); every other escape letter is invalid with `u`
    if (/[1-9kpP]/.test(c)) return undefined;
    return c.codePointAt(0)!;
  };

  const hex = (length: number): number => {
    const value = parseInt(chars.slice(i, i + length).join(""), 16);
    i += length;
    return value;
  };

  const unicodeEscape = (): number => {
    if (chars[i] === "{") {
      const end = chars.indexOf("}", i);
      const value = parseInt(chars.slice(i + 1, end).join(""), 16);
      i = end + 1;
      return value;
    }
    const lead = hex(4);
    // with `u`, a lead and a trail surrogate written as two \u escapes are one code point
    if (lead >= 0xd800 && lead < 0xdc00 && chars[i] === "\\" && chars[i + 1] === "u") {
      // NaN for \u{…}, which does not pair
      const trail = parseInt(chars.slice(i + 2, i + 6).join(""), 16);
      if (trail >= 0xdc00 && trail < 0xe000) {
        i += 6;
        return 0x10000 + (lead - 0xd800) * 0x400 + (trail - 0xdc00);
      }
    }
    return lead;
  };

  /** One atom of a class: a code point, a set, or undefined. */
  const classAtom = (): number | Ranges | undefined => {
    const c = chars[i++]!;
    return c === "\\" ? escape() : c.codePointAt(0)!;
  };

  let out = "";
  while (i < chars.length) {
    const c = chars[i++]!;
    if (c === "\\") {
      if (chars[i] === "b" || chars[i] === "B") {
        out += "\\" + chars[i++];
        continue;
      }
      const meaning = escape();
      if (meaning === undefined) return undefined;
      out += typeof meaning === "number" ? literal(meaning) : classText(meaning);
    } else if (c === "[") {
      const negated = chars[i] === "^";
      if (negated) i++;
      const ranges: (readonly [number, number])[] = [];
      while (chars[i] !== "]") {
        const low = classAtom();
        if (low === undefined) return undefined;
        if (chars[i] === "-" && chars[i + 1] !== "]") {
          // with `u` a set at either end of a range is a syntax error, so both ends are code points
          i++;
          ranges.push([low as number, classAtom() as number]);
        } else ranges.push(...(typeof low === "number" ? [[low, low] as const] : low));
      }
      i++;
      const set = normalize(ranges);
      out += classText(negated ? complement(set) : set);
    } else if (c === ".") {
      out += classText(complement(LINE_TERMINATORS));
    } else if (c === "(") {
      if (chars[i] !== "?") out += "(";
      else if (chars[i + 1] === ":") {
        out += "(?:";
        i += 2;
      } else if (chars[i + 1] === "<" && chars[i + 2] !== "=" && chars[i + 2] !== "!") {
        out += "(";
        i = chars.indexOf(">", i) + 1;
      } else return undefined; // lookahead or lookbehind
    } else if (c === "{") {
      // RE2 reads a count with a leading zero as literal text
      const end = chars.indexOf("}", i);
      out += "{" + chars.slice(i, end).join("").replace(/\b0+(?=\d)/g, "") + "}";
      i = end + 1;
    } else if ("^$|)*+?".includes(c)) {
      out += c;
    } else {
      out += literal(c.codePointAt(0)!);
    }
  }
  return out;
}

/** One code point as RE2 reads it literally, inside a class or out. */
function literal(code: number): string {
  // one code point: a class without anchors tests it whole (an astral one is two units, neither in the class)
  const c = String.fromCodePoint(code);
  if (/[0-9A-Za-z_ ]/.test(c)) return c;
  if (/[!-/:-@[-`{-~]/.test(c)) return "\\" + c;
  return `\\x{${code.toString(16).toUpperCase()}}`;
}

/** A set as an RE2 class that is never empty brackets ("[]" and "[^]" are not classes to RE2). */
function classText(set: Ranges): string {
  const rest = complement(set);
  const items = (ranges: Ranges) => ranges.map(([low, high]) => (low === high ? literal(low) : `${literal(low)}-${literal(high)}`)).join("");
  return rest.length > 0 && (set.length === 0 || set.at(-1)![1] === MAX_CODE_POINT) ? `[^${items(rest)}]` : `[${items(set)}]`;
}

/** Sorted, merged ranges. */
function normalize(ranges: Ranges): Ranges {
  const sorted = [...ranges].sort((a, b) => a[0] - b[0]);
  const merged: [number, number][] = [];
  for (const [low, high] of sorted) {
    const last = merged.at(-1);
    if (last && low <= last[1] + 1) last[1] = Math.max(last[1], high);
    else merged.push([low, high]);
  }
  return merged;
}


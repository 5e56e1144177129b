import { MAX_DEPTH } from "./limits.js";
import { SHORT_DIGITS } from "./number.js";

// A text is "plain" when JSON.parse gives exactly the value the exact parser would: no
// duplicate key, no lone surrogate (raw or escaped), no nesting deeper than MAX_DEPTH, and
// every number literal is the text of its own float64 ("3", "-2.5", "0.001"; not "3.0",
// "-0", "1e2", "0.0000001" or 16 digits). One pass, and no allocation for objects of up to
// LINEAR_KEYS keys: strings and keys are skipped with indexOf, runs of integers in an array with
// one regular expression, and characters are looked at one by one only in other numbers and
// between values. A malformed text may be called plain: JSON.parse then refuses it, and the
// exact parser reports where.
//
// The scan keeps its state in module-level buffers: it is synchronous and calls nothing
// that could scan again, and reusing them is what keeps a short text cheap.

declare global {
  interface String {
    /** ES2024 (in Node since 20): whether the text has no lone surrogate. */
    isWellFormed(): boolean;
  }
}

/** Up to this many keys an object's new key is compared with the earlier ones; beyond, looked up in a set. */
const LINEAR_KEYS = 32;
// Stryker disable next-line UnaryOperator: any position no string or key ends at would do
const NOT_PLAIN = -1;
/** Integers of at most 15 digits, each followed by a comma: all their own float64's text. */
// Stryker disable next-line Regex: a shorter run leaves the rest to the loop, which reads integers alike
const INTEGERS = /(?:(?:0|[1-9]\d{0,14}),)*/y;

/** The keys of the open objects, innermost last: each key's sketch (see keyEnd) and where its text lies. */
let keyHashes = new Int32Array(64);
let keyStarts = new Int32Array(64);
let keyEnds = new Int32Array(64);
/** Per open container, outermost first: whether it is an object, and where its keys begin. */
const isObjectAt = new Uint8Array(MAX_DEPTH);
const firstKeyAt = new Int32Array(MAX_DEPTH);
/** Per open object, which of 32 bits its keys' sketches set (see isNewKey). */
const seenBits = new Int32Array(MAX_DEPTH);
/** Per open object of more than LINEAR_KEYS keys: its keys. */
const bigObjects: (Set<string> | undefined)[] = [];
// Stryker disable next-line BooleanLiteral: true only clears an empty list once more
let bigObjectsUsed = false;
/** Where the next backslash is, at or after where a string scan looks (text.length when none). */
let nextSlash = 0;

export function isPlain(text: string): boolean {
  if (!text.isWellFormed()) return false;
  nextSlash = backslashFrom(text, 0);
  // a scan that stopped early may have left a set behind (the flag spares the common scan a costly clear)
  // Stryker disable next-line ConditionalExpression: clearing an empty list changes nothing
  if (bigObjectsUsed) {
    bigObjects.length = 0;
    // Stryker disable next-line BooleanLiteral: true only clears an empty list once more
    bigObjectsUsed = false;
  }
  let depth = 0;
  let keys = 0;
  let expectKey = false;
  let at = 0;
  const length = text.length;
  // Stryker disable next-line EqualityOperator: at the end charCodeAt is NaN, and the last turn only steps past it
  while (at < length) {
    let c = text.charCodeAt(at);
    if ((c >= 0x30 && c <= 0x39) || c === 0x2d /* - */) {
      // in an array, a run of short integers and commas at the regular expression engine's pace
      // (without it the loop below reads them alike, one by one)
      // Stryker disable ConditionalExpression,EqualityOperator,BlockStatement
      if (depth > 0 && isObjectAt[depth - 1] === 0) {
        INTEGERS.lastIndex = at;
        INTEGERS.test(text);
        if (INTEGERS.lastIndex > at) {
          at = INTEGERS.lastIndex;
          continue;
        }
      }
      // Stryker restore ConditionalExpression,EqualityOperator,BlockStatement
      // a number, read here rather than in a function: arrays of numbers spend their time here
      let i = at;
      const negative = c === 0x2d;
      if (negative) c = text.charCodeAt(++i);
      const first = i;
      while (c >= 0x30 && c <= 0x39) c = text.charCodeAt(++i);
      let digits = i - first;
      // "0…" is the only whole part with a leading zero
      // Stryker disable next-line ConditionalExpression: a whole part of several digits that starts with 0 is malformed
      const zeroWhole = digits === 1 && text.charCodeAt(first) === 0x30;
      if (c === 0x2e /* . */) {
        const fraction = ++i;
        c = text.charCodeAt(i);
        while (c === 0x30) c = text.charCodeAt(++i);
        // below 1e-6 the text is "1e-7"
        if (zeroWhole && i - fraction >= 6) return false;
        while (c >= 0x30 && c <= 0x39) c = text.charCodeAt(++i);
        // "1.50" is 1.5's text only without its trailing zero
        if (text.charCodeAt(i - 1) === 0x30) return false;
        digits += i - fraction;
      } else if (negative && zeroWhole) {
        // "-0" is the text of 0
        return false;
      }
      // an exponent is never a float64's text below 1e21
      if (c === 0x65 || c === 0x45 || digits > SHORT_DIGITS) return false;
      at = i;
    } else if (c === 0x22 /* " */) {
      if (!expectKey) {
        at = stringEnd(text, at);
        if (at === NOT_PLAIN) return false;
        continue;
      }
      if (keys === keyHashes.length) growKeys();
      const end = keyEnd(text, at, keys);
      // Stryker disable next-line ConditionalExpression: overlooked, NOT_PLAIN sends the scan back to the start, where the same key comes again until the nesting limit says not plain
      if (end === NOT_PLAIN || !isNewKey(text, depth - 1, keys, at + 1, end)) return false;
      keyStarts[keys] = at + 1;
      keyEnds[keys] = end;
      keys++;
      expectKey = false;
      at = end + 1;
    } else if (c === 0x2c /* , */) {
      // Stryker disable next-line ConditionalExpression,EqualityOperator: at depth 0 isObjectAt[-1] is undefined, not 1
      expectKey = depth > 0 && isObjectAt[depth - 1] === 1;
      at++;
    } else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (depth === MAX_DEPTH) return false;
      expectKey = c === 0x7b;
      isObjectAt[depth] = expectKey ? 1 : 0;
      firstKeyAt[depth] = keys;
      seenBits[depth] = 0;
      depth++;
      at++;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      // a closing bracket with nothing open is malformed: JSON.parse refuses it
      // Stryker disable next-line ConditionalExpression,EqualityOperator: see above
      if (depth > 0) {
        depth--;
        keys = firstKeyAt[depth]!;
        // Stryker disable next-line ConditionalExpression: when no set was made there is none to drop
        if (bigObjectsUsed) bigObjects[depth] = undefined;
      }
      // Stryker disable next-line BooleanLiteral: after a closing bracket comes a comma or a bracket, never a string
      expectKey = false;
      at++;
    } else {
      // space, ":" and the letters of true, false and null; anything else is JSON.parse's to refuse
      at++;
    }
  }
  return true;
}

/** Where the string value opening at `at` ends; NOT_PLAIN when it escapes a surrogate (its text may be a lone one). */
function stringEnd(text: string, at: number): number {
  let from = at + 1;
  for (;;) {
    const quote = text.indexOf('"', from);
    // unterminated: JSON.parse refuses it
    // Stryker disable next-line EqualityOperator: a quote at 0 never follows an opening one
    if (quote < 0) return text.length;
    // Stryker disable next-line ConditionalExpression,EqualityOperator: looking again from a backslash at `from` finds it again
    if (nextSlash < from) nextSlash = backslashFrom(text, from);
    // Stryker disable next-line EqualityOperator: a backslash and a quote are never at one place
    if (nextSlash > quote) return quote + 1;
    // an escape before that quote: "\u" then D800–DFFF is a surrogate
    if (text.charCodeAt(nextSlash + 1) === 0x75 /* u */ && isSurrogateEscape(text, nextSlash + 2)) return NOT_PLAIN;
    from = nextSlash + 2;
  }
}

/**
 * Where the key opening at `at` ends (its closing quote), with a sketch of it put in keyHashes[slot]
 * (its length and three of its characters: keys that differ mostly differ there); NOT_PLAIN for
 * an escaped key, which may equal another spelled otherwise.
 */
function keyEnd(text: string, at: number, slot: number): number {
  const start = at + 1;
  const end = text.indexOf('"', start);
  // unterminated: JSON.parse refuses it
  // Stryker disable next-line ConditionalExpression,EqualityOperator: a quote at 0 never follows an opening one, and a key of -1 characters is malformed anyway
  if (end < 0) return NOT_PLAIN;
  // Stryker disable next-line ConditionalExpression,EqualityOperator: looking again from a backslash at `start` finds it again
  if (nextSlash < start) nextSlash = backslashFrom(text, start);
  // Stryker disable next-line EqualityOperator: a backslash and a quote are never at one place
  if (nextSlash < end) return NOT_PLAIN;
  const length = end - start;
  // Stryker disable next-line all: any function of the key's text works, equal keys have equal sketches
  keyHashes[slot] = (length << 21) ^ (text.charCodeAt(start) << 14) ^ (text.charCodeAt(start + (length >> 1)) << 7) ^ text.charCodeAt(end - 1);
  return end;
}

/** Whether the key just read (into slot `keys`, its text from start to end) is not yet in the object at `level`. */
function isNewKey(text: string, level: number, keys: number, start: number, end: number): boolean {
  const first = firstKeyAt[level]!;
  // Stryker disable next-line ConditionalExpression,EqualityOperator,ArithmeticOperator,BlockStatement: a set finds the same duplicates; comparing spares small objects one
  if (keys - first < LINEAR_KEYS) {
    const sketch = keyHashes[keys]!;
    // one of 32 bits per sketch: a key whose bit is not yet set is new without a look at the others
    // Stryker disable next-line all: any bit works that keys alike share
    const bit = 1 << (Math.imul(sketch, 0x9e3779b1) >>> 27);
    // Stryker disable next-line ConditionalExpression: comparing with every earlier key finds the same duplicates
    if ((seenBits[level]! & bit) !== 0) {
      for (let k = first; k < keys; k++) {
        // Stryker disable next-line ConditionalExpression: comparing the texts alone gives the same answer
        if (keyHashes[k] === sketch && sameText(text, keyStarts[k]!, start, end - start)) return false;
      }
    }
    seenBits[level]! |= bit;
    return true;
  }
  let names = bigObjects[level];
  // Stryker disable next-line ConditionalExpression: a set made again from the same keys is the same set
  if (!names) {
    names = new Set();
    for (let k = first; k < keys; k++) names.add(text.slice(keyStarts[k]!, keyEnds[k]!));
    bigObjects[level] = names;
    bigObjectsUsed = true;
  }
  const name = text.slice(start, end);
  if (names.has(name)) return false;
  names.add(name);
  return true;
}

/** Whether the `length` characters at `start` are those at `otherStart`. */
function sameText(text: string, start: number, otherStart: number, length: number): boolean {
  // Stryker disable next-line EqualityOperator: one character further is each key's closing quote
  for (let i = 0; i < length; i++) if (text.charCodeAt(start + i) !== text.charCodeAt(otherStart + i)) return false;
  return true;
}

/** Where the first backslash at or after `from` is, text.length when there is none. */
function backslashFrom(text: string, from: number): number {
  const at = text.indexOf("\\", from);
  // Stryker disable next-line EqualityOperator: a backslash at 0 is outside every string (malformed)
  return at < 0 ? text.length : at;
}

function growKeys(): void {
  const grow = (buffer: Int32Array) => {
    const bigger = new Int32Array(buffer.length * 2);
    bigger.set(buffer);
    return bigger;
  };
  keyHashes = grow(keyHashes);
  keyStarts = grow(keyStarts);
  keyEnds = grow(keyEnds);
}

/** Whether the four characters at `at` are hex for D800–DFFF. */
function isSurrogateEscape(text: string, at: number): boolean {
  // "d" (or "D") then 8, 9 or a–f (or A–F)
  if ((text.charCodeAt(at) | 0x20) !== 0x64) return false;
  const next = text.charCodeAt(at + 1) | 0x20;
  if (next === 0x38 || next === 0x39) return true;
  if (next < 0x61) return false;
  // Stryker disable next-line ConditionalExpression,EqualityOperator: past "f" there is no hex digit, and JSON.parse refuses the text
  return next <= 0x66;
}

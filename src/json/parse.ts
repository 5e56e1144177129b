import { syntaxMessages as messages } from "./messages.js";
import { MAX_DEPTH } from "./limits.js";
import { JsonNumber, SHORT_DIGITS } from "./number.js";
import { isPlain } from "./plain.js";
import type { JsonObject, JsonValue } from "./value.js";

export { MAX_DEPTH };

/** Malformed JSON; the message never depends on the Node version. */
export class JsonSyntaxError extends Error {
  override name = "JsonSyntaxError";
}

/** Texts up to this long are read by the exact parser alone (docs/benchmarks.md has the crossover). */
const SHORT_TEXT = 48;
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
/** 10^0 … 10^15, exact as float64: a short literal's value is its digits over one of them, rounded once. */
const POWERS_OF_TEN = Array.from({ length: SHORT_DIGITS + 1 }, (_, k) => 10 ** k);
const ESCAPES: Record<string, string> = { '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };

/**
 * Parses RFC 8259 JSON strictly, keeping number literals exact. Beyond the RFC it refuses
 * duplicate keys, lone surrogates and nesting deeper than MAX_DEPTH.
 */
export function parseJSON(text: string): JsonValue {
  // a plain text means the same to JSON.parse, which builds it several times faster, once past
  // its fixed cost: up to SHORT_TEXT characters the exact parser alone is faster
  // Stryker disable ConditionalExpression,EqualityOperator,BlockStatement: the exact parser gives the same value, only slower (test/reference/reference-plain.test.ts checks isPlain itself)
  if (text.length > SHORT_TEXT && isPlain(text)) {
    try {
      return JSON.parse(text) as JsonValue;
    } catch {
      // malformed: the exact parser says where, as it always does
    }
  }
  // Stryker restore ConditionalExpression,EqualityOperator,BlockStatement
  return parseExact(text);
}

/** The exact parser alone: what parseJSON gives for every text, plain or not. */
export function parseExact(text: string): JsonValue {
  return new Parser(text).document();
}

class Parser {
  private at = 0;
  private depth = 0;
  // Stryker disable next-line ArrayDeclaration: a stray first element stays below every array's base
  private readonly elements: JsonValue[] = [];

  constructor(private readonly text: string) {}

  document(): JsonValue {
    const value = this.value();
    this.space();
    if (this.at < this.text.length) this.fail(this.at);
    return value;
  }

  private value(): JsonValue {
    this.space();
    const c = this.text.charCodeAt(this.at);
    switch (c) {
      case 0x7b /* { */:
        return this.object();
      case 0x5b /* [ */:
        return this.array();
      case 0x22 /* " */:
        return this.string();
      case 0x74 /* t */:
        return this.word("true", true);
      case 0x66 /* f */:
        return this.word("false", false);
      case 0x6e /* n */:
        return this.word("null", null);
      default:
        return this.number();
    }
  }

  private object(): JsonObject {
    this.enter();
    const object: JsonObject = {};
    this.space();
    if (this.eat(0x7d /* } */)) return this.leave(object);
    for (;;) {
      this.space();
      const keyAt = this.at;
      if (this.text.charCodeAt(this.at) !== 0x22) this.fail(this.at);
      const key = this.string();
      if (Object.hasOwn(object, key)) throw this.error(messages.duplicateKey(key, this.byteOffset(keyAt)));
      this.space();
      this.expect(0x3a /* : */);
      const value = this.value();
      // an own data property, as JSON.parse makes it: assigning "__proto__" would set the prototype
      // Stryker disable next-line ConditionalExpression: defining every member makes the same object, only slower
      if (key === "__proto__") Object.defineProperty(object, key, { value, writable: true, enumerable: true, configurable: true });
      else object[key] = value;
      this.space();
      if (this.eat(0x7d /* } */)) return this.leave(object);
      this.expect(0x2c /* , */);
    }
  }

  private array(): JsonValue[] {
    this.enter();
    this.space();
    if (this.eat(0x5d /* ] */)) return this.leave([]);
    // the elements wait on one stack shared by all arrays, then move to an array of their exact
    // size: pushing onto each array would grow it again and again (a 1 MB text's arrays, twice over)
    const stack = this.elements;
    const base = stack.length;
    for (;;) {
      stack.push(this.value());
      this.space();
      if (this.eat(0x5d /* ] */)) return this.leave(stack.splice(base));
      this.expect(0x2c /* , */);
    }
  }

  private enter(): void {
    if (++this.depth > MAX_DEPTH) throw this.error(messages.tooDeep(MAX_DEPTH, this.byteOffset(this.at)));
    this.at++;
  }

  private leave<T>(value: T): T {
    this.depth--;
    return value;
  }

  private string(): string {
    const text = this.text;
    let i = ++this.at;
    let out = "";
    let chunk = i;
    for (;;) {
      // Stryker disable next-line EqualityOperator: at i === text.length charCodeAt is NaN, which matches nothing below, and the next turn throws the same error
      if (i >= text.length) throw this.error(messages.endOfInput());
      const c = text.charCodeAt(i);
      if (c === 0x22) break;
      if (c < 0x20) this.fail(i);
      if (c === 0x5c /* \ */) {
        out += text.slice(chunk, i);
        const [decoded, next] = this.escape(i);
        out += decoded;
        i = chunk = next;
        continue;
      }
      if (c >= 0xd800 && c <= 0xdfff) {
        // a raw surrogate must be the high half of a pair
        const low = text.charCodeAt(i + 1);
        if (c > 0xdbff || !(low >= 0xdc00 && low <= 0xdfff)) throw this.error(messages.loneSurrogate(this.byteOffset(i)));
        i += 2;
        continue;
      }
      i++;
    }
    this.at = i + 1;
    return out + text.slice(chunk, i);
  }

  /** Decodes the escape at `at` (the backslash); returns the text and the index after it. */
  private escape(at: number): [string, number] {
    const letter = this.text[at + 1];
    if (letter === undefined) throw this.error(messages.endOfInput());
    if (letter !== "u") {
      const decoded = ESCAPES[letter];
      if (decoded === undefined) this.fail(at + 1);
      return [decoded, at + 2];
    }
    const unit = this.hex4(at + 2);
    if (unit >= 0xdc00 && unit <= 0xdfff) throw this.error(messages.loneSurrogate(this.byteOffset(at)));
    if (unit >= 0xd800 && unit <= 0xdbff) {
      // Stryker disable next-line UnaryOperator: -1 and 1 are both outside the low surrogates, refused alike on the next line
      const low = this.text.startsWith("\\u", at + 6) ? this.hex4(at + 8) : -1;
      if (!(low >= 0xdc00 && low <= 0xdfff)) throw this.error(messages.loneSurrogate(this.byteOffset(at)));
      return [String.fromCharCode(unit, low), at + 12];
    }
    return [String.fromCharCode(unit), at + 6];
  }

  private hex4(at: number): number {
    for (let i = at; i < at + 4; i++) {
      if (i >= this.text.length) throw this.error(messages.endOfInput());
      if (!/[0-9a-fA-F]/.test(this.text[i]!)) this.fail(i);
    }
    return parseInt(this.text.slice(at, at + 4), 16);
  }

  private number(): number | JsonNumber {
    // fast path: a short literal ("0", "-7", "1234", "2.5"; see SHORT_DIGITS), its float64 exact enough
    const text = this.text;
    let i = this.at;
    if (text.charCodeAt(i) === 0x2d /* - */) i++;
    const first = i;
    let whole = 0;
    let c = text.charCodeAt(i);
    while (c >= 0x30 && c <= 0x39) {
      whole = whole * 10 + (c - 0x30);
      c = text.charCodeAt(++i);
    }
    const wholeDigits = i - first;
    let fractionDigits = 0;
    if (c === 0x2e /* . */) {
      c = text.charCodeAt(++i);
      while (c >= 0x30 && c <= 0x39) {
        whole = whole * 10 + (c - 0x30);
        fractionDigits++;
        c = text.charCodeAt(++i);
      }
    }
    // anything else ("01", "1.", "1e3", "-", more digits) takes the exact path below, errors included
    // Stryker disable next-line ConditionalExpression: a "." after the fraction is refused by the exact path and after the fast one alike
    const plain = c !== 0x2e && c !== 0x65 && c !== 0x45;
    const shape = wholeDigits > 0 && (wholeDigits === 1 || text.charCodeAt(first) !== 0x30) && (fractionDigits > 0 || i === first + wholeDigits);
    if (plain && shape && wholeDigits + fractionDigits <= SHORT_DIGITS) {
      // Stryker disable next-line ConditionalExpression: POWERS_OF_TEN[0] is 1, so dividing a plain integer changes nothing
      const magnitude = fractionDigits === 0 ? whole : whole / POWERS_OF_TEN[fractionDigits]!;
      const negative = first !== this.at;
      const start = this.at;
      this.at = i;
      // a number whose own text is the literal stands for itself, as JSON.parse gives it: all but
      // a fraction ending in 0 ("1.50"), "-0", and magnitudes below 1e-6 (0.0000001 is "1e-7")
      const own = (fractionDigits === 0 || text.charCodeAt(i - 1) !== 0x30) && (magnitude === 0 ? !negative : magnitude >= 1e-6);
      if (own) return negative ? -magnitude : magnitude;
      return JsonNumber.fromShort(text.slice(start, i), negative ? -magnitude : magnitude, fractionDigits === 0);
    }
    NUMBER.lastIndex = this.at;
    const match = NUMBER.exec(this.text);
    // a lone "-" is reported at the character after it
    if (!match) this.fail(this.text.charCodeAt(this.at) === 0x2d ? this.at + 1 : this.at);
    const literal = match[0];
    const end = this.at + literal.length;
    // "1." and "1e" need digits next: report the first character that cannot be one
    const next = this.text[end];
    if (next === "." && !/[.eE]/.test(literal)) this.fail(end + 1);
    // Stryker disable next-line StringLiteral: past the end there is no sign, whether the fallback text is empty or not
    if ((next === "e" || next === "E") && !/[eE]/.test(literal)) this.fail(/[+-]/.test(this.text[end + 1] ?? "") ? end + 2 : end + 1);
    this.at = end;
    return JsonNumber.fromLiteral(literal);
  }

  private word<T>(word: string, value: T): T {
    for (let i = 0; i < word.length; i++) {
      if (this.text.charCodeAt(this.at + i) !== word.charCodeAt(i)) this.fail(this.at + i);
    }
    this.at += word.length;
    return value;
  }

  private space(): void {
    const text = this.text;
    let c = text.charCodeAt(this.at);
    while (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) c = text.charCodeAt(++this.at);
  }

  private eat(c: number): boolean {
    if (this.text.charCodeAt(this.at) !== c) return false;
    this.at++;
    return true;
  }

  private expect(c: number): void {
    if (!this.eat(c)) this.fail(this.at);
  }

  /** Reports the character at `at` as unexpected, or the end of input. */
  private fail(at: number): never {
    if (at >= this.text.length) throw this.error(messages.endOfInput());
    const char = String.fromCodePoint(this.text.codePointAt(at)!);
    throw this.error(messages.unexpectedChar(char, this.byteOffset(at)));
  }

  private error(detail: string): JsonSyntaxError {
    return new JsonSyntaxError(messages.invalidJSON(detail));
  }

  private byteOffset(at: number): number {
    return Buffer.byteLength(this.text.slice(0, at), "utf8");
  }
}

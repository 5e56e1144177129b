// An exact JSON number: the literal as written, and its value as a decimal
// (sign, significant digits, exponent). No float64 rounding anywhere, so 3.0 and
// 1e2 are integers, 1 equals 1.0, and 9007199254740993 is not 9007199254740992.
// A parsed value holds a JavaScript number instead when the number's own text is the
// literal (see value.ts); the static helpers below take either form.

/**
 * Literals of at most this many digits and no exponent are "short": their float64 values
 * order and equal exactly as the decimals do (any 15-digit decimal survives a round trip
 * through float64), and a short integer literal is exact.
 */
export const SHORT_DIGITS = 15;

interface Decimal {
  negative: boolean;
  digits: string;
  magnitude: bigint;
}

export class JsonNumber {
  /**
   * The value as a float64 when the literal is short (at most 15 digits, no exponent: see
   * SHORT_DIGITS), undefined otherwise. Arguments are mostly such numbers: they are compared
   * without building the decimal form.
   */
  private readonly short: number | undefined;
  /** The literal is a short integer literal: no point, no exponent. */
  private readonly plainInteger: boolean;
  private decimal: Decimal | undefined;

  private constructor(literal: string, short: number | undefined, plainInteger: boolean, decimal: Decimal | undefined) {
    this.literal = literal;
    this.short = short;
    this.plainInteger = plainInteger;
    this.decimal = decimal;
  }

  readonly literal: string;

  /** Reads a literal that already matches JSON's number grammar. */
  static fromLiteral(literal: string): JsonNumber {
    return new JsonNumber(literal, undefined, false, decompose(literal));
  }

  /**
   * The parser's fast path: a literal of at most 15 digits without exponent (`-?int(.frac)?`),
   * its value as the nearest float64, and whether it has no point.
   */
  static fromShort(literal: string, value: number, plainInteger: boolean): JsonNumber {
    return new JsonNumber(literal, value, plainInteger, undefined);
  }

  /** A JavaScript number as the decimal its own text writes (3 is "3", 0.1 is "0.1"). */
  static of(n: number): JsonNumber {
    return new JsonNumber(String(n), n, Number.isInteger(n), undefined);
  }

  /** -1, 0 or 1 as a is below, equal to or above b, in either form. */
  static compare(a: number | JsonNumber, b: number | JsonNumber): number {
    // Stryker disable next-line ConditionalExpression: the exact comparison gives the same answer, slower
    if (typeof a === "number" && typeof b === "number") return a < b ? -1 : a > b ? 1 : 0;
    return JsonNumber.exact(a).compare(JsonNumber.exact(b));
  }

  /** Whether a number in either form has no fractional part. */
  static isInteger(n: number | JsonNumber): boolean {
    return typeof n === "number" ? Number.isInteger(n) : n.isInteger;
  }

  /** The literal as written. */
  static literalOf(n: number | JsonNumber): string {
    return typeof n === "number" ? String(n) : n.literal;
  }

  private static exact(n: number | JsonNumber): JsonNumber {
    return typeof n === "number" ? JsonNumber.of(n) : n;
  }

  /** Value = (negative ? -1 : 1) × 0.digits × 10^magnitude; digits has no leading or trailing zeros, "" for zero. */
  get negative(): boolean {
    return (this.decimal ??= decompose(this.literal)).negative;
  }

  get digits(): string {
    return (this.decimal ??= decompose(this.literal)).digits;
  }

  get magnitude(): bigint {
    return (this.decimal ??= decompose(this.literal)).magnitude;
  }

  get isZero(): boolean {
    // Stryker disable next-line ConditionalExpression: skipping the fast path asks the decimal form, which gives the same answer
    if (this.short !== undefined) return this.short === 0;
    return this.digits === "";
  }

  /** True when the value has no fractional part, however the literal spells it. */
  get isInteger(): boolean {
    // a plain integer literal: no point, no exponent
    // Stryker disable next-line ConditionalExpression: skipping the fast path asks the decimal form, which gives the same answer
    if (this.plainInteger) return true;
    return this.isZero || BigInt(this.digits.length) <= this.magnitude;
  }

  /** -1, 0 or 1 as this value is below, equal to or above the other. */
  compare(other: JsonNumber): number {
    const x = this.short;
    const y = other.short;
    if (x !== undefined && y !== undefined) return x < y ? -1 : x > y ? 1 : 0;
    const sign = (n: JsonNumber) => (n.isZero ? 0 : n.negative ? -1 : 1);
    const a = sign(this);
    const b = sign(other);
    // Stryker disable next-line ConditionalExpression: when both are zero, a × compareMagnitudes(…) is 0 as well
    if (a !== b || a === 0) return Math.sign(a - b);
    return a * compareMagnitudes(this, other);
  }

  /** The value as a JavaScript number, when it is a safe integer; otherwise undefined. */
  toSafeInteger(): number | undefined {
    if (!this.isInteger || this.magnitude > 16n) return undefined;
    const digits = this.digits.padEnd(Number(this.magnitude), "0");
    // Stryker disable next-line StringLiteral,ArithmeticOperator: only zero has no digits, and Number("") is 0 too; n × ±1 equals n ÷ ±1
    const n = Number(digits || "0") * (this.negative ? -1 : 1);
    return Number.isSafeInteger(n) ? n : undefined;
  }
}

/** The decimal form of a literal that matches JSON's number grammar. */
function decompose(literal: string): Decimal {
  const match = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(literal);
  if (!match) throw new Error(`not a JSON number: ${literal}`);
  // Stryker disable next-line StringLiteral: the pattern always captures whole, and BigInt("") is 0n like BigInt("0")
  const [, sign, whole = "", fraction = "", exponent = "0"] = match;
  const all = whole + fraction;
  const lead = all.length - all.replace(/^0+/, "").length;
  const digits = all.slice(lead).replace(/0+$/, "");
  const magnitude = BigInt(exponent) + BigInt(whole.length - lead);
  return { negative: sign === "-" && digits !== "", digits, magnitude: digits === "" ? 0n : magnitude };
}

function compareMagnitudes(x: JsonNumber, y: JsonNumber): number {
  // Stryker disable next-line EqualityOperator: the magnitudes differ here, so < and <= agree
  if (x.magnitude !== y.magnitude) return x.magnitude < y.magnitude ? -1 : 1;
  // Stryker disable MethodExpression,StringLiteral: digits have no trailing zeros, so padding them (to either width, or not at all) never changes their order
  const width = Math.max(x.digits.length, y.digits.length);
  const a = x.digits.padEnd(width, "0");
  const b = y.digits.padEnd(width, "0");
  // Stryker restore MethodExpression,StringLiteral
  // Stryker disable next-line EqualityOperator: a and b differ here, so < and <= agree
  return a === b ? 0 : a < b ? -1 : 1;
}

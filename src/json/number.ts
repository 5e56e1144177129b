// An exact JSON number: the literal as written, and its value as a decimal
// (sign, significant digits, exponent). No float64 rounding anywhere, so 3.0 and
// 1e2 are integers, 1 equals 1.0, and 9007199254740993 is not 9007199254740992.

export class JsonNumber {
  /** Value = (negative ? -1 : 1) × 0.digits × 10^magnitude; digits has no leading or trailing zeros, "" for zero. */
  private constructor(
    readonly literal: string,
    readonly negative: boolean,
    readonly digits: string,
    readonly magnitude: bigint,
  ) {}

  /** Reads a literal that already matches JSON's number grammar. */
  static fromLiteral(literal: string): JsonNumber {
    const match = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(literal);
    if (!match) throw new Error(`not a JSON number: ${literal}`);
    const [, sign, whole = "", fraction = "", exponent = "0"] = match;
    const all = whole + fraction;
    const lead = all.length - all.replace(/^0+/, "").length;
    const digits = all.slice(lead).replace(/0+$/, "");
    const magnitude = BigInt(exponent) + BigInt(whole.length - lead);
    return new JsonNumber(literal, sign === "-" && digits !== "", digits, digits === "" ? 0n : magnitude);
  }

  static fromInteger(n: number): JsonNumber {
    return JsonNumber.fromLiteral(String(n));
  }

  get isZero(): boolean {
    return this.digits === "";
  }

  /** True when the value has no fractional part, however the literal spells it. */
  get isInteger(): boolean {
    return this.isZero || BigInt(this.digits.length) <= this.magnitude;
  }

  /** -1, 0 or 1 as this value is below, equal to or above the other. */
  compare(other: JsonNumber): number {
    const sign = (n: JsonNumber) => (n.isZero ? 0 : n.negative ? -1 : 1);
    const a = sign(this);
    const b = sign(other);
    if (a !== b || a === 0) return Math.sign(a - b);
    return a * compareMagnitudes(this, other);
  }

  equals(other: JsonNumber): boolean {
    return this.compare(other) === 0;
  }

  /** The value as a JavaScript number, when it is a safe integer; otherwise undefined. */
  toSafeInteger(): number | undefined {
    if (!this.isInteger || this.magnitude > 16n) return undefined;
    const n = Number(this.digits.padEnd(Number(this.magnitude), "0") || "0") * (this.negative ? -1 : 1);
    return Number.isSafeInteger(n) ? n : undefined;
  }
}

function compareMagnitudes(x: JsonNumber, y: JsonNumber): number {
  if (x.magnitude !== y.magnitude) return x.magnitude < y.magnitude ? -1 : 1;
  const width = Math.max(x.digits.length, y.digits.length);
  const a = x.digits.padEnd(width, "0");
  const b = y.digits.padEnd(width, "0");
  return a === b ? 0 : a < b ? -1 : 1;
}

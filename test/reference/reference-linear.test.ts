import fc from "fast-check";
import { RE2JS } from "re2js";
import { describe, expect, it } from "vitest";
import { compileECMA } from "../../src/schema/ecma.js";
import { linear } from "../../src/schema/linear.js";

// linear(source): a native RegExp for an RE2 pattern, only when it is proven to match what RE2
// matches and to run in linear time (see src/schema/linear.ts). Its answers are checked against
// re2js itself, the engine it stands in for.

/** Code points at the edges of the sets the subset knows, and beyond ASCII. */
const EDGES = [
  ...Array.from({ length: 0x80 }, (_, code) => code),
  0xa0, 0x2028, 0xd7ff, 0xd800, 0xd83d, 0xdbff, 0xdc00, 0xde00, 0xdfff, 0xe000, 0xffff, 0x10000, 0x1f600, 0x10fffe, 0x10ffff,
];

const re2 = (source: string) => RE2JS.compile(source);

/** The fast path for `source`, which must exist. */
function accepted(source: string) {
  const expression = linear(source);
  expect(expression, source).toBeDefined();
  return expression!;
}

/** Asserts that linear and re2js agree on `source` for every input, test and matches alike. */
function agrees(source: string, inputs: readonly string[]): void {
  const fast = accepted(source);
  const slow = re2(source);
  for (const input of inputs) {
    expect(fast.test(input), `${source} test ${JSON.stringify(input)}`).toBe(slow.test(input));
    expect(fast.matches(input), `${source} matches ${JSON.stringify(input)}`).toBe(slow.matches(input));
  }
}

/** Each code point of EDGES alone, and each followed by "x". */
const singles = EDGES.flatMap((code) => [String.fromCodePoint(code), String.fromCodePoint(code) + "x"]);

describe("refused: outside the subset or not deterministic", () => {
  it.each([
    ["unanchored", "[a-z]+x"],
    ["anchored at the end only", "a+$"],
    ["a group", "^(a)$"],
    ["a non-capturing group", "^(?:ab)$"],
    ["nested counts", "^(a+)+$"],
    ["alternation", "^a|b$"],
    ["lazy ?", "^a??$"],
    ["lazy *", "^a*?$"],
    ["lazy count", "^a{1,2}?$"],
    ["a quantifier on a quantifier", "^a**$"],
    ["a quantifier on nothing", "^*$"],
    ["a count over 1000", "^a{1001}$"],
    ["a bounded count over 1000", "^a{0,1001}$"],
    ["an unbounded count over 1000", "^a{1001,}$"],
    ["a count with a leading zero (RE2 reads it as text)", "^a{01}$"],
    ["a count with no minimum (RE2 reads it as text)", "^a{,5}$"],
    ["a maximum with a leading zero", "^a{1,01}$"],
    ["a count that is not a number", "^a{x}$"],
    ["counts in the wrong order", "^a{2,1}$"],
    ["an unclosed count", "^a{2"],
    ["an unclosed count with a maximum", "^a{2,3"],
    ["a stray closing brace", "^a}$"],
    ["a stray closing bracket", "^a]$"],
    ["a word boundary", "^a\\b$"],
    ["a non-boundary", "^a\\B$"],
    ["\\A", "^\\Aa$"],
    ["\\z", "^a\\z"],
    ["\\Q…\\E", "^\\Qa\\E$"],
    ["an inline flag", "^(?i)a$"],
    ["a property", "^\\p{L}$"],
    ["a one-letter property", "^\\pN$"],
    ["a negated property", "^\\P{L}$"],
    ["a POSIX class", "^[[:alpha:]]$"],
    ["an opening bracket in a class", "^[[a]$"],
    ["a backreference", "^(a)\\1$"],
    ["an octal escape", "^\\0$"],
    ["an unknown escape letter", "^\\q$"],
    ["an escaped space", "^\\ $"],
    ["a trailing backslash", "^a\\"],
    ["\\C", "^\\C$"],
    ["\\b in a class", "^[\\b]$"],
    ["a property in a class", "^[\\pL]$"],
    ["^ after the start", "^a^b$"],
    ["$ before the end", "^a$b$"],
    ["$ twice", "^a$$"],
    ["a class that starts with ] (a literal in RE2)", "^[]a]$"],
    ["[] then a class (RE2 reads one class)", "^[][a]$"],
    ["[^] then a class", "^[^][a]$"],
    ["a leading - in a class", "^[-a]$"],
    ["a trailing - in a class", "^[a-]$"],
    ["a range that ends at ]", "^[!-]a]$"],
    ["a range from a set", "^[\\d-z]$"],
    ["a range to a set", "^[a-\\d]$"],
    ["a range in the wrong order", "^[z-a]$"],
    ["an unclosed class", "^[a"],
    ["an unclosed negated class", "^[^a"],
    ["\\x with one digit", "^\\x4"],
    ["\\x with one digit then text", "^\\x4$"],
    ["\\x with a non-hex digit", "^\\xg1$"],
    ["\\x{} empty", "^\\x{}$"],
    ["\\x{ unclosed", "^\\x{61"],
    ["\\x{…} with a space first (parseInt would skip it)", "^\\x{ 61}$"],
    ["\\x{…} with a space last (parseInt would stop there)", "^\\x{61 }$"],
    ["\\x{…} with a non-hex digit last", "^\\x{1g}$"],
    ["\\x{…} with a sign", "^\\x{-1}$"],
    ["\\x{…} with 0x", "^\\x{0x61}$"],
    ["\\x{…} beyond Unicode", "^\\x{110000}$"],
    ["\\x{…} far beyond Unicode", "^\\x{FFFFFFFFFFFFFFFFFFFFFFFF}$"],
    ["an empty pattern", ""],
    ["overlap: a* then a", "^a*a$"],
    ["overlap: ranges that share their last point", "^[a-c]*[c-e]$"],
    ["overlap: ranges that share their first point", "^[c-e]*[a-c]$"],
    ["overlap with the second range of the next set", "^[ab]*b$"],
    ["overlap with the second range of the variable set", "^b*[ab]$"],
    ["overlap of a class and a mandatory piece", "^[a-z]*[0-9a]+$"],
    ["overlap through an optional piece", "^a?b?a$"],
    ["an optional piece overlapping the next mandatory one", "^a?a$"],
    ["overlap with an optional piece", "^a*b?a?$"],
    ["overlap of a bounded count", "^a{1,3}a$"],
    ["overlap with a zero count", "^a*a{0}$"],
    ["overlap of . and a literal", "^.*x$"],
    ["overlap of \\w and \\d", "^\\w+\\d$"],
    ["overlap after a fixed piece", "^x[a-z]*b$"],
    ["overlap of a negated class", "^[^a]*b$"],
  ])("%s: %s", (_, source) => {
    expect(linear(source)).toBeUndefined();
  });

  it("refuses more than 64 pieces", () => {
    expect(linear(`^${"ab".repeat(32)}$`)).toBeDefined();
    expect(linear(`^${"ab".repeat(32)}c$`)).toBeUndefined();
    expect(linear(`^${"ab".repeat(32)}c`)).toBeUndefined();
  });
});

describe("accepted, with the matches RE2 gives", () => {
  it("^[a-z ]+$", () => {
    const expression = accepted("^[a-z ]+$");
    expect(expression.test("lorem ipsum")).toBe(true);
    expect(expression.test("lorem\nipsum")).toBe(false);
    expect(expression.test("lorem ipsum\n")).toBe(false);
    expect(expression.test("")).toBe(false);
    expect(expression.test("Lorem")).toBe(false);
    agrees("^[a-z ]+$", ["lorem ipsum", "a\u00a0b", "a\u2028", "`", "{", "@", " ", "ab😀"]);
  });

  it("^\\d{4}-\\d{2}-\\d{2}$", () => {
    const expression = accepted("^\\d{4}-\\d{2}-\\d{2}$");
    expect(expression.test("2024-01-31")).toBe(true);
    expect(expression.test("2024-1-31")).toBe(false);
    expect(expression.test("2024-01-310")).toBe(false);
    expect(expression.test("٢٠٢٤-01-31")).toBe(false);
    agrees("^\\d{4}-\\d{2}-\\d{2}$", ["2024-01-31", "20240-01-31", "2024-01-31\n", "/024-01-31", ":024-01-31"]);
  });

  it("^[A-Za-z_][A-Za-z0-9_]*$", () => {
    const expression = accepted("^[A-Za-z_][A-Za-z0-9_]*$");
    expect(expression.test("_private9")).toBe(true);
    expect(expression.test("9lives")).toBe(false);
    expect(expression.test("é")).toBe(false);
    agrees("^[A-Za-z_][A-Za-z0-9_]*$", ["a", "Z", "_", "@", "[", "`", "{", "a b", "aé", "ab-"]);
  });

  it("^\\x{1F600}+$: an astral character is one atom", () => {
    const expression = accepted("^\\x{1F600}+$");
    expect(expression.test("😀😀")).toBe(true);
    expect(expression.test("😀\ud83d")).toBe(false);
    expect(expression.test("\ud83d")).toBe(false);
    expect(expression.matches("😀")).toBe(true);
    agrees("^\\x{1F600}+$", ["😀", "😀😀", "\ud83d\ude00", "\ude00", "😁"]);
    agrees("^😀?😁$", ["😁", "😀😁", "😀", "\ud83d\ude01", "\ude01"]);
    agrees("^[😀-😂]{2}$", ["😀😂", "😀😃", "😀", "\ud83d\ud83d"]);
  });

  it("^[^\\n]*$: a negated class matches anything but its members, \\n included when not listed", () => {
    const expression = accepted("^[^\\n]*$");
    expect(expression.test("a\rb\u2028😀")).toBe(true);
    expect(expression.test("a\nb")).toBe(false);
    expect(accepted("^[^a]$").test("\n")).toBe(true);
    agrees("^[^\\n]*$", ["", "a", "\n", "\r", "\v", "\u2028", "😀", "\ud800"]);
  });

  it("^.+$: . is any code point but \\n", () => {
    const expression = accepted("^.+$");
    expect(expression.test("\r\v\f\u2028\u2029😀\ud800")).toBe(true);
    expect(expression.test("a\n")).toBe(false);
    expect(expression.test("")).toBe(false);
    expect(accepted("^.$").test("😀")).toBe(true);
    expect(accepted("^..$").test("😀")).toBe(false);
  });

  it("^a?b$ and other optional pieces", () => {
    const expression = accepted("^a?b$");
    expect(expression.test("ab")).toBe(true);
    expect(expression.test("b")).toBe(true);
    expect(expression.test("aab")).toBe(false);
    agrees("^a?b?c$", ["c", "ac", "bc", "abc", "ba", "abcc"]);
    agrees("^a*b*$", ["", "a", "ab", "aabb", "ba"]);
  });

  it("^$ and ^: the empty string, and every string", () => {
    const empty = accepted("^$");
    expect(empty.test("")).toBe(true);
    expect(empty.test("a")).toBe(false);
    expect(empty.test("\n")).toBe(false);
    const any = accepted("^");
    expect(any.test("anything")).toBe(true);
    expect(any.matches("anything")).toBe(false);
    expect(any.matches("")).toBe(true);
  });

  it("test finds a match at the start, matches needs the whole input", () => {
    const prefix = accepted("^ab");
    expect(prefix.test("abc")).toBe(true);
    expect(prefix.test("xab")).toBe(false);
    expect(prefix.matches("abc")).toBe(false);
    expect(prefix.matches("ab")).toBe(true);
    const whole = accepted("^ab$");
    expect(whole.test("abc")).toBe(false);
    expect(whole.test("ab\n")).toBe(false);
    expect(whole.matches("ab")).toBe(true);
  });

  it("counts: fixed, bounded, unbounded, zero, up to 1000", () => {
    agrees("^a{2}$", ["a", "aa", "aaa"]);
    agrees("^a{2,2}$", ["a", "aa", "aaa"]);
    agrees("^a{2,}$", ["a", "aa", "aaaaa"]);
    agrees("^a{1,3}$", ["", "a", "aaa", "aaaa"]);
    agrees("^a{0}b$", ["b", "ab"]);
    agrees("^a{0,1}b$", ["b", "ab", "aab"]);
    agrees("^a{10}$", ["a".repeat(10), "a".repeat(9)]);
    agrees("^a{1000}$", ["a".repeat(1000), "a".repeat(999), "a".repeat(1001)]);
    agrees("^a{0,1000}$", ["a".repeat(1000), "a".repeat(1001)]);
    agrees("^a{1000,}$", ["a".repeat(1000), "a".repeat(999), "a".repeat(1200)]);
    agrees("^a*$", ["", "aaa", "ab"]);
    agrees("^a+$", ["", "aaa", "ab"]);
    agrees("^a?$", ["", "a", "aa"]);
    agrees("^a*ba$", ["ba", "aaba", "aab"]);
    agrees("^aa$", ["aa", "a"]);
    agrees("^b*a$", ["a", "bba", "ab"]);
    agrees("^[b-c]*a$", ["a", "cba", "ab"]);
  });

  it("64 pieces, each with its count", () => {
    agrees(`^${"a?b".repeat(32)}$`, ["b".repeat(32), "ab".repeat(32), "ab".repeat(31) + "b", "b".repeat(31)]);
  });
});

describe("atoms read as RE2 reads them", () => {
  it.each([
    "\\d", "\\D", "\\w", "\\W", "\\s", "\\S", ".", "\\t", "\\n", "\\v", "\\f", "\\r",
    "\\x41", "\\x7a", "\\x7A", "\\x{0}", "\\x{1f600}", "\\x{1F600}", "\\x{00000061}", "\\x{10FFFF}", "\\x{D83D}", "\\x{DE00}",
    "[\\d]", "[^\\d]", "[\\D]", "[^\\D]", "[\\w]", "[^\\w]", "[\\W]", "[\\s]", "[^\\s]", "[\\S]", "[.]", "[\\.]",
    "[a-z]", "[^a-z]", "[a-a]", "[az]", "[^za]", "[^z-za]", "[^a-zb-c]", "[^b-ca-z]", "[\\t-\\r]", "[\\x{0}-\\x{60}]",
    "[^\\x{0}-\\x{10FFFE}]", "[^\\x{1}-\\x{10FFFF}]", "[\\x{D800}-\\x{DFFF}]", "[^\\x{D800}-\\x{DFFF}]", "[\\x{10000}-\\x{10FFFF}]",
    "[$^*+?(){}|]", "[a^]", "[\\^a]", "[\\-a]", "[\\]]", "[\\[]", "[\\\\]", "[^\\x{0}-\\x{10FFFF}]", "[\\d\\s]", "[^\\d\\s]",
    "é", "😀", "\n", " ", "#", "-", ",", "<", "/", "\u00a0",
  ])("%s", (atom) => {
    agrees(`^${atom}$`, singles);
    agrees(`^${atom}`, singles);
  });

  it("\\ + any ASCII punctuation is the character itself", () => {
    for (const c of "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~") {
      const expression = accepted(`^\\${c}$`);
      expect(expression.test(c), c).toBe(true);
      expect(expression.test("a"), c).toBe(false);
    }
  });

  it("RE2's escapes are ASCII, \\v is U+000B and \\s does not hold it", () => {
    expect(accepted("^\\v$").test("\u000b")).toBe(true);
    expect(accepted("^\\s$").test("\u000b")).toBe(false);
    expect(accepted("^\\s+$").test("\t\n\f\r ")).toBe(true);
    expect(accepted("^\\s$").test("\u00a0")).toBe(false);
    expect(accepted("^\\s$").test("\u2028")).toBe(false);
    expect(accepted("^\\S$").test("\u00a0")).toBe(true);
    expect(accepted("^\\d$").test("٣")).toBe(false);
    expect(accepted("^\\w$").test("é")).toBe(false);
    expect(accepted("^\\W$").test("é")).toBe(true);
    expect(accepted("^\\f\\r\\t\\n$").test("\f\r\t\n")).toBe(true);
  });

  it("\\xHH takes two digits, \\x{…} all of them", () => {
    expect(accepted("^\\x410$").test("A0")).toBe(true);
    expect(accepted("^\\x{410}$").test("\u0410")).toBe(true);
    expect(accepted("^\\x{00410}$").test("\u0410")).toBe(true);
    agrees("^\\x410$", ["A0", "\u0410"]);
  });

  it("a class excluding everything matches nothing", () => {
    const nothing = accepted("^[^\\x{0}-\\x{10FFFF}]?$");
    expect(nothing.test("")).toBe(true);
    expect(nothing.test("a")).toBe(false);
    expect(accepted("^[^\\x{0}-\\x{10FFFE}]$").test("\u{10ffff}")).toBe(true);
  });
});

describe("wired into the pattern keywords", () => {
  it("compileECMA runs a proven translation natively, and the rest on re2js as before", () => {
    const proven = compileECMA("^[a-z ]+$");
    expect(proven).not.toBeInstanceOf(RE2JS);
    expect(proven.test("lorem ipsum")).toBe(true);
    expect(proven.test("lorem\nipsum")).toBe(false);
    // ECMA's . excludes \r and U+2028 too: the translated class says so
    const dot = compileECMA("^.$");
    expect(dot).not.toBeInstanceOf(RE2JS);
    expect(dot.test("\r")).toBe(false);
    expect(dot.test("\u2028")).toBe(false);
    expect(dot.test("😀")).toBe(true);
    expect(compileECMA("[a-z]+")).toBeInstanceOf(RE2JS);
  });
});

// Random patterns from the subset's grammar (and a little outside it), against re2js.
const LITERALS = ["a", "b", "z", "0", "9", "_", " ", "-", "é", "😀", "\n", "}", "]", "\\.", "\\-", "\\\\", "\\[", "\\^", "\\$"];
const ESCAPES = ["\\t", "\\n", "\\v", "\\f", "\\r", "\\x61", "\\x{7A}", "\\x{1F600}", "\\x{D83D}", "\\x{A0}", "\\x{2028}"];
const SETS = ["\\d", "\\D", "\\w", "\\W", "\\s", "\\S"];
const RANGES = ["a-z", "0-9", "A-Z", "\\x{0}-\\x{60}", "\\x{D800}-\\x{DFFF}", "\\x{10000}-\\x{10FFFF}", "b-b", "\\t-\\r"];
const OUTSIDE = ["(", "|", "\\b", "\\pL", "[[:alpha:]]", "$", "^"];
const QUANTIFIERS = ["", "", "*", "+", "?", "{2}", "{1,}", "{0,2}", "{1,3}", "{0}", "*?", "??"];
const ALPHABET = ["a", "b", "z", "0", "9", "_", " ", "-", "A", "`", "{", "/", ":", "@", "[", "\t", "\n", "\v", "\f", "\r"].concat(
  ["é", "\u00a0", "\u2028", "😀", "\ud83d", "\ude00", "\\", "^", "$", "."],
);

const classItem = fc.oneof(fc.constantFrom(...LITERALS.filter((l) => l !== "]")), fc.constantFrom(...ESCAPES, ...SETS, ...RANGES));
const bracket = fc
  .tuple(fc.boolean(), fc.array(classItem, { minLength: 1, maxLength: 3 }))
  .map(([negated, items]) => `[${negated ? "^" : ""}${items.join("")}]`);
const atom = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...LITERALS, ...ESCAPES, ...SETS, ".") },
  { weight: 2, arbitrary: bracket },
  { weight: 1, arbitrary: fc.constantFrom(...OUTSIDE) },
);
const piece = fc.tuple(atom, fc.constantFrom(...QUANTIFIERS)).map(([a, q]) => a + q);
// mostly anchored at the start and not empty, so that a good share is accepted
const source = fc
  .tuple(fc.integer({ min: 0, max: 4 }).map((n) => n > 0), fc.array(piece, { minLength: 1, maxLength: 5 }), fc.boolean())
  .map(([start, pieces, end]) => `${start ? "^" : ""}${pieces.join("")}${end ? "$" : ""}`);
const input = fc.array(fc.constantFrom(...ALPHABET), { maxLength: 8 }).map((chars) => chars.join(""));

describe("property: wherever linear answers, it answers as re2js", () => {
  it("test and matches agree on random patterns and strings", () => {
    fc.assert(
      fc.property(source, fc.array(input, { minLength: 1, maxLength: 12 }), (pattern, inputs) => {
        const fast = linear(pattern);
        if (fast === undefined) return;
        const slow = re2(pattern);
        for (const text of inputs) {
          expect(fast.test(text), `${pattern} test ${JSON.stringify(text)}`).toBe(slow.test(text));
          expect(fast.matches(text), `${pattern} matches ${JSON.stringify(text)}`).toBe(slow.matches(text));
        }
      }),
      { numRuns: 1500 },
    );
  });
});

import { describe, expect, it } from "vitest";
import { diagnose, MIN_SHARE, signatureOf, type Fingerprint } from "../src/harness/diagnosis.js";
import type { RowResult, ScoreOptions } from "../src/harness/outcome.js";
import type { Check } from "../src/harness/run-row.js";

// The diagnosis against synthetic runs and fingerprints: a pitfall is named only when the
// subject fails enough of its rows THE SAME WAY; errored rows are never evidence.

const options: ScoreOptions = { level: "paths", tiers: ["core"] };
const ids = ["a1", "a2", "a3", "a4", "b1", "b2", "c1", "c2", "c3", "c4", "c5", "c6", "d1", "ok1", "ok2", "ok3"];

const verdict = (actual: string): Check => ({ level: "verdict", tier: "core", what: "verdict", expected: "valid", actual, pass: actual === "valid" });
const paths = (actual: string[]): Check => ({ level: "paths", tier: "core", what: "error paths in order", expected: ["$"], actual, pass: false });

/** A run of every id: `fails` maps an id to its failing checks (a wrong verdict by default); `errored` ids errored. */
function run(fails: Record<string, Check[]> | string[], errored: string[] = []): RowResult[] {
  const failing: Record<string, Check[]> = Array.isArray(fails) ? Object.fromEntries(fails.map((id) => [id, [verdict("invalid")]])) : fails;
  return ids.map((id) => {
    if (errored.includes(id)) return { id, section: "TestValidateTable", tier: "core", rule: "r", pitfalls: [], status: "errored", checks: [], ms: 0, error: "crashed" };
    const checks = failing[id] ?? [verdict("valid")];
    return { id, section: "TestValidateTable", tier: "core", rule: "r", pitfalls: [], status: failing[id] ? "failed" : "passed", checks, ms: 0 };
  });
}

/** A fingerprint failing `rows` with a wrong verdict (or the given checks). */
function print(id: string, rows: string[] | Record<string, Check[]>, pitfall: number | string = Number(id.slice(1))): Fingerprint {
  const answers: Record<string, string> = {};
  for (const result of run(rows)) {
    const signature = signatureOf(result, options);
    if (signature !== undefined) answers[result.id] = signature;
  }
  return { id, pitfall, title: `title of ${id}`, symptom: `symptom of ${id}`, answers };
}

const s01 = print("s01", ["a1", "a2", "a3", "a4"]);
const s02 = print("s02", ["b1", "b2"]);
const s03 = print("s03", ["c1", "c2", "c3", "c4", "c5", "c6"]);
const s09 = print("s09", ["a1", "a2"]); // nested inside s01's fingerprint
const all = [s01, s02, s03, s09];

describe("signatureOf", () => {
  it("is the failing checks at the lowest level that fails, with what came back", () => {
    const result = run({ a1: [verdict("valid"), paths(["$.x"])] })[0]!;
    expect(signatureOf(result, options)).toBe(JSON.stringify([["error paths in order", ["$.x"]]]));
    expect(signatureOf(result, { level: "verdict", tiers: ["core"] })).toBeUndefined();
  });

  it("is undefined for an errored row and for checks of tiers not scored", () => {
    expect(signatureOf(run([], ["a1"])[0]!, options)).toBeUndefined();
    const catalogOnly: Check = { level: "messages", tier: "catalog", what: "errors", expected: ["x"], actual: ["y"], pass: false };
    expect(signatureOf({ status: "failed", checks: [verdict("valid"), catalogOnly] }, { level: "messages", tiers: ["core"] })).toBeUndefined();
  });
});

describe("diagnose", () => {
  it("says plainly that there is nothing to diagnose when nothing fails", () => {
    const d = diagnose(run([]), options, all);
    expect(d.matches).toEqual([]);
    expect(d.lines).toEqual(["no failures: nothing to diagnose"]);
  });

  it("names an exact match with the seed's sentence", () => {
    const d = diagnose(run(["c1", "c2", "c3", "c4", "c5", "c6"]), options, all);
    expect(d.matches.map((m) => m.id)).toEqual(["s03"]);
    expect(d.matches[0]!.exact).toBe(true);
    expect(d.matches[0]!.sentence).toBe("your failures match s03 (pitfall 3, title of s03): symptom of s03");
    expect(d.unexplained).toEqual([]);
    expect(d.lines).toEqual([d.matches[0]!.sentence]);
  });

  it("names a rule outside the pitfall table by its spec section", () => {
    const s19 = print("s19", ["d1", "ok1"], "§2.2");
    expect(diagnose(run(["d1", "ok1"]), options, [s19]).lines[0]).toBe("your failures match s19 (spec §2.2, title of s19): symptom of s19");
  });

  it("does not count a row failed another way: the same rows, different answers, are no evidence", () => {
    const otherWay = Object.fromEntries(["c1", "c2", "c3", "c4", "c5", "c6"].map((id) => [id, [verdict("valid"), paths(["$.wrong"])]]));
    const d = diagnose(run(otherWay), options, all);
    expect(d.matches).toEqual([]);
    expect(d.closest).toBeUndefined();
    expect(d.lines).toEqual(["no known pitfall matches your 6 failing rows"]);
  });

  it("prefers the whole fingerprint over one nested inside it, and does not name the nested one", () => {
    expect(diagnose(run(["a1", "a2", "a3", "a4"]), options, all).matches.map((m) => m.id)).toEqual(["s01"]);
  });

  it("names the nested pitfall when only its rows fail", () => {
    // s01 shows half its signature (below the threshold), s09 all of it
    expect(diagnose(run(["a1", "a2"]), options, all).matches.map((m) => m.id)).toEqual(["s09"]);
  });

  it("names two pitfalls for a subject with two bugs, best match first", () => {
    const d = diagnose(run(["c1", "c2", "c3", "c4", "c5", "c6", "b1", "b2"]), options, all);
    expect(d.matches.map((m) => m.id)).toEqual(["s03", "s02"]);
    expect(d.matches.every((m) => !m.exact)).toBe(true);
    expect(d.matches[1]!.detail).toBe("2 of its 2 rows fail here the same way; it explains 2 of your 8 failing rows");
  });

  it(`names a pitfall from ${MIN_SHARE * 100}% of its rows, and only says "closest" below`, () => {
    expect(diagnose(run(["c1", "c2", "c3", "c4", "c5"]), options, all).matches.map((m) => m.id)).toEqual(["s03"]);
    const d = diagnose(run(["c1", "c2", "c3", "c4"]), options, all);
    expect(d.matches).toEqual([]);
    expect(d.closest).toEqual({ id: "s03", hits: 4, size: 6 });
    expect(d.lines[0]).toBe("no known pitfall matches your 4 failing rows (closest: s03, title of s03, but only 4 of its 6 rows fail here the same way)");
  });

  it("never names a pitfall from a single row when its fingerprint has more", () => {
    const twoRows = print("s05", ["d1", "ok1"]);
    expect(diagnose(run(["d1"]), options, [twoRows]).matches).toEqual([]);
  });

  it("lists the failing rows no pitfall explains", () => {
    const d = diagnose(run(["b1", "b2", "d1", "ok1"]), options, all);
    expect(d.matches.map((m) => m.id)).toEqual(["s02"]);
    expect(d.unexplained).toEqual(["d1", "ok1"]);
    expect(d.lines.at(-1)).toBe("2 failing rows match no known pitfall: d1, ok1");
  });

  it("lists mutants with identical fingerprints together", () => {
    const twin = print("s15", ["b1", "b2"], 7);
    const d = diagnose(run(["b1", "b2"]), options, [...all, twin]);
    expect(d.matches.map((m) => [m.id, m.alike])).toEqual([["s02", ["s15"]]]);
    expect(d.matches[0]!.sentence).toMatch(/^your failures match s02 or s15 /);
  });

  it("judges fingerprints only on the rows that ran", () => {
    const filtered = run(["c1", "c2"]).filter((r) => ["c1", "c2", "ok1"].includes(r.id));
    expect(diagnose(filtered, options, all).matches.map((m) => [m.id, m.exact])).toEqual([["s03", true]]);
  });

  it("takes errored rows as no evidence, and says to fix the adapter first", () => {
    // every row of s12-like fingerprints errored: nothing is named
    const d = diagnose(run([], ["b1", "b2", "c1", "c2", "c3"]), options, all);
    expect(d.failing).toBe(0);
    expect(d.errored).toBe(5);
    expect(d.matches).toEqual([]);
    expect(d.lines).toEqual(["5 rows gave no usable answer (errored or not answerable): fix the adapter first; they are no evidence of any pitfall"]);
  });

  it("leaves errored rows out of a fingerprint's size", () => {
    // s03's rows: four fail the same way, two errored: 4 of 4 answered
    const d = diagnose(run(["c1", "c2", "c3", "c4"], ["c5", "c6"]), options, all);
    expect(d.matches.map((m) => [m.id, m.hits, m.size])).toEqual([["s03", 4, 4]]);
    expect(d.lines.at(-1)).toMatch(/^2 rows gave no usable answer/);
  });
});

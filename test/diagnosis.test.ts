import { describe, expect, it } from "vitest";
import { diagnose, type Fingerprint } from "../src/harness/diagnosis.js";

// The diagnosis against synthetic fingerprints: which pitfalls explain a set of failing rows.

const ran = ["a1", "a2", "a3", "a4", "b1", "b2", "c1", "c2", "c3", "c4", "c5", "c6", "d1", "ok1", "ok2", "ok3"];

const print = (id: string, rows: string[], pitfall = Number(id.slice(1))): Fingerprint => ({
  id,
  pitfall,
  title: `title of ${id}`,
  symptom: `symptom of ${id}`,
  rows,
});

const s01 = print("s01", ["a1", "a2", "a3", "a4"]);
const s02 = print("s02", ["b1", "b2"]);
const s03 = print("s03", ["c1", "c2", "c3", "c4", "c5", "c6"]);
const s09 = print("s09", ["a1", "a2"]); // nested inside s01's fingerprint
const all = [s01, s02, s03, s09];

describe("diagnose", () => {
  it("says plainly that there is nothing to diagnose when nothing fails", () => {
    const d = diagnose([], ran, all);
    expect(d.matches).toEqual([]);
    expect(d.lines).toEqual(["no failures: nothing to diagnose"]);
  });

  it("names an exact match with the seed's sentence", () => {
    const d = diagnose(["c1", "c2", "c3", "c4", "c5", "c6"], ran, all);
    expect(d.matches.map((m) => m.id)).toEqual(["s03"]);
    expect(d.matches[0]!.exact).toBe(true);
    expect(d.matches[0]!.sentence).toBe("your failures match s03 (pitfall 3, title of s03): symptom of s03");
    expect(d.unexplained).toEqual([]);
    expect(d.lines).toEqual([d.matches[0]!.sentence]);
  });

  it("prefers the whole fingerprint over one nested inside it, and does not name the nested one", () => {
    const d = diagnose(["a1", "a2", "a3", "a4"], ran, all);
    expect(d.matches.map((m) => m.id)).toEqual(["s01"]);
  });

  it("names the nested pitfall when only its rows fail", () => {
    const d = diagnose(["a1", "a2"], ran, all);
    // s01 shows half its signature, s09 all of it: s09 is the closer match, and explains both rows
    expect(d.matches.map((m) => m.id)).toEqual(["s09"]);
  });

  it("names two pitfalls for a subject with two bugs, best match first", () => {
    const d = diagnose(["c1", "c2", "c3", "c4", "c5", "c6", "b1", "b2"], ran, all);
    expect(d.matches.map((m) => m.id)).toEqual(["s03", "s02"]);
    expect(d.matches.every((m) => !m.exact)).toBe(true);
    expect(d.matches[1]!.detail).toBe("2 of its 2 rows fail here; it explains 2 of your 8 failing rows");
  });

  it("tolerates a partial match down to half the fingerprint, not below", () => {
    expect(diagnose(["c1", "c2", "c3"], ran, all).matches.map((m) => m.id)).toEqual(["s03"]);
    const d = diagnose(["c1", "c2"], ran, all);
    expect(d.matches).toEqual([]);
    expect(d.closest).toEqual({ id: "s03", hits: 2, size: 6 });
    expect(d.lines[0]).toBe("no known pitfall matches your 2 failing rows (closest: s03, title of s03, but only 2 of its 6 rows fail here)");
  });

  it("lists the failing rows no pitfall explains", () => {
    const d = diagnose(["b1", "b2", "d1", "ok1"], ran, all);
    expect(d.matches.map((m) => m.id)).toEqual(["s02"]);
    expect(d.unexplained).toEqual(["d1", "ok1"]);
    expect(d.lines.at(-1)).toBe("2 failing rows match no known pitfall: d1, ok1");
  });

  it("says plainly when nothing matches at all", () => {
    const d = diagnose(["d1", "ok1"], ran, all);
    expect(d.matches).toEqual([]);
    expect(d.closest).toBeUndefined();
    expect(d.lines).toEqual(["no known pitfall matches your 2 failing rows"]);
  });

  it("lists mutants with identical fingerprints together", () => {
    const twin = print("s15", ["b1", "b2"], 7);
    const d = diagnose(["b1", "b2"], ran, [...all, twin]);
    expect(d.matches.map((m) => [m.id, m.alike])).toEqual([["s02", ["s15"]]]);
    expect(d.matches[0]!.sentence).toMatch(/^your failures match s02 or s15 /);
  });

  it("judges fingerprints only on the rows that ran", () => {
    // a filtered run: s03's fingerprint shrinks to the two rows that ran, both failing
    const d = diagnose(["c1", "c2"], ["c1", "c2", "ok1"], all);
    expect(d.matches.map((m) => [m.id, m.exact])).toEqual([["s03", true]]);
  });

  it("ignores failing ids outside the rows that ran", () => {
    expect(diagnose(["zz"], ran, all).failing).toBe(0);
  });
});

import { describe, expect, it } from "vitest";
import { hangCheck } from "../../src/run/hangs.js";
import { diagnose, MIN_SHARE, pitfallLabel, type Fingerprint } from "../../src/judge/diagnosis.js";
import type { RowResult, ScoreOptions } from "../../src/run/outcome.js";
import type { Check } from "../../src/run/run-row.js";
import type { Tier } from "../../src/corpus/rows.js";
import { evidenceOf, type Failure } from "../../src/judge/symptom.js";

// The diagnosis against synthetic runs and fingerprints: a pitfall is named only when the
// subject shows its symptom (fails its rows in the same sense) on enough of them; errored rows
// are never evidence; crashes are said apart.

const options: ScoreOptions = { level: "messages", tiers: ["core", "catalog"] };
const ids = ["a1", "a2", "a3", "a4", "b1", "b2", "c1", "c2", "c3", "c4", "c5", "c6", "d1", "ok1", "ok2", "ok3"];

const verdict = (actual: unknown, expected = "valid"): Check => ({ level: "verdict", tier: "core", what: "verdict", expected, actual, pass: actual === expected });
const paths = (actual: string[], expected = ["$"]): Check => ({ level: "paths", tier: "core", what: "error paths in order", expected, actual, pass: JSON.stringify(actual) === JSON.stringify(expected) });
const messages = (actual: string[], expected: string[]): Check => ({ level: "messages", tier: "catalog", what: "errors", expected, actual, pass: JSON.stringify(actual) === JSON.stringify(expected) });

/** A run of every id: `fails` maps an id to its checks (a wrong verdict by default); `errored` ids errored. */
function run(fails: Record<string, Check[]> | string[], errored: string[] = [], tier: (id: string) => Tier = () => "core"): RowResult[] {
  const failing: Record<string, Check[]> = Array.isArray(fails) ? Object.fromEntries(fails.map((id) => [id, [verdict("invalid")]])) : fails;
  return ids.map((id) => {
    const base = { id, section: "TestValidateTable" as const, tier: tier(id), rule: `rule/${id[0]}`, pitfalls: [], ms: 0 };
    if (errored.includes(id)) return { ...base, status: "errored", checks: [], error: "no reply" };
    const checks = failing[id] ?? [verdict("valid")];
    return { ...base, status: checks.every((c) => c.pass) ? "passed" : "failed", checks };
  });
}

/** A fingerprint failing `rows` with a wrong verdict (or the given checks). */
function print(id: string, rows: string[] | Record<string, Check[]>, pitfall: number | string = Number(id.slice(1))): Fingerprint {
  const answers: Record<string, Failure[]> = {};
  for (const result of run(rows)) {
    const evidence = evidenceOf(result.checks);
    if (evidence) answers[result.id] = evidence;
  }
  return { id, pitfall, title: `title of ${id}`, symptom: `symptom of ${id}`, answers };
}

const named = (results: RowResult[], prints: Fingerprint[], opts = options) => diagnose(results, opts, prints).matches.map((m) => m.id);

const s01 = print("s01", ["a1", "a2", "a3", "a4"]);
const s02 = print("s02", ["b1", "b2"]);
const s03 = print("s03", ["c1", "c2", "c3", "c4", "c5", "c6"]);
const s09 = print("s09", ["a1", "a2"]); // nested inside s01's fingerprint
const all = [s01, s02, s03, s09];

describe("diagnose: naming", () => {
  it("says plainly that there is nothing to diagnose when nothing fails", () => {
    const d = diagnose(run([]), options, all);
    expect(d.matches).toEqual([]);
    expect(d.lines).toEqual(["no failures: nothing to diagnose"]);
  });

  it("names an exact match with the mutant's own symptom, and lists the rows that show it", () => {
    const d = diagnose(run(["c1", "c2", "c3", "c4", "c5", "c6"]), options, all);
    expect(d.matches.map((m) => [m.id, m.exact, m.rows])).toEqual([["s03", true, ["c1", "c2", "c3", "c4", "c5", "c6"]]]);
    expect(d.matches[0]!.sentence).toBe("your failures match s03 (pitfall 3, title of s03): symptom of s03");
    expect(d.matches[0]!.detail).toBe("an exact match: you fail the same 6 rows it fails, the same way");
    expect(d.unexplained).toEqual([]);
    expect(d.lines).toEqual([d.matches[0]!.sentence]);
  });

  it("names a rule outside the pitfall table by its spec section", () => {
    const s19 = print("s19", ["d1", "ok1"], "§2.2");
    expect(diagnose(run(["d1", "ok1"]), options, [s19]).lines[0]).toBe("your failures match s19 (spec §2.2, title of s19): symptom of s19");
  });

  it("does not count a row failed another way: the same rows, another wrong answer, are no evidence", () => {
    const otherWay = Object.fromEntries(["c1", "c2", "c3", "c4", "c5", "c6"].map((id) => [id, [verdict("valid"), paths(["$.wrong"])]]));
    const d = diagnose(run(otherWay), options, all);
    expect(d.matches).toEqual([]);
    expect(d.closest).toBeUndefined();
    expect(d.lines).toEqual(["no known pitfall matches your 6 failing rows", "  rule/c (TestValidateTable, weight 20), 6 rows: e.g. c1: error paths in order: expected [\"$\"], got [\"$.wrong\"]"]);
  });

  it("prefers the whole fingerprint over one nested inside it, and does not name the nested one", () => {
    expect(named(run(["a1", "a2", "a3", "a4"]), all)).toEqual(["s01"]);
  });

  it("names the nested pitfall when only its rows fail", () => {
    // s01 shows on half its rows (below the threshold), s09 on all of them
    expect(named(run(["a1", "a2"]), all)).toEqual(["s09"]);
  });

  it("names every pitfall a subject shows, however many at once", () => {
    const d = diagnose(run(["c1", "c2", "c3", "c4", "c5", "c6", "b1", "b2", "a1", "a2", "a3", "a4"]), options, all);
    expect(d.matches.map((m) => m.id)).toEqual(["s03", "s01", "s02"]);
    expect(d.matches.every((m) => !m.exact)).toBe(true);
    expect(d.matches[2]!.detail).toBe("it shows on 2 of the 2 rows it is judged on; it explains 2 of your 12 failing rows; seen in rule/b");
  });

  it(`names a pitfall from ${MIN_SHARE * 100}% of its rows, and only says "closest" below`, () => {
    expect(named(run(["c1", "c2", "c3", "c4", "c5"]), all)).toEqual(["s03"]);
    const d = diagnose(run(["c1", "c2", "c3", "c4"]), options, all);
    expect(d.matches).toEqual([]);
    expect(d.closest).toEqual({ id: "s03", hits: 4, size: 6 });
    expect(d.lines[0]).toBe("no known pitfall matches your 4 failing rows (closest: s03, title of s03, but it shows on only 4 of its 6 rows)");
  });

  it("never names a pitfall from a single row when its fingerprint has more", () => {
    expect(named(run(["d1"]), [print("s05", ["d1", "ok1"])])).toEqual([]);
  });

  it("lists the failing rows no pitfall explains", () => {
    const d = diagnose(run(["b1", "b2", "d1", "ok1"]), options, all);
    expect(d.matches.map((m) => m.id)).toEqual(["s02"]);
    expect(d.unexplained).toEqual(["d1", "ok1"]);
    expect(d.lines.slice(1)).toEqual(["2 failing rows match no known pitfall, by rule, the most harmful first:", "  rule/d (TestValidateTable, weight 20), 1 row: e.g. d1: verdict: expected \"valid\", got \"invalid\"", "  rule/o (TestValidateTable, weight 20), 1 row: e.g. ok1: verdict: expected \"valid\", got \"invalid\""]);
    expect(d.groups!.map((g) => [g.rule, g.rows])).toEqual([["rule/d", ["d1"]], ["rule/o", ["ok1"]]]);
  });

  it("lists mutants with identical fingerprints together", () => {
    const d = diagnose(run(["b1", "b2"]), options, [...all, print("s15", ["b1", "b2"], 7)]);
    expect(d.matches.map((m) => [m.id, m.alike])).toEqual([["s02", ["s15"]]]);
    expect(d.matches[0]!.sentence).toMatch(/^your failures match s02 or s15 /);
  });

  it("judges fingerprints only on the rows that ran", () => {
    const filtered = run(["c1", "c2"]).filter((r) => ["c1", "c2", "ok1"].includes(r.id));
    expect(diagnose(filtered, options, all).matches.map((m) => [m.id, m.exact])).toEqual([["s03", true]]);
  });
});

describe("diagnose: rows with no answer, and crashes", () => {
  it("takes errored rows as no evidence, and says to fix the adapter first", () => {
    const d = diagnose(run([], ["b1", "b2", "c1", "c2", "c3"]), options, all);
    expect(d.failing).toBe(0);
    expect(d.errored).toBe(5);
    expect(d.matches).toEqual([]);
    expect(d.lines).toEqual(["5 rows gave no usable answer (the adapter broke the protocol): fix the adapter first; they are no evidence of any pitfall"]);
  });

  it("says rows needing a capability the implementation lacks are not answerable, by capability, and never blames the adapter for them", () => {
    const lacking = (capability: string) => (r: RowResult): RowResult => ({ ...r, status: "skipped", checks: [], error: `the subject does not offer the "${capability}" capability` });
    const results = run([], ["c5"]).map((r) => (["b1", "b2"].includes(r.id) ? lacking("concurrency")(r) : r.id === "c1" ? lacking("records")(r) : r.id === "c2" ? { ...r, status: "skipped" as const, checks: [], error: "skipped" } : r));
    const d = diagnose(results, options, all);
    expect(d.errored).toBe(5);
    expect(d.lines).toEqual([
      "1 row gave no usable answer (the adapter broke the protocol): fix the adapter first; they are no evidence of any pitfall",
      "2 rows need the concurrency capability, which the implementation does not offer: not answerable, scored as not passed; no evidence of any pitfall",
      "1 row needs the records capability, which the implementation does not offer: not answerable, scored as not passed; no evidence of any pitfall",
      "1 row needs a capability the implementation does not offer: not answerable, scored as not passed; no evidence of any pitfall",
    ]);
  });

  it("leaves errored rows out of a fingerprint's size", () => {
    const d = diagnose(run(["c1", "c2", "c3", "c4"], ["c5", "c6"]), options, all);
    expect(d.matches.map((m) => [m.id, m.hits, m.size])).toEqual([["s03", 4, 4]]);
    expect(d.lines.at(-1)).toMatch(/^2 rows gave no usable answer/);
  });

  it("says a data race apart from other crashes: a death whose note names the race, not a throw, nor a death of another cause", () => {
    const race = (n: number): Check => ({ ...verdict({ died: "the process exited with code 66" }), note: `a data race (the race detector stopped the process): write at ${n}` });
    const died = { ...verdict({ died: "the process exited with code 2" }), note: "panic: index out of range" };
    // a throw whose note says "a data race" is a throw, not a death
    const thrown = { ...verdict({ threw: "RuntimeError" }), note: "it threw a data race" };
    const d = diagnose(run({ c1: [race(1)], c2: [race(2)], c3: [died], c4: [thrown] }), options, []);
    expect(d.crashed).toBe(4);
    expect(d.raced).toBe(2);
    expect(d.lines).toEqual([
      "a data race stopped your code on 2 rows (the registry must be safe for concurrent use: guard its map with a mutex): c1, c2",
      "your implementation crashed on 2 rows (it raised, panicked or died instead of answering; the spec's promise is an answer to every input): c3, c4",
    ]);
    // a race on one check of a row whose other checks pass; a death with no note is no race
    const one = diagnose(run({ c1: [verdict("valid"), race(1)], c2: [verdict({ died: "the process exited with code 66" })] }), options, []);
    expect(one.raced).toBe(1);
    expect(one.lines).toEqual([
      "a data race stopped your code on 1 row (the registry must be safe for concurrent use: guard its map with a mutex): c1",
      "your implementation crashed on 1 row (it raised, panicked or died instead of answering; the spec's promise is an answer to every input): c2",
    ]);
    // a passing check that once died is no race, and a row without a death has none
    expect(diagnose(run({ c1: [{ ...race(1), pass: true }, verdict("invalid")] }), options, []).raced).toBeUndefined();
    expect(diagnose(run({ c1: [{ ...verdict("invalid"), note: "a data race" }] }), options, []).raced).toBeUndefined();
  });

  it("says rows with no answer in time as a hang, with the longest wait and the shorter one given once it hung", () => {
    const d = diagnose(run({ c1: [hangCheck("core", 5000)], c2: [hangCheck("core", 5000)], c3: [hangCheck("core", 500)], c4: [verdict("invalid")] }), options, []);
    expect(d.hung).toBe(3);
    expect(d.crashed).toBeUndefined();
    expect(d.lines).toEqual([
      "no known pitfall matches your 1 failing row",
      "  rule/c (TestValidateTable, weight 20), 1 row: e.g. c4: verdict: expected \"valid\", got \"invalid\"",
      "your code did not answer in 5000 ms on these inputs (it hangs or loops), 3 rows (once it had hung on a few, each other request was given 500 ms): c1, c2, c3",
    ]);
    // the hang's check after one that passed
    const same = diagnose(run({ c1: [verdict("valid"), hangCheck("core", 700)] }), options, []);
    expect(same.hung).toBe(1);
    expect(same.lines).toEqual(["your code did not answer in 700 ms on these inputs (it hangs or loops), 1 row: c1"]);
    expect(diagnose(run({ c1: [verdict("invalid")] }), options, []).hung).toBeUndefined();
  });

  it("counts a crash as the implementation's own wrong answer, said apart and no evidence of another pitfall", () => {
    const crash = verdict({ threw: "RecursionError: maximum recursion depth exceeded" });
    const d = diagnose(run({ c1: [crash], c2: [crash], c3: [crash], c4: [crash], c5: [crash], c6: [crash], d1: [crash] }), options, all);
    expect(d.matches).toEqual([]);
    expect(d.failing).toBe(7);
    expect(d.crashed).toBe(7);
    expect(d.lines).toEqual(["your implementation crashed on 7 rows (it raised, panicked or died instead of answering; the spec's promise is an answer to every input): c1, c2, c3, c4, c5, … (2 more)"]);
  });
});

describe("diagnose: symptoms, whatever the wording, order or key order", () => {
  it("sees a wrong verdict whatever the subject's wording", () => {
    const mutant = print("s06", { a1: [verdict("valid", "invalid"), paths([], ["$"]), messages([], ['$: missing required property "city"'])], a2: [verdict("valid", "invalid"), paths([], ["$"])] });
    const subject = run({ a1: [verdict("valid", "invalid"), paths([], ["$"]), messages([], ['$: missing required property "city"'])], a2: [verdict("valid", "invalid"), paths([], ["$"])] });
    expect(named(subject, [mutant])).toEqual(["s06"]);
  });

  it("sees the right items in another unsorted order, compared as JSON values (key order aside)", () => {
    const defs = (names: string[], flip = false) => names.map((name) => (flip ? { parameters: { type: "object" }, description: "", name } : { name, description: "", parameters: { type: "object" } }));
    const check = (actual: unknown): Check => ({ level: "verdict", tier: "core", what: "step 4: definitions", expected: defs(["a", "b", "c"]), actual, pass: false });
    const mutant = print("s12", { a1: [check(defs(["c", "b", "a"]))], a2: [check(defs(["b", "a", "c"]))] }, 9);
    // Go's map order, and Go's encoder writing keys in its own order
    expect(named(run({ a1: [check(defs(["b", "c", "a"], true))], a2: [check(defs(["c", "a", "b"], true))] }), [mutant])).toEqual(["s12"]);
    // the wrong set is not this pitfall
    expect(named(run({ a1: [check(defs(["c", "b"]))], a2: [check(defs(["b", "a", "c", "d"]))] }), [mutant])).toEqual([]);
  });

  it("sees errors in an unsorted order of the subject's own", () => {
    const expected = ["$", "$.a", "$.b"];
    const mutant = print("s19", { a1: [verdict("invalid", "invalid"), paths(["$.b", "$", "$.a"], expected)], a2: [verdict("invalid", "invalid"), paths(["$.a", "$", "$.b"], expected)] }, "§2.2");
    const subject = run({ a1: [verdict("invalid", "invalid"), paths(["$.a", "$.b", "$"], expected)], a2: [verdict("invalid", "invalid"), paths(["$.b", "$.a", "$"], expected)] });
    expect(named(subject, [mutant])).toEqual(["s19"]);
  });

  it("takes a row the subject gets in the right order as no evidence either way: its own order is sometimes sorted", () => {
    const expected = ["$", "$.a"];
    const reversed = (_row: string) => [verdict("invalid", "invalid"), paths(["$.a", "$"], expected)];
    const s19 = print("s19", { a1: reversed("a1"), a2: reversed("a2"), a3: reversed("a3"), a4: reversed("a4") }, "§2.2");
    // unsorted on two rows, sorted (by chance) on the other two
    const d = diagnose(run({ a1: reversed("a1"), a2: reversed("a2") }), options, [s19]);
    expect(d.matches.map((m) => [m.id, m.hits, m.size])).toEqual([["s19", 2, 2]]);
    // a wrong answer of another kind on those rows still counts against it
    const other = [verdict("invalid", "invalid"), paths(["$"], expected)];
    expect(named(run({ a1: reversed("a1"), a2: reversed("a2"), a3: other, a4: other }), [s19])).toEqual([]);
  });

  it("sees an order pitfall in any wrong order of the subject's own, whichever list it misplaces", () => {
    // the mutant misplaces only the messages of one path; a walk of the subject's own misplaces the paths there
    const expected = ["$", "$.a"];
    const byMessage = [verdict("invalid", "invalid"), paths(expected, expected), { ...messages(["$: b", "$: a"], ["$: a", "$: b"]), tier: "core" as const }];
    const byPath = [verdict("invalid", "invalid"), paths(["$.a", "$"], expected)];
    const s19 = print("s19", { a1: byMessage, a2: byMessage, a3: byMessage, a4: byMessage }, "§2.2");
    const d = diagnose(run({ a1: byMessage, a2: byMessage, a3: byPath, a4: byPath }), options, [s19]);
    expect(d.matches.map((m) => [m.id, m.rows])).toEqual([["s19", ["a1", "a2", "a3", "a4"]]]);
    // its own order misplaces nothing more: no "wrong in more ways"
    expect(d.matches[0]!.extra).toBeUndefined();
    // a wrong set of paths there is no order, and counts against it
    const lost = [verdict("invalid", "invalid"), paths(["$"], expected)];
    expect(named(run({ a1: byMessage, a2: lost, a3: lost, a4: lost }), [s19])).toEqual([]);
    // nor is a wrong order the symptom of a pitfall that is no order
    const s02v = print("s02", { a1: [verdict("invalid")], a2: [verdict("invalid")] });
    expect(named(run({ a1: byPath, a2: byPath }), [s02v])).toEqual([]);
  });

  it("takes a tool message whose lines come right as no evidence either way, as it takes a list", () => {
    const text = (expected: string, actual: string): Check => ({ level: "messages", tier: "core", what: "content", expected, actual, pass: expected === actual });
    const lines = [text("e\n$: x\n$.y: z", "e\n$.y: z\n$: x")];
    const s19 = print("s19", { a1: lines, a2: lines, a3: lines, a4: lines }, "§2.2");
    // wrong on two, right (its walk sorted by chance) on two
    const d = diagnose(run({ a1: lines, a2: lines }), options, [s19]);
    expect(d.matches.map((m) => [m.id, m.hits, m.size])).toEqual([["s19", 2, 2]]);
  });

  it("sees the same missing and added paths in any order, and errors with no path as such", () => {
    const expected = ["$.tags[0]", "$.tags[2]"];
    const s17 = print("s17", { a1: [verdict("invalid", "invalid"), paths(["$.tags", "$.tags"], expected)], a2: [verdict("invalid", "invalid"), paths(["$.x", "$.y"], ["$.x[1]", "$.y"])] }, 10);
    const s23 = print("s23", { a1: [verdict("invalid", "invalid"), paths(["$", "$"], expected)], a2: [verdict("invalid", "invalid"), paths(["$", "$"], ["$.x[1]", "$.y"])] }, 10);
    const dropped = run({ a1: [verdict("invalid", "invalid"), paths(["$.tags", "$.tags"], expected)], a2: [verdict("invalid", "invalid"), paths(["$.y", "$.x"], ["$.x[1]", "$.y"])] });
    expect(named(dropped, [s17, s23])).toEqual(["s17"]);
    // one error, at the root: what a library with no paths that stops at the first error answers
    const rootOnly = run({ a1: [verdict("invalid", "invalid"), paths([""], expected)], a2: [verdict("invalid", "invalid"), paths(["$"], ["$.x[1]", "$.y"])] });
    expect(named(rootOnly, [s17, s23])).toEqual(["s23"]);
  });

  it("sees a call outcome wrong in the same fields, whatever its other fields", () => {
    const outcome = (actual: Record<string, unknown>): Check => ({ level: "verdict", tier: "core", what: 'step 2: call "t": outcome', expected: { isError: true, prefixed: true, runs: [] }, actual, pass: false });
    const s10 = print("s10", { a1: [outcome({ isError: true, prefixed: true, runs: ["{}"] })], a2: [outcome({ isError: true, prefixed: true, runs: ['{"x":1}'] })] }, 7);
    expect(named(run({ a1: [outcome({ isError: false, prefixed: false, runs: ["{}"] })], a2: [outcome({ isError: true, prefixed: true, runs: ['{"x":1}'] })] }), [s10])).toEqual(["s10"]);
    expect(named(run({ a1: [outcome({ isError: false, prefixed: false, runs: [] })], a2: [outcome({ isError: false, prefixed: true, runs: [] })] }), [s10])).toEqual([]);
  });

  it("takes no evidence from a call on text that is not JSON where the subject ran no tool: a registry that parses first cannot run one there", () => {
    const outcome = (runs: string[], pass = false): Check => ({ level: "verdict", tier: "core", what: 'step 2: call "t": outcome', expected: { isError: true, prefixed: true, runs: [] }, actual: { isError: !pass ? false : true, prefixed: !pass ? false : true, runs }, pass });
    const mutantRan = (runs: string[]): Check => ({ ...outcome(runs), actual: { isError: true, prefixed: true, runs } });
    // the mutant ran the tool on three texts that are not JSON (a1, a2, a3) and on two objects that break the schema (a4, b1)
    const s10 = print("s10", { a1: [mutantRan(['{"x": "unter'])], a2: [mutantRan(["city=Paris"])], a3: [mutantRan(['{"x":1} {"y":2}'])], a4: [mutantRan(['{"id":"7"}'])], b1: [mutantRan(["{}"])] }, 7);
    // it parses first: refuses every text that is not JSON (in words of its own), and runs the tool on the rest
    const wording: Check = { level: "messages", tier: "catalog", what: 'step 2: call "t": content', expected: "error: invalid JSON", actual: "error: JSON parsing failed", pass: false };
    const parsesFirst = run({ a1: [outcome([], true), wording], a2: [outcome([], true), wording], a3: [outcome([], true)], a4: [outcome(['{"id":"7"}'])], b1: [outcome(["{}"])] });
    expect(named(parsesFirst, [s10])).toEqual(["s10"]);
    expect(diagnose(parsesFirst, options, [s10]).matches[0]).toMatchObject({ hits: 2, size: 2 });
    // refusing the objects as well is no s10
    expect(named(run({ a1: [outcome([], true)], a2: [outcome([], true)], a3: [outcome([], true)], a4: [outcome([], true)], b1: [outcome(["{}"])] }), [s10])).toEqual([]);
    // running no tool on the texts but telling them wrongly is no evidence against it either: it still runs the tool on the objects
    const otherwise = (): Check => ({ ...outcome([]), actual: { isError: false, prefixed: true, runs: [] } });
    const registered: Check = { level: "verdict", tier: "core", what: 'step 1: register "t" accepted', expected: "accepted", actual: "accepted", pass: true };
    expect(diagnose(run({ a1: [registered, otherwise()], a2: [registered, otherwise()], a3: [registered, otherwise()], a4: [outcome(['{"id":"7"}'])], b1: [outcome(["{}"])] }), options, [s10]).matches[0]).toMatchObject({ id: "s10", hits: 2, size: 2 });
    // but running a tool on one of the texts is: the row is judged, and lacks the symptom when what ran differs
    const ranOther = (): Check => ({ ...outcome([]), actual: { isError: false, prefixed: false, runs: ["other"] } });
    expect(diagnose(run({ a1: [ranOther()], a2: [ranOther()], a3: [ranOther()], a4: [outcome(['{"id":"7"}'])], b1: [outcome(["{}"])] }), options, [s10]).matches[0]).toMatchObject({ id: "s10", hits: 5, size: 5 });
    // an answer that is no outcome there says nothing of what ran: judged, and lacking
    const garbled = (): Check => ({ ...outcome([]), actual: "threw: boom" });
    expect(named(run({ a1: [garbled()], a2: [garbled()], a3: [garbled()], a4: [outcome(['{"id":"7"}'])], b1: [outcome(["{}"])] }), [s10])).toEqual([]);
    // a row of two such calls is set aside only when the subject ran no tool on either
    const step3 = (runs: string[], pass = false): Check => ({ ...outcome(runs, pass), what: 'step 3: call "t": outcome' });
    const twice = print("s10", { a1: [mutantRan(["x=1"]), { ...mutantRan(["y=2"]), what: 'step 3: call "t": outcome' }], a4: [mutantRan(['{"id":"7"}'])], b1: [mutantRan(["{}"])] }, 7);
    expect(named(run({ a1: [outcome([], true), step3(["other"])], a4: [outcome(['{"id":"7"}'])], b1: [outcome(["{}"])] }), [twice])).toEqual([]);
    expect(named(run({ a1: [outcome([], true), step3([])], a4: [outcome(['{"id":"7"}'])], b1: [outcome(["{}"])] }), [twice])).toEqual(["s10"]);
    expect(named(run({ a1: [outcome([], true), step3([], true)], a4: [outcome(['{"id":"7"}'])], b1: [outcome(["{}"])] }), [twice])).toEqual(["s10"]);
  });

  it("judges a symptom at its lowest level, so an earlier wrong verdict is another failure", () => {
    const s17 = print("s17", { a1: [verdict("invalid", "invalid"), paths(["$.tags"], ["$.tags[1]"])], a2: [verdict("invalid", "invalid"), paths(["$.t"], ["$.t[0]"])] }, 10);
    expect(named(run({ a1: [verdict("valid", "invalid"), paths(["$.tags"], ["$.tags[1]"])], a2: [verdict("valid", "invalid"), paths(["$.t"], ["$.t[0]"])] }), [s17])).toEqual([]);
  });

  it("names the same pitfalls whatever the level or tiers the run scores", () => {
    const s17 = print("s17", { a1: [verdict("invalid", "invalid"), paths(["$.tags"], ["$.tags[1]"])], a2: [verdict("invalid", "invalid"), paths(["$.t"], ["$.t[0]"])] }, 10);
    const subject = run({ a1: [verdict("invalid", "invalid"), paths(["$.tags"], ["$.tags[1]"])], a2: [verdict("invalid", "invalid"), paths(["$.t"], ["$.t[0]"])] });
    for (const level of ["verdict", "paths", "messages"] as const) expect(named(subject, [s17], { level, tiers: ["core"] })).toEqual(["s17"]);
    const atVerdict = diagnose(subject, { level: "verdict", tiers: ["core"] }, [s17]);
    expect(atVerdict.lines[0]).toBe("every row passes at the verdict level; your answers beyond it show:");
  });

  it("judges a symptom on its core rows when any ran: extra rows of other tiers do not dilute it", () => {
    // s03 fails six rows; four of them are hardening rows the subject passes
    const hardening = (id: string): Tier => (["c3", "c4", "c5", "c6"].includes(id) ? "hardening" : "core");
    const subject = run(["c1", "c2"], [], hardening);
    expect(named(subject, all, { level: "messages", tiers: ["core"] })).toEqual(["s03"]);
    expect(named(subject, all, { level: "messages", tiers: ["core", "catalog", "hardening"] })).toEqual(["s03"]);
  });
});

describe("diagnose: the rules, exactly", () => {
  it("counts not-answerable rows with errored ones, never as evidence", () => {
    const results = run(["c1", "c2", "c3", "c4", "c5", "c6"]).map((r) => (r.id === "c6" ? { ...r, status: "skipped" as const, checks: [] } : r));
    const d = diagnose(results, options, all);
    expect(d.errored).toBe(1);
    expect(d.matches.map((m) => [m.id, m.hits, m.size])).toEqual([["s03", 5, 5]]);
  });

  it("names a pitfall at exactly three quarters of its rows, and from its one row when only one ran", () => {
    expect(named(run(["a1", "a2", "a3"]), [s01])).toEqual(["s01"]);
    expect(named(run(["a1"]).filter((r) => r.id !== "a2"), [s09])).toEqual(["s09"]);
  });

  it("puts an exact match before another as strong on the same rows, and keeps different answers apart", () => {
    const expected = ["$", "$.a", "$.b"];
    const order = (actual: string[]) => [verdict("invalid", "invalid"), paths(actual, expected)];
    const reversed = print("s05", { a1: order(["$.b", "$.a", "$"]), a2: order(["$.b", "$.a", "$"]) });
    const rotated = print("s19", { a1: order(["$.a", "$", "$.b"]), a2: order(["$.a", "$", "$.b"]) }, "§2.2");
    const d = diagnose(run({ a1: order(["$.a", "$", "$.b"]), a2: order(["$.a", "$", "$.b"]) }), options, [reversed, rotated]);
    expect(d.matches.map((m) => [m.id, m.exact, m.alike])).toEqual([["s19", true, []]]);
  });

  it("ranks by share before the number of rows, and says what it measured", () => {
    // s03 shows on 5 of 6 rows, s02 on 2 of 2: both named, s02 first
    const d = diagnose(run(["c1", "c2", "c3", "c4", "c5", "b1", "b2"]), options, all);
    expect(d.matches.map((m) => [m.id, m.hits, m.size, m.share, m.explains])).toEqual([
      ["s02", 2, 2, 1, 2],
      ["s03", 5, 6, 0.833, 5],
    ]);
    expect(d.matches[1]!.jaccard).toBe(0.625);
    expect(d.matches[1]!.rows).toEqual(["c1", "c2", "c3", "c4", "c5"]);
  });

  it("judges a symptom at the mutant's lowest level: its other rows neither count for nor against it", () => {
    // the mutant lets two values through (verdict) and loses an error on two more (paths)
    const mutant = print("s06", { a1: [verdict("valid", "invalid")], a2: [verdict("valid", "invalid")], a3: [verdict("invalid", "invalid"), paths([], ["$"])], a4: [verdict("invalid", "invalid"), paths([], ["$"])] });
    const d = diagnose(run({ a1: [verdict("valid", "invalid")], a2: [verdict("valid", "invalid")], a3: [verdict("invalid", "invalid"), paths(["$.z"], ["$"])], a4: [verdict("invalid", "invalid"), paths(["$.z"], ["$"])] }), options, [mutant]);
    expect(d.matches.map((m) => [m.id, m.hits, m.size])).toEqual([["s06", 2, 2]]);
  });

  it("judges a symptom on whatever rows ran when none of them is core", () => {
    const subject = run(["c1", "c2", "c3", "c4", "c5", "c6"], [], () => "hardening");
    expect(named(subject, all)).toEqual(["s03"]);
  });

  it("says 'closest' only for a run with failures, the one showing on most rows", () => {
    const d = diagnose(run(["c1", "c2", "c3", "a1"]), options, all);
    expect(d.closest).toEqual({ id: "s03", hits: 3, size: 6 });
    // nothing fails at the verdict level, a weak symptom beyond it: no closest, nothing to diagnose
    const s17 = print("s17", { a1: [verdict("invalid", "invalid"), paths(["$.t"], ["$.t[0]"])], a2: [verdict("invalid", "invalid"), paths(["$.u"], ["$.u[0]"])], a3: [verdict("invalid", "invalid"), paths(["$.v"], ["$.v[0]"])] }, 10);
    const weak = diagnose(run({ a1: [verdict("invalid", "invalid"), paths(["$.t"], ["$.t[0]"])] }), { level: "verdict", tiers: ["core"] }, [s17]);
    expect(weak.closest).toBeUndefined();
    expect(weak.lines).toEqual(["no failures: nothing to diagnose"]);
  });

  it("says one failing row, one crash, in the singular, and lists five ids in full", () => {
    expect(diagnose(run(["d1"]), options, all).lines).toEqual(["no known pitfall matches your 1 failing row", "  rule/d (TestValidateTable, weight 20), 1 row: e.g. d1: verdict: expected \"valid\", got \"invalid\""]);
    const crash = [verdict({ threw: "boom" })];
    const d = diagnose(run({ b1: [verdict("invalid")], b2: [verdict("invalid")], d1: crash }), options, all);
    expect(d.lines).toEqual([
      d.matches[0]!.sentence,
      "your implementation crashed on 1 row (it raised, panicked or died instead of answering; the spec's promise is an answer to every input): d1",
    ]);
    const five = diagnose(run({ c1: crash, c2: crash, c3: crash, c4: crash, c5: crash }), options, []);
    expect(five.lines.at(-1)).toMatch(/: c1, c2, c3, c4, c5$/);
    expect(five.crashed).toBe(5);
  });

  it("counts a row as crashed when any of its failing checks is a crash", () => {
    const d = diagnose(run({ d1: [{ ...verdict("invalid"), what: "first" }, verdict({ threw: "boom" })] }), options, []);
    expect(d.crashed).toBe(1);
  });

  it("says as 'closest' the candidate showing on most rows, then on the greater share", () => {
    const wide = print("s04", ["a1", "a2", "a3", "a4", "b1", "b2"]);
    const narrow = print("s07", ["a1", "a2", "a3"]);
    // both show on 2 rows: s07 on 2 of 3, s04 on 2 of 6
    expect(diagnose(run(["a1", "a2"]), options, [wide, narrow]).closest).toEqual({ id: "s07", hits: 2, size: 3 });
    expect(diagnose(run(["a1", "a2"]), options, [narrow, wide]).closest).toEqual({ id: "s07", hits: 2, size: 3 });
  });

  it("takes two fingerprints with the same answers as alike, whatever order their rows were taken in", () => {
    const forward = print("s02", ["b1", "b2"]);
    const backward: Fingerprint = { ...print("s15", ["b1", "b2"], 7), answers: { b2: forward.answers.b2!, b1: forward.answers.b1! } };
    expect(diagnose(run(["b1", "b2"]), options, [forward, backward]).matches.map((m) => [m.id, m.alike])).toEqual([["s02", ["s15"]]]);
  });

  it("counts a row as crashed only where a failing check is a crash", () => {
    const passedCrashLike: Check = { level: "verdict", tier: "core", what: "other", expected: { threw: "x" }, actual: { threw: "x" }, pass: true };
    const d = diagnose(run({ d1: [verdict("invalid"), passedCrashLike] }), options, []);
    expect(d.crashed).toBeUndefined();
    expect(d.lines).toEqual(["no known pitfall matches your 1 failing row", "  rule/d (TestValidateTable, weight 20), 1 row: e.g. d1: verdict: expected \"valid\", got \"invalid\""]);
  });

  it("leaves a crash a named pitfall explains to that pitfall, and lists the other failing rows apart", () => {
    const crash = [verdict({ threw: "panic" })];
    const s11 = print("s11", { a1: crash, a2: crash }, 8);
    const d = diagnose(run({ a1: crash, a2: crash, c1: crash, d1: [verdict("invalid")] }), options, [s11]);
    expect(d.lines).toEqual([
      d.matches[0]!.sentence,
      "1 failing row matches no known pitfall, by rule, the most harmful first:",
      "  rule/d (TestValidateTable, weight 20), 1 row: e.g. d1: verdict: expected \"valid\", got \"invalid\"",
      "your implementation crashed on 1 row (it raised, panicked or died instead of answering; the spec's promise is an answer to every input): c1",
    ]);
    expect(d.matches[0]!.detail).toBe("it shows on 2 of the 2 rows it is judged on; it explains 2 of your 4 failing rows; seen in rule/a");
  });

  it("names pitfalls from answers beyond the scored level without counting failing rows it has not got", () => {
    const s17 = print("s17", { a1: [verdict("invalid", "invalid"), paths(["$.t"], ["$.t[0]"])], a2: [verdict("invalid", "invalid"), paths(["$.u"], ["$.u[0]"])] }, 10);
    const subject = run({ a1: [verdict("invalid", "invalid"), paths(["$.t"], ["$.t[0]"])], a2: [verdict("invalid", "invalid"), paths(["$.u"], ["$.u[0]"])] });
    expect(diagnose(subject, { level: "verdict", tiers: ["core"] }, [s17]).matches[0]!.detail).toBe("an exact match: you fail the same 2 rows it fails, the same way");
    const dropped = (path: string) => [verdict("invalid", "invalid"), paths([path], [`${path}[0]`])];
    const four = print("s17", { a1: dropped("$.t"), a2: dropped("$.u"), a3: dropped("$.v"), a4: dropped("$.w") }, 10);
    const partly = run({ a1: dropped("$.t"), a2: dropped("$.u"), a3: dropped("$.v") });
    expect(diagnose(partly, { level: "verdict", tiers: ["core"] }, [four]).matches[0]!.detail).toBe("it shows on 3 of the 4 rows it is judged on; seen in rule/a");
  });
});

describe("pitfallLabel", () => {
  it("says a pitfall of the seed's table, a spec section, or where the lesson names it", () => {
    expect(pitfallLabel(2)).toBe("pitfall 2");
    expect(pitfallLabel("§2.2")).toBe("spec §2.2");
    expect(pitfallLabel("lesson: register and override")).toBe("lesson: register and override");
  });
});

describe("diagnose: when faults come together", () => {
  it("ranks unexplained rows by the weight of the spec test they fail, the hand-worked example first, one example and its why each", () => {
    const results = run(["d1", "ok1", "ok2", "ok3"]).map((r) => (r.id === "ok3" ? { ...r, section: "TestHandWorkedExample" as const, rule: "worked/example" } : r.id === "d1" ? { ...r, section: "TestCompileRejectsUnsupported" as const } : r));
    const d = diagnose(results, options, all);
    expect(d.groups!.map((g) => [g.rule, g.section, g.weight, g.rows, g.example])).toEqual([
      ["worked/example", "TestHandWorkedExample", 25, ["ok3"], "ok3"],
      ["rule/o", "TestValidateTable", 20, ["ok1", "ok2"], "ok1"],
      ["rule/d", "TestCompileRejectsUnsupported", 10, ["d1"], "d1"],
    ]);
    expect(d.groups![0]!.why).toBe('verdict: expected "valid", got "invalid"');
    expect(d.lines[1]).toBe('  worked/example (TestHandWorkedExample, weight 25), 1 row: e.g. ok3: verdict: expected "valid", got "invalid"');
  });

  it("between groups of one weight puts the bigger first, and says at most five of them", () => {
    const rules: Record<string, string> = { a1: "r1", b1: "r2", b2: "r2", c1: "r3", d1: "r4", ok1: "r5", ok2: "r6" };
    const results = run(Object.keys(rules)).map((r) => ({ ...r, rule: rules[r.id] ?? r.rule }));
    const d = diagnose(results, options, []);
    expect(d.groups![0]!.rows).toEqual(["b1", "b2"]);
    expect(d.groups).toHaveLength(6);
    expect(d.lines.at(-1)).toBe("  … and 1 more rule");
    expect(d.lines).toHaveLength(1 + 5 + 1);
  });

  it("cuts a long value in a why to 80 characters", () => {
    const long = "x".repeat(200);
    const d = diagnose(run({ d1: [verdict(long)] }), options, []);
    expect(d.groups![0]!.why).toBe(`verdict: expected "valid", got ${JSON.stringify(long).slice(0, 79)}…`);
    expect(diagnose(run({ d1: [verdict("x".repeat(76))] }), options, []).groups![0]!.why).toBe(`verdict: expected "valid", got "${"x".repeat(76)}"`);
  });

  it("counts only failing rows in what a pitfall explains: never more than the failing rows", () => {
    // a1, a2 fail at the scored (core) tier; a3, a4 fail only in a catalog check the run does not score
    const beyond = (id: string) => (["a3", "a4"].includes(id) ? [verdict("valid"), { ...messages(["x"], ["y"]), level: "verdict" as const }] : [verdict("invalid")]);
    const s = print("s01", Object.fromEntries(["a1", "a2", "a3", "a4"].map((id) => [id, beyond(id)])));
    const d = diagnose(run(Object.fromEntries(["a1", "a2", "a3", "a4"].map((id) => [id, beyond(id)]))), { level: "messages", tiers: ["core"] }, [s]);
    expect(d.failing).toBe(2);
    expect(d.matches[0]!.explains).toBe(2);
    expect(d.matches[0]!.rows).toEqual(["a1", "a2", "a3", "a4"]);
  });

  it("gives 'closest' for every partial match beside the named ones, with the rows it lacks", () => {
    // s02 named on b1, b2; s03 shows on 2 of its 6 rows: closest, lacking c3, c4, c5 (three said)
    const d = diagnose(run(["b1", "b2", "c1", "c2"]), options, all);
    expect(d.matches.map((m) => m.id)).toEqual(["s02"]);
    expect(d.partial).toEqual([{ id: "s03", title: "title of s03", hits: 2, size: 6, lacks: ["c3", "c4", "c5"] }]);
    expect(d.lines).toContain("closest: s03, title of s03, shows on 2 of its 6 rows; it lacks c3, c4, c5");
  });

  it("ranks partial matches by share, then hits, then id, and leaves out those named, those alike them and those with nothing left to explain", () => {
    const wide = print("s04", ["a1", "a2", "a3", "a4", "b1", "b2"]);
    const narrow = print("s07", ["a1", "a2", "a3"]);
    const other = print("s08", ["a1", "a2", "a3"]);
    const d = diagnose(run(["a1", "a2"]), options, [wide, other, narrow]);
    expect(d.partial!.map((p) => p.id)).toEqual(["s07", "s08", "s04"]);
    // named, or alike a named one: not partial; and here the named one leaves nothing for the others
    expect(diagnose(run(["a1", "a2"]), options, [print("s09", ["a1", "a2"]), print("s15", ["a1", "a2"]), narrow, wide]).partial).toBeUndefined();
    expect(diagnose(run(["a1", "a2", "b1", "b2"]), options, [s02, print("s15", ["b1", "b2"]), narrow]).partial!.map((p) => p.id)).toEqual(["s07"]);
    expect(diagnose(run([]), options, [narrow]).partial).toBeUndefined();
    // no match named: the partial ones are data, the headline already says the closest
    expect(diagnose(run(["a1", "a2"]), options, [wide, narrow]).lines.some((l) => l.startsWith("closest:"))).toBe(false);
  });
});

describe("diagnose: harm is named on the rows that show it", () => {
  const harmful = (print_: Fingerprint): Fingerprint => ({ ...print_, harm: true });

  it("names a pitfall whose every row is harm on two rows, whatever its share; the same fingerprint without harm it does not", () => {
    expect(named(run(["a1", "a2"]), [harmful(s01)])).toEqual(["s01"]);
    expect(named(run(["a1", "a2"]), [s01])).toEqual([]);
  });

  it("still wants two rows where it could be judged on two", () => {
    expect(named(run(["a1"]), [harmful(s01)])).toEqual([]);
    expect(diagnose(run(["a1"]), options, [harmful(s01)]).closest?.id).toBe("s01");
  });

  it("counts only its harmful rows toward those two: rows that are no harm on their own (a valid call refused) never take it away", () => {
    // one harmful row, shown; three harmless rows beside it, passed
    const mixed: Fingerprint = { ...harmful(s01), harmless: ["a2", "a3", "a4"] };
    expect(named(run(["a1"]), [mixed])).toEqual(["s01"]);
    // two harmful rows: two must show, as before
    const two: Fingerprint = { ...harmful(s01), harmless: ["a3", "a4"] };
    expect(named(run(["a1"]), [two])).toEqual([]);
    expect(named(run(["a1", "a3"]), [two])).toEqual(["s01"]);
    // a harmless row showing it counts as one of the two; none showing, nothing is named
    expect(named(run([]), [{ ...harmful(s01), harmless: ["a1", "a2", "a3", "a4"] }])).toEqual([]);
    expect(named(run(["a2"]), [{ ...harmful(s01), harmless: ["a1", "a2", "a3", "a4"] }])).toEqual(["s01"]);
  });

  it("names harm beside another pitfall on the same rows, each explaining them", () => {
    const d = diagnose(run(["a1", "a2"]), options, [harmful(s01), harmful(s09)]);
    expect(d.matches.map((m) => [m.id, m.explains])).toEqual([["s09", 2], ["s01", 2]]);
    expect(d.unexplained).toEqual([]);
    // without harm, the one nested inside is the only one named
    expect(named(run(["a1", "a2"]), [s01, s09])).toEqual(["s09"]);
  });

  it("names two harms of the very same rows once, the other alike it", () => {
    const twin = { ...harmful(s01), id: "s05" };
    const d = diagnose(run(["a1", "a2"]), options, [harmful(s01), twin]);
    expect(d.matches.map((m) => [m.id, m.alike])).toEqual([["s01", ["s05"]]]);
    // beside a third, the same
    expect(diagnose(run(["a1", "a2"]), options, [harmful(s09), harmful(s01), twin]).matches.map((m) => [m.id, m.alike])).toEqual([["s09", []], ["s01", ["s05"]]]);
    // and where they say it all, the same
    expect(diagnose(run(["a1", "a2", "a3", "a4"]), options, [harmful(s01), twin]).matches.map((m) => [m.id, m.alike])).toEqual([["s01", ["s05"]]]);
  });

  it("does not also name the harm nested in one that says it all (three quarters of its rows, holding the nested one's)", () => {
    // the nested one ranks first (all of its rows), the one holding it shows on 3 of 4
    expect(named(run(["a1", "a2", "a3"]), [harmful(s01), harmful(s09)])).toEqual(["s01"]);
    // one that holds it but is no harm leaves it named
    expect(named(run(["a1", "a2", "a3"]), [s01, harmful(s09)])).toEqual(["s09", "s01"]);
    // harm that says it all leaves a nested pitfall that is no harm to the rows it alone shows
    expect(diagnose(run(["a1", "a2", "a3"]), options, [harmful(s01), s09]).matches.map((m) => [m.id, m.explains])).toEqual([["s09", 2], ["s01", 3]]);
    // without harm, each explains only the rows no one before it did
    expect(diagnose(run(["a1", "a2", "a3"]), options, [s01, s09]).matches.map((m) => [m.id, m.explains])).toEqual([["s09", 2], ["s01", 1]]);
    // nor does one that holds only part of its rows
    const s05 = harmful(print("s05", ["a1", "a2", "a3", "b1"]));
    expect(named(run(["a1", "a2", "a3", "b1", "b2"]), [s05, harmful(s02)]).sort()).toEqual(["s02", "s05"]);
  });
});

describe("diagnose: an order pitfall takes its rows", () => {
  const order = (expected: string[], actual: string[]): Check => ({ level: "paths", tier: "core", what: "error paths in order", expected, actual, pass: JSON.stringify(actual) === JSON.stringify(expected) });
  const text = (expected: string, actual: string): Check => ({ level: "messages", tier: "core", what: "content", expected, actual, pass: expected === actual });
  const s19 = print("s19", { c1: [order(["$", "$.a"], ["$.a", "$"])], c2: [order(["$", "$.b"], ["$.b", "$"])] }, "§2.2");

  it("takes every failing row that is only a wrong order, where its mutant's order was right, and counts it", () => {
    const d = diagnose(run({ c1: [order(["$", "$.a"], ["$.a", "$"])], c2: [order(["$", "$.b"], ["$.b", "$"])], c3: [text("e\n$: x\n$.y: z", "e\n$.y: z\n$: x")], c4: [verdict("invalid")] }), options, [s19]);
    expect(d.matches.map((m) => [m.id, m.rows, m.explains])).toEqual([["s19", ["c1", "c2", "c3"], 3]]);
    expect(d.unexplained).toEqual(["c4"]);
  });

  it("leaves those rows alone when the named pitfall is no order pitfall, or the row another's", () => {
    const rows = { b1: [verdict("invalid")], b2: [verdict("invalid")], c3: [text("e\n$: x\n$.y: z", "e\n$.y: z\n$: x")] };
    expect(diagnose(run(rows), options, [s02]).unexplained).toEqual(["c3"]);
    const both = diagnose(run({ ...rows, c1: [order(["$", "$.a"], ["$.a", "$"])], c2: [order(["$", "$.b"], ["$.b", "$"])] }), options, [s02, s19]);
    expect(both.matches.map((m) => [m.id, m.rows])).toEqual([["s02", ["b1", "b2"]], ["s19", ["c1", "c2", "c3"]]]);
    expect(both.unexplained).toEqual([]);
  });

  it("gives no 'closest' for a partial match whose rows the named ones explain", () => {
    // s01 shows on a1, a2 (2 of 4), and so does s09, named on them: nothing is left for s01 to explain
    expect(diagnose(run(["a1", "a2"]), options, all).partial).toBeUndefined();
  });
});

describe("diagnose: judged where the subject could show it", () => {
  it("takes a row where the subject crashed or hung, and the mutant did not, as no evidence against it", () => {
    const crash = verdict({ threw: "boom" });
    const registered: Check = { level: "verdict", tier: "core", what: "step 1: register", expected: "accepted", actual: "accepted", pass: true };
    const d = diagnose(run({ c1: [verdict("invalid")], c2: [verdict("invalid")], c3: [verdict("invalid")], c4: [verdict("invalid")], c5: [registered, crash], c6: [hangCheck("core", 500)] }), options, [s03]);
    expect(d.matches.map((m) => [m.id, m.hits, m.size, m.rows])).toEqual([["s03", 4, 4, ["c1", "c2", "c3", "c4"]]]);
    expect(d.crashed).toBe(1);
    expect(d.hung).toBe(1);
    // nor is a pitfall named on what is left when that is too little
    expect(named(run({ c1: [verdict("invalid")], c2: [crash], c3: [crash], c4: [crash], c5: [crash], c6: [crash] }), [s03])).toEqual([]);
  });

  it("still counts a crash against a mutant whose own answer there is a crash, and a row showing the symptom beside a crash", () => {
    const crash = verdict({ threw: "boom" });
    const s11 = print("s11", { c1: [crash], c2: [crash], c3: [crash], c4: [crash] }, 8);
    expect(diagnose(run({ c1: [crash], c2: [crash], c3: [crash], c4: [verdict("other")] }), options, [s11]).matches[0]).toMatchObject({ id: "s11", hits: 3, size: 4 });
    // a crash elsewhere than the mutant's is judged against it when the mutant's own answer there holds a crash
    const step = (what: string, actual: unknown): Check => ({ level: "verdict", tier: "core", what, expected: "a Result", actual, pass: false });
    const mixed = print("s11", { c1: [crash], c2: [crash], c3: [crash], c4: [step("step 2", { threw: "x" }), step("step 3", "wrong")], c5: [step("step 2", { threw: "x" })] }, 8);
    const answered: Check = { level: "verdict", tier: "core", what: "step 2", expected: "a Result", actual: "a Result", pass: true };
    const elsewhere = [answered, step("step 3", { threw: "y" })];
    expect(diagnose(run({ c1: [crash], c2: [crash], c3: [crash], c4: elsewhere, c5: elsewhere }), options, [mixed]).closest).toEqual({ id: "s11", hits: 3, size: 5 });
    const later: Check = { ...crash, what: "step 3" };
    const d = diagnose(run({ c1: [verdict("invalid"), later], c2: [verdict("invalid")], c3: [crash], c4: [crash], c5: [crash], c6: [crash] }), options, [s03]);
    expect(d.matches[0]).toMatchObject({ id: "s03", hits: 2, size: 2 });
  });

  it("takes a row where the subject's tools ran otherwise as no evidence for or against a pitfall of how a call is told", () => {
    const expected = { isError: true, prefixed: true, answers: true, consistent: true, runs: [], otherToolsRan: [] };
    const outcome = (actual: Record<string, unknown>): Check => ({ level: "verdict", tier: "core", what: "outcome", expected, actual: { ...expected, ...actual }, pass: false });
    const unprefixed = outcome({ prefixed: false, consistent: false });
    const s15 = print("s15", { c1: [unprefixed], c2: [unprefixed], c3: [unprefixed], c4: [unprefixed] }, 7);
    // told as data where it told anything (c1, c2); the tool ran on c3, c4: nothing was left to tell there
    const asData = outcome({ isError: false, prefixed: false });
    const ran = outcome({ isError: false, prefixed: false, runs: ["{}"] });
    expect(diagnose(run({ c1: [asData], c2: [asData], c3: [ran], c4: [ran] }), options, [s15]).matches[0]).toMatchObject({ id: "s15", hits: 2, size: 2 });
    // prefixed where it told a failure: judged, and lacking
    const told = outcome({ consistent: false });
    expect(named(run({ c1: [asData], c2: [told], c3: [told], c4: [told] }), [s15])).toEqual([]);
    // a pitfall of what ran is judged on every row all the same
    const s10 = print("s10", { c1: [ran], c2: [ran], c3: [ran], c4: [ran] }, 7);
    expect(named(run({ c1: [ran], c2: [asData], c3: [asData], c4: [asData] }), [s10])).toEqual([]);
  });
});

describe("diagnose: a named pitfall takes the rows of its wider form", () => {
  // s02 named on b1, b2; its wider form (the same mistake wherever else the reference could make it) also fails c1, c2 with a wrong verdict
  const wide: Fingerprint = { ...s02, wider: print("s02+", ["c1", "c2"]).answers };

  it("takes the failing rows where its wider form fails the same way, counts them and says their rules", () => {
    const d = diagnose(run(["b1", "b2", "c1", "c2", "d1"]), options, [wide]);
    expect(d.matches.map((m) => [m.id, m.rows, m.explains])).toEqual([["s02", ["b1", "b2", "c1", "c2"], 4]]);
    expect(d.matches[0]!.detail).toBe("it shows on 2 of the 2 rows it is judged on; it explains 4 of your 5 failing rows; seen in rule/b, rule/c");
    expect(d.unexplained).toEqual(["d1"]);
    // a rule it was already seen in is said once
    const sameRule = diagnose(run(["b1", "b2", "c1", "c2"]).map((r) => (r.id === "c1" ? { ...r, rule: "rule/b" } : r)), options, [wide]);
    expect(sameRule.matches[0]!.detail).toBe("it shows on 2 of the 2 rows it is judged on; it explains 4 of your 4 failing rows; seen in rule/b, rule/c");
  });

  it("leaves a row of its wider form failed another way, and one another named pitfall took", () => {
    const otherWay = diagnose(run({ b1: [verdict("invalid")], b2: [verdict("invalid")], c1: [verdict("valid"), paths(["$.x"])], c2: [verdict("invalid")] }), options, [wide]);
    expect(otherWay.matches.map((m) => m.rows)).toEqual([["b1", "b2", "c2"]]);
    expect(otherWay.unexplained).toEqual(["c1"]);
    const taken = diagnose(run(["b1", "b2", "c1", "c2", "c3", "c4", "c5", "c6"]), options, [wide, s03]);
    expect(taken.matches.map((m) => [m.id, m.rows])).toEqual([["s03", ["c1", "c2", "c3", "c4", "c5", "c6"]], ["s02", ["b1", "b2"]]]);
  });

  it("never names a pitfall on its wider rows alone: they are not its evidence", () => {
    const d = diagnose(run(["c1", "c2"]), options, [wide]);
    expect(d.matches).toEqual([]);
    expect(d.unexplained).toEqual(["c1", "c2"]);
  });
});

describe("diagnose: supersets", () => {
  it("names a pitfall shown by code wrong in more ways too, and says the extra ways beside it", () => {
    const shadow = (defs: unknown[]): Check[] => [verdict("invalid"), { level: "verdict", tier: "core", what: "step 3: definitions", expected: [1], actual: defs, pass: false }];
    const s13 = print("s13", { b1: shadow([2]), b2: shadow([2]) }, 9);
    const extra: Check = { level: "verdict", tier: "core", what: "step 4: names", expected: ["a"], actual: ["a", "a"], pass: false };
    const d = diagnose(run({ b1: [...shadow([1, 2]), extra], b2: shadow([1, 2]) }), options, [s13]);
    expect(d.matches.map((m) => [m.id, m.extra])).toEqual([["s13", ["definitions", "names"]]]);
    expect(d.matches[0]!.detail).toBe("it shows on 2 of the 2 rows it is judged on; it explains 2 of your 2 failing rows; seen in rule/b; and wrong in more ways beside it: definitions, names");
    expect(diagnose(run({ b1: shadow([2]), b2: shadow([2]) }), options, [s13]).matches[0]!.extra).toBeUndefined();
  });
});

describe("diagnose: the edges of groups and partial matches", () => {
  it("has no groups when nothing is unexplained, and says five groups in full", () => {
    expect(diagnose(run([]), options, all).groups).toBeUndefined();
    const rules: Record<string, string> = { a1: "r1", b1: "r2", c1: "r3", d1: "r4", ok1: "r5" };
    const d = diagnose(run(Object.keys(rules)).map((r) => ({ ...r, rule: rules[r.id] ?? r.rule })), options, []);
    expect(d.groups).toHaveLength(5);
    expect(d.lines.some((l) => l.includes("more rule"))).toBe(false);
  });

  it("keeps a why of exactly 80 characters whole", () => {
    const x = "x".repeat(78);
    expect(diagnose(run({ d1: [verdict(x)] }), options, []).groups![0]!.why).toBe(`verdict: expected "valid", got "${x}"`);
  });

  it("gives no partial match that shows on none of the rows it is judged on, and one that shows on a row left unexplained though another is explained", () => {
    // s03 is judged on its core rows c1..c4; the subject shows it only on c5, a catalog row
    const catalog = (id: string) => (["c5", "c6"].includes(id) ? "catalog" : "core");
    expect(diagnose(run(["b1", "b2", "c5"], [], catalog), options, all).partial).toBeUndefined();
    const s05 = print("s05", ["c1", "b1"]);
    const d = diagnose(run(["c1", "b1", "c2"]), options, [s05, s03]);
    expect(d.matches.map((m) => m.id)).toEqual(["s05"]);
    expect(d.partial!.map((p) => p.id)).toEqual(["s03"]);
  });

  it("says five partial matches at most in the lines", () => {
    const prints = ["s04", "s05", "s06", "s07", "s08", "s10"].map((id) => print(id, ["c1", "c2", "c3", "c4", "c5", "c6"]));
    const d = diagnose(run(["b1", "b2", "c1"]), options, [s02, ...prints]);
    expect(d.partial).toHaveLength(6);
    expect(d.lines.filter((l) => l.startsWith("closest:"))).toHaveLength(5);
  });

  it("takes wrong-order rows only for a pitfall whose every row is an order", () => {
    const order = (expected: string[], actual: string[]): Check => ({ level: "paths", tier: "core", what: "error paths in order", expected, actual, pass: false });
    const mixed = print("s19", { c1: [order(["$", "$.a"], ["$.a", "$"])], c2: [verdict("invalid")] }, "§2.2");
    const d = diagnose(run({ c1: [order(["$", "$.a"], ["$.a", "$"])], c2: [verdict("invalid")], c3: [order(["$", "$.b"], ["$.b", "$"])] }), options, [mixed]);
    expect(d.matches.map((m) => m.id)).toEqual(["s19"]);
    expect(d.unexplained).toEqual(["c3"]);
  });
});

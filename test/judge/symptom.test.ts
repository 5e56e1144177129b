import { describe, expect, it } from "vitest";
import { crashIn, type Check } from "../../src/run/run-row.js";
import { evidenceOf, extraWays, isReordered, isRunOnText, isToldOnly, ranNoneThere, ranOtherwise, showsExactly, showsSame, type Failure } from "../../src/judge/symptom.js";

// A symptom: how a mutant's failure on a row shows in another implementation's answers there,
// by its sense rather than its text.

const check = (level: Check["level"], what: string, expected: unknown, actual: unknown, tier: Check["tier"] = "core"): Check => ({
  level,
  tier,
  what,
  expected,
  actual,
  pass: JSON.stringify(expected) === JSON.stringify(actual),
});
const failure = (level: Failure["level"], what: string, expected: unknown, actual: unknown): Failure => ({ level, what, expected, actual });
const ok = (level: Check["level"], what: string, value: unknown) => check(level, what, value, value);

describe("evidenceOf", () => {
  it("is the failing checks at the lowest level that fails, of any tier, without their tier", () => {
    const checks = [ok("verdict", "verdict", "invalid"), check("paths", "paths", ["$.a"], ["$"]), check("paths", "other", [1], [2], "catalog"), check("messages", "errors", ["x"], ["y"])];
    expect(evidenceOf(checks)).toEqual([failure("paths", "paths", ["$.a"], ["$"]), failure("paths", "other", [1], [2])]);
  });

  it("is undefined when every check passes", () => {
    expect(evidenceOf([ok("verdict", "verdict", "valid"), ok("messages", "errors", [])])).toBeUndefined();
    expect(evidenceOf([])).toBeUndefined();
  });
});

describe("showsSame", () => {
  const verdict = failure("verdict", "verdict", "invalid", "valid");

  it("sees the same wrong value, compared as a JSON value", () => {
    expect(showsSame([verdict], [check("verdict", "verdict", "invalid", "valid")])).toBe(true);
    expect(showsSame([verdict], [check("verdict", "verdict", "invalid", "invalid")])).toBe(false);
    expect(showsSame([verdict], [check("verdict", "verdict", "invalid", "refused: no")])).toBe(false);
  });

  it("needs the very check the mutant failed, failing", () => {
    expect(showsSame([verdict], [check("verdict", "another", "invalid", "valid")])).toBe(false);
    expect(showsSame([verdict], [])).toBe(false);
  });

  it("needs every failure of the row shown, not one of them", () => {
    const two = [verdict, failure("verdict", "runs", [], ["{}"])];
    expect(showsSame(two, [check("verdict", "verdict", "invalid", "valid"), check("verdict", "runs", [], ["{}"])])).toBe(true);
    expect(showsSame(two, [check("verdict", "verdict", "invalid", "valid"), check("verdict", "runs", [], [])])).toBe(false);
  });

  it("sees nothing when a check below the failure's level fails too: that is another failure", () => {
    const paths = failure("paths", "paths", ["$.a[1]"], ["$.a"]);
    expect(showsSame([paths], [ok("verdict", "verdict", "invalid"), check("paths", "paths", ["$.a[1]"], ["$.a"])])).toBe(true);
    expect(showsSame([paths], [check("verdict", "verdict", "invalid", "valid"), check("paths", "paths", ["$.a[1]"], ["$.a"])])).toBe(false);
    // a failing check at the same or a higher level is no obstacle
    expect(showsSame([paths], [check("paths", "paths", ["$.a[1]"], ["$.a"]), check("messages", "errors", ["x"], ["y"])])).toBe(true);
  });

  it("sees a crash as a crash, whatever was thrown", () => {
    const crash = failure("verdict", "call", "a Result", { threw: "TypeError: x" });
    expect(showsSame([crash], [check("verdict", "call", "a Result", { threw: "panic: nil map" })])).toBe(true);
    expect(showsSame([crash], [check("verdict", "call", "a Result", "something else")])).toBe(false);
    expect(showsSame([failure("verdict", "v", "valid", "invalid")], [check("verdict", "v", "valid", { threw: "x" })])).toBe(false);
  });

  it("sees a refusal as a refusal, whatever it says", () => {
    const refused = failure("verdict", "schema compiles", "compiles", "refused: unsupported keyword");
    expect(showsSame([refused], [check("verdict", "schema compiles", "compiles", "refused: nope")])).toBe(true);
    expect(showsSame([refused], [check("verdict", "schema compiles", "compiles", "crashed: refused: x")])).toBe(false);
    expect(showsSame([refused], [check("verdict", "schema compiles", "compiles", 3)])).toBe(false);
  });

  it("sees paths missing the same paths and adding the same ones, in any order", () => {
    const dropped = failure("paths", "paths", ["$.t[0]", "$.t[2]", "$.u"], ["$.t", "$.t", "$.u"]);
    expect(showsSame([dropped], [check("paths", "paths", ["$.t[0]", "$.t[2]", "$.u"], ["$.u", "$.t", "$.t"])])).toBe(true);
    // one index kept: not the same paths missing
    expect(showsSame([dropped], [check("paths", "paths", ["$.t[0]", "$.t[2]", "$.u"], ["$.t", "$.t[2]", "$.u"])])).toBe(false);
    // the same missing, another added
    expect(showsSame([dropped], [check("paths", "paths", ["$.t[0]", "$.t[2]", "$.u"], ["$.t", "$.x", "$.u"])])).toBe(false);
    const missing = failure("paths", "paths", ["$", "$", "$.d"], ["$", "$.d"]);
    expect(showsSame([missing], [check("paths", "paths", ["$", "$", "$.d"], ["$.d", "$"])])).toBe(true);
    expect(showsSame([missing], [check("paths", "paths", ["$", "$", "$.d"], ["$", "$", "$.d", "$.e"])])).toBe(false);
  });

  it("sees errors all at the root as such, however many", () => {
    const root = failure("paths", "paths", ["$", "$.a", "$.b[0]"], ["$", "$", "$"]);
    expect(showsSame([root], [check("paths", "paths", ["$", "$.a", "$.b[0]"], [""])])).toBe(true);
    expect(showsSame([root], [check("paths", "paths", ["$", "$.a", "$.b[0]"], ["$", "$"])])).toBe(true);
    expect(showsSame([root], [check("paths", "paths", ["$", "$.a", "$.b[0]"], [])])).toBe(false);
    expect(showsSame([root], [check("paths", "paths", ["$", "$.a", "$.b[0]"], ["$", "$.a"])])).toBe(false);
    // a mutant whose root errors are expected there shows no "no paths" symptom: the paths are compared as they are
    const fewer = failure("paths", "paths", ["$", "$"], ["$"]);
    expect(showsSame([fewer], [check("paths", "paths", ["$", "$"], ["$"])])).toBe(true);
    expect(showsSame([fewer], [check("paths", "paths", ["$", "$"], [""])])).toBe(false);
  });

  it("sees the right items in some other order, not only the mutant's", () => {
    const unsorted = failure("paths", "paths", ["$", "$.a", "$.b"], ["$.b", "$.a", "$"]);
    expect(showsSame([unsorted], [check("paths", "paths", ["$", "$.a", "$.b"], ["$.a", "$", "$.b"])])).toBe(true);
    expect(showsSame([unsorted], [check("paths", "paths", ["$", "$.a", "$.b"], ["$", "$.a"])])).toBe(false);
    const defs = (...names: string[]) => names.map((name) => ({ name, description: "" }));
    const mapOrder = failure("verdict", "definitions", defs("a", "b", "c"), defs("c", "a", "b"));
    expect(showsSame([mapOrder], [check("verdict", "definitions", defs("a", "b", "c"), [{ description: "", name: "b" }, { description: "", name: "a" }, { description: "", name: "c" }])])).toBe(true);
    expect(showsSame([mapOrder], [check("verdict", "definitions", defs("a", "b", "c"), defs("c", "a"))])).toBe(false);
    expect(showsSame([mapOrder], [check("verdict", "definitions", defs("a", "b", "c"), "c,a,b")])).toBe(false);
  });

  it("sees definitions in a wrong order by their names, whatever their content, and says the definitions are wrong in more ways beside it", () => {
    const defs = (...names: string[]) => names.map((name) => ({ name, description: "", parameters: { type: "object" } }));
    const rewritten = (...names: string[]) => names.map((name) => ({ name, description: "", parameters: { type: "object", $schema: "draft-07" } }));
    const mapOrder = failure("verdict", "step 4: definitions", defs("a", "b", "c"), defs("c", "a", "b"));
    const subject = (actual: unknown) => [check("verdict", "step 4: definitions", defs("a", "b", "c"), actual)];
    expect(showsSame([mapOrder], subject(rewritten("b", "a", "c")))).toBe(true);
    expect(extraWays([mapOrder], subject(rewritten("b", "a", "c")))).toEqual(["definitions"]);
    expect(extraWays([mapOrder], subject(defs("b", "a", "c")))).toEqual([]);
    // sorted names, rewritten content: no order fault; other names: none either
    expect(showsSame([mapOrder], subject(rewritten("a", "b", "c")))).toBe(false);
    expect(showsSame([mapOrder], subject(rewritten("c", "a", "x")))).toBe(false);
    // records without a name are compared whole, in a wrong order
    const unnamed = failure("verdict", "records", [{ x: 1 }, { x: 2 }], [{ x: 2 }, { x: 1 }]);
    expect(showsSame([unnamed], [check("verdict", "records", [{ x: 1 }, { x: 2 }], [{ x: 2 }, { x: 1 }])])).toBe(true);
    expect(showsSame([unnamed], [check("verdict", "records", [{ x: 1 }, { x: 2 }], [{ x: 2, name: 1 }, { x: 1 }])])).toBe(false);
    // a text expected, a list given: no list of names to reorder
    expect(showsSame([failure("verdict", "v", "ab", ["b", "a"])], [check("verdict", "v", "ab", [{ name: "b" }, { name: "a" }])])).toBe(false);
    // a list whose items are not all named is compared whole
    const mixed = failure("verdict", "names", [{ name: "a" }, "b"], ["b", { name: "a" }]);
    expect(showsSame([mixed], [check("verdict", "names", [{ name: "a" }, "b"], ["b", { name: "a", more: 1 }])])).toBe(false);
    expect(showsSame([mixed], [check("verdict", "names", [{ name: "a" }, "b"], ["b", { name: "a" }])])).toBe(true);
    // an unnamed list of the wrong items is no "content" beside a symptom
    const paths = failure("paths", "paths", ["$.a", "$.b"], ["$.b", "$.a"]);
    expect(extraWays([paths], [check("paths", "paths", ["$.a", "$.b"], ["$.b", "$.a"]), check("paths", "other", [1], [2])])).toEqual(["other"]);
    const missing = failure("paths", "paths", ["$.a", "$.b"], ["$.a"]);
    expect(extraWays([missing], [check("paths", "paths", ["$.a", "$.b"], ["$.a"])])).toEqual([]);
  });

  it("sees an outcome wrong in the same fields the same way, whatever its other fields", () => {
    const ran = failure("verdict", "outcome", { isError: true, runs: [], prefixed: true }, { isError: true, runs: ["{}"], prefixed: true });
    expect(showsSame([ran], [check("verdict", "outcome", { isError: true, runs: [], prefixed: true }, { isError: false, runs: ["{}"], prefixed: false })])).toBe(true);
    expect(showsSame([ran], [check("verdict", "outcome", { isError: true, runs: [], prefixed: true }, { isError: false, runs: [], prefixed: false })])).toBe(false);
    expect(showsSame([ran], [check("verdict", "outcome", { isError: true, runs: [], prefixed: true }, ["{}"])])).toBe(false);
    // an outcome the mutant got right in every field it gives is no symptom at all
    const none = failure("verdict", "outcome", { isError: true }, { isError: true, extra: undefined });
    expect(showsSame([none], [check("verdict", "outcome", { isError: true }, { isError: false })])).toBe(false);
  });

  it("compares any other value as JSON, object key order aside", () => {
    const record = failure("verdict", "record", "a record", { name: "a", idempotent: true });
    expect(showsSame([record], [check("verdict", "record", "a record", { idempotent: true, name: "a" })])).toBe(true);
    expect(showsSame([record], [check("verdict", "record", "a record", { idempotent: false, name: "a" })])).toBe(false);
  });
});

describe("showsSame: what is compared exactly", () => {
  it("compares a list of texts that is not a path list, nor a reordering, exactly", () => {
    const names = failure("verdict", "names", ["a", "b"], ["a", "b", "c"]);
    expect(showsSame([names], [check("verdict", "names", ["a", "b"], ["a", "b", "c"])])).toBe(true);
    expect(showsSame([names], [check("verdict", "names", ["a", "b"], ["c", "a", "b"])])).toBe(false);
  });

  it("compares a list of other values exactly, even at the paths level", () => {
    const numbers = failure("paths", "p", [1, 2, 3], [3, 1]);
    expect(showsSame([numbers], [check("paths", "p", [1, 2, 3], [3, 1])])).toBe(true);
    expect(showsSame([numbers], [check("paths", "p", [1, 2, 3], [1, 3])])).toBe(false);
    const mixed = failure("paths", "p", ["a", 1, "c"], ["c", "a"]);
    expect(showsSame([mixed], [check("paths", "p", ["a", 1, "c"], ["a", "c"])])).toBe(false);
  });

  it("compares a paths-level answer that is not a list as it is", () => {
    const none = failure("paths", "p", ["$"], "none");
    expect(showsSame([none], [check("paths", "p", ["$"], "none")])).toBe(true);
    expect(showsSame([none], [check("paths", "p", ["$"], "other")])).toBe(false);
  });

  it("takes a list answer where a text was expected as no reordering", () => {
    const listed = failure("verdict", "v", "ab", ["b", "a"]);
    expect(showsSame([listed], [check("verdict", "v", "ab", ["a", "b"])])).toBe(false);
    expect(showsSame([listed], [check("verdict", "v", "ab", ["b", "a"])])).toBe(true);
  });

  it("takes null where an outcome was expected as a value, not as an outcome", () => {
    const wrong = failure("verdict", "v", null, { a: 1 });
    expect(showsSame([wrong], [check("verdict", "v", null, { a: 1 })])).toBe(true);
    expect(showsSame([failure("verdict", "v", { a: 1 }, null)], [check("verdict", "v", { a: 1 }, null)])).toBe(true);
  });

  it("takes an object answer where a text was expected as a whole value, not as fields", () => {
    const object = failure("verdict", "v", "a Result", { x: 1 });
    expect(showsSame([object], [check("verdict", "v", "a Result", { x: 1 })])).toBe(true);
    expect(showsSame([object], [check("verdict", "v", "a Result", { x: 1, y: 2 })])).toBe(false);
  });

  it("takes a list where an outcome was expected as no outcome, and needs every wrong field shown", () => {
    const outcome = failure("verdict", "o", { 0: "b" }, { 0: "a" });
    expect(showsSame([outcome], [check("verdict", "o", { 0: "b" }, ["a"])])).toBe(false);
    const two = failure("verdict", "o", { isError: true, runs: [] }, { isError: false, runs: ["{}"] });
    expect(showsSame([two], [check("verdict", "o", { isError: true, runs: [] }, { isError: false, runs: [] })])).toBe(false);
    expect(showsSame([two], [check("verdict", "o", { isError: true, runs: [] }, { isError: false, runs: ["{}"] })])).toBe(true);
  });

  it("takes a mutant that reported no paths at all as missing them, not as putting them at the root", () => {
    const nothing = failure("paths", "expected types", ["$.a: string"], []);
    expect(showsSame([nothing], [check("paths", "expected types", ["$.a: string"], ["$: string"])])).toBe(false);
    expect(showsSame([nothing], [check("paths", "expected types", ["$.a: string"], [])])).toBe(true);
  });
});

describe("showsExactly", () => {
  const evidence = [failure("paths", "paths", ["$.a[1]"], ["$.a"]), failure("paths", "more", [1], [2])];
  it("is the same failing checks, in the same order, with the same answers", () => {
    expect(showsExactly(evidence, [ok("verdict", "v", 1), check("paths", "paths", ["$.a[1]"], ["$.a"]), check("paths", "more", [1], [2])])).toBe(true);
    expect(showsExactly(evidence, [check("paths", "paths", ["$.a[1]"], ["$.a"]), check("paths", "more", [1], [3])])).toBe(false);
    expect(showsExactly(evidence, [check("paths", "more", [1], [2]), check("paths", "paths", ["$.a[1]"], ["$.a"])])).toBe(false);
    expect(showsExactly(evidence, [check("paths", "paths", ["$.a[1]"], ["$.a"])])).toBe(false);
    expect(showsExactly(evidence, [check("paths", "paths", ["$.a[1]"], ["$.a"]), check("paths", "more", [1], [2]), check("paths", "third", 1, 2)])).toBe(false);
    expect(showsExactly(evidence, [ok("paths", "paths", ["$.a[1]"])])).toBe(false);
    // the same answers, to other checks
    expect(showsExactly(evidence, [check("paths", "other", ["$.a[1]"], ["$.a"]), check("paths", "more", [1], [2])])).toBe(false);
  });
});

describe("isReordered over several failures", () => {
  it("is true only when every failure is the right items in a wrong order", () => {
    expect(isReordered([failure("paths", "p", ["$", "$.a"], ["$.a", "$"]), failure("messages", "m", ["x", "y"], ["y", "x"])])).toBe(true);
    expect(isReordered([failure("paths", "p", ["$", "$.a"], ["$.a", "$"]), failure("messages", "m", ["x", "y"], ["y"])])).toBe(false);
    expect(isReordered([failure("verdict", "v", "valid", "invalid")])).toBe(false);
    expect(isReordered([failure("verdict", "v", ["a"], "a")])).toBe(false);
    expect(isReordered([failure("verdict", "v", "ab", ["b", "a"])])).toBe(false);
  });
});

describe("crashIn", () => {
  it("is the text of a crash answer (a throw, a panic, a death), and nothing else", () => {
    expect(crashIn({ threw: "RecursionError" })).toBe("RecursionError");
    expect(crashIn({ died: "the process exited with code 66" })).toBe("the process exited with code 66");
    expect(crashIn({ threw: "x", other: 1 })).toBeUndefined();
    expect(crashIn({ threw: 3 })).toBeUndefined();
    expect(crashIn("threw")).toBeUndefined();
    expect(crashIn(["x"])).toBeUndefined();
    expect(crashIn(null)).toBeUndefined();
  });
});

describe("faults that come together", () => {
  const accepted = failure("verdict", "step 2: register refused", "refused", "accepted");
  const listed = failure("verdict", "step 3: definitions", [{ name: "a", d: 1 }], [{ name: "a", d: 2 }]);

  it("takes the first failing step as the fault: later steps need only fail, in whatever way", () => {
    // the mutant replaces the first tool; this code shadows it and lists both
    const both = [check("verdict", "step 2: register refused", "refused", "accepted"), check("verdict", "step 3: definitions", [{ name: "a", d: 1 }], [{ name: "a", d: 1 }, { name: "a", d: 2 }])];
    expect(showsSame([accepted, listed], both)).toBe(true);
    // a later step passing is not the mutant's failure
    expect(showsSame([accepted, listed], [both[0]!, ok("verdict", "step 3: definitions", [{ name: "a", d: 1 }])])).toBe(false);
    // a later step missing is not either
    expect(showsSame([accepted, listed], [both[0]!])).toBe(false);
    // the first step must be the same sense
    expect(showsSame([accepted, listed], [check("verdict", "step 2: register refused", "refused", { threw: "x" }), both[1]!])).toBe(false);
  });

  it("sees a text of lines in another wrong order as the same order failure, and nothing else as one", () => {
    const message = failure("messages", "content", "e:\n$: a\n$: b\n$.c: d", "e:\n$.c: d\n$: a\n$: b");
    expect(showsSame([message], [check("messages", "content", message.expected, "e:\n$: b\n$.c: d\n$: a")])).toBe(true);
    expect(showsSame([message], [check("messages", "content", message.expected, "e:\n$: b\n$.c: d")])).toBe(false);
    expect(showsSame([message], [check("messages", "content", message.expected, ["e:", "$: b", "$.c: d", "$: a"])])).toBe(false);
    // a wrong text that is no reordering is compared exactly, as before
    const wrong = failure("messages", "content", "e:\n$: a", "e:\n$: x");
    expect(showsSame([wrong], [check("messages", "content", "e:\n$: a", "e:\n$: y")])).toBe(false);
    expect(showsSame([wrong], [check("messages", "content", "e:\n$: a", "e:\n$: x")])).toBe(true);
  });

  it("isReordered: lists of the right items, or texts of the right lines, in a wrong order, every failure of them", () => {
    expect(isReordered([failure("verdict", "d", [1, 2], [2, 1])])).toBe(true);
    expect(isReordered([failure("verdict", "d", [1, 2], [1, 2])])).toBe(false);
    expect(isReordered([failure("verdict", "d", [1, 2], [2])])).toBe(false);
    expect(isReordered([failure("messages", "c", "a\nb", "b\na")])).toBe(true);
    expect(isReordered([failure("messages", "c", "a\nb", "a\nb")])).toBe(false);
    expect(isReordered([failure("messages", "c", "a\nb", "b\nc")])).toBe(false);
    expect(isReordered([failure("messages", "c", "a\nb", ["b", "a"])])).toBe(false);
    expect(isReordered([failure("messages", "c", ["a", "b"], "b\na")])).toBe(false);
    expect(isReordered([failure("messages", "c", ["a", "b"], "ba")])).toBe(false);
    expect(isReordered([failure("verdict", "d", [1, 2], [2, 1]), failure("verdict", "v", "valid", "invalid")])).toBe(false);
  });
});

describe("extraWays: where code showing a symptom is wrong in more ways than the mutant", () => {
  const ran = failure("verdict", 'step 2: call "echo": outcome', { isError: true, runs: [] }, { isError: true, runs: ["x"] });

  it("names the outcome's fields the mutant had right, once, without step numbers or tool names", () => {
    const checks = [check("verdict", 'step 2: call "echo": outcome', { isError: true, runs: [] }, { isError: false, runs: ["x"] }), check("verdict", 'step 3: call "other": outcome', { isError: true, runs: [] }, { isError: false, runs: [] })];
    expect(extraWays([ran], checks)).toEqual(["call outcome: isError"]);
    expect(extraWays([ran], [checks[0]!])).toEqual(["call outcome: isError"]);
    expect(extraWays([ran], [check("verdict", 'step 2: call "echo": outcome', { isError: true, runs: [] }, { isError: true, runs: ["x"] })])).toEqual([]);
  });

  it("names a failing check the mutant passed, and one it failed another way, at the symptom's level only", () => {
    const accepted = failure("verdict", "step 2: register refused", "refused", "accepted");
    const checks = [
      check("verdict", "step 2: register refused", "refused", "accepted"),
      check("verdict", "step 6: definitions", [1], [1, 2]),
      check("verdict", "step 7: names", ["a"], ["a", "a"]),
      check("messages", "step 8: content", "a", "b"),
      ok("verdict", "step 9: names", ["a"]),
    ];
    expect(extraWays([accepted], checks)).toEqual(["definitions", "names"]);
    const listed = failure("verdict", "step 6: definitions", [1], [2]);
    expect(extraWays([accepted, listed], checks)).toEqual(["definitions", "names"]);
    expect(extraWays([accepted, failure("verdict", "step 6: definitions", [1], [1, 2])], checks)).toEqual(["names"]);
  });
});

describe("extraWays: names", () => {
  it("strips only a leading step number and a leading call's tool name, and reads an outcome only when both sides are records", () => {
    const v = failure("verdict", "v", "invalid", "valid");
    expect(extraWays([v], [check("verdict", "v", "invalid", "valid"), check("verdict", 'x step 2: call "t": y', 1, 2)])).toEqual(['x step 2: call "t": y']);
    expect(extraWays([v], [check("verdict", "v", "invalid", "valid"), check("verdict", "outcome", { a: 1 }, "boom")])).toEqual(["outcome"]);
    expect(extraWays([v], [check("verdict", "v", "invalid", "valid"), check("verdict", "step 2.14: names", ["a"], ["b"])])).toEqual(["names"]);
  });
});

describe("isRunOnText", () => {
  const ran = (runs: unknown, more: Record<string, unknown> = {}): Failure => ({ level: "verdict", what: "outcome", expected: { isError: true, runs: [] }, actual: { isError: true, runs, ...more } });
  it("is a tool run on text that is not JSON, and nothing else wrong", () => {
    expect(isRunOnText([ran(['{"x": "unter'])])).toBe(true);
    expect(isRunOnText([ran(["city=Paris", "{,}"])])).toBe(true);
  });
  it("is not a run on JSON, a run beside another wrong field, no run, or no failure", () => {
    expect(isRunOnText([ran(['{"x": 1}'])])).toBe(false);
    expect(isRunOnText([ran(["city=Paris", "{}"])])).toBe(false);
    expect(isRunOnText([ran(["city=Paris"], { isError: false })])).toBe(false);
    expect(isRunOnText([ran([])])).toBe(false);
    expect(isRunOnText([ran("city=Paris")])).toBe(false);
    expect(isRunOnText([ran([7])])).toBe(false);
    expect(isRunOnText([{ level: "verdict", what: "verdict", expected: "valid", actual: "invalid" }])).toBe(false);
    expect(isRunOnText([])).toBe(false);
    // every failure must be one: a run on text beside a wrong verdict is not
    expect(isRunOnText([ran(["city=Paris"]), { level: "verdict", what: "verdict", expected: "valid", actual: "invalid" }])).toBe(false);
    // an outcome only where both sides are records
    expect(isRunOnText([{ level: "verdict", what: "outcome", expected: "x", actual: { runs: ["a=b"] } }])).toBe(false);
    // runs wrong, and a field after it too
    expect(isRunOnText([{ level: "verdict", what: "outcome", expected: { runs: [], isError: true }, actual: { runs: ["a=b"], isError: false } }])).toBe(false);
    // runs as expected, another field wrong
    expect(isRunOnText([{ level: "verdict", what: "outcome", expected: { isError: true, runs: ["a=b"] }, actual: { isError: false, runs: ["a=b"] } }])).toBe(false);
    // a tool that should have run and did not
    expect(isRunOnText([{ level: "verdict", what: "outcome", expected: { runs: ["a=b"] }, actual: { runs: [] } }])).toBe(false);
    expect(isRunOnText([ran([{}])])).toBe(false);
  });
});

describe("a tool that ran where it should not have", () => {
  const expected = { isError: true, prefixed: true, runs: [] as string[] };
  const mutant: Failure[] = [{ level: "verdict", what: "outcome", expected, actual: { isError: true, prefixed: true, runs: ['{"id": "7"}'] } }];
  const subject = (actual: Record<string, unknown>): Check[] => [{ level: "verdict", tier: "core", what: "outcome", expected, actual, pass: false }];
  it("shows the symptom whatever the arguments' bytes it was given (a registry that parses them passes them re-written)", () => {
    expect(showsSame(mutant, subject({ isError: false, prefixed: false, runs: ['{"id":"7"}'] }))).toBe(true);
  });
  it("does not when the tool did not run, or ran where the mutant ran it on other arguments than it should", () => {
    expect(showsSame(mutant, subject({ isError: false, prefixed: false, runs: [] }))).toBe(false);
    const shouldRun: Failure[] = [{ level: "verdict", what: "outcome", expected: { prefixed: false, runs: ['{"a":1}'] }, actual: { prefixed: false, runs: ['{"a":2}'] } }];
    expect(showsSame(shouldRun, [{ level: "verdict", tier: "core", what: "outcome", expected: { prefixed: false, runs: ['{"a":1}'] }, actual: { prefixed: false, runs: ['{"a":3}'] }, pass: false }])).toBe(false);
    const notAList: Failure[] = [{ level: "verdict", what: "outcome", expected: { prefixed: true, runs: [] }, actual: { prefixed: true, runs: "x" } }];
    expect(showsSame(notAList, [{ level: "verdict", tier: "core", what: "outcome", expected: { prefixed: true, runs: [] }, actual: { prefixed: true, runs: ["y"] }, pass: false }])).toBe(false);
    // the tool-ran rule is for a call's outcome only: another record's empty list (content missing nothing) is compared as it is
    const content: Failure[] = [{ level: "paths", what: "content", expected: { missing: [], present: [] }, actual: { missing: ["city"], present: [] } }];
    const contentCheck = (missing: string[]): Check[] => [{ level: "paths", tier: "core", what: "content", expected: { missing: [], present: [] }, actual: { missing, present: [] }, pass: false }];
    expect(showsSame(content, contentCheck(["days"]))).toBe(false);
    expect(showsSame(content, contentCheck(["city"]))).toBe(true);
  });
});

describe("a call's outcome: what happened first, then how it was told", () => {
  const outcome = (expected: Record<string, unknown>, actual: Record<string, unknown>): Check => ({ level: "verdict", tier: "core", what: "outcome", expected, actual, pass: false });
  const fails = (expected: Record<string, unknown>, actual: Record<string, unknown>): Failure[] => [{ level: "verdict", what: "outcome", expected, actual }];

  it("a mutant wrong in what ran is shown by a subject whose tools ran the same way, however it told it", () => {
    // empty arguments refused: the tool should have run on {} and did not
    const expected = { isError: false, prefixed: false, consistent: true, runs: ["{}"], otherToolsRan: [] };
    const mutant = fails(expected, { ...expected, isError: true, prefixed: true, runs: [] });
    expect(showsSame(mutant, [outcome(expected, { ...expected, runs: [] })])).toBe(true);
    expect(showsSame(mutant, [outcome(expected, { ...expected, isError: true, prefixed: true, runs: [] })])).toBe(true);
    expect(showsSame(mutant, [outcome(expected, { ...expected, runs: [""] })])).toBe(false);
    // another tool ran: that too is what happened
    const other = fails(expected, { ...expected, otherToolsRan: ["b"] });
    expect(showsSame(other, [outcome(expected, { ...expected, isError: true, otherToolsRan: ["b"] })])).toBe(true);
    expect(showsSame(other, [outcome(expected, { ...expected, otherToolsRan: ["c"] })])).toBe(false);
  });

  it("a mutant wrong only in the telling is shown where the subject's telling goes wrong as the mutant's first does, its tools run right", () => {
    // a failure without the prefix (and so its message and result disagree)
    const expected = { isError: true, prefixed: true, answers: true, consistent: true, runs: [], otherToolsRan: [] };
    const mutant = fails(expected, { ...expected, prefixed: false, consistent: false });
    // told as a success, without the prefix: the model reads it as data all the same
    expect(showsSame(mutant, [outcome(expected, { ...expected, isError: false, prefixed: false })])).toBe(true);
    expect(showsSame(mutant, [outcome(expected, { ...expected, prefixed: false, consistent: false })])).toBe(true);
    // prefixed after all, wrong elsewhere: another failure
    expect(showsSame(mutant, [outcome(expected, { ...expected, prefixed: true, consistent: false })])).toBe(false);
    // without the prefix because the tool ran and answered: that is what happened, not how it was told
    expect(showsSame(mutant, [outcome(expected, { ...expected, isError: false, prefixed: false, runs: ["{}"] })])).toBe(false);
    expect(showsSame(mutant, [outcome(expected, { ...expected, isError: false, prefixed: false, otherToolsRan: ["b"] })])).toBe(false);
    // the verdict comes before the prefix
    const verdict = fails(expected, { ...expected, isError: false, prefixed: false });
    expect(showsSame(verdict, [outcome(expected, { ...expected, isError: false, prefixed: true })])).toBe(true);
    expect(showsSame(verdict, [outcome(expected, { ...expected, isError: true, prefixed: false })])).toBe(false);
    // a reply to another call is told after the prefix
    const answers = fails(expected, { ...expected, answers: false, consistent: false });
    expect(showsSame(answers, [outcome(expected, { ...expected, answers: false })])).toBe(true);
    expect(showsSame(answers, [outcome(expected, { ...expected, consistent: false })])).toBe(false);
    // an outcome right in every field is no symptom
    expect(showsSame(fails(expected, { ...expected }), [outcome(expected, { ...expected, prefixed: false })])).toBe(false);
  });
});

describe("where a symptom could not show", () => {
  const expected = { isError: true, prefixed: true, consistent: true, runs: [] as string[], otherToolsRan: [] as string[] };
  const fail = (what: string, actual: Record<string, unknown>, exp: Record<string, unknown> = expected): Failure => ({ level: "verdict", what, expected: exp, actual: { ...exp, ...actual } });
  const answer = (what: string, actual: unknown): Check => ({ level: "verdict", tier: "core", what, expected, actual, pass: false });

  it("ranNoneThere: the subject's check of that call is an outcome whose tools ran as expected, on every call", () => {
    const ran = [fail("s2", { runs: ["a=b"] })];
    expect(ranNoneThere(ran, [answer("s2", { ...expected, isError: false })])).toBe(true);
    expect(ranNoneThere(ran, [answer("s2", { ...expected, runs: ["a=b"] })])).toBe(false);
    expect(ranNoneThere(ran, [answer("s1", expected)])).toBe(false);
    expect(ranNoneThere(ran, [answer("s2", null)])).toBe(false);
    expect(ranNoneThere(ran, [answer("s2", { threw: "boom" })])).toBe(false);
  });

  it("isToldOnly: every failure is a call outcome wrong only in its telling", () => {
    const told = fail("s2", { prefixed: false });
    expect(isToldOnly([told])).toBe(true);
    expect(isToldOnly([told, fail("s3", { runs: ["x"] })])).toBe(false);
    expect(isToldOnly([told, fail("s3", { otherToolsRan: ["b"] })])).toBe(false);
    expect(isToldOnly([{ level: "verdict", what: "v", expected: "invalid", actual: "valid" }])).toBe(false);
    expect(isToldOnly([{ level: "verdict", what: "o", expected: { isError: true }, actual: { isError: false } }])).toBe(false);
    expect(isToldOnly([{ level: "verdict", what: "o", expected, actual: "refused: x" }])).toBe(false);
  });

  it("ranOtherwise: on some call, the subject's tools ran otherwise than they should (re-written arguments are the same run)", () => {
    const told = [fail("s2", { prefixed: false }), fail("s3", { prefixed: false })];
    expect(ranOtherwise(told, [answer("s2", expected), answer("s3", { ...expected, runs: ["{}"] })])).toBe(true);
    expect(ranOtherwise(told, [answer("s2", expected), answer("s3", expected)])).toBe(false);
    // the check of that very call, not another's
    expect(ranOtherwise([told[1]!], [answer("s2", { ...expected, runs: ["{}"] }), answer("s3", expected)])).toBe(false);
    expect(ranOtherwise(told, [answer("s2", null)])).toBe(false);
    const oneRun = { ...expected, runs: ['{"id": 7}'] };
    expect(ranOtherwise([fail("s2", { prefixed: false }, oneRun)], [answer("s2", { ...oneRun, runs: ['{"id":7}'] })])).toBe(false);
    expect(ranOtherwise([fail("s2", { prefixed: false }, oneRun)], [answer("s2", { ...oneRun, runs: [] })])).toBe(true);
    expect(ranOtherwise([fail("s2", { prefixed: false }, oneRun)], [answer("s2", { ...oneRun, runs: ["a", "b"] })])).toBe(true);
  });

  it("a mutant wrong in several things that happened needs each shown; one wrong only in the last of its telling needs that one", () => {
    const both = [fail("o", { runs: ["x"], otherToolsRan: ["b"] })];
    expect(showsSame(both, [answer("o", { ...expected, runs: ["x"] })])).toBe(false);
    expect(showsSame(both, [answer("o", { ...expected, runs: ["y"], otherToolsRan: ["b"] })])).toBe(true);
    const inconsistent = [fail("o", { consistent: false })];
    expect(showsSame(inconsistent, [answer("o", { ...expected, consistent: false })])).toBe(true);
    expect(showsSame(inconsistent, [answer("o", { ...expected, prefixed: false })])).toBe(false);
    // an outcome with no runs recorded (a call inside a batch) is told apart all the same
    const noRuns = { isError: true, prefixed: true };
    const unprefixed = [{ level: "verdict" as const, what: "o", expected: noRuns, actual: { ...noRuns, prefixed: false } }];
    expect(showsSame(unprefixed, [{ ...answer("o", { ...noRuns, prefixed: false }), expected: noRuns }])).toBe(true);
    expect(showsSame(unprefixed, [{ ...answer("o", { ...noRuns, prefixed: false, runs: ["x"] }), expected: noRuns }])).toBe(false);
  });
});

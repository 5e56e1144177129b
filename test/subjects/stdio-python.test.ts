import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadCorpus, PACKAGE_ROOT } from "../../src/corpus/load.js";
import { statusOf, type Status } from "../../src/run/outcome.js";
import { runRow } from "../../src/run/run-row.js";
import { appliesTo, type Row } from "../../src/corpus/rows.js";
import { stdioSubject } from "../../src/subjects/stdio.js";
import type { Session } from "../../src/subjects/subject.js";

// The cross-language path, proven: a small Python implementation of the contract
// (test/fixtures/python-impl/toolreg.py) behind the Python adapter template
// (conformance/adapters/python/adapter.py), scored over stdio on the whole ag02 corpus.
// It passes every core row at the `paths` level but one, and fails a few hardening rows;
// what it fails, and why, is data here: a new failure or a new pass fails this test.

const COMMAND = `python3 ${join(PACKAGE_ROOT, "conformance/adapters/python/adapter.py")} ${join(PACKAGE_ROOT, "test/fixtures/python-impl/toolreg.py")}`;

/** Core rows it fails at the paths level. */
const CORE_FAILURES: Record<string, string> = {
  "validate/pattern/dollar-not-before-final-newline": "Python's re: $ also matches before a final newline (RE2 and ECMA-262 do not)",
};

/**
 * Hardening rows it does not pass at the paths level, by rule: the corpus keeps growing, so a new
 * row of one of these kinds may join them; a failure of any other kind fails this test.
 */
const HARDENING_RULES_FAILED: Record<string, string> = {
  "pattern/re2-only": "Python's re accepts lookaround and backreferences, RE2 refuses them",
  "pattern/re2": "Python's \\s, \\d, \\w are Unicode-aware and it has no \\p{L}; RE2's classes are ASCII",
  "pattern/linear-time": "Python's re backtracks: the subject hangs on that row and is stopped (errored)",
  "json/surrogate": "the json module accepts lone surrogates",
  "json/depth": "the json module's recursion limit refuses 1000 levels of nesting",
};

const rows = loadCorpus().filter((row) => appliesTo(row, "ag02"));
let session: Session;
const outcomes = new Map<string, { row: Row; status: Status; why?: string }>();

beforeAll(async () => {
  // 1.5 s per request: the catastrophic-backtracking row hangs until it and is restarted
  session = await stdioSubject(COMMAND, { timeoutMs: 1500 }).open("ag02");
  for (const row of rows) {
    try {
      const checks = await runRow(row, session.send, "ag02");
      const status = statusOf(checks, { level: "paths", tiers: ["core", "catalog", "hardening"] });
      const failure = checks.find((c) => !c.pass && c.level !== "messages");
      outcomes.set(row.id, { row, status, why: failure && `${failure.what}: expected ${JSON.stringify(failure.expected)}, got ${JSON.stringify(failure.actual)}` });
    } catch (error) {
      outcomes.set(row.id, { row, status: "errored", why: (error as Error).message });
      await session.recover();
    }
  }
}, 60_000);

afterAll(async () => session?.close());

describe("the Python fixture over stdio (paths level, profile ag02)", () => {
  it("says who it is", () => {
    expect(session.hello).toMatchObject({ implementation: { name: "toolreg-py", language: "python" }, profiles: ["ag02"] });
  });

  it("passes every core row but the ones listed, and fails each listed one", () => {
    const failing = [...outcomes].filter(([, o]) => o.row.tier === "core" && o.status !== "passed");
    expect(Object.fromEntries(failing.map(([id, o]) => [id, o.why]))).toEqual(
      Object.fromEntries(Object.keys(CORE_FAILURES).map((id) => [id, expect.any(String)])),
    );
  });

  it("passes every catalog row at the paths level", () => {
    const failing = [...outcomes].filter(([, o]) => o.row.tier === "catalog" && o.status !== "passed");
    expect(failing.map(([id, o]) => `${id}: ${o.why}`)).toEqual([]);
  });

  it("fails only hardening rows of the listed kinds, and rows of each kind", () => {
    const failing = [...outcomes.values()].filter((o) => o.row.tier === "hardening" && o.status !== "passed");
    expect(failing.filter((o) => !(o.row.rule in HARDENING_RULES_FAILED)).map((o) => `${o.row.id} (${o.row.rule}): ${o.why}`)).toEqual([]);
    expect(new Set(failing.map((o) => o.row.rule))).toEqual(new Set(Object.keys(HARDENING_RULES_FAILED)));
    expect(outcomes.get("validate/hardening/re2-no-catastrophic-backtracking")?.status).toBe("errored");
  });

  it("scores at least 99% of the core rows", () => {
    const core = [...outcomes.values()].filter((o) => o.row.tier === "core");
    const passed = core.filter((o) => o.status === "passed").length;
    expect(passed / core.length).toBeGreaterThanOrEqual(0.99);
  });
});

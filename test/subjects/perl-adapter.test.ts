import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../src/corpus/load.js";
import { score, type Report } from "../../src/harness/index.js";
import { needs } from "../helpers/machine.mjs";

// A language with no template: a Perl 5 implementation of the seed (test/fixtures/perl-impl/Tool/,
// core modules only) behind an adapter written from conformance/PROTOCOL.md alone, scored over
// stdio on every tier. It offers validate and registry, not concurrency. What it fails beyond the
// wording of messages is data here, each checked by hand against the seed: a new failure or a new
// pass fails this test.

const COMMAND = `perl ${join(PACKAGE_ROOT, "test/fixtures/perl-impl/adapter.pl")}`;
const perl = needs("perl");

/** Rows it fails at the paths level, and the Perl code's mistake behind each. */
const PATHS_FAILURES: Record<string, string> = {
  "compile/json/duplicate-key": "JSON::PP keeps the last of two equal keys",
  "compile/pattern/lookahead": "Perl's regex accepts lookahead, RE2 refuses it",
  "compile/pattern/backreference": "Perl's regex accepts backreferences, RE2 refuses them",
  "compile/pattern/lookbehind": "Perl's regex accepts lookbehind, RE2 refuses it",
  "register/parameters/no-type": "Register lets a schema without a top-level type through",
  "register/parameters/properties-without-type": "the same: properties alone are taken for an object schema",
  "validate/differences/duplicate-key-hides-violation": "JSON::PP keeps the last of two equal keys",
  "validate/hardening/duplicate-key": "JSON::PP keeps the last of two equal keys",
  "validate/hardening/duplicate-key-nested": "JSON::PP keeps the last of two equal keys",
  "validate/hardening/duplicate-key-escaped": "JSON::PP keeps the last of two equal keys",
  "validate/hardening/duplicate-key-bypass": "JSON::PP keeps the last of two equal keys",
  "validate/hardening/huge-exponent": "Math::BigFloat expands 1e1000000000 and never answers",
  "validate/hardening/nesting-1000-ok": "JSON::PP's default max_depth (512) refuses 1000 levels",
  "validate/hardening/re2-space-class-vertical-tab": "Perl's \\s matches a vertical tab even under /a; RE2's does not",
};

/** Rows passed at the messages level over every tier, as measured: a floor, the wording being the implementation's own. */
const MESSAGES_PASSED_AT_LEAST = 503;

let report: Report;

describe.skipIf(perl.lacking)(`the Perl fixture over stdio, every tier ${perl.tag}`, () => {
  beforeAll(async () => {
    // 2 s per request: the one row it hangs on costs that, not the default 5 s
    report = await score({ command: COMMAND }, { tiers: ["core", "catalog", "hardening", "extension"], timeoutMs: 2000, diagnosis: false, progress: false });
  }, 30_000);

  it("says who it is and offers validate and registry only", () => {
    expect(report.header.subject.implementation).toMatchObject({ name: "toolreg-perl", language: "perl" });
    expect([...(report.header.subject.capabilities ?? [])].sort()).toEqual(["registry", "validate"]);
  });

  it("has no errored row: every answer kept the protocol", () => {
    expect(report.rows.filter((row) => row.status === "errored").map((row) => `${row.id}: ${row.error}`)).toEqual([]);
    expect(report.summary.scores.total.errored).toBe(0);
  });

  it("the concurrency rows are not answerable, naming the capability, and only they are skipped", () => {
    const skipped = report.rows.filter((row) => row.status === "skipped");
    expect(skipped.length).toBeGreaterThanOrEqual(5);
    for (const row of skipped) {
      expect(row.id).toMatch(/^call\/concurrent\//);
      expect(row.error).toBe('the subject does not offer the "concurrency" capability');
    }
    const concurrent = report.rows.filter((row) => row.id.startsWith("call/concurrent/"));
    expect(concurrent.filter((row) => row.status !== "skipped").map((row) => row.id)).toEqual([]);
  });

  it("passes every core row it is sent", () => {
    const core = report.rows.filter((row) => row.tier === "core" && row.status !== "skipped");
    expect(core.filter((row) => row.checks.some((check) => check.tier === "core" && !check.pass)).map((row) => row.id)).toEqual([]);
  });

  it("fails at the paths level exactly the rows listed", () => {
    const failing = report.rows.filter((row) => row.status === "failed" && row.levels.paths === "failed").map((row) => row.id);
    expect(failing.sort()).toEqual(Object.keys(PATHS_FAILURES).sort());
    expect(report.rows.find((row) => row.id === "validate/hardening/huge-exponent")?.checks[0]?.actual).toMatchObject({ hung: expect.any(String) });
  });

  it("passes at least as many rows at the messages level as measured", () => {
    expect(report.summary.scores.total.passed, report.rows.filter((row) => row.status === "failed").map((row) => row.id).join(" ")).toBeGreaterThanOrEqual(MESSAGES_PASSED_AT_LEAST);
    expect(report.summary.scores.total.rows).toBe(report.rows.length);
  });
});

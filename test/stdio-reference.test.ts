import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { loadCorpus, PACKAGE_ROOT } from "../src/harness/corpus.js";
import { statusOf } from "../src/harness/outcome.js";
import { runRow } from "../src/harness/run-row.js";
import { appliesTo, PROFILES, TIERS } from "../src/harness/rows.js";
import { stdioSubject } from "../src/harness/subjects/stdio.js";

// The protocol end to end against the oracle: `tool-conformance adapter` (the built CLI) is
// spawned and every corpus row goes through it over stdio, in each profile, at the strictest
// level and every tier. Then `smoke` is run the way a student would run it.

const MAIN = join(PACKAGE_ROOT, "dist", "cli", "main.js");
const ADAPTER = `node ${MAIN} adapter`;
const rows = loadCorpus();
const strictest = { level: "messages", tiers: [...TIERS] } as const;

beforeAll(() => {
  if (!existsSync(MAIN)) throw new Error("this test runs the built CLI: run npm run build first");
});

describe("the reference served by `tool-conformance adapter`", () => {
  for (const profile of PROFILES) {
    it(`passes every ${profile} row of the corpus over stdio`, async () => {
      const session = await stdioSubject(ADAPTER).open(profile);
      expect(session.hello.implementation).toEqual({ name: "reference", language: "typescript", version: "0.1.0" });
      const failures: unknown[] = [];
      try {
        for (const row of rows.filter((r) => appliesTo(r, profile))) {
          const checks = await runRow(row, session.send, profile).catch((error: Error) => error);
          if (checks instanceof Error) failures.push({ id: row.id, errored: checks.message });
          else if (statusOf(checks, { ...strictest, tiers: [...strictest.tiers] }) !== "passed") failures.push({ id: row.id, failure: checks.find((c) => !c.pass) });
        }
      } finally {
        await session.close();
      }
      expect(failures).toEqual([]);
    });
  }
});

describe("tool-conformance smoke", () => {
  const smoke = (...args: string[]) => spawnSync("node", [MAIN, "smoke", ...args], { encoding: "utf8", timeout: 20_000 });

  it("passes the reference adapter (exit 0), one line per step", () => {
    const run = smoke("--subject", ADAPTER);
    expect(run.stderr).toBe("");
    expect(run.stdout).toMatch(/^ok {4}start {5}reference 0\.1\.0 \(typescript\), protocol 1, profiles ag02, lesson, pointer, capabilities validate, registry, concurrency, records$/m);
    for (const step of ["compile", "validate", "registry", "parallel"]) expect(run.stdout).toMatch(new RegExp(`^ok {4}${step}`, "m"));
    expect(run.stdout).toMatch(/^smoke: ok: the subject speaks protocol 1 \(\d+ ms\)$/m);
    expect(run.status).toBe(0);
  });

  it("says a subject could not start (exit 3), with the shell's words", () => {
    const run = smoke("--subject", "no-such-adapter-command");
    expect(run.stdout).toMatch(/^FAIL {2}start {5}could not start "no-such-adapter-command": the process exited with code 127/m);
    expect(run.stdout).toMatch(/not found/);
    expect(run.status).toBe(3);
  });

  it("says precisely which step answered wrongly (exit 1), and shows the stderr", () => {
    const subject = `node ${join(PACKAGE_ROOT, "test/fixtures/bad-subjects/nonjson.mjs")}`;
    const run = spawnSync("node", [MAIN, "smoke", "--subject", subject, "--timeout", "1000"], {
      encoding: "utf8",
      timeout: 20_000,
      env: { ...process.env, FAULT_ON: '"cmd":"validate"' },
    });
    expect(run.stdout).toMatch(/^ok {4}compile/m);
    expect(run.stdout).toMatch(/^FAIL {2}validate {2}the reply to "validate" \(seq 3\) is not JSON: "debug: validating now\.\.\."$/m);
    expect(run.stdout).toMatch(/^ {6}\| spoiling seq 3$/m);
    expect(run.stdout).toMatch(/^smoke: the subject answered wrongly/m);
    expect(run.status).toBe(1);
  });

  it("exits 1 when the subject keeps the protocol and answers wrongly (warn lines), as its help says", () => {
    // answers every validate "valid": the example's errors are missing
    const run = smoke("--subject", `node ${join(PACKAGE_ROOT, "test/fixtures/hostile/slow.mjs")} smoke-token 0`);
    expect(run.stdout).toMatch(/^warn {2}validate /m);
    expect(run.stdout).toMatch(/^smoke: the subject speaks protocol 1 and answered wrongly: see warn above, and run score for the details \(exit 1, \d+ ms\)$/m);
    expect(run.status).toBe(1);
    expect(smoke("--help").stdout.replace(/\s+/g, " ")).toContain("1 it answered wrongly: a broken reply (FAIL) or an answer the spec does not give (warn)");
  });

  it("shows a subject's stderr with its control characters escaped: a subject cannot clear the screen", () => {
    const run = smoke("--subject", `printf '\\033[2Jcleared\\007\\n' >&2; exit 1`);
    expect(run.status).toBe(3);
    expect(run.stdout).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/);
    expect(run.stdout).toContain("\\u001b[2Jcleared");
  });

  it("refuses a profile the subject does not offer (exit 3)", () => {
    const python = `python3 ${join(PACKAGE_ROOT, "conformance/adapters/python/adapter.py")} ${join(PACKAGE_ROOT, "test/fixtures/python-impl/toolreg.py")}`;
    const run = smoke("--subject", python, "--profile", "lesson");
    expect(run.stdout).toMatch(/does not support the lesson profile \(it supports: ag02\)/);
    expect(run.status).toBe(3);
  });
});

import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { loadCorpus, PACKAGE_ROOT } from "../../src/corpus/load.js";
import { statusOf } from "../../src/run/outcome.js";
import { runRow } from "../../src/run/run-row.js";
import { appliesTo, PROFILES, TIERS } from "../../src/corpus/rows.js";
import { stdioSubject } from "../../src/subjects/stdio.js";

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

describe("a definitions reply without description (a Go ToolDef tagged omitempty)", () => {
  const OMITEMPTY = join(PACKAGE_ROOT, "test/fixtures/bad-subjects/omitempty.mjs");

  it("is what the fixture writes on the wire, alone and inside concurrently", () => {
    const lines = [
      { seq: 1, cmd: "start", version: 1, profile: "ag02" },
      { seq: 2, cmd: "register", tool: { name: "quiet", description: "", parameters: null, behavior: { kind: "echo" } } },
      { seq: 3, cmd: "definitions" },
      { seq: 4, cmd: "concurrently", requests: [{ cmd: "definitions" }] },
      { seq: 5, cmd: "stop" },
    ];
    const run = spawnSync("node", [OMITEMPTY], { input: lines.map((line) => JSON.stringify(line)).join("\n") + "\n", encoding: "utf8", timeout: 10_000 });
    const replies = run.stdout.trim().split("\n").map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(replies[2]).toEqual({ seq: 3, definitions: [{ name: "quiet", parameters: { type: "object" } }] });
    expect(replies[3]).toEqual({ seq: 4, replies: [{ definitions: [{ name: "quiet", parameters: { type: "object" } }] }], runs: {} });
  });

  it("means the empty string: every row with a definitions step passes, in each profile", async () => {
    for (const profile of PROFILES) {
      const session = await stdioSubject(`node ${OMITEMPTY}`).open(profile);
      const failures: unknown[] = [];
      try {
        await session.send({ cmd: "registry" });
        await session.send({ cmd: "register", tool: { name: "quiet", description: "", parameters: null, behavior: { kind: "echo" } } });
        expect(await session.send({ cmd: "definitions" })).toEqual({ definitions: [{ name: "quiet", description: "", parameters: { type: "object" } }] });
        expect(await session.send({ cmd: "concurrently", requests: [{ cmd: "definitions" }] })).toEqual({ replies: [{ definitions: [{ name: "quiet", description: "", parameters: { type: "object" } }] }], runs: {} });
        const defining = rows.filter((r) => appliesTo(r, profile) && JSON.stringify(r).includes('"op":"definitions"'));
        expect(defining.some((r) => JSON.stringify(r).includes('"description":""')), profile).toBe(true);
        for (const row of defining) {
          const checks = await runRow(row, session.send, profile).catch((error: Error) => error);
          if (checks instanceof Error) failures.push({ id: row.id, errored: checks.message });
          else if (statusOf(checks, { ...strictest, tiers: [...strictest.tiers] }) !== "passed") failures.push({ id: row.id, failure: checks.find((c) => !c.pass) });
        }
      } finally {
        await session.close();
      }
      expect(failures, profile).toEqual([]);
    }
  });
});

describe("tool-conformance smoke", () => {
  const smoke = (...args: string[]) => spawnSync("node", [MAIN, "smoke", ...args], { encoding: "utf8", timeout: 20_000 });

  it("passes the reference adapter (exit 0), one line per step", () => {
    const run = smoke("--subject", ADAPTER);
    expect(run.stderr).toBe("");
    expect(run.stdout).toMatch(/^ok {4}start {5}reference 0\.1\.0 \(typescript\), protocol 1, profiles ag02, lesson, pointer, capabilities validate, registry, concurrency, records$/m);
    for (const step of ["compile", "validate", "names", "definitions", "registry", "parallel"]) expect(run.stdout).toMatch(new RegExp(`^ok {4}${step}`, "m"));
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

  it("sends names and definitions: an adapter that forgot to await them (promises, written {}) FAILs on names, saying what it sent (exit 1)", () => {
    const run = smoke("--subject", `node ${join(PACKAGE_ROOT, "test/fixtures/bad-subjects/unawaited.mjs")}`);
    expect(run.stdout).toMatch(/^ok {4}validate/m);
    expect(run.stdout).toMatch(/^FAIL {2}names {5}the reply to "names" \(seq \d+\) breaks the protocol: \$\.names: expected array, got object: \{\}$/m);
    expect(run.stdout).not.toMatch(/^smoke: ok/m);
    expect(run.status).toBe(1);
  });

  it("holds each reply to its command's schema: a definitions reply that is not a list FAILs on definitions (exit 1)", () => {
    const run = spawnSync("node", [MAIN, "smoke", "--subject", `node ${join(PACKAGE_ROOT, "test/fixtures/bad-subjects/answers.mjs")}`], {
      encoding: "utf8",
      timeout: 20_000,
      env: { ...process.env, FAULT_ON: '"cmd":"definitions"', REPLY: '{"definitions":{}}' },
    });
    expect(run.stdout).toMatch(/^ok {4}names/m);
    expect(run.stdout).toMatch(/^FAIL {2}definitions the reply to "definitions" \(seq \d+\) breaks the protocol: \$\.definitions: expected array, got object: \{\}$/m);
    expect(run.status).toBe(1);
  });

  it("holds each reply inside concurrently to its own command's schema, naming which (exit 1)", () => {
    const run = spawnSync("node", [MAIN, "smoke", "--subject", `node ${join(PACKAGE_ROOT, "test/fixtures/bad-subjects/answers.mjs")}`], {
      encoding: "utf8",
      timeout: 20_000,
      env: { ...process.env, FAULT_ON: '"cmd":"concurrently"', REPLY: JSON.stringify({ replies: [{ ok: true }, {}, {}, { names: {} }, { definitions: [] }], runs: {} }) },
    });
    expect(run.stdout).toMatch(/^ok {4}registry/m);
    const fail = run.stdout.split("\n").find((line) => line.startsWith("FAIL  parallel  "));
    expect(fail).toMatch(/^FAIL {2}parallel {2}the reply to "concurrently" breaks the protocol: reply 1 \(call\) \$: does not match any schema in anyOf: \{"ok":true\}; /);
    expect(fail).toContain("reply 4 (names) $.names: expected array, got object: {}");
    expect(fail).not.toContain("reply 5");
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

import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadCorpus, PACKAGE_ROOT } from "../../src/corpus/load.js";
import { statusOf } from "../../src/run/outcome.js";
import { runRow } from "../../src/run/run-row.js";
import type { Row, ValidateRow } from "../../src/corpus/rows.js";
import { runRows } from "../../src/run/runner.js";
import { stdioSubject, type StdioOptions } from "../../src/subjects/stdio.js";
import { SubjectError } from "../../src/subjects/subject.js";

// Deliberately bad subjects (test/fixtures/bad-subjects/): each is the reference over stdio
// except on the rows marked FAULT, which it spoils in its own way. For each: the run ends
// within its timeouts, every spoiled row is errored with its cause, every other row passes
// (after a restart where one was needed), and no process is left behind.

const FIXTURES = join(PACKAGE_ROOT, "test", "fixtures", "bad-subjects");
const TIMEOUT_MS = 500;
const strict = { level: "messages", tiers: ["core", "catalog", "hardening"] } as const;

/** A row the bad subjects spoil: its instance text carries the marker. */
function spoiled(n: number): ValidateRow {
  return {
    id: `validate/fault/${n}`,
    section: "TestValidateTable",
    kind: "validate",
    rule: "fault",
    tier: "core",
    pitfalls: [],
    why: "a row the bad subject spoils on purpose",
    schema: { type: "string" },
    instance: JSON.stringify(`FAULT ${n}`),
    expect: { errors: [] },
  };
}

// good rows of every kind (validate, compile, registry with calls), with two spoiled rows among them
const corpus = loadCorpus();
const pick = (...ids: string[]) => ids.map((id) => corpus.find((row) => row.id === id)!);
const good = pick(
  "example/validate/four-errors",
  "compile/unsupported/format/in-properties",
  "example/registry/four-errors-then-corrected",
  "validate/type/integer-3.0",
  "call/panic/registry-survives",
  "definitions/sorted/reverse-registration",
);
const rows: Row[] = [good[0]!, good[1]!, spoiled(1), good[2]!, good[3]!, spoiled(2), good[4]!, good[5]!];

interface Outcome {
  id: string;
  status: string;
  error?: string;
  stderr?: string;
}

/** Runs rows the way the runner does: an error makes the row errored, then the session recovers. */
async function runAll(script: string, options: StdioOptions = {}, list: Row[] = rows): Promise<{ outcomes: Outcome[]; ms: number; pids: number[] }> {
  const pidFile = join(scratch, `${script}.${Math.random().toString(36).slice(2)}.pids`);
  const subject = stdioSubject(`node ${join(FIXTURES, script)}`, { timeoutMs: TIMEOUT_MS, startTimeoutMs: 5000, ...options, env: { ...process.env, PID_FILE: pidFile } });
  const t0 = performance.now();
  const session = await subject.open("ag02");
  const outcomes: Outcome[] = [];
  try {
    for (const row of list) {
      try {
        const checks = await runRow(row, session.send, "ag02");
        outcomes.push({ id: row.id, status: statusOf(checks, { ...strict, tiers: [...strict.tiers] }) });
      } catch (error) {
        if (error instanceof SubjectError) throw error;
        const stderr = (error as { stderr?: string }).stderr ?? session.stderrTail?.();
        outcomes.push({ id: row.id, status: "errored", error: (error as Error).message, stderr });
        await session.recover();
      }
    }
  } finally {
    await session.close();
  }
  return { outcomes, ms: performance.now() - t0, pids: readPids(pidFile) };
}

function readPids(file: string): number[] {
  return existsSync(file) ? readFileSync(file, "utf8").split("\n").filter(Boolean).map(Number) : [];
}

/** Alive and not a zombie (a zombie is dead, only not yet reaped by its parent). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    if (existsSync("/proc/self/stat")) return false;
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  }
}

/** The pids still alive once killed processes have had a moment (up to 3 s) to die. */
async function survivors(pids: number[]): Promise<number[]> {
  const deadline = performance.now() + 3000;
  let left = pids.filter(alive);
  while (left.length > 0 && performance.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 25));
    left = left.filter(alive);
  }
  return left;
}

function expectSpoiledRowsErrored(outcomes: Outcome[], cause: RegExp): void {
  for (const outcome of outcomes) {
    if (outcome.id.startsWith("validate/fault/")) {
      expect(outcome.status, outcome.id).toBe("errored");
      expect(outcome.error, outcome.id).toMatch(cause);
    } else {
      expect(outcome, outcome.id).toEqual({ id: outcome.id, status: "passed" });
    }
  }
}

let scratch: string;
beforeAll(() => {
  if (!existsSync(join(PACKAGE_ROOT, "dist", "subjects", "handler.js"))) throw new Error("the bad subjects run the built reference: run npm run build first");
  scratch = mkdtempSync(join(tmpdir(), "stdio-faults-"));
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("a subject that misbehaves on some rows", () => {
  it("crash: it exits on the row; the row is errored with the exit code and its stderr, the process is restarted, the other rows pass", async () => {
    const { outcomes, ms, pids } = await runAll("crash.mjs");
    expectSpoiledRowsErrored(outcomes, /exited with code 70 while answering "validate"/);
    expect(outcomes.find((o) => o.status === "errored")!.stderr).toContain("crashing on purpose");
    expect(pids.length).toBe(3); // the first process and two restarts
    expect(await survivors(pids)).toEqual([]);
    expect(ms).toBeLessThan(10_000);
  });

  it("hang: it never answers; the row is errored at the timeout, the process and the helper it started are killed", async () => {
    const { outcomes, ms, pids } = await runAll("hang.mjs");
    expectSpoiledRowsErrored(outcomes, new RegExp(`no reply to "validate" \\(seq \\d+\\) within ${TIMEOUT_MS} ms`));
    expect(pids.length).toBe(6); // three subjects, each with its helper
    expect(await survivors(pids)).toEqual([]);
    expect(ms).toBeLessThan(2 * TIMEOUT_MS + 10_000);
  });

  it("flood: it writes a line that never ends; it is stopped at the byte cap and the row is errored", async () => {
    const { outcomes, ms, pids } = await runAll("flood.mjs", { maxLineBytes: 1024 * 1024 });
    expectSpoiledRowsErrored(outcomes, /wrote more than 1048576 bytes while answering "validate"/);
    expect(await survivors(pids)).toEqual([]);
    expect(ms).toBeLessThan(10_000);
  });

  it("non-JSON: a stray print on stdout errors the row and restarts the process", async () => {
    const { outcomes, pids } = await runAll("nonjson.mjs");
    expectSpoiledRowsErrored(outcomes, /the reply to "validate" \(seq \d+\) is not JSON: "debug: validating now\.\.\."/);
    expect(pids.length).toBe(3);
    expect(await survivors(pids)).toEqual([]);
  });

  it("a print and the reply in one read: the row is errored quoting the print, the first unexpected line, never the reply after it", async () => {
    const { outcomes, pids } = await runAll("print-before-reply.mjs");
    expectSpoiledRowsErrored(outcomes, /the reply to "validate" \(seq \d+\) is not JSON: "debug: validating now\.\.\."/);
    for (const outcome of outcomes) expect(outcome.error ?? "").not.toMatch(/no request was waiting/);
    expect(pids.length).toBe(3);
    expect(await survivors(pids)).toEqual([]);
  });

  it("wrong seq: the row is errored, naming the seq it got", async () => {
    const { outcomes, pids } = await runAll("wrong-seq.mjs");
    expectSpoiledRowsErrored(outcomes, /the reply to "validate" \(seq (\d+)\) carries seq \d+/);
    for (const outcome of outcomes.filter((o) => o.status === "errored")) {
      const [, sent, got] = /seq (\d+)\) carries seq (\d+)/.exec(outcome.error!)!;
      expect(Number(got)).toBe(Number(sent) + 1000);
    }
    expect(await survivors(pids)).toEqual([]);
  });

  it("bad shape: a JSON reply that breaks the message schema errors the row with the schema's words; no restart is needed", async () => {
    const { outcomes, pids } = await runAll("bad-shape.mjs");
    expectSpoiledRowsErrored(outcomes, /the reply to "validate" \(seq \d+\) breaks the protocol: \$\.errors: expected array, got string/);
    expect(pids.length).toBe(1);
    expect(await survivors(pids)).toEqual([]);
  });
});

describe("a subject that cannot start or keeps failing", () => {
  it("handshake death: open() throws a SubjectError with the exit code and the end of its stderr", async () => {
    const pidFile = join(scratch, "death.pids");
    const subject = stdioSubject(`node ${join(FIXTURES, "handshake-death.mjs")}`, { timeoutMs: TIMEOUT_MS, env: { ...process.env, PID_FILE: pidFile } });
    const t0 = performance.now();
    const error = await subject.open("ag02").then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(SubjectError);
    expect((error as SubjectError).message).toMatch(/^could not start ".*handshake-death\.mjs": the process exited with code 2 while answering "start" \(seq 1\); its stderr ends: fatal: cannot load the implementation: missing config\.json$/);
    expect((error as SubjectError).stderr).toContain("missing config.json");
    expect(performance.now() - t0).toBeLessThan(10_000);
    expect(await survivors(readPids(pidFile))).toEqual([]);
  });

  it("a command that does not exist: SubjectError with the shell's words", async () => {
    const error = await stdioSubject("no-such-adapter-command --flag", { startTimeoutMs: 5000 })
      .open("ag02")
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(error).toBeInstanceOf(SubjectError);
    expect((error as Error).message).toMatch(/exited with code 127.*not found/);
  });

  it("a profile the subject does not offer is refused before any row runs", async () => {
    const python = `python3 ${join(PACKAGE_ROOT, "conformance/adapters/python/adapter.py")} ${join(PACKAGE_ROOT, "test/fixtures/python-impl/toolreg.py")}`;
    await expect(stdioSubject(python).open("pointer")).rejects.toThrow(/does not support the pointer profile \(it supports: ag02\)/);
  });

  it("past maxRestarts, recover() throws a SubjectError that names the last failure", async () => {
    const many = [spoiled(1), spoiled(2), spoiled(3), spoiled(4)];
    const run = runAll("crash.mjs", { maxRestarts: 2 }, many);
    await expect(run).rejects.toThrow(SubjectError);
    await expect(run).rejects.toThrow(/gave up after 2 restarts \(last: the process exited with code 70\)/);
  });
});

describe("with the runner", () => {
  it("runRows over two crashing sessions: spoiled rows errored with the cause and stderr, the rest passed", async () => {
    const subject = stdioSubject(`node ${join(FIXTURES, "crash.mjs")}`, { timeoutMs: TIMEOUT_MS });
    const run = await runRows(subject, rows, { profile: "ag02", jobs: 2, progress: false, level: "messages", tiers: ["core", "catalog", "hardening"] });
    for (const result of run.results) {
      if (result.id.startsWith("validate/fault/")) {
        expect(result.status).toBe("errored");
        expect(result.error).toMatch(/exited with code 70/);
        expect(result.stderr).toContain("crashing on purpose");
      } else {
        expect(result.status, result.id).toBe("passed");
      }
    }
  });
});

import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Report } from "../../src/report/report.js";
import { MAIN, newToken, NODE, NODE_BINDS, cleanUp, requireBwrap, score, statuses, submission, survivors } from "../helpers/hostile-helpers.js";

// Subjects that misbehave on purpose (test/fixtures/hostile/), scored by the CLI. Whatever they
// do, the run ends, the report is whole (readReport refuses a cut-off one), the harm stays with
// the rows it touched, and no process is left on the machine. Most run under --sandbox bwrap,
// the grading mode; the protocol cases run under none too, where the harness must hold as well.

const BWRAP = ["--sandbox", "bwrap", ...NODE_BINDS];
/** 30 validate rows, one session. */
const ROWS = ["--filter", "validate/type/*", "--jobs", "1", "--min-score", "0"];

beforeAll(() => {
  if (!existsSync(MAIN)) throw new Error("the hostile-subject tests run the CLI: run npm run build first");
  requireBwrap();
});
afterAll(cleanUp);

/** The row the fixtures spoil. */
const TARGET = "validate/type/integer-1e2";

/** The spoiled row is errored with `cause`; every other row was answered. */
function onlyTargetErrored(report: Report, cause: RegExp): void {
  expect(report.rows).toHaveLength(30);
  expect(report.rows.filter((row) => row.id === TARGET)).toHaveLength(1);
  report.rows.forEach((row) => {
    if (row.id === TARGET) {
      expect(row.status, row.id).toBe("errored");
      expect(row.error, row.id).toMatch(cause);
    } else {
      expect(row.status, `${row.id}: ${row.error}`).not.toBe("errored");
    }
  });
}

describe.each([
  ["bwrap", BWRAP],
  ["none", []],
])("under --sandbox %s", (_mode, sandbox) => {
  it("ignores SIGTERM and stop, outlives stdin: the run ends, the report is whole, no process is left", async () => {
    const token = newToken();
    const run = score(submission(), `${NODE} ignore-term.mjs ${token}`, [...sandbox, ...ROWS]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.report!.rows.every((row) => row.status !== "errored")).toBe(true);
    expect(await survivors(token)).toEqual([]);
  });

  it("closes stdout and keeps running: the row errors at once, not at the (60 s) timeout", async () => {
    const token = newToken();
    const run = score(submission(), `${NODE} close-stdout.mjs ${token}`, [...sandbox, ...ROWS, "--timeout", "60000"]);
    expect(run.code, run.stderr).toBe(0);
    onlyTargetErrored(run.report!, /closed its stdout \(the process kept running\)/);
    expect(await survivors(token)).toEqual([]);
  });

  it("answers with the wrong seq: that row errors naming the seq, the rest are answered after a restart", async () => {
    const token = newToken();
    const run = score(submission(), `${NODE} bad-replies.mjs ${token} wrong-seq`, [...sandbox, ...ROWS]);
    expect(run.code, run.stderr).toBe(0);
    onlyTargetErrored(run.report!, /the reply to "validate" \(seq (\d+)\) carries seq \d+/);
    const [, sent, got] = /seq (\d+)\) carries seq (\d+)/.exec(run.report!.rows.find((row) => row.id === TARGET)!.error!)!;
    expect(Number(got)).toBe(Number(sent) + 1000);
    expect(await survivors(token)).toEqual([]);
  });

  it("sends every reply twice: the extra line is caught, the process replaced, the report whole", async () => {
    const token = newToken();
    const run = score(submission(), `${NODE} bad-replies.mjs ${token} duplicate`, [...sandbox, ...ROWS]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.report!.rows).toHaveLength(30);
    // each reply is taken once; the copy breaks the stream and the next row gets a fresh process
    expect(run.report!.rows.every((row) => row.status !== "errored" || /no request was waiting|carries seq/.test(row.error ?? ""))).toBe(true);
    expect(await survivors(token)).toEqual([]);
  });

  it("writes a reply before any request: it cannot start (exit 3), with a whole report saying why", async () => {
    const token = newToken();
    const run = score(submission(), `${NODE} bad-replies.mjs ${token} early`, [...sandbox, ...ROWS]);
    expect(run.code).toBe(3);
    // which fault is named first depends on whether the early line and the real start reply arrive
    // in one read (then the second finds no request waiting) or in two (then the first carries seq 0)
    expect(run.report!.summary.stopped?.cause).toMatch(/the start handshake carries seq 0|wrote to stdout when no request was waiting/);
    expect(statuses(run.report!)).toEqual({ errored: 30 });
    expect(await survivors(token)).toEqual([]);
  });

  it("writes a 50 MB reply line: stopped at the 8 MiB cap, that row errored", async () => {
    const token = newToken();
    const run = score(submission(), `${NODE} long-line.mjs ${token} 50mb`, [...sandbox, ...ROWS]);
    expect(run.code, run.stderr).toBe(0);
    onlyTargetErrored(run.report!, /wrote more than 8388608 bytes while answering "validate"/);
    expect(await survivors(token)).toEqual([]);
  });

  it("writes a line that never ends: stopped at the cap, that row errored", async () => {
    const token = newToken();
    const run = score(submission(), `${NODE} long-line.mjs ${token} endless`, [...sandbox, ...ROWS]);
    expect(run.code, run.stderr).toBe(0);
    onlyTargetErrored(run.report!, /wrote more than 8388608 bytes while answering "validate"/);
    expect(await survivors(token)).toEqual([]);
  });

  it("floods stderr without end from a helper: rows are answered, a row keeps only the end of stderr", async () => {
    const token = newToken();
    const run = score(submission(), `${NODE} stderr-flood.mjs ${token}`, [...sandbox, ...ROWS]);
    expect(run.code, run.stderr).toBe(0);
    onlyTargetErrored(run.report!, /spoiled on purpose/);
    const stderr = run.report!.rows.find((row) => row.id === TARGET)!.stderr ?? "";
    expect(stderr).toContain("flood flood");
    expect(stderr.length).toBeLessThanOrEqual(2001);
    expect(await survivors(token)).toEqual([]);
  });

  it("crashes on every second row at --jobs 1, more than 20 times: the run goes on to the end (no exit 3)", async () => {
    const token = newToken();
    const run = score(submission(), `${NODE} crash.mjs ${token} 2`, [...sandbox, ...ROWS, "--filter", "validate/enum*"]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.report!.summary.stopped).toBeUndefined();
    const errored = run.report!.rows.filter((row) => row.status === "errored");
    expect(errored.length).toBeGreaterThan(20);
    expect(errored.every((row) => /exited with code 70 while answering "validate"/.test(row.error ?? ""))).toBe(true);
    // one row answered between two crashes
    expect(run.report!.rows.length - errored.length).toBeGreaterThanOrEqual(errored.length);
    expect(await survivors(token)).toEqual([]);
  });

  it("answers slowly past --budget: the rows left are errored with that cause, the report is whole (no exit 3)", async () => {
    const token = newToken();
    const run = score(submission(), `${NODE} slow.mjs ${token} 250`, [...sandbox, ...ROWS, "--budget", "1500ms"]);
    expect(run.code, run.stderr).toBe(0);
    const report = run.report!;
    expect(report.rows).toHaveLength(30);
    expect(report.summary.stopped?.cause).toBe("the run's time budget (1500 ms) ran out");
    const answered = report.rows.filter((row) => row.status !== "errored");
    const cut = report.rows.filter((row) => row.status === "errored");
    expect(answered.length).toBeGreaterThan(0);
    expect(cut.length).toBeGreaterThan(0);
    // in corpus order: what was answered, at most one row stopped in flight, then rows never run
    expect(report.rows.slice(0, answered.length)).toEqual(answered);
    for (const row of cut) expect(row.error).toMatch(/^the run's time budget \(1500 ms\) ran out(; the subject was stopped| before this row was run)$/);
    expect(cut.filter((row) => /before this row was run/.test(row.error!)).length).toBeGreaterThanOrEqual(cut.length - 1);
    expect(await survivors(token)).toEqual([]);
  });
});

describe("under --sandbox bwrap only", () => {
  it("a memory hog under --memory 256M: that row errored, the rest answered", async () => {
    const token = newToken();
    const run = score(submission(), `${NODE} memory-hog.mjs ${token}`, [...BWRAP, ...ROWS, "--memory", "256M"]);
    expect(run.code, run.stderr).toBe(0);
    onlyTargetErrored(run.report!, /the process (exited with code [1-9]\d*|was killed by SIG\w+)/);
    expect(await survivors(token)).toEqual([]);
  });

  it("the restart budget is one per run, not per session: a subject failing at every row gets 20 restarts at --jobs 1 and at --jobs 2", async () => {
    for (const jobs of [1, 2]) {
      const dir = submission();
      const token = newToken();
      const run = score(dir, `${NODE} crash.mjs ${token} 1 starts.log`, [...BWRAP, "--writable", "--filter", "validate/type/*", "--jobs", String(jobs)]);
      expect(run.code, run.stderr).toBe(3);
      expect(run.report!.summary.stopped?.cause).toMatch(/gave up after 20 restarts \(last: the process exited with code 70\) with no request answered in between/);
      expect(run.report!.rows).toHaveLength(30);
      const starts = readFileSync(join(dir, "starts.log"), "utf8").split("\n").filter(Boolean).length;
      expect(starts, `--jobs ${jobs}`).toBe(jobs + 20);
      expect(await survivors(token)).toEqual([]);
    }
  });
});

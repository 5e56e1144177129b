import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../src/corpus/load.js";
import { parseReport, verifyReportFile } from "../../src/report/read-report.js";
import { cli, MAIN } from "../helpers/cli-helpers.js";

// score interrupted by SIGINT or SIGTERM: the subject is stopped, every requested report is written
// for the rows answered, marked interrupted (refused as a baseline and by merge), one line says
// so, the cursor comes back, the exit code is the signal's, and the last whole report.jsonl stays.

const dirs: string[] = [];
const fresh = () => {
  const dir = mkdtempSync(join(tmpdir(), "tc-interrupt-"));
  dirs.push(dir);
  return dir;
};
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

const hasScript = spawnSync("script", ["--version"]).status === 0;
const SLOW = `${process.execPath} ${join(PACKAGE_ROOT, "test", "fixtures", "hostile", "slow.mjs")} interrupt-test 40`;
/** The slow subject with every request it reads also appended to `log`: a test waits for requests, never for a time. */
const slowLogged = (log: string) => `tee -a '${log}' | ${SLOW}`;

/** Resolves once `ready()` holds (polled); the test's own timeout bounds the wait. */
async function until(ready: () => boolean): Promise<void> {
  while (!ready()) await new Promise((r) => setTimeout(r, 50));
}

/** Lines the subject has read so far (the handshake, then one request a row): one in flight per session, the rows before them answered. */
const requests = (log: string) => (existsSync(log) ? readFileSync(log, "utf8").split("\n").filter(Boolean).length : 0);

/** Starts score on the slow subject, waits until it has read 12 lines (so rows are answered; stderr quiet: --no-progress), sends `signal`. */
async function interrupted(out: string, signal: NodeJS.Signals, extra: string[] = []): Promise<{ code: number | null; stderr: string; stdout: string }> {
  const log = join(fresh(), "requests.log");
  const child = spawn(process.execPath, [MAIN, "score", "--subject", slowLogged(log), "--jobs", "2", "--min-score", "0", "--out", out, "--no-progress", ...extra], { cwd: PACKAGE_ROOT, env: { ...process.env, NO_COLOR: "1", GITHUB_STEP_SUMMARY: "" } });
  let stderr = "";
  let stdout = "";
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
  await until(() => requests(log) >= 12);
  child.kill(signal);
  const code = await new Promise<number | null>((r) => child.once("exit", (c) => r(c)));
  return { code, stderr, stdout };
}

describe("score interrupted", () => {
  it("SIGINT: keeps the answered rows in every report, marked interrupted; the last whole report.jsonl survives; exit 130", { timeout: 60_000 }, async () => {
    const out = fresh();
    // the last good run, as a --baseline would name it
    expect(cli("score", "reference", "--reporter", "json", "--out", out, "--no-progress").code).toBe(0);
    const whole = readFileSync(join(out, "report.jsonl"), "utf8");
    const run = await interrupted(out, "SIGINT", ["--reporter", "json,junit,html,markdown"]);
    expect(run.code, run.stderr).toBe(130);
    expect(run.stderr).not.toMatch(/\n\s+at /);
    const lines = run.stderr.split("\n").filter(Boolean);
    expect(lines, run.stderr).toHaveLength(1);
    const [, answered, total] = /^tool-conformance: interrupted \(SIGINT\): (\d+) of (\d+) rows answered, reports of them written \(.*report\.interrupted\.jsonl.*\), marked interrupted; .*report\.jsonl still holds the last whole run$/.exec(lines[0]!) ?? [];
    expect(Number(answered)).toBeGreaterThan(0);
    expect(Number(answered)).toBeLessThan(Number(total));
    // the last whole report is untouched
    expect(readFileSync(join(out, "report.jsonl"), "utf8")).toBe(whole);
    expect(verifyReportFile(join(out, "report.jsonl")).ok).toBe(true);
    // the interrupted one: every selected row, the answered ones with their answers, refused as incomplete
    const text = readFileSync(join(out, "report.interrupted.jsonl"), "utf8");
    const summary = text.split("\n").filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.kind === "summary") as { stopped: { cause: string; interrupted: string; answered: number } };
    expect(summary.stopped).toMatchObject({ cause: "interrupted (SIGINT)", interrupted: "SIGINT", answered: Number(answered) });
    const rowLines = text.split("\n").filter((l) => l.startsWith('{"kind":"row"'));
    expect(rowLines).toHaveLength(Number(total));
    expect(rowLines.filter((l) => l.includes('"status":"failed"') || l.includes('"status":"passed"')).length).toBeGreaterThan(0);
    expect(() => parseReport(text, "r")).toThrow(`r: incomplete: the run was interrupted (SIGINT) with ${answered} of ${total} rows answered`);
    // the other reports are written and say it
    for (const file of ["junit.xml", "report.html", "summary.md"]) expect(readFileSync(join(out, file), "utf8")).toContain("interrupted (SIGINT)");
    // refused as a baseline (exit 2, one line) and by merge
    const baseline = cli("score", "reference", "--baseline", join(out, "report.interrupted.jsonl"), "--no-progress");
    expect(baseline.code).toBe(2);
    expect(baseline.stderr).toMatch(/^tool-conformance: .*report\.interrupted\.jsonl: incomplete: the run was interrupted \(SIGINT\)/m);
    const merged = cli("merge", join(out, "report.interrupted.jsonl"), "--out", fresh());
    expect(merged.code).toBe(1);
    expect(merged.stderr).toContain("incomplete: the run was interrupted (SIGINT)");
    // the next whole run replaces report.jsonl and removes the stale interrupted report
    expect(cli("score", "reference", "--reporter", "json", "--out", out, "--no-progress").code).toBe(0);
    expect(existsSync(join(out, "report.interrupted.jsonl"))).toBe(false);
  });

  it("SIGTERM: exit 143, one line; with no earlier report, report.jsonl is the 'started' marker (incomplete), never a report", { timeout: 60_000 }, async () => {
    const out = fresh();
    const run = await interrupted(out, "SIGTERM", ["--reporter", "json"]);
    expect(run.code, run.stderr).toBe(143);
    expect(run.stderr).toMatch(/^tool-conformance: interrupted \(SIGTERM\): \d+ of \d+ rows answered, reports of them written \([^)]*report\.interrupted\.jsonl\), marked interrupted\n$/);
    expect(verifyReportFile(join(out, "report.jsonl"))).toMatchObject({ ok: false, reason: expect.stringMatching(/^incomplete: the run did not finish/) });
    expect(verifyReportFile(join(out, "report.interrupted.jsonl"))).toMatchObject({ ok: false, reason: expect.stringMatching(/^incomplete: the run was interrupted \(SIGTERM\)/) });
  });

  it("with the report on stdout (--out -): the JSON lines of the rows answered, marked interrupted", { timeout: 60_000 }, async () => {
    const run = await interrupted(fresh(), "SIGINT", ["--out", "-"]);
    expect(run.code, run.stderr).toBe(130);
    expect(run.stderr).toMatch(/^tool-conformance: interrupted \(SIGINT\): \d+ of \d+ rows answered, their report on stdout, marked interrupted\n$/);
    expect(() => parseReport(run.stdout, "stdout")).toThrow(/^stdout: incomplete: the run was interrupted \(SIGINT\)/);
  });

  it.runIf(hasScript)("Ctrl-C on a terminal: the progress bar's hidden cursor is shown again, the line printed, exit 130", { timeout: 60_000 }, async () => {
    const out = fresh();
    const q = (word: string) => `'${word.replace(/'/g, "'\\''")}'`;
    const command = [process.execPath, MAIN, "score", "--subject", SLOW, "--jobs", "2", "--min-score", "0", "--out", out, "--reporter", "json"].map(q).join(" ");
    // script(1) gives the run a pseudo-terminal; ^C on it is the user's Ctrl-C (SIGINT to the foreground group)
    const child = spawn("script", ["-qfec", command, "/dev/null"], { cwd: PACKAGE_ROOT, env: { ...process.env, NO_COLOR: "1", CI: "" } });
    let tty = "";
    child.stdout.on("data", (d: Buffer) => (tty += d.toString()));
    // the progress bar is up (it hides the cursor): then ^C, however loaded the machine
    await until(() => tty.includes("\x1b[?25l"));
    child.stdin.write("\x03");
    expect(await new Promise((r) => child.once("exit", r))).toBe(130);
    const hidden = tty.lastIndexOf("\x1b[?25l");
    expect(hidden, "the progress bar was shown").toBeGreaterThan(-1);
    expect(tty.lastIndexOf("\x1b[?25h")).toBeGreaterThan(hidden);
    expect(tty).toMatch(/tool-conformance: interrupted \(SIGINT\): \d+ of \d+ rows answered, reports of them written/);
  });

  it.runIf(hasScript)("Ctrl-C during the diagnosis of a --fresh run (after the progress bar): the interrupted report, no FLAGGED line, exit 130", { timeout: 240_000 }, async () => {
    const out = fresh();
    const q = (word: string) => `'${word.replace(/'/g, "'\\''")}'`;
    const command = [process.execPath, MAIN, "score", "mutant:s06", "--tier", "all", "--fresh", "5000", "--seed", "7", "--out", out, "--reporter", "json,html"].map(q).join(" ");
    const child = spawn("script", ["-qfec", command, "/dev/null"], { cwd: PACKAGE_ROOT, env: { ...process.env, NO_COLOR: "1", CI: "" } });
    let tty = "";
    child.stdout.on("data", (d: Buffer) => (tty += d.toString()));
    // the rows are done when the bar is gone (its cursor shown again): the diagnosis runs then
    await until(() => tty.includes("\x1b[?25l") && tty.lastIndexOf("\x1b[?25h") > tty.indexOf("\x1b[?25l"));
    child.stdin.write("\x03");
    expect(await new Promise((r) => child.once("exit", r)), tty).toBe(130);
    expect(tty).toMatch(/tool-conformance: interrupted \(SIGINT\): \d+ of \d+ rows answered, reports of them written/);
    const report = readFileSync(join(out, "report.interrupted.jsonl"), "utf8");
    expect(report).toContain("no diagnosis: the run was interrupted");
    expect(readFileSync(join(out, "report.html"), "utf8")).not.toContain("FLAGGED");
    expect(report).not.toContain("far below");
  });
});

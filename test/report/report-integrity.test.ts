import { spawn } from "node:child_process";
import { createHmac } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../src/corpus/load.js";
import { formatReport } from "../../src/report/format-report.js";
import { parseReport, readReport, verifyReportFile } from "../../src/report/read-report.js";
import { ReportError } from "../../src/report/report.js";
import { percentOf } from "../../src/judge/scoring.js";
import { hostileFixture, NASTY } from "../helpers/report-fixture.js";
import { cli, oneLineError } from "../helpers/cli-helpers.js";

// Reports are untrusted: a submission's detached helper can rewrite report.jsonl after the
// harness exits. These tests use the built CLI (npm test builds dist/ first) the way a grader
// does: merge and --baseline recompute every score from the row lines and refuse a summary that
// does not follow from them; score --key signs and merge --key verifies; one bad report costs its
// own line of the class table (score 0, the reason, exit 1), not the whole table; a run that never
// finished leaves "incomplete", not an earlier run's report; a baseline of other settings is refused.

const MAIN = join(PACKAGE_ROOT, "dist", "cli", "main.js");
const fresh = () => mkdtempSync(join(tmpdir(), "tc-integrity-"));


/** The class table's CSV as records by column name. */
function classCsv(dir: string): Record<string, string>[] {
  const [head, ...lines] = readFileSync(join(dir, "class.csv"), "utf8").trimEnd().split("\r\n");
  const split = (line: string) => [...line.matchAll(/("(?:[^"]|"")*"|[^,]*)(,|$)/g)].slice(0, -1).map((m) => m[1]!.replace(/^"|"$/g, "").replaceAll('""', '"'));
  const names = split(head!);
  return lines.map((line) => Object.fromEntries(split(line).map((cell, i) => [names[i], cell])));
}

/** Rewrites the lines of a report.jsonl with `edit` (a line's JSON in, the new JSON out). */
function editLines(path: string, edit: (line: Record<string, unknown>, index: number) => Record<string, unknown>): void {
  const lines = readFileSync(path, "utf8").trimEnd().split("\n");
  writeFileSync(path, lines.map((line, i) => JSON.stringify(edit(JSON.parse(line) as Record<string, unknown>, i))).join("\n") + "\n");
}

/** Every tally in a scores object made perfect: what a forger writes. */
function perfect(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(perfect);
  if (typeof value !== "object" || value === null) return value;
  const o = value as Record<string, unknown>;
  if ("passed" in o && "rows" in o) return { ...o, passed: o.rows, failed: 0, errored: 0, skipped: 0, percent: 100 };
  return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, perfect(v)]));
}

// a good report (the reference) and a failing one (s03 fails rows in core) to forge, scored once
let good: string;
let failing: string;
let failingText: string;
let key: string;
let signed: string;
let signedText: string;
/** The failing report's true total: what a forger hides. */
let truth: { passed: number; rows: number; percent: number };
/** A total as the refusal words it. */
const tally = (passed: number, rows: number) => `${passed}/${rows} passed (${percentOf(passed, rows)}%)`;

beforeAll(() => {
  const a = fresh();
  const b = fresh();
  const c = fresh();
  expect(cli("score", "reference", "--reporter", "json", "--out", a, "--label", "alice").code).toBe(0);
  expect(cli("score", "mutant:s03", "--reporter", "json", "--out", b, "--label", "bob", "--no-diagnosis").code).toBe(1);
  key = join(c, "grader.key");
  writeFileSync(key, "0123456789abcdef0123456789abcdef\n");
  expect(cli("score", "mutant:s03", "--reporter", "json", "--out", c, "--label", "carol", "--no-diagnosis", "--key", key).code).toBe(1);
  good = join(a, "report.jsonl");
  failing = join(b, "report.jsonl");
  failingText = readFileSync(failing, "utf8");
  signed = join(c, "report.jsonl");
  signedText = readFileSync(signed, "utf8");
  truth = readReport(failing).summary.scores.total;
  expect(truth.passed).toBeLessThan(truth.rows);
}, 120_000);

/** A copy of a report in a folder of its own. */
function copyOf(text: string): string {
  const path = join(fresh(), "report.jsonl");
  writeFileSync(path, text);
  return path;
}

describe("recompute, never trust: a forged summary", () => {
  it("is refused by merge, which still merges the other report, names the file and what differs, and exits 1", () => {
    const forged = copyOf(failingText);
    editLines(forged, (line) => (line.kind === "summary" ? { ...line, scores: perfect(line.scores) } : line));
    // the forgery is a well-formed report: only recomputing catches it
    expect(readFileSync(forged, "utf8")).toContain(`"total":{"rows":${truth.rows},"passed":${truth.rows},"failed":0,"errored":0,"skipped":0,"percent":100}`);
    const reason = `forged or edited: the summary does not match its rows: total is ${tally(truth.rows, truth.rows)} in the summary, ${tally(truth.passed, truth.rows)} from the rows`;
    const out = fresh();
    const { code, stdout, stderr } = cli("merge", good, forged, "--out", out);
    expect(code).toBe(1);
    const [alice, bob] = classCsv(out);
    expect(alice).toMatchObject({ label: "alice", total: "100", status: "ok" });
    expect(bob).toMatchObject({ label: forged, total: "0", passed: "0", status: reason, report: forged });
    expect(stderr).toContain(`tool-conformance: ${forged}: ${reason} (score 0 in the class table)\n`);
    expect(stderr).toContain("tool-conformance: 1 of 2 reports refused\n");
    expect(stdout).toMatch(/^\| `alice` \| 100% \|/m);
    expect(stdout).not.toMatch(/\*\*100%\*\* \| forged/);
  });

  it("a forged section or diagnosis count is caught too, by its own path", () => {
    const section = copyOf(failingText);
    editLines(section, (line) => {
      if (line.kind !== "summary") return line;
      const scores = line.scores as { sections: Record<string, unknown> };
      return { ...line, scores: { ...scores, sections: { ...scores.sections, TestValidateTable: perfect(scores.sections.TestValidateTable) } } };
    });
    expect(verifyReportFile(section)).toMatchObject({ ok: false, reason: expect.stringMatching(/^forged or edited: the summary does not match its rows: sections\.TestValidateTable\.total is (\d+)\/\1 passed \(100%\) in the summary, \d+\/\d+ passed \(\d+(\.\d+)?%\) from the rows$/) });
    const diagnosis = copyOf(failingText);
    editLines(diagnosis, (line) => (line.kind === "diagnosis" ? { ...line, failing: 0 } : line));
    expect(verifyReportFile(diagnosis)).toEqual({ ok: false, path: diagnosis, reason: `forged or edited: the diagnosis counts 0 failing and 0 errored rows, the rows give ${truth.rows - truth.passed} and 0` });
  });

  it("is refused as a --baseline (exit 2, one line naming the file)", () => {
    const forged = copyOf(failingText);
    editLines(forged, (line) => (line.kind === "summary" ? { ...line, scores: perfect(line.scores) } : line));
    const { code, stderr } = cli("score", "reference", "--baseline", forged);
    expect(code).toBe(2);
    expect(oneLineError(stderr)).toBe(`tool-conformance: ${forged}: forged or edited: the summary does not match its rows: total is ${tally(truth.rows, truth.rows)} in the summary, ${tally(truth.passed, truth.rows)} from the rows`);
  });
});

describe("recompute, never trust: an edited row line", () => {
  const failedRow = () => failingText.split("\n").find((line) => line.includes('"status":"failed"'))!;
  const id = () => (JSON.parse(failedRow()) as { id: string }).id;

  it("a failed row relabelled passed disagrees with its own checks", () => {
    const path = copyOf(failingText.replace(failedRow(), failedRow().replace('"status":"failed"', '"status":"passed"')));
    const { code, stderr } = cli("merge", path, "--out", fresh());
    expect(code).toBe(1);
    expect(stderr).toContain(`tool-conformance: ${path}: edited: row ${JSON.stringify(id())} says passed, its checks say failed (score 0 in the class table)`);
  });

  it("a row made to pass through and through (status, levels, checks) no longer adds up to the summary", () => {
    const path = copyOf(failingText);
    editLines(path, (line) =>
      line.id === id()
        ? { ...line, status: "passed", levels: { verdict: "passed", paths: "passed", messages: "passed" }, checks: (line.checks as Record<string, unknown>[]).map((c) => ({ ...c, pass: true })) }
        : line,
    );
    const out = fresh();
    expect(cli("merge", path, "--out", out).code).toBe(1);
    expect(classCsv(out)[0]!.status).toBe(`forged or edited: the summary does not match its rows: total is ${tally(truth.passed, truth.rows)} in the summary, ${tally(truth.passed + 1, truth.rows)} from the rows`);
  });
});

describe("HMAC signatures: score --key, merge --key", () => {
  it("a signed report ends with a signature line: HMAC-SHA256 under the key file (less its newline) over every byte before it", () => {
    const lines = signedText.trimEnd().split("\n");
    const last = JSON.parse(lines.at(-1)!) as { kind: string; algorithm: string; mac: string };
    expect(last).toMatchObject({ kind: "signature", algorithm: "hmac-sha256" });
    expect(JSON.parse(lines[0]!)).toMatchObject({ kind: "header", formatVersion: 2 });
    expect(JSON.parse(lines.at(-2)!)).toMatchObject({ kind: "footer" });
    const body = signedText.slice(0, signedText.length - lines.at(-1)!.length - 1);
    expect(last.mac).toBe(createHmac("sha256", "0123456789abcdef0123456789abcdef").update(body, "utf8").digest("hex"));
  });

  it("round trip: merge --key accepts it; the same report is read without a key too", () => {
    const out = fresh();
    const { code, stderr } = cli("merge", signed, "--key", key, "--out", out);
    expect(code, stderr).toBe(0);
    expect(classCsv(out)[0]).toMatchObject({ label: "carol", total: String(truth.percent), status: "ok" });
    expect(cli("merge", signed, "--out", fresh()).code).toBe(0);
    expect(readReport(signed).signature?.algorithm).toBe("hmac-sha256");
  });

  it("a wrong key, an unsigned report and a tampered signed report are each refused with their reason", () => {
    const wrong = join(fresh(), "other.key");
    writeFileSync(wrong, "fedcba9876543210fedcba9876543210");
    // a change no score depends on (a row's time): recomputing cannot see it, the signature does
    const tampered = copyOf(signedText.replace(/"ms":(\d+)\}/, (_, ms: string) => `"ms":${Number(ms) + 1}}`));
    expect(readFileSync(tampered, "utf8")).not.toBe(signedText);
    expect(cli("merge", tampered, "--out", fresh()).code).toBe(0);
    const out = fresh();
    const withWrong = cli("merge", signed, "--key", wrong, "--out", fresh());
    expect(withWrong.code).toBe(1);
    expect(withWrong.stderr).toContain(`tool-conformance: ${signed}: bad signature: the report was changed after it was signed, or signed with another key`);
    const { code, stderr } = cli("merge", signed, tampered, good, "--key", key, "--out", out);
    expect(code).toBe(1);
    const [carol, edited, alice] = classCsv(out);
    expect(carol).toMatchObject({ label: "carol", status: "ok" });
    expect(edited).toMatchObject({ total: "0", status: "bad signature: the report was changed after it was signed, or signed with another key" });
    expect(alice).toMatchObject({ label: good, total: "0", status: "unsigned: the report carries no signature, and a key was given (sign reports with score --key)" });
    expect(stderr).toContain("tool-conformance: 2 of 3 reports refused\n");
  });

  it("a signed report whose signature line was cut off is refused even without a key", () => {
    const cut = copyOf(signedText.slice(0, signedText.lastIndexOf('{"kind":"signature"')));
    expect(verifyReportFile(cut)).toMatchObject({ ok: false, reason: "cut off or edited: the report says it is signed (format version 2), and its signature line is missing" });
  });

  it("--baseline with --key verifies the baseline's signature", () => {
    const same = cli("score", "mutant:s03", "--no-diagnosis", "--baseline", signed, "--key", key, "--min-score", "0");
    expect(same.code, same.stderr).toBe(0);
    expect(same.stderr).toContain(`no regression (${truth.rows} rows compared)`);
    const unsigned = cli("score", "mutant:s03", "--no-diagnosis", "--baseline", failing, "--key", key);
    expect(unsigned.code).toBe(2);
    expect(oneLineError(unsigned.stderr)).toBe(`tool-conformance: ${failing}: unsigned: the report carries no signature, and a key was given (sign reports with score --key)`);
  });

  it("an empty, short or missing key file is a usage error (exit 2, one line), for score and merge", () => {
    const dir = fresh();
    writeFileSync(join(dir, "empty.key"), "\n");
    writeFileSync(join(dir, "short.key"), "abc\n");
    const cases: [string[], string][] = [
      [["merge", good, "--key", join(dir, "empty.key")], `tool-conformance: --key ${join(dir, "empty.key")}: the key file is empty; put at least 16 random bytes in it`],
      [["merge", good, "--key", join(dir, "short.key")], `tool-conformance: --key ${join(dir, "short.key")}: the key is 3 bytes; use at least 16 random bytes`],
      [["score", "reference", "--reporter", "json", "--out", dir, "--key", join(dir, "none.key")], `tool-conformance: --key ${join(dir, "none.key")}: cannot read the key file (no such file)`],
    ];
    for (const [args, start] of cases) {
      const { code, stderr } = cli(...args, "--out", dir);
      expect(code, args.join(" ")).toBe(2);
      expect(oneLineError(stderr).startsWith(start), stderr).toBe(true);
    }
    // nothing was scored or written with a key that cannot be used
    expect(existsSync(join(dir, "report.jsonl"))).toBe(false);
    expect(existsSync(join(dir, "class.csv"))).toBe(false);
  });
});

describe("reading back real reports", () => {
  it("a report with hostile subject text (NUL, lone surrogates, escapes) passes every check, signed or not; a signature made with another key does not", async () => {
    const { report } = await hostileFixture();
    const text = formatReport(report);
    expect(text).toContain(JSON.stringify(NASTY).slice(1, 40));
    expect(parseReport(text, "r").summary.scores).toEqual(report.summary.scores);
    const key = Buffer.from("a grader's key, 32 bytes long...");
    const signedText = formatReport(report, { key });
    expect(parseReport(signedText, "r", { key }).signature?.mac).toMatch(/^[0-9a-f]{64}$/);
    expect(() => parseReport(signedText, "r", { key: Buffer.from("another key, just as long as it") })).toThrow(ReportError);
    expect(() => parseReport(signedText, "r", { key: Buffer.from("another key, just as long as it") })).toThrow("r: bad signature: the report was changed after it was signed, or signed with another key");
    // written back without a key, it is an unsigned report again (version 1), not a signed one missing its line
    expect(formatReport(parseReport(signedText, "r"))).toBe(text);
  }, 60_000);
});

describe("merge is not all or nothing", () => {
  it("one cut-off and one good report: a table with both lines, the cut-off one at 0 with its reason; exit 1, one stderr line for it", () => {
    const cut = copyOf(failingText.slice(0, Math.floor(failingText.length / 2)));
    const missing = join(fresh(), "never-written", "report.jsonl");
    const out = fresh();
    const { code, stdout, stderr } = cli("merge", cut, good, missing, "--out", out);
    expect(code).toBe(1);
    const lines = classCsv(out);
    expect(lines.map((l) => [l.label, l.total])).toEqual([
      [cut, "0"],
      ["alice", "100"],
      [missing, "0"],
    ]);
    expect(lines[0]!.status).toMatch(/^cut off: the last line \(\d+\) is incomplete; the run or the copy did not finish$/);
    expect(lines[2]!.status).toBe("missing: no such file");
    // the class table comes first: a header, its rule, one line per report (the class view follows it)
    expect(stdout.split("\n\n")[0]!.split("\n").filter((l) => l.startsWith("| ")).length).toBe(2 + 3);
    const problems = stderr.split("\n").filter((l) => l.startsWith("tool-conformance: ") && l.endsWith("(score 0 in the class table)"));
    expect(problems).toEqual([`tool-conformance: ${cut}: ${lines[0]!.status} (score 0 in the class table)`, `tool-conformance: ${missing}: missing: no such file (score 0 in the class table)`]);
    expect(readFileSync(join(out, "class.md"), "utf8")).toBe(stdout);
  });

  it("a subject that could not start appears with its cause as the reason; that alone is not a refusal (exit 0)", () => {
    const dir = fresh();
    expect(cli("score", "--subject", "exit 7", "--reporter", "json", "--out", dir, "--label", "dave").code).toBe(3);
    const out = fresh();
    const { code, stderr } = cli("merge", join(dir, "report.jsonl"), good, "--out", out);
    expect(code).toBe(0);
    const cause = readReport(join(dir, "report.jsonl")).summary.stopped!.cause;
    expect(cause).toMatch(/^could not start "exit 7": the process exited with code 7/);
    expect(classCsv(out)[0]).toMatchObject({ label: "dave", total: "0", status: `stopped: ${cause}` });
    expect(stderr).toContain(`tool-conformance: note: ${join(dir, "report.jsonl")}: the run stopped: ${cause}\n`);
  });
});

describe("a report left by an interrupted run", () => {
  it("is never merged as current: with no whole report in its folder, score writes a 'started' marker before the subject runs; killed, it leaves 'incomplete'", async () => {
    const dir = fresh();
    const path = join(dir, "report.jsonl");
    // a report that is not whole (cut off) is no last good run: the marker replaces it
    writeFileSync(path, readFileSync(good, "utf8").slice(0, 200));
    expect(verifyReportFile(path).ok).toBe(false);
    // a subject that never says hello: the run is under way until it is killed
    const child = spawn(process.execPath, [MAIN, "score", "--subject", "sleep 60", "--timeout", "60000", "--reporter", "json", "--out", dir, "--no-progress"], { detached: true, stdio: "ignore" });
    try {
      const deadline = Date.now() + 20_000;
      while (!readFileSync(path, "utf8").startsWith('{"kind":"started"') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    } finally {
      // the harness and its subject, as a machine lost or a job killed would leave them
      process.kill(-child.pid!, "SIGKILL");
    }
    await new Promise((r) => child.once("exit", r));
    expect(readFileSync(path, "utf8")).toMatch(/^\{"kind":"started","format":"tool-conformance-report","startedAt":"[^"]+"/);
    const out = fresh();
    const { code } = cli("merge", path, "--out", out);
    expect(code).toBe(1);
    expect(classCsv(out)[0]).toMatchObject({ total: "0", status: expect.stringMatching(/^incomplete: the run did not finish \(it started at \S+ and was interrupted, or is still running\)$/) });
    expect(() => parseReport(readFileSync(path, "utf8"), "r")).toThrow(/^r: incomplete: the run did not finish/);
  });
});

describe("--baseline from other settings", () => {
  it("is refused before the run (exit 2, one line), not merely noted", () => {
    const dir = fresh();
    expect(cli("score", "reference", "--profile", "pointer", "--reporter", "json", "--out", dir).code).toBe(0);
    const baseline = join(dir, "report.jsonl");
    const { code, stdout, stderr } = cli("score", "reference", "--baseline", baseline);
    expect(code).toBe(2);
    expect(oneLineError(stderr)).toBe(`tool-conformance: --baseline ${baseline} was scored with profile lesson, level messages, tiers core; this run uses profile ag02, level messages, tiers core: score the baseline with the same settings`);
    expect(stdout).toBe("");
    expect(cli("score", "reference", "--baseline", good, "--level", "verdict").code).toBe(2);
    expect(cli("score", "reference", "--baseline", good, "--tier", "all").code).toBe(2);
  });
});

describe("merge: the same report twice", () => {
  it("is refused after its first appearance, the same file or a copy of its bytes, naming the first: one submission is never counted twice (exit 1)", () => {
    const copy = copyOf(readFileSync(good, "utf8"));
    const out = fresh();
    const { code, stderr } = cli("merge", good, good, copy, "--out", out);
    expect(code).toBe(1);
    const lines = classCsv(out);
    expect(lines.map((l) => l.total)).toEqual(["100", "0", "0"]);
    expect(lines[1]!.status).toBe(`duplicate: the same report as ${good}, given again (counted once)`);
    expect(lines[2]!.status).toBe(`duplicate: the same report as ${good}, given again (counted once)`);
    expect(stderr).toContain(`tool-conformance: ${copy}: duplicate: the same report as ${good}, given again (counted once) (score 0 in the class table)`);
  });
});

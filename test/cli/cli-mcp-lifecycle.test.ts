import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../src/corpus/load.js";
import { verifyReportFile } from "../../src/report/read-report.js";
import { MAIN } from "../helpers/cli-helpers.js";

// Every MCP run ends, bounded, with a whole report, and leaves no process behind: hostile tool
// lists, caps on the listing and on the tools probed, the budget, a signal, an escaped grandchild.

const dirs: string[] = [];
const fresh = () => {
  const dir = mkdtempSync(join(tmpdir(), "tc-life-"));
  dirs.push(dir);
  return dir;
};
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

const server = (name: string, ...args: string[]) => [process.execPath, join(PACKAGE_ROOT, "test", "fixtures", "hostile-mcp", `${name}.mjs`), ...args].join(" ");

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** score --mcp as a user runs it; `until` (polled) then `signal` sent to it. */
function score(args: string[], until?: { ready: () => boolean; signal: NodeJS.Signals }): Promise<Ran> {
  const child = spawn(process.execPath, [MAIN, "score", "--no-progress", ...args], { cwd: PACKAGE_ROOT, env: { ...process.env, NO_COLOR: "1", GITHUB_STEP_SUMMARY: "" } });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  if (until) {
    const poll = setInterval(() => {
      if (!until.ready()) return;
      clearInterval(poll);
      child.kill(until.signal);
    }, 50);
    child.once("exit", () => clearInterval(poll));
  }
  return new Promise((resolve) => child.once("exit", (code) => resolve({ code, stdout, stderr })));
}

type Line = { kind: string; id?: string; status?: string; error?: string; flags?: string[]; stopped?: { cause: string; interrupted?: string } };
const linesOf = (file: string): Line[] => readFileSync(file, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l) as Line);
const summaryOf = (file: string) => linesOf(file).find((l) => l.kind === "summary")!;
const rowsOf = (file: string) => linesOf(file).filter((l) => l.kind === "row");

describe("score --mcp: caps said, never silent", () => {
  it("a tool on page 101 of tools/list: the cut is said in the notes and errors mcp-list/complete (exit 1, never a clean pass)", { timeout: 120_000 }, async () => {
    const out = fresh();
    const run = await score(["--mcp", server("life-101-pages"), "--out", out, "--reporter", "json,terminal"]);
    expect(run.code, run.stderr).toBe(1);
    const file = join(out, "report.jsonl");
    expect(verifyReportFile(file).ok).toBe(true);
    expect(summaryOf(file).flags).toContain("mcp: tool list cut at 100 pages: tools after it not probed");
    expect(rowsOf(file).find((r) => r.id === "mcp-list/complete")).toMatchObject({ status: "errored", error: "tool list cut at 100 pages: tools after it not probed" });
    expect(rowsOf(file).some((r) => r.id!.includes("on_page_101"))).toBe(false);
    expect(run.stdout).toContain("tool list cut at 100 pages");
  });

  it("a cursor given twice: listing stops and says so; the tools are not taken for duplicates", { timeout: 120_000 }, async () => {
    const out = fresh();
    const run = await score(["--mcp", server("life-cursor-loop"), "--out", out, "--reporter", "json"]);
    expect(run.code, run.stderr).toBe(1);
    const file = join(out, "report.jsonl");
    expect(summaryOf(file).flags).toContain('mcp: tools/list repeated cursor "again": listing stopped');
    expect(rowsOf(file).find((r) => r.id === "mcp-list/duplicates")?.status).toBe("passed");
    expect(rowsOf(file).find((r) => r.id === "mcp-list/complete")?.status).toBe("errored");
  });

  it("200,000 tools: the first 1,000 are probed, the cap is said, the run ends with a whole report", { timeout: 300_000 }, async () => {
    const out = fresh();
    // the list's rows only: every tool's probes are still made (for the first 1,000), none is sent
    const run = await score(["--mcp", server("life-200k-tools"), "--filter", "mcp-list/*", "--out", out, "--reporter", "json"]);
    expect(run.code, run.stderr).toBe(1);
    const file = join(out, "report.jsonl");
    expect(verifyReportFile(file).ok).toBe(true);
    expect(summaryOf(file).flags).toContain("mcp: 200000 tools listed: only the first 1000 by name probed (the cap on tools probed), the other 199000 not probed");
  });
});

describe("score --mcp: a failure inside the run is a row, never a crash", () => {
  it("schemas that break the probe generator (minLength 1e9, 3,000 deep, an enum of 150,000): a whole report, the plain tool probed", { timeout: 300_000 }, async () => {
    const out = fresh();
    const run = await score(["--mcp", server("life-hostile-schemas"), "--out", out, "--reporter", "json"]);
    // whatever the generator does with them: a verdict (1) or a run that could not be scored to the end (3), never a crash (2)
    expect([1, 3], run.stderr).toContain(run.code);
    expect(run.stderr).not.toMatch(/\n\s+at /);
    const file = join(out, "report.jsonl");
    expect(verifyReportFile(file).ok, readFileSync(file, "utf8").slice(0, 200)).toBe(true);
    expect(rowsOf(file).some((r) => r.id!.startsWith("mcp/plain/") && r.status !== "errored")).toBe(true);
  });
});

describe("score --mcp: time bounded by the user's flags, signals end it", () => {
  it("--budget 2s on a slow server: the rows not answered are errored with the budget's cause, the report whole, exit 1", { timeout: 120_000 }, async () => {
    const out = fresh();
    const run = await score(["--mcp", server("life-slow-calls"), "--budget", "2s", "--out", out, "--reporter", "json"]);
    expect(run.code, run.stderr).toBe(1);
    const file = join(out, "report.jsonl");
    expect(verifyReportFile(file).ok).toBe(true);
    expect(summaryOf(file).stopped?.cause).toBe("the run's time budget (2 s) ran out");
    const errored = rowsOf(file).filter((r) => r.status === "errored" && r.error === "the run's time budget (2 s) ran out");
    expect(errored.length).toBeGreaterThan(10);
    expect(run.stderr).toContain("give a longer --budget");
  });

  it("a server that takes longer than --timeout to start is given twice its first start's time after each hang: every row answered, none errored", { timeout: 120_000 }, async () => {
    const out = fresh();
    const run = await score(["--mcp", server("witness-server", "--slow-start", "hang"), "--timeout", "400", "--filter", "mcp/hang/extra-property", "--filter", "mcp/hang/missing-required/*", "--out", out, "--reporter", "json", "--min-score", "0"]);
    expect(run.code, run.stderr).toBe(0);
    const rows = rowsOf(join(out, "report.jsonl"));
    expect(rows.map((row) => [row.id, row.status])).toEqual([
      ["mcp/hang/missing-required/path", "failed"],
      ["mcp/hang/extra-property", "failed"],
    ]);
    expect(summaryOf(join(out, "report.jsonl")).flags).toContain("mcp: the server was started again 2 times after a crash or a hang");
    expect(summaryOf(join(out, "report.jsonl")).flags).toContain("mcp: 2 calls got no answer within --timeout (400 ms): each waited that long, then the server was started again");
  });

  it("SIGTERM once calls are under way: exit 143, a whole report.interrupted.jsonl", { timeout: 120_000 }, async () => {
    const out = fresh();
    const calls = join(fresh(), "calls.log");
    const run = await score(["--mcp", server("life-slow-calls", calls), "--out", out, "--reporter", "json"], { ready: () => existsSync(calls) && readFileSync(calls, "utf8").split("\n").length > 3, signal: "SIGTERM" });
    expect(run.code, run.stderr).toBe(143);
    expect(run.stderr).toMatch(/^tool-conformance: interrupted \(SIGTERM\): \d+ of \d+ rows answered/m);
    const file = join(out, "report.interrupted.jsonl");
    expect(verifyReportFile(file)).toMatchObject({ ok: false, reason: expect.stringMatching(/^incomplete: the run was interrupted \(SIGTERM\)/) });
    expect(linesOf(file).at(-1)?.kind).toBe("footer");
  });
});

describe("score --mcp: no process outlives its run", () => {
  it.runIf(process.platform === "linux")("a grandchild in a session of its own holding the server's stdout is killed, and the CLI exits", { timeout: 120_000 }, async () => {
    const out = fresh();
    const pidFile = join(fresh(), "grandchild.pid");
    const run = await score(["--mcp", server("life-setsid-grandchild", pidFile), "--out", out, "--reporter", "json", "--min-score", "0"]);
    expect(run.code, run.stderr).toBe(0);
    const pid = Number(readFileSync(pidFile, "utf8"));
    expect(pid).toBeGreaterThan(0);
    // gone, or a zombie waiting for init to reap it
    const stat = existsSync(`/proc/${pid}/stat`) ? readFileSync(`/proc/${pid}/stat`, "utf8") : "";
    const state = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0];
    if (stat !== "") expect(state).toBe("Z");
  });
});

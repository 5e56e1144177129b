import { spawn, spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { randomUUID } from "node:crypto";
import { PACKAGE_ROOT } from "../../src/corpus/load.js";
import { readReport } from "../../src/report/read-report.js";
import { type Report } from "../../src/report/report.js";
import { probeBwrap } from "../../src/subjects/sandbox/index.js";

// Shared by the sandbox and hostile-subject tests: a submission folder outside this package
// holding the hostile fixtures, the CLI run on it, and a look at every process on the machine
// for the ones a run left behind.

export const MAIN = join(PACKAGE_ROOT, "dist", "cli", "main.js");
export const FIXTURES = join(PACKAGE_ROOT, "test", "fixtures", "hostile");
export const NODE = process.execPath;
/** Node's own folder, when the sandbox's system folders do not hold it (nvm, a tarball). */
export const NODE_BINDS = /^\/(usr|bin)\//.test(NODE) ? [] : ["--sandbox-bind", dirname(dirname(NODE))];

/** Fails (never skips) when bwrap is missing or cannot build a sandbox here: CI installs it. */
export function requireBwrap(): void {
  const probe = probeBwrap();
  if (!probe.ok) throw new Error(`the sandbox tests need bubblewrap able to create namespaces on this machine, and it cannot: ${probe.reason}`);
}

const scratch: string[] = [];

function scratchDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  scratch.push(dir);
  return dir;
}

/** Removes every folder the helpers made. */
export function cleanUp(): void {
  for (const dir of scratch.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** A fresh submission folder, outside this package, with a copy of the hostile fixtures. */
export function submission(): string {
  const dir = join(scratchDir("tc-hostile-"), "submission");
  cpSync(FIXTURES, dir, { recursive: true });
  return dir;
}

/** A token to find a test's processes by (every fixture carries it in its command line). */
export function newToken(): string {
  return `tc-token-${randomUUID()}`;
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
  /** The report, read (and so checked whole) by readReport; undefined when none was written. */
  report: Report | undefined;
  out: string;
}

/** `score` over the fixture `script` with `args`, in `dir`, the JSON report under a fresh --out. */
export function score(dir: string, command: string, args: string[], env: NodeJS.ProcessEnv = {}): CliResult {
  const out = scratchDir("tc-hostile-out-");
  const result = spawnSync(NODE, [MAIN, "score", "--subject", command, "--submission", dir, "--reporter", "json", "--out", out, "--no-progress", "--no-diagnosis", ...args], {
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1", ...env },
    timeout: 60_000,
  });
  let report: Report | undefined;
  try {
    report = readReport(join(out, "report.jsonl"));
  } catch {
    report = undefined;
  }
  return { code: result.status, stdout: result.stdout, stderr: result.stderr, report, out };
}

/** `score` started in the background, for a test that kills it. */
export function scoreInBackground(dir: string, command: string, args: string[]) {
  const out = scratchDir("tc-hostile-out-");
  return spawn(NODE, [MAIN, "score", "--subject", command, "--submission", dir, "--reporter", "json", "--out", out, "--no-progress", "--no-diagnosis", ...args], { stdio: "ignore" });
}

/** The live (not zombie) processes whose command line contains `token`, this one aside. */
export function processesWith(token: string): { pid: number; cmdline: string }[] {
  const found: { pid: number; cmdline: string }[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      const cmdline = readFileSync(`/proc/${name}/cmdline`, "utf8").split("\0").join(" ");
      if (!cmdline.includes(token)) continue;
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      if (stat.slice(stat.lastIndexOf(")") + 2)[0] === "Z") continue;
      found.push({ pid: Number(name), cmdline });
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/** The processes with `token` still alive after up to `ms` for killed ones to be reaped. */
export async function survivors(token: string, ms = 3000): Promise<{ pid: number; cmdline: string }[]> {
  const deadline = Date.now() + ms;
  let left = processesWith(token);
  while (left.length > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 25));
    left = processesWith(token);
  }
  return left;
}

/** Waits (up to `ms`) until `count` processes carry `token` and `also`; returns them. */
export async function waitForProcesses(token: string, also: string, count: number, ms = 10_000): Promise<{ pid: number; cmdline: string }[]> {
  const deadline = Date.now() + ms;
  for (;;) {
    const found = processesWith(token).filter((p) => p.cmdline.includes(also));
    if (found.length >= count || Date.now() >= deadline) return found;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Kills what a test left behind on purpose (the `none` cases that show its limits). */
export function killAll(token: string): void {
  for (const { pid } of processesWith(token)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // gone
    }
  }
}

/** Rows by status. */
export function statuses(report: Report): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const row of report.rows) counts[row.status] = (counts[row.status] ?? 0) + 1;
  return counts;
}

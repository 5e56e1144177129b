import { spawn } from "node:child_process";
import { TIERS } from "../corpus/rows.js";
import type { Report } from "../report/report.js";
import { shellQuote } from "../report/reporters/text.js";
import { scoreSubject, SubjectStoppedError } from "../harness/score-subject.js";
import type { Implementation, ImplementationList } from "./implementations-list.js";

// One listed implementation, scored as a user scores it: what it needs checked, its build run,
// its adapter started from the list's folder, every tier scored, its pinned version checked.

export interface ImplementationScore {
  implementation: Implementation;
  /** The whole report (every tier, level messages), when it could be scored. */
  report?: Report;
  /** Why it could not be scored, or why its score does not stand (a version other than the pinned one). */
  problem?: string;
}

export interface ScoreImplementationOptions {
  jobs?: number;
  progress?: boolean | "auto";
  /** The build's time limit, ms (default 10 minutes). */
  buildTimeoutMs?: number;
}

/** Scores one implementation of the list; never throws for the implementation's own failures (they are its `problem`). */
export async function scoreImplementation(list: ImplementationList, implementation: Implementation, options: ScoreImplementationOptions = {}): Promise<ImplementationScore> {
  if (implementation.requires !== undefined) {
    const needs = await shell(implementation.requires, list.dir, 60_000);
    if (needs.code !== 0) return { implementation, problem: `not installed (\`${implementation.requires}\` failed)${implementation.install ? `: ${implementation.install}` : ""}` };
  }
  if (implementation.build !== undefined) {
    const built = await shell(implementation.build, list.dir, options.buildTimeoutMs ?? 600_000);
    if (built.code !== 0) return { implementation, problem: `the build failed (${built.code === null ? "timed out" : `exit ${built.code}`}): ${tail(built.output)}` };
  }
  const rerun = (row: { id: string }) => `tool-conformance score --subject ${shellQuote(implementation.start)} --tier all --filter ${shellQuote(row.id)}   # from ${list.dir.split("/").pop()}/`;
  let report: Report;
  try {
    report = await scoreSubject(
      { command: implementation.start, cwd: list.dir },
      { profile: "ag02", tiers: [...TIERS], level: "messages", label: implementation.title, rerun, progress: options.progress ?? false, ...(options.jobs !== undefined ? { jobs: options.jobs } : {}) },
    );
  } catch (error) {
    if (error instanceof SubjectStoppedError) return { implementation, report: error.report, problem: `its adapter could not be scored: ${error.message}` };
    throw error;
  }
  // the table is about the pinned version: another one installed makes another row
  const reported = report.header.subject.implementation.version ?? "";
  if (reported !== implementation.version) return { implementation, report, problem: `version ${reported || "(none)"} answered, the list pins ${implementation.version}` };
  return { implementation, report };
}

/** Runs a command through the shell in `cwd`; its exit code (null: timed out) and the end of its output. */
function shell(command: string, cwd: string, timeoutMs: number): Promise<{ code: number | null; output: string }> {
  return new Promise((done) => {
    const child = spawn("/bin/sh", ["-c", command], { cwd, stdio: ["ignore", "pipe", "pipe"], detached: true });
    let output = "";
    const keep = (chunk: Buffer) => (output = (output + chunk.toString("utf8")).slice(-8_000));
    child.stdout.on("data", keep);
    child.stderr.on("data", keep);
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        // already gone
      }
      done({ code: null, output });
    }, timeoutMs);
    child.on("error", (error) => (clearTimeout(timer), done({ code: 127, output: error.message })));
    child.on("close", (code) => (clearTimeout(timer), done({ code: code ?? 1, output })));
  });
}

function tail(text: string): string {
  const lines = text.trim().split("\n").slice(-3).join(" / ");
  return lines.length > 400 ? `…${lines.slice(-400)}` : lines || "no output";
}

import { spawn } from "node:child_process";
import { closeSync, openSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { createSandbox, type Limits, type SandboxMode } from "../subjects/sandbox/index.js";

// Every command `grade` runs for a submission (its build, its score) goes through supervise.js:
// a process group of its own, a time limit, the output into a log file with a size cap, and an
// end when the grader goes away. One hostile submission can hang, flood or crash only its own
// commands.

const SUPERVISOR = fileURLToPath(new URL("./supervise.js", import.meta.url));

/** How a supervised command ended. */
export type Ending =
  | { kind: "exited"; code: number | null; signal: string | null; timedOut: boolean; ms: number }
  /** It could not be started at all (no such program). */
  | { kind: "unstartable"; reason: string; ms: number }
  /** The supervisor itself died without saying (killed from outside). */
  | { kind: "lost"; reason: string; ms: number };

export interface SupervisedOptions {
  cwd?: string;
  limitMs: number;
  /** The command's stdout and stderr are appended here. */
  logFile: string;
  maxLogBytes: number;
  env?: NodeJS.ProcessEnv;
}

/** Runs `argv` under the supervisor; resolves when it is over, however it ended. */
export function runSupervised(argv: readonly string[], options: SupervisedOptions): Promise<Ending> {
  const started = Date.now();
  const log = openSync(options.logFile, "a");
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [SUPERVISOR, String(options.limitMs), String(options.maxLogBytes), "--", ...argv], {
      cwd: options.cwd,
      env: options.env ?? process.env,
      // stdin stays open for as long as this process lives: the supervisor ends its command when it closes
      stdio: ["pipe", "pipe", log],
    });
    closeSync(log);
    let out = "";
    child.stdout!.setEncoding("utf8").on("data", (text: string) => (out += text));
    child.stdin!.on("error", () => {});
    child.on("error", (error) => resolve({ kind: "lost", reason: error.message, ms: Date.now() - started }));
    child.on("close", (code, signal) => {
      const ms = Date.now() - started;
      const last = out.trim().split("\n").pop() ?? "";
      let status: { code?: number | null; signal?: string | null; timedOut?: boolean; ms?: number; error?: string } | undefined;
      try {
        status = JSON.parse(last) as typeof status;
      } catch {
        status = undefined;
      }
      if (!status) resolve({ kind: "lost", reason: signal ? `killed by ${signal}` : `the supervisor exited with code ${String(code)}`, ms });
      else if (status.error !== undefined) resolve({ kind: "unstartable", reason: status.error, ms });
      else resolve({ kind: "exited", code: status.code ?? null, signal: status.signal ?? null, timedOut: status.timedOut === true, ms: status.ms ?? ms });
    });
  });
}

/** How a build is sandboxed: the options of score's sandbox that apply to it. */
export interface BuildSandbox {
  mode: SandboxMode;
  /** More folders the build may read (--sandbox-bind). */
  binds?: readonly string[];
  /** Only these runtimes of /usr (--runtime). */
  runtimes?: readonly string[];
  /** Paths the build must not see (the grades, the key, a private corpus). */
  hide?: readonly string[];
  limits?: Partial<Limits>;
}

/** What to run for a submission's build command. */
export interface BuildPlan {
  argv: string[];
  cwd: string;
  env?: NodeJS.ProcessEnv;
  /** bwrap exits 128 + N when the build was killed by signal N. */
  signalAsExitCode: boolean;
}

/**
 * How a submission's build command runs, in its folder: the one place the build meets a sandbox.
 * Under bwrap it is score's sandbox (src/subjects/sandbox) with the submission's folder writable,
 * as the build writes there; scoring then sees the folder read-only, through score's --sandbox.
 * Throws SandboxError when the sandbox cannot be made.
 */
export function buildPlan(command: string, dir: string, sandbox?: BuildSandbox): BuildPlan {
  if (sandbox === undefined || sandbox.mode === "none") return { argv: ["/bin/sh", "-c", command], cwd: dir, signalAsExitCode: false };
  const plan = createSandbox({ mode: "bwrap", submission: dir, writable: true, binds: sandbox.binds ?? [], runtimes: sandbox.runtimes ?? [], hide: sandbox.hide ?? [], limits: sandbox.limits ?? {} }).plan(command);
  const argv = plan.shell ? ["/bin/sh", "-c", plan.file] : [plan.file, ...plan.args];
  // the sandbox takes the command's stdout on another descriptor: there, it is the log as well
  // (and its status descriptor, which only a subject's launch reads, goes nowhere)
  const status = plan.statusFd === undefined ? "" : ` ${plan.statusFd}>/dev/null`;
  const launch = plan.stdoutFd === 1 ? argv : ["/bin/sh", "-c", `exec ${plan.stdoutFd}>&1${status} && exec "$@"`, "sh", ...argv];
  return { argv: launch, cwd: plan.cwd ?? dir, env: plan.env, signalAsExitCode: plan.signalAsExitCode };
}

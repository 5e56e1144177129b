// What every sandbox shares: its modes, caps, spawn plan and error.

export const SANDBOX_MODES = ["none", "bwrap"] as const;
export type SandboxMode = (typeof SANDBOX_MODES)[number];

/** A process environment (as process.env), typed without Node's global namespace so the package's declarations need no @types/node. */
export type Environment = Record<string, string | undefined>;

/** Caps on each process of a sandboxed subject (setrlimit, so they hold for an unprivileged user). */
export interface Limits {
  /** Writable private memory per process, bytes (RLIMIT_DATA); also the size of the private /tmp. */
  memoryBytes: number;
  /** Processes (and threads) of the sandbox's user (RLIMIT_NPROC; Linux does not apply it to root). */
  maxProcesses: number;
  /** CPU seconds per process (RLIMIT_CPU): past it the process is killed. */
  cpuSeconds: number;
  /** The largest file a process may write, bytes (RLIMIT_FSIZE); also the size of /dev/shm. */
  fileBytes: number;
}

export const DEFAULT_LIMITS: Limits = {
  memoryBytes: 512 * 1024 * 1024,
  maxProcesses: 256,
  cpuSeconds: 120,
  fileBytes: 64 * 1024 * 1024,
};

/** What to spawn for one subject process. */
export interface SpawnPlan {
  /** The executable; with `shell`, the command line given to /bin/sh -c. */
  file: string;
  args: string[];
  shell: boolean;
  cwd?: string;
  env: Environment;
  /**
   * The child's file descriptor that carries the subject's stdout: 1, or a higher one when the
   * launcher itself would hold fd 1 open (bwrap keeps its stdio for its whole life, so a subject
   * that closes its stdout would never be seen doing so).
   */
  stdoutFd: number;
  /**
   * The child's descriptor on which the launcher reports (bwrap's JSON status): its text holds
   * `"exit-code"` once the command inside has run and exited. A launcher that exits with a code and
   * never wrote it failed before the subject ran (a failure of the grader's, not the subject's).
   * Always stdoutFd + 1.
   */
  statusFd?: number;
  /** Folders of the machine the subject sees (its submission, its binds): a path in them is not its own, even under /tmp. */
  shown?: string[];
  /** The child's descriptor on which a tracer outside the sandbox writes what the subject does (witness.ts), above the others. */
  traceFd?: number;
  /**
   * Whether an exit code above 128 means the subject was killed by signal (code - 128): bwrap
   * exits so when the process it runs is killed (by a cap, for one).
   */
  signalAsExitCode: boolean;
}

/**
 * The stdio of a spawn of `plan`: stdin, stderr and the subject's stdout piped (at plan.stdoutFd),
 * and the launcher's status descriptor piped too (Node leaves a descriptor above 2 marked "ignore"
 * closed, and bwrap refuses to start without it): a spawner that does not read it resumes it.
 */
export function stdioOf(plan: SpawnPlan): ("pipe" | "ignore")[] {
  const stdio: ("pipe" | "ignore")[] = plan.stdoutFd === 1 ? ["pipe", "pipe", "pipe"] : ["pipe", "ignore", "pipe", ...Array<"ignore">(plan.stdoutFd - 3).fill("ignore"), "pipe"];
  if (plan.statusFd !== undefined) stdio[plan.statusFd] = "pipe";
  if (plan.traceFd !== undefined) {
    while (stdio.length < plan.traceFd) stdio.push("ignore");
    stdio[plan.traceFd] = "pipe";
  }
  return stdio;
}

export interface Sandbox {
  readonly mode: SandboxMode;
  /** What to spawn to run `command`, a shell command line. `env` and `cwd` apply under `none` only. */
  plan(command: string, base?: { cwd?: string; env?: Environment }): SpawnPlan;
  /** One line for people: what the subject sees and its caps. */
  readonly summary: string;
}

/** A misconfigured or unavailable sandbox: the run cannot start (a usage error for the CLI). */
export class SandboxError extends Error {
  override name = "SandboxError";
}

/** A size for people: 512 MiB, 64 KiB, 1000 bytes. */
export function formatSize(bytes: number): string {
  for (const [unit, size] of [["GiB", 1024 ** 3], ["MiB", 1024 ** 2], ["KiB", 1024]] as const) {
    if (bytes >= size && bytes % size === 0) return `${bytes / size} ${unit}`;
  }
  return `${bytes} bytes`;
}

/**
 * The command line as the shell should run it: a plain command (words only, no shell syntax)
 * gets `exec`, so that the subject replaces the shell. Otherwise the shell lives on as its
 * parent and holds its stdout open: a subject that closes stdout would not be seen doing so,
 * and its death by a signal would read as the shell's exit code.
 */
export function shellLine(command: string): string {
  const trimmed = command.trim();
  if (/[;&|<>()$`\\\n{}!#*?[\]~]/.test(trimmed)) return command;
  const first = /^\S+/.exec(trimmed)?.[0] ?? "";
  if (first === "" || first.includes("=") || /["']/.test(first) || SHELL_WORDS.has(first)) return command;
  return `exec ${trimmed}`;
}

/** Words the shell reads itself: `exec` in front of them would change what they do. */
const SHELL_WORDS = new Set(["exec", "cd", "export", "unset", "set", "eval", "source", ".", "if", "for", "while", "until", "case", "ulimit", "umask", "trap", "wait", "time", "command", "builtin", "alias", "read", "shift", "readonly", "local", "return", "exit", "test", "[", "true", "false", ":"]);

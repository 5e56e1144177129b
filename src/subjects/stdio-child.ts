import { spawn, type ChildProcess } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { constants } from "node:os";
import type { Readable } from "node:stream";
import { killPipeHolders, pipeInodes } from "./pipe-holders.js";
import { stdioOf, type SpawnPlan } from "./sandbox/common.js";

// One subject process of a stdio subject (src/subjects/stdio.ts): spawned in its own process group,
// one request line in flight at a time, its stdout read a line at a time up to a cap, the end of its
// stderr kept, and the whole group killed when it breaks, when it is closed, or when the harness exits.

/** How much of a subject's stderr is kept (the end of it). */
const STDERR_TAIL_BYTES = 8 * 1024;
/** How long to wait for a killed process's pipes to close. */
export const CLOSE_WAIT_MS = 2_000;
/** How long to wait for the rest of a killed process's group to be gone. */
const GROUP_WAIT_MS = 1_000;
/**
 * How long a closed stdout waits for the process's exit before it is the cause: a process that
 * exits closes stdout too, and its exit status says more.
 */
const STDOUT_END_GRACE_MS = 200;

/** The most of the sandbox's status a Child keeps: two short JSON lines are all bwrap writes. */
const STATUS_MAX_CHARS = 4096;

/** One subject process, in its own process group; one request in flight at a time. */
export class Child {
  /** Why the process can no longer be used (it exited, hung, flooded, broke the protocol); set once. */
  broken: string | undefined;
  /** How the process ended when it died on its own, before anything else broke it ("the process exited with code 66"). */
  died: string | undefined;
  /**
   * Set when the process failed on the grader's side, from the operating system's answer alone:
   * the spawn failed with an errno, or the sandbox exited with a code before running the subject
   * (its status descriptor never reported the command's exit). Never from what the subject wrote.
   */
  fault: string | undefined;
  private exitCode: number | null = null;
  private statusText = "";
  private readonly process: ChildProcess;
  private readonly pid: number | undefined;
  private exited = false;
  private exitDescription: string | undefined;
  /** The request in flight, for messages. */
  private pendingWhat = "";
  private closed = false;
  private readonly whenClosed: Promise<void>;
  private stderr: Buffer[] = [];
  private stderrBytes = 0;
  private line: Buffer[] = [];
  private readBytes = 0;
  private waiter: { resolve(line: string): void; reject(error: Error): void } | undefined;
  /** The first line written with no request waiting, until it breaks the process (see stray()). */
  private strayLine: string | undefined;

  constructor(
    plan: SpawnPlan,
    private readonly limits: { maxLineBytes: number },
  ) {
    const stdio = stdioOf(plan);
    this.process = spawn(plan.file, plan.args, { shell: plan.shell, detached: true, stdio, cwd: plan.cwd, env: plan.env });
    this.pid = this.process.pid;
    if (this.pid !== undefined) track(this.pid);
    let markClosed: () => void = () => {};
    this.whenClosed = new Promise((resolve) => (markClosed = resolve));
    const { stdin, stderr } = this.process;
    const stdout = this.process.stdio[plan.stdoutFd] as Readable;
    // our pipes' identities, taken while they are open: whoever still holds one at the end is killed
    const pipes = pipeInodes(this.process.pid, stdio.flatMap((kind, fd) => (kind === "pipe" ? [fd] : [])));
    stdin!.on("error", () => {}); // EPIPE after a crash: the exit says what happened
    stdout!.on("data", (chunk: Buffer) => this.onStdout(chunk));
    // a process that closes stdout and lives on can never answer: say so now, not at the timeout
    stdout!.on("end", () => {
      setTimeout(() => {
        if (!this.exited) this.breakWith("the subject closed its stdout (the process kept running); it was stopped");
      }, STDOUT_END_GRACE_MS).unref();
    });
    stderr!.on("data", (chunk: Buffer) => this.onStderr(chunk));
    const status = plan.statusFd === undefined ? undefined : (this.process.stdio[plan.statusFd] as Readable | null);
    status?.on("data", (chunk: Buffer) => {
      if (this.statusText.length < STATUS_MAX_CHARS) this.statusText += chunk.toString("utf8");
    });
    this.process.on("error", (error) => {
      const code = (error as { code?: unknown }).code;
      if (typeof code === "string") this.fault = `spawn ${plan.file} ${code}`;
      this.breakWith(`the process could not be run: ${error.message}`);
      this.closed = true;
      if (this.pid !== undefined) untrack(this.pid);
      markClosed();
    });
    this.process.on("exit", (code, signal) => {
      this.exited = true;
      // whatever it started goes with it
      this.killGroup();
      if (this.pid !== undefined) untrack(this.pid);
      // pipes held open by a process outside the group (setsid) must not keep us waiting: it is killed, the pipes destroyed
      setTimeout(() => {
        killPipeHolders(pipes);
        for (const stream of [stdin, stdout, stderr, status]) stream?.destroy();
      }, CLOSE_WAIT_MS / 2).unref();
      this.exitCode = code;
      this.exitDescription = describeExit(code, signal, plan.signalAsExitCode);
    });
    this.process.on("close", () => {
      // the launcher exited on its own, with a code, and never reported the subject's exit: it never ran it
      if (status && this.exitCode !== null && this.exitCode !== 0 && !this.statusText.includes('"exit-code"')) {
        this.fault ??= `the sandbox exited with code ${this.exitCode} before the subject ran`;
      }
      this.closed = true;
      if (this.broken === undefined) this.died = this.exitDescription ?? "the process ended";
      this.breakWith(this.exitDescription ?? "the process ended");
      markClosed();
    });
  }

  get usable(): boolean {
    return this.broken === undefined && this.strayLine === undefined && !this.exited;
  }

  /** Writes one request line and resolves to the next non-blank line of stdout. */
  request(line: string, timeoutMs: number, what: string): Promise<string> {
    if (this.broken === undefined && this.strayLine !== undefined) this.breakWith(this.reason!);
    if (this.broken !== undefined) return Promise.reject(new Error(this.broken));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.breakWith(`no reply to ${what} within ${timeoutMs} ms; the subject was stopped`);
      }, timeoutMs);
      this.waiter = {
        resolve: (reply) => {
          clearTimeout(timer);
          resolve(reply);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      };
      this.pendingWhat = what;
      this.process.stdin!.write(line + "\n");
    });
  }

  /** Why the process cannot be used, if it cannot. */
  get reason(): string | undefined {
    return this.broken ?? (this.strayLine === undefined ? undefined : `the subject wrote to stdout when no request was waiting: ${excerpt(this.strayLine)}`) ?? this.exitDescription;
  }

  /**
   * Marks the process unusable for `reason` (the first reason wins), kills it and everything
   * it started, and fails the request in flight. Returns the reason that stands.
   */
  breakWith(reason: string): string {
    if (this.broken === undefined) {
      this.broken = reason;
      this.killGroup();
    }
    const waiter = this.waiter;
    this.waiter = undefined;
    const during = this.broken!.startsWith("the process") ? ` while answering ${this.pendingWhat || "a request"}` : "";
    waiter?.reject(new Error(this.broken! + during));
    return this.broken!;
  }

  /** Kills the process and everything it started, and waits (bounded) until they are gone. */
  async stop(): Promise<void> {
    this.breakWith("the session stopped the process");
    this.killGroup();
    await this.ended(CLOSE_WAIT_MS);
    await this.groupGone(GROUP_WAIT_MS);
  }

  /**
   * Waits until no process is left in the group, killing again what is still there. Safe after
   * the leader is gone: a process group id is not reused while any process is in the group.
   */
  private async groupGone(ms: number): Promise<void> {
    if (this.pid === undefined) return;
    const deadline = Date.now() + ms;
    for (;;) {
      if (!groupAlive(this.pid)) return;
      if (Date.now() >= deadline) return;
      try {
        process.kill(-this.pid, "SIGKILL");
      } catch {
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  /** Resolves when the process has ended and its pipes are closed, or after `ms`. */
  ended(ms: number): Promise<void> {
    if (this.closed) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      void this.whenClosed.then(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  stderrTail(): string {
    return Buffer.concat(this.stderr).toString("utf8").replace(/^\uFFFD+/, "");
  }

  private killGroup(): void {
    if (this.pid === undefined || this.closed) return;
    try {
      process.kill(-this.pid, "SIGKILL");
    } catch {
      // the group is gone already
    }
  }

  private onStdout(chunk: Buffer): void {
    let start = 0;
    while (start < chunk.length && this.broken === undefined) {
      const newline = chunk.indexOf(10, start);
      const end = newline === -1 ? chunk.length : newline;
      this.readBytes += end - start + (newline === -1 ? 0 : 1);
      if (this.readBytes > this.limits.maxLineBytes) {
        const doing = this.waiter ? `while answering ${this.pendingWhat}` : "between requests";
        this.breakWith(`the subject wrote more than ${this.limits.maxLineBytes} bytes ${doing} without ending a reply line; it was stopped`);
        return;
      }
      this.line.push(chunk.subarray(start, end));
      if (newline === -1) return;
      const text = Buffer.concat(this.line).toString("utf8");
      this.line = [];
      start = newline + 1;
      if (text.trim() === "") continue;
      this.readBytes = 0;
      const waiter = this.waiter;
      this.waiter = undefined;
      if (waiter) waiter.resolve(text);
      else this.stray(text);
    }
  }

  /**
   * A line with no request waiting for it. It may come in the same read as the line just handed
   * to the request in flight, before that line is parsed: when that line is not a reply (a print
   * of the implementation's, say, read before the adapter's real reply), it is the first
   * unexpected line and the one to quote; the parse breaks the process with it first. So this
   * line's own verdict waits until the reads and parses in progress are done, and no request is
   * sent to the process meanwhile.
   */
  private stray(text: string): void {
    if (this.strayLine !== undefined) return;
    this.strayLine = text;
    setImmediate(() => this.breakWith(this.reason!));
  }

  private onStderr(chunk: Buffer): void {
    this.stderr.push(chunk);
    this.stderrBytes += chunk.length;
    while (this.stderrBytes - this.stderr[0]!.length >= STDERR_TAIL_BYTES) this.stderrBytes -= this.stderr.shift()!.length;
    if (this.stderrBytes > STDERR_TAIL_BYTES * 2) {
      const kept = Buffer.concat(this.stderr).subarray(-STDERR_TAIL_BYTES);
      this.stderr = [kept];
      this.stderrBytes = kept.length;
    }
  }
}

/**
 * Whether a process group still has a live member. A killed process whose parent died first is
 * a zombie until init reaps it, which some inits do late; it counts for kill(-pgid, 0) but runs
 * nothing, so on Linux the group's members are read from /proc.
 */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
  } catch {
    return false;
  }
  let names: string[];
  try {
    names = readdirSync("/proc");
  } catch {
    return true;
  }
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const [state, , group] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(group) === pgid && state !== "Z") return true;
    } catch {
      // gone meanwhile
    }
  }
  return false;
}

// Every live process group, killed if this process exits first: no subject outlives the harness.
const live = new Set<number>();
const SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;

function killAll(): void {
  for (const pid of live) {
    try {
      process.kill(-pid, "SIGKILL");
    } catch {
      // gone
    }
  }
  live.clear();
}

function onSignal(signal: NodeJS.Signals): void {
  killAll();
  for (const s of SIGNALS) process.off(s, onSignal);
  process.kill(process.pid, signal);
}

function track(pid: number): void {
  if (live.size === 0) {
    process.on("exit", killAll);
    for (const s of SIGNALS) process.on(s, onSignal);
  }
  live.add(pid);
}

function untrack(pid: number): void {
  if (!live.delete(pid) || live.size > 0) return;
  process.off("exit", killAll);
  for (const s of SIGNALS) process.off(s, onSignal);
}

/** How a process ended, in words; a sandbox reports its subject's death by signal as exit code 128 + N. */
function describeExit(code: number | null, signal: NodeJS.Signals | null, signalAsExitCode: boolean): string {
  if (signal) return `the process was killed by ${signal}`;
  if (signalAsExitCode && code !== null && code > 128) {
    const name = Object.entries(constants.signals).find(([, n]) => n === code - 128)?.[0];
    if (name) return `the process was killed by ${name} (the sandbox's exit code ${code})`;
  }
  return `the process exited with code ${code}`;
}

export function excerpt(text: string, max = 200): string {
  return JSON.stringify(text.length > max ? `${text.slice(0, max)}…` : text);
}

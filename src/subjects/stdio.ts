import { spawn, type ChildProcess } from "node:child_process";
import type { Readable } from "node:stream";
import { readdirSync, readFileSync } from "node:fs";
import { constants } from "node:os";
import type { Body, StartReply } from "./protocol.js";
import { PROTOCOL_VERSION } from "./protocol.js";
import { checkMessage, explainMessage, type MessageKind } from "./protocol-schemas.js";
import { markGraderFault, ProtocolError, SubjectDied } from "./subject.js";
import { noSandbox } from "./sandbox/none.js";
import { stdioOf, type Sandbox, type SpawnPlan } from "./sandbox/common.js";
import { SubjectError, type Session, type Subject } from "./subject.js";
import { offersProfile } from "../corpus/rows.js";

// A subject reached over the protocol (conformance/PROTOCOL.md): a command run through the
// shell, one request a line on its stdin, one reply a line on its stdout, stderr kept (its end)
// for the report. A reply that breaks the protocol, a crash, a hang, a flood or a closed stdout
// errors that row; the process (and every process it started) is killed and, on recover(),
// started again. The command runs in a sandbox (src/subjects/sandbox/): none by default.

export interface StdioOptions {
  /** No reply within this many ms errors the row and kills the process. Default 5000. */
  timeoutMs?: number;
  /** The start handshake's deadline, process start included. Default 10000. */
  startTimeoutMs?: number;
  /**
   * Restarts in a row, over all the subject's sessions, with no request answered in between;
   * one more failure throws SubjectError. A subject that fails now and then is restarted as often
   * as it fails; one that fails at every request stops the run soon, whatever --jobs is. Default 20.
   */
  maxRestarts?: number;
  /** The most bytes read for one reply (its line and any blank lines before it). Default 8 MiB. */
  maxLineBytes?: number;
  /** The working directory (under a sandbox that sets its own, ignored). */
  cwd?: string;
  /** The environment (under a sandbox that sets its own, ignored). */
  env?: Record<string, string | undefined>;
  /** How the command is run; default no sandbox (src/subjects/sandbox/none.ts). */
  sandbox?: Sandbox;
}

export const STDIO_DEFAULTS = { timeoutMs: 5_000, startTimeoutMs: 10_000, maxRestarts: 20, maxLineBytes: 8 * 1024 * 1024 } as const;

/** How much of a subject's stderr is kept (the end of it). */
const STDERR_TAIL_BYTES = 8 * 1024;
/** How long close() waits for a process to exit after `stop` before it kills it. */
const STOP_GRACE_MS = 500;
/** How long to wait for a killed process's pipes to close. */
const CLOSE_WAIT_MS = 2_000;
/** How long to wait for the rest of a killed process's group to be gone. */
const GROUP_WAIT_MS = 1_000;
/**
 * How long a closed stdout waits for the process's exit before it is the cause: a process that
 * exits closes stdout too, and its exit status says more.
 */
const STDOUT_END_GRACE_MS = 200;

type Settings = Required<Omit<StdioOptions, "cwd" | "env">> & Pick<StdioOptions, "cwd" | "env">;

/** The command, run through the shell, as a subject. */
export function stdioSubject(command: string, options: StdioOptions = {}): Subject {
  const settings: Settings = { ...STDIO_DEFAULTS, sandbox: noSandbox(), ...definedOnly(options) };
  // one budget for every session of the subject, so that it does not grow with --jobs
  const restarts = new RestartBudget(settings.maxRestarts);
  return {
    label: command,
    async open(profile) {
      const session = new StdioSession(command, profile, settings, restarts);
      await session.start();
      return session;
    },
  };
}

/** Restarts in a row with no answer in between, shared by a subject's sessions. */
class RestartBudget {
  private streak = 0;

  constructor(readonly max: number) {}

  /** Takes one restart; false when the streak is at the cap. Synchronous, so sessions cannot both take the last one. */
  take(): boolean {
    if (this.streak >= this.max) return false;
    this.streak++;
    return true;
  }

  /** A request was answered: the subject is not failing at everything. */
  answered(): void {
    this.streak = 0;
  }
}

class StdioSession implements Session {
  hello!: StartReply;
  private child: Child | undefined;
  private seq = 0;
  private closed = false;
  /** Set by abort(): why no request is sent any more. */
  private aborted: string | undefined;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly command: string,
    private readonly profile: string,
    private readonly settings: Settings,
    private readonly restarts: RestartBudget,
  ) {}

  /** A shorter deadline than the settings' (shorten()), once the subject has hung on several rows. */
  private deadlineMs: number | undefined;

  shorten(ms: number): void {
    this.deadlineMs = Math.min(ms, this.deadlineMs ?? ms);
  }

  readonly send = (body: Body): Promise<Record<string, unknown>> => this.serially(() => this.exchange(body));

  /** Starts the first process. Throws SubjectError when it cannot. */
  async start(): Promise<void> {
    this.hello = await this.launch();
  }

  recover(): Promise<void> {
    return this.serially(async () => {
      if (!this.closed && this.aborted === undefined && !this.healthy()) await this.restart();
    });
  }

  /**
   * Stops at once, whatever is in flight: the process is killed, the request waiting fails with
   * `reason`, and no request is sent any more (the run's time budget ran out).
   */
  abort(reason: string): void {
    this.aborted ??= reason;
    this.child?.breakWith(reason);
  }

  close(): Promise<void> {
    return this.serially(async () => {
      if (this.closed) return;
      this.closed = true;
      const child = this.child;
      if (!child) return;
      if (child.usable) {
        try {
          await child.request(JSON.stringify({ seq: ++this.seq, cmd: "stop" }), STOP_GRACE_MS, '"stop"');
          await child.ended(STOP_GRACE_MS);
        } catch {
          // it gets killed below
        }
      }
      await child.stop();
    });
  }

  stderrTail(): string | undefined {
    return this.child?.stderrTail() || undefined;
  }

  /** Runs `task` after every earlier one: one request at a time per process. */
  private serially<T>(task: () => Promise<T>): Promise<T> {
    const result = this.queue.then(task);
    this.queue = result.catch(() => {});
    return result;
  }

  private healthy(): boolean {
    return this.child !== undefined && this.child.usable;
  }

  private async exchange(body: Body): Promise<Record<string, unknown>> {
    if (this.closed) throw new ProtocolError("the session is closed");
    if (this.aborted !== undefined) throw new ProtocolError(this.aborted);
    // a process that died or broke the protocol between rows is replaced before this row
    if (!this.healthy()) await this.restart();
    const child = this.child!;
    const seq = ++this.seq;
    const what = `"${body.cmd}" (seq ${seq})`;
    let reply: Record<string, unknown>;
    try {
      reply = parseReply(await child.request(JSON.stringify({ seq, ...body }), Math.min(this.settings.timeoutMs, this.deadlineMs ?? Infinity), what), what, child, seq);
    } catch (error) {
      // the process exited or was killed: once its pipes close, its stderr is complete
      await child.ended(CLOSE_WAIT_MS);
      // a death of its own (not a kill of ours) is told apart: in a `concurrently` batch it is the implementation's answer
      if (child.fault !== undefined) throw markGraderFault(rowError(messageOf(error), child), child.fault);
      if (child.died !== undefined) throw new SubjectDied(messageOf(error), child.died, child.stderrTail() || undefined);
      throw rowError(messageOf(error), child);
    }
    this.restarts.answered();
    if (reply.errored === true) {
      throw rowError(`the subject could not answer ${what}: ${typeof reply.message === "string" ? reply.message : "(no message)"}`, child);
    }
    const problems = explainMessage(`${body.cmd}.reply` as MessageKind, reply);
    if (problems.length > 0) throw rowError(`the reply to ${what} breaks the protocol: ${problems.join("; ")}`, child);
    const { seq: _, ...rest } = reply;
    return readOffWire(body, rest);
  }

  private async restart(): Promise<void> {
    const reason = this.child?.reason ?? "the process was not running";
    await this.child?.stop();
    if (!this.restarts.take()) {
      throw new SubjectError(`the subject keeps failing: gave up after ${this.restarts.max} restarts (last: ${reason}) with no request answered in between`, this.child?.stderrTail());
    }
    await this.launch();
  }

  /** Spawns a process and does the start handshake. Throws SubjectError, leaving no process behind. */
  private async launch(): Promise<StartReply> {
    const child = new Child(this.settings.sandbox.plan(this.command, { cwd: this.settings.cwd, env: this.settings.env }), this.settings);
    this.child = child;
    const seq = ++this.seq;
    const fail = async (reason: string): Promise<never> => {
      await child.stop();
      const stderr = child.stderrTail();
      const last = lastWords(stderr);
      const error = new SubjectError(`could not start ${JSON.stringify(this.command)}: ${reason}${last ? `; its stderr ends: ${last.slice(0, 300)}` : ""}`, stderr || undefined);
      throw child.fault === undefined ? error : markGraderFault(error, child.fault);
    };
    let line: string;
    try {
      line = await child.request(JSON.stringify({ seq, cmd: "start", version: PROTOCOL_VERSION, profile: this.profile }), this.settings.startTimeoutMs, `"start" (seq ${seq})`);
    } catch (error) {
      return fail(messageOf(error));
    }
    let reply: Record<string, unknown>;
    try {
      reply = parseReply(line, "the start handshake", child, seq);
    } catch (error) {
      return fail(messageOf(error));
    }
    if (reply.errored === true) return fail(`it refused the start handshake: ${String(reply.message)}`);
    if (typeof reply.version === "number" && reply.version !== PROTOCOL_VERSION) {
      return fail(`it speaks protocol version ${reply.version}; this harness speaks version ${PROTOCOL_VERSION}`);
    }
    const problems = checkMessage("start.reply", reply);
    if (problems.length > 0) return fail(`its start reply breaks the protocol: ${problems.join("; ")}`);
    const hello = reply as unknown as StartReply;
    if (!offersProfile(hello.profiles, this.profile)) {
      return fail(`it does not support the ${this.profile} profile (it supports: ${hello.profiles.join(", ")})`);
    }
    return hello;
  }
}

/**
 * A reply as its JSON text means it: a definition without `description` has the empty one, as a
 * Go ToolDef tagged `json:"description,omitempty"` writes it (PROTOCOL.md, definitions), inside a
 * `concurrently` batch too. Only on the wire: an in-process implementation that leaves it out has
 * no JSON to blame.
 */
function readOffWire(body: Body, reply: Record<string, unknown>): Record<string, unknown> {
  if (body.cmd === "definitions" && Array.isArray(reply.definitions)) return { ...reply, definitions: reply.definitions.map(describedDefinition) };
  if (body.cmd === "concurrently" && Array.isArray(reply.replies)) {
    const requests = body.requests;
    return { ...reply, replies: reply.replies.map((sub: unknown, i) => (requests[i] && isObject(sub) ? readOffWire(requests[i], sub) : sub)) };
  }
  return reply;
}

function describedDefinition(definition: unknown): unknown {
  return isObject(definition) && !Object.hasOwn(definition, "description") ? { ...definition, description: "" } : definition;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The line of a dying process's stderr that says why: the last error line near the end (Node
 * follows it with the error's fields and its version, Python precedes it with the traceback),
 * or else the last line.
 */
function lastWords(stderr: string): string | undefined {
  const lines = stderr
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !/^Node\.js v[\d.]+$/.test(line));
  const error = lines
    .slice(-12)
    .reverse()
    .find((line) => /^([A-Za-z_.]*(Error|Exception)|error|fatal|panic)\b[^:]*:/i.test(line));
  return error ?? lines.pop();
}

/** Parses one reply line; a line that is not a JSON object with the right seq breaks the stream. */
function parseReply(line: string, what: string, child: Child, seq: number): Record<string, unknown> {
  let reply: unknown;
  try {
    reply = JSON.parse(line);
  } catch {
    throw new ProtocolError(child.breakWith(`the reply to ${what} is not JSON: ${excerpt(line)}`));
  }
  if (typeof reply !== "object" || reply === null || Array.isArray(reply)) {
    throw new ProtocolError(child.breakWith(`the reply to ${what} is not a JSON object: ${excerpt(line)}`));
  }
  const object = reply as Record<string, unknown>;
  // an errored reply to a request the adapter could not read carries seq null
  const unread = object.errored === true && object.seq === null;
  if (object.seq !== seq && !unread) {
    const got = object.seq === undefined ? "no seq" : `seq ${JSON.stringify(object.seq)}`;
    throw new ProtocolError(child.breakWith(`the reply to ${what} carries ${got}`));
  }
  return object;
}

/** A row's error, with the subject's stderr as it was then (the runner shows it with the row). */
function rowError(message: string, child: Child): ProtocolError {
  const error = new ProtocolError(message);
  const stderr = child.stderrTail();
  return stderr ? Object.assign(error, { stderr }) : error;
}

/** The most of the sandbox's status a Child keeps: two short JSON lines are all bwrap writes. */
const STATUS_MAX_CHARS = 4096;

/** One subject process, in its own process group; one request in flight at a time. */
class Child {
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
    private readonly settings: Settings,
  ) {
    const stdio = stdioOf(plan);
    this.process = spawn(plan.file, plan.args, { shell: plan.shell, detached: true, stdio, cwd: plan.cwd, env: plan.env });
    this.pid = this.process.pid;
    if (this.pid !== undefined) track(this.pid);
    let markClosed: () => void = () => {};
    this.whenClosed = new Promise((resolve) => (markClosed = resolve));
    const { stdin, stderr } = this.process;
    const stdout = this.process.stdio[plan.stdoutFd] as Readable;
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
      // pipes held open by a process outside the group must not keep us waiting
      setTimeout(() => {
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
      if (this.readBytes > this.settings.maxLineBytes) {
        const doing = this.waiter ? `while answering ${this.pendingWhat}` : "between requests";
        this.breakWith(`the subject wrote more than ${this.settings.maxLineBytes} bytes ${doing} without ending a reply line; it was stopped`);
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

function excerpt(text: string, max = 200): string {
  return JSON.stringify(text.length > max ? `${text.slice(0, max)}…` : text);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function definedOnly<T extends object>(options: T): Partial<T> {
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)) as Partial<T>;
}

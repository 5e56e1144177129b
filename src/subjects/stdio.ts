import type { Body, StartReply } from "./protocol.js";
import { PROTOCOL_VERSION } from "./protocol.js";
import { checkMessage, explainMessage, type MessageKind } from "./protocol-schemas.js";
import { noSandbox } from "./sandbox/none.js";
import type { Sandbox } from "./sandbox/common.js";
import { Child, CLOSE_WAIT_MS, excerpt } from "./stdio-child.js";
import { markGraderFault, ProtocolError, SubjectDied, SubjectError, type Session, type Subject } from "./subject.js";
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

/** How long close() waits for a process to exit after `stop` before it kills it. */
const STOP_GRACE_MS = 500;

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


function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function definedOnly<T extends object>(options: T): Partial<T> {
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)) as Partial<T>;
}

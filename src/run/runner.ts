import { availableParallelism, loadavg } from "node:os";
import { resultOf, statusOf, type RowResult, type ScoreOptions } from "./outcome.js";
import type { Send, StartReply } from "../subjects/protocol.js";
import type { ProfileName, Row } from "../corpus/rows.js";
import { PROGRESS_LINE_MS, startProgress } from "./progress.js";
import { runRow } from "./run-row.js";
import { Hangs } from "./hangs.js";
import { graderFaultOf, markGraderFault, ProtocolError, SubjectError, type Session, type Subject } from "../subjects/subject.js";

// The runner: rows against a subject, several sessions at once, every row on its own.
// A row that breaks the protocol, times out or crashes the subject is `errored` and the
// session recovers; only a SubjectError (the subject cannot start or keeps failing) stops the run.
// A time budget, when given, bounds the whole run: past it, what is in flight is stopped and
// every row not answered is errored with that cause; the run still returns every row.
// Which rows a run takes is select.ts; its progress on stderr, progress.ts.

export { filterMatches, globToRegExp, selectRows, type Selection } from "./select.js";

export interface RunOptions extends ScoreOptions {
  profile: ProfileName;
  /** Sessions in parallel; default os.availableParallelism(). */
  jobs?: number;
  /**
   * A guard on every request: no reply within this many ms errors the row. Subjects with their
   * own timeout (stdio) should get a longer guard so theirs fires first and says more.
   */
  requestTimeoutMs?: number;
  /**
   * Progress on stderr: "auto" (default) shows a bar when stderr is a terminal and the run is long,
   * and otherwise (a CI log, a file) a line every `progressEveryMs`; false shows nothing.
   */
  progress?: "auto" | boolean;
  /** Without a terminal: how often a progress line is written, ms (default 10,000); the first after as long. */
  progressEveryMs?: number;
  /** Called as each row finishes (in completion order). */
  onResult?: (result: RowResult, done: number, total: number) => void;
  /**
   * The run's wall-clock budget, ms, from the call. Past it, requests in flight are stopped
   * (sessions that can abort), and every row not answered is errored. Default: no budget.
   */
  budgetMs?: number;
  /**
   * Aborted (its reason the signal's name, e.g. "SIGINT"): requests in flight are stopped, no row is
   * sent any more, and the run returns what was answered, marked interrupted. Rows never sent get
   * no onResult call: the caller reports them as not answered.
   */
  interrupt?: AbortSignal;
  /**
   * Whether the machine is starved right now, and how (`load 5.2 on 2 cores`): a row that timed out
   * then is run once more before it counts. Default: the load average against the cores.
   */
  starved?: () => string | undefined;
}

export interface Run {
  label: string;
  hello: StartReply;
  /** One result per row, in the order the rows were given. */
  results: RowResult[];
  startedAt: string;
  finishedAt: string;
  ms: number;
  /** The end of what the subject wrote on stderr (one session's), when it wrote anything. */
  stderr?: string;
  /** Set when the run ended before every row was answered (the time budget ran out). */
  stopped?: { cause: string; interrupted?: string };
}

export const DEFAULT_REQUEST_TIMEOUT_MS = 10_000;
/** Sessions opened when none is asked for: the cores, up to this many. */
const MAX_DEFAULT_JOBS = 64;

/** Runs `rows` against `subject`. Throws SubjectError when the subject cannot start or keeps failing. */
export async function runRows(subject: Subject, rows: readonly Row[], options: RunOptions): Promise<Run> {
  const started = Date.now();
  const startedAt = new Date(started).toISOString();
  const jobs = Math.max(1, Math.min(options.jobs ?? Math.min(availableParallelism(), MAX_DEFAULT_JOBS), rows.length || 1));
  const guardMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const score: ScoreOptions = { level: options.level, tiers: options.tiers };

  // the budget starts now: the start handshakes are part of the run
  let expired: string | undefined;
  let sessions: Session[] = [];
  const budget =
    options.budgetMs === undefined
      ? undefined
      : setTimeout(() => {
          expired ??= `the run's time budget (${formatMs(options.budgetMs!)}) ran out`;
          for (const session of sessions) (session as Abortable).abort?.(`${expired}; the subject was stopped`);
        }, timerMs(options.budgetMs));
  let interrupted: string | undefined;
  const onInterrupt = () => {
    interrupted = String(options.interrupt!.reason ?? "an interrupt");
    expired ??= `interrupted (${interrupted})`;
    for (const session of sessions) (session as Abortable).abort?.(`${expired}; the subject was stopped`);
  };
  if (options.interrupt?.aborted) onInterrupt();
  else options.interrupt?.addEventListener("abort", onInterrupt, { once: true });
  try {
    sessions = await openSessions(subject, options.profile, jobs);
  } catch (error) {
    clearTimeout(budget);
    options.interrupt?.removeEventListener("abort", onInterrupt);
    throw error;
  }
  // a signal during the handshakes: the sessions just opened stop at once
  if (expired !== undefined) for (const session of sessions) (session as Abortable).abort?.(`${expired}; the subject was stopped`);
  const hello = sessions[0]!.hello;
  const progress = startProgress(options.progress ?? "auto", rows.length, options.progressEveryMs ?? PROGRESS_LINE_MS);
  const results: RowResult[] = new Array(rows.length);
  let next = 0;
  let done = 0;
  let stop: unknown;

  const retries: Retries = { starved: options.starved ?? machineStarved, left: MAX_RETRIES };
  const hangs = new Hangs(() => sessions);
  const worker = async (session: Session) => {
    const send = guarded(session.send, guardMs);
    while (stop === undefined && expired === undefined && next < rows.length) {
      const index = next++;
      const row = rows[index]!;
      try {
        results[index] = hangs.judge(await runOne(row, session, send, options.profile, score, hangs.retrying ? retries : { ...retries, left: 0 }));
      } catch (error) {
        stop ??= error;
        return;
      }
      done++;
      progress.update(done);
      options.onResult?.(results[index]!, done, rows.length);
    }
  };

  try {
    await Promise.all(sessions.map(worker));
  } finally {
    clearTimeout(budget);
    options.interrupt?.removeEventListener("abort", onInterrupt);
    progress.stop();
    await Promise.allSettled(sessions.map((session) => session.close()));
  }
  if (stop !== undefined) throw stop;
  // rows that timed out before any other row was answered are hangs too, once some row was
  for (const [index, result] of results.entries()) if (result !== undefined) results[index] = hangs.settle(result);
  // what the subject wrote on stderr (a template sends the implementation's prints there): the
  // student's own output, shown in the report even when every row passed
  const stderr = sessions.map((session) => session.stderrTail?.()).find((text) => text !== undefined && text.trim() !== "");
  if (expired !== undefined) {
    // the rows never sent: errored with the cause, so the report is whole
    rows.forEach((row, index) => {
      if (results[index] !== undefined) return;
      results[index] = resultOf(row, "errored", [], 0, interrupted !== undefined ? `${expired} before this row was answered` : `${expired} before this row was run`);
      if (interrupted !== undefined) return;
      done++;
      options.onResult?.(results[index], done, rows.length);
    });
  }
  const finished = Date.now();
  return {
    label: subject.label,
    hello,
    results,
    startedAt,
    finishedAt: new Date(finished).toISOString(),
    ms: finished - started,
    ...(stderr !== undefined ? { stderr } : {}),
    ...(expired !== undefined ? { stopped: { cause: expired, ...(interrupted !== undefined ? { interrupted } : {}) } } : {}),
  };
}

/** setTimeout's longest delay (2^31-1 ms, about 24.8 days): a longer one fires at once. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** A delay setTimeout keeps: capped at MAX_TIMER_MS (option parsing refuses longer ones; this is the backstop). */
export function timerMs(ms: number): number {
  return Math.max(0, Math.min(ms, MAX_TIMER_MS));
}

/** A session that can stop at once (stdio); others finish the request in flight. */
type Abortable = Session & { abort?(reason: string): void };

export function formatMs(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

async function openSessions(subject: Subject, profile: ProfileName, jobs: number): Promise<Session[]> {
  const opened = await Promise.allSettled(Array.from({ length: jobs }, () => subject.open(profile)));
  const failure = opened.find((o): o is PromiseRejectedResult => o.status === "rejected");
  if (!failure) return opened.map((o) => (o as PromiseFulfilledResult<Session>).value);
  await Promise.allSettled(opened.flatMap((o) => (o.status === "fulfilled" ? [o.value.close()] : [])));
  throw asSubjectError(failure.reason, `${subject.label} could not start`);
}

/** One row on one session: its result, never a throw, except a SubjectError that ends the run. */
async function runOne(row: Row, session: Session, send: Send, profile: ProfileName, score: ScoreOptions, retries: Retries, retried?: string): Promise<RowResult> {
  const missing = capabilityMissing(row, session.hello);
  if (missing) return resultOf(row, "skipped", [], 0, `the subject does not offer the "${missing}" capability`);
  const t0 = performance.now();
  try {
    const checks = await runRow(row, send, profile);
    return withRetried(resultOf(row, statusOf(checks, score), checks, elapsed(t0)), retried);
  } catch (error) {
    if (error instanceof SubjectError) throw error;
    const ms = elapsed(t0);
    const stderr = stderrOf(error, session);
    try {
      await session.recover();
    } catch (recoverError) {
      throw asSubjectError(recoverError, `the subject could not recover after row ${row.id} (${causeOf(error)})`);
    }
    // a timeout on a starved machine may be the machine's, not the subject's: once more, from a fresh process
    const starved = retried === undefined && retries.left > 0 && isTimeout(error) ? retries.starved() : undefined;
    if (starved !== undefined) {
      retries.left--;
      return runOne(row, session, send, profile, score, retries, `its first attempt timed out while the machine was starved (${starved}): ${causeOf(error)}`);
    }
    const errored = resultOf(row, "errored", [], ms, causeOf(error), stderr);
    const fault = graderFaultOf(error);
    return withRetried(fault === undefined ? errored : { ...errored, graderFault: fault }, retried);
  }
}

/** Rows a run retries at most: a subject that hangs on every row pays its timeout twice only this often. */
export const MAX_RETRIES = 4;

interface Retries {
  starved: () => string | undefined;
  left: number;
}

function withRetried(result: RowResult, retried: string | undefined): RowResult {
  return retried === undefined ? result : { ...result, retried };
}

/** A request that got no reply in time (the guard's, or the stdio subject's own). */
function isTimeout(error: unknown): boolean {
  return error instanceof ProtocolError && /^no reply to .* within \d+ ms/.test(error.message);
}

/** The machine is starved when the last minute's load average reaches its cores. */
export function machineStarved(): string | undefined {
  const load = loadavg()[0]!;
  const cores = availableParallelism();
  return load >= cores ? `load ${load.toFixed(1)} on ${cores} core${cores === 1 ? "" : "s"}` : undefined;
}

/** The capability a row needs that the subject did not announce, if any. */
function capabilityMissing(row: Row, hello: StartReply): string | undefined {
  const capabilities = Array.isArray(hello.capabilities) ? hello.capabilities : ["validate", "registry"];
  return capabilitiesOf(row).find((needs) => !capabilities.includes(needs));
}

/** The capabilities a row needs. */
export function capabilitiesOf(row: Row): string[] {
  if (row.kind !== "registry") return ["validate"];
  const needs = ["registry"];
  if (row.steps.some((step) => step.op === "concurrently")) needs.push("concurrency");
  if (row.steps.some((step) => step.op === "get" || step.op === "validate")) needs.push("records");
  return needs;
}

/** `send` with a deadline: a reply that never comes errors the row instead of hanging the run. */
export function guarded(send: Send, ms: number): Send {
  return (body) =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new ProtocolError(`no reply to "${body.cmd}" within ${ms} ms`)), timerMs(ms));
      send(body).then(
        (reply) => {
          clearTimeout(timer);
          resolve(reply);
        },
        (error: unknown) => {
          clearTimeout(timer);
          reject(error);
        },
      );
    });
}

/**
 * A one-line cause for an errored row. A ProtocolError (a broken reply, a crash, a timeout over
 * stdio) says what happened already; anything else was thrown by an in-process implementation.
 */
export function causeOf(error: unknown): string {
  let text: string;
  if (error instanceof ProtocolError) text = error.message;
  else if (error instanceof Error) text = `the subject threw ${error.name && error.name !== "Error" ? `${error.name}: ` : ""}${error.message}`;
  else text = `the subject threw ${describeThrown(error)}`;
  text = text.split("\n")[0]!;
  return text.length > 500 ? `${text.slice(0, 499)}…` : text;
}

function describeThrown(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value);
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/** The subject's stderr around the failure: from the error, or the session when it keeps one. */
function stderrOf(error: unknown, session: Session): string | undefined {
  const fromError = (error as { stderr?: unknown } | null)?.stderr;
  if (typeof fromError === "string" && fromError) return tail(fromError);
  const keeper = session as Session & { stderrTail?: () => string | undefined };
  if (typeof keeper.stderrTail === "function") {
    const text = keeper.stderrTail();
    if (text) return tail(text);
  }
  return undefined;
}

function tail(text: string, max = 2000): string {
  return text.length > max ? `…${text.slice(-max)}` : text;
}

function asSubjectError(error: unknown, context: string): SubjectError {
  if (error instanceof SubjectError) return error;
  const message = error instanceof Error ? error.message : String(error);
  const wrapped = new SubjectError(`${context}: ${message.split("\n")[0]}`);
  const fault = graderFaultOf(error);
  return fault === undefined ? wrapped : markGraderFault(wrapped, fault);
}

function elapsed(t0: number): number {
  return Math.round((performance.now() - t0) * 100) / 100;
}

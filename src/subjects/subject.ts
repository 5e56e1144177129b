import type { Implementation, Send, StartReply } from "./protocol.js";

/** An implementation under test, reached through the protocol. */
export interface Subject {
  /** A name for reports: "reference", "mutant:s03", the command line. */
  readonly label: string;
  /** Opens a session: handshake for the profile. Throws SubjectError when it cannot start. */
  open(profile: string): Promise<Session>;
}

export interface Session {
  readonly hello: StartReply;
  readonly send: Send;
  /** Fresh state after a row that errored (a stdio session restarts its process). */
  recover(): Promise<void>;
  close(): Promise<void>;
  /** From now on, each request gets at most `ms` to be answered (stdio sessions): the runner's quick decision after repeated hangs. */
  shorten?(ms: number): void;
  /** The last few KB the subject wrote on stderr (stdio sessions); read it before recover(). */
  stderrTail?(): string | undefined;
}

/** A subject that cannot be started or keeps failing: the run cannot go on. */
export class SubjectError extends Error {
  override name = "SubjectError";

  constructor(
    message: string,
    /** What the subject wrote on stderr before it failed, when known. */
    readonly stderr?: string,
  ) {
    super(message);
  }
}

export function describeImplementation(implementation: Implementation): string {
  return [implementation.name, implementation.version, `(${implementation.language})`].filter(Boolean).join(" ");
}

/**
 * Marks `error` as the grader's own failure, never the subject's: its spawn failed with an errno
 * (EAGAIN, ENOMEM), or its sandbox exited before the subject ran. Set only by the code that saw it
 * happen, from the operating system's answer, never from text the subject wrote; `grade` sets such
 * a report aside and grades the submission again.
 */
export function markGraderFault<E extends Error>(error: E, fault: string): E {
  return Object.assign(error, { graderFault: fault });
}

/** The grader's failure an error carries (markGraderFault), if any. */
export function graderFaultOf(error: unknown): string | undefined {
  const fault = (error as { graderFault?: unknown } | null)?.graderFault;
  return typeof fault === "string" ? fault : undefined;
}

/** A subject's reply that breaks the protocol: the row is errored, not failed. */
export class ProtocolError extends Error {
  override name = "ProtocolError";
}

/**
 * The subject's process died on its own (it exited, or a signal killed it) while answering a
 * request; thrown by the stdio transport. A ProtocolError, so the row is errored, except where
 * the death is the implementation's answer: a `concurrently` batch (a registry without its lock
 * dies of a data race), whose row fails.
 */
export class SubjectDied extends ProtocolError {
  override name = "SubjectDied";

  constructor(
    message: string,
    /** How it ended: "the process exited with code 66". */
    readonly how: string,
    /** The end of its stderr. */
    readonly stderr?: string,
  ) {
    super(message);
  }
}

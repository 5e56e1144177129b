import type { Implementation, Send, StartReply } from "../protocol.js";

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

import * as reference from "../index.js";
import { createHandler, type ReferenceApi } from "./handler.js";
import type { Request, StartReply } from "./protocol.js";
import { PROTOCOL_VERSION } from "./protocol.js";
import { SubjectError, type Session, type Subject } from "./subject.js";
import { offersProfile } from "../corpus/rows.js";

/**
 * A TypeScript module with the reference's API, run in this process: the reference
 * itself, a mutant, or `--module PATH`. Fast, and exact: every request still goes
 * through the protocol handler, as over stdio.
 */
export function inProcessSubject(label: string, api: ReferenceApi = reference, identity?: { name: string; version: string; language: string }): Subject {
  return handlerSubject(label, () => createHandler(api, identity ?? { name: label, version: "in-process" }));
}

/** A protocol handler answered in this process; each session gets a fresh one from `makeHandler`. */
export function handlerSubject(label: string, makeHandler: () => (request: Request) => Promise<Record<string, unknown>>): Subject {
  return {
    label,
    async open(profile) {
      const handle = makeHandler();
      let seq = 0;
      const send = async (body: object) => handle({ ...body, seq: ++seq } as Request);
      const hello = (await handle({ seq: 0, cmd: "start", version: PROTOCOL_VERSION, profile })) as unknown as StartReply;
      if (!offersProfile(hello.profiles, profile)) throw new SubjectError(`${label} does not support the ${profile} profile`);
      const session: Session = { hello, send: send as Session["send"], recover: async () => {}, close: async () => {} };
      return session;
    },
  };
}

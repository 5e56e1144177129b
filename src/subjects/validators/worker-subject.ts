import { existsSync } from "node:fs";
import { Worker } from "node:worker_threads";
import { builtBeside } from "../../corpus/load.js";
import type { Body, StartReply } from "../protocol.js";
import { PROTOCOL_VERSION } from "../protocol.js";
import { SubjectError, type Session, type Subject } from "../subject.js";
import { offersProfile } from "../../corpus/rows.js";

/** The compiled worker script, from the sources or dist/ alike; undefined before `npm run build`. */
export function workerScript(): string | undefined {
  const script = builtBeside(import.meta.url, "worker.js");
  return existsSync(script) ? script : undefined;
}

/**
 * A built-in validator library run in a worker thread. A request that never returns (a
 * backtracking pattern) is cut off by the runner's request guard; recover() then terminates
 * the worker, which stops even a running regular expression, and starts a fresh one.
 */
export function workerValidatorSubject(name: string, label: string, script: string): Subject {
  return {
    label,
    async open(profile) {
      let worker: Worker;
      let seq = 0;
      const pending = new Map<number, { resolve: (reply: Record<string, unknown>) => void; reject: (error: Error) => void }>();

      const spawn = async (): Promise<StartReply> => {
        worker = new Worker(script, { workerData: { name } });
        worker.unref();
        await new Promise<void>((resolve, reject) => {
          worker.once("message", (message: { ready: boolean; error?: string }) =>
            message.ready ? resolve() : reject(new SubjectError(`${label} could not load: ${message.error}`)),
          );
          worker.once("error", (error) => reject(new SubjectError(`${label} could not start: ${error.message}`)));
        });
        worker.on("message", (message: { seq: number; reply?: Record<string, unknown>; error?: string }) => {
          const waiting = pending.get(message.seq);
          if (!waiting) return;
          pending.delete(message.seq);
          if (message.error !== undefined) waiting.reject(new Error(message.error));
          else waiting.resolve(message.reply!);
        });
        worker.on("error", (error) => {
          for (const waiting of pending.values()) waiting.reject(error);
          pending.clear();
        });
        const hello = (await send({ cmd: "start", version: PROTOCOL_VERSION, profile })) as unknown as StartReply;
        if (!offersProfile(hello.profiles, profile)) throw new SubjectError(`${label} does not support the ${profile} profile`);
        return hello;
      };

      const send = (body: Body) =>
        new Promise<Record<string, unknown>>((resolve, reject) => {
          const n = ++seq;
          pending.set(n, { resolve, reject });
          worker.postMessage({ ...body, seq: n });
        });

      const stop = async () => {
        for (const waiting of pending.values()) waiting.reject(new Error("the worker was stopped"));
        pending.clear();
        await worker.terminate();
      };

      const hello = await spawn();
      const session: Session = {
        hello,
        send,
        async recover() {
          // a library that threw answered, and its worker is fine; one still busy is hung
          if (pending.size === 0) return;
          await stop();
          await spawn();
        },
        close: stop,
      };
      return session;
    },
  };
}

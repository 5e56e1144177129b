import { parentPort, workerData } from "node:worker_threads";
import { VALIDATORS } from "./index.js";
import { createValidatorHandler, packageOf, packageVersion } from "./library.js";
import type { Request } from "../protocol.js";

// One validator library in a worker thread: a pattern that backtracks for ever hangs this
// thread, not the run; the subject terminates the worker and starts a fresh one.

const port = parentPort!;
const { name } = workerData as { name: string };
const entry = VALIDATORS.find((v) => v.name === name);
try {
  if (!entry) throw new Error(`no built-in validator named ${name}`);
  const library = await entry.load();
  const handle = createValidatorHandler(library, { version: packageVersion(packageOf(library.name)) });
  port.on("message", (request: Request) => {
    handle(request).then(
      (reply) => port.postMessage({ seq: request.seq, reply }),
      (error: unknown) => port.postMessage({ seq: request.seq, error: error instanceof Error ? error.message : String(error) }),
    );
  });
  port.postMessage({ ready: true });
} catch (error) {
  port.postMessage({ ready: false, error: error instanceof Error ? error.message : String(error) });
}

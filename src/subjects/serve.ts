import { createInterface } from "node:readline";
import type { Readable, Writable } from "node:stream";
import type { Request } from "./protocol.js";
import { COMMANDS } from "./protocol-schemas.js";

/** Answers one request; the reply has no seq (serve() stamps it). */
export type Handle = (request: Request) => Promise<Record<string, unknown> | undefined>;

/**
 * The adapter side of the protocol: reads one request a line from `input`, answers each in
 * order on `output` with the request's seq, and returns after `stop` or at the end of input.
 * An exception in `handle`, an unknown command or an unreadable line gets an errored reply.
 */
export async function serve(handle: Handle, input: Readable, output: Writable): Promise<void> {
  const lines = createInterface({ input, crlfDelay: Infinity, terminal: false });
  try {
    for await (const line of lines) {
      if (line.trim() === "") continue;
      const { reply, stop } = await answer(handle, line);
      if (!output.write(JSON.stringify(reply) + "\n")) await drained(output);
      if (stop) break;
    }
  } finally {
    lines.close();
  }
}

async function answer(handle: Handle, line: string): Promise<{ reply: Record<string, unknown>; stop: boolean }> {
  let request: unknown;
  try {
    request = JSON.parse(line);
  } catch {
    return { reply: errored(null, `the request is not JSON: ${excerpt(line)}`), stop: false };
  }
  if (typeof request !== "object" || request === null || Array.isArray(request)) {
    return { reply: errored(null, `the request is not a JSON object: ${excerpt(line)}`), stop: false };
  }
  const { seq, cmd } = request as { seq?: unknown; cmd?: unknown };
  const echo = typeof seq === "number" ? seq : null;
  if (typeof cmd !== "string" || !(COMMANDS as readonly string[]).includes(cmd)) {
    return { reply: errored(echo, `unknown command ${JSON.stringify(cmd ?? null)}`), stop: false };
  }
  try {
    const reply = await handle(request as Request);
    if (!reply) return { reply: errored(echo, `no answer to "${cmd}"`), stop: cmd === "stop" };
    return { reply: { seq: echo, ...reply }, stop: cmd === "stop" };
  } catch (error) {
    return { reply: errored(echo, `the adapter failed on "${cmd}": ${error instanceof Error ? error.message : String(error)}`), stop: false };
  }
}

function errored(seq: number | null, message: string): Record<string, unknown> {
  return { seq, errored: true, message };
}

function excerpt(text: string, max = 120): string {
  return JSON.stringify(text.length > max ? `${text.slice(0, max)}…` : text);
}

function drained(output: Writable): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      output.off("drain", done);
      output.off("close", done);
      output.off("error", done);
      resolve();
    };
    output.on("drain", done);
    output.on("close", done);
    output.on("error", done);
  });
}

// `node supervise.js LIMIT_MS MAX_LOG_BYTES -- COMMAND ARGS...`: runs one command of `grade` (a
// build, or a score) in a process group of its own, and ends that group when
//   - the time limit passes (the command timed out),
//   - its stdin closes: the grader that started it is gone, even by SIGKILL, so no build or
//     score outlives an interrupted grade and races the rerun for the same folder,
//   - it is told to (SIGINT, SIGTERM, SIGHUP).
// The command's stdout and stderr go to this process's stderr (the grader points it at a log
// file), cut after MAX_LOG_BYTES so a flood cannot fill the disk. When the command is over, one
// JSON line on stdout says how: {"code","signal","timedOut","ms"} (or {"error"} if it never ran).
// SIGTERM comes first, so that `score` kills its subjects; SIGKILL follows after a grace period.

import { spawn } from "node:child_process";

const GRACE_MS = 2_000;
/** How long to wait for the output pipes after the command exited (a stray process may hold them). */
const DRAIN_MS = 1_000;

const [limitArg, capArg, separator, ...argv] = process.argv.slice(2);
const limitMs = Number(limitArg);
const cap = Number(capArg);
if (separator !== "--" || argv.length === 0 || !(limitMs > 0) || !(cap >= 0)) {
  process.stderr.write("usage: supervise.js LIMIT_MS MAX_LOG_BYTES -- COMMAND [ARGS...]\n");
  process.exit(2);
}

const started = Date.now();
let done = false;
let ending = false;
let timedOut = false;
let written = 0;
let dropped = 0;

function finish(status: Record<string, unknown>): void {
  if (done) return;
  done = true;
  if (dropped > 0) process.stderr.write(`\n[… ${dropped.toLocaleString("en-US")} more bytes of output not kept]\n`);
  try {
    process.stdout.write(JSON.stringify({ ...status, timedOut, ms: Date.now() - started }) + "\n");
  } catch {
    // the grader is gone: nobody to tell
  }
  process.exit(0);
}

const child = spawn(argv[0]!, argv.slice(1), { detached: true, stdio: ["ignore", "pipe", "pipe"] });
const pid = child.pid;

function signalGroup(signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // the group is already gone
  }
}

/** Ends the command's whole group: SIGTERM, then SIGKILL for what is left after the grace period. */
function end(): void {
  if (ending) return;
  ending = true;
  signalGroup("SIGTERM");
  setTimeout(() => signalGroup("SIGKILL"), GRACE_MS).unref();
}

const sink = (chunk: Buffer) => {
  const room = Math.max(0, cap - written);
  if (room > 0) process.stderr.write(chunk.length > room ? chunk.subarray(0, room) : chunk);
  written += Math.min(room, chunk.length);
  dropped += Math.max(0, chunk.length - room);
};
child.stdout!.on("data", sink);
child.stderr!.on("data", sink);

const timer = setTimeout(() => {
  timedOut = true;
  end();
}, limitMs);

// the grader holds the other end of stdin: end of file means it is gone
process.stdin.on("end", end);
process.stdin.on("close", end);
process.stdin.on("error", end);
process.stdin.resume();
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(signal, end);

child.on("error", (error) => {
  clearTimeout(timer);
  finish({ error: error.message });
});
child.on("exit", (code, signal) => {
  clearTimeout(timer);
  // whatever the command left running in its group goes with it
  signalGroup("SIGKILL");
  // a process that left the group may still hold the output pipes: do not wait for it long
  setTimeout(() => finish({ code, signal }), DRAIN_MS).unref();
});
child.on("close", (code, signal) => finish({ code, signal }));

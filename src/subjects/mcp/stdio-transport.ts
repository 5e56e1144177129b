import { spawn, type ChildProcess } from "node:child_process";
import type { Readable } from "node:stream";
import { noSandbox } from "../sandbox/none.js";
import { stdioOf, type Sandbox } from "../sandbox/common.js";
import { killPipeHolders, pipeInodes } from "../pipe-holders.js";
import { watch } from "../sandbox/witness.js";
import { LineSplitter } from "./lines.js";
import { MAX_MESSAGE, McpStartError, Tail, type Transport } from "./transport.js";

// MCP over stdio: the server is a child process (run through the shell, in its own process group
// so that killing it kills what it started); one JSON-RPC message a line each way.

export interface StdioOptions {
  cwd?: string;
  env?: Record<string, string | undefined>;
  /** Where the server runs (default: no sandbox). */
  sandbox?: Sandbox;
}

export function stdioTransport(command: string, options: StdioOptions = {}): Transport {
  if (command.trim() === "") throw new McpStartError("--mcp: the command is empty");
  const stderr = new Tail();
  const messageListeners: ((text: string) => void)[] = [];
  const closeListeners: ((how: string) => void)[] = [];
  let closed = false;
  let stopping = false;
  const sandbox = options.sandbox ?? noSandbox();
  // under the sandbox, a tracer outside it sees what the server's processes do (docs/sandbox.md)
  const watched = watch(sandbox.mode, sandbox.plan(command, { ...(options.cwd !== undefined ? { cwd: options.cwd } : {}), env: options.env ?? process.env }));
  const plan = watched.plan;
  // a launcher that keeps fd 1 for itself (bwrap) hands the server's stdout on another descriptor
  const stdio = stdioOf(plan);
  const child: ChildProcess = spawn(plan.file, plan.args, { shell: plan.shell, detached: true, stdio, cwd: plan.cwd, env: plan.env });
  const stdout = child.stdio[plan.stdoutFd] as Readable;
  // our pipes' identities, taken while they are open: whoever still holds one at the end is killed
  const pipes = pipeInodes(child.pid, stdio.flatMap((kind, fd) => (kind === "pipe" ? [fd] : [])));
  // the sandbox's status is not read here (a crash is told by the stream): drained, so it never holds the close
  if (plan.statusFd !== undefined) (child.stdio[plan.statusFd] as Readable | null)?.resume();
  if (plan.traceFd !== undefined) watched.attach(child.stdio[plan.traceFd] as Readable | null);
  let exitedHow: string | undefined;
  const exitWaiters: ((how: string) => void)[] = [];
  /** How the process exited, once it has, or undefined after `ms`. */
  const exitOrAfter = (ms: number) =>
    new Promise<string | undefined>((resolve) => {
      if (exitedHow !== undefined) return resolve(exitedHow);
      exitWaiters.push(resolve);
      setTimeout(() => resolve(undefined), ms).unref();
    });
  const ended = (how: string) => {
    if (closed) return;
    closed = true;
    exitedHow = how;
    for (const waiter of exitWaiters.splice(0)) waiter(how);
    if (!stopping) for (const listener of closeListeners) listener(how);
  };
  const lines = new LineSplitter({
    max: MAX_MESSAGE,
    onLine(line) {
      if (line.trim() !== "") for (const listener of messageListeners) listener(line);
    },
    onOverflow: () => stderr.add(`\n[tool-conformance: a line of more than ${MAX_MESSAGE} characters on stdout was dropped]\n`),
  });
  stdout.setEncoding("utf8");
  stdout.on("data", (chunk: string) => lines.push(chunk));
  child.stderr!.setEncoding("utf8");
  child.stderr!.on("data", (chunk: string) => stderr.add(chunk));
  child.stdin!.on("error", () => {});
  child.on("error", (error) => ended(`the server could not be started: ${error.message}`));
  child.on("exit", (code, signal) => {
    if (signal) ended(`the process was killed by ${signal}`);
    else if (plan.signalAsExitCode && code !== null && code > 128) ended(`the process was killed by signal ${code - 128}`);
    else ended(`the process exited with code ${code}${code === 127 ? " (the command was not found)" : ""}`);
  });
  return {
    send(text) {
      if (closed) return Promise.reject(new Error("the process has exited"));
      return new Promise((resolve, reject) =>
        child.stdin!.write(text + "\n", (error) => {
          if (!error) return resolve();
          // a pipe broken by a process that exited (a command not found): told by how it exited, not "write EPIPE"
          void exitOrAfter(1_000).then((how) => reject(new Error(how ?? error.message)));
        }),
      );
    },
    onMessage: (listener) => void messageListeners.push(listener),
    onClose: (listener) => void closeListeners.push(listener),
    stderrTail: () => stderr.toString(),
    witness: watched.witness,
    async close() {
      const wasClosed = closed;
      stopping = true;
      const exited = new Promise<void>((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once("exit", () => resolve())));
      const wait = (ms: number) => Promise.race([exited, new Promise<void>((resolve) => setTimeout(resolve, ms).unref())]);
      if (!wasClosed) {
        // asked to stop: stdin's end first, then SIGTERM to the group, then SIGKILL
        child.stdin!.end();
        await wait(500);
        signalGroup(child, "SIGTERM");
        await wait(500);
      }
      // even after the server's own exit: what it started may live on in its group or outside it
      signalGroup(child, "SIGKILL");
      killPipeHolders(pipes);
      // never wait for the pipes' end: a process that escaped the group may hold them still
      for (const stream of child.stdio) stream?.destroy();
      await wait(2_000);
    },
  };
}

function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // already gone
  }
}

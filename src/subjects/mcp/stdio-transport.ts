import { spawn, type ChildProcess } from "node:child_process";
import type { Readable } from "node:stream";
import { noSandbox } from "../sandbox/none.js";
import { stdioOf, type Sandbox } from "../sandbox/common.js";
import { watch } from "../sandbox/witness.js";
import { McpStartError, Tail, type Transport } from "./transport.js";

// MCP over stdio: the server is a child process (run through the shell, in its own process group
// so that killing it kills what it started); one JSON-RPC message a line each way.

export interface StdioOptions {
  cwd?: string;
  env?: Record<string, string | undefined>;
  /** Where the server runs (default: no sandbox). */
  sandbox?: Sandbox;
}

/** The most a single line from the server may hold before it is cut off as unreadable. */
const MAX_LINE = 16 * 1024 * 1024;

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
  // the sandbox's status is not read here (a crash is told by the stream): drained, so it never holds the close
  if (plan.statusFd !== undefined) (child.stdio[plan.statusFd] as Readable | null)?.resume();
  if (plan.traceFd !== undefined) watched.attach(child.stdio[plan.traceFd] as Readable | null);
  const ended = (how: string) => {
    if (closed) return;
    closed = true;
    if (!stopping) for (const listener of closeListeners) listener(how);
  };
  let buffer = "";
  stdout.setEncoding("utf8");
  stdout.on("data", (chunk: string) => {
    buffer += chunk;
    let at: number;
    while ((at = buffer.indexOf("\n")) !== -1) {
      const line = buffer.slice(0, at).replace(/\r$/, "");
      buffer = buffer.slice(at + 1);
      if (line.trim() !== "") for (const listener of messageListeners) listener(line);
    }
    if (buffer.length > MAX_LINE) {
      buffer = "";
      stderr.add(`\n[tool-conformance: a line of more than ${MAX_LINE} characters on stdout was dropped]\n`);
    }
  });
  child.stderr!.setEncoding("utf8");
  child.stderr!.on("data", (chunk: string) => stderr.add(chunk));
  child.stdin!.on("error", () => {});
  child.on("error", (error) => ended(`the server could not be started: ${error.message}`));
  child.on("exit", (code, signal) => {
    if (signal) ended(`the process was killed by ${signal}`);
    else if (plan.signalAsExitCode && code !== null && code > 128) ended(`the process was killed by signal ${code - 128}`);
    else ended(`the process exited with code ${code}`);
  });
  return {
    send(text) {
      if (closed) return Promise.reject(new Error("the process has exited"));
      return new Promise((resolve, reject) => child.stdin!.write(text + "\n", (error) => (error ? reject(error) : resolve())));
    },
    onMessage: (listener) => void messageListeners.push(listener),
    onClose: (listener) => void closeListeners.push(listener),
    stderrTail: () => stderr.toString(),
    witness: watched.witness,
    async close() {
      stopping = true;
      if (closed) return;
      child.stdin!.end();
      const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
      const grace = new Promise<void>((resolve) => setTimeout(resolve, 500).unref());
      await Promise.race([exited, grace]);
      killGroup(child);
      await Promise.race([exited, new Promise<void>((resolve) => setTimeout(resolve, 2_000).unref())]);
    },
  };
}

function killGroup(child: ChildProcess): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, "SIGKILL");
  } catch {
    // already gone
  }
}

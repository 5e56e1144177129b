import { spawnSync } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";
import { attribute, idleActs, learn, newLineage } from "./attribute.js";
import type { SpawnPlan } from "./common.js";
import { TraceParser, TRACED, type Act, type TraceRecord } from "./strace-line.js";

/** What the witness reads of the trace's stream (a Readable), said here so the package's declarations need no Node types. */
interface TraceStream {
  setEncoding(encoding: "utf8"): unknown;
  on(event: "data", listener: (chunk: string) => void): unknown;
  on(event: "end" | "close" | "error", listener: () => void): unknown;
}

// The sandbox as a witness: what a sandboxed server's processes do is seen by strace, run OUTSIDE
// the sandbox's pid namespace (the server cannot see its pid, nor signal it), following every process
// and thread (-f), stopped only on the syscalls it traces (--seccomp-bpf: a per-call cost of a few
// syscall stops). strace runs as a detached grandchild (-D), so the process spawned is the launcher
// and bwrap itself, which still dies with the harness (--die-with-parent), and the tracer in the same
// process group, which dies with the run. It writes its lines through `cat` to a descriptor of the
// harness's own (closed before the sandbox starts), parsed as they arrive. docs/sandbox.md says what
// a server can tell of it, and what happens when the tracer stops.

/** What the witness saw of one call. */
export type Observation =
  | { watched: false; why: string }
  | {
      watched: true;
      /** The call's own acts. */
      acts: Act[];
      /** Acts in the call's window that are not the call's (an earlier call acting late). */
      late: Act[];
      /** Acts seen in the call's window once, and not when the same call was sent again: a timer of the server's own, not the call's. */
      once?: Act[];
      /** Acts of a sort the server does on every call, a call of a tool that does not exist included (telemetry, a log): not the tool's. */
      everyCall?: Act[];
      /** Acts of a sort the server's own process did by itself, with no call under way, right after the call was sent again: not the call's. */
      idle?: Act[];
    };

/** A call's window: opened just before the call is written, closed just after its ping's answer is read. */
export interface CallWindow {
  /** What happened in the window; `answered`: the server answered the ping after the call (so the trace can be caught up to it). */
  close(answered: boolean): Promise<Observation>;
}

export interface Witness {
  open(): CallWindow;
  /** A window in which no call is sent: what the server's own processes do by themselves meanwhile. */
  idle(): CallWindow;
  /** What was seen outside every call's window (at start, after a call), for the run's notes. */
  notes(): string[];
}

/** A witness that sees nothing, and says why. */
export function unwatched(why: string): Witness {
  const observation: Observation = { watched: false, why };
  const window = { close: async () => observation };
  return { open: () => window, idle: () => window, notes: () => [] };
}

/** The environment variable that turns the witness off (a run then says "not observed"). */
export const NO_WITNESS = "TOOL_CONFORMANCE_NO_WITNESS";

let support: { strace: string } | { why: string } | undefined;

/** Whether strace can trace here (on PATH, ptrace allowed, seccomp-bpf filtering): tried once per process. */
export function witnessSupport(): { strace: string } | { why: string } {
  if (process.env[NO_WITNESS] === "1") return { why: `the witness is turned off (${NO_WITNESS}=1)` };
  if (support) return support;
  const strace = onPath("strace");
  if (strace === undefined) support = { why: "strace is not installed (Debian/Ubuntu: apt-get install strace)" };
  else {
    const trial = spawnSync(strace, ["-f", "-qq", "--seccomp-bpf", "--pidns-translation", "-e", "trace=execve", "-o", "/dev/null", "/bin/true"], { encoding: "utf8", timeout: 10_000 });
    const why = trial.error?.message ?? (trial.status !== 0 ? (trial.stderr.trim().split("\n").pop() ?? "").trim() || `it exited with code ${trial.status ?? trial.signal}` : undefined);
    support = why === undefined ? { strace } : { why: `strace cannot trace here: ${why}` };
  }
  return support;
}

function onPath(command: string): string | undefined {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    if (!dir) continue;
    const file = join(dir, command);
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** The most a window waits for the trace to catch up with the ping's answer. */
const CATCH_UP_MS = 1_000;

export interface Witnessed {
  /** The plan to spawn: the sandbox's, under the tracer. */
  plan: SpawnPlan;
  witness: Witness;
  /** Hands the witness the spawned process's trace descriptor (plan.traceFd). */
  attach(stream: TraceStream | null | undefined): void;
}

/** The sandbox's plan run under the tracer, when strace can trace here; else the plan as it is and a witness that says why not. */
export function witnessPlan(plan: SpawnPlan): Witnessed {
  const found = witnessSupport();
  if (!("strace" in found)) return { plan, witness: unwatched(found.why), attach: () => {} };
  const traceFd = Math.max(plan.stdoutFd, plan.statusFd ?? 0) + 1;
  const args = [
    "-D", "-f", "-qq", "--seccomp-bpf", "--pidns-translation", "-e", "signal=none", "-s", "256", "-e", `trace=${TRACED.join(",")}`,
    // strace's own descriptor is close-on-exec; the one it writes to is closed before the launcher runs
    "-o", `|exec cat >&${traceFd}`,
    "--", "/bin/sh", "-c", `exec ${traceFd}>&-; exec "$@"`, "sh", plan.file, ...plan.args,
  ];
  const trace = new Trace(plan.shown ?? []);
  return { plan: { ...plan, file: found.strace, args, traceFd }, witness: trace, attach: (stream) => trace.attach(stream) };
}

/** The live trace: records as they arrive, the windows over them, and what fell outside every window. */
class Trace implements Witness {
  private readonly parser: TraceParser;
  private readonly lineage = newLineage();
  /** Records since the last window closed (or since the start). */
  private records: TraceRecord[] = [];
  private waiters: (() => void)[] = [];
  private stopped: string | undefined;
  private started = false;
  private readonly outside = new Notes();

  constructor(shown: readonly string[]) {
    this.parser = new TraceParser(shown);
  }

  attach(stream: TraceStream | null | undefined): void {
    if (!stream) {
      this.stopped = "the tracer's output could not be read";
      return;
    }
    let buffer = "";
    stream.setEncoding("utf8");
    stream.on("data", (chunk: string) => {
      buffer += chunk;
      let at: number;
      while ((at = buffer.indexOf("\n")) !== -1) {
        const line = buffer.slice(0, at);
        buffer = buffer.slice(at + 1);
        this.records.push(...this.parser.parse(line));
      }
      // a line is a syscall's arguments at most -s long each: anything longer is not strace's
      if (buffer.length > 1 << 20) buffer = "";
      this.wake();
    });
    const end = () => {
      this.stopped ??= "the tracer stopped";
      this.wake();
    };
    stream.on("end", end);
    stream.on("close", end);
    stream.on("error", end);
  }

  open(): CallWindow {
    return this.window((records) => {
      const { blamed, late, background } = attribute(records, this.lineage);
      this.outside.add("after a call's answer, not blamed on any call", late);
      this.outside.add("while a call was handled, by a process the server started outside any call, not blamed on it", background);
      return { watched: true, acts: blamed, late: [...late, ...background] };
    });
  }

  idle(): CallWindow {
    return this.window((records) => {
      const { own, all } = idleActs(records, this.lineage);
      this.outside.add("between calls", all);
      return { watched: true, acts: own, late: [] };
    });
  }

  /** A window from now until it is closed, its records read by `read`. */
  private window(read: (records: TraceRecord[]) => Observation): CallWindow {
    this.takeOutside();
    const stoppedBefore = this.stopped;
    return {
      close: async (answered) => {
        if (stoppedBefore !== undefined) return { watched: false, why: stoppedBefore };
        if (answered) await this.caughtUp();
        // the tracer stopped while the server still answered: what it saw is not the whole window
        if (answered && this.stopped !== undefined) return { watched: false, why: this.stopped };
        const records = this.records;
        this.records = [];
        return read(records);
      },
    };
  }

  notes(): string[] {
    this.takeOutside();
    return this.outside.lines();
  }

  /** The acts before this window: the server's start (after its own first program), or between calls. */
  private takeOutside(): void {
    const before = this.records;
    this.records = [];
    learn(this.lineage, before, true);
    let acts = before.flatMap((record) => (record.type === "act" ? [record.act] : []));
    if (!this.started) {
      // the tracer's wrapper, the cgroup launcher, bwrap and the sandbox's shell are ours, not the server's;
      // the server's own program starting is what was asked for: what it does after is told
      const first = acts.findIndex((act) => act.kind === "exec" && !MACHINERY.has(act.program ?? ""));
      if (first < 0) return;
      this.started = true;
      // (tried on each folder of PATH until one holds it)
      const own = acts[first]!.program;
      let next = first;
      while (next < acts.length && acts[next]!.kind === "exec" && acts[next]!.program === own) next++;
      acts = acts.slice(next);
      this.outside.add("at start", acts);
    } else this.outside.add("between calls", acts);
  }

  /** Until the trace holds the server's read of the ping and a write of its answer after it (or a second passes, or the tracer stops). */
  private caughtUp(): Promise<void> {
    const done = () => {
      if (this.stopped !== undefined) return true;
      const ping = this.records.findIndex((record) => record.type === "stdin" && /\\"method\\":\s*\\"ping\\"/.test(record.text));
      return ping >= 0 && this.records.slice(ping + 1).some((record) => record.type === "stdout");
    };
    if (done()) return Promise.resolve();
    return new Promise((resolve) => {
      let settled = false;
      const finish = () => {
        settled = true;
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(finish, CATCH_UP_MS);
      const check = () => {
        if (settled) return;
        if (done()) finish();
        else this.waiters.push(check);
      };
      this.waiters.push(check);
    });
  }

  private wake(): void {
    const waiting = this.waiters;
    this.waiters = [];
    for (const waiter of waiting) waiter();
  }
}

/** Programs the sandbox itself starts before the server: not the server's acts. */
const MACHINERY = new Set(["sh", "dash", "bash", "bwrap", "setpriv", "env"]);

/** Each act once, a program tried on several folders of PATH said once: started if it started in any. */
export function distinctActs(whats: readonly string[]): string[] {
  const unique = [...new Set(whats)];
  const started = new Set(unique.flatMap((what) => /^started (`.*`)$/s.exec(what)?.[1] ?? []));
  return unique.filter((what) => {
    const tried = /^tried to start (`.*`) \(ENOENT\)$/s.exec(what)?.[1];
    return tried === undefined || !started.has(tried);
  });
}

/** Acts outside every window, by when, each said once with how often. */
class Notes {
  private readonly seen = new Map<string, Map<string, number>>();
  add(when: string, acts: readonly Act[]): void {
    if (acts.length === 0) return;
    const counts = this.seen.get(when) ?? new Map<string, number>();
    this.seen.set(when, counts);
    const kept = new Set(distinctActs(acts.map((act) => act.what)));
    for (const act of acts) if (kept.has(act.what)) counts.set(act.what, (counts.get(act.what) ?? 0) + 1);
  }
  lines(): string[] {
    return [...this.seen].map(([when, counts]) => {
      const listed = [...counts].slice(0, MAX_LISTED).map(([what, times]) => (times > 1 ? `${what} (${times} times)` : what));
      const more = counts.size > MAX_LISTED ? `, and ${counts.size - MAX_LISTED} more` : "";
      return `the sandbox saw, ${when}: ${listed.join("; ")}${more}`;
    });
  }
}
const MAX_LISTED = 8;

/** The witness for a plan of this sandbox: the tracer under bwrap, none without a sandbox. */
export function watch(mode: "none" | "bwrap", plan: SpawnPlan): Witnessed {
  return mode === "bwrap" ? witnessPlan(plan) : { plan, witness: unwatched("no sandbox"), attach: () => {} };
}

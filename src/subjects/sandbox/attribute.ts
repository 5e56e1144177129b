import type { Act, TraceRecord } from "./strace-line.js";

// Which acts in a call's window are the call's. The window (from just before the call is written to
// just after the ping after it is answered) is the harness's view; the server's own view is finer:
// it reads the call from its stdin, acts, writes its answer on its stdout, then reads the ping. So
// an act is the call's when it comes between the server's read of the call and its answer, by any of
// its processes (a helper started for an earlier call acting exactly then most likely acts for this
// one); or after the answer, by a process born while it handled the call (a child it forked before
// answering). Anything else in the window (a timer of an earlier call firing before the server read
// this one, or after it answered) is late: shown, never blamed. Without a read of the call in the
// trace (a server that reads its stdin some other way), the whole window is the call's.
// A process the server started outside any call's handling (at start, between calls, after an
// answer: an update check's detached child, a telemetry sender) is its background: its own acts are
// never the call's, even while the call is handled, unless it speaks for the server (reads its
// messages or writes its answers) or is an ancestor of one that does. A child it starts while a call
// is handled is the call's again (a helper started at start, asked to run a command).

/** A tools/call frame as strace shows its first bytes (quotes escaped). */
const CALL = /\\"method\\":\s*\\"tools\/call\\"/;
const PING = /\\"method\\":\s*\\"ping\\"/;

export interface Lineage {
  /** Each process's parent process (threads folded into their process). */
  parent: Map<number, number>;
  /** Each thread's process. */
  process: Map<number, number>;
  /** Processes born outside any call's handling, not of a call. */
  background: Set<number>;
  /** Processes that read the client's messages or wrote answers: the server itself. */
  speaking: Set<number>;
}

export function newLineage(): Lineage {
  return { parent: new Map(), process: new Map(), background: new Set(), speaking: new Set() };
}

/** Learns who made whom from every new process or thread in `records`, and who speaks; `outside` any call's handling, each process born there is background. */
export function learn(lineage: Lineage, records: readonly TraceRecord[], outside = false): void {
  for (const record of records) {
    if (record.type === "stdin" || record.type === "stdout") lineage.speaking.add(processOf(lineage, record.pid));
    if (record.type !== "clone") continue;
    const owner = processOf(lineage, record.pid);
    if (record.thread) lineage.process.set(record.child, owner);
    else {
      lineage.parent.set(record.child, owner);
      if (outside) lineage.background.add(record.child);
    }
  }
}

/** Whether `pid`'s process is the server's background: born outside a call, neither speaking nor an ancestor of one that speaks. */
function isBackground(lineage: Lineage, pid: number): boolean {
  const own = processOf(lineage, pid);
  if (!lineage.background.has(own)) return false;
  for (const speaker of lineage.speaking) if (within(lineage, speaker, new Set([own]))) return false;
  return true;
}

function processOf(lineage: Lineage, pid: number): number {
  return lineage.process.get(pid) ?? pid;
}

/** Whether `pid`'s process is one of `set` or descends from one. */
function within(lineage: Lineage, pid: number, set: ReadonlySet<number>): boolean {
  for (let at: number | undefined = processOf(lineage, pid), steps = 0; at !== undefined && steps < 10_000; at = lineage.parent.get(at), steps++) if (set.has(at)) return true;
  return false;
}

export interface Attributed {
  /** The call's acts. */
  blamed: Act[];
  /** Acts in the window that are not the call's (late acts of an earlier call). */
  late: Act[];
  /** Acts while the call was handled by the server's background (a process born outside any call): not the call's. */
  background: Act[];
  /** Whether the server's read of the call was seen (else the whole window was blamed). */
  anchored: boolean;
}

/** The acts of one call's window, `records` in the order strace wrote them. */
export function attribute(records: readonly TraceRecord[], lineage: Lineage): Attributed {
  learn(lineage, records);
  const acts = (from: number, to: number) => records.slice(from, to).flatMap((record) => (record.type === "act" ? [record.act] : []));
  const read = records.findIndex((record) => record.type === "stdin" && CALL.test(record.text));
  if (read < 0) return { blamed: acts(0, records.length), late: [], background: [], anchored: false };
  let ping = records.findIndex((record, at) => at > read && record.type === "stdin" && PING.test(record.text));
  if (ping < 0) ping = records.length;
  let answer = ping - 1;
  while (answer > read && records[answer]!.type !== "stdout") answer--;
  if (answer === read) answer = ping - 1;
  // the processes born while the server handled the call
  const born = new Set<number>();
  for (const record of records.slice(read + 1, answer + 1)) if (record.type === "clone" && !record.thread) born.add(record.child);
  // and those born outside its handling, not of it: the server's background from now on
  records.forEach((record, at) => {
    if (record.type === "clone" && !record.thread && (at <= read || at > answer) && !within(lineage, record.child, born)) lineage.background.add(record.child);
  });
  const blamed: Act[] = [];
  const late: Act[] = [];
  const background: Act[] = [];
  records.forEach((record, at) => {
    if (record.type !== "act") return;
    const during = at > read && at <= answer;
    if (during && isBackground(lineage, record.pid)) background.push(record.act);
    else if (during || (at > answer && within(lineage, record.pid, born))) blamed.push(record.act);
    else late.push(record.act);
  });
  return { blamed, late, background, anchored: true };
}

/**
 * The acts of a window in which no call was sent, by the server's own processes (those that read its
 * messages or write its answers, threads folded in): what it does by itself right now (a retry timer
 * of an earlier call). A process born for a call and still at work is that call's, not this.
 */
export function idleActs(records: readonly TraceRecord[], lineage: Lineage): { own: Act[]; all: Act[] } {
  learn(lineage, records, true);
  const all = records.flatMap((record) => (record.type === "act" ? [record] : []));
  return { own: all.filter((record) => lineage.speaking.has(processOf(lineage, record.pid))).map((record) => record.act), all: all.map((record) => record.act) };
}

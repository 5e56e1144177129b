import { readdirSync, readlinkSync } from "node:fs";
import type { Stream } from "node:stream";

// A process that left its group (setsid) keeps whatever descriptors it inherited: holding a child's
// stdout, it keeps our end of the pipe open, and with it the harness alive after its report. Killing
// the group cannot reach it; on Linux /proc tells who holds a pipe (a descriptor linked to
// `pipe:[INODE]`), so each holder of one of our pipes is found and killed. Elsewhere nothing is
// found, and destroying our ends of the pipes still lets the harness exit.

/** The pipe inodes of these streams' descriptors in this process (Linux; empty elsewhere). */
export function pipeInodes(streams: readonly (Stream | null | undefined)[]): string[] {
  const inodes: string[] = [];
  for (const stream of streams) {
    const fd = (stream as { _handle?: { fd?: unknown } } | null | undefined)?._handle?.fd;
    if (typeof fd !== "number" || fd < 0) continue;
    const link = linkOf(`/proc/self/fd/${fd}`);
    if (link?.startsWith("pipe:[")) inodes.push(link);
  }
  return inodes;
}

/** Kills (SIGKILL) every other process holding one of these pipes; returns their pids. */
export function killPipeHolders(inodes: readonly string[]): number[] {
  if (inodes.length === 0) return [];
  const wanted = new Set(inodes);
  const killed: number[] = [];
  let pids: string[];
  try {
    pids = readdirSync("/proc").filter((name) => /^\d+$/.test(name) && Number(name) !== process.pid);
  } catch {
    return killed;
  }
  for (const pid of pids) {
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue; // gone, or not ours to read
    }
    if (!fds.some((fd) => wanted.has(linkOf(`/proc/${pid}/fd/${fd}`) ?? ""))) continue;
    try {
      process.kill(Number(pid), "SIGKILL");
      killed.push(Number(pid));
    } catch {
      // gone already
    }
  }
  return killed;
}

function linkOf(path: string): string | undefined {
  try {
    return readlinkSync(path);
  } catch {
    return undefined;
  }
}

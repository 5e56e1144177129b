import { readdirSync, readlinkSync } from "node:fs";

// A process that left its group (setsid) keeps whatever descriptors it inherited: holding a child's
// stdout, it keeps our end of the pipe open, and with it the harness alive after its report. Killing
// the group cannot reach it; on Linux /proc tells who holds a pipe (a descriptor linked to
// `pipe:[INODE]`, or `socket:[INODE]` for the socket pairs Node spawns with), so each holder of one of our pipes is found and killed. Elsewhere nothing is
// found, and destroying our ends of the pipes still lets the harness exit.

/**
 * The inodes of the child's ends of its stdio (Linux; empty elsewhere), read right after spawn. Node
 * makes stdio pipes as socket pairs, whose two ends have inodes of their own: the child's ends are
 * the ones a process it started inherits.
 */
export function pipeInodes(pid: number | undefined, fds: readonly number[]): string[] {
  if (pid === undefined) return [];
  return fds.map((fd) => linkOf(`/proc/${pid}/fd/${fd}`) ?? "").filter((link) => link.startsWith("pipe:[") || link.startsWith("socket:["));
}

/** Kills (SIGKILL) every process but this one holding one of these pipes; returns their pids. */
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

import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { findUnifiedPlace, removeGroup } from "./cgroup-v2.js";

// A control group per sandboxed process tree, where this machine lets the harness make one: a
// pids cap that holds as root (RLIMIT_NPROC does not), and a memory budget that counts every page
// the tree charges (private, shared, memfd, tmpfs/shmem, page cache), so that the kernel's OOM
// killer picks inside the tree, never the harness or a neighbour; and, where the `cpu` controller is
// writable too, a CPU share of its own (the default weight, the same as every other sandbox's), so
// 200 busy processes in one sandbox get one sandbox's share of the cores, not 200 processes' share.
// cgroup v1 (a `pids` and a `memory` hierarchy, as here) or v2 (a unified hierarchy: groups beside the
// harness's own, where an ancestor delegates `pids` and `memory`; cgroup-v2.ts). Where neither is
// writable there are no groups: docs/sandbox.md says what holds then.

export interface CgroupSupport {
  /** "v1", "v2", or "none" when no writable hierarchy with the controllers was found. */
  version: "v1" | "v2" | "none";
  /** The folders new groups are made in: one per controller under v1, one under v2. */
  pids?: string;
  memory?: string;
  /** Where CPU groups are made, when the cpu controller is writable (each sandbox then gets an equal share). */
  cpu?: string;
  /** Whether the memory cap counts swap too (v1 memsw, v2 swap.max). */
  swap: boolean;
  /** Why there are none, when there are none, and the command that would give groups. */
  reason?: string;
  /** Under v2, where the groups are made and why (the start line says it). */
  where?: string;
}

const V1_ROOT = "/sys/fs/cgroup";
const PREFIX = "tool-conformance-";

let detected: CgroupSupport | undefined;

/** Where this process can make groups for its sandboxes; probed once (a group is made and removed). */
export function cgroupSupport(): CgroupSupport {
  if (detected) return detected;
  detected = process.env.TOOL_CONFORMANCE_NO_CGROUPS === "1" ? { version: "none", swap: false, reason: "cgroups turned off (TOOL_CONFORMANCE_NO_CGROUPS=1)" } : probe();
  return detected;
}

function probe(): CgroupSupport {
  let own: string[];
  try {
    own = readFileSync("/proc/self/cgroup", "utf8").split("\n").filter(Boolean);
  } catch {
    return { version: "none", swap: false, reason: "no /proc/self/cgroup" };
  }
  const pathFor = (controller: string) => own.map((line) => line.split(":")).find(([, list]) => list!.split(",").includes(controller))?.[2];
  const v1 = { pids: pathFor("pids"), memory: pathFor("memory") };
  if (v1.pids !== undefined && v1.memory !== undefined) {
    const pids = join(V1_ROOT, "pids", v1.pids);
    const memory = join(V1_ROOT, "memory", v1.memory);
    if (tryMake(pids, "pids.max") && tryMake(memory, "memory.limit_in_bytes")) {
      const cpuPath = pathFor("cpu");
      const cpu = cpuPath === undefined ? undefined : join(V1_ROOT, "cpu", cpuPath);
      return { version: "v1", pids, memory, ...(cpu && tryMake(cpu, "cpu.shares") ? { cpu } : {}), swap: existsSync(join(memory, "memory.memsw.limit_in_bytes")) };
    }
  }
  const unified = own.find((line) => line.startsWith("0::"))?.slice(3);
  const mount = unifiedMount();
  if (unified !== undefined && mount !== undefined) {
    const place = findUnifiedPlace(mount, unified);
    if ("reason" in place) return { version: "none", swap: false, reason: place.reason };
    const dir = place.parent;
    if (tryMake(dir, "pids.max") && tryMake(dir, "memory.max")) {
      parents.push(dir);
      return { version: "v2", pids: dir, memory: dir, ...(place.cpu && tryMake(dir, "cpu.weight") ? { cpu: dir } : {}), swap: tryMake(dir, "memory.swap.max"), where: place.where };
    }
    removeGroup(dir);
  }
  return { version: "none", swap: false, reason: "no cgroup hierarchy with pids and memory is writable by this user" };
}

/** The cgroup2 mount point, if any. */
function unifiedMount(): string | undefined {
  try {
    for (const line of readFileSync("/proc/self/mountinfo", "utf8").split("\n")) {
      const [left, right] = line.split(" - ");
      if (right?.startsWith("cgroup2 ")) return left!.split(" ")[4];
    }
  } catch {
    // no mountinfo
  }
  return undefined;
}

/** Whether a group made under `dir` gets `file` (the controller's cap); the trial group is removed. */
function tryMake(dir: string, file: string): boolean {
  const trial = join(dir, `${PREFIX}probe-${process.pid}`);
  try {
    mkdirSync(trial);
  } catch {
    return false;
  }
  try {
    return existsSync(join(trial, file));
  } finally {
    try {
      rmdirSync(trial);
    } catch {
      // left for the sweep
    }
  }
}

/** A group for one sandboxed process tree. */
export interface Cgroup {
  /** The `cgroup.procs` files a launcher writes its own pid to before it runs bwrap. */
  procs: string[];
}

let counter = 0;
/** The v2 parents this process made for its groups: removed, with whatever is empty inside, at exit. */
const parents: string[] = [];
/** Groups this process made, and when: one is removed once empty, and never in the first seconds (its launcher may not have joined it yet). */
const made: { dir: string; at: number }[] = [];
const JOIN_GRACE_MS = 10_000;
let hooked = false;

/** A new group with these caps; undefined where there are none. */
export function makeCgroup(support: CgroupSupport, caps: { maxProcesses: number; memoryBytes: number }): Cgroup | undefined {
  if (support.version === "none") return undefined;
  if (!hooked) {
    hooked = true;
    sweep(support);
    process.on("exit", () => {
      removeEmpty(true);
      for (const parent of parents) removeGroup(parent);
    });
  }
  // groups of processes already over are removed as new ones are made: a subject restarted 500 times leaves no trail
  removeEmpty();
  const name = `${PREFIX}${process.pid}-${++counter}`;
  // under v1 a group per hierarchy (pids, memory, cpu; co-mounted ones are one folder), under v2 one
  const dirs = [...new Set([support.pids!, support.memory!, ...(support.cpu ? [support.cpu] : [])])].map((dir) => join(dir, name));
  for (const dir of dirs) {
    mkdirSync(dir);
    made.push({ dir, at: Date.now() });
  }
  if (support.version === "v1") {
    const pids = join(support.pids!, name);
    const memory = join(support.memory!, name);
    writeFileSync(join(pids, "pids.max"), String(caps.maxProcesses));
    writeFileSync(join(memory, "memory.limit_in_bytes"), String(caps.memoryBytes));
    // swap counted too: memory + swap may not pass the same budget
    if (support.swap) writeFileSync(join(memory, "memory.memsw.limit_in_bytes"), String(caps.memoryBytes));
    // the cpu group keeps the default cpu.shares: the same share as every other sandbox
  } else {
    const dir = dirs[0]!;
    writeFileSync(join(dir, "pids.max"), String(caps.maxProcesses));
    writeFileSync(join(dir, "memory.max"), String(caps.memoryBytes));
    try {
      writeFileSync(join(dir, "memory.swap.max"), "0");
    } catch {
      // no swap accounting: nothing to cap
    }
  }
  return { procs: dirs.map((dir) => join(dir, "cgroup.procs")) };
}

/** Removes the groups this process made whose processes are all gone (rmdir fails on the others). */
function removeEmpty(all = false): void {
  const now = Date.now();
  for (let i = made.length - 1; i >= 0; i--) {
    if (!all && now - made[i]!.at < JOIN_GRACE_MS) continue;
    try {
      rmdirSync(made[i]!.dir);
      made.splice(i, 1);
    } catch {
      // still in use
    }
  }
}

/** Groups left by a harness that was killed (its pid is gone), removed when empty; under v2 its parents too. */
function sweep(support: CgroupSupport): void {
  const v2Parents = support.version === "v2" ? [dirname(support.pids!)] : [];
  for (const parent of new Set([support.pids, support.memory, support.cpu, ...v2Parents])) {
    if (!parent) continue;
    let names: string[];
    try {
      names = readdirSync(parent).filter((name) => name.startsWith(PREFIX));
    } catch {
      continue;
    }
    for (const name of names) {
      const pid = Number(/^tool-conformance-(?:probe-)?(\d+)/.exec(name)?.[1]);
      if (pid && pid !== process.pid && !alive(pid)) {
        removeGroup(join(parent, name));
      }
    }
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: string }).code === "EPERM";
  }
}

/**
 * The launcher that puts itself in the group, then runs `argv`: a shell on the host, as the
 * harness's user, before bwrap starts, so every process of the sandbox is born inside the group.
 * It exits 125 if a group cannot be joined (never running the subject outside it).
 */
export function launchInGroup(group: Cgroup, argv: readonly string[]): { file: string; args: string[] } {
  const script = 'while [ "$1" != -- ]; do echo $$ > "$1" || exit 125; shift; done; shift; exec "$@"';
  return { file: "/bin/sh", args: ["-c", script, "sh", ...group.procs, "--", ...argv] };
}

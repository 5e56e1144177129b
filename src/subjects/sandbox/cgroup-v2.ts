import { mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";

// Where groups can be made on a unified (v2) hierarchy. v2 forbids a group with processes of its
// own to hand controllers to children ("no internal processes"), so the harness's own group (a
// login session's scope, a service, a container's root) can almost never delegate: groups go
// beside it instead, under the nearest ancestor that already delegates the controllers (a slice,
// a delegated user service, the machine's root), in a parent of this harness's own that hands
// them on. A container's root delegates nothing until its processes sit in a leaf: then, and only
// when this process's group is the hierarchy's root as it sees it, the processes move there first.

/** The controllers a sandbox's group needs; the cpu controller is taken where offered too. */
export const SANDBOX_CONTROLLERS = ["pids", "memory"] as const;

/** A parent group for this harness's sandboxes on v2, and how it was found. */
export interface UnifiedPlace {
  /** The folder the sandboxes' groups are made in. */
  parent: string;
  /** Whether the cpu controller is handed on too. */
  cpu: boolean;
  /** Where it is and why, for the start line. */
  where: string;
}

/** Why no place was found: the reason and the one command that would give groups. */
export interface UnifiedRefusal {
  reason: string;
}

const PREFIX = "tool-conformance-";

/**
 * A parent group for this process's sandboxes under the cgroup2 mount `mount`, this process being in
 * the group `own` (its path in /proc/self/cgroup); `needs`: the controllers required (tests use others).
 */
export function findUnifiedPlace(mount: string, own: string, needs: readonly string[] = SANDBOX_CONTROLLERS, pid = process.pid): UnifiedPlace | UnifiedRefusal {
  const ownDir = join(mount, own);
  const atRoot = relative(mount, ownDir) === "";
  // the nearest ancestor that already delegates (the root itself, when this process is in it)
  for (let dir = atRoot ? ownDir : dirname(ownDir); ; dir = dirname(dir)) {
    if (listed(dir, "cgroup.subtree_control", needs)) {
      const parent = makeParent(dir, needs, pid);
      if (parent) return { ...parent, where: `beside the harness's own group, under ${shown(mount, dir)}, which delegates ${needs.join(" and ")}` };
    }
    if (relative(mount, dir) === "") break;
  }
  // a container's root: it delegates once its processes are in a leaf of their own
  if (atRoot && listed(ownDir, "cgroup.controllers", needs)) {
    const leaf = join(ownDir, `${PREFIX}leaf`);
    try {
      mkdirSync(leaf, { recursive: true });
      for (const member of readFileSync(join(ownDir, "cgroup.procs"), "utf8").split("\n").filter(Boolean)) moveProcess(member, leaf);
      writeFileSync(join(ownDir, "cgroup.subtree_control"), needs.map((c) => `+${c}`).join(" "));
    } catch {
      return refusal(needs);
    }
    const parent = makeParent(ownDir, needs, pid);
    if (parent) return { ...parent, where: `under the hierarchy's root (${shown(mount, ownDir)}), its processes moved into ${PREFIX}leaf so that it may delegate ${needs.join(" and ")}` };
  }
  return refusal(needs);
}

function refusal(needs: readonly string[]): UnifiedRefusal {
  return {
    reason:
      `cgroup v2: no group this user may write delegates ${needs.join(" and ")} (v2 lets no group with processes of its own hand controllers on); ` +
      `run the command under a delegated scope to give groups: systemd-run --scope -p Delegate=yes -- COMMAND (as root), or systemd-run --user --scope -p Delegate=yes -- COMMAND`,
  };
}

/** A parent of this harness's own under `dir`, handing `needs` (and cpu, where offered) on; undefined where it cannot be made. */
function makeParent(dir: string, needs: readonly string[], pid: number): Omit<UnifiedPlace, "where"> | undefined {
  const parent = join(dir, `${PREFIX}${pid}`);
  try {
    mkdirSync(parent);
  } catch (error) {
    if ((error as { code?: string }).code !== "EEXIST") return undefined;
  }
  try {
    writeFileSync(join(parent, "cgroup.subtree_control"), needs.map((c) => `+${c}`).join(" "));
  } catch {
    removeGroup(parent);
    return undefined;
  }
  let cpu = false;
  if (listed(parent, "cgroup.controllers", ["cpu"])) {
    try {
      writeFileSync(join(parent, "cgroup.subtree_control"), "+cpu");
      cpu = true;
    } catch {
      // cpu offered but not writable: no CPU share
    }
  }
  return { parent, cpu };
}

/** Whether a group's list file (cgroup.controllers, cgroup.subtree_control) names every controller. */
function listed(dir: string, file: string, controllers: readonly string[]): boolean {
  try {
    const names = readFileSync(join(dir, file), "utf8").split(/\s+/);
    return controllers.every((c) => names.includes(c));
  } catch {
    return false;
  }
}

function moveProcess(pid: string, to: string): void {
  try {
    writeFileSync(join(to, "cgroup.procs"), pid);
  } catch (error) {
    // gone meanwhile; anything else leaves the root with a process, and enabling fails below
    if ((error as { code?: string }).code !== "ESRCH") throw error;
  }
}

/** A group and the empty groups inside it, removed; a group still in use stays. */
export function removeGroup(dir: string): void {
  try {
    for (const entry of readdirSync(dir, { withFileTypes: true })) if (entry.isDirectory()) removeGroup(join(dir, entry.name));
    rmdirSync(dir);
  } catch {
    // in use, or gone
  }
}

/** A folder of the hierarchy as a reader knows it: its path under the mount ("/" for the root). */
function shown(mount: string, dir: string): string {
  return `/${relative(mount, dir)}`;
}

import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findUnifiedPlace, removeGroup } from "../../src/subjects/sandbox/cgroup-v2.js";

// The v2 paths of the sandbox's cgroups on a real unified hierarchy, mounted in a mount namespace of
// the test's own (and, for a container's root, a cgroup namespace too). This machine binds pids and
// memory to v1, so its v2 hierarchy offers only `hugetlb`: these tests hold the kernel's v2 rules (no
// group with processes hands controllers on; a root moves its processes to a leaf first) with that
// controller in place of pids and memory. That the caps then hold is for a v2 machine (docs/sandbox.md).

const ROOT = process.getuid?.() === 0;
const NEEDS = ["hugetlb"];
const holders: ChildProcess[] = [];
const dirs: string[] = [];

/** A process that mounts cgroup2 in namespaces of its own and sleeps; the mount, seen through /proc/PID/root. */
async function mountedBy(namespaces: string[], before?: (pid: number) => void): Promise<{ mount: string; pid: number }> {
  const dir = mkdtempSync(join(tmpdir(), "cgroup2-"));
  dirs.push(dir);
  const script = `read go; exec unshare ${namespaces.join(" ")} sh -c 'mount -t cgroup2 none "$0" && echo ready && exec sleep 600' "${dir}"`;
  const child = spawn("sh", ["-c", script], { stdio: ["pipe", "pipe", "inherit"] });
  holders.push(child);
  before?.(child.pid!);
  child.stdin!.write("go\n");
  await new Promise<void>((resolve, reject) => {
    child.stdout!.once("data", () => resolve());
    child.once("exit", (code) => reject(new Error(`the holder exited with ${code}`)));
  });
  return { mount: `/proc/${child.pid}/root${dir}`, pid: child.pid! };
}

/** A sleeping process in a group (by its path under `mount`), for groups that must hold a process. */
function sleeperIn(mount: string, group: string): number {
  const child = spawn("sleep", ["600"], { stdio: "ignore" });
  holders.push(child);
  writeFileSync(join(mount, group, "cgroup.procs"), String(child.pid));
  return child.pid!;
}

const controllers = (mount: string, group: string, file: string) => readFileSync(join(mount, group, file), "utf8").trim().split(/\s+/).filter(Boolean);
const ownGroup = (pid: number) => readFileSync(`/proc/${pid}/cgroup`, "utf8").split("\n").find((line) => line.startsWith("0::"))!.slice(3);

describe.runIf(ROOT)("groups on a cgroup v2 hierarchy, where the harness's own group has processes (as root)", () => {
  let mount: string;
  const test = `tool-conformance-test-${process.pid}`;
  let rootHad: boolean;

  beforeAll(async () => {
    ({ mount } = await mountedBy(["-m"]));
    rootHad = controllers(mount, "", "cgroup.subtree_control").includes("hugetlb");
  });
  afterAll(async () => {
    // every process but the mount's holder first, so that the groups empty; then the groups, then the mount
    const [holder, ...rest] = holders;
    for (const child of rest) child.kill("SIGKILL");
    await new Promise((resolve) => setTimeout(resolve, 300));
    removeGroup(join(mount, test));
    if (!rootHad) writeFileSync(join(mount, "cgroup.subtree_control"), "-hugetlb");
    const left = existsSync(join(mount, test));
    holder!.kill("SIGKILL");
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    expect(left, "the test's groups are all removed").toBe(false);
  });

  it("nothing delegates the controllers: no groups, the reason and the command that would give them", () => {
    writeFileSync(join(mount, "cgroup.subtree_control"), "-hugetlb");
    mkdirSync(join(mount, test, "session", "leaf"), { recursive: true });
    sleeperIn(mount, `${test}/session/leaf`);
    const place = findUnifiedPlace(mount, `/${test}/session/leaf`, NEEDS, 4242);
    expect(place).toEqual({ reason: expect.stringContaining("systemd-run --scope -p Delegate=yes -- COMMAND") });
    expect(existsSync(join(mount, test, "session", "tool-conformance-4242"))).toBe(false);
  });

  it("a slice above the session delegates: the groups go beside the harness's own, in a parent that hands the controllers on", () => {
    writeFileSync(join(mount, "cgroup.subtree_control"), "+hugetlb");
    writeFileSync(join(mount, test, "cgroup.subtree_control"), "+hugetlb");
    writeFileSync(join(mount, test, "session", "cgroup.subtree_control"), "+hugetlb");
    // the session's scope itself holds the shell: v2 refuses it children with controllers
    expect(() => writeFileSync(join(mount, test, "session", "leaf", "cgroup.subtree_control"), "+hugetlb")).toThrow();
    const place = findUnifiedPlace(mount, `/${test}/session/leaf`, NEEDS, 4243);
    expect(place).toEqual({ parent: join(mount, test, "session", "tool-conformance-4243"), cpu: false, where: `beside the harness's own group, under /${test}/session, which delegates hugetlb` });
    // a sandbox's group made in it has the controller, and a process can join it
    const sandbox = join(mount, test, "session", "tool-conformance-4243", "tool-conformance-4243-1");
    mkdirSync(sandbox);
    expect(readdirSync(sandbox).some((file) => file.startsWith("hugetlb."))).toBe(true);
    const pid = sleeperIn(mount, `${test}/session/tool-conformance-4243/tool-conformance-4243-1`);
    expect(ownGroup(pid)).toBe(`/${test}/session/tool-conformance-4243/tool-conformance-4243-1`);
  });

  it("a service whose slice does not delegate: the nearest ancestor that does is taken", () => {
    mkdirSync(join(mount, test, "system", "runner"), { recursive: true });
    sleeperIn(mount, `${test}/system/runner`);
    const place = findUnifiedPlace(mount, `/${test}/system/runner`, NEEDS, 4244);
    expect("parent" in place && place.parent).toBe(join(mount, test, "tool-conformance-4244"));
    expect(controllers(mount, `${test}/tool-conformance-4244`, "cgroup.subtree_control")).toContain("hugetlb");
  });

  it("a container's root (a cgroup namespace) delegates once its processes sit in a leaf of their own", async () => {
    mkdirSync(join(mount, test, "container"));
    // the holder joins the container's group, then makes a cgroup namespace rooted there and mounts it
    const inner = await mountedBy(["-C", "-m"], (pid) => writeFileSync(join(mount, test, "container", "cgroup.procs"), String(pid)));
    expect(ownGroup(inner.pid)).toBe(`/${test}/container`);
    expect(controllers(inner.mount, "", "cgroup.subtree_control")).not.toContain("hugetlb");
    const place = findUnifiedPlace(inner.mount, "/", NEEDS, 4245);
    expect(place).toEqual({ parent: join(inner.mount, "tool-conformance-4245"), cpu: false, where: "under the hierarchy's root (/), its processes moved into tool-conformance-leaf so that it may delegate hugetlb" });
    expect(ownGroup(inner.pid)).toBe(`/${test}/container/tool-conformance-leaf`);
    expect(controllers(inner.mount, "tool-conformance-4245", "cgroup.subtree_control")).toContain("hugetlb");
  });
});

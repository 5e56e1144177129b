import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { accessSync, chownSync, constants, readlinkSync, realpathSync, statSync } from "node:fs";
import { delimiter, dirname, join } from "node:path";
import { PACKAGE_ROOT } from "../../corpus/load.js";
import { cgroupSupport, launchInGroup, makeCgroup, type CgroupSupport } from "./cgroup.js";
import { closeInheritedDescriptors } from "./descriptors.js";
import { DEFAULT_LIMITS, formatSize, SandboxError, shellLine, type Limits, type Sandbox } from "./common.js";
import { otherCopies } from "./other-copies.js";
import { checkedBind, checkedFolder, existingReal, kindOf, within, type Hidden } from "./paths.js";
import { runtimeBinds, SANDBOX_PATH } from "./runtime.js";

// The bubblewrap sandbox. The subject sees:
//   its submission folder, at its own path (read-only unless `writable`), as its working directory;
//   the system's runtimes read-only: /usr, /etc, and /bin, /sbin, /lib* (symlinks or folders, as here);
//   `binds`, read-only, at their own paths (runtimes installed elsewhere: pyenv, nvm);
//   a private /tmp and /dev/shm (memory-backed, size-capped), a fresh /proc for its own pid
//   namespace, a minimal /dev; everything else read-only.
// It does not see the harness: this package's folder (corpus, dist, node_modules) and every
// `hide` path are covered with an empty read-only folder wherever they fall inside something
// bound. No network, no other process, no capability, an environment of PATH, HOME=/tmp and LANG.
// Every process it starts is in the sandbox's pid namespace, which dies with bwrap, which dies
// with the harness (--die-with-parent): setsid does not escape it, and a harness killed with
// SIGKILL takes its subjects with it. Caps are rlimits set inside the sandbox before the command.

export interface BwrapOptions {
  /** The folder the subject runs in, and the only folder of the machine it sees. Default: the current directory. */
  submission?: string;
  /** Let the subject write in its submission folder (default: read-only). */
  writable?: boolean;
  /** More folders or files the subject may read, at the same path (runtimes installed outside /usr). */
  binds?: readonly string[];
  /** Paths the subject must not see even inside something it sees (the --out folder, a private corpus); this package's folder always. */
  hide?: readonly string[];
  limits?: Partial<Limits>;
  /** The bwrap executable. Default: `bwrap` on PATH. */
  bwrap?: string;
  /**
   * Show only what these runtimes need of /usr (`python3`, `node`, `go`, `java`, any command on the
   * sandbox's PATH) instead of the whole of it. Default: the whole of /usr.
   */
  runtimes?: readonly string[];
}
/** Mounted read-only as they are. */
const SYSTEM_DIRS = ["/usr", "/etc"];
/** Symlinks into /usr on merged-/usr systems, folders elsewhere: recreated as they are here. */
const SYSTEM_LINKS = ["/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"];

/**
 * How the sandbox's processes are kept from being the grader's own user:
 *   "uid": the harness runs as root and bwrap can run privileged (no user namespace): the command
 *     runs as a uid of its own, not root and no one else's (setpriv, every capability dropped), so
 *     root's files (/etc/shadow) are closed to it and RLIMIT_NPROC holds;
 *   "userns": bwrap makes a user namespace; the subject is the harness's own user seen from outside
 *     (as root, that is root: docs/sandbox.md says what that leaves open).
 */
export type IdentityMode = "uid" | "userns";

export function bwrapSandbox(options: BwrapOptions): Sandbox {
  const bwrap = options.bwrap ?? findBwrap();
  if (bwrap === undefined) {
    throw new SandboxError("--sandbox bwrap: bubblewrap (bwrap) is not installed or not on PATH; install it (Debian/Ubuntu: apt-get install bubblewrap) or use --sandbox none for trusted code");
  }
  const limits: Limits = { ...DEFAULT_LIMITS, ...definedOnly(options.limits ?? {}) };
  for (const [name, value] of Object.entries(limits)) {
    if (!Number.isSafeInteger(value) || value < 1) throw new SandboxError(`the sandbox cap ${name} must be a positive whole number (got ${value})`);
  }
  const own = existingReal(PACKAGE_ROOT);
  const hidden: Hidden[] = [
    ...(own ? [{ path: own, what: "this tool's own folder (its corpus, dist and node_modules)" }] : []),
    ...otherCopies((options.binds ?? []).flatMap((path) => existingReal(path) ?? [])).filter((path) => path !== own).map((path) => ({ path, what: `${path}, another copy of this tool` })),
    ...(options.hide ?? []).flatMap((path) => {
      const real = existingReal(path);
      return real ? [{ path: real, what: `${real}, which the subject must not see` }] : [];
    }),
  ];
  const submission = checkedFolder(options.submission ?? process.cwd(), "--submission", hidden);
  const binds = (options.binds ?? []).map((path) => checkedBind(path, hidden));
  // nothing but stdio crosses into the sandbox, whatever this process was started with
  closeInheritedDescriptors();
  const probe = probeBwrap(bwrap);
  if (!probe.ok) throw new SandboxError(`--sandbox bwrap: bwrap cannot create a sandbox on this machine: ${probe.reason}`);
  const identity = probe.identity;
  const uid = identity === "uid" ? sandboxUid(submission) : undefined;
  const runtime = options.runtimes?.length ? runtimeBinds(options.runtimes) : undefined;

  const args = [...baseArgs(limits, probe.size, identity, runtime)];
  // in uid mode the folders bwrap makes on the way to a bind are root's: open them to the subject's uid
  const made = new Set<string>();
  const walkTo = (path: string) => {
    if (identity !== "uid") return;
    const ancestors: string[] = [];
    for (let dir = dirname(path); dir !== "/" && !made.has(dir); dir = dirname(dir)) ancestors.unshift(dir);
    for (const dir of ancestors) {
      made.add(dir);
      if (shownBySystem(dir, runtime)) continue;
      args.push("--perms", "0755", "--dir", dir);
    }
  };
  for (const path of binds) {
    walkTo(path);
    args.push("--ro-bind", path, path);
  }
  if (options.writable && uid !== undefined) giveFolder(submission, uid);
  walkTo(submission);
  args.push(options.writable ? "--bind" : "--ro-bind", submission, submission);
  // the harness's own folders, wherever something bound would show them
  const sources = [...(runtime ? runtime.paths : SYSTEM_DIRS), "/etc", ...SYSTEM_LINKS.filter((path) => kindOf(path) === "dir"), ...binds, submission];
  for (const { path } of hidden) {
    if (!sources.some((source) => within(path, source))) continue;
    if (kindOf(path) === "dir") args.push("--tmpfs", path, "--remount-ro", path);
    else args.push("--ro-bind", "/dev/null", path);
  }
  args.push("--remount-ro", "/dev", "--remount-ro", "/", "--chdir", submission);

  const script = limitScript(limits, uid);
  const cgroups = cgroupSupport();
  const summary = [
    `bwrap sandbox: sees ${submission} (${options.writable ? "writable" : "read-only"})${binds.length ? `, ${binds.join(", ")} (read-only)` : ""}, ${runtime ? `only the runtimes ${options.runtimes!.join(", ")} of /usr` : "the system's runtimes"}, a private /tmp; no network; this tool's copies hidden`,
    guarantees(limits, identity, uid, cgroups, probe.reason),
  ].join("; ");
  return {
    mode: "bwrap",
    summary,
    plan(command) {
      // bwrap writes {"exit-code": N} on fd 4 when the sandboxed shell exits; if bwrap (or the launcher
      // before it) exits without that line, the sandbox never ran the subject: the grader's failure
      const argv = [bwrap, ...(probe.status ? ["--json-status-fd", String(STATUS_FD)] : []), ...args, "/bin/sh", "-c", script, "sh", shellLine(command)];
      const group = makeCgroup(cgroups, { maxProcesses: limits.maxProcesses + BWRAP_OWN_PROCESSES, memoryBytes: limits.memoryBytes });
      const launch = group ? launchInGroup(group, argv) : { file: bwrap, args: argv.slice(1) };
      return {
        file: launch.file,
        args: launch.args,
        shell: false,
        cwd: submission,
        // bwrap clears the environment for the subject; bwrap itself needs none of ours
        env: { PATH: process.env.PATH ?? SANDBOX_PATH },
        // fd 1 of bwrap is /dev/null: bwrap keeps its own stdio open as long as it runs
        stdoutFd: 3,
        ...(probe.status ? { statusFd: STATUS_FD } : {}),
        signalAsExitCode: true,
        shown: [submission, ...binds],
      };
    },
  };
}

/** The descriptor of bwrap on which it reports the sandboxed command's start and exit (bwrap --json-status-fd). */
const STATUS_FD = 4;

/** bwrap's own processes in a sandbox's group (bwrap, its init, the launching shell), over --max-processes. */
const BWRAP_OWN_PROCESSES = 3;

/** What holds for this sandbox, in words, for the line `score` prints before it runs. */
function guarantees(limits: Limits, identity: IdentityMode, uid: number | undefined, cgroups: CgroupSupport, why: string | undefined): string {
  const root = process.getuid?.() === 0;
  const who = uid !== undefined ? `runs as uid ${uid} (not root, no capability)` : root ? `runs as root inside a user namespace (privileged bwrap unavailable${why ? `: ${why}` : ""}): root's files are readable` : "runs as your user, no capability";
  const group = cgroups.version !== "none";
  const processes = group
    ? `${limits.maxProcesses} processes (pids cgroup ${cgroups.version})`
    : uid !== undefined || !root
      ? `${limits.maxProcesses} processes (RLIMIT_NPROC of ${uid !== undefined ? "its own uid" : "your user, shared with your other processes"})`
      : `${limits.maxProcesses} processes (not enforced: root, no writable cgroup)`;
  const memory = group
    ? `memory ${formatSize(limits.memoryBytes)} for the whole sandbox, shared memory and tmpfs included (memory cgroup ${cgroups.version})`
    : `memory ${formatSize(limits.memoryBytes)} a process (RLIMIT_DATA: shared mappings and tmpfs not counted; no writable cgroup)`;
  const share = cgroups.cpu ? `an equal CPU share (cpu cgroup ${cgroups.version})` : "no CPU share of its own (no writable cpu cgroup)";
  const groups = cgroups.where ? `; its groups ${cgroups.where}` : cgroups.reason ? `; no cgroups: ${cgroups.reason}` : "";
  return `${who}; ${processes}; ${memory}; ${share}; ${limits.cpuSeconds} s of CPU a process, files up to ${formatSize(limits.fileBytes)}; first in line for the OOM killer${groups}`;
}

/**
 * The uid a submission's sandbox runs as in uid mode: not root, not a user of this machine, and
 * the same for the build and the score of one submission (derived from its folder), so a fork
 * bomb's RLIMIT_NPROC count is its own.
 */
export function sandboxUid(submission: string): number {
  const hash = createHash("sha256").update(submission).digest().readUInt32BE(0);
  return UID_BASE + (hash % UID_SPAN);
}
const UID_BASE = 1_600_000_000;
const UID_SPAN = 100_000_000;

/** The uid a folder's sandbox will run as, when the sandbox runs as a uid of its own (as root); undefined otherwise. */
export function sandboxOwner(folder: string): number | undefined {
  const probe = probeBwrap();
  return probe.ok && probe.identity === "uid" ? sandboxUid(realpathSync(folder)) : undefined;
}

/** As root in uid mode, a writable folder must be the subject's: the folder itself (not its files) is given to its uid. */
function giveFolder(folder: string, uid: number): void {
  try {
    chownSync(folder, uid, uid);
  } catch (error) {
    throw new SandboxError(`--writable ${folder}: cannot give the folder to the sandbox's uid ${uid}: ${(error as Error).message}`);
  }
}

/** Whether bwrap shows `dir` already (a system folder bound whole): no folder is made there. */
function shownBySystem(dir: string, runtime: { paths: string[] } | undefined): boolean {
  const shown = runtime ? runtime.paths : SYSTEM_DIRS;
  return [...shown, "/etc"].some((source) => within(dir, source));
}

/** The arguments every sandbox shares: namespaces, identity, environment, system folders, /proc, /dev, /tmp. */
function baseArgs(limits: Limits, sizeOption: boolean, identity: IdentityMode, runtime?: { paths: string[]; links: { target: string; path: string }[] }): string[] {
  const size = (bytes: number) => (sizeOption ? ["--size", String(bytes)] : []);
  const args =
    identity === "uid"
      ? // privileged (as root, no user namespace): the script keeps only what it needs to drop to the sandbox's uid
        ["--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try", "--die-with-parent", "--new-session", "--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID", "--cap-add", "CAP_SETPCAP"]
      : ["--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL"];
  args.push("--clearenv", "--setenv", "PATH", SANDBOX_PATH, "--setenv", "HOME", "/tmp", "--setenv", "LANG", process.env.LANG || "C.UTF-8");
  if (runtime) {
    // the folders on the way, open to the sandbox's uid (bwrap would make them root's only)
    const ancestors = new Set<string>();
    for (const path of [...runtime.paths, ...runtime.links.map((link) => link.path)]) for (let dir = dirname(path); dir !== "/"; dir = dirname(dir)) ancestors.add(dir);
    for (const dir of [...ancestors].sort()) args.push("--perms", "0755", "--dir", dir);
    for (const path of runtime.paths) args.push("--ro-bind", path, path);
    for (const { path, target } of runtime.links) args.push("--symlink", target, path);
  } else {
    args.push("--ro-bind", "/usr", "/usr");
  }
  args.push("--ro-bind", "/etc", "/etc");
  for (const path of SYSTEM_LINKS) {
    const kind = kindOf(path);
    if (kind === "link") args.push("--symlink", readlinkSync(path), path);
    else if (kind === "dir") args.push("--ro-bind", path, path);
  }
  const open = identity === "uid" ? ["--perms", "1777"] : [];
  args.push("--proc", "/proc", "--dev", "/dev", ...size(limits.fileBytes), ...open, "--tmpfs", "/dev/shm", ...size(limits.memoryBytes), ...open, "--tmpfs", "/tmp");
  return args;
}

/**
 * The caps, set (soft and hard) by the sandbox's shell before it runs the command. RLIMIT_DATA
 * rather than RLIMIT_AS: V8 and Go reserve far more address space than they use. dash names the
 * process cap -p, bash and busybox -u; both give -f in 512-byte blocks and -d in KiB. The subject's
 * stdout comes in as fd 3, which bwrap does not keep for itself (see plan()). In uid mode the
 * shell then becomes the sandbox's uid with setpriv: no supplementary group, no capability left
 * in any set, and no way back (bwrap sets no_new_privs).
 */
function limitScript(limits: Limits, uid: number | undefined): string {
  const kib = Math.ceil(limits.memoryBytes / 1024);
  const blocks = Math.ceil(limits.fileBytes / 512);
  const n = limits.maxProcesses;
  const run = uid === undefined ? `exec /bin/sh -c "$1"` : `exec setpriv --reuid ${uid} --regid ${uid} --clear-groups --inh-caps=-all --ambient-caps=-all --bounding-set=-all /bin/sh -c "$1"`;
  // the subject's processes are the OOM killer's first choice, never the harness (which keeps its own score)
  return `exec 1>&3 3>&- && { echo 1000 > /proc/self/oom_score_adj; } 2>/dev/null; ulimit -d ${kib} && ulimit -t ${limits.cpuSeconds} && ulimit -f ${blocks} && ulimit -c 0 && { ulimit -u ${n} 2>/dev/null || ulimit -p ${n}; } && ${run}`;
}

/** `bwrap` on PATH, if any. */
export function findBwrap(): string | undefined {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    if (!dir) continue;
    const file = join(dir, "bwrap");
    try {
      accessSync(file, constants.X_OK);
      if (statSync(file).isFile()) return file;
    } catch {
      // not here
    }
  }
  return undefined;
}

export type ProbeResult = { ok: true; size: boolean; status: boolean; identity: IdentityMode; reason?: string } | { ok: false; reason: string };
const probes = new Map<string, ProbeResult>();

/**
 * Whether bwrap can build the sandbox here (user namespaces allowed, /proc mountable), tried
 * once per process with the sandbox's own arguments and a command that does nothing. As root,
 * the privileged mode that drops to a uid of the sandbox's own is tried first.
 */
export function probeBwrap(bwrap: string | undefined = findBwrap()): ProbeResult {
  if (bwrap === undefined) return { ok: false, reason: "bwrap is not installed or not on PATH" };
  const known = probes.get(bwrap);
  if (known) return known;
  const help = spawnSync(bwrap, ["--help"], { encoding: "utf8", timeout: 10_000 });
  const size = /--size\b/.test(`${help.stdout}${help.stderr}`);
  // bwrap 0.5 and later report the sandboxed command's exit on --json-status-fd (see plan())
  const status = /--json-status-fd\b/.test(`${help.stdout}${help.stderr}`);
  const trial = (identity: IdentityMode) => {
    const script = identity === "uid" ? `${limitScript(DEFAULT_LIMITS, UID_BASE - 1)}` : "exit 0";
    const args = [...baseArgs(DEFAULT_LIMITS, size, identity), "--remount-ro", "/", "/bin/sh", "-c", script, "sh", "cat /etc/shadow >/dev/null 2>&1 && exit 1; exit 0"];
    return spawnSync(bwrap, args, { encoding: "utf8", timeout: 10_000, stdio: ["ignore", "ignore", "pipe", "pipe"] });
  };
  const failure = (run: ReturnType<typeof trial>) => (run.error ? run.error.message : run.status !== 0 ? (String(run.stderr).trim().split("\n").pop() ?? "").trim() || `it exited with code ${run.status ?? run.signal}` : undefined);
  let result: ProbeResult;
  let why: string | undefined;
  if (process.getuid?.() === 0 && process.env.TOOL_CONFORMANCE_SANDBOX_IDENTITY !== "userns") {
    why = failure(trial("uid"));
    if (why === undefined) {
      result = { ok: true, size, status, identity: "uid" };
      probes.set(bwrap, result);
      return result;
    }
  }
  const run = spawnSync(bwrap, [...baseArgs(DEFAULT_LIMITS, size, "userns"), "--remount-ro", "/", "/bin/sh", "-c", "exit 0"], { encoding: "utf8", timeout: 10_000 });
  if (run.error) result = { ok: false, reason: run.error.message };
  else if (run.status !== 0) result = { ok: false, reason: (run.stderr.trim().split("\n").pop() ?? "").trim() || `it exited with code ${run.status ?? run.signal}` };
  else result = { ok: true, size, status, identity: "userns", ...(why ? { reason: why } : {}) };
  probes.set(bwrap, result);
  return result;
}

function definedOnly<T extends object>(options: T): Partial<T> {
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)) as Partial<T>;
}


import { spawnSync } from "node:child_process";
import { accessSync, constants, lstatSync, readlinkSync, realpathSync, statSync } from "node:fs";
import { delimiter, isAbsolute, join, relative, resolve } from "node:path";
import { PACKAGE_ROOT } from "../corpus.js";
import { DEFAULT_LIMITS, formatSize, SandboxError, shellLine, type Limits, type Sandbox } from "./common.js";

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
}

/** The PATH inside the sandbox. */
const SANDBOX_PATH = "/usr/local/bin:/usr/bin:/bin";
/** Mounted read-only as they are. */
const SYSTEM_DIRS = ["/usr", "/etc"];
/** Symlinks into /usr on merged-/usr systems, folders elsewhere: recreated as they are here. */
const SYSTEM_LINKS = ["/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"];

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
    ...(options.hide ?? []).flatMap((path) => {
      const real = existingReal(path);
      return real ? [{ path: real, what: `${real}, which the subject must not see` }] : [];
    }),
  ];
  const submission = checkedFolder(options.submission ?? process.cwd(), "--submission", hidden);
  const binds = (options.binds ?? []).map((path) => checkedBind(path, hidden));
  const probe = probeBwrap(bwrap);
  if (!probe.ok) throw new SandboxError(`--sandbox bwrap: bwrap cannot create a sandbox on this machine: ${probe.reason}`);

  const args = [...baseArgs(limits, probe.size), ...binds.flatMap((path) => ["--ro-bind", path, path])];
  args.push(options.writable ? "--bind" : "--ro-bind", submission, submission);
  // the harness's own folders, wherever something bound would show them
  const sources = [...SYSTEM_DIRS, ...SYSTEM_LINKS.filter((path) => kindOf(path) === "dir"), ...binds, submission];
  for (const { path } of hidden) {
    if (!sources.some((source) => within(path, source))) continue;
    if (kindOf(path) === "dir") args.push("--tmpfs", path, "--remount-ro", path);
    else args.push("--ro-bind", "/dev/null", path);
  }
  args.push("--remount-ro", "/dev", "--remount-ro", "/", "--chdir", submission);

  const script = limitScript(limits);
  const root = process.getuid?.() === 0;
  const summary = [
    `bwrap sandbox: sees ${submission} (${options.writable ? "writable" : "read-only"})${binds.length ? `, ${binds.join(", ")} (read-only)` : ""}, the system's runtimes, a private /tmp; no network`,
    `memory ${formatSize(limits.memoryBytes)} a process, ${limits.maxProcesses} processes${root ? " (not enforced: the harness runs as root)" : ""}, ${limits.cpuSeconds} s of CPU a process, files up to ${formatSize(limits.fileBytes)}`,
  ].join("; ");
  return {
    mode: "bwrap",
    summary,
    plan(command) {
      return {
        file: bwrap,
        args: [...args, "/bin/sh", "-c", script, "sh", shellLine(command)],
        shell: false,
        cwd: submission,
        // bwrap clears the environment for the subject; bwrap itself needs none of ours
        env: { PATH: process.env.PATH ?? SANDBOX_PATH },
        // fd 1 of bwrap is /dev/null: bwrap keeps its own stdio open as long as it runs
        stdoutFd: 3,
        signalAsExitCode: true,
      };
    },
  };
}

/** The arguments every sandbox shares: namespaces, environment, system folders, /proc, /dev, /tmp. */
function baseArgs(limits: Limits, sizeOption: boolean): string[] {
  const size = (bytes: number) => (sizeOption ? ["--size", String(bytes)] : []);
  const args = ["--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL"];
  args.push("--clearenv", "--setenv", "PATH", SANDBOX_PATH, "--setenv", "HOME", "/tmp", "--setenv", "LANG", process.env.LANG || "C.UTF-8");
  for (const path of SYSTEM_DIRS) args.push("--ro-bind", path, path);
  for (const path of SYSTEM_LINKS) {
    const kind = kindOf(path);
    if (kind === "link") args.push("--symlink", readlinkSync(path), path);
    else if (kind === "dir") args.push("--ro-bind", path, path);
  }
  args.push("--proc", "/proc", "--dev", "/dev", ...size(limits.fileBytes), "--tmpfs", "/dev/shm", ...size(limits.memoryBytes), "--tmpfs", "/tmp");
  return args;
}

/**
 * The caps, set (soft and hard) by the sandbox's shell before it runs the command. RLIMIT_DATA
 * rather than RLIMIT_AS: V8 and Go reserve far more address space than they use. dash names the
 * process cap -p, bash and busybox -u; both give -f in 512-byte blocks and -d in KiB. The subject's
 * stdout comes in as fd 3, which bwrap does not keep for itself (see plan()).
 */
function limitScript(limits: Limits): string {
  const kib = Math.ceil(limits.memoryBytes / 1024);
  const blocks = Math.ceil(limits.fileBytes / 512);
  const n = limits.maxProcesses;
  return `exec 1>&3 3>&- && ulimit -d ${kib} && ulimit -t ${limits.cpuSeconds} && ulimit -f ${blocks} && ulimit -c 0 && { ulimit -u ${n} 2>/dev/null || ulimit -p ${n}; } && exec /bin/sh -c "$1"`;
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

export type ProbeResult = { ok: true; size: boolean } | { ok: false; reason: string };
const probes = new Map<string, ProbeResult>();

/**
 * Whether bwrap can build the sandbox here (user namespaces allowed, /proc mountable), tried
 * once per process with the sandbox's own arguments and a command that does nothing.
 */
export function probeBwrap(bwrap: string | undefined = findBwrap()): ProbeResult {
  if (bwrap === undefined) return { ok: false, reason: "bwrap is not installed or not on PATH" };
  const known = probes.get(bwrap);
  if (known) return known;
  const help = spawnSync(bwrap, ["--help"], { encoding: "utf8", timeout: 10_000 });
  const size = /--size\b/.test(`${help.stdout}${help.stderr}`);
  const run = spawnSync(bwrap, [...baseArgs(DEFAULT_LIMITS, size), "--remount-ro", "/", "/bin/sh", "-c", "exit 0"], { encoding: "utf8", timeout: 10_000 });
  let result: ProbeResult;
  if (run.error) result = { ok: false, reason: run.error.message };
  else if (run.status !== 0) result = { ok: false, reason: (run.stderr.trim().split("\n").pop() ?? "").trim() || `it exited with code ${run.status ?? run.signal}` };
  else result = { ok: true, size };
  probes.set(bwrap, result);
  return result;
}

function checkedFolder(path: string, flag: string, hidden: readonly Hidden[]): string {
  const real = existingReal(path);
  if (real === undefined) throw new SandboxError(`${flag} ${path}: no such folder`);
  if (kindOf(real) !== "dir") throw new SandboxError(`${flag} ${path}: not a folder`);
  if (real === "/") throw new SandboxError(`${flag} ${path}: the whole machine; give the submission's own folder`);
  refuseHidden(real, path, flag, hidden);
  return real;
}

function checkedBind(path: string, hidden: readonly Hidden[]): string {
  const real = existingReal(path);
  if (real === undefined) throw new SandboxError(`--sandbox-bind ${path}: no such file or folder`);
  if (real === "/") throw new SandboxError(`--sandbox-bind ${path}: the whole machine; give the runtime's own folder`);
  refuseHidden(real, path, "--sandbox-bind", hidden);
  return real;
}

/** A path the subject must not see, and how to name it in an error. */
interface Hidden {
  path: string;
  what: string;
}

function refuseHidden(real: string, given: string, flag: string, hidden: readonly Hidden[]): void {
  const inside = hidden.find((h) => within(real, h.path));
  if (inside) throw new SandboxError(`${flag} ${given}: it is inside ${inside.what}; give a folder outside it`);
}

/** Whether `path` is `parent` or inside it (both absolute and real). */
function within(path: string, parent: string): boolean {
  const rel = relative(parent, path);
  return rel === "" || (rel !== ".." && !rel.startsWith("../") && !isAbsolute(rel));
}

function existingReal(path: string): string | undefined {
  try {
    return realpathSync(resolve(path));
  } catch {
    return undefined;
  }
}

function kindOf(path: string): "dir" | "link" | "file" | undefined {
  try {
    const stat = lstatSync(path);
    return stat.isSymbolicLink() ? "link" : stat.isDirectory() ? "dir" : "file";
  } catch {
    return undefined;
  }
}

function definedOnly<T extends object>(options: T): Partial<T> {
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)) as Partial<T>;
}

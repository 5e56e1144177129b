import { spawnSync } from "node:child_process";
import { cpSync, lchownSync, lstatSync, mkdirSync, readdirSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

// `grade --build` under --sandbox bwrap: the build is student code (a `py_compile.py` in the
// folder is imported by `python3 -m py_compile`), so it runs in a copy of the submission, never in
// the folder itself, and the copy's total size and file count are capped (--build-disk,
// --build-files). As root, the copy is a tmpfs mounted with those caps: a build that writes more
// gets ENOSPC, and the grader's disk is never touched. Where nothing can be mounted, the copy is
// a plain folder and only the per-file cap (--max-file-size) holds: `grade` says so.

const FS_NAME = "tool-conformance-build";

export interface WorkCopies {
  /** "tmpfs": size and file count capped by the kernel; "folder": not capped (nothing could be mounted). */
  kind: "tmpfs" | "folder";
  /** A copy of `source` for submission `name`, owned by the uid `owner` gives for its path, if any; throws with a one-line reason. */
  make(name: string, source: string, owner?: (path: string) => number | undefined): string;
  /** Unmounts and removes a copy. */
  drop(path: string): void;
  /** Unmounts and removes every copy and the scratch folder. */
  close(): void;
}

export function workCopies(caps: { bytes: number; files: number }): WorkCopies {
  sweep();
  const root = join(tmpdir(), `${FS_NAME}-${process.pid}-${Date.now().toString(36)}`);
  mkdirSync(root, { mode: 0o755 });
  const kind = process.getuid?.() === 0 && canMount(root, caps) ? "tmpfs" : "folder";
  const copies = new Set<string>();
  return {
    kind,
    make(name, source, owner) {
      const path = join(root, String(copies.size + 1), name);
      const top = join(root, String(copies.size + 1));
      mkdirSync(top, { mode: 0o755 });
      copies.add(top);
      mkdirSync(path, { mode: 0o755 });
      if (kind === "tmpfs") mount(path, caps);
      try {
        cpSync(realpathSync(source), path, { recursive: true, verbatimSymlinks: true, preserveTimestamps: true });
      } catch (error) {
        const code = (error as { code?: string }).code;
        throw new Error(code === "ENOSPC" ? "the submission is larger than --build-disk (or holds more files than --build-files)" : `cannot copy the submission: ${(error as Error).message}`);
      }
      const uid = owner?.(path);
      if (uid !== undefined) chownTree(path, uid);
      return path;
    },
    drop(path) {
      if (kind === "tmpfs") unmount(path);
      rmSync(join(path, ".."), { recursive: true, force: true });
    },
    close() {
      for (const top of copies) {
        for (const name of safeList(top)) if (kind === "tmpfs") unmount(join(top, name));
      }
      rmSync(root, { recursive: true, force: true });
    },
  };
}

function canMount(root: string, caps: { bytes: number; files: number }): boolean {
  const trial = join(root, "probe");
  mkdirSync(trial);
  try {
    mount(trial, caps);
    unmount(trial);
    return true;
  } catch {
    return false;
  } finally {
    rmSync(trial, { recursive: true, force: true });
  }
}

function mount(path: string, caps: { bytes: number; files: number }): void {
  const run = spawnSync("mount", ["-t", "tmpfs", "-o", `size=${caps.bytes},nr_inodes=${caps.files},mode=0755,nosuid,nodev`, FS_NAME, path], { encoding: "utf8", timeout: 10_000 });
  if (run.status !== 0) throw new Error(`cannot mount the build's copy: ${(run.stderr || run.error?.message || "").trim()}`);
}

function unmount(path: string): void {
  spawnSync("umount", ["-l", path], { timeout: 10_000 });
}

function safeList(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/** The copy is the sandbox's: every entry owned by its uid (symlinks themselves, never their targets). */
function chownTree(path: string, owner: number): void {
  lchownSync(path, owner, owner);
  if (!lstatSync(path).isDirectory()) return;
  for (const name of readdirSync(path)) chownTree(join(path, name), owner);
}

/** Copies left mounted by a grader that was killed (its pid is gone in the folder's name). */
function sweep(): void {
  let mounts: string[];
  try {
    mounts = readFileSync("/proc/self/mountinfo", "utf8").split("\n");
  } catch {
    return;
  }
  for (const line of mounts) {
    const [left, right] = line.split(" - ");
    if (!right?.startsWith(`tmpfs ${FS_NAME} `)) continue;
    const point = left!.split(" ")[4]!;
    const pid = Number(new RegExp(`${FS_NAME}-(\\d+)-`).exec(point)?.[1]);
    if (!pid || pid === process.pid) continue;
    try {
      process.kill(pid, 0);
    } catch (error) {
      if ((error as { code?: string }).code === "ESRCH") unmount(point);
    }
  }
  for (const name of safeList(tmpdir())) {
    const pid = Number(new RegExp(`^${FS_NAME}-(\\d+)-`).exec(name)?.[1]);
    if (!pid || pid === process.pid) continue;
    try {
      process.kill(pid, 0);
    } catch (error) {
      if ((error as { code?: string }).code === "ESRCH") rmSync(join(tmpdir(), name), { recursive: true, force: true });
    }
  }
}

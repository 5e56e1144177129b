import { spawnSync } from "node:child_process";
import { accessSync, constants, existsSync, realpathSync, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { SandboxError } from "./common.js";
import { goBinds } from "./go-runtime.js";

// `--runtime NAME` (repeatable): instead of the whole of /usr, the sandbox shows only what these
// runtimes need: each one's executable (found on the sandbox's PATH), the shared libraries it
// loads (ldd), and its own library folders (a Python's stdlib and dist-packages, a Go's GOROOT, a
// JVM's home). A Python class then has no node to run a vendored copy of this package. The shell
// the sandbox itself runs (/bin/sh, setpriv) and a few file tools are always there.

/** The PATH inside the sandbox: runtimes are looked up on it, not on the grader's. */
export const SANDBOX_PATH = "/usr/local/bin:/usr/bin:/bin";

/** Always shown with --runtime: the sandbox's own shell and launcher, and the file tools a build script uses. */
const BASE_TOOLS = ["sh", "setpriv", "env", "cat", "cp", "ls", "mkdir", "mv", "rm", "touch", "echo", "printf", "date", "head", "tail", "sleep", "true", "false", "basename", "dirname", "wc", "tr", "sed", "grep", "sort", "test", "id"];

/** What a runtime shows: files and folders, each at its own path. */
export interface RuntimeBinds {
  /** Paths bound read-only as they are (folders whole). */
  paths: string[];
  /** Symlinks to recreate (the PATH name of an executable that is a link, e.g. python3 → python3.11). */
  links: { target: string; path: string }[];
}

const cache = new Map<string, RuntimeBinds>();

/** The binds for these runtimes (names as given to --runtime). Throws SandboxError for one not found. */
export function runtimeBinds(names: readonly string[]): RuntimeBinds {
  const key = names.join("\0");
  const known = cache.get(key);
  if (known) return known;
  const paths = new Set<string>();
  const links = new Map<string, string>();
  const executable = (name: string, required: boolean) => {
    const file = onSandboxPath(name);
    if (file === undefined) {
      if (required) throw new SandboxError(`--runtime ${name}: no ${name} on the sandbox's PATH (${SANDBOX_PATH}); install it there, or show another runtime with --sandbox-bind and call it by its full path`);
      return undefined;
    }
    addFile(file, paths, links);
    return file;
  };
  // the system's shared libraries, whole: a library runs nothing by itself (ldd for each file would be slow)
  for (const lib of sharedLibraries("/bin/sh")) {
    addFile(lib, paths, links);
    paths.add(realpathSync(dirname(lib)));
  }
  for (const tool of BASE_TOOLS) executable(tool, false);
  for (const name of names) {
    if (!/^[A-Za-z0-9._+-]+$/.test(name)) throw new SandboxError(`--runtime ${JSON.stringify(name)}: give a command name (python3, node, go, java)`);
    const file = executable(name, true)!;
    // libraries outside the system's folders (a runtime built into /usr/local)
    for (const lib of sharedLibraries(file)) addFile(lib, paths, links);
    for (const dir of runtimeFolders(name, file)) paths.add(dir);
    if (name === "go") {
      // GOROOT's link targets and a C compiler for -race and cgo (go-runtime.ts)
      const extra = goBinds(file, { PATH: SANDBOX_PATH, HOME: "/tmp" });
      for (const path of extra.paths) paths.add(path);
      for (const tool of extra.executables) {
        const found = executable(tool, false);
        if (found) for (const lib of sharedLibraries(found)) addFile(lib, paths, links);
      }
      for (const program of extra.programs) for (const lib of sharedLibraries(program)) addFile(lib, paths, links);
    }
  }
  // nothing inside another bound folder needs its own bind
  const sorted = [...paths].sort();
  const kept = sorted.filter((path) => !sorted.some((other) => other !== path && path.startsWith(other + "/")));
  const result = { paths: kept, links: [...links].filter(([path]) => !kept.some((dir) => path.startsWith(dir + "/"))).map(([path, target]) => ({ path, target })) };
  cache.set(key, result);
  return result;
}

/** `name` on the sandbox's PATH, as that path (not resolved). */
function onSandboxPath(name: string): string | undefined {
  for (const dir of SANDBOX_PATH.split(":")) {
    const file = join(dir, name);
    try {
      accessSync(file, constants.X_OK);
      if (statSync(file).isFile()) return file;
    } catch {
      // not here
    }
  }
  return undefined;
}

/**
 * Binds a file at its place with every folder symlink resolved (/lib/x/libc.so.6 → /usr/lib/x/libc.so.6,
 * reached again through the /lib link the sandbox recreates), and, when the file itself is a link,
 * recreates that link and binds its target.
 */
function addFile(file: string, paths: Set<string>, links: Map<string, string>): void {
  let dir: string;
  try {
    dir = realpathSync(dirname(file));
  } catch {
    return;
  }
  const at = join(dir, basename(file));
  const real = realpathSync(at);
  if (real !== at) {
    links.set(at, real);
    paths.add(real);
  } else paths.add(at);
}

/** The shared libraries an executable loads, from ldd (the dynamic loader included). */
function sharedLibraries(file: string): string[] {
  const run = spawnSync("ldd", [file], { encoding: "utf8", timeout: 10_000 });
  if (run.status !== 0) return [];
  const libs: string[] = [];
  for (const line of run.stdout.split("\n")) {
    const match = /(?:=>\s*)?(\/\S+)\s+\(0x/.exec(line);
    if (match && existsSync(match[1]!)) libs.push(match[1]!);
  }
  return libs;
}

/** The folders a runtime reads its own libraries from. */
function runtimeFolders(name: string, file: string): string[] {
  const real = realpathSync(file);
  if (/^python3?(\.\d+)?$/.test(name)) {
    const run = spawnSync(file, ["-c", "import sys\nfor p in sys.path:\n  print(p)"], { encoding: "utf8", timeout: 10_000, cwd: "/", env: { PATH: SANDBOX_PATH } });
    return run.stdout.split("\n").filter((p) => p.startsWith("/") && existsSync(p)).map((p) => realpathSync(p));
  }
  if (name === "java" || name === "javac") {
    // a JDK's home: …/bin/java → …
    const home = dirname(dirname(real));
    return home !== "/usr" && home !== "/" ? [home] : [];
  }
  if (name === "node") {
    // Debian's packaged node keeps its own modules here; a vendored node_modules is the submission's own
    return ["/usr/share/nodejs", "/usr/lib/nodejs"].filter((dir) => existsSync(dir) && !isNodeGlobalRoot(dir));
  }
  return [];
}

/** A folder of globally installed npm packages: never shown (it may hold this package). */
function isNodeGlobalRoot(dir: string): boolean {
  return existsSync(join(dir, "npm", "package.json"));
}

import { spawnSync } from "node:child_process";
import { existsSync, lstatSync, readdirSync, realpathSync } from "node:fs";
import { dirname, join } from "node:path";

// What `--runtime go` shows beside the go executable: its GOROOT, and the targets of the symlinks
// inside it (Debian's and Ubuntu's GOROOT, /usr/lib/go-1.19, links src, api, misc, test and
// pkg/include into /usr/share/go-1.19, which a bind of GOROOT alone leaves dangling); and a C
// compiler when the machine has one, since `go build -race` and cgo call gcc, which calls cc1, as
// and ld and reads the C headers and start files.

/** Symlinks are looked for this deep in GOROOT: Debian's are at depth 1 and 2; a full tree's src holds thousands of folders. */
const GOROOT_LINK_DEPTH = 3;

export interface ExtraBinds {
  /** Executables to show at their PATH names (links recreated, their shared libraries found). */
  executables: string[];
  /** Folders and files shown whole, at their real paths. */
  paths: string[];
  /** Programs inside those folders whose shared libraries must be shown too (cc1). */
  programs: string[];
}

/** The binds Go needs beyond its executable; `env` is the environment go and gcc are asked in. */
export function goBinds(goFile: string, env: NodeJS.ProcessEnv): ExtraBinds {
  const paths: string[] = [];
  const run = spawnSync(goFile, ["env", "GOROOT"], { encoding: "utf8", timeout: 10_000, env });
  const root = run.stdout?.trim() ?? "";
  if (root.startsWith("/") && existsSync(root)) {
    const real = realpathSync(root);
    paths.push(real, ...linkTargets(real, GOROOT_LINK_DEPTH));
  }
  const c = cToolchain(env);
  return { executables: c.executables, paths: [...paths, ...c.paths], programs: c.programs };
}

/** The real paths of the symlinks under `dir` (not followed), up to `depth` levels down. */
export function linkTargets(dir: string, depth: number): string[] {
  const found: string[] = [];
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return found;
  }
  for (const entry of entries) {
    const at = join(dir, entry);
    let stat;
    try {
      stat = lstatSync(at);
    } catch {
      continue;
    }
    if (stat.isSymbolicLink()) {
      try {
        found.push(realpathSync(at));
      } catch {
        // a dangling link: nothing to show
      }
    } else if (stat.isDirectory() && depth > 1) found.push(...linkTargets(at, depth - 1));
  }
  return found;
}

/** gcc and what it runs and reads, or nothing when there is no gcc (a Go build then works without -race and cgo). */
export function cToolchain(env: NodeJS.ProcessEnv): ExtraBinds {
  const ask = (...args: string[]) => spawnSync("gcc", args, { encoding: "utf8", timeout: 10_000, env, input: "" });
  const version = ask("-dumpversion");
  if (version.error || version.status !== 0) return { executables: [], paths: [], programs: [] };
  const executables = ["gcc", "cc", "as", "ld"];
  const paths = new Set<string>();
  const programs: string[] = [];
  // cc1 and collect2 live in gcc's own folder, beside libgcc and its headers
  for (const prog of ["cc1", "collect2"]) {
    const at = ask(`-print-prog-name=${prog}`).stdout.trim();
    if (!at.startsWith("/") || !existsSync(at)) continue;
    paths.add(realpathSync(dirname(at)));
    programs.push(at);
  }
  const libgcc = ask("-print-libgcc-file-name").stdout.trim();
  if (libgcc.startsWith("/") && existsSync(libgcc)) paths.add(realpathSync(dirname(libgcc)));
  // the C headers: the folders of gcc's <...> search list
  const search = ask("-xc", "-E", "-v", "-");
  const text = `${search.stderr ?? ""}`;
  const start = text.indexOf("#include <...> search starts here:");
  const end = text.indexOf("End of search list.");
  if (start >= 0 && end > start) {
    for (const line of text.slice(start, end).split("\n").slice(1)) {
      const dir = line.trim();
      if (dir.startsWith("/") && existsSync(dir)) paths.add(realpathSync(dir));
    }
  }
  // the start files and libc's static parts (crt1.o, libc_nonshared.a) sit with the shared libraries, shown already
  return { executables, paths: [...paths], programs };
}

import { createHash } from "node:crypto";
import { closeSync, lstatSync, openSync, readdirSync, readFileSync, readSync } from "node:fs";
import { join, relative } from "node:path";
import { PACKAGE_ROOT } from "../corpus/load.js";

// A submission that carries this package (its built reference, its corpus: the answers) is
// flagged in the class table. Found by content, not by name: the SHA-256 of every distinctive file
// of this package (dist/, the corpus; not the adapter templates, which students are meant to copy)
// against every file of the submission of the same size, and any package.json naming this
// package. A copy edited by hand escapes this, and is then the student's own port.

/** Files smaller than this are too common to tell anything (an empty module, a two-line row). */
const MIN_BYTES = 256;
/** A submission is scanned up to this many files and this size a file. */
const MAX_FILES = 50_000;
const MAX_FILE_BYTES = 8 * 1024 * 1024;

export interface Carried {
  /** How many files of this package the submission holds. */
  files: number;
  /** A few of them, as paths in this package. */
  examples: string[];
  /** Whether a package.json in it names this package. */
  manifest: boolean;
}

interface Prints {
  name: string | undefined;
  bySize: Map<number, Map<string, string>>;
}

let prints: Prints | undefined;

/** This package's distinctive files: hashes by size. */
function packagePrints(): Prints {
  if (prints) return prints;
  const bySize = new Map<number, Map<string, string>>();
  const add = (file: string) => {
    const size = lstatSync(file).size;
    if (size < MIN_BYTES) return;
    const hash = createHash("sha256").update(readFileSync(file)).digest("hex");
    if (!bySize.has(size)) bySize.set(size, new Map());
    bySize.get(size)!.set(hash, relative(PACKAGE_ROOT, file));
  };
  for (const dir of ["dist", join("conformance", "corpus")]) walk(join(PACKAGE_ROOT, dir), (file) => (/\.(js|json|jsonl|md)$/.test(file) && !file.includes(`${join("dist", "mutants", "built")}`) ? add(file) : undefined), Infinity);
  let name: string | undefined;
  try {
    name = (JSON.parse(readFileSync(join(PACKAGE_ROOT, "package.json"), "utf8")) as { name?: string }).name;
  } catch {
    name = undefined;
  }
  prints = { name, bySize };
  return prints;
}

/** Calls `visit` for every regular file under `dir` (symlinks not followed), up to `max` files. */
function walk(dir: string, visit: (file: string, size: number) => void, max: number): void {
  let seen = 0;
  const stack = [dir];
  while (stack.length > 0 && seen < max) {
    const current = stack.pop()!;
    let entries: string[];
    try {
      entries = readdirSync(current);
    } catch {
      continue;
    }
    for (const entry of entries) {
      const path = join(current, entry);
      let stat;
      try {
        stat = lstatSync(path);
      } catch {
        continue;
      }
      if (stat.isDirectory()) stack.push(path);
      else if (stat.isFile()) {
        if (++seen > max) return;
        visit(path, stat.size);
      }
    }
  }
}

/** What of this package a submission's folder carries; undefined when nothing. */
export function carriedFiles(dir: string): Carried | undefined {
  const { name, bySize } = packagePrints();
  const found = new Set<string>();
  let manifest = false;
  walk(
    dir,
    (file, size) => {
      if (file.endsWith("package.json") && size < 1024 * 1024 && name) {
        try {
          if ((JSON.parse(readFileSync(file, "utf8")) as { name?: string }).name === name) manifest = true;
        } catch {
          // not JSON
        }
      }
      const candidates = bySize.get(size);
      if (!candidates || size > MAX_FILE_BYTES) return;
      const hash = createHash("sha256").update(readPrefix(file, size)).digest("hex");
      const match = candidates.get(hash);
      if (match) found.add(match);
    },
    MAX_FILES,
  );
  if (found.size === 0 && !manifest) return undefined;
  return { files: found.size, examples: [...found].sort().slice(0, 3), manifest };
}

function readPrefix(file: string, size: number): Buffer {
  const buffer = Buffer.alloc(size);
  const fd = openSync(file, "r");
  try {
    let read = 0;
    while (read < size) {
      const n = readSync(fd, buffer, read, size - read, read);
      if (n === 0) break;
      read += n;
    }
    return buffer.subarray(0, read);
  } finally {
    closeSync(fd);
  }
}

/** The flag's words for a class table or a log. */
export function describeCarried(carried: Carried): string {
  const what = carried.files > 0 ? `${carried.files} file${carried.files === 1 ? "" : "s"} of tool-conformance (${carried.examples.join(", ")}${carried.files > carried.examples.length ? ", …" : ""})` : "";
  return `FLAGGED: carries ${[what, carried.manifest ? "a package.json naming tool-conformance" : ""].filter(Boolean).join(" and ")}`;
}

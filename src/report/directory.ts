import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";

/**
 * Makes a folder and the ones above it, like `mkdir -p`. Node's own recursive mkdir never returns
 * when a parent exists but refuses children (it retries ENOENT under /proc forever), so the
 * ancestors are made one by one, top down, and the first refusal is thrown.
 */
export function makeDirectory(path: string): void {
  const chain: string[] = [];
  for (let at = resolve(path); ; at = dirname(at)) {
    chain.unshift(at);
    if (dirname(at) === at) break;
  }
  for (const dir of chain) {
    try {
      mkdirSync(dir);
    } catch (error) {
      if ((error as { code?: string }).code !== "EEXIST") throw error;
    }
  }
}


/**
 * Writes `data` to `path` through a temporary file in the same folder, flushed to disk,
 * then renamed over `path` (atomic on POSIX filesystems). Creates the folder if needed.
 */
export function writeFileAtomic(path: string, data: string | Uint8Array): void {
  const dir = dirname(path);
  makeDirectory(dir);
  const temp = join(dir, `.${basename(path)}.${process.pid}.${Math.random().toString(36).slice(2, 10)}.tmp`);
  try {
    const fd = openSync(temp, "w");
    try {
      writeSync(fd, typeof data === "string" ? Buffer.from(data, "utf8") : data);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, path);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}

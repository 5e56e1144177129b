import { mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";

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

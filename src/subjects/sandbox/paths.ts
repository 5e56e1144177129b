import { lstatSync, realpathSync } from "node:fs";
import { isAbsolute, relative, resolve } from "node:path";
import { SandboxError } from "./common.js";

// The folders a sandbox is given, checked: real, existing, not the whole machine, and outside
// every path the subject must not see.

/** A path the subject must not see, and how to name it in an error. */
export interface Hidden {
  path: string;
  what: string;
}

export function checkedFolder(path: string, flag: string, hidden: readonly Hidden[]): string {
  const real = existingReal(path);
  if (real === undefined) throw new SandboxError(`${flag} ${path}: no such folder`);
  if (kindOf(real) !== "dir") throw new SandboxError(`${flag} ${path}: not a folder`);
  if (real === "/") throw new SandboxError(`${flag} ${path}: the whole machine; give the submission's own folder`);
  refuseHidden(real, path, flag, hidden);
  return real;
}

export function checkedBind(path: string, hidden: readonly Hidden[]): string {
  const real = existingReal(path);
  if (real === undefined) throw new SandboxError(`--sandbox-bind ${path}: no such file or folder`);
  if (real === "/") throw new SandboxError(`--sandbox-bind ${path}: the whole machine; give the runtime's own folder`);
  refuseHidden(real, path, "--sandbox-bind", hidden);
  return real;
}

function refuseHidden(real: string, given: string, flag: string, hidden: readonly Hidden[]): void {
  const inside = hidden.find((h) => within(real, h.path));
  if (inside) throw new SandboxError(`${flag} ${given}: it is inside ${inside.what}; give a folder outside it`);
}

/** Whether `path` is `parent` or inside it (both absolute and real). */
export function within(path: string, parent: string): boolean {
  const rel = relative(parent, path);
  return rel === "" || (rel !== ".." && !rel.startsWith("../") && !isAbsolute(rel));
}

export function existingReal(path: string): string | undefined {
  try {
    return realpathSync(resolve(path));
  } catch {
    return undefined;
  }
}

export function kindOf(path: string): "dir" | "link" | "file" | undefined {
  try {
    const stat = lstatSync(path);
    return stat.isSymbolicLink() ? "link" : stat.isDirectory() ? "dir" : "file";
  } catch {
    return undefined;
  }
}

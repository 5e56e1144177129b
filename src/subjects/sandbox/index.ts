import { bwrapSandbox, type BwrapOptions } from "./bwrap.js";
import type { Sandbox } from "./common.js";
import { noSandbox } from "./none.js";

// How a subject's command is run. A sandbox turns a shell command line into what to spawn:
// `none` runs it through /bin/sh as the harness's own user (no isolation); `bwrap` runs it in
// a bubblewrap container that sees only its submission folder, the system's runtimes and a
// private /tmp, with caps on memory, processes, CPU time and file size (docs/sandbox.md).

export * from "./common.js";
export { findBwrap, probeBwrap, sandboxOwner, sandboxUid, type BwrapOptions } from "./bwrap.js";
export { otherCopies } from "./other-copies.js";
export { cgroupSupport } from "./cgroup.js";

export type SandboxOptions = { mode: "none" } | ({ mode: "bwrap" } & BwrapOptions);

/** The sandbox for these options. Throws SandboxError when bwrap is missing, cannot run here, or a path is unusable. */
export function createSandbox(options: SandboxOptions): Sandbox {
  return options.mode === "bwrap" ? bwrapSandbox(options) : noSandbox();
}

/**
 * A size such as `512M`, `1G`, `64k` or `65536` (bytes): K, M and G are powers of 1024.
 * Undefined when the text is not a positive size.
 */
export function parseSize(text: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)\s*([kmg]?)(?:i?b)?$/i.exec(text.trim());
  if (!match) return undefined;
  const unit = { "": 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 }[match[2]!.toLowerCase() as "" | "k" | "m" | "g"];
  const bytes = Math.floor(Number(match[1]) * unit);
  return Number.isSafeInteger(bytes) && bytes > 0 ? bytes : undefined;
}

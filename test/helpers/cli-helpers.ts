import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { expect } from "vitest";
import { PACKAGE_ROOT } from "../../src/corpus/load.js";

// The built CLI as a user runs it, for the tests that read reports and refusals.

export const MAIN = join(PACKAGE_ROOT, "dist", "cli", "main.js");

/** Runs `node dist/cli/main.js ARGS` from the package root, without colour or a step summary. */
export function cli(...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [MAIN, ...args], { cwd: PACKAGE_ROOT, encoding: "utf8", env: { ...process.env, NO_COLOR: "1", GITHUB_STEP_SUMMARY: "" }, timeout: 60_000 });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** A user-facing error: exactly one `tool-conformance:` line, no stack trace. */
export function oneLineError(stderr: string): string {
  const errors = stderr.split("\n").filter((line) => line.startsWith("tool-conformance: "));
  expect(errors.length, stderr).toBe(1);
  expect(stderr).not.toMatch(/\n\s+at /);
  return errors[0]!;
}

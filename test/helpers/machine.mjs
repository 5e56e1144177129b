import { spawnSync } from "node:child_process";
import { accessSync, constants, existsSync } from "node:fs";
import { delimiter, join } from "node:path";
import { fileURLToPath } from "node:url";

// A test is skipped only for what the machine lacks: a command on PATH, a file or device
// (`/dev/kvm`), or something a known probe settles (a library, a folder only .ci/run installs). Its name carries the need as "[needs: X, Y]"; .ci/run reads that tag from every
// skipped test (.ci/skips.mjs, with this same check) and fails the run when the need is in fact met,
// so a skip cannot hide a test that could run. Plain JavaScript, so that .ci/run can import it too.

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/**
 * The real MCP servers of docs/mcp-servers.md, with their own lockfile: `npm ci` at the root does not
 * install them, .ci/run does. The need says how to meet it.
 */
export const MCP_SERVERS_INSTALLED = "implementations/mcp installed (npm ci --prefix implementations/mcp)";

/** One small server per MCP server framework (docs/mcp-frameworks.md), with its own lockfile: .ci/run installs it. */
export const MCP_FRAMEWORKS_INSTALLED = "implementations/mcp-frameworks installed (npm ci --prefix implementations/mcp-frameworks)";

/** mcp-framework's server, on zod 3, in a folder of its own with its own lockfile (the folder above has zod 4): .ci/run installs it. */
export const MCP_FRAMEWORK_ZOD3_INSTALLED = "implementations/mcp-frameworks/mcp-framework installed (npm ci --prefix implementations/mcp-frameworks/mcp-framework)";

/** Needs a command on PATH does not settle: perl is everywhere, but a minimal one may lack JSON::PP. */
const PROBES = {
  perl: () => spawnSync("perl", ["-MJSON::PP", "-e1"], { stdio: "ignore" }).status === 0,
  [MCP_SERVERS_INSTALLED]: () => existsSync(join(ROOT, "implementations", "mcp", "node_modules")),
  [MCP_FRAMEWORKS_INSTALLED]: () => existsSync(join(ROOT, "implementations", "mcp-frameworks", "node_modules")),
  [MCP_FRAMEWORK_ZOD3_INSTALLED]: () => existsSync(join(ROOT, "implementations", "mcp-frameworks", "mcp-framework", "node_modules")),
};

/** Whether the machine has it: a known need's probe, an absolute path that exists (a device: readable and writable), or a command on PATH. */
export function has(need) {
  if (Object.hasOwn(PROBES, need)) return PROBES[need]();
  if (need.startsWith("/")) {
    if (!need.startsWith("/dev/")) return existsSync(need);
    try {
      accessSync(need, constants.R_OK | constants.W_OK);
      return true;
    } catch {
      return false;
    }
  }
  return (process.env.PATH ?? "").split(delimiter).some((dir) => dir !== "" && existsSync(join(dir, need)));
}

/** The needs of a test: `lacking` is true when any is missing; `tag` goes in the test's name. */
export function needs(...what) {
  return { lacking: what.some((need) => !has(need)), tag: `[needs: ${what.join(", ")}]` };
}

/** The needs a test's full name states, from its "[needs: …]" tag; undefined when it states none. */
export function statedNeeds(name) {
  const tag = /\[needs: ([^\]]+)\]/.exec(name);
  return tag ? tag[1].split(",").map((need) => need.trim()) : undefined;
}

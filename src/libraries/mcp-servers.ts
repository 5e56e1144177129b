import { chmodSync, cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { UsageError } from "../errors.js";
import { scoreMcp } from "../harness/score-mcp.js";
import { SubjectStoppedError } from "../harness/stopped.js";
import type { Report } from "../report/report.js";
import { createSandbox, findBwrap, SandboxError } from "../subjects/sandbox/index.js";

// The real MCP servers of implementations/mcp/ (their own pinned package.json and lockfile), each
// scored as `score --mcp "COMMAND" --sandbox bwrap` would score it: only invalid calls (the default),
// the server in the sandbox with no network and its own copy of the folder, so that a server that
// reaches out (an API client with a dummy key) reaches nothing, and one that writes writes nowhere.

export interface McpServerEntry {
  name: string;
  package: string;
  /** Run through the shell in the copy of implementations/mcp/, inside the sandbox. */
  command: string;
  /** What kind of server it is, for the table. */
  kind: string;
}

export interface ScoredMcpServer {
  entry: McpServerEntry;
  /** The installed version, from its package.json. */
  version: string;
  report: Report;
}

/** implementations/mcp/servers.json, checked; a clear error for a file that is not one. */
export function readMcpServerList(folder: string): McpServerEntry[] {
  const file = join(folder, "servers.json");
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new UsageError(`${file}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const servers = (parsed as { servers?: unknown }).servers;
  const fields = ["name", "package", "command", "kind"] as const;
  if (!Array.isArray(servers) || !servers.every((s) => typeof s === "object" && s !== null && fields.every((f) => typeof (s as Record<string, unknown>)[f] === "string"))) {
    throw new UsageError(`${file}: expected {"servers": [{${fields.join(", ")}}, ...]}, each a string`);
  }
  return servers as McpServerEntry[];
}

/** Scores every listed server in the sandbox; `onServer` hears of each as it starts. */
export async function scoreMcpServers(folder: string, entries: McpServerEntry[], onServer: (entry: McpServerEntry, n: number) => void = () => {}): Promise<ScoredMcpServer[]> {
  if (!existsSync(join(folder, "node_modules"))) throw new UsageError(`${folder}: its servers are not installed: run npm ci --prefix ${folder}`);
  if (findBwrap() === undefined) throw new UsageError("the MCP servers run only in the sandbox, with no network: bubblewrap (bwrap) is not installed or not on PATH (Debian/Ubuntu: apt-get install bubblewrap)");
  // the sandbox sees one folder outside this tool's own, readable by its own user
  const copy = mkdtempSync(join(tmpdir(), "tool-conformance-mcp-servers-"));
  try {
    for (const name of ["package.json", "servers.json", "node_modules"]) cpSync(join(folder, name), join(copy, name), { recursive: true });
    readable(copy);
    let sandbox;
    try {
      sandbox = createSandbox({ mode: "bwrap", submission: copy });
    } catch (error) {
      if (error instanceof SandboxError) throw new UsageError(`the MCP servers run only in the sandbox, with no network: ${error.message}`);
      throw error;
    }
    const scored: ScoredMcpServer[] = [];
    for (const [n, entry] of entries.entries()) {
      onServer(entry, n);
      const version = (JSON.parse(readFileSync(join(copy, "node_modules", entry.package, "package.json"), "utf8")) as { version: string }).version;
      let report: Report;
      try {
        report = await scoreMcp({ command: entry.command, cwd: copy, sandbox }, { label: `${entry.package}@${version}`, tiers: ["core"] });
      } catch (error) {
        if (!(error instanceof SubjectStoppedError)) throw error;
        report = error.report;
      }
      scored.push({ entry, version, report });
    }
    return scored;
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
}

/** Every folder and file under `dir` readable (and folders enterable) by the sandbox's own user. */
function readable(dir: string): void {
  chmodSync(dir, 0o755);
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    const path = join(entry.parentPath, entry.name);
    if (entry.isSymbolicLink()) continue;
    chmodSync(path, entry.isDirectory() ? 0o755 : statSync(path).mode & 0o111 ? 0o755 : 0o644);
  }
}

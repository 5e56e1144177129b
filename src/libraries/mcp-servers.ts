import { chmodSync, cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { UsageError } from "../errors.js";
import { scoreMcp } from "../harness/score-mcp.js";
import { SubjectStoppedError } from "../harness/stopped.js";
import type { Report } from "../report/report.js";
import { errorText, resultText, unanswered } from "../run/mcp/classify.js";
import { McpClient, type McpEndpoint } from "../subjects/mcp/client.js";
import { createSandbox, findBwrap, SandboxError } from "../subjects/sandbox/index.js";

// The real MCP servers of implementations/mcp/ (their own pinned package.json and lockfile), each
// scored as `score --mcp "COMMAND" --sandbox bwrap` would score it: only invalid calls (the default),
// the server in the sandbox with no network and its own copy of the folder, so that a server that
// reaches out (an API client with a dummy key) reaches nothing, and one that writes writes nowhere.
// The servers of implementations/mcp-frameworks/ (one per server framework, the same tools each) are
// scored the same way, with valid calls as well (`run`) and the seed's worked call answered once more.

export interface McpServerEntry {
  name: string;
  package: string;
  /** Run through the shell in the copy of implementations/mcp/, inside the sandbox. */
  command: string;
  /** What kind of server it is, for the table. */
  kind: string;
  /** Tools sent valid calls too (`--mcp-run`): only the folder's own tools, which answer their arguments back. */
  run?: string[];
  /** A subfolder with its own package.json, lockfile and node_modules, for a server whose dependencies clash with the folder's. */
  folder?: string;
}

/** One call sent after the scoring, its arguments as JSON text (the seed's worked example). */
export interface WorkedCall {
  tool: string;
  argumentsText: string;
}

export interface ScoredMcpServer {
  entry: McpServerEntry;
  /** The installed version, from its package.json. */
  version: string;
  report: Report;
  /** The answer to the worked call, when one was asked for: how its refusal reads. */
  worked?: string;
}

export interface ScoreMcpServersOptions {
  /** Hears of each server as it starts. */
  onServer?: (entry: McpServerEntry, n: number) => void;
  /** Sent to each server once it is scored. */
  workedCall?: WorkedCall;
}

/** implementations/mcp/servers.json (or another list of the folder), checked; a clear error for a file that is not one. */
export function readMcpServerList(folder: string, list = "servers.json"): McpServerEntry[] {
  const file = join(folder, list);
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new UsageError(`${file}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const servers = (parsed as { servers?: unknown }).servers;
  const fields = ["name", "package", "command", "kind"] as const;
  if (!Array.isArray(servers) || !servers.every((s) => typeof s === "object" && s !== null && fields.every((f) => typeof (s as Record<string, unknown>)[f] === "string") && isRunList((s as Record<string, unknown>).run) && isFolder((s as Record<string, unknown>).folder))) {
    throw new UsageError(`${file}: expected {"servers": [{${fields.join(", ")}}, ...]}, each a string (and "run", when given, a list of tool names; "folder", a subfolder's name)`);
  }
  return servers as McpServerEntry[];
}

function isFolder(folder: unknown): boolean {
  return folder === undefined || (typeof folder === "string" && /^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(folder));
}

function isRunList(run: unknown): boolean {
  return run === undefined || (Array.isArray(run) && run.length > 0 && run.every((tool) => typeof tool === "string" && tool !== ""));
}

/** Scores every listed server in the sandbox. */
export async function scoreMcpServers(folder: string, entries: McpServerEntry[], options: ScoreMcpServersOptions = {}): Promise<ScoredMcpServer[]> {
  for (const installed of [folder, ...new Set(entries.flatMap((entry) => (entry.folder !== undefined ? [join(folder, entry.folder)] : [])))]) {
    if (!existsSync(join(installed, "node_modules"))) throw new UsageError(`${installed}: its servers are not installed: run npm ci --prefix ${installed}`);
  }
  if (findBwrap() === undefined) throw new UsageError("the MCP servers run only in the sandbox, with no network: bubblewrap (bwrap) is not installed or not on PATH (Debian/Ubuntu: apt-get install bubblewrap)");
  // the sandbox sees one folder outside this tool's own, readable by its own user
  const copy = mkdtempSync(join(tmpdir(), "tool-conformance-mcp-servers-"));
  try {
    for (const name of readdirSync(folder)) cpSync(join(folder, name), join(copy, name), { recursive: true });
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
      options.onServer?.(entry, n);
      const version = (JSON.parse(readFileSync(join(copy, entry.folder ?? "", "node_modules", entry.package, "package.json"), "utf8")) as { version: string }).version;
      let report: Report;
      try {
        report = await scoreMcp({ command: entry.command, cwd: copy, sandbox }, { label: `${entry.package}@${version}`, tiers: ["core"], ...(entry.run ? { run: entry.run } : {}) });
      } catch (error) {
        if (!(error instanceof SubjectStoppedError)) throw error;
        report = error.report;
      }
      const worked = options.workedCall && !report.summary.stopped ? await answerTo({ command: entry.command, cwd: copy, sandbox }, options.workedCall) : undefined;
      scored.push({ entry, version, report, ...(worked !== undefined ? { worked } : {}) });
    }
    return scored;
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
}

/** The answer to one call as a model would read it: a result's text (marked when isError), or the JSON-RPC error. */
async function answerTo(endpoint: McpEndpoint, call: WorkedCall): Promise<string> {
  let client: McpClient;
  try {
    client = await McpClient.connect(endpoint, { timeoutMs: 10_000 });
  } catch (error) {
    return `the server did not start again: ${error instanceof Error ? error.message : String(error)}`;
  }
  try {
    const answer = await client.callText(call.tool, call.argumentsText);
    const missing = unanswered(answer);
    if (missing) return `${missing.verdict}: ${missing.text}`;
    if (answer.kind === "error") return errorText(answer.error).shown;
    if (answer.kind !== "result") return answer.kind;
    const isError = (answer.result as { isError?: unknown } | undefined)?.isError === true;
    return `${isError ? "isError: " : "result: "}${resultText(answer.result)}`;
  } finally {
    await client.close();
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
